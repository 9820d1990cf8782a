/**
 * The static encoder's training (static.ts) on a TensorFlow.js backend, for WebGPU (issue 45, step 3): the same
 * seeded batches, the same Matryoshka MNRL loss and the same lazy Adam, with the table and Adam's moments kept on the
 * device. One step uploads only the batch (its table rows, token slots and weights) and reads nothing back: the loss
 * and the in-batch hits stay on the device and are read once per epoch.
 *
 * Written for what Dawn runs correctly (`../shared/notes/gpu-facts.md`): the lookup is a gather on axis 0 of the
 * batch's own rows, whose gradient is a float `UnsortedSegmentSum` (no int32 transpose: tfjs-backend-webgpu 4.22
 * emits WGSL that Dawn rejects when it transposes an int32 tensor such as `oneHot`'s, and the result is silently
 * zero); the positive's logit is read through a float32 identity, not a one-hot of int32 indices; a text without
 * known tokens is normalised by 1, as the typed-array trainer does (a mask from the batch: no comparison on the
 * gradient's path, no NaN in the square root's). `test/webgpu-parity.test.ts` compares loss and gradients with
 * `staticBatchGradient` on the CPU backend and, where an adapter exists, on WebGPU.
 */
import type * as tfTypes from '@tensorflow/tfjs';
import { EoError } from '../errors';
import { staticModelId, type StaticEmbeddingModel, type StaticText, type StaticVocabulary } from '../encode/static';
import { registerUseLiteGradients } from '../encode/use-gradients';
import { getTf, initTfBackend, variableOf } from '../tensor/backend';
import type { TfBackendName } from '../tensor/types';
import {
  saveStaticState, STATIC_ADAM, staticAdamRate, staticEpochBatches, staticScheduledRate, staticTrainingPlan, startStaticState,
  type StaticEpochLog, type StaticPair, type StaticTrainConfig, type StaticTrainResult, type TrainStaticOptions,
} from './static';

/**
 * One batch in flat buffers: the table rows it touches (`rows`, each once, in first-seen order), and per text (the
 * queries, then the document side) its `slots` token positions as local indexes into `rows` with their pooling
 * weights (padding: index 0, weight 0).
 */
export interface StaticTfBatch {
  rows: Int32Array;
  /** texts × slots local row indexes. */
  local: Int32Array;
  /** texts × slots pooling weights (a text's weights sum to 1; 0 on padding). */
  weights: Float32Array;
  /** Per text, 1 when it has no known token (its zero vector is normalised by 1, as the typed-array trainer does), else 0. */
  empty: Float32Array;
  queries: number;
  docs: number;
  slots: number;
}

/** Lay out one batch for `staticBatchLossTf` (see `StaticTfBatch`). */
export function staticTfBatch(queries: readonly StaticText[], docs: readonly StaticText[]): StaticTfBatch {
  const texts = [...queries, ...docs];
  const slots = Math.max(1, ...texts.map((t) => t.ids.length));
  const localOf = new Map<number, number>();
  const rows: number[] = [];
  const local = new Int32Array(texts.length * slots);
  const weights = new Float32Array(texts.length * slots);
  texts.forEach((t, r) => {
    for (let k = 0; k < t.ids.length; k++) {
      let l = localOf.get(t.ids[k]);
      if (l === undefined) {
        l = rows.length;
        localOf.set(t.ids[k], l);
        rows.push(t.ids[k]);
      }
      local[r * slots + k] = l;
      weights[r * slots + k] = t.weights[k];
    }
  });
  const empty = Float32Array.from(texts, (t) => (t.ids.length === 0 ? 1 : 0));
  return { rows: Int32Array.from(rows.length ? rows : [0]), local, weights, empty, queries: queries.length, docs: docs.length, slots };
}

/** The batch's index and weight tensors (dispose them, or build them inside a tidy). */
export function staticTfInputs(batch: StaticTfBatch): { rows: tfTypes.Tensor1D; local: tfTypes.Tensor2D; weights: tfTypes.Tensor2D; empty: tfTypes.Tensor2D } {
  const tf = getTf();
  const n = batch.queries + batch.docs;
  return {
    rows: tf.tensor1d(batch.rows, 'int32'), local: tf.tensor2d(batch.local, [n, batch.slots], 'int32'), weights: tf.tensor2d(batch.weights, [n, batch.slots]),
    empty: tf.tensor2d(batch.empty, [n, 1]),
  };
}

