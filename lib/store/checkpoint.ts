import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { sha256 } from '../util/hash';
import { ensureWritableDir, writeFileAtomic, writeJsonAtomic } from '../util/fs';
import type { Checkpoint, CheckpointInput, CheckpointManifest, CheckpointTensorEntry } from './types';

export const CHECKPOINT_JSON = 'checkpoint.json';
export const CHECKPOINT_WEIGHTS = 'weights.bin';

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Save a checkpoint into `dir`: all tensors concatenated as little-endian float32 in `weights.bin`, then
 * `checkpoint.json` with the config, seed, backend, data hash, metrics, the per-tensor offsets and shapes and
 * the SHA-256 of weights.bin. Each file is written atomically (temp file + rename), weights first, so a
 * crash leaves either the old pair, or a new weights.bin the old manifest's hash refuses — never a silently
 * mixed checkpoint.
 */
export function saveCheckpoint(dir: string, ckpt: CheckpointInput): void {
  if (!LITTLE_ENDIAN) throw new EoError('CONFIG', 'saveCheckpoint: big-endian hosts are not supported');
  const names = Object.keys(ckpt.tensors);
  const entries: CheckpointTensorEntry[] = [];
  let total = 0;
  for (const name of names) {
    const t = ckpt.tensors[name];
    const expected = t.shape.reduce((a, b) => a * b, 1);
    if (expected !== t.data.length)
      throw new EoError('INVALID_ARGUMENT', `saveCheckpoint: tensor "${name}" has shape [${t.shape}] (${expected} values) but ${t.data.length} values`);
    entries.push({ name, shape: t.shape.slice(), offset: total * 4, length: t.data.length });
    total += t.data.length;
  }
  const all = new Float32Array(total);
  let o = 0;
  for (const name of names) {
    all.set(ckpt.tensors[name].data, o);
    o += ckpt.tensors[name].data.length;
  }
  const bytes = new Uint8Array(all.buffer, all.byteOffset, all.byteLength);
  ensureWritableDir(dir);
  writeFileAtomic(path.join(dir, CHECKPOINT_WEIGHTS), bytes);
  const manifest: CheckpointManifest = {
    format: 'eo-checkpoint',
    version: 1,
    kind: ckpt.kind,
    config: ckpt.config,
    seed: ckpt.seed,
    backend: ckpt.backend,
    dataHash: ckpt.dataHash,
    ...(ckpt.trainingData !== undefined ? { trainingData: ckpt.trainingData } : {}),
    ...(ckpt.metrics !== undefined ? { metrics: ckpt.metrics } : {}),
    created: new Date().toISOString(),
    weights: { file: CHECKPOINT_WEIGHTS, bytes: bytes.byteLength, sha256: sha256(bytes), dtype: 'float32', endianness: 'little' },
    tensors: entries,
  };
  writeJsonAtomic(path.join(dir, CHECKPOINT_JSON), manifest);
}

/** The notebook that trains each checkpoint kind (`npm start -- --only <notebook>` rebuilds it). */
const NOTEBOOK_OF_KIND: Record<string, string> = { nnssc: '04-nnssc', 'finetune-use-lite': '03-encoder-finetune' };

/** `npm start -- --only <notebook>`, with `--sample` for the sample snapshot: the command that reruns one notebook. */
export function notebookRunCommand(notebook: string, sample: boolean): string {
  return `npm start -- --only ${notebook}${sample ? ' --sample' : ''}`;
}

/**
 * The command that rebuilds a checkpoint: the notebook that trains its kind (with `--sample` when it was trained on
 * a sample benchmark), else "delete <dir> and re-run the training that writes it" for a kind no notebook trains.
 */
export function checkpointRebuildCommand(m: Partial<Pick<CheckpointManifest, 'kind' | 'trainingData'>> | null, dir: string): string {
  const notebook = m?.kind ? NOTEBOOK_OF_KIND[m.kind] : undefined;
  if (notebook) return notebookRunCommand(notebook, !!m?.trainingData?.benchmark?.endsWith('-sample'));
  return `delete ${dir} and re-run the training that writes it`;
}

/** True when `dir` holds a checkpoint manifest (it may still be refused by `loadCheckpoint`). */
export function checkpointExists(dir: string): boolean {
  return fs.existsSync(path.join(dir, CHECKPOINT_JSON));
}

