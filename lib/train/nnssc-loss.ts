import type * as tfTypes from '@tensorflow/tfjs';
import { EoError } from '../errors';
import type { NnsscModel } from '../retrieve/nnssc';
import { getTf, variableOf } from '../tensor/backend';
import { mulberry32, type Rng } from '../util/random';

// NN-SSC's Eq. 5 loss and its hand-written gradients (why by hand, and why on the logit: nnssc.ts), with
// what one step runs on: seeded initial weights, the weights as tfjs variables, and a batch in flat buffers.

/** Eq. 5 for one positive in plain JavaScript: logaddexp(s_p, logsumexp(s_N)) − s_p. */
export function nnsscPositiveLoss(sp: number, negatives: readonly number[]): number {
  const all = [sp, ...negatives];
  const m = Math.max(...all);
  let sum = 0;
  for (const s of all) sum += Math.exp(s - m);
  return m + Math.log(sum) - sp;
}

/** Eq. 5 averaged over positives, in plain JavaScript (the reference the tests check the tensor loss against). */
export function nnsscLossReference(groups: readonly { positive: number; negatives: readonly number[] }[]): number {
  if (groups.length === 0) return 0;
  let s = 0;
  for (const g of groups) s += nnsscPositiveLoss(g.positive, g.negatives);
  return s / groups.length;
}

/** Glorot-uniform [fanIn, fanOut] from a seeded generator (backend-independent). */
export function glorotUniform(fanIn: number, fanOut: number, rng: Rng): Float32Array {
  const limit = Math.sqrt(6 / (fanIn + fanOut));
  const w = new Float32Array(fanIn * fanOut);
  for (let i = 0; i < w.length; i++) w[i] = (rng() * 2 - 1) * limit;
  return w;
}

/** A freshly initialised NN-SSC: Glorot-uniform kernels from mulberry32(seed), zero biases. */
export function initNnsscModel(dim: number, hidden1: number, hidden2: number, seed: number): NnsscModel {
  const rng = mulberry32(seed);
  return {
    dim,
    hidden1,
    hidden2,
    w1: glorotUniform(2 * dim, hidden1, rng),
    b1: new Float32Array(hidden1),
    w2: glorotUniform(hidden1, hidden2, rng),
    b2: new Float32Array(hidden2),
    w3: glorotUniform(hidden2, 1, rng),
    b3: 0,
  };
}

/** The model's weights as trainable tfjs variables (w1 split into its query and dataset halves). */
export interface NnsscVariables {
  w1q: tfTypes.Variable;
  w1d: tfTypes.Variable;
  b1: tfTypes.Variable;
  w2: tfTypes.Variable;
  b2: tfTypes.Variable;
  w3: tfTypes.Variable;
  b3: tfTypes.Variable;
}

export function nnsscVariables(m: NnsscModel): NnsscVariables {
  const tf = getTf();
  const D = m.dim;
  return {
    w1q: variableOf(m.w1.subarray(0, D * m.hidden1), [D, m.hidden1]),
    w1d: variableOf(m.w1.subarray(D * m.hidden1), [D, m.hidden1]),
    b1: variableOf(m.b1, [m.hidden1]),
    w2: variableOf(m.w2, [m.hidden1, m.hidden2]),
    b2: variableOf(m.b2, [m.hidden2]),
    w3: variableOf(m.w3, [m.hidden2, 1]),
    b3: variableOf([m.b3], [1]),
  };
}

/** Copy the variables back into a plain model (new arrays). Read with `await data()`: WebGPU in Node cannot read synchronously. */
export async function nnsscModelFromVariables(v: NnsscVariables, dim: number): Promise<NnsscModel> {
  const read = async (t: tfTypes.Variable) => Float32Array.from((await t.data()) as Float32Array);
  const [w1q, w1d, b1, w2, b2, w3, b3] = await Promise.all([v.w1q, v.w1d, v.b1, v.w2, v.b2, v.w3, v.b3].map(read));
  const w1 = new Float32Array(w1q.length + w1d.length);
  w1.set(w1q, 0);
  w1.set(w1d, w1q.length);
  return { dim, hidden1: v.b1.shape[0], hidden2: v.b2.shape[0], w1, b1, w2, b2, w3, b3: b3[0] };
}

export function disposeNnsscVariables(v: NnsscVariables): void {
  for (const t of Object.values(v)) t.dispose();
}

/**
 * One batch in flat buffers: B positives, each with K = 1 + negatives slots (slot 0 = the positive). Padding slots
 * (when fewer negatives exist) have mask −1e9 so they drop out of the log-sum-exp. The dataset side is given twice
 * over: as corpus rows (`rows`, always), and as their embeddings (`d`) unless the batch was made for a corpus that
 * lives on the device (`makeNnsscBatch(…, null, …)`: on WebGPU a step then uploads B·K row numbers, not B·K·D floats).
 */
export interface NnsscBatch {
  b: number;
  k: number;
  /** B×D query embeddings. */
  q: Float32Array;
  /** B·K×D dataset embeddings (zero rows on padding); absent when the batch names rows only. */
  d?: Float32Array;
  /** B·K corpus rows (0 on padding, which the mask drops). */
  rows: Int32Array;
  /** B×K: 0 for used slots, −1e9 for padding. */
  mask: Float32Array;
}

const PAD = -1e9;

/**
 * Assemble a batch from (query, positive, negatives) triples. `corpusMatrix` null: the dataset side as corpus rows only,
 * for `nnsscLossAndGrads(…, corpus)` with the corpus already on the device.
 */
