/**
 * Training of the static embedding encoder (`lib/encode/static.ts`; issue 37): MultipleNegativesRanking loss over
 * in-batch negatives (plus a hard negative per pair when the pair has one), wrapped in a Matryoshka sum over the
 * model's prefixes (each prefix re-normalised), optimised with Adam on the rows a batch touches (lazy Adam), on typed
 * arrays. Seeded: the same pairs, vocabulary, config and seed give the same table bit for bit. Resumable: with
 * `stateDir`, the table and Adam's moments are written after every epoch (`saveCheckpoint`, atomic), and a later call
 * with the same pairs and config continues after the last finished epoch.
 */
import { EoError } from '../errors';
import { checkpointExists, loadCheckpoint, saveCheckpoint } from '../store/checkpoint';
import { staticModelId, staticPoolInto, staticText, type StaticEmbeddingModel, type StaticText, type StaticVocabulary } from '../encode/static';
import { shortHash } from '../util/hash';
import type { HostMatMul } from '../tensor/wasm-matmul';
import { prefixGradientMatMul, staticKernel, STATIC_KERNELS, type StaticKernel } from './static-kernel';
import { mulberry32, shuffleInPlace } from '../util/random';

export { staticKernel, STATIC_KERNELS, type StaticKernel };

/** One training pair: a query-side text, the document-side text it should be nearest to, and optionally a hard negative. */
export interface StaticPair {
  query: string;
  doc: string;
  /** A document-side text that must score below `doc` (e.g. a BM25-mined near miss). */
  negative?: string;
  /** Where the pair came from (`title-abstract`, `train-split`, …), for counts. */
  source: string;
}

export interface StaticTrainConfig {
  /** Width of the table. Default 256. */
  dim: number;
  /** Matryoshka prefixes trained, each usable alone (must include `dim`). Default [256, 128, 64]. */
  dims: number[];
  /** Passes over the pairs. Default 3. */
  epochs: number;
  /** Pairs per batch (each pair's document is a negative of every other query in the batch). Default 256. */
  batchSize: number;
  /** Adam's learning rate. Default 0.05 (the recipe's static models train with high rates). */
  learningRate: number;
  /** Softmax temperature of the MNRL logits (cosine / τ). Default 0.05. */
  temperature: number;
  /** Standard deviation of the random initial table. Default 0.1. */
  initScale: number;
  /** Tokens read per text. Default 256. */
  maxTokens: number;
  seed: number;
  /**
   * Learning-rate schedule over the run's steps: `constant`, or `linear` (a warm-up over the first 5 % of the steps,
   * then a linear decay to 0 at the last). Default: absent, which is `constant`.
   */
  schedule?: StaticSchedule;
  /**
   * What multiplies a batch's queries with its documents: `js` (typed-array loops, float64 sums) or `mlas` (three
   * matrix products per Matryoshka prefix on onnxruntime's MLAS kernels, one thread, float32 sums: about 8× faster a
   * batch at 512 pairs; `js` where onnxruntime-node does not load, said in the result). The two differ in the last bits
   * of every step, so a model trained with one is reproducible with it, not bit-identical to the other's. Default:
   * absent, which is `js`.
   */
  kernel?: StaticKernel;
  /**
   * Models trained one after the other on the same pairs, member i with seed `staticMemberSeed(seed, i)`, and stacked
   * as one (`trainStaticEnsemble` in static-ensemble.ts, `stackStaticModels`: its cosine is the mean of theirs, its
   * table `members` times as wide). `trainStaticModel` trains one member. Default: absent, which is 1.
   */
  members?: number;
}

export const STATIC_SCHEDULES = ['constant', 'linear'] as const;
export type StaticSchedule = (typeof STATIC_SCHEDULES)[number];

export const DEFAULT_STATIC_TRAIN_CONFIG: Readonly<StaticTrainConfig> = Object.freeze({
  dim: 256, dims: [256, 128, 64], epochs: 3, batchSize: 256, learningRate: 0.05, temperature: 0.05, initScale: 0.1, maxTokens: 256, seed: 42,
});

