import { EoError } from '../errors';
import { embedQueriesCached } from '../encode/cache';
import type { SentenceEncoder } from '../encode/types';
import type { TfBackendName } from '../tensor/types';
import type { OnnxThread } from '../tensor/onnx-session';
import { timeStage, type CorpusScorer } from './scorers';
import { topKIndexSet } from './topk';
import { type NnsscModel, queryRowCount, nnsscWeightsHash } from './nnssc';
import { NnsscCorpusIndex } from './nnssc-index';
import { NnsscThreadedIndex } from './nnssc-threads';

export interface NnsscScorerOptions {
  /** Run tag. Default `nnssc`. */
  id?: string;
  label?: string;
  /**
   * `logit` (default): the pre-sigmoid score z the model was trained on; `sigmoid`: σ(z), the paper's output
   * layer. Same ranking; they differ only after min-max fusion, and σ(z) can saturate to exactly 1 in float32
   * for z ≳ 17, which would tie the top results. The listwise loss fixes z only up to a constant, so σ(z) is not
   * a calibrated probability.
   */
  output?: 'logit' | 'sigmoid';
  queryCacheDir?: string;
  noCache?: boolean;
  backend?: TfBackendName;
  queriesPerBatch?: number;
  /**
   * CPU threads for scoring. Default 1 (best for one query at a time in a service); 2 on this 2-core machine for
   * batches. With the `onnx` engine they are onnxruntime's intra-op threads of one session; with `tfjs`, worker
   * threads each scoring a shard of the corpus on its own backend (see `NnsscThreadedIndex`).
   */
  threads?: number;
  /**
   * Which kernels score: `onnx` (onnxruntime-node's CPU kernels, `NnsscOnnxIndex`), `tfjs` (`NnsscCorpusIndex` /
   * `NnsscThreadedIndex` on the tfjs backend), or `auto` (default): `onnx` when onnxruntime-node loads, else
   * `tfjs`. Both give the same logits to float32 rounding (bench/nnssc-scoring.cjs measures both).
   */
  engine?: NnsscEngine | 'auto';
  /** With the onnx engine: where the graphs run, `caller` (default) or the process's onnx `worker` thread (`OnnxThread`). */
  onnxThread?: OnnxThread;
  /**
   * Two-stage scoring: score only the union of the top `topM` datasets of each first-stage scorer (e.g. BM25 and
   * cosine) with the MLP; every other dataset gets the lowest logit among the candidates. Default: off (exact
   * full-corpus scoring). Faster but approximate; bench/nnssc-scoring.cjs measures its recall loss. A first-stage
   * scorer with `scoreVectors` (a `denseScorer` over THIS scorer's encoder) is handed the query embeddings already
   * computed instead of the texts, so the query is embedded once.
   */
  twoStage?: { topM: number; firstStage: readonly FirstStageScorer[] };
}

/** A first-stage scorer of two-stage NN-SSC: any CorpusScorer; with `scoreVectors`, one over the NN-SSC's own encoder. */
export type FirstStageScorer = CorpusScorer & {
  scoreVectors?: (queryVecs: Float32Array) => Promise<Float32Array[]>;
  /**
   * Per query (rows of `queryVecs`), the rows `topKIndexSet` would pick from its score vector, computed where the scores are
   * (e.g. an onnx TopK beside the cosine MatMul), so the full vectors need not be made or moved. Optional.
   */
  topRows?: (queryVecs: Float32Array, m: number) => Promise<Int32Array[]>;
};

/** One first stage's result for a batch of queries: its score vectors, or its top rows per query (`topRows`). */
export type FirstStageResult = readonly ArrayLike<number>[] | { readonly topRows: readonly Int32Array[] };

/** The kernels that run NN-SSC's full-corpus scoring. */
export type NnsscEngine = 'onnx' | 'tfjs';

/** What every full-corpus NN-SSC index offers (`NnsscCorpusIndex`, `NnsscThreadedIndex`, `NnsscOnnxIndex`). */
export interface NnsscIndex {
  readonly size: number;
  readonly backend: string;
  scoreVectors(queryVecs: Float32Array, opts?: { onProgress?: (done: number, total: number) => void }): Promise<Float32Array[]>;
  dispose(): void;
}

/** An index that can also score a subset of corpus rows (the second stage of two-stage scoring). */
export interface NnsscRowScorer {
  scoreRows(queryVec: Float32Array, rows: ArrayLike<number>): Promise<Float32Array>;
  /** Several queries' rows in one call (Q×D `queryVecs`, one row list each), where the index can (onnx: one run). */
  scoreRowsMany?(queryVecs: Float32Array, rowLists: readonly ArrayLike<number>[]): Promise<Float32Array[]>;
}