export function makeNnsscBatch(
  items: readonly { query: number; positive: number; negatives: readonly number[] }[],
  queryMatrix: Float32Array,
  corpusMatrix: Float32Array | null,
  dim: number,
  k: number,
): NnsscBatch {
  const b = items.length;
  const q = new Float32Array(b * dim);
  const d = corpusMatrix ? new Float32Array(b * k * dim) : undefined;
  const rows = new Int32Array(b * k);
  const mask = new Float32Array(b * k);
  items.forEach((it, r) => {
    q.set(queryMatrix.subarray(it.query * dim, (it.query + 1) * dim), r * dim);
    const base = r * k;
    rows[base] = it.positive;
    for (let j = 1; j < k; j++) {
      const n = it.negatives[j - 1];
      if (n === undefined) mask[base + j] = PAD;
      else rows[base + j] = n;
    }
    if (d) for (let j = 0; j < k; j++) if (mask[base + j] === 0) d.set(corpusMatrix!.subarray(rows[base + j] * dim, (rows[base + j] + 1) * dim), (base + j) * dim);
  });
  return { b, k, q, ...(d ? { d } : {}), rows, mask };
}

export interface NnsscGradients {
  loss: tfTypes.Scalar;
  /** The logits, B×K (slot 0 = positive). */
  scores: tfTypes.Tensor2D;
  grads: Record<keyof NnsscVariables, tfTypes.Tensor>;
}

/**
 * Forward pass, Eq. 5 loss and hand-written gradients of one batch (inside the caller's tidy, or dispose the
 * result). With `withGrads: false` only loss and scores are computed.
 */
export function nnsscLossAndGrads(v: NnsscVariables, batch: NnsscBatch, withGrads = true, corpus?: tfTypes.Tensor2D): NnsscGradients {
  const tf = getTf();
  const { b: B, k: K } = batch;
  const D = v.w1q.shape[0] as number;
  const H1 = v.w1q.shape[1] as number;
  const q = tf.tensor2d(batch.q, [B, D]);
  // the dataset side: gathered from the corpus on the device (padding rows are real rows there; the mask drops them,
  // and their zero gradient rows add nothing to W_d's), else uploaded
  if (!corpus && !batch.d) throw new EoError('INVALID_ARGUMENT', 'nnsscLossAndGrads: the batch names corpus rows only: pass the corpus tensor');
  const d = corpus ? (tf.gather(corpus, tf.tensor1d(batch.rows, 'int32')) as tfTypes.Tensor2D) : tf.tensor2d(batch.d!, [B * K, D]);
  const mask = tf.tensor2d(batch.mask, [B, K]);
  const hq = tf.add(tf.matMul(q, v.w1q), v.b1); // [B,H1]
  const hd = tf.matMul(d, v.w1d); // [BK,H1]
  const z1 = tf.reshape(tf.add(tf.reshape(hd, [B, K, H1]), tf.expandDims(hq, 1)), [B * K, H1]) as tfTypes.Tensor2D;
  const h1 = tf.relu(z1);
  const z2 = tf.add(tf.matMul(h1, v.w2), v.b2) as tfTypes.Tensor2D;
  const h2 = tf.relu(z2);
  const s = tf.reshape(tf.add(tf.matMul(h2, v.w3), v.b3), [B, K]) as tfTypes.Tensor2D;
  const sm = tf.add(s, mask);
  const lse = tf.logSumExp(sm, 1); // [B]
  const sp = tf.reshape(tf.slice(s, [0, 0], [B, 1]), [B]);
  const loss = tf.mean(tf.sub(lse, sp)) as tfTypes.Scalar;
  if (!withGrads) return { loss, scores: s, grads: {} as NnsscGradients['grads'] };
  // dL/ds = (softmax(sm) − onehot(0)) / B
  const onehot = new Float32Array(B * K);
  for (let r = 0; r < B; r++) onehot[r * K] = 1;
  const p = tf.exp(tf.sub(sm, tf.expandDims(lse, 1)));
  const ds = tf.reshape(tf.div(tf.sub(p, tf.tensor2d(onehot, [B, K])), B), [B * K, 1]) as tfTypes.Tensor2D;
  const gw3 = tf.matMul(tf.transpose(h2), ds); // [H2,1]
  const gb3 = tf.reshape(tf.sum(ds), [1]);
  const dh2 = tf.mul(ds, tf.reshape(v.w3, [1, -1])); // [BK,H2]
  const dz2 = tf.mul(dh2, tf.cast(tf.greater(z2, 0), 'float32')) as tfTypes.Tensor2D;
  const gw2 = tf.matMul(tf.transpose(h1), dz2); // [H1,H2]
  const gb2 = tf.sum(dz2, 0);
  const dh1 = tf.matMul(dz2, tf.transpose(v.w2)); // [BK,H1]
  const dz1 = tf.mul(dh1, tf.cast(tf.greater(z1, 0), 'float32')) as tfTypes.Tensor2D;
  const gw1d = tf.matMul(tf.transpose(d), dz1); // [D,H1]
  const dhq = tf.sum(tf.reshape(dz1, [B, K, H1]), 1) as tfTypes.Tensor2D; // [B,H1]
  const gw1q = tf.matMul(tf.transpose(q), dhq);
  const gb1 = tf.sum(dhq, 0);
  return { loss, scores: s, grads: { w1q: gw1q, w1d: gw1d, b1: gb1, w2: gw2, b2: gb2, w3: gw3, b3: gb3 } };
}
