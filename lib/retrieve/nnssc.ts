import { createHash } from 'node:crypto';
import type * as tfTypes from '@tensorflow/tfjs';
import { EoError } from '../errors';
import { embedQueriesCached } from '../encode/cache';
import type { SentenceEncoder } from '../encode/types';
import { getTf, initTfBackend } from '../tensor/backend';
import type { TfBackendName } from '../tensor/types';
import type { OnnxThread } from '../tensor/onnx-session';
import { checkpointRebuildCommand, loadCheckpoint } from '../store/checkpoint';
import type { Checkpoint } from '../store/types';
import { timeStage, type CorpusScorer } from './scorers';
import { topKIndexSet } from './topk';

/**
 * NN-SSC (paper §3.3): an MLP on the concatenated [query; dataset] embeddings, 2D → H1 → H2 → 1 with ReLU.
 * The paper puts a sigmoid on the output; we train and rank with the pre-sigmoid logit z (the sigmoid is monotone,
 * so rankings are identical; see lib/train/nnssc.ts for why the loss uses z, and `output: 'sigmoid'` below).
 *
 * Weights follow TensorFlow.js' dense-layer convention, row-major `[in, out]`: `w1` is `[2D, H1]`, its rows
 * 0..D−1 multiply the query embedding (W_q) and rows D..2D−1 the dataset embedding (W_d).
 */
export interface NnsscModel {
  /** Encoder dimension D (input is 2D). */
  dim: number;
  hidden1: number;
  hidden2: number;
  /** [2D, H1] */
  w1: Float32Array;
  /** [H1] */
  b1: Float32Array;
  /** [H1, H2] */
  w2: Float32Array;
  /** [H2] */
  b2: Float32Array;
  /** [H2] (a `[H2, 1]` kernel) */
  w3: Float32Array;
  b3: number;
}

/** Checkpoint `kind` of NN-SSC weights. */
export const NNSSC_KIND = 'nnssc';

/** Trainable parameters of an NN-SSC of these sizes: (2D·H1 + H1) + (H1·H2 + H2) + (H2 + 1). */
export function nnsscParamCount(dims: { dim: number; hidden1: number; hidden2: number }): number {
  const { dim, hidden1: h1, hidden2: h2 } = dims;
  return 2 * dim * h1 + h1 + h1 * h2 + h2 + h2 + 1;
}

/** Check the arrays' sizes against the dimensions; throws INVALID_ARGUMENT naming the first bad one. */
export function validateNnsscModel(m: NnsscModel): NnsscModel {
  const want: [string, number, number][] = [
    ['w1', m.w1.length, 2 * m.dim * m.hidden1],
    ['b1', m.b1.length, m.hidden1],
    ['w2', m.w2.length, m.hidden1 * m.hidden2],
    ['b2', m.b2.length, m.hidden2],
    ['w3', m.w3.length, m.hidden2],
  ];
  for (const [name, got, exp] of want)
    if (got !== exp) throw new EoError('INVALID_ARGUMENT', `NN-SSC ${name} has ${got} values, expected ${exp} (D=${m.dim}, H1=${m.hidden1}, H2=${m.hidden2})`);
  if (!Number.isFinite(m.b3)) throw new EoError('INVALID_ARGUMENT', 'NN-SSC b3 is not finite');
  return m;
}

/** Named tensors of a model, as stored in a checkpoint. */
export function nnsscTensors(m: NnsscModel): Record<string, { shape: number[]; data: Float32Array }> {
  return {
    'dense1/kernel': { shape: [2 * m.dim, m.hidden1], data: m.w1 },
    'dense1/bias': { shape: [m.hidden1], data: m.b1 },
    'dense2/kernel': { shape: [m.hidden1, m.hidden2], data: m.w2 },
    'dense2/bias': { shape: [m.hidden2], data: m.b2 },
    'out/kernel': { shape: [m.hidden2, 1], data: m.w3 },
    'out/bias': { shape: [1], data: new Float32Array([m.b3]) },
  };
}

/** Rebuild a model from checkpoint tensors (inverse of `nnsscTensors`). */
export function nnsscFromTensors(t: Record<string, { shape: number[]; data: Float32Array }>, where = 'checkpoint'): NnsscModel {
  const need = ['dense1/kernel', 'dense1/bias', 'dense2/kernel', 'dense2/bias', 'out/kernel', 'out/bias'];
  for (const n of need) if (!t[n]) throw new EoError('DATA_INVALID', `${where}: NN-SSC tensor "${n}" is missing`);
  const [in1, h1] = t['dense1/kernel'].shape;
  const [, h2] = t['dense2/kernel'].shape;
  return validateNnsscModel({
    dim: in1 / 2,
    hidden1: h1,
    hidden2: h2,
    w1: t['dense1/kernel'].data,
    b1: t['dense1/bias'].data,
    w2: t['dense2/kernel'].data,
    b2: t['dense2/bias'].data,
    w3: t['out/kernel'].data,
    b3: t['out/bias'].data[0],
  });
}

