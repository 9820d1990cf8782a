import { createLru } from '../util/lru';
import { datasetIds } from '../data/corpus';
import type { Corpus } from '../data/types';
import { embedQueriesCached } from '../encode/cache';
import type { EmbedProgress, SentenceEncoder } from '../encode/types';
import type { Run } from '../metrics/types';
import { bm25ConfigFingerprint, bm25Scores, type Bm25Index } from './bm25';
import { EoError } from '../errors';
import { denseScoresBatch, denseScoresExactBatch } from './dense';
import { DenseOnnxIndex } from './dense-onnx';
import type { OnnxThread } from '../tensor/onnx-session';
import { topKScoredHits, topKIndexSet } from './topk';
import { densePrfText, rocchioQueries, validateDensePrf, type DensePrf } from './prf';

/**
 * A corpus-wide scorer: for each query text, one score per dataset, aligned with corpus order. BM25, dense
 * cosine, NN-SSC and fused hybrids all take this shape, so runs, fusion and evaluation are generic.
 */
export interface CorpusScorer {
  /** Short stable name, used as the TREC run tag (one word). */
  id: string;
  /** Human label for tables. */
  label: string;
  /**
   * What identifies this scorer's numbers beyond its id: method, model weights or encoder id, parameters. Stored
   * results (e.g. a fusion weight set on the training split) are keyed by it, so a retrained model or another
   * encoder never reuses them. Default: none (then `id` stands for it).
   */
  fingerprint?: string;
  /**
   * One score vector per text. `stages` (optional): the scorer adds the milliseconds it spent per stage of this
   * call (`embed`, `cosine`, `nnssc`, `firstStage`…) into it, for per-request profiles (the service's
   * `Server-Timing`); scorers without stages leave it alone.
   */
  scoreBatch(texts: string[], onProgress?: EmbedProgress, stages?: StageTimes): Promise<Float32Array[]>;
}

/** Milliseconds per named stage of a call (added up when a stage runs more than once). */
export type StageTimes = Record<string, number>;

/** Add the time `fn` takes to `stages[name]` (when `stages` is given); returns `fn`'s value. */
export async function timeStage<T>(stages: StageTimes | undefined, name: string, fn: () => Promise<T>): Promise<T> {
  if (!stages) return fn();
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    stages[name] = (stages[name] ?? 0) + performance.now() - t0;
  }
}

export interface Bm25ScorerOptions {
  /**
   * Keep the score vectors of the last `recent` texts and answer a repeated text from them (a service scores each
   * query twice: as the engine's lexical scorer and as a two-stage first stage). The kept vectors are shared: callers
   * must not modify them (fusion, constraints and top-k only read). Default 0: nothing kept.
   */
  recent?: number;
}

export function bm25Scorer(bm25: Bm25Index, id = 'bm25', label = `BM25 (lunr, k1=${bm25.config.k1}, b=${bm25.config.b})`, opts: Bm25ScorerOptions = {}): CorpusScorer {
  const recent = opts.recent ? createLru<string, Float32Array>(opts.recent) : null;
  const score = (t: string) => {
    const hit = recent?.get(t);
    if (hit) return hit;
    const s = bm25Scores(bm25, t);
    recent?.set(t, s);
    return s;
  };
  return {
    id,
    label,
    fingerprint: bm25ConfigFingerprint(bm25.config, bm25.inferredHash),
    async scoreBatch(texts, onProgress) {
      const out = texts.map((t, i) => {
        const s = score(t);
        if (onProgress && (i + 1) % 100 === 0) onProgress(i + 1, texts.length);
        return s;
      });
      onProgress?.(texts.length, texts.length);
      return out;
    },
  };
}