/**
 * The Matryoshka MNRL loss of one batch from its own table rows `sub` (`rows × dim`), as `staticBatchGradient`
 * computes it: mean over queries of −log softmax(cos / τ), averaged over the prefixes `dims`. Differentiable in
 * `sub`. Also returns how many queries ranked their own document first at full width (not differentiable).
 */
export function staticBatchLossTf(
  sub: tfTypes.Tensor2D, inputs: { local: tfTypes.Tensor2D; weights: tfTypes.Tensor2D; empty: tfTypes.Tensor2D }, batch: Pick<StaticTfBatch, 'queries' | 'docs' | 'slots'>,
  dims: readonly number[], temperature: number,
): { loss: tfTypes.Scalar; correct: tfTypes.Scalar } {
  const tf = getTf();
  const n = batch.queries;
  const D = sub.shape[1];
  // pooled = Σ_k w_k · sub[local_k] per text: [texts, D]
  const pooled = tf.sum(tf.mul(tf.gather(sub, inputs.local), tf.expandDims(inputs.weights, 2)), 1) as tfTypes.Tensor2D;
  // float32 identity, not a one-hot of int32 indices (see the file's comment)
  const diagonal = tf.eye(n, batch.docs);
  let loss = tf.scalar(0);
  let correct = tf.scalar(0);
  for (const m of dims) {
    const prefix = m === D ? pooled : (tf.slice(pooled, [0, 0], [-1, m]) as tfTypes.Tensor2D);
    const sq = tf.sum(tf.square(prefix), 1, true);
    const norm = tf.sqrt(tf.add(sq, inputs.empty));
    const u = tf.div(prefix, norm) as tfTypes.Tensor2D;
    const uq = tf.slice(u, [0, 0], [n, -1]) as tfTypes.Tensor2D;
    const ud = tf.slice(u, [n, 0], [batch.docs, -1]) as tfTypes.Tensor2D;
    const logits = tf.div(tf.matMul(uq, ud, false, true), temperature) as tfTypes.Tensor2D;
    const own = tf.sum(tf.mul(logits, diagonal), 1);
    loss = tf.add(loss, tf.mean(tf.sub(tf.logSumExp(logits, 1), own)));
    if (m === D) correct = tf.sum(tf.cast(tf.greaterEqual(own, tf.max(logits, 1)), 'float32'));
  }
  return { loss: tf.div(loss, dims.length) as tfTypes.Scalar, correct: correct as tfTypes.Scalar };
}

/** The loss of one batch and its gradient with respect to the batch's rows (`rows × dim`), from the full table. */
export function staticBatchGradientTf(
  table: tfTypes.Tensor2D, batch: StaticTfBatch, dims: readonly number[], temperature: number,
): { loss: tfTypes.Scalar; correct: tfTypes.Scalar; grad: tfTypes.Tensor2D } {
  const tf = getTf();
  // the lookup's gradient is an UnsortedSegmentSum, which tfjs-wasm lacks: there the rows are summed in JavaScript
  if (!tf.getKernel('UnsortedSegmentSum', tf.getBackend())) registerUseLiteGradients();
  return tf.tidy(() => {
    const inputs = staticTfInputs(batch);
    const sub = tf.gather(table, inputs.rows) as tfTypes.Tensor2D;
    // the hits come out of the differentiated function kept (so that valueAndGrad's scope leaves them); a kept tensor
    // is never freed by a tidy, so the caller gets a plain copy and the kept one goes now
    let kept: tfTypes.Scalar | null = null;
    const { value, grad } = tf.valueAndGrad((s: tfTypes.Tensor) => {
      const r = staticBatchLossTf(s as tfTypes.Tensor2D, inputs, batch, dims, temperature);
      kept = tf.keep(r.correct);
      return r.loss;
    })(sub);
    const correct = tf.clone(kept!);
    kept!.dispose();
    return { loss: value as tfTypes.Scalar, correct, grad: grad as tfTypes.Tensor2D };
  });
}

export interface TrainStaticTfOptions extends TrainStaticOptions {
  /** The TensorFlow.js backend (`webgpu`, `wasm`, `cpu`). Default: $EO_TF_BACKEND or the automatic choice (initTfBackend). */
  backend?: TfBackendName;
}

/**
 * `trainStaticModel` on a TensorFlow.js backend: the same plan (seeded batches), the same loss, the same lazy Adam,
 * the same resumable state; float32 throughout where the typed-array trainer sums in float64, so the two agree
 * within a tolerance, not bit for bit (the parity test states it).
 */
