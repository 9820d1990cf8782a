import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkpointsDir } from '../util/paths';
import { EoError } from '../errors';
import { checkContentHash, sha256 as sha256Hex, shortHash } from '../util/hash';
import { ensureWritableDir, writeFileAtomic, writeJsonAtomic } from '../util/fs';
import { lockHolder, releaseLock, sleep, touchLock, tryLock } from '../util/lock';
import { runEmbedPool, type EmbedJob } from './pool';
import type { EmbedCorpusOptions, EmbeddingCacheMeta, EmbeddingCachePaths, EmbedQueriesOptions, SentenceEncoder } from './types';

const FORMAT = 'eo-embeddings/1';
const KEY_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/** Default cache folder for corpus embeddings: `<repo>/checkpoints/embeddings`. */
export function defaultEmbeddingCacheDir(): string {
  return checkpointsDir('embeddings');
}

/** Default cache folder for query embeddings: `<repo>/checkpoints/embeddings/queries`. */
export function defaultQueryCacheDir(): string {
  return path.join(defaultEmbeddingCacheDir(), 'queries');
}

/** 16-hex hash over the exact texts, in order (length-prefixed, so boundaries count). */
export function hashTexts(texts: string[]): string {
  const h = createHash('sha256');
  h.update(`n=${texts.length}\n`);
  for (const t of texts) h.update(`${Buffer.byteLength(t, 'utf8')}:`).update(t, 'utf8');
  return h.digest('hex').slice(0, 16);
}

/** Encoder id made safe for a file name (`use-lite-512@energetic-ai-0.2.0` → `use-lite-512_energetic-ai-0.2.0`). */
export function encoderSlug(encoderId: string): string {
  const s = encoderId.replace(/[^A-Za-z0-9_.-]+/g, '_');
  return s.length <= 80 ? s : `${s.slice(0, 60)}_${shortHash(encoderId, 12)}`;
}

/** File names of one cached matrix: `<dir>/<encoder>__<key>__<textHash>.{f32,json,partial/}`. */
export function embeddingCachePaths(cacheDir: string, encoderId: string, key: string, textHash: string): EmbeddingCachePaths {
  if (!KEY_RE.test(key)) throw new EoError('INVALID_ARGUMENT', `cache key must match ${KEY_RE}, got ${JSON.stringify(key)}`);
  const stem = path.join(cacheDir, `${encoderSlug(encoderId)}__${key}__${textHash}`);
  return { data: `${stem}.f32`, meta: `${stem}.json`, partial: `${stem}.partial`, lock: `${stem}.lock` };
}

/** What a cache must contain to be used. */
export interface EmbeddingCacheExpect {
  encoderId: string;
  dim: number;
  count: number;
  key: string;
  textHash: string;
}

/**
 * The command that rebuilds the corpus embeddings of an encoder: notebook 03 for the fine-tuned USE-lite (it
 * fine-tunes and embeds), else `eo cache rebuild embeddings` (add the snapshot's flags: `cacheRebuildCommand`).
 */
export function embeddingRebuildCommand(encoderId: string): string {
  return encoderId.startsWith('use-lite-ft@') ? 'npm start -- --only 03-encoder-finetune' : 'eo cache rebuild embeddings';
}

function mismatch(file: string, what: string, expected: unknown, found: unknown, rebuild: string): EoError {
  return new EoError(
    'CACHE_MISMATCH',
    `${file}: ${what} is ${JSON.stringify(found)}, expected ${JSON.stringify(expected)} — the cache does not belong to this encoder/corpus or is damaged; rebuild it: ${rebuild}`,
    { file, what, expected, found, rebuild },
  );
}

function readF32(file: string, floats: number, rebuild: string, sha256?: string): Float32Array {
  const buf = fs.readFileSync(file);
  if (buf.byteLength !== floats * 4) throw mismatch(file, 'byte size', floats * 4, buf.byteLength, rebuild);
  if (sha256 !== undefined) checkContentHash(file, sha256, sha256Hex(buf), rebuild);
  const out = new Float32Array(floats);
  new Uint8Array(out.buffer).set(buf);
  return out;
}

function f32Bytes(m: Float32Array): Uint8Array {
  return new Uint8Array(m.buffer, m.byteOffset, m.byteLength);
}

/**
 * Read a cached matrix and check it against `expect` and its content hash. Returns null when the metadata is absent
 * or the cache is stale (it recorded no content hash: written before they were recorded); throws CACHE_MISMATCH
 * naming the file (both hashes for a content mismatch) and `rebuild` (default `embeddingRebuildCommand`) when the
 * metadata, the byte size or the content hash disagree, or only the metadata exists.
 */
