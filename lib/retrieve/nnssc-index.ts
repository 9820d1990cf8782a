import type * as tfTypes from '@tensorflow/tfjs';
import { EoError } from '../errors';
import { getTf, initTfBackend } from '../tensor/backend';
import type { TfBackendName } from '../tensor/types';
import { type NnsscModel, validateNnsscModel, queryRowCount } from './nnssc';

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
