import type * as tfTypes from '@tensorflow/tfjs';
import { checkpointsDir } from '../util/paths';
import { EoError } from '../errors';
import { evaluateRun, summarize } from '../metrics/metrics';
import type { Qrels, Run } from '../metrics/types';
import { NNSSC_KIND, NnsscCorpusIndex, nnsscFromTensors, nnsscParamCount, nnsscTensors, type NnsscModel } from '../retrieve/nnssc';
import { topKScoredHits } from '../retrieve/topk';
import { getTf, initTfBackend } from '../tensor/backend';
import { wasmMatMulRoute } from '../tensor/wasm-matmul';
import { NnsscOnnxIndex } from '../retrieve/nnssc-onnx';
import type { TfBackendName } from '../tensor/types';
import { shortHash } from '../util/hash';
import { mulberry32, shuffleInPlace, type Rng } from '../util/random';
import { saveCheckpoint } from '../store/checkpoint';
import { mineHardNegatives, sampleRandomNegatives } from './negatives';
import type { TrainingData } from '../store/types';

/**
 * NN-SSC training (paper §3.3, Eq. 5).
 *
 * Score. s is the PRE-SIGMOID logit z of the output unit. The paper's network ends in a sigmoid; since σ is
 * monotone the ranking is the same, but Eq. 5 on σ(z) ∈ (0, 1) would bound every term of the log-sum-exp to
 * [0, 1] (the loss could never fall below log(1 + |N|·e^0) − 1 ≈ 2.04 for 20 negatives and its gradients vanish as
 * σ saturates), whereas on z it is the usual softmax cross-entropy over {p} ∪ N. Consequence: the loss is
 * invariant to adding a constant to z, so the output bias gets zero gradient and σ(z) is not a calibrated
 * probability (use it for display only).
 *
 * Loss. For one positive p with negatives N: logaddexp(s_p, logsumexp_{n∈N} s_n) − s_p
 * = logsumexp_{x∈{p}∪N} s_x − s_p, averaged over the positives of a batch.
 *
 * Backward pass. Written by hand (not tf.grad): TensorFlow.js' wasm backend has every kernel autodiff needs,
 * but its transposed matrix products (the weight gradients Xᵀ·dY and dY·Wᵀ) run 10–25× slower than plain ones,
 * so we transpose explicitly and multiply untransposed (≈4× faster steps). A test checks the hand gradients
 * against tf.grads on a tiny network.
 *
 * Reproducibility. Weights are initialised in JavaScript (Glorot-uniform from mulberry32(seed), biases 0),
 * batches and random negatives come from mulberry32 streams of the same seed, and kernels are deterministic, so
 * the same seed, data and backend give bit-for-bit identical weights. Different backends (wasm vs cpu vs
 * tfjs-node) sum in different orders and differ in the last bits, which can change the early-stopping epoch.
 */
export interface NnsscTrainConfig {
  /** Hidden sizes (paper: 256, 256). */
  hidden1: number;
  hidden2: number;
  /** KNN hard negatives per positive, mined once in the frozen embedding space (paper: 10). */
  hardNegatives: number;
  /** Random negatives per positive, re-drawn every epoch (paper: 10). */
  randomNegatives: number;
  /** Adam learning rate (paper: 1e-4). */
  learningRate: number;
  /** Positives per batch (paper: 64). */
  batchSize: number;
  seed: number;
  /** Upper bound on epochs (the paper trains 1000 on a B200; we stop early). */
  maxEpochs: number;
  /** Stop after this many epochs without a better validation score. */
  patience: number;
  /** Smallest improvement of the validation score that counts. */
  minDelta: number;
  /** Share of the training split's publications held out for early stopping (0 disables validation). */
  valFraction: number;
  /** Early-stopping score: validation MAP, MRR, or their mean. */
  valMetric: 'MAP' | 'MRR' | 'MAP+MRR';
  /** Stop (keeping the best epoch so far) once training has run this many seconds. 0 = no limit. */
  maxSeconds: number;
}