/**
 * Open the fastest exact index available: onnxruntime-node's CPU kernels (`engine` `onnx` or `auto`), else — for
 * `auto` only — the tfjs path (in-process for one thread, worker shards for more). `onnx` when onnxruntime-node
 * cannot be loaded throws INVALID_ARGUMENT.
 */
export async function openNnsscIndex(
  model: NnsscModel,
  corpusMatrix: Float32Array,
  opts: { engine?: NnsscEngine | 'auto'; threads?: number; backend?: TfBackendName; queriesPerBatch?: number; onnxThread?: OnnxThread } = {},
): Promise<NnsscIndex & NnsscRowScorer> {
  const engine = opts.engine ?? 'auto';
  const threads = opts.threads ?? 1;
  if (engine !== 'tfjs') {
    // lazy: keeps onnxruntime-node out of the import graph of callers that never score with NN-SSC
    const { NnsscOnnxIndex } = require('./nnssc-onnx') as typeof import('./nnssc-onnx');
    const onnx = await NnsscOnnxIndex.create(model, corpusMatrix, { intraOpThreads: threads, thread: opts.onnxThread });
    if (onnx) return onnx;
    if (engine === 'onnx') throw new EoError('INVALID_ARGUMENT', 'NN-SSC engine "onnx" requested but onnxruntime-node cannot be loaded');
  }
  if (threads > 1) {
    const th = await NnsscThreadedIndex.create(model, corpusMatrix, { backend: opts.backend, queriesPerBatch: opts.queriesPerBatch, threads });
    // the subset stage runs in-process (it is small); opened on first use
    let single: Promise<NnsscCorpusIndex> | null = null;
    return Object.assign(th, {
      scoreRows: async (q: Float32Array, rows: ArrayLike<number>) => (await (single ??= NnsscCorpusIndex.create(model, corpusMatrix, { backend: opts.backend }))).scoreRows(q, rows),
      dispose: () => {
        NnsscThreadedIndex.prototype.dispose.call(th);
        if (single) void single.then((s) => s.dispose());
      },
    });
  }
  return NnsscCorpusIndex.create(model, corpusMatrix, { backend: opts.backend, queriesPerBatch: opts.queriesPerBatch });
}

/**
 * Rows of the union of the top `topM` entries of each first-stage score vector (ties: lower row first), sorted
 * ascending. NaN scores rank last.
 */
export function twoStageCandidates(firstStage: readonly ArrayLike<number>[], topM: number): Int32Array {
  if (!(topM >= 1)) throw new EoError('INVALID_ARGUMENT', `twoStage topM must be >= 1, got ${topM}`);
  if (firstStage.length === 0) return new Int32Array(0);
  return unionOfRows(firstStage.map((s) => topKIndexSet(s, topM)), firstStage[0].length);
}

/** The union of row sets over a corpus of `n` rows, ascending. */
function unionOfRows(sets: readonly ArrayLike<number>[], n: number): Int32Array {
  const mark = new Uint8Array(n);
  let count = 0;
  for (const set of sets)
    for (let j = 0; j < set.length; j++) {
      const i = set[j];
      if (!mark[i]) {
        mark[i] = 1;
        count++;
      }
    }
  const rows = new Int32Array(count);
  for (let i = 0, o = 0; o < count; i++) if (mark[i]) rows[o++] = i;
  return rows;
}

/**
 * Two-stage NN-SSC scores: for each query (row q of `queryVecs`), the MLP scores only `twoStageCandidates` of
 * `firstStage[k][q]` (one score vector per first-stage scorer k and query q, or that scorer's `topRows`); every other
 * dataset gets the lowest candidate logit, so it ranks below or ties with every candidate and min-max fusion maps it to 0.
 */
