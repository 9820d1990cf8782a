import { createHash } from 'node:crypto';
import { EoError } from '../errors';
import { checkpointRebuildCommand, loadCheckpoint } from '../store/checkpoint';
import type { Checkpoint } from '../store/types';

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


/** Short hash of an NN-SSC model's weights (its identity in fingerprints). */
export function nnsscWeightsHash(m: NnsscModel): string {
  const h = createHash('sha256');
  for (const [name, t] of Object.entries(nnsscTensors(m)).sort(([a], [b]) => (a < b ? -1 : 1))) {
    h.update(name);
    h.update(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  }
  return h.digest('hex').slice(0, 16);
}


/**
 * Load NN-SSC weights saved by `saveNnsscCheckpoint` (lib/train/nnssc-checkpoint.ts); refuses a corrupt checkpoint, another kind, another data
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
