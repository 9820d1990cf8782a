/**
 * Whole batches of a costly scorer's score vectors kept on disk (NN-SSC: ~20 ms of MLP per query over the corpus).
 * Notebook 05 scores the training and test titles with NN-SSC; notebooks 06 and 07 build their strong backbone from
 * the same scorer on the same titles, and the search engines' fusion weights are set on them again: each read what
 * the first one wrote instead of scoring 580 titles over ten thousand datasets once more.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { embeddingCachePaths, encoderSlug, hashTexts, readEmbeddingCache, writeEmbeddingCache } from '../encode/cache';
import type { EmbeddingCachePaths } from '../encode/types';
import { isEoError } from '../errors';
import { shortHash } from '../util/hash';
import type { CorpusScorer } from './scorers';

export interface BatchScoreCacheOptions {
  /** Folder of the cached batches (each as the embedding cache stores a matrix: `.f32` rows and `.json` metadata). */
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

/** The embedding cache's names for a batch: the scorer's fingerprint as the encoder, `corpusKey` hashed as the key. */
function batchPaths(scorer: Pick<CorpusScorer, 'id' | 'fingerprint'>, texts: readonly string[], opts: { dir: string; corpusKey: string }): EmbeddingCachePaths {
  return embeddingCachePaths(opts.dir, scorer.fingerprint ?? scorer.id, shortHash(opts.corpusKey), hashTexts([...texts]));
}

/** The file a batch of `texts` is kept in (its rows; the metadata beside it): keyed by the scorer's fingerprint, `corpusKey` and every text, in order. */
export function batchScoreFile(scorer: Pick<CorpusScorer, 'id' | 'fingerprint'>, texts: readonly string[], opts: { dir: string; corpusKey: string }): string {
  return batchPaths(scorer, texts, opts).data;
}

/** Remove the batches of other scorers or corpora from `dir` (a retrained model's, which nothing reads any more). */
function pruneOtherBatches(dir: string, keep: string): void {
  for (const f of fs.readdirSync(dir)) if ((f.endsWith('.f32') || f.endsWith('.json')) && !f.startsWith(keep)) fs.rmSync(path.join(dir, f), { force: true });
}

/**
 * `scorer` with its batches of `minBatch` texts or more read from `opts.dir` when kept there, else scored and kept,
 * stored as the embedding cache stores a matrix (`writeEmbeddingCache`: rows then metadata with their SHA-256, each
 * written atomically; two processes scoring one batch at once both write the same bytes). A kept batch that does not
 * match its metadata (torn, damaged) is scored again and replaced. Each call gets fresh vectors. Writing a batch
 * removes the batches of other scorers and corpora from the folder. The scorer must be deterministic, its fingerprint
 * naming its weights (e.g. `nnssc(logit):<encoder>:<weights hash>`).
 */
export function withBatchScoreCache<S extends CorpusScorer>(scorer: S, opts: BatchScoreCacheOptions): S {
  const minBatch = opts.minBatch ?? 64;
  const fingerprint = scorer.fingerprint ?? scorer.id;
  let corpusKey: string | null = null;
  const keyOpts = () => ({ dir: opts.dir, corpusKey: (corpusKey ??= typeof opts.corpusKey === 'string' ? opts.corpusKey : opts.corpusKey()) });
  const scoreBatch: CorpusScorer['scoreBatch'] = async (texts, onProgress, stages) => {
    if (texts.length < minBatch) return scorer.scoreBatch(texts, onProgress, stages);
    const k = keyOpts();
    const paths = batchPaths(scorer, texts, k);
    const expect = { encoderId: fingerprint, dim: opts.rows, count: texts.length, key: shortHash(k.corpusKey), textHash: hashTexts(texts) };
    let kept: Float32Array | null = null;
    try {
      kept = readEmbeddingCache(paths, expect, 'scored again on its next use')?.matrix ?? null;
    } catch (e) {
      if (!isEoError(e, 'CACHE_MISMATCH')) throw e; // torn or damaged: scored again below, and replaced
    }
    if (kept) {
      onProgress?.(texts.length, texts.length);
      return texts.map((_, i) => kept!.slice(i * opts.rows, (i + 1) * opts.rows));
    }
    const scores = await scorer.scoreBatch(texts, onProgress, stages);
    if (scores.length === texts.length && scores.every((s) => s.length === opts.rows)) {
      const all = new Float32Array(texts.length * opts.rows);
      scores.forEach((s, i) => all.set(s, i * opts.rows));
      try {
        fs.mkdirSync(opts.dir, { recursive: true });
        writeEmbeddingCache(paths, all, { format: 'eo-embeddings/1', ...expect, created: new Date().toISOString(), backend: null, dtype: 'float32-le' });
        pruneOtherBatches(opts.dir, `${encoderSlug(fingerprint)}__${expect.key}__`);
      } catch {
        // a read-only checkpoints folder: scored each time
      }
    }
    return scores;
  };
  return Object.assign(Object.create(Object.getPrototypeOf(scorer)), scorer, { scoreBatch }) as S;
}