export function readEmbeddingCache(paths: EmbeddingCachePaths, expect: EmbeddingCacheExpect, rebuild = embeddingRebuildCommand(expect.encoderId)): { matrix: Float32Array; meta: EmbeddingCacheMeta } | null {
  const meta = readEmbeddingMeta(paths.meta, rebuild);
  if (meta === null) return null; // data without meta = a run that died before finishing; the partial folder resumes it
  if (meta.format !== FORMAT) throw mismatch(paths.meta, 'format', FORMAT, meta.format, rebuild);
  for (const k of ['encoderId', 'dim', 'count', 'key', 'textHash'] as const)
    if (meta[k] !== expect[k]) throw mismatch(paths.meta, k, expect[k], meta[k], rebuild);
  if (typeof meta.sha256 !== 'string') return null; // stale: never trusted, recomputed
  if (!fs.existsSync(paths.data)) throw mismatch(paths.data, 'file', 'present', 'missing', rebuild);
  return { matrix: readF32(paths.data, expect.count * expect.dim, rebuild, meta.sha256), meta };
}

function readEmbeddingMeta(file: string, rebuild: string): EmbeddingCacheMeta | null {
  if (!fs.existsSync(file)) return null;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EoError('CACHE_MISMATCH', `${file}: unreadable cache metadata (${(e as Error).message}); rebuild it: ${rebuild}`, { file, rebuild });
  }
}

/**
 * Check one stored matrix on its own (no encoder or corpus needed): `ok` when its `.f32` has the recorded size and
 * content hash, `stale` when it recorded no hash; throws CACHE_MISMATCH (see `readEmbeddingCache`) otherwise.
 */
export function verifyEmbeddingCacheFile(metaFile: string, rebuild?: string): 'ok' | 'stale' {
  const meta = readEmbeddingMeta(metaFile, rebuild ?? 'eo cache rebuild embeddings');
  if (meta === null) throw new EoError('DATA_NOT_FOUND', `${metaFile}: not found`, { file: metaFile });
  const cmd = rebuild ?? embeddingRebuildCommand(String(meta.encoderId));
  if (meta.format !== FORMAT) throw mismatch(metaFile, 'format', FORMAT, meta.format, cmd);
  if (typeof meta.sha256 !== 'string') return 'stale';
  const data = metaFile.replace(/\.json$/, '.f32');
  if (!fs.existsSync(data)) throw mismatch(data, 'file', 'present', 'missing', cmd);
  readF32(data, meta.count * meta.dim, cmd, meta.sha256);
  return 'ok';
}

/**
 * Write a matrix and its metadata atomically (data first, metadata last: metadata marks it complete), the metadata
 * recording the SHA-256 of the data.
 */
export function writeEmbeddingCache(paths: EmbeddingCachePaths, matrix: Float32Array, meta: EmbeddingCacheMeta): void {
  if (matrix.length !== meta.count * meta.dim)
    throw new EoError('INVALID_ARGUMENT', `matrix has ${matrix.length} floats, metadata says ${meta.count}×${meta.dim}`);
  const bytes = f32Bytes(matrix);
  writeFileAtomic(paths.data, bytes);
  writeJsonAtomic(paths.meta, { ...meta, sha256: sha256Hex(bytes) });
}

/** Look up a finished cache without an encoder (e.g. to score with stored vectors); null when absent. */
export function findEmbeddingCache(opts: { encoderId: string; dim: number; texts: string[]; key: string; cacheDir?: string }): { matrix: Float32Array; meta: EmbeddingCacheMeta } | null {
  const textHash = hashTexts(opts.texts);
  const paths = embeddingCachePaths(opts.cacheDir ?? defaultEmbeddingCacheDir(), opts.encoderId, opts.key, textHash);
  return readEmbeddingCache(paths, { encoderId: opts.encoderId, dim: opts.dim, count: opts.texts.length, key: opts.key, textHash });
}

/** Rows already stored in a partial folder (for progress while waiting on another process). */
function partialRows(partial: string, dim: number): number {
  let bytes = 0;
  try {
    for (const f of fs.readdirSync(partial)) if (f.endsWith('.f32')) bytes += fs.statSync(path.join(partial, f)).size;
  } catch {
    return 0;
  }
  return Math.floor(bytes / (4 * dim));
}

interface PartialState extends EmbeddingCacheExpect {
  format: 'eo-embeddings-partial/1';
  chunkSize: number;
}

function chunkFile(partial: string, chunk: number): string {
  return path.join(partial, `chunk-${String(chunk).padStart(6, '0')}.f32`);
}