export async function trainStaticModelTf(vocab: StaticVocabulary, pairs: readonly StaticPair[], config: Partial<StaticTrainConfig> = {}, opts: TrainStaticTfOptions = {}): Promise<StaticTrainResult & { backend: string }> {
  const t0 = performance.now();
  const plan = staticTrainingPlan(vocab, pairs, config, opts.init);
  const c: StaticTrainConfig = plan.config;
  const D = c.dim;
  const V = vocab.tokens.length;
  const info = await initTfBackend(opts.backend ? { backend: opts.backend } : {});
  const tf = getTf();
  const state = startStaticState(plan, V, opts);
  const table = variableOf<tfTypes.Rank.R2>(state.table, [V, D]);
  const m1 = variableOf<tfTypes.Rank.R2>(state.m1, [V, D]);
  const m2 = variableOf<tfTypes.Rank.R2>(state.m2, [V, D]);
  const { beta1, beta2, eps } = STATIC_ADAM;
  try {
    for (let epoch = state.epochsDone; epoch < c.epochs; epoch++) {
      const te = performance.now();
      let lossSum = tf.scalar(0);
      let correctSum = tf.scalar(0);
      for (const b of staticEpochBatches(plan, epoch)) {
        const batch = staticTfBatch(b.queries, b.docs);
        const step = epoch * plan.batchesPerEpoch + b.index + 1;
        const lr = staticAdamRate(staticScheduledRate(c, step, c.epochs * plan.batchesPerEpoch), step);
        const [nextLoss, nextCorrect] = tf.tidy(() => {
          const r = staticBatchGradientTf(table, batch, plan.dims, c.temperature);
          // lazy Adam on the batch's rows, on the device
          const rows = tf.tensor1d(batch.rows, 'int32');
          const at = tf.expandDims(rows, 1);
          const m1r = tf.add(tf.mul(tf.gather(m1, rows), beta1), tf.mul(r.grad, 1 - beta1));
          const m2r = tf.add(tf.mul(tf.gather(m2, rows), beta2), tf.mul(tf.square(r.grad), 1 - beta2));
          const step = tf.div(tf.mul(m1r, lr), tf.add(tf.sqrt(m2r), eps));
          table.assign(tf.tensorScatterUpdate(table, at, tf.sub(tf.gather(table, rows), step)));
          m1.assign(tf.tensorScatterUpdate(m1, at, m1r));
          m2.assign(tf.tensorScatterUpdate(m2, at, m2r));
          return [tf.add(lossSum, tf.mul(r.loss, b.idx.length)), tf.add(correctSum, r.correct)];
        });
        lossSum.dispose();
        correctSum.dispose();
        lossSum = nextLoss as tfTypes.Scalar;
        correctSum = nextCorrect as tfTypes.Scalar;
      }
      const [loss, correct] = [(await lossSum.data())[0], (await correctSum.data())[0]];
      lossSum.dispose();
      correctSum.dispose();
      if (!Number.isFinite(loss)) throw new EoError('ENCODER', `static training on ${info.name}: the loss of epoch ${epoch + 1} is ${loss} (a kernel this backend runs wrongly?)`, { backend: info.name, epoch: epoch + 1 });
      const log: StaticEpochLog = { epoch: epoch + 1, loss: loss / pairs.length, inBatchAccuracy: correct / pairs.length, seconds: (performance.now() - te) / 1000 };
      state.curve.push(log);
      state.epochsDone = epoch + 1;
      if (opts.stateDir) {
        // (await: WebGPU in Node cannot read synchronously)
        state.table = (await table.data()) as Float32Array;
        state.m1 = (await m1.data()) as Float32Array;
        state.m2 = (await m2.data()) as Float32Array;
        saveStaticState(opts.stateDir, plan, state, info.name);
      }
      opts.onEpoch?.(log);
    }
    const out = Float32Array.from((await table.data()) as Float32Array);
    const model: StaticEmbeddingModel = { vocab, dim: D, table: out, dims: plan.dims, id: staticModelId(vocab, out, D) };
    return { model, curve: state.curve, config: c, dataHash: plan.dataHash, sources: plan.sources, seconds: (performance.now() - t0) / 1000, backend: info.name };
  } finally {
    table.dispose();
    m1.dispose();
    m2.dispose();
  }
}