/**
 * The CPU recipe: the paper's network, negatives and optimizer, trained until validation MAP has not improved for
 * `patience` epochs (at most `maxEpochs`), keeping the best epoch. Stopping rule measured over seeds 42–46
 * (`bench/nnssc-seeds.cjs`, 145 test queries, each query's metric averaged over the seeds, paired 95% CIs): ≤ 100
 * epochs with patience 15 against the earlier ≤ 60 with patience 5 lifts NN-SSC + BM25's MAP .353 → .385
 * (+.032 [+.017, +.048]), MRR .408 → .441 and NN-SSC's R@100 .445 → .537; patience 5 stopped three of five seeds at
 * epochs 18–37 on a noisy validation plateau. Seed 42 keeps epoch 37 under both rules (the same weights).
 */
export const DEFAULT_NNSSC_CONFIG: NnsscTrainConfig = {
  hidden1: 256,
  hidden2: 256,
  hardNegatives: 10,
  randomNegatives: 10,
  learningRate: 1e-4,
  batchSize: 64,
  seed: 42,
  maxEpochs: 100,
  patience: 15,
  minDelta: 1e-4,
  valFraction: 0.15,
  valMetric: 'MAP',
  maxSeconds: 0,
};

/** What NN-SSC trains on: frozen embeddings and the positives of each training query. */
export interface NnsscTrainData {
  /** N×dim corpus embeddings (unit norm), corpus order. */
  corpusMatrix: Float32Array;
  dim: number;
  /** Dataset ids in corpus order (for validation runs). */
  datasetIds: readonly string[];
  /** Training-split queries: id and group (publication id; validation holds out whole groups). */
  queries: readonly { id: string; group: string }[];
  /** Q×dim query embeddings, aligned with `queries`. */
  queryMatrix: Float32Array;
  /** Corpus indices of each query's positives. */
  positives: readonly number[][];
}

export interface NnsscEpochLog {
  /** `pretrain` for an epoch on extra pairs before the main training (`NnsscExtraPairs`); absent for the main epochs. */
  phase?: 'pretrain';
  epoch: number;
  /** Mean Eq. 5 loss over the epoch's batches (weights changing during the epoch). */
  trainLoss: number;
  /** Eq. 5 loss on the validation queries' positives with fixed negatives (null without validation). */
  valLoss: number | null;
  valMAP: number | null;
  valMRR: number | null;
  /** True when this epoch is the best so far (its weights are kept). */
  best: boolean;
  seconds: number;
}

export interface NnsscTrainProgress {
  epoch: number;
  step: number;
  steps: number;
  loss: number;
}

export interface NnsscTrainOptions {
  /** Backend; default $EO_TF_BACKEND or the automatic choice (see initTfBackend). */
  backend?: TfBackendName;
  /** Called after each epoch (for live learning curves). */
  onEpoch?: (log: NnsscEpochLog, curve: readonly NnsscEpochLog[]) => void;
  /** Called after each step. */
  onStep?: (p: NnsscTrainProgress) => void;
  /** Hard negatives already mined (per query, corpus indices), e.g. shared with the fine-tuning; default: mined here. */
  hardNegatives?: number[][];
  /**
   * Extra training pairs beside `data`'s queries, e.g. the corpus self-supervised pairs (`corpusSelfSupervisedPairs`):
   * never held out for validation, never validated on. Default none (plain training, bit-identical to before).
   */
  extra?: NnsscExtraPairs;
}

/**
 * Extra (query, positives) pairs for NN-SSC and how they are used:
 * - `pretrain`: `epochs` epochs on these pairs alone first (same negatives recipe, same optimizer), then the usual
 *   training from those weights; the pre-trained weights are the main training's epoch 0 (kept when no later epoch
 *   beats them on validation);
 * - `mix`: every epoch's examples are the main positives plus `perEpoch` positives of these pairs (a fresh seeded draw
 *   each epoch), shuffled together.
 */
export interface NnsscExtraPairs {
  schedule: 'pretrain' | 'mix';
  /** E×dim query embeddings. */
  queryMatrix: Float32Array;
  /** Corpus rows of each extra query's positives. */
  positives: readonly number[][];
  /** KNN hard negatives per extra query. Default: mined here (`mineHardNegatives`, `hardNegatives` of the config). */
  hardNegatives?: number[][];
  /** `pretrain`: epochs on the extra pairs. Default 3. */
  epochs?: number;
  /** `mix`: extra positives per epoch (a fresh seeded draw each epoch). Default: as many as the main training positives (1:1). */
  perEpoch?: number;
  /**
   * Corpus rows never drawn as negatives of the extra pairs (random negatives, and hard negatives when mined here):
   * rows kept out of the extra pairs altogether (e.g. the test labels a measurement leaves out of the positives) are
   * then neither rewarded nor punished by them. Default none.
   */
  neverNegatives?: readonly number[];
}

