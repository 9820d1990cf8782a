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
import { mulberry32, shuffleInPlace } from '../util/random';

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
}

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
  grad: Float32Array, touched: Uint8Array, work = staticBatchWork(queries.length, model.dim),
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
    for (let r = 0; r < n; r++) {
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

/**
 * Train a static embedding model on pairs: see the file's comment. Returns the model (its `id` hashes vocabulary and
 * weights), the per-epoch curve and what it was trained on.
 */
export function trainStaticModel(vocab: StaticVocabulary, pairs: readonly StaticPair[], config: Partial<StaticTrainConfig> = {}, opts: TrainStaticOptions = {}): StaticTrainResult {
  const c: StaticTrainConfig = { ...DEFAULT_STATIC_TRAIN_CONFIG, ...config, dims: [...(config.dims ?? DEFAULT_STATIC_TRAIN_CONFIG.dims)] };
  checkConfig(c);
  if (pairs.length < 2) throw new EoError('INVALID_ARGUMENT', `trainStaticModel: needs at least 2 pairs (got ${pairs.length})`);
  const t0 = performance.now();
  const D = c.dim;
  const V = vocab.tokens.length;
  const dims = [...new Set(c.dims)].sort((a, b) => b - a);
  const dataHash = staticPairsHash(pairs, vocab);
  const sources: Record<string, number> = {};
  for (const p of pairs) sources[p.source] = (sources[p.source] ?? 0) + 1;
  if (opts.init && opts.init.length !== V * D) throw new EoError('INVALID_ARGUMENT', `trainStaticModel: init has ${opts.init.length} values, the table needs ${V} × ${D}`);
  let table: Float32Array = opts.init ? Float32Array.from(opts.init) : gaussianTable(V * D, c.initScale, c.seed);
  let m1: Float32Array = new Float32Array(V * D);
  let m2: Float32Array = new Float32Array(V * D);
  const curve: StaticEpochLog[] = [];
  let startEpoch = 0;
  // what a resumable state must match (the number of epochs aside: a longer run continues a shorter one)
  const { epochs: _epochs, ...resumeKey } = c;
  const stateConfig = { ...resumeKey, init: opts.init ? shortHash(new Uint8Array(opts.init.buffer, opts.init.byteOffset, opts.init.byteLength)) : 'gaussian' };
  if (opts.stateDir && checkpointExists(opts.stateDir)) {
    const s = loadCheckpoint(opts.stateDir, { kind: STATE_KIND });
    if (s.dataHash === dataHash && JSON.stringify(s.config.train) === JSON.stringify(stateConfig) && Number(s.config.epochsDone) <= c.epochs) {
      table = s.tensors.table.data;
      m1 = s.tensors.m1.data;
      m2 = s.tensors.m2.data;
      startEpoch = Number(s.config.epochsDone);
      curve.push(...((s.metrics?.curve as StaticEpochLog[]) ?? []).map((l) => ({ ...l, resumed: true })));
    }
  }
  const texts = (s: string) => staticText(vocab, s, c.maxTokens);
  const q = pairs.map((p) => texts(p.query));
  const d = pairs.map((p) => texts(p.doc));
  const neg = pairs.map((p) => (p.negative === undefined ? null : texts(p.negative)));
  const B = c.batchSize;
  const batchesPerEpoch = Math.ceil(pairs.length / B);
  const beta1 = 0.9;
  const beta2 = 0.999;
  const eps = 1e-8;
  const grad = new Float32Array(V * D);
  const touched = new Uint8Array(V);
  const work = staticBatchWork(B, D);
  for (let epoch = startEpoch; epoch < c.epochs; epoch++) {
    const te = performance.now();
    const order = shuffleInPlace(pairs.map((_, i) => i), mulberry32(c.seed * 7919 + epoch + 1));
    let lossSum = 0;
    let correct = 0;
    for (let b = 0; b < batchesPerEpoch; b++) {
      const idx = order.slice(b * B, Math.min(pairs.length, (b + 1) * B));
      if (idx.length < 2) continue;
      // the document side: the batch's documents, then its hard negatives
      const docs: StaticText[] = idx.map((i) => d[i]);
      for (const i of idx) if (neg[i]) docs.push(neg[i]!);
      const r = staticBatchGradient({ table, dim: D, dims, temperature: c.temperature }, idx.map((i) => q[i]), docs, grad, touched, work);
      lossSum += r.loss * idx.length;
      correct += r.correct;
      // lazy Adam on the touched rows
      const step = epoch * batchesPerEpoch + b + 1;
      const lr = c.learningRate * Math.sqrt(1 - Math.pow(beta2, step)) / (1 - Math.pow(beta1, step));
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
    curve.push(log);
    // the state first, then the callback: a run stopped in the callback (or after it) resumes after this epoch
    if (opts.stateDir) {
      saveCheckpoint(opts.stateDir, {
        kind: STATE_KIND, config: { train: stateConfig, epochsDone: epoch + 1 }, seed: c.seed, backend: 'js', dataHash, metrics: { curve },
        tensors: { table: { shape: [V, D], data: table }, m1: { shape: [V, D], data: m1 }, m2: { shape: [V, D], data: m2 } },
      });
    }
    opts.onEpoch?.(log);
  }
  const model: StaticEmbeddingModel = { vocab, dim: D, table, dims, id: staticModelId(vocab, table, D) };
  return { model, curve, config: c, dataHash, sources, seconds: (performance.now() - t0) / 1000 };
}