async function embedInline(encoder: SentenceEncoder, jobs: EmbedJob[], onDone: (chunk: number, data: Float32Array) => void): Promise<void> {
  for (const job of jobs) {
    const rows = await encoder.embed(job.texts);
    const data = new Float32Array(rows.length * encoder.dim);
    rows.forEach((r, i) => {
      if (r.length !== encoder.dim) throw new EoError('ENCODER', `${encoder.id} returned a ${r.length}-d vector, expected ${encoder.dim}`);
      data.set(r, i * encoder.dim);
    });
    onDone(job.chunk, data);
  }
}

/**
 * Embed a corpus once and keep it: returns an N×dim row-major Float32Array (row i = texts[i]), read from
 * `<cacheDir>/<encoder>__<key>__<textHash>.f32` when present. Otherwise embeds in chunks, storing each finished
 * chunk under `<name>.partial/` so that a rerun continues where a crash stopped, then writes the matrix and its
 * `.json` metadata atomically and removes the partial folder. While filling, the process holds `<name>.lock`;
 * another process asking for the same matrix waits for it (see `waitForOther`).
 */
/**
 * Texts per chunk (one worker job, one resumable file) when the caller gives none: 256, or fewer when that would leave
 * a worker idle — 200 sample datasets on 2 workers become 2 chunks of 100 instead of 1 chunk on 1 thread. Large
 * corpora (the full snapshot: 10,073 texts) keep 256, so their chunks, batches and numbers are unchanged.
 */
export function defaultChunkSize(total: number, workers: number): number {
  return workers > 1 && total > 0 ? Math.min(256, Math.ceil(total / workers)) : 256;
}

export async function embedCorpusCached(opts: EmbedCorpusOptions): Promise<Float32Array> {
  const { encoder, texts, key } = opts;
  const total = texts.length;
  const dim = encoder.dim;
  const t0 = Date.now();
  if (opts.chunkSize !== undefined && (!Number.isInteger(opts.chunkSize) || opts.chunkSize < 1))
    throw new EoError('INVALID_ARGUMENT', `chunkSize must be a positive integer, got ${opts.chunkSize}`);
  if (opts.noCache) {
    const out = new Float32Array(total * dim);
    const size = opts.chunkSize ?? defaultChunkSize(total, opts.workers ?? 1);
    const jobs: EmbedJob[] = [];
    for (let c = 0; c * size < total; c++) jobs.push({ chunk: c, texts: texts.slice(c * size, (c + 1) * size) });
    let done = 0;
    const onDone = (chunk: number, data: Float32Array) => {
      out.set(data, chunk * size * dim);
      done += data.length / dim;
      opts.onProgress?.(done, total);
    };
    await runJobs(opts, jobs, onDone);
    return out;
  }
  const textHash = hashTexts(texts);
  const cacheDir = opts.cacheDir ?? defaultEmbeddingCacheDir();
  const paths = embeddingCachePaths(cacheDir, encoder.id, key, textHash);
  const expect: EmbeddingCacheExpect = { encoderId: encoder.id, dim, count: total, key, textHash };
  const onMismatch = opts.onMismatch ?? 'error';
  const rebuild = opts.rebuild ?? embeddingRebuildCommand(encoder.id);

  try {
    const hit = opts.replace ? null : readEmbeddingCache(paths, expect, rebuild);
    if (hit) {
      opts.onProgress?.(total, total);
      return hit.matrix;
    }
  } catch (e) {
    if (onMismatch !== 'rebuild' || !(e instanceof EoError && e.code === 'CACHE_MISMATCH')) throw e;
    fs.rmSync(paths.meta, { force: true });
    fs.rmSync(paths.data, { force: true });
    fs.rmSync(paths.partial, { recursive: true, force: true });
  }

  // One process fills a partial folder at a time; others wait for it (or give up at once).
  while (!tryLock(paths.lock)) {
    const holder = lockHolder(paths.lock);
    if (opts.waitForOther === false)
      throw new EoError('CONFIG', `${paths.lock}: process ${holder?.pid ?? '?'} on ${holder?.host ?? '?'} is already embedding these texts; wait for it or pass waitForOther: true`, { lock: paths.lock, holder });
    opts.onProgress?.(Math.min(total, partialRows(paths.partial, dim)), total);
    await sleep(2000);
    const hit = opts.replace ? null : readEmbeddingCache(paths, expect, rebuild);
    if (hit) {
      opts.onProgress?.(total, total);
      return hit.matrix;
    }
  }
  try {
    return await fillCache(opts, paths, expect, onMismatch, rebuild, t0);
  } finally {
    releaseLock(paths.lock);
  }
}