export interface NnsscTrainResult {
  model: NnsscModel;
  config: NnsscTrainConfig;
  curve: NnsscEpochLog[];
  /** 1-based epoch whose weights were kept (0: the initial weights, when no epoch improved). */
  bestEpoch: number;
  stoppedBecause: 'early stopping' | 'max epochs' | 'time budget' | 'no validation (fixed epochs)';
  /** TensorFlow.js backend that trained it (`wasm`, `cpu`, `node`, `node-gpu`). */
  backend: string;
  wallSeconds: number;
  trainableParams: number;
  trainQueries: number;
  valQueries: number;
  trainPositives: number;
  /** Training examples (positive pairs) per second over all epochs. */
  positivesPerSecond: number;
  /** Validation score (`valMetric`) of the kept weights; null without validation. */
  bestValScore: number | null;
  /** `extra` with `pretrain`: one log per pre-training epoch (validation on the held-out publications); else empty. */
  pretrainCurve: NnsscEpochLog[];
  /** Positives of the extra pairs (0 without `extra`). */
  extraPositives: number;
}

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

/**
 * Hold out whole groups (publications) for validation: the sorted distinct groups are shuffled with the seed and
 * round(n × fraction) go to validation (at least 1 when fraction > 0 and there are ≥ 2 groups; never all).
 */
export function validationSplit(groups: readonly string[], fraction: number, seed: number): { train: number[]; val: number[] } {
  const distinct = [...new Set(groups)].sort();
  let nVal = fraction > 0 && distinct.length >= 2 ? Math.max(1, Math.round(distinct.length * fraction)) : 0;
  nVal = Math.min(nVal, distinct.length - 1);
  const held = new Set(shuffleInPlace(distinct, mulberry32(seed ^ 0x5eed)).slice(0, Math.max(0, nVal)));
  const train: number[] = [];
  const val: number[] = [];
  groups.forEach((g, i) => (held.has(g) ? val : train).push(i));
  return { train, val };
}

/** Hash of what a model was trained on: corpus, encoder and the training queries with their positives. */
export function nnsscDataHash(input: { corpusHash: string; encoderId: string; queries: readonly { id: string }[]; positives: readonly number[][] }): string {
  const parts = [`corpus=${input.corpusHash}`, `encoder=${input.encoderId}`];
  input.queries.forEach((q, i) => parts.push(`${q.id}:${[...input.positives[i]].sort((a, b) => a - b).join(',')}`));
  return shortHash(parts.join('\n'));
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
    w1q: tf.variable(tf.tensor2d(m.w1.subarray(0, D * m.hidden1), [D, m.hidden1])),
    w1d: tf.variable(tf.tensor2d(m.w1.subarray(D * m.hidden1), [D, m.hidden1])),
    b1: tf.variable(tf.tensor1d(m.b1)),
    w2: tf.variable(tf.tensor2d(m.w2, [m.hidden1, m.hidden2])),
    b2: tf.variable(tf.tensor1d(m.b2)),
    w3: tf.variable(tf.tensor2d(m.w3, [m.hidden2, 1])),
    b3: tf.variable(tf.tensor1d([m.b3])),
  };
}

/** Copy the variables back into a plain model (new arrays). */
export function nnsscModelFromVariables(v: NnsscVariables, dim: number): NnsscModel {
  const w1q = v.w1q.dataSync() as Float32Array;
  const w1d = v.w1d.dataSync() as Float32Array;
  const w1 = new Float32Array(w1q.length + w1d.length);
  w1.set(w1q, 0);
  w1.set(w1d, w1q.length);
  return {
    dim,
    hidden1: v.b1.shape[0],
    hidden2: v.b2.shape[0],
    w1,
    b1: Float32Array.from(v.b1.dataSync() as Float32Array),
    w2: Float32Array.from(v.w2.dataSync() as Float32Array),
    b2: Float32Array.from(v.b2.dataSync() as Float32Array),
    w3: Float32Array.from(v.w3.dataSync() as Float32Array),
    b3: (v.b3.dataSync() as Float32Array)[0],
  };
}

