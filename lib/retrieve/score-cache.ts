/**
 * Whole batches of a costly scorer's score vectors kept on disk (NN-SSC: ~20 ms of MLP per query over the corpus).
 * Notebook 05 scores the training and test titles with NN-SSC; notebooks 06 and 07 build their strong backbone from
 * the same scorer on the same titles, and the search engines' fusion weights are set on them again: each read what
 * the first one wrote instead of scoring 580 titles over ten thousand datasets once more.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../util/fs';
import { contentHash, sha256, shortHash } from '../util/hash';
import type { CorpusScorer } from './scorers';

export interface BatchScoreCacheOptions {
  /** Folder of the cached batches (one `<key>.f32` file each: the rows one after the other, float32). */
  dir: string;
  /**
   * What the scores were computed over beside the scorer: part of every key. A string, or a function asked once, at the
   * first batch kept or read (e.g. a hash of the corpus embeddings, which is worth making only then).
   */
  corpusKey: string | (() => string);
  /** Datasets per score vector (every vector of a batch has this length). */
  rows: number;
  /** Batches of fewer texts are scored, never kept (one user's query is cheaper to score than to look up). Default 64. */
  minBatch?: number;
}

/** The part of a kept batch's name that tells the scorer and corpus it was scored for (`pruneOtherBatches` keeps only these). */
function scorerPrefix(scorer: Pick<CorpusScorer, 'id' | 'fingerprint'>, corpusKey: string): string {
  return shortHash(`${scorer.fingerprint ?? scorer.id}\n${corpusKey}`, 8);
}

/** The file a batch of `texts` is kept in: keyed by the scorer's fingerprint, `corpusKey` and every text, in order. */
export function batchScoreFile(scorer: Pick<CorpusScorer, 'id' | 'fingerprint'>, texts: readonly string[], opts: { dir: string; corpusKey: string }): string {
  const key = contentHash([scorer.fingerprint ?? scorer.id, opts.corpusKey, String(texts.length), ...texts.map((t) => `${t.length}:${t}`)]).slice(0, 24);
  return path.join(opts.dir, `${scorerPrefix(scorer, opts.corpusKey)}-${key}.f32`);
}

const DIGEST_BYTES = 64; // the payload's SHA-256 in hex, after it

/** A kept batch's vectors, or null when the file is missing, of another size or not the bytes its digest names. */
function readBatch(file: string, count: number, rows: number): Float32Array[] | null {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return null;
  }
  const payload = count * rows * 4;
  if (bytes.length !== payload + DIGEST_BYTES) return null;
  const body = bytes.subarray(0, payload);
  if (sha256(body) !== bytes.subarray(payload).toString('latin1')) return null;
  const all = new Float32Array(body.buffer.slice(body.byteOffset, body.byteOffset + payload));
  return Array.from({ length: count }, (_, i) => all.slice(i * rows, (i + 1) * rows));
}

/** Remove the batches of other scorers or corpora from `dir` (a retrained model's, which nothing reads any more). */
function pruneOtherBatches(dir: string, prefix: string): void {
  for (const f of fs.readdirSync(dir)) if (f.endsWith('.f32') && !f.startsWith(`${prefix}-`)) fs.rmSync(path.join(dir, f), { force: true });
}

/**
 * `scorer` with its batches of `minBatch` texts or more read from `opts.dir` when kept there, else scored and kept
 * (written atomically with the payload's SHA-256 after it: two processes scoring one batch at once both write the same
 * bytes; a torn or damaged file is scored again and replaced). Each call gets fresh vectors. Writing a batch removes
 * the batches of other scorers and corpora from the folder. The scorer must be deterministic, its fingerprint naming
 * its weights (e.g. `nnssc(logit):<encoder>:<weights hash>`).
 */
export function withBatchScoreCache<S extends CorpusScorer>(scorer: S, opts: BatchScoreCacheOptions): S {
  const minBatch = opts.minBatch ?? 64;
  let corpusKey: string | null = null;
  const keyOpts = () => ({ dir: opts.dir, corpusKey: (corpusKey ??= typeof opts.corpusKey === 'string' ? opts.corpusKey : opts.corpusKey()) });
  const scoreBatch: CorpusScorer['scoreBatch'] = async (texts, onProgress, stages) => {
    if (texts.length < minBatch) return scorer.scoreBatch(texts, onProgress, stages);
    const file = batchScoreFile(scorer, texts, keyOpts());
    const kept = readBatch(file, texts.length, opts.rows);
    if (kept) {
      onProgress?.(texts.length, texts.length);
      return kept;
    }
    const scores = await scorer.scoreBatch(texts, onProgress, stages);
    if (scores.length === texts.length && scores.every((s) => s.length === opts.rows)) {
      const all = new Float32Array(texts.length * opts.rows);
      scores.forEach((s, i) => all.set(s, i * opts.rows));
      const body = new Uint8Array(all.buffer);
      try {
        fs.mkdirSync(opts.dir, { recursive: true });
        writeFileAtomic(file, Buffer.concat([body, Buffer.from(sha256(body), 'latin1')]));
        pruneOtherBatches(opts.dir, scorerPrefix(scorer, keyOpts().corpusKey));
      } catch {
        // a read-only checkpoints folder: scored each time
      }
    }
    return scores;
  };
  return Object.assign(Object.create(Object.getPrototypeOf(scorer)), scorer, { scoreBatch }) as S;
}
