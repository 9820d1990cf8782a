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
import type * as tfTypes from '@tensorflow/tfjs';
import { EoError } from '../errors';
import { evaluateRun, summarize } from '../metrics/metrics';
import type { Qrels, Run } from '../metrics/types';
import { nnsscParamCount, type NnsscModel } from '../retrieve/nnssc';
import { NnsscCorpusIndex } from '../retrieve/nnssc-index';
import { topKScoredHits } from '../retrieve/topk';
import { getTf, initTfBackend } from '../tensor/backend';
import { wasmMatMulRoute } from '../tensor/wasm-matmul';
import { NnsscOnnxIndex } from '../retrieve/nnssc-onnx';
import { mulberry32, shuffleInPlace, type Rng } from '../util/random';
import { mineHardNegatives, sampleRandomNegatives } from './negatives';
import { disposeNnsscVariables, initNnsscModel, makeNnsscBatch, nnsscLossAndGrads, nnsscModelFromVariables, nnsscVariables, type NnsscVariables } from './nnssc-loss';
import { DEFAULT_NNSSC_CONFIG, type NnsscEpochLog, type NnsscExtraPairs, type NnsscTrainConfig, type NnsscTrainData, type NnsscTrainOptions, type NnsscTrainResult, validationSplit } from './nnssc-config';

// the names of the parts this module was split into, as before
export { DEFAULT_NNSSC_CONFIG, nnsscDataHash, validationSplit, type NnsscEpochLog, type NnsscExtraPairs, type NnsscTrainConfig, type NnsscTrainData, type NnsscTrainOptions, type NnsscTrainProgress, type NnsscTrainResult } from './nnssc-config';

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

/** Refuse inconsistent shapes before any backend starts. */
function checkTrainInputs(data: NnsscTrainData, extra: NnsscExtraPairs | undefined): void {
  const { corpusMatrix, dim: D, queryMatrix, positives } = data;
  const N = corpusMatrix.length / D;
  const Q = data.queries.length;
  if (!Number.isInteger(N) || queryMatrix.length !== Q * D || positives.length !== Q)
    throw new EoError('INVALID_ARGUMENT', `trainNnssc: ${Q} queries, query matrix ${queryMatrix.length / D} rows, ${positives.length} positive lists, corpus ${N} rows`);
  if (data.datasetIds.length !== N) throw new EoError('INVALID_ARGUMENT', `trainNnssc: ${data.datasetIds.length} dataset ids for ${N} corpus rows`);
  const E = extra ? extra.positives.length : 0;
  if (extra && (extra.queryMatrix.length !== E * D || (extra.hardNegatives && extra.hardNegatives.length !== E)))
    throw new EoError('INVALID_ARGUMENT', `trainNnssc: extra pairs: ${E} positive lists, query matrix ${extra.queryMatrix.length / D} rows, ${extra.hardNegatives?.length ?? 'no'} hard-negative lists`);
  if (extra && extra.schedule !== 'pretrain' && extra.schedule !== 'mix') throw new EoError('INVALID_ARGUMENT', `trainNnssc: extra.schedule must be pretrain or mix, got ${String(extra.schedule)}`);
}

/** The training examples and how each query's negatives are drawn. */
interface TrainingPairs {
  /** Main queries (rows 0..Q−1) then the extra ones (Q..Q+E−1), so batches can hold both. */
  allQueries: Float32Array;
  /** Main training split's (query, positive) pairs. */
  examples: Example[];
  /** The extra pairs' (query, positive) pairs (query rows ≥ Q). */
  extraExamples: Example[];
  /** Slots per positive: 1 + hard + random negatives. */
  k: number;
  /** The hard negatives of query row `qi` followed by fresh random ones from `rng`. */
  negativesOf: (qi: number, rng: Rng) => number[];
}