export async function nnsscTwoStageScores(
  index: NnsscRowScorer & { readonly size: number },
  queryVecs: Float32Array,
  dim: number,
  firstStage: readonly FirstStageResult[],
  topM: number,
): Promise<{ scores: Float32Array[]; candidates: number[] }> {
  if (!(topM >= 1)) throw new EoError('INVALID_ARGUMENT', `twoStage topM must be >= 1, got ${topM}`);
  const nq = queryRowCount(queryVecs, dim);
  const perQuery = firstStage.map((f) => ('topRows' in f ? f.topRows : f));
  for (const f of perQuery) if (f.length !== nq) throw new EoError('INVALID_ARGUMENT', `two-stage: a first-stage scorer gave ${f.length} results for ${nq} queries`);
  const setOf = (f: FirstStageResult, q: number): ArrayLike<number> => ('topRows' in f ? f.topRows[q] : topKIndexSet(f[q], topM));
  // every query's candidates first, then all row scorings at once (one graph run where the index can): on the onnx
  // worker the event loop is free meanwhile (one query at a time, each would wait for a round trip)
  const rowsOf = Array.from({ length: nq }, (_, q) => unionOfRows(firstStage.map((f) => setOf(f, q)), index.size));
  const logits = index.scoreRowsMany
    ? await index.scoreRowsMany(queryVecs.subarray(0, nq * dim), rowsOf)
    : await Promise.all(rowsOf.map((rows, q) => index.scoreRows(queryVecs.subarray(q * dim, (q + 1) * dim), rows)));
  const scores: Float32Array[] = [];
  const candidates: number[] = [];
  for (let q = 0; q < nq; q++) {
    const rows = rowsOf[q];
    const z = logits[q];
    let low = Infinity;
    for (const v of z) if (v < low) low = v;
    const full = new Float32Array(index.size).fill(Number.isFinite(low) ? low : 0);
    rows.forEach((r, i) => (full[r] = z[i]));
    scores.push(full);
    candidates.push(rows.length);
  }
  return { scores, candidates };
}

/** A `CorpusScorer` over a prepared index (the corpus-side first layer is computed once, on first use). */
export interface NnsscScorer extends CorpusScorer {
  /** Score already-embedded queries (Q×D). */
  scoreVectors(queryVecs: Float32Array, onProgress?: (done: number, total: number) => void): Promise<Float32Array[]>;
  /** Free the backend memory of the index. */
  dispose(): void;
}

/**
 * NN-SSC as a `CorpusScorer` (same shape as BM25 and cosine): embeds the queries with the frozen encoder
 * (cached), then scores every dataset with the decomposed first layer. `corpusMatrix` must be the same
 * encoder's embeddings of the corpus, in corpus order.
 */
export function nnsscScorer(encoder: SentenceEncoder, corpusMatrix: Float32Array, model: NnsscModel, opts: NnsscScorerOptions = {}): NnsscScorer {
  if (encoder.dim !== model.dim) throw new EoError('INVALID_ARGUMENT', `NN-SSC expects ${model.dim}-d embeddings, encoder ${encoder.id} gives ${encoder.dim}`);
  let index: Promise<NnsscIndex & NnsscRowScorer> | null = null;
  const getIndex = () => (index ??= openNnsscIndex(model, corpusMatrix, opts));
  const post = (rows: Float32Array[]) => {
    if (opts.output === 'sigmoid') for (const r of rows) for (let i = 0; i < r.length; i++) r[i] = 1 / (1 + Math.exp(-r[i]));
    return rows;
  };
  const scoreVectors = async (q: Float32Array, onProgress?: (d: number, t: number) => void) => post(await (await getIndex()).scoreVectors(q, { onProgress }));
  return {
    id: opts.id ?? 'nnssc',
    label: opts.label ?? `NN-SSC (${encoder.id})`,
    // two-stage scores are other numbers (non-candidates tie at the lowest logit): their own fusion records
    fingerprint: `nnssc(${opts.output ?? 'logit'}):${encoder.id}:${nnsscWeightsHash(model)}` +
      (opts.twoStage ? `:two-stage(M=${opts.twoStage.topM};${opts.twoStage.firstStage.map((f) => f.fingerprint ?? f.id).join('+')})` : ''),
    async scoreBatch(texts, onProgress, stages) {
      const q = await timeStage(stages, 'embed', () => embedQueriesCached({ encoder, texts, cacheDir: opts.queryCacheDir, noCache: opts.noCache }));
      if (!opts.twoStage) return timeStage(stages, 'nnssc', () => scoreVectors(q, onProgress));
      const two = opts.twoStage;
      const first = await timeStage(stages, 'firstStage', () => Promise.all(two.firstStage.map(async (s): Promise<FirstStageResult> =>
        s.topRows ? { topRows: await s.topRows(q, two.topM) } : s.scoreVectors ? s.scoreVectors(q) : s.scoreBatch(texts))));
      const index = await getIndex();
      const { scores } = await timeStage(stages, 'nnssc', () => nnsscTwoStageScores(index, q, model.dim, first, two.topM));
      onProgress?.(texts.length, texts.length);
      return post(scores);
    },
    scoreVectors,
    dispose() {
      if (index) void index.then((i) => i.dispose());
      index = null;
    },
  };
}