async function fillCache(
  opts: EmbedCorpusOptions,
  paths: EmbeddingCachePaths,
  expect: EmbeddingCacheExpect,
  onMismatch: 'error' | 'rebuild',
  rebuild: string,
  t0: number,
): Promise<Float32Array> {
  const { encoder, texts } = opts;
  const total = texts.length;
  const dim = encoder.dim;
  // Someone may have finished between our first look and taking the lock.
  const hit = opts.replace ? null : readEmbeddingCache(paths, expect, rebuild);
  if (hit) {
    opts.onProgress?.(total, total);
    return hit.matrix;
  }
  // Resumable partial state.
  const stateFile = path.join(paths.partial, 'state.json');
  let chunkSize = opts.chunkSize ?? defaultChunkSize(total, opts.workers ?? 1);
  if (fs.existsSync(stateFile)) {
    let st: PartialState | null = null;
    try {
      st = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
    } catch {
      st = null;
    }
    const bad = !st || st.format !== 'eo-embeddings-partial/1' ? 'format' : (['encoderId', 'dim', 'count', 'key', 'textHash'] as const).find((k) => st![k] !== expect[k]);
    if (bad) {
      if (onMismatch !== 'rebuild') throw mismatch(stateFile, bad, bad === 'format' ? 'eo-embeddings-partial/1' : expect[bad], st ? (st as any)[bad] : null, rebuild);
      fs.rmSync(paths.partial, { recursive: true, force: true });
    } else chunkSize = st!.chunkSize;
  }
  if (!fs.existsSync(stateFile)) {
    ensureWritableDir(paths.partial);
    writeJsonAtomic(stateFile, { format: 'eo-embeddings-partial/1', ...expect, chunkSize } satisfies PartialState);
  }

  const nChunks = Math.ceil(total / chunkSize);
  const chunkRows = (c: number) => Math.min(chunkSize, total - c * chunkSize);
  const jobs: EmbedJob[] = [];
  let done = 0;
  for (let c = 0; c < nChunks; c++) {
    const f = chunkFile(paths.partial, c);
    if (fs.existsSync(f) && fs.statSync(f).size === chunkRows(c) * dim * 4) done += chunkRows(c);
    else jobs.push({ chunk: c, texts: texts.slice(c * chunkSize, c * chunkSize + chunkRows(c)) });
  }
  opts.onProgress?.(done, total);
  const onDone = (chunk: number, data: Float32Array) => {
    if (data.length !== chunkRows(chunk) * dim) throw new EoError('ENCODER', `chunk ${chunk}: got ${data.length / dim} rows, expected ${chunkRows(chunk)}`);
    writeFileAtomic(chunkFile(paths.partial, chunk), f32Bytes(data));
    touchLock(paths.lock);
    done += chunkRows(chunk);
    opts.onProgress?.(done, total);
  };
  await runJobs(opts, jobs, onDone);

  const matrix = new Float32Array(total * dim);
  for (let c = 0; c < nChunks; c++) matrix.set(readF32(chunkFile(paths.partial, c), chunkRows(c) * dim, rebuild), c * chunkSize * dim);
  const meta: EmbeddingCacheMeta = {
    format: FORMAT,
    ...expect,
    created: new Date().toISOString(),
    backend: encoder.backend ?? null,
    dtype: 'float32-le',
    seconds: Math.round((Date.now() - t0) / 100) / 10,
  };
  writeEmbeddingCache(paths, matrix, meta);
  fs.rmSync(paths.partial, { recursive: true, force: true });
  return matrix;
}

async function runJobs(opts: EmbedCorpusOptions, jobs: EmbedJob[], onDone: (chunk: number, data: Float32Array) => void): Promise<void> {
  const workers = opts.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new EoError('INVALID_ARGUMENT', `workers must be a positive integer, got ${workers}`);
  if (workers > 1 && jobs.length > 1) {
    if (opts.encoder.spec) return runEmbedPool(opts.encoder.spec, jobs, workers, onDone, opts.encoder.id);
    process.emitWarning(`encoder ${opts.encoder.id} has no spec; embedding in one thread instead of ${workers} workers`);
  }
  return embedInline(opts.encoder, jobs, onDone);
}

/**
 * Embed short texts (queries) with a cache keyed by the texts alone: returns an N×dim matrix. ~1,000 titles
 * take ~20 s with USE-lite on 2 cores, so notebooks rerun instantly.
 */
export async function embedQueriesCached(opts: EmbedQueriesOptions): Promise<Float32Array> {
  return embedCorpusCached({
    encoder: opts.encoder,
    texts: opts.texts,
    key: 'queries',
    cacheDir: opts.cacheDir ?? defaultQueryCacheDir(),
    onProgress: opts.onProgress,
    noCache: opts.noCache,
    onMismatch: 'rebuild',
  });
}