export interface DenseScorerOptions {
  /** Run tag. Default `cosine`. */
  id?: string;
  label?: string;
  /** Query-embedding cache folder; default the encoder cache's `queries/` folder. */
  queryCacheDir?: string;
  /** Skip the query cache. Default false. */
  noCache?: boolean;
  /**
   * Kernel of the cosine: `exact` (`denseScores` per query in JavaScript: the summation order of the run files
   * published before the default changed), `onnx` (one onnxruntime-node MatMul per batch of queries, `DenseOnnxIndex`),
   * `js` (`denseScoresBatch`, blocked), or `auto`: onnx when onnxruntime-node loads, else js. Default
   * `defaultCosineKernel()`: $EO_COSINE_KERNEL, else `auto`. The batched kernels differ from `exact` only by float32
   * summation order (< 1e-5); `bench/cosine-batch.cjs` measures the MatMul at ~8× the JS kernel for one query, ~90×
   * for a batch of 16 (notebook 05 scored 725 queries × 10,073 datasets in ~30 s per scorer with `exact`).
   */
  kernel?: 'exact' | 'auto' | 'onnx' | 'js';
  /** With the onnx kernel: where the product runs, `caller` (default) or the process's onnx `worker` thread (`OnnxThread`). */
  onnxThread?: OnnxThread;
  /**
   * Pseudo-relevance feedback (`lib/retrieve/prf.ts`): every query scored again after its vector is moved towards the
   * mean of its first `k` datasets' (two cosine passes; with `seeds: 'lexical'`, one, after `prfLexical` scores the same
   * texts). Named in the fingerprint. Default none.
   */
  prf?: DensePrf | null;
  /**
   * The scorer whose first ranking picks the feedback datasets when `prf.seeds` is `lexical` (a hybrid's lexical half;
   * its fingerprint joins this scorer's). Required then, unused otherwise. A service's BM25 scorer keeps its recent
   * vectors (`Bm25ScorerOptions.recent`), so the hybrid scores each query's BM25 once; a batch (`searchBatch`) scores
   * it twice, lexical half then seeds (a fraction of a millisecond a query beside the cosine pass).
   */
  prfLexical?: CorpusScorer;
}

/** Environment variable with the default cosine kernel of `denseScorer`: `exact`, `auto`, `onnx` or `js`. */
export const COSINE_KERNEL_ENV = 'EO_COSINE_KERNEL';

/** The cosine kernel used when `DenseScorerOptions.kernel` is not given: $EO_COSINE_KERNEL, else `auto`. */
export function defaultCosineKernel(env: NodeJS.ProcessEnv = process.env): NonNullable<DenseScorerOptions['kernel']> {
  const v = env[COSINE_KERNEL_ENV]?.trim().toLowerCase();
  if (!v) return 'auto';
  if (v === 'exact' || v === 'auto' || v === 'onnx' || v === 'js') return v;
  throw new EoError('CONFIG', `$${COSINE_KERNEL_ENV} must be exact, auto, onnx or js (got ${JSON.stringify(env[COSINE_KERNEL_ENV])})`);
}

/** Queries per cosine kernel call in a large batch (bounds the N×Q product to ~40 MB on 10k datasets). */
const COSINE_CHUNK = 256;

/** A cosine scorer; `dispose` releases its onnxruntime session (if one was opened). */
export interface DenseScorer extends CorpusScorer {
  /**
   * Cosines of already-embedded queries (Q×D, this scorer's encoder), with the scorer's kernel (and its own feedback;
   * a scorer whose feedback is seeded by a lexical ranking throws: that needs the texts).
   */
  scoreVectors(queryVecs: Float32Array): Promise<Float32Array[]>;
  /**
   * Per query, the rows of its `m` best cosines (`topKIndexSet` of its vector: ties to the lower row). With the onnx kernel
   * they are picked inside onnxruntime (TopK after the MatMul), so the vectors are neither copied nor moved.
   */
  topRows(queryVecs: Float32Array, m: number): Promise<Int32Array[]>;
  dispose(): void;
}