/**
 * Reference forward pass of one (query, dataset) pair in plain JavaScript (float64 accumulation): the logit z.
 * Slow; for tests and explanations.
 */
export function nnsscLogitReference(m: NnsscModel, q: ArrayLike<number>, d: ArrayLike<number>): number {
  const { dim: D, hidden1: H1, hidden2: H2 } = m;
  const h1 = new Float64Array(H1);
  for (let j = 0; j < H1; j++) h1[j] = m.b1[j];
  for (let i = 0; i < D; i++) {
    const qi = q[i];
    const di = d[i];
    const rq = i * H1;
    const rd = (D + i) * H1;
    for (let j = 0; j < H1; j++) h1[j] += qi * m.w1[rq + j] + di * m.w1[rd + j];
  }
  for (let j = 0; j < H1; j++) if (h1[j] < 0) h1[j] = 0;
  let z = m.b3;
  for (let k = 0; k < H2; k++) {
    let s = m.b2[k];
    for (let j = 0; j < H1; j++) s += h1[j] * m.w2[j * H2 + k];
    if (s > 0) z += s * m.w3[k];
  }
  return z;
}

/** Rows of a Q×D query matrix; throws INVALID_ARGUMENT when its length is not a multiple of D. */
export function queryRowCount(queryVecs: ArrayLike<number>, dim: number): number {
  const nq = queryVecs.length / dim;
  if (!Number.isInteger(nq)) throw new EoError('INVALID_ARGUMENT', `query matrix length ${queryVecs.length} is not a multiple of D=${dim}`);
  return nq;
}

export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

export interface NnsscIndexOptions {
  /** TensorFlow.js backend (see `initTfBackend`). Default: the one already chosen, else the automatic choice. */
  backend?: TfBackendName;
  /** Queries scored per graph execution. Default 4 (memory ≈ 2 × 4 × N × H1 × 4 bytes). */
  queriesPerBatch?: number;
}

/**
 * Full-corpus NN-SSC scoring with the first layer split: W·[q; d] = W_q·q + W_d·d. `A = D·W_d + b1` (N×H1) is
 * computed once; each query then costs one D×H1 mat-vec (`c = W_q·q`, in JavaScript), `relu(A + c)`, the second
 * layer as one N×H1 · H1×H2 matrix product (fused bias + ReLU) and the output layer. Backend memory is held until
 * `dispose()`.
 */
export class NnsscCorpusIndex {
  readonly model: NnsscModel;
  readonly size: number;
  readonly backend: string;
  private readonly tf: typeof tfTypes;
  private a: tfTypes.Tensor2D | null;
  private w2: tfTypes.Tensor2D | null;
  private b2: tfTypes.Tensor1D | null;
  private w3: tfTypes.Tensor2D | null;
  private readonly queriesPerBatch: number;

  private constructor(model: NnsscModel, corpusMatrix: Float32Array, backend: string, queriesPerBatch: number) {
    const tf = getTf();
    this.tf = tf;
    this.model = model;
    this.backend = backend;
    this.queriesPerBatch = Math.max(1, Math.floor(queriesPerBatch));
    const D = model.dim;
    if (corpusMatrix.length % D !== 0) throw new EoError('INVALID_ARGUMENT', `corpus matrix length ${corpusMatrix.length} is not a multiple of D=${D}`);
    this.size = corpusMatrix.length / D;
    const wd = tf.tensor2d(model.w1.subarray(D * model.hidden1), [D, model.hidden1]);
    this.a = tf.tidy(() => tf.add(tf.matMul(tf.tensor2d(corpusMatrix, [this.size, D]), wd), tf.tensor1d(model.b1)) as tfTypes.Tensor2D);
    wd.dispose();
    this.w2 = tf.tensor2d(model.w2, [model.hidden1, model.hidden2]);
    this.b2 = tf.tensor1d(model.b2);
    this.w3 = tf.tensor2d(model.w3, [model.hidden2, 1]);
  }