function trainingPairs(data: NnsscTrainData, cfg: NnsscTrainConfig, train: readonly number[], opts: NnsscTrainOptions): TrainingPairs {
  const { corpusMatrix, dim: D, queryMatrix, positives } = data;
  const N = corpusMatrix.length / D;
  const Q = data.queries.length;
  const extra = opts.extra;
  const E = extra ? extra.positives.length : 0;
  let hard =
    opts.hardNegatives ??
    mineHardNegatives({ queryVecs: queryMatrix, corpusMatrix, dim: D, positives: positives as number[][], k: cfg.hardNegatives });
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
  const extraNever = extra?.neverNegatives ?? [];
  const negativesOf = (qi: number, rng: Rng): number[] => {
    const h = hard[qi].slice(0, cfg.hardNegatives);
    const ex = new Set<number>([...allPositives[qi], ...h]);
    if (qi >= Q) for (const r of extraNever) ex.add(r);
    return h.concat(sampleRandomNegatives(cfg.randomNegatives, N, ex, rng));
  };
  const examples: Example[] = [];
  for (const qi of train) for (const p of positives[qi]) examples.push({ query: qi, positive: p });
  if (examples.length === 0) throw new EoError('INVALID_ARGUMENT', 'trainNnssc: no training positives');
  const extraExamples: Example[] = [];
  for (let e = 0; e < E; e++) for (const p of extra!.positives[e]) extraExamples.push({ query: Q + e, positive: p });
  return { allQueries, examples, extraExamples, k: 1 + cfg.hardNegatives + cfg.randomNegatives, negativesOf };
}

type Validation = { loss: number; map: number; mrr: number } | null;

/**
 * A validation started on the weights of one moment: its loss is computed at once (tfjs, on those weights), its
 * full-corpus scoring runs on a snapshot of them. `overlaps`: the scoring runs on onnxruntime's worker thread, so the
 * next epoch's steps may run beside it (the trainer settles it after them); otherwise it is awaited at once.
 */
interface StartedValidation {
  /** The weights validated (a copy). */
  model: NnsscModel;
  result: Promise<Validation>;
  overlaps: boolean;
}

/** Start a validation of the current weights (null without validation queries). */
type Validate = (vars: NnsscVariables) => Promise<StartedValidation | null>;

/**
 * The validation of the held-out publications: Eq. 5 loss with fixed negatives and full-corpus MAP/MRR of the
 * current weights (null without validation queries). `onnxThreads` > 0 scores on onnxruntime with that many threads,
 * on its worker thread: the same kernels and numbers as on the calling thread, while the next epoch steps on this one
 * (half of an epoch on the static encoder is this scoring; see trainEpochs). `overlaps` says whether its validations
 * run beside the steps (the trainer then yields between steps for them).
 */
function nnsscValidator(data: NnsscTrainData, cfg: NnsscTrainConfig, val: readonly number[], pairs: TrainingPairs, onnxThreads: number, corpus: tfTypes.Tensor2D | null): { validate: Validate; overlaps: boolean } {
  const { corpusMatrix, dim: D, queryMatrix, positives } = data;
  const tf = getTf();
  const valRng = mulberry32(cfg.seed ^ 0x7a11);
  const valItems = val.flatMap((qi) => positives[qi].map((p) => ({ query: qi, positive: p, negatives: pairs.negativesOf(qi, valRng) })));
  const valIds = val.map((qi) => data.queries[qi].id);
  const valQrels: Qrels = new Map(val.map((qi) => [data.queries[qi].id, new Map(positives[qi].map((p) => [data.datasetIds[p], 1]))]));
  const valMatrix = new Float32Array(val.length * D);
  val.forEach((qi, r) => valMatrix.set(queryMatrix.subarray(qi * D, (qi + 1) * D), r * D));
  // the tfjs index would interleave its kernels with the steps' on this thread: awaited at once there
  const overlaps = val.length > 0 && onnxThreads > 0 && NnsscOnnxIndex.available();
  const scoreOn = async (model: NnsscModel, loss: number): Promise<Validation> => {
    // With tfjs-wasm's matMuls on MLAS, validation scores on onnxruntime too (the same graph the service runs,
    // ~10× faster than the tfjs index here); with XNNPACK ($EO_TF_MATMUL=wasm) the tfjs index, as published.
    const index =
      (onnxThreads ? await NnsscOnnxIndex.create(model, corpusMatrix, { intraOpThreads: onnxThreads, thread: 'worker' }) : null) ??
      (await NnsscCorpusIndex.create(model, corpusMatrix, { queriesPerBatch: 1 }));
    try {
      const scores = await index.scoreVectors(valMatrix);
      const row = summarize('val', evaluateRun(runOf(valIds, scores, data.datasetIds), valQrels));
      return { loss, map: row.MAP, mrr: row.MRR };
    } finally {
      index.dispose();
    }
  };
  const validate: Validate = async (vars) => {
    if (val.length === 0) return null;
    let lossSum = 0;
    for (let s = 0; s < valItems.length; s += 256) {
      const chunk = valItems.slice(s, s + 256);
      const batch = makeNnsscBatch(chunk, queryMatrix, corpus ? null : corpusMatrix, D, pairs.k);
      const l = tf.tidy(() => nnsscLossAndGrads(vars, batch, false, corpus ?? undefined).loss);
      lossSum += (await l.data())[0] * chunk.length;
      l.dispose();
    }
    // a copy of the weights: the next epoch's steps change the variables while the scoring runs
    const model = await nnsscModelFromVariables(vars, D);
    const result = scoreOn(model, lossSum / Math.max(1, valItems.length));
    result.catch(() => undefined); // a failure surfaces where it is settled, not as an unhandled rejection meanwhile
    return { model, result, overlaps };
  };
  return { validate, overlaps };
}