function checkConfig(c: StaticTrainConfig): void {
  const bad = (f: string, why: string) => new EoError('CONFIG', `static training ${f} ${why}`);
  if (!(Number.isInteger(c.dim) && c.dim >= 1)) throw bad('dim', `must be an integer ≥ 1 (got ${c.dim})`);
  if (!c.dims.length || !c.dims.includes(c.dim) || c.dims.some((d) => !(Number.isInteger(d) && d >= 1 && d <= c.dim))) throw bad('dims', `must be integers in [1, dim] including dim (got [${c.dims}], dim ${c.dim})`);
  if (!(Number.isInteger(c.epochs) && c.epochs >= 1)) throw bad('epochs', `must be an integer ≥ 1 (got ${c.epochs})`);
  if (!(Number.isInteger(c.batchSize) && c.batchSize >= 2)) throw bad('batchSize', `must be an integer ≥ 2 (got ${c.batchSize})`);
  if (!(c.learningRate > 0)) throw bad('learningRate', `must be > 0 (got ${c.learningRate})`);
  if (!(c.temperature > 0)) throw bad('temperature', `must be > 0 (got ${c.temperature})`);
  if (!(c.initScale > 0)) throw bad('initScale', `must be > 0 (got ${c.initScale})`);
  if (!(Number.isInteger(c.maxTokens) && c.maxTokens >= 1)) throw bad('maxTokens', `must be an integer ≥ 1 (got ${c.maxTokens})`);
  if (c.schedule !== undefined && !STATIC_SCHEDULES.includes(c.schedule)) throw bad('schedule', `must be one of ${STATIC_SCHEDULES.join(', ')} (got ${JSON.stringify(c.schedule)})`);
  if (c.kernel !== undefined && !STATIC_KERNELS.includes(c.kernel)) throw bad('kernel', `must be one of ${STATIC_KERNELS.join(', ')} (got ${JSON.stringify(c.kernel)})`);
  if (c.members !== undefined && !(Number.isInteger(c.members) && c.members >= 1)) throw bad('members', `must be an integer ≥ 1 (got ${c.members})`);
}

/** Hash of the pairs (texts, negatives, sources) and the vocabulary: what a model trained on them records. */
export function staticPairsHash(pairs: readonly StaticPair[], vocab: StaticVocabulary): string {
  return shortHash([`vocab=${shortHash(vocab.tokens.join('\n'))}`, ...pairs.map((p) => `${p.source}\t${p.query}\t${p.doc}\t${p.negative ?? ''}`)].join('\n'));
}

/** One epoch's numbers. */
export interface StaticEpochLog {
  epoch: number;
  /** Mean MNRL loss (summed over the Matryoshka prefixes) over the epoch's batches. */
  loss: number;
  /** Share of the epoch's queries whose own document scored highest in the batch (full width). */
  inBatchAccuracy: number;
  seconds: number;
  resumed?: boolean;
  /** Which member of an ensemble (1-based; `trainStaticEnsemble`); absent for one model. */
  member?: number;
}

export interface TrainStaticOptions {
  /** Initial table (`vocab.tokens.length × dim`), e.g. another model's or a fastText skipgram's. Default: seeded N(0, initScale²). */
  init?: Float32Array;
  /** Folder of the per-epoch training state; a matching state there is resumed. Default: none (not resumable). */
  stateDir?: string;
  /** Called after every epoch. */
  onEpoch?: (log: StaticEpochLog) => void;
}

export interface StaticTrainResult {
  model: StaticEmbeddingModel;
  curve: StaticEpochLog[];
  config: StaticTrainConfig;
  dataHash: string;
  /** Pairs by source. */
  sources: Record<string, number>;
  seconds: number;
  /** The kernel that multiplied the batches (`config.kernel`, or `js` where MLAS could not load), and why when they differ; absent from the tfjs trainer's result. */
  kernel?: StaticKernel;
  kernelNote?: string;
}

const STATE_KIND = 'static-embedding-state';