/**
 * Cosine of the query embedding with every (L2-normalised) dataset embedding. With the `exact` kernel each
 * query is `denseScores`; with a batched kernel (the default, `auto`) all queries of one `scoreBatch` call are one matrix product over
 * the corpus matrix (a micro-batch of a service costs one GEMM), equal to `denseScores` up to summation order (< 1e-5).
 */
export function denseScorer(encoder: SentenceEncoder, matrix: Float32Array, opts: DenseScorerOptions = {}): DenseScorer {
  const dim = encoder.dim;
  const kernel = opts.kernel ?? defaultCosineKernel();
  let onnx: Promise<DenseOnnxIndex | null> | null = null;
  const onnxIndex = () => (onnx ??= DenseOnnxIndex.create(matrix, dim, { thread: opts.onnxThread }));
  let disposed = false;
  const cosine = async (q: Float32Array): Promise<Float32Array[]> => {
    if (kernel === 'exact') return denseScoresExactBatch(matrix, dim, q);
    if (kernel !== 'js') {
      const index = await onnxIndex();
      if (index) return index.scores(q);
      if (kernel === 'onnx') throw new EoError('INVALID_ARGUMENT', 'cosine kernel "onnx" requested but onnxruntime-node cannot be loaded');
    }
    return denseScoresBatch(matrix, dim, q);
  };
  const prf = opts.prf ?? null;
  if (prf) validateDensePrf(prf);
  const seedScorer = prf?.seeds === 'lexical' ? opts.prfLexical : undefined;
  if (prf?.seeds === 'lexical' && !seedScorer) throw new EoError('CONFIG', `dense PRF seeded by the lexical ranking (${densePrfText(prf)}) needs the lexical scorer (prfLexical)`);
  const cosineAll = async (q: Float32Array): Promise<Float32Array[]> => {
    if (disposed) throw new EoError('INVALID_ARGUMENT', 'denseScorer used after dispose()');
    const n = q.length / dim;
    const out: Float32Array[] = [];
    for (let s = 0; s < n; s += COSINE_CHUNK) out.push(...(await cosine(q.subarray(s * dim, Math.min(n, s + COSINE_CHUNK) * dim))));
    return out;
  };
  const selfFeedback = async (q: Float32Array) => cosineAll(rocchioQueries(q, await cosineAll(q), matrix, dim, prf!));
  // lexically seeded feedback needs the texts: vectors alone cannot be scored as scoreBatch scores them
  const scoreVectors = !prf ? cosineAll : !seedScorer ? selfFeedback : async (): Promise<Float32Array[]> => {
    throw new EoError('INVALID_ARGUMENT', `denseScorer: ${densePrfText(prf)} scores texts (scoreBatch), not vectors`);
  };
  return {
    id: opts.id ?? 'cosine',
    label: opts.label ?? `Cosine (${encoder.id})`,
    fingerprint: `cosine:${encoder.id}${prf ? `+${densePrfText(prf)}` : ''}${seedScorer ? ` (${seedScorer.fingerprint ?? seedScorer.id})` : ''}`,
    async scoreBatch(texts, onProgress, stages) {
      if (disposed) throw new EoError('INVALID_ARGUMENT', 'denseScorer used after dispose()');
      const q = await timeStage(stages, 'embed', () => embedQueriesCached({ encoder, texts, cacheDir: opts.queryCacheDir, noCache: opts.noCache, onProgress }));
      if (!seedScorer) return timeStage(stages, 'cosine', () => scoreVectors(q));
      const seeds = await timeStage(stages, 'prfSeeds', () => seedScorer.scoreBatch(texts));
      return timeStage(stages, 'cosine', () => cosineAll(rocchioQueries(q, seeds, matrix, dim, prf!)));
    },
    scoreVectors,
    async topRows(q, m) {
      if (disposed) throw new EoError('INVALID_ARGUMENT', 'denseScorer used after dispose()');
      if (!prf && (kernel === 'onnx' || kernel === 'auto')) {
        const index = await onnxIndex();
        if (index) {
          const n = q.length / dim;
          const out: Int32Array[] = [];
          for (let s = 0; s < n; s += COSINE_CHUNK) out.push(...(await index.topRows(q.subarray(s * dim, Math.min(n, s + COSINE_CHUNK) * dim), m)));
          return out;
        }
      }
      return (await scoreVectors(q)).map((v) => topKIndexSet(v, m));
    },
    dispose() {
      disposed = true;
      void onnx?.then((i) => i?.dispose());
    },
  };
}