/** A started validation's result (null without validation). */
async function validationResult(v: StartedValidation | null): Promise<Validation> {
  return v ? v.result : null;
}

/** The weights, optimizer and step counters of one training run. */
interface Trainer {
  vars: NnsscVariables;
  optimizer: tfTypes.Optimizer;
  /** Positives stepped over so far. */
  trained: number;
  /** Seconds spent in steps (validation excluded). */
  trainSeconds: number;
  /** The corpus embeddings on the device (WebGPU), which batches then name by row; null: each batch uploads its rows' embeddings. */
  corpus: tfTypes.Tensor2D | null;
  /** Yield to the event loop after each step (while a validation runs on onnxruntime's worker thread beside the steps). */
  yieldEachStep: boolean;
}

/** One pass over `order` in batches (Adam steps); returns the summed loss. */
async function runSteps(t: Trainer, pairs: TrainingPairs, data: NnsscTrainData, cfg: NnsscTrainConfig, opts: NnsscTrainOptions, order: readonly Example[], epoch: number, rng: Rng): Promise<number> {
  const tf = getTf();
  const names = Object.keys(t.vars) as (keyof NnsscVariables)[];
  const steps = Math.ceil(order.length / cfg.batchSize);
  const te = Date.now();
  let lossSum = 0;
  const losses: Promise<number>[] = [];
  for (let st = 0; st < steps; st++) {
    const chunk = order.slice(st * cfg.batchSize, (st + 1) * cfg.batchSize).map((e) => ({ ...e, negatives: pairs.negativesOf(e.query, rng) }));
    const batch = makeNnsscBatch(chunk, pairs.allQueries, t.corpus ? null : data.corpusMatrix, data.dim, pairs.k);
    const out = tf.tidy(() => {
      const g = nnsscLossAndGrads(t.vars, batch, true, t.corpus ?? undefined);
      const map: Record<string, tfTypes.Tensor> = {};
      for (const n of names) map[t.vars[n].name] = g.grads[n];
      t.optimizer.applyGradients(map as unknown as Parameters<typeof t.optimizer.applyGradients>[0]);
      return g.loss;
    });
    // the loss is read without waiting for it (on WebGPU a wait here would stall the queue between steps)
    const step = st + 1;
    losses.push(out.data().then((d) => {
      out.dispose();
      opts.onStep?.({ epoch, step, steps, loss: d[0] });
      return d[0] * chunk.length;
    }));
    t.trained += chunk.length;
    // a turn of the event loop per step: a validation on onnxruntime's worker thread needs one per message it answers
    if (t.yieldEachStep) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  for (const l of await Promise.all(losses)) lossSum += l;
  t.trainSeconds += (Date.now() - te) / 1000;
  return lossSum;
}

function epochLog(epoch: number, trainLoss: number, ev: Validation, seconds: number): NnsscEpochLog {
  return { epoch, trainLoss, valLoss: ev?.loss ?? null, valMAP: ev?.map ?? null, valMRR: ev?.mrr ?? null, best: false, seconds };
}

/** What the main epochs ended with. */
interface EpochsOutcome {
  curve: NnsscEpochLog[];
  best: { score: number; epoch: number; model: NnsscModel } | null;
  stoppedBecause: NnsscTrainResult['stoppedBecause'];
}

/**
 * The main epochs from the current weights (`start`, the epoch-0 candidate): shuffle, step, validate, keep the best
 * epoch's weights; stop on patience, `maxEpochs` or the time budget (counted from `t0`).
 * Pipelined: an epoch's validation is started on a copy of its weights and settled after the next epoch's steps, so
 * on onnxruntime's worker thread it runs beside them (NN-SSC on the static encoder alone on 2 cores: 1.29 s an epoch
 * instead of 2.05; 161 s instead of 210 s in a cold `npm start`, where its first minute shares the cores with 00–02).
 * The curve, the kept epoch and its weights are those of validating each epoch before the next: a stop is decided on
 * the same scores, and the one epoch stepped past it is discarded.
 */
async function trainEpochs(t: Trainer, pairs: TrainingPairs, data: NnsscTrainData, cfg: NnsscTrainConfig, opts: NnsscTrainOptions, validate: Validate, start: NnsscModel, t0: number): Promise<EpochsOutcome> {
  const scoreOf = (e: { map: number; mrr: number }) => (cfg.valMetric === 'MAP' ? e.map : cfg.valMetric === 'MRR' ? e.mrr : (e.map + e.mrr) / 2);
  const extra = opts.extra;
  const curve: NnsscEpochLog[] = [];
  let best: EpochsOutcome['best'] = null;
  let stale = 0;
  let stopped: EpochsOutcome['stoppedBecause'] = 'no validation (fixed epochs)';
  let settledAt = Date.now();
  // The epoch whose validation is started and not yet settled (0: the starting weights), if any.
  let pending: { epoch: number; trainLoss: number; v: StartedValidation | null } | null = null;
  // Settle the pending validation: log it, keep its weights when best; true = stop here.
  const settlePending = async (): Promise<boolean> => {
    if (!pending) return false;
    const { epoch, trainLoss, v } = pending;
    pending = null;
    const ev = await validationResult(v);
    if (epoch === 0) {
      if (ev) {
        best = { score: scoreOf(ev), epoch: 0, model: start };
        stopped = 'max epochs';
      }
      settledAt = Date.now();
      return false;
    }
    const log = epochLog(epoch, trainLoss, ev, (Date.now() - settledAt) / 1000);
    settledAt = Date.now();
    if (ev) {
      const sc = scoreOf(ev);
      if (!best || sc > best.score + cfg.minDelta) {
        best = { score: sc, epoch, model: v!.model };
        log.best = true;
        stale = 0;
      } else stale++;
    }
    curve.push(log);
    opts.onEpoch?.(log, curve);
    if (ev && stale >= cfg.patience) {
      stopped = 'early stopping';
      return true;
    }
    if (cfg.maxSeconds > 0 && (Date.now() - t0) / 1000 >= cfg.maxSeconds && epoch < cfg.maxEpochs) {
      stopped = 'time budget';
      return true;
    }
    return false;
  };
  // Start a validation of the current weights as epoch `epoch`'s; settled at once unless it runs beside the next steps.
  const startValidation = async (epoch: number, trainLoss: number): Promise<boolean> => {
    const v = await validate(t.vars);
    pending = { epoch, trainLoss, v };
    return v?.overlaps ? false : settlePending();
  };
  await startValidation(0, 0);
  const batchRng = mulberry32(cfg.seed);
  const negRng = mulberry32(cfg.seed ^ 0x0e9a);
  const extraRng = mulberry32(cfg.seed ^ 0xe8a7);
  const perEpoch = extra?.schedule === 'mix' ? (extra.perEpoch ?? pairs.examples.length) : 0;
  for (let epoch = 1; epoch <= cfg.maxEpochs; epoch++) {
    let pool = pairs.examples;
    if (extra?.schedule === 'mix') {
      const drawn = perEpoch < pairs.extraExamples.length ? shuffleInPlace(pairs.extraExamples.slice(), extraRng).slice(0, perEpoch) : pairs.extraExamples;
      pool = pairs.examples.concat(drawn);
    }
    const order = shuffleInPlace(pool.slice(), batchRng);
    const lossSum = await runSteps(t, pairs, data, cfg, opts, order, epoch, negRng);
    if (await settlePending()) break; // this epoch's steps are past the stop: never validated, never kept
    if (await startValidation(epoch, lossSum / order.length)) break;
  }
  await settlePending();
  return { curve, best, stoppedBecause: stopped };
}

/** `extra` with `pretrain`: its epochs on the extra pairs alone (validated on the held-out publications). */
async function pretrainOnExtra(t: Trainer, pairs: TrainingPairs, data: NnsscTrainData, cfg: NnsscTrainConfig, opts: NnsscTrainOptions, validate: Validate): Promise<NnsscEpochLog[]> {
  // The extra pairs draw from their own streams, so the main streams (and plain training) stay as they were.
  const extraRng = mulberry32(cfg.seed ^ 0xe8a7);
  const extraNegRng = mulberry32(cfg.seed ^ 0xe8a8);
  const curve: NnsscEpochLog[] = [];
  const epochs = opts.extra?.epochs ?? 3;
  for (let pe = 1; pe <= epochs; pe++) {
    const te = Date.now();
    const order = shuffleInPlace(pairs.extraExamples.slice(), extraRng);
    const lossSum = await runSteps(t, pairs, data, cfg, opts, order, -pe, extraNegRng);
    const ev = await validationResult(await validate(t.vars));
    const log: NnsscEpochLog = { phase: 'pretrain', ...epochLog(pe, lossSum / Math.max(1, order.length), ev, (Date.now() - te) / 1000) };
    curve.push(log);
    opts.onEpoch?.(log, curve);
  }
  return curve;
}

/**
 * Train NN-SSC on frozen embeddings: Eq. 5 with `hardNegatives` KNN + `randomNegatives` random negatives per
 * positive, Adam, early stopping on the validation MAP/MRR of held-out training publications (full-corpus
 * scoring), the best epoch's weights returned. Reports the backend and wall time.
 */
export async function trainNnssc(data: NnsscTrainData, config: Partial<NnsscTrainConfig> = {}, opts: NnsscTrainOptions = {}): Promise<NnsscTrainResult> {
  const cfg: NnsscTrainConfig = { ...DEFAULT_NNSSC_CONFIG, ...config };
  const t0 = Date.now();
  checkTrainInputs(data, opts.extra);
  const info = await initTfBackend(opts.backend ? { backend: opts.backend } : {});
  const onnxValidation = info.name === 'wasm' && info.matMul === 'onnx' ? (wasmMatMulRoute()?.threads ?? 1) : 0;
  const split = validationSplit(data.queries.map((q) => q.group), cfg.valFraction, cfg.seed);
  const pairs = trainingPairs(data, cfg, split.train, opts);
  // On WebGPU the corpus goes to the device once and a step uploads row numbers (B·K), not embeddings (B·K·D floats);
  // the CPU backends keep the JavaScript copy, which there costs what a gather would
  const corpus = info.name === 'webgpu' ? getTf().tensor2d(data.corpusMatrix, [data.corpusMatrix.length / data.dim, data.dim]) : null;
  const { validate, overlaps } = nnsscValidator(data, cfg, split.val, pairs, onnxValidation, corpus);
  const init = initNnsscModel(data.dim, cfg.hidden1, cfg.hidden2, cfg.seed);
  const t: Trainer = { vars: nnsscVariables(init), optimizer: getTf().train.adam(cfg.learningRate), trained: 0, trainSeconds: 0, corpus, yieldEachStep: overlaps };
  try {
    const pretrainCurve = opts.extra?.schedule === 'pretrain' ? await pretrainOnExtra(t, pairs, data, cfg, opts, validate) : [];
    const start = opts.extra?.schedule === 'pretrain' ? await nnsscModelFromVariables(t.vars, data.dim) : init;
    const { curve, best, stoppedBecause } = await trainEpochs(t, pairs, data, cfg, opts, validate, start, t0);
    const finalModel = best ? best.model : await nnsscModelFromVariables(t.vars, data.dim);
    if (!best && curve.length > 0) curve[curve.length - 1].best = true;
    let trainPositives = 0;
    for (const qi of split.train) trainPositives += data.positives[qi].length;
    return {
      bestValScore: best ? best.score : null,
      pretrainCurve,
      extraPositives: pairs.extraExamples.length,
      model: finalModel,
      config: cfg,
      curve,
      bestEpoch: best ? best.epoch : curve.length,
      stoppedBecause,
      backend: info.name,
      wallSeconds: (Date.now() - t0) / 1000,
      trainableParams: nnsscParamCount(finalModel),
      trainQueries: split.train.length,
      valQueries: split.val.length,
      trainPositives,
      positivesPerSecond: t.trainSeconds > 0 ? t.trained / t.trainSeconds : 0,
    };
  } finally {
    t.optimizer.dispose();
    disposeNnsscVariables(t.vars);
    corpus?.dispose();
  }
}