/** Read only the manifest (no weights, no hash check): for listings. */
export function readCheckpointManifest(dir: string, rebuild?: string): CheckpointManifest {
  const file = path.join(dir, CHECKPOINT_JSON);
  const fix = `rebuild it: ${rebuild ?? checkpointRebuildCommand(null, dir)}`;
  if (!fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `no checkpoint at ${file} (train one first)`, { file });
  let m: CheckpointManifest;
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EoError('DATA_INVALID', `corrupt checkpoint ${file}: invalid JSON (${(e as Error).message}); ${fix}`, { file });
  }
  const bad = (what: string) => new EoError('DATA_INVALID', `corrupt checkpoint ${file}: ${what}; ${fix}`, { file });
  if (!m || typeof m !== 'object' || m.format !== 'eo-checkpoint') throw bad('not an eo-checkpoint manifest');
  if (m.version !== 1) throw bad(`unsupported version ${String(m.version)}`);
  if (typeof m.kind !== 'string' || typeof m.dataHash !== 'string' || !Array.isArray(m.tensors) || !m.weights || typeof m.weights.sha256 !== 'string')
    throw bad('missing fields');
  return m;
}

/**
 * Load a checkpoint saved by `saveCheckpoint`. Refuses (EoError) a missing checkpoint (DATA_NOT_FOUND), one whose
 * weights.bin has the wrong size or SHA-256 (CACHE_MISMATCH, naming the file and both hashes), a corrupt one — bad
 * JSON, weights.bin missing, tensors outside the file — (DATA_INVALID), and one whose `kind` or `dataHash` differs
 * from `expect` (CACHE_MISMATCH). Every message names the file and the command that rebuilds it: `expect.rebuild`,
 * default `checkpointRebuildCommand` (the notebook that trains its kind, e.g. `npm start -- --only 04-nnssc`).
 */
export function loadCheckpoint(dir: string, expect: { kind?: string; dataHash?: string; rebuild?: string } = {}): Checkpoint {
  const file = path.join(dir, CHECKPOINT_JSON);
  const guess = expect.rebuild ?? checkpointRebuildCommand(expect.kind ? { kind: expect.kind } : null, dir);
  const m = readCheckpointManifest(dir, guess);
  const fix = `rebuild it: ${expect.rebuild ?? checkpointRebuildCommand(m, dir)}`;
  if (expect.kind !== undefined && m.kind !== expect.kind)
    throw new EoError('CACHE_MISMATCH', `checkpoint ${file} is a "${m.kind}" checkpoint, expected "${expect.kind}"; point to the right folder or ${fix}`, {
      file, kind: m.kind, expected: expect.kind,
    });
  if (expect.dataHash !== undefined && m.dataHash !== expect.dataHash)
    throw new EoError(
      'CACHE_MISMATCH',
      `checkpoint ${file} was trained on other data (data hash ${m.dataHash}, current ${expect.dataHash}: corpus, split or embeddings changed); ${fix}`,
      { file, dataHash: m.dataHash, expected: expect.dataHash },
    );
  const wfile = path.join(dir, m.weights.file ?? CHECKPOINT_WEIGHTS);
  if (!fs.existsSync(wfile)) throw new EoError('DATA_INVALID', `corrupt checkpoint ${file}: weights file ${wfile} is missing; ${fix}`, { file: wfile });
  const buf = fs.readFileSync(wfile);
  if (buf.byteLength !== m.weights.bytes)
    throw new EoError('CACHE_MISMATCH', `corrupt checkpoint ${wfile}: ${buf.byteLength} bytes, the manifest says ${m.weights.bytes}; ${fix}`, { file: wfile });
  const hash = sha256(buf);
  if (hash !== m.weights.sha256)
    throw new EoError('CACHE_MISMATCH', `corrupt checkpoint ${wfile}: SHA-256 ${hash} differs from ${m.weights.sha256}, recorded in ${file} when it was written; ${fix}`, {
      file: wfile, recorded: m.weights.sha256, actual: hash,
    });
  // Copy into an aligned buffer (a Node Buffer may sit at any byte offset of a shared pool).
  const aligned = new Uint8Array(buf.byteLength);
  aligned.set(buf);
  const all = new Float32Array(aligned.buffer, 0, aligned.byteLength / 4);
  const tensors: Checkpoint['tensors'] = {};
  for (const t of m.tensors) {
    const expected = t.shape.reduce((a, b) => a * b, 1);
    if (expected !== t.length || t.offset % 4 !== 0 || t.offset / 4 + t.length > all.length)
      throw new EoError('DATA_INVALID', `corrupt checkpoint ${file}: tensor "${t.name}" [${t.shape}] does not fit weights.bin; ${fix}`, { file });
    tensors[t.name] = { shape: t.shape.slice(), data: all.slice(t.offset / 4, t.offset / 4 + t.length) };
  }
  return {
    kind: m.kind,
    config: m.config,
    seed: m.seed,
    backend: m.backend,
    dataHash: m.dataHash,
    ...(m.trainingData !== undefined ? { trainingData: m.trainingData } : {}),
    ...(m.metrics !== undefined ? { metrics: m.metrics } : {}),
    tensors,
    created: m.created,
    file,
  };
}