  /** Build the index (starts the tfjs backend if needed). `corpusMatrix` is N×D row-major. */
  static async create(model: NnsscModel, corpusMatrix: Float32Array, opts: NnsscIndexOptions = {}): Promise<NnsscCorpusIndex> {
    validateNnsscModel(model);
    const info = await initTfBackend(opts.backend ? { backend: opts.backend } : {});
    return new NnsscCorpusIndex(model, corpusMatrix, info.name, opts.queriesPerBatch ?? 4);
  }

  /** c = W_q·q for each query row (Q×H1), in JavaScript. */
  queryProjection(queryVecs: Float32Array, nq: number): Float32Array {
    const { dim: D, hidden1: H1, w1 } = this.model;
    const out = new Float32Array(nq * H1);
    const acc = new Float64Array(H1);
    for (let r = 0; r < nq; r++) {
      acc.fill(0);
      const qo = r * D;
      for (let i = 0; i < D; i++) {
        const qi = queryVecs[qo + i];
        if (qi === 0) continue;
        const row = i * H1;
        for (let j = 0; j < H1; j++) acc[j] += qi * w1[row + j];
      }
      out.set(acc, r * H1);
    }
    return out;
  }

  /** Logits of every dataset for each query (rows of a Q×D matrix), aligned with the corpus. */
  async scoreVectors(queryVecs: Float32Array, opts: { onProgress?: (done: number, total: number) => void } = {}): Promise<Float32Array[]> {
    if (!this.a) throw new EoError('INVALID_ARGUMENT', 'NnsscCorpusIndex used after dispose()');
    const tf = this.tf;
    const { dim: D, hidden1: H1, b3 } = this.model;
    const nq = queryRowCount(queryVecs, D);
    const N = this.size;
    const out: Float32Array[] = [];
    for (let s = 0; s < nq; s += this.queriesPerBatch) {
      const b = Math.min(this.queriesPerBatch, nq - s);
      const c = this.queryProjection(queryVecs.subarray(s * D, (s + b) * D), b);
      const z = tf.tidy(() => {
        const h1 = tf.relu(tf.add(tf.expandDims(this.a!, 0), tf.tensor3d(c, [b, 1, H1])));
        const h2 = tf.fused.matMul({ a: tf.reshape(h1, [b * N, H1]) as tfTypes.Tensor2D, b: this.w2!, bias: this.b2!, activation: 'relu' });
        return tf.matMul(h2, this.w3!);
      });
      const data = (await z.data()) as Float32Array;
      z.dispose();
      for (let r = 0; r < b; r++) {
        const v = data.slice(r * N, (r + 1) * N);
        if (b3 !== 0) for (let i = 0; i < N; i++) v[i] += b3;
        out.push(v);
      }
      opts.onProgress?.(Math.min(s + b, nq), nq);
    }
    return out;
  }

  /**
   * Logits of the given corpus rows only, for one query (`queryVec` of length D), in the order of `rows`: the
   * second stage of two-stage scoring (see `nnsscTwoStageScores`).
   */
  async scoreRows(queryVec: Float32Array, rows: ArrayLike<number>): Promise<Float32Array> {
    if (!this.a) throw new EoError('INVALID_ARGUMENT', 'NnsscCorpusIndex used after dispose()');
    const tf = this.tf;
    const { dim: D, hidden1: H1, b3 } = this.model;
    if (queryVec.length !== D) throw new EoError('INVALID_ARGUMENT', `query vector has ${queryVec.length} values, expected D=${D}`);
    if (rows.length === 0) return new Float32Array(0);
    const idx = Int32Array.from(rows as ArrayLike<number>);
    for (const r of idx) if (r < 0 || r >= this.size) throw new EoError('INVALID_ARGUMENT', `row ${r} is outside the corpus (0..${this.size - 1})`);
    const c = this.queryProjection(queryVec, 1);
    const z = tf.tidy(() => {
      const h1 = tf.relu(tf.add(tf.gather(this.a!, tf.tensor1d(idx, 'int32')), tf.tensor2d(c, [1, H1])));
      const h2 = tf.fused.matMul({ a: h1 as tfTypes.Tensor2D, b: this.w2!, bias: this.b2!, activation: 'relu' });
      return tf.matMul(h2, this.w3!);
    });
    const v = (await z.data()) as Float32Array;
    z.dispose();
    const out = v.slice();
    if (b3 !== 0) for (let i = 0; i < out.length; i++) out[i] += b3;
    return out;
  }

  dispose(): void {
    for (const t of [this.a, this.w2, this.b2, this.w3]) t?.dispose();
    this.a = this.w2 = this.w3 = null;
    this.b2 = null;
  }
}

/**
 * The naive full-corpus forward pass: for each query, the concatenation [q; d] of every dataset (N×2D) through
 * the whole network, `queriesPerBatch` queries per graph execution. For the benchmark and the equality test.
 */