/**
 * Element-wise mean of several scorers' score vectors of the same queries (`members[m][q]`: member m, query q), in
 * float32 summed in member order: what `meanScorer` returns, for callers that already hold the members' vectors.
 */
export function meanScoreVectors(members: readonly (readonly Float32Array[])[]): Float32Array[] {
  if (members.length === 0) throw new EoError('INVALID_ARGUMENT', 'meanScoreVectors: needs at least one member');
  const nq = members[0].length;
  for (const m of members) if (m.length !== nq) throw new EoError('INVALID_ARGUMENT', `meanScoreVectors: members score ${members.map((x) => x.length).join('/')} queries`);
  const inv = 1 / members.length;
  return members[0].map((first, q) => {
    const out = Float32Array.from(first);
    for (let m = 1; m < members.length; m++) {
      const v = members[m][q];
      if (v.length !== out.length) throw new EoError('INVALID_ARGUMENT', `meanScoreVectors: query ${q} has vectors of ${out.length} and ${v.length} datasets`);
      for (let i = 0; i < out.length; i++) out[i] += v[i];
    }
    for (let i = 0; i < out.length; i++) out[i] *= inv;
    return out;
  });
}

/**
 * A seed ensemble: the mean of several scorers' scores (e.g. NN-SSC trained with different seeds; members score
 * one after another). The raw mean, not a normalised one: NN-SSC's loss ignores a constant added to a model's logits
 * (its output bias), and such a constant shifts every dataset of a query alike, so it changes no ranking; members of
 * one recipe have logits of similar spread. The fingerprint lists the members' (so a stored α is the ensemble's own).
 */
export function meanScorer(members: readonly CorpusScorer[], opts: { id: string; label: string }): CorpusScorer {
  if (members.length === 0) throw new EoError('INVALID_ARGUMENT', 'meanScorer: needs at least one member');
  return {
    id: opts.id,
    label: opts.label,
    fingerprint: `mean(${members.map((m) => m.fingerprint ?? m.id).join(',')})`,
    async scoreBatch(texts, onProgress, stages) {
      const all: Float32Array[][] = [];
      for (const m of members) all.push(await m.scoreBatch(texts, undefined, stages));
      onProgress?.(texts.length, texts.length);
      return meanScoreVectors(all);
    },
  };
}

/** Turn score vectors into a run: the top `depth` datasets per query (ties by id descending, as metrics). */
export function runFromScores(queryIds: readonly string[], scores: readonly Float32Array[], corpus: Corpus, depth = 100): Run {
  const ids = datasetIds(corpus);
  const run: Run = new Map();
  queryIds.forEach((qid, i) => {
    run.set(qid, topKScoredHits(scores[i], depth, ids).map((h) => ({ docId: ids[h.index], score: h.score })));
  });
  return run;
}

export interface ScoredRun {
  run: Run;
  /** Full score vectors (aligned with `queries`), kept for fusion and plots. */
  scores: Float32Array[];
}

/** Score every query with a scorer and keep both the run (top `depth`) and the full score vectors. */
export async function scoreQueries(
  scorer: CorpusScorer,
  queries: readonly { id: string; text: string }[],
  corpus: Corpus,
  opts: { depth?: number; onProgress?: EmbedProgress } = {},
): Promise<ScoredRun> {
  const scores = await scorer.scoreBatch(queries.map((q) => q.text), opts.onProgress);
  return { run: runFromScores(queries.map((q) => q.id), scores, corpus, opts.depth ?? 100), scores };
}