export function disposeNnsscVariables(v: NnsscVariables): void {
  for (const t of Object.values(v)) t.dispose();
}

/**
 * One batch in flat buffers: B positives, each with K = 1 + negatives slots (slot 0 = the positive). Padding slots
 * (when fewer negatives exist) have mask −1e9 so they drop out of the log-sum-exp.
 */
export interface NnsscBatch {
  b: number;
  k: number;
  /** B×D query embeddings. */
  q: Float32Array;
  /** B·K×D dataset embeddings. */
  d: Float32Array;
  /** B×K: 0 for used slots, −1e9 for padding. */
  mask: Float32Array;
}

const PAD = -1e9;

/** Assemble a batch from (query, positive, negatives) triples. */
export function makeNnsscBatch(
  items: readonly { query: number; positive: number; negatives: readonly number[] }[],
  queryMatrix: Float32Array,
  corpusMatrix: Float32Array,
  dim: number,
  k: number,
): NnsscBatch {
  const b = items.length;
  const q = new Float32Array(b * dim);
  const d = new Float32Array(b * k * dim);
  const mask = new Float32Array(b * k);
  items.forEach((it, r) => {
    q.set(queryMatrix.subarray(it.query * dim, (it.query + 1) * dim), r * dim);
    const base = r * k;
    d.set(corpusMatrix.subarray(it.positive * dim, (it.positive + 1) * dim), base * dim);
    for (let j = 1; j < k; j++) {
      const n = it.negatives[j - 1];
      if (n === undefined) mask[base + j] = PAD;
      else d.set(corpusMatrix.subarray(n * dim, (n + 1) * dim), (base + j) * dim);
    }
  });
  return { b, k, q, d, mask };
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
export function nnsscLossAndGrads(v: NnsscVariables, batch: NnsscBatch, withGrads = true): NnsscGradients {
  const tf = getTf();
  const { b: B, k: K } = batch;
  const D = v.w1q.shape[0] as number;
  const H1 = v.w1q.shape[1] as number;
  const q = tf.tensor2d(batch.q, [B, D]);
  const d = tf.tensor2d(batch.d, [B * K, D]);
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

interface Example {
  query: number;
  positive: number;
}

/** Run from full score vectors: the top 100 per query (ties by dataset id descending, as trec_eval). */
function runOf(queryIds: readonly string[], scores: readonly Float32Array[], ids: readonly string[]): Run {
  const run: Run = new Map();
  queryIds.forEach((qid, i) => run.set(qid, topKScoredHits(scores[i], 100, ids).map((h) => ({ docId: ids[h.index], score: h.score }))));
  return run;
}

/**
 * Train NN-SSC on frozen embeddings: Eq. 5 with `hardNegatives` KNN + `randomNegatives` random negatives per
 * positive, Adam, early stopping on the validation MAP/MRR of held-out training publications (full-corpus
 * scoring), the best epoch's weights returned. Reports the backend and wall time.
 */
export async function trainNnssc(data: NnsscTrainData, config: Partial<NnsscTrainConfig> = {}, opts: NnsscTrainOptions = {}): Promise<NnsscTrainResult> {
  const cfg: NnsscTrainConfig = { ...DEFAULT_NNSSC_CONFIG, ...config };
  const t0 = Date.now();
  const { corpusMatrix, dim: D, queryMatrix, positives } = data;
  const N = corpusMatrix.length / D;
  const Q = data.queries.length;
  if (!Number.isInteger(N) || queryMatrix.length !== Q * D || positives.length !== Q)
    throw new EoError('INVALID_ARGUMENT', `trainNnssc: ${Q} queries, query matrix ${queryMatrix.length / D} rows, ${positives.length} positive lists, corpus ${N} rows`);
  if (data.datasetIds.length !== N) throw new EoError('INVALID_ARGUMENT', `trainNnssc: ${data.datasetIds.length} dataset ids for ${N} corpus rows`);
  const extra = opts.extra;
  const E = extra ? extra.positives.length : 0;
  if (extra && (extra.queryMatrix.length !== E * D || (extra.hardNegatives && extra.hardNegatives.length !== E)))
    throw new EoError('INVALID_ARGUMENT', `trainNnssc: extra pairs: ${E} positive lists, query matrix ${extra.queryMatrix.length / D} rows, ${extra.hardNegatives?.length ?? 'no'} hard-negative lists`);
  if (extra && extra.schedule !== 'pretrain' && extra.schedule !== 'mix') throw new EoError('INVALID_ARGUMENT', `trainNnssc: extra.schedule must be pretrain or mix, got ${String(extra.schedule)}`);
  const info = await initTfBackend(opts.backend ? { backend: opts.backend } : {});
  const tf = getTf();
  const onnxValidation = info.name === 'wasm' && info.matMul === 'onnx' ? (wasmMatMulRoute()?.threads ?? 1) : 0;

  const split = validationSplit(data.queries.map((q) => q.group), cfg.valFraction, cfg.seed);
  let hard =
    opts.hardNegatives ??
    mineHardNegatives({ queryVecs: queryMatrix, corpusMatrix, dim: D, positives: positives as number[][], k: cfg.hardNegatives });
  // Extra queries live after the main ones (rows Q..Q+E−1 of one query matrix), so batches can hold both.
  let allQueries = queryMatrix;
  let allPositives = positives;
  if (extra) {
    const never = extra.neverNegatives ?? [];
    const extraHard =
      extra.hardNegatives ??
      mineHardNegatives({ queryVecs: extra.queryMatrix, corpusMatrix, dim: D, positives: extra.positives.map((p) => (never.length ? [...p, ...never] : (p as number[]))), k: cfg.hardNegatives });
    allQueries = new Float32Array((Q + E) * D);
    allQueries.set(queryMatrix, 0);
    allQueries.set(extra.queryMatrix, Q * D);
    allPositives = [...positives, ...extra.positives];
    hard = [...hard, ...extraHard];
  }
  const K = 1 + cfg.hardNegatives + cfg.randomNegatives;
  const extraNever = extra?.neverNegatives ?? [];
  const negativesOf = (qi: number, rng: Rng): number[] => {
    const h = hard[qi].slice(0, cfg.hardNegatives);
    const ex = new Set<number>([...allPositives[qi], ...h]);
    if (qi >= Q) for (const r of extraNever) ex.add(r);
    return h.concat(sampleRandomNegatives(cfg.randomNegatives, N, ex, rng));
  };
  const examples: Example[] = [];
  for (const qi of split.train) for (const p of positives[qi]) examples.push({ query: qi, positive: p });
  if (examples.length === 0) throw new EoError('INVALID_ARGUMENT', 'trainNnssc: no training positives');
  const extraExamples: Example[] = [];
  for (let e = 0; e < E; e++) for (const p of extra!.positives[e]) extraExamples.push({ query: Q + e, positive: p });

  // Validation: fixed negatives (for the loss) and full-corpus MAP/MRR.
  const valRng = mulberry32(cfg.seed ^ 0x7a11);
  const valItems = split.val.flatMap((qi) => positives[qi].map((p) => ({ query: qi, positive: p, negatives: negativesOf(qi, valRng) })));
  const valIds = split.val.map((qi) => data.queries[qi].id);
  const valQrels: Qrels = new Map(split.val.map((qi) => [data.queries[qi].id, new Map(positives[qi].map((p) => [data.datasetIds[p], 1]))]));
  const valMatrix = new Float32Array(split.val.length * D);
  split.val.forEach((qi, r) => valMatrix.set(queryMatrix.subarray(qi * D, (qi + 1) * D), r * D));

  const init = initNnsscModel(D, cfg.hidden1, cfg.hidden2, cfg.seed);
  const vars = nnsscVariables(init);
  const optimizer = tf.train.adam(cfg.learningRate);
  const names = Object.keys(vars) as (keyof NnsscVariables)[];

  const evaluate = async (): Promise<{ loss: number; map: number; mrr: number } | null> => {
    if (split.val.length === 0) return null;
    let lossSum = 0;
    for (let s = 0; s < valItems.length; s += 256) {
      const chunk = valItems.slice(s, s + 256);
      const batch = makeNnsscBatch(chunk, queryMatrix, corpusMatrix, D, K);
      const l = tf.tidy(() => nnsscLossAndGrads(vars, batch, false).loss);
      lossSum += (await l.data())[0] * chunk.length;
      l.dispose();
    }
    const model = nnsscModelFromVariables(vars, D);
    // With tfjs-wasm's matMuls on MLAS, validation scores on onnxruntime too (the same graph the service runs,
    // ~10× faster than the tfjs index here); with XNNPACK ($EO_TF_MATMUL=wasm) the tfjs index, as published.
    const index =
      (onnxValidation ? await NnsscOnnxIndex.create(model, corpusMatrix, { intraOpThreads: onnxValidation }) : null) ??
      (await NnsscCorpusIndex.create(model, corpusMatrix, { queriesPerBatch: 1 }));
    try {
      const scores = await index.scoreVectors(valMatrix);
      const row = summarize('val', evaluateRun(runOf(valIds, scores, data.datasetIds), valQrels));
      return { loss: lossSum / Math.max(1, valItems.length), map: row.MAP, mrr: row.MRR };
    } finally {
      index.dispose();
    }
  };
  const scoreOf = (e: { map: number; mrr: number }) => (cfg.valMetric === 'MAP' ? e.map : cfg.valMetric === 'MRR' ? e.mrr : (e.map + e.mrr) / 2);

  const curve: NnsscEpochLog[] = [];
  const pretrainCurve: NnsscEpochLog[] = [];
  let best: { score: number; epoch: number; model: NnsscModel } | null = null;
  let stale = 0;
  let stopped: NnsscTrainResult['stoppedBecause'] = split.val.length === 0 ? 'no validation (fixed epochs)' : 'max epochs';
  const batchRng = mulberry32(cfg.seed);
  const negRng = mulberry32(cfg.seed ^ 0x0e9a);
  // The extra pairs draw from their own streams, so the main streams (and plain training) stay as they were.
  const extraRng = mulberry32(cfg.seed ^ 0xe8a7);
  const extraNegRng = mulberry32(cfg.seed ^ 0xe8a8);
  let trained = 0;
  let trainSeconds = 0;
  /** One pass over `order` in batches (Adam steps); returns the summed loss. */
  const runSteps = async (order: readonly Example[], epoch: number, rng: Rng): Promise<number> => {
    const steps = Math.ceil(order.length / cfg.batchSize);
    let lossSum = 0;
    for (let st = 0; st < steps; st++) {
      const chunk = order.slice(st * cfg.batchSize, (st + 1) * cfg.batchSize).map((e) => ({ ...e, negatives: negativesOf(e.query, rng) }));
      const batch = makeNnsscBatch(chunk, allQueries, corpusMatrix, D, K);
      const out = tf.tidy(() => {
        const g = nnsscLossAndGrads(vars, batch, true);
        const map: Record<string, tfTypes.Tensor> = {};
        for (const n of names) map[vars[n].name] = g.grads[n];
        optimizer.applyGradients(map as unknown as Parameters<typeof optimizer.applyGradients>[0]);
        return g.loss;
      });
      const l = (await out.data())[0];
      out.dispose();
      lossSum += l * chunk.length;
      trained += chunk.length;
      opts.onStep?.({ epoch, step: st + 1, steps, loss: l });
    }
    return lossSum;
  };
  try {
    let start = init;
    if (extra?.schedule === 'pretrain') {
      const epochs = extra.epochs ?? 3;
      for (let pe = 1; pe <= epochs; pe++) {
        const te = Date.now();
        const order = shuffleInPlace(extraExamples.slice(), extraRng);
        const lossSum = await runSteps(order, -pe, extraNegRng);
        trainSeconds += (Date.now() - te) / 1000;
        const ev = await evaluate();
        const log: NnsscEpochLog = {
          phase: 'pretrain', epoch: pe, trainLoss: lossSum / Math.max(1, order.length), valLoss: ev?.loss ?? null, valMAP: ev?.map ?? null, valMRR: ev?.mrr ?? null, best: false,
          seconds: (Date.now() - te) / 1000,
        };
        pretrainCurve.push(log);
        opts.onEpoch?.(log, pretrainCurve);
      }
      start = nnsscModelFromVariables(vars, D);
    }
    const e0 = await evaluate();
    if (e0) best = { score: scoreOf(e0), epoch: 0, model: start };
    const perEpoch = extra?.schedule === 'mix' ? (extra.perEpoch ?? examples.length) : 0;
    for (let epoch = 1; epoch <= cfg.maxEpochs; epoch++) {
      const te = Date.now();
      let pool = examples;
      if (extra?.schedule === 'mix') {
        const drawn = perEpoch < extraExamples.length ? shuffleInPlace(extraExamples.slice(), extraRng).slice(0, perEpoch) : extraExamples;
        pool = examples.concat(drawn);
      }
      const order = shuffleInPlace(pool.slice(), batchRng);
      const lossSum = await runSteps(order, epoch, negRng);
      trainSeconds += (Date.now() - te) / 1000;
      const ev = await evaluate();
      const log: NnsscEpochLog = {
        epoch,
        trainLoss: lossSum / order.length,
        valLoss: ev?.loss ?? null,
        valMAP: ev?.map ?? null,
        valMRR: ev?.mrr ?? null,
        best: false,
        seconds: (Date.now() - te) / 1000,
      };
      if (ev) {
        const sc = scoreOf(ev);
        if (!best || sc > best.score + cfg.minDelta) {
          best = { score: sc, epoch, model: nnsscModelFromVariables(vars, D) };
          log.best = true;
          stale = 0;
        } else stale++;
      }
      curve.push(log);
      opts.onEpoch?.(log, curve);
      if (ev && stale >= cfg.patience) {
        stopped = 'early stopping';
        break;
      }
      if (cfg.maxSeconds > 0 && (Date.now() - t0) / 1000 >= cfg.maxSeconds && epoch < cfg.maxEpochs) {
        stopped = 'time budget';
        break;
      }
    }
    const finalModel = best ? best.model : nnsscModelFromVariables(vars, D);
    const bestEpoch = best ? best.epoch : curve.length;
    if (!best && curve.length > 0) curve[curve.length - 1].best = true;
    let trainPositives = 0;
    for (const qi of split.train) trainPositives += positives[qi].length;
    return {
      bestValScore: best ? best.score : null,
      pretrainCurve,
      extraPositives: extraExamples.length,
      model: finalModel,
      config: cfg,
      curve,
      bestEpoch,
      stoppedBecause: stopped,
      backend: info.name,
      wallSeconds: (Date.now() - t0) / 1000,
      trainableParams: nnsscParamCount(finalModel),
      trainQueries: split.train.length,
      valQueries: split.val.length,
      trainPositives,
      positivesPerSecond: trainSeconds > 0 ? trained / trainSeconds : 0,
    };
  } finally {
    optimizer.dispose();
    disposeNnsscVariables(vars);
  }
}

/** Default checkpoint folder: `<repo>/checkpoints/nnssc/<name>`. */
export function defaultNnsscDir(name: string): string {
  return checkpointsDir('nnssc', name);
}

/** Context saved beside NN-SSC weights (checked when it is loaded for scoring). */
export interface NnsscCheckpointContext {
  encoderId: string;
  corpusHash: string;
  dataHash: string;
  /** The benchmark training split it was trained on (`benchmarkTrainingData`); checked by `loadOrTrainNnssc`. */
  trainingData?: TrainingData;
  /** Benchmark name / writer, for the record. */
  benchmark?: string;
  [key: string]: unknown;
}

/** Save a trained NN-SSC with its config, seed, backend, data hash, learning curve and timings (atomically). */
export function saveNnsscCheckpoint(dir: string, result: NnsscTrainResult, ctx: NnsscCheckpointContext, extraMetrics: Record<string, unknown> = {}): void {
  const { dataHash, trainingData, ...rest } = ctx;
  saveCheckpoint(dir, {
    kind: NNSSC_KIND,
    config: { ...result.config, dim: result.model.dim, ...rest },
    seed: result.config.seed,
    backend: result.backend,
    dataHash,
    ...(trainingData ? { trainingData } : {}),
    metrics: {
      curve: result.curve,
      bestEpoch: result.bestEpoch,
      stoppedBecause: result.stoppedBecause,
      wallSeconds: result.wallSeconds,
      trainableParams: result.trainableParams,
      trainQueries: result.trainQueries,
      valQueries: result.valQueries,
      trainPositives: result.trainPositives,
      positivesPerSecond: result.positivesPerSecond,
      bestValScore: result.bestValScore,
      ...(result.pretrainCurve.length > 0 ? { pretrainCurve: result.pretrainCurve } : {}),
      ...(result.extraPositives > 0 ? { extraPositives: result.extraPositives } : {}),
      ...extraMetrics,
    },
    tensors: nnsscTensors(result.model),
  });
}