export async function nnsscNaiveScores(model: NnsscModel, corpusMatrix: Float32Array, queryVecs: Float32Array, opts: { queriesPerBatch?: number } = {}): Promise<Float32Array[]> {
  validateNnsscModel(model);
  await initTfBackend();
  const tf = getTf();
  const { dim: D, hidden1: H1, hidden2: H2 } = model;
  const N = corpusMatrix.length / D;
  const nq = queryVecs.length / D;
  const per = Math.max(1, opts.queriesPerBatch ?? 1);
  const w1 = tf.tensor2d(model.w1, [2 * D, H1]);
  const b1 = tf.tensor1d(model.b1);
  const w2 = tf.tensor2d(model.w2, [H1, H2]);
  const b2 = tf.tensor1d(model.b2);
  const w3 = tf.tensor2d(model.w3, [H2, 1]);
  const b3 = tf.tensor1d([model.b3]);
  const docs = tf.tensor2d(corpusMatrix, [N, D]);
  const out: Float32Array[] = [];
  try {
    for (let s = 0; s < nq; s += per) {
      const b = Math.min(per, nq - s);
      const z = tf.tidy(() => {
        const q = tf.tensor2d(queryVecs.subarray(s * D, (s + b) * D), [b, D]);
        // [b·N, 2D]: each query row repeated N times beside the corpus
        const qRep = tf.reshape(tf.tile(tf.expandDims(q, 1), [1, N, 1]), [b * N, D]);
        const x = tf.concat([qRep, b === 1 ? docs : tf.tile(docs, [b, 1])], 1) as tfTypes.Tensor2D;
        const h1 = tf.fused.matMul({ a: x, b: w1, bias: b1, activation: 'relu' });
        const h2 = tf.fused.matMul({ a: h1, b: w2, bias: b2, activation: 'relu' });
        return tf.fused.matMul({ a: h2, b: w3, bias: b3 });
      });
      const data = (await z.data()) as Float32Array;
      z.dispose();
      for (let r = 0; r < b; r++) out.push(data.slice(r * N, (r + 1) * N));
    }
  } finally {
    for (const t of [w1, b1, w2, b2, w3, b3, docs]) t.dispose();
  }
  return out;
}

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