/** Seeded N(0, σ²) values (Box–Muller over mulberry32). */
function gaussianTable(n: number, sigma: number, seed: number): Float32Array {
  const rng = mulberry32(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = Math.max(rng(), 1e-12);
    const v = rng();
    const r = Math.sqrt(-2 * Math.log(u)) * sigma;
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return out;
}

/** Scratch buffers of `staticBatchGradient` for batches of up to `batch` pairs (documents: up to twice that). */
export function staticBatchWork(batch: number, dim: number) {
  const q = () => new Float32Array(batch * dim);
  const d = () => new Float32Array(2 * batch * dim);
  // raw pooled (e), their gradients (g), normalised prefixes (u) and the gradients at u (gu), query and document side
  return { eq: q(), ed: d(), gq: q(), gd: d(), uq: q(), ud: d(), guq: q(), gud: d() };
}

/**
 * The Matryoshka MNRL loss of one batch and its gradient with respect to the table: query i's positive is document i,
 * every other document (the batch's others, then any hard negatives) is its negative; the loss is the mean over queries
 * of −log softmax(cos / τ), averaged over the prefixes `dims` (each re-normalised). The gradient is added into `grad`
 * (a `rows × dim` buffer) on the rows it touches, which are listed in `rows` and flagged in `touched`.
 */
export function staticBatchGradient(
  model: { table: Float32Array; dim: number; dims: readonly number[]; temperature: number }, queries: readonly StaticText[], docs: readonly StaticText[],
  grad: Float32Array, touched: Uint8Array, work = staticBatchWork(queries.length, model.dim), matMul: HostMatMul | null = null,
): { loss: number; correct: number; rows: number[] } {
  const { table, dim: D, dims, temperature } = model;
  const n = queries.length;
  const nd = docs.length;
  if (nd < n || nd > 2 * n) throw new EoError('INVALID_ARGUMENT', `staticBatchGradient: ${n} queries need ${n}..${2 * n} documents (got ${nd})`);
  const { eq, ed, gq, gd, uq, ud, guq, gud } = work;
  queries.forEach((t, r) => staticPoolInto(table, D, t, eq, r * D));
  docs.forEach((t, r) => staticPoolInto(table, D, t, ed, r * D));
  gq.fill(0, 0, n * D);
  gd.fill(0, 0, nd * D);
  const logits = new Float64Array(nd);
  let loss = 0;
  let correct = 0;
  for (const m of dims) {
    // normalise the first m components of every vector
    const norms = (src: Float32Array, dst: Float32Array, rows: number): Float64Array => {
      const out = new Float64Array(rows);
      for (let r = 0; r < rows; r++) {
        let s = 0;
        for (let j = 0; j < m; j++) s += src[r * D + j] * src[r * D + j];
        const nrm = Math.sqrt(s) || 1;
        out[r] = nrm;
        for (let j = 0; j < m; j++) dst[r * D + j] = src[r * D + j] / nrm;
      }
      return out;
    };
    const nq = norms(eq, uq, n);
    const ndn = norms(ed, ud, nd);
    guq.fill(0, 0, n * D);
    gud.fill(0, 0, nd * D);
    if (matMul) {
      const r = prefixGradientMatMul(matMul, uq, ud, guq, gud, n, nd, D, m, temperature, dims.length);
      loss += r.loss;
      correct += r.correct;
    } else for (let r = 0; r < n; r++) {
      let max = -Infinity;
      for (let k = 0; k < nd; k++) {
        let s = 0;
        for (let j = 0; j < m; j++) s += uq[r * D + j] * ud[k * D + j];
        logits[k] = s / temperature;
        if (logits[k] > max) max = logits[k];
      }
      let z = 0;
      for (let k = 0; k < nd; k++) z += Math.exp(logits[k] - max);
      loss += -(logits[r] - max - Math.log(z)) / n / dims.length;
      if (m === D) {
        let best = 0;
        for (let k = 1; k < nd; k++) if (logits[k] > logits[best]) best = k;
        if (best === r) correct++;
      }
      // dL/dcos_k = (p_k − [k = r]) / (n · |dims| · τ)
      for (let k = 0; k < nd; k++) {
        const g = (Math.exp(logits[k] - max) / z - (k === r ? 1 : 0)) / n / dims.length / temperature;
        if (g === 0) continue;
        for (let j = 0; j < m; j++) {
          guq[r * D + j] += g * ud[k * D + j];
          gud[k * D + j] += g * uq[r * D + j];
        }
      }
    }
    // back through the normalisation of the prefix: g_e = (g_u − u (u · g_u)) / |e|
    const back = (u: Float32Array, gu: Float32Array, nrm: Float64Array, ge: Float32Array, rows: number) => {
      for (let r = 0; r < rows; r++) {
        let dot = 0;
        for (let j = 0; j < m; j++) dot += u[r * D + j] * gu[r * D + j];
        for (let j = 0; j < m; j++) ge[r * D + j] += (gu[r * D + j] - u[r * D + j] * dot) / nrm[r];
      }
    };
    back(uq, guq, nq, gq, n);
    back(ud, gud, ndn, gd, nd);
  }
  // scatter into the token rows: d e / d table[t] = w_t
  const rows: number[] = [];
  const scatter = (t: StaticText, ge: Float32Array, r: number) => {
    for (let k = 0; k < t.ids.length; k++) {
      const id = t.ids[k];
      if (!touched[id]) {
        touched[id] = 1;
        rows.push(id);
      }
      const w = t.weights[k];
      const row = id * D;
      for (let j = 0; j < D; j++) grad[row + j] += w * ge[r * D + j];
    }
  };
  queries.forEach((t, r) => scatter(t, gq, r));
  docs.forEach((t, r) => scatter(t, gd, r));
  return { loss, correct, rows };
}

/** What one training run is fixed by: the checked config, the pairs as token ids, the data hash, the resumable state's key. */
export interface StaticTrainingPlan {
  config: StaticTrainConfig;
  /** Matryoshka prefixes, widest first. */
  dims: number[];
  dataHash: string;
  sources: Record<string, number>;
  q: StaticText[];
  d: StaticText[];
  neg: (StaticText | null)[];
  batchesPerEpoch: number;
  /** What a resumable state must match (the number of epochs aside: a longer run continues a shorter one). */
  stateConfig: Record<string, unknown>;
}

/** Check the config and inputs and tokenise the pairs: what both training engines (typed arrays, tfjs) start from. */
export function staticTrainingPlan(vocab: StaticVocabulary, pairs: readonly StaticPair[], config: Partial<StaticTrainConfig>, init?: Float32Array): StaticTrainingPlan {
  const c: StaticTrainConfig = { ...DEFAULT_STATIC_TRAIN_CONFIG, ...config, dims: [...(config.dims ?? DEFAULT_STATIC_TRAIN_CONFIG.dims)] };
  checkConfig(c);
  // both engines (typed arrays, tfjs) train one model; the ensemble trains its members one by one
  if ((c.members ?? 1) > 1) throw new EoError('CONFIG', `static training members: a training run trains one model (got members ${c.members}; trainStaticEnsemble trains several)`);
  if (pairs.length < 2) throw new EoError('INVALID_ARGUMENT', `trainStaticModel: needs at least 2 pairs (got ${pairs.length})`);
  const V = vocab.tokens.length;
  if (init && init.length !== V * c.dim) throw new EoError('INVALID_ARGUMENT', `trainStaticModel: init has ${init.length} values, the table needs ${V} × ${c.dim}`);
  const sources: Record<string, number> = {};
  for (const p of pairs) sources[p.source] = (sources[p.source] ?? 0) + 1;
  // a longer run continues a shorter one, unless the schedule's length depends on the number of epochs
  const { epochs: _epochs, ...withoutEpochs } = c;
  const resumeKey = (c.schedule ?? 'constant') === 'constant' ? withoutEpochs : c;
  const texts = (s: string) => staticText(vocab, s, c.maxTokens);
  return {
    config: c,
    dims: [...new Set(c.dims)].sort((a, b) => b - a),
    dataHash: staticPairsHash(pairs, vocab),
    sources,
    q: pairs.map((p) => texts(p.query)),
    d: pairs.map((p) => texts(p.doc)),
    neg: pairs.map((p) => (p.negative === undefined ? null : texts(p.negative))),
    batchesPerEpoch: Math.ceil(pairs.length / c.batchSize),
    stateConfig: { ...resumeKey, init: init ? shortHash(new Uint8Array(init.buffer, init.byteOffset, init.byteLength)) : 'gaussian' },
  };
}

/**
 * The batches of one epoch, in order: each batch's pair indices, its queries, and its document side (the batch's
 * documents, then its hard negatives). Seeded by the config's seed and the epoch; batches of fewer than 2 pairs are left out.
 */
export function staticEpochBatches(plan: StaticTrainingPlan, epoch: number): { index: number; idx: number[]; queries: StaticText[]; docs: StaticText[] }[] {
  const n = plan.q.length;
  const B = plan.config.batchSize;
  const order = shuffleInPlace(Array.from({ length: n }, (_, i) => i), mulberry32(plan.config.seed * 7919 + epoch + 1));
  const out: ReturnType<typeof staticEpochBatches> = [];
  for (let b = 0; b < plan.batchesPerEpoch; b++) {
    const idx = order.slice(b * B, Math.min(n, (b + 1) * B));
    if (idx.length < 2) continue;
    const docs: StaticText[] = idx.map((i) => plan.d[i]);
    for (const i of idx) if (plan.neg[i]) docs.push(plan.neg[i]!);
    out.push({ index: b, idx, queries: idx.map((i) => plan.q[i]), docs });
  }
  return out;
}

/** Adam's constants of the static trainer, and its bias-corrected step size at a (1-based) step. */
export const STATIC_ADAM = Object.freeze({ beta1: 0.9, beta2: 0.999, eps: 1e-8 });
export function staticAdamRate(learningRate: number, step: number): number {
  return (learningRate * Math.sqrt(1 - Math.pow(STATIC_ADAM.beta2, step))) / (1 - Math.pow(STATIC_ADAM.beta1, step));
}

/** The scheduled learning rate at a (1-based) step of a run of `totalSteps` (`StaticTrainConfig.schedule`). */
export function staticScheduledRate(config: Pick<StaticTrainConfig, 'learningRate' | 'schedule'>, step: number, totalSteps: number): number {
  if ((config.schedule ?? 'constant') === 'constant') return config.learningRate;
  const warm = Math.max(1, Math.round(0.05 * totalSteps));
  if (step <= warm) return (config.learningRate * step) / warm;
  return (config.learningRate * Math.max(0, totalSteps - step + 1)) / Math.max(1, totalSteps - warm + 1);
}

/** The table and Adam's moments of a run, and the epochs already done (0 for a fresh run). */
export interface StaticTrainingState {
  table: Float32Array;
  m1: Float32Array;
  m2: Float32Array;
  epochsDone: number;
  curve: StaticEpochLog[];
}

/** The state a run starts from: a matching resumable state in `stateDir`, else the initial table and zero moments. */
export function startStaticState(plan: StaticTrainingPlan, V: number, opts: Pick<TrainStaticOptions, 'init' | 'stateDir'>): StaticTrainingState {
  const D = plan.config.dim;
  if (opts.stateDir && checkpointExists(opts.stateDir)) {
    const s = loadCheckpoint(opts.stateDir, { kind: STATE_KIND });
    if (s.dataHash === plan.dataHash && JSON.stringify(s.config.train) === JSON.stringify(plan.stateConfig) && Number(s.config.epochsDone) <= plan.config.epochs)
      return {
        table: s.tensors.table.data, m1: s.tensors.m1.data, m2: s.tensors.m2.data, epochsDone: Number(s.config.epochsDone),
        curve: ((s.metrics?.curve as StaticEpochLog[]) ?? []).map((l) => ({ ...l, resumed: true })),
      };
  }
  const table = opts.init ? Float32Array.from(opts.init) : gaussianTable(V * D, plan.config.initScale, plan.config.seed);
  return { table, m1: new Float32Array(V * D), m2: new Float32Array(V * D), epochsDone: 0, curve: [] };
}

/** Write the resumable state after an epoch (atomic). `backend`: what trained it (`js` or `mlas`, the typed-array kernel; or the tfjs backend). */
export function saveStaticState(stateDir: string, plan: StaticTrainingPlan, state: StaticTrainingState, backend: string): void {
  const V = state.table.length / plan.config.dim;
  const shape = [V, plan.config.dim];
  saveCheckpoint(stateDir, {
    kind: STATE_KIND, config: { train: plan.stateConfig, epochsDone: state.epochsDone }, seed: plan.config.seed, backend, dataHash: plan.dataHash, metrics: { curve: state.curve },
    tensors: { table: { shape, data: state.table }, m1: { shape, data: state.m1 }, m2: { shape, data: state.m2 } },
  });
}

/**
 * Train a static embedding model on pairs: see the file's comment. Returns the model (its `id` hashes vocabulary and
 * weights), the per-epoch curve and what it was trained on. `trainStaticModelTf` (static-tf.ts) runs the same
 * training on a TensorFlow.js backend (WebGPU).
 */
export function trainStaticModel(vocab: StaticVocabulary, pairs: readonly StaticPair[], config: Partial<StaticTrainConfig> = {}, opts: TrainStaticOptions = {}): StaticTrainResult {
  const t0 = performance.now();
  const plan = staticTrainingPlan(vocab, pairs, config, opts.init);
  const c = plan.config;
  const D = c.dim;
  const V = vocab.tokens.length;
  const state = startStaticState(plan, V, opts);
  const { table, m1, m2 } = state;
  const { beta1, beta2, eps } = STATIC_ADAM;
  const grad = new Float32Array(V * D);
  const touched = new Uint8Array(V);
  const work = staticBatchWork(c.batchSize, D);
  const { matMul, kernel, kernelNote } = staticKernel(c.kernel);
  for (let epoch = state.epochsDone; epoch < c.epochs; epoch++) {
    const te = performance.now();
    let lossSum = 0;
    let correct = 0;
    for (const batch of staticEpochBatches(plan, epoch)) {
      const r = staticBatchGradient({ table, dim: D, dims: plan.dims, temperature: c.temperature }, batch.queries, batch.docs, grad, touched, work, matMul);
      lossSum += r.loss * batch.idx.length;
      correct += r.correct;
      // lazy Adam on the touched rows
      const step = epoch * plan.batchesPerEpoch + batch.index + 1;
      const lr = staticAdamRate(staticScheduledRate(c, step, c.epochs * plan.batchesPerEpoch), step);
      for (const id of r.rows) {
        const row = id * D;
        for (let j = 0; j < D; j++) {
          const g = grad[row + j];
          m1[row + j] = beta1 * m1[row + j] + (1 - beta1) * g;
          m2[row + j] = beta2 * m2[row + j] + (1 - beta2) * g * g;
          table[row + j] -= (lr * m1[row + j]) / (Math.sqrt(m2[row + j]) + eps);
          grad[row + j] = 0;
        }
        touched[id] = 0;
      }
    }
    const log: StaticEpochLog = { epoch: epoch + 1, loss: lossSum / pairs.length, inBatchAccuracy: correct / pairs.length, seconds: (performance.now() - te) / 1000 };
    state.curve.push(log);
    state.epochsDone = epoch + 1;
    // the state first, then the callback: a run stopped in the callback (or after it) resumes after this epoch
    if (opts.stateDir) saveStaticState(opts.stateDir, plan, state, kernel);
    opts.onEpoch?.(log);
  }
  const model: StaticEmbeddingModel = { vocab, dim: D, table, dims: plan.dims, id: staticModelId(vocab, table, D) };
  return { model, curve: state.curve, config: c, dataHash: plan.dataHash, sources: plan.sources, seconds: (performance.now() - t0) / 1000, kernel, ...(kernelNote ? { kernelNote } : {}) };
}