/** Short hash of an NN-SSC model's weights (its identity in fingerprints). */
export function nnsscWeightsHash(m: NnsscModel): string {
  const h = createHash('sha256');
  for (const [name, t] of Object.entries(nnsscTensors(m)).sort(([a], [b]) => (a < b ? -1 : 1))) {
    h.update(name);
    h.update(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  }
  return h.digest('hex').slice(0, 16);
}

function startNnsscWorker(data: Record<string, unknown>): import('node:worker_threads').Worker {
  // Lazy requires keep worker_threads out of the browser-facing import graph.
  const fs = require('node:fs') as typeof import('node:fs');
  const path = require('node:path') as typeof import('node:path');
  const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
  const base = path.join(__dirname, 'nnssc-worker');
  const workerData = { ...data, __eoNnsscWorker: true };
  if (fs.existsSync(base + '.js')) return new Worker(base + '.js', { workerData });
  if (fs.existsSync(base + '.ts')) return new Worker(`require('tsx/cjs'); require(${JSON.stringify(base + '.ts')});`, { eval: true, workerData });
  throw new EoError('INVALID_ARGUMENT', `NN-SSC worker script not found next to ${__filename}`);
}

/**
 * The decomposed scorer split over worker threads: each thread holds a contiguous shard of the corpus (its own
 * tfjs backend, so the wasm backend — single-threaded in Node — uses every core) and every query batch is scored
 * by all shards in parallel. Same numbers as `NnsscCorpusIndex` (row for row the same kernels).
 */
export class NnsscThreadedIndex {
  readonly size: number;
  readonly threads: number;
  backend = '';
  private workers: import('node:worker_threads').Worker[];
  private readonly bounds: number[];
  private readonly dim: number;
  private nextId = 1;
  private ready: Promise<void>;

  private constructor(model: NnsscModel, corpusMatrix: Float32Array, threads: number, opts: NnsscIndexOptions) {
    validateNnsscModel(model);
    this.dim = model.dim;
    this.size = corpusMatrix.length / model.dim;
    this.threads = Math.max(1, Math.min(threads, this.size));
    this.bounds = Array.from({ length: this.threads + 1 }, (_, i) => Math.round((i * this.size) / this.threads));
    this.workers = [];
    const readies: Promise<void>[] = [];
    for (let t = 0; t < this.threads; t++) {
      const shard = corpusMatrix.slice(this.bounds[t] * this.dim, this.bounds[t + 1] * this.dim);
      const w = startNnsscWorker({ model, shard, backend: opts.backend, queriesPerBatch: opts.queriesPerBatch ?? 1 });
      this.workers.push(w);
      readies.push(
        new Promise<void>((resolve, reject) => {
          const onMsg = (m: { type: string; backend?: string; message?: string; id?: number | null }) => {
            if (m.type === 'ready') {
              this.backend = m.backend ?? '';
              w.off('message', onMsg);
              resolve();
            } else if (m.type === 'error' && m.id === null) reject(new EoError('INVALID_ARGUMENT', `NN-SSC worker failed to start: ${m.message}`));
          };
          w.on('message', onMsg);
          w.once('error', reject);
        }),
      );
    }
    this.ready = Promise.all(readies).then(() => undefined);
  }

  /** Start `threads` workers (default: 2, or fewer cores) and wait until each holds its shard. */
  static async create(model: NnsscModel, corpusMatrix: Float32Array, opts: NnsscIndexOptions & { threads?: number } = {}): Promise<NnsscThreadedIndex> {
    const os = require('node:os') as typeof import('node:os');
    const idx = new NnsscThreadedIndex(model, corpusMatrix, opts.threads ?? Math.min(2, os.cpus().length), opts);
    try {
      await idx.ready;
    } catch (e) {
      idx.dispose();
      throw e;
    }
    return idx;
  }

  private scoreOn(t: number, queries: Float32Array): Promise<Float32Array> {
    const w = this.workers[t];
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onMsg = (m: { type: string; id?: number | null; data?: Float32Array; message?: string }) => {
        if (m.id !== id) return;
        w.off('message', onMsg);
        if (m.type === 'scores') resolve(m.data!);
        else reject(new EoError('INVALID_ARGUMENT', `NN-SSC worker ${t}: ${m.message}`));
      };
      w.on('message', onMsg);
      w.postMessage({ type: 'score', id, queries: queries.slice() });
    });
  }

  /** Logits of every dataset for each query row, aligned with the corpus. */
  async scoreVectors(queryVecs: Float32Array, opts: { onProgress?: (done: number, total: number) => void; chunk?: number } = {}): Promise<Float32Array[]> {
    if (this.workers.length === 0) throw new EoError('INVALID_ARGUMENT', 'NnsscThreadedIndex used after dispose()');
    const D = this.dim;
    const nq = queryVecs.length / D;
    const chunk = Math.max(1, opts.chunk ?? 16);
    const out: Float32Array[] = [];
    for (let s = 0; s < nq; s += chunk) {
      const b = Math.min(chunk, nq - s);
      const q = queryVecs.subarray(s * D, (s + b) * D);
      const parts = await Promise.all(this.workers.map((_, t) => this.scoreOn(t, q)));
      for (let r = 0; r < b; r++) {
        const v = new Float32Array(this.size);
        parts.forEach((p, t) => {
          const len = this.bounds[t + 1] - this.bounds[t];
          v.set(p.subarray(r * len, (r + 1) * len), this.bounds[t]);
        });
        out.push(v);
      }
      opts.onProgress?.(s + b, nq);
    }
    return out;
  }

  dispose(): void {
    for (const w of this.workers) {
      w.removeAllListeners();
      w.on('error', () => {});
      void w.terminate();
    }
    this.workers = [];
  }
}

/**
 * Load NN-SSC weights saved by `saveNnsscCheckpoint` (lib/train/nnssc.ts); refuses a corrupt checkpoint, another kind, another data
 * hash (when given), or weights for another encoder / corpus (when given) with a clear error.
 */
export function loadNnsscCheckpoint(dir: string, expect: { dataHash?: string; encoderId?: string; corpusHash?: string } = {}): { model: NnsscModel; checkpoint: Checkpoint } {
  const checkpoint = loadCheckpoint(dir, { kind: NNSSC_KIND, dataHash: expect.dataHash });
  for (const key of ['encoderId', 'corpusHash'] as const) {
    const want = expect[key];
    if (want !== undefined && checkpoint.config[key] !== want)
      throw new EoError(
        'CACHE_MISMATCH',
        `checkpoint ${checkpoint.file} was trained with ${key} ${String(checkpoint.config[key])}, not ${want}; rebuild it: ${checkpointRebuildCommand(checkpoint, dir)}`,
        { file: checkpoint.file },
      );
  }
  return { model: nnsscFromTensors(checkpoint.tensors, checkpoint.file), checkpoint };
}
