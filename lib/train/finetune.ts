/**
 * Fine-tuning USE-lite with MultipleNegativesRankingLoss and AdamW (paper §3.2, `finetuneUseLite`), its validation and
 * checkpoint, and the examples of a benchmark split. Its settings and shapes: finetune-config.ts.
 */
import { checkpointsDir } from '../util/paths';
import { datasetEncoderText } from '../data/text';
import type { Corpus } from '../data/types';
import type { BenchSplitView } from '../bench/types';
import { EoError } from '../errors';
import { getTf, initTfBackend, tfBackendInfo } from '../tensor/backend';
import { mulberry32, shuffleInPlace, type Rng } from '../util/random';
import { sha256 } from '../util/hash';
import type { SentenceEncoder } from '../encode/types';
import { USE_LITE_DIM, loadUseLiteModel, runUseLite, type UseLiteModel, useLiteId, useLiteTokens } from '../encode/use-lite';
import { USE_LITE_FT_KIND, disposeUseBatch, forwardUseLite, loadFinetunedUseLite, makeTrainableUseLite, prepareUseBatch, trainableWeightValues, type TrainableUseLite } from '../encode/trainable-use';
import { saveCheckpoint } from '../store/checkpoint';
import { mnrlLoss } from './mnrl';
import { batchesWithoutDuplicates, mineHardNegatives } from './negatives';
import { CPU_FINETUNE_CONFIG, type FinetuneConfig, type FinetuneExample, type FinetuneOptions, type FinetuneResult, type FinetuneStep, type FinetuneValidation } from './finetune-config';

// the names of the parts this module was split into, as before
export { CPU_FINETUNE_CONFIG, PAPER_FINETUNE_CONFIG, PAPER_FINETUNE_STATED, TINY_FINETUNE_CONFIG, type FinetuneConfig, type FinetuneExample, type FinetuneOptions, type FinetuneResult, type FinetuneStep, type FinetuneValidation } from './finetune-config';

type Tf = ReturnType<typeof getTf>;
type Tensor = ReturnType<Tf['tensor']>;
type Variable = ReturnType<Tf['variable']>;
function checkConfig(c: FinetuneConfig): void {
  const posInt = (k: keyof FinetuneConfig) => {
    const v = c[k] as number;
    if (!Number.isInteger(v) || v < 1) throw new EoError('CONFIG', `finetune config: ${k} must be a positive integer, got ${v}`);
  };
  (['epochs', 'batchSize', 'maxQueryTokens', 'maxDocTokens', 'valQueries'] as const).forEach(posInt);
  if (!Number.isInteger(c.negativesPerPair) || c.negativesPerPair < 0) throw new EoError('CONFIG', `finetune config: negativesPerPair must be ≥ 0, got ${c.negativesPerPair}`);
  if (c.maxSteps !== null) posInt('maxSteps');
  for (const k of ['lr', 'scale'] as const) if (!(c[k] > 0)) throw new EoError('CONFIG', `finetune config: ${k} must be > 0, got ${c[k]}`);
  if (!(c.warmupFraction >= 0 && c.warmupFraction < 1)) throw new EoError('CONFIG', `finetune config: warmupFraction must be in [0,1), got ${c.warmupFraction}`);
}

/** Linear warm-up then linear decay to 0 (sentence-transformers' WarmupLinear). `step` counts from 0. */
export function warmupLinearLr(step: number, total: number, peak: number, warmupFraction: number): number {
  const warm = Math.floor(total * warmupFraction);
  if (step < warm) return (peak * (step + 1)) / (warm + 1);
  return peak * Math.max(0, (total - step) / Math.max(1, total - warm));
}

interface AdamState {
  m: Tensor[];
  v: Tensor[];
  t: number;
}

/** One AdamW step (Loshchilov & Hutter: decoupled weight decay), β = (0.9, 0.999), ε = 1e-8. */
function adamwStep(tf: Tf, vars: Variable[], grads: Tensor[], st: AdamState, lr: number, wd: number): void {
  const b1 = 0.9;
  const b2 = 0.999;
  st.t++;
  const c1 = 1 - Math.pow(b1, st.t);
  const c2 = 1 - Math.pow(b2, st.t);
  vars.forEach((w, i) => {
    const g = grads[i];
    const [m, v] = tf.tidy(() => [tf.add(tf.mul(st.m[i], b1), tf.mul(g, 1 - b1)), tf.add(tf.mul(st.v[i], b2), tf.mul(tf.square(g), 1 - b2))]);
    st.m[i].dispose();
    st.v[i].dispose();
    st.m[i] = tf.keep(m);
    st.v[i] = tf.keep(v);
    tf.tidy(() => {
      const update = tf.div(tf.div(m, c1), tf.add(tf.sqrt(tf.div(v, c2)), 1e-8));
      w.assign(tf.sub(w, tf.mul(tf.add(update, tf.mul(w, wd)), lr)));
    });
  });
}

/** Embed texts with the model's current weights (no tape), unit-norm rows. */
async function embedNow(m: UseLiteModel, texts: string[], maxTokens: number, batch = 64): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += batch) out.push(...(await runUseLite(m, texts.slice(i, i + batch).map((s) => useLiteTokens(m, s, maxTokens)))));
  return out;
}

/** Validation metric: rank each distinct validation query's positives among all validation documents. */
export async function validateFinetune(m: UseLiteModel, val: FinetuneExample[], cfg: Pick<FinetuneConfig, 'maxQueryTokens' | 'maxDocTokens' | 'valQueries'>, step = 0): Promise<FinetuneValidation> {
  const byQuery = new Map<string, FinetuneExample[]>();
  for (const e of val) {
    if (!byQuery.has(e.query) && byQuery.size >= cfg.valQueries) continue;
    if (!byQuery.has(e.query)) byQuery.set(e.query, []);
    byQuery.get(e.query)!.push(e);
  }
  const docs = new Map<string | number, string>();
  for (const list of byQuery.values())
    for (const e of list) {
      docs.set(e.positiveKey, e.positive);
      e.negatives.forEach((t, i) => docs.set(e.negativeKeys[i], t));
    }
  const keys = [...docs.keys()];
  const dv = await embedNow(m, keys.map((k) => docs.get(k)!), cfg.maxDocTokens);
  const queries = [...byQuery.keys()];
  const qv = await embedNow(m, queries, cfg.maxQueryTokens);
  let mrr = 0;
  let r10 = 0;
  queries.forEach((q, qi) => {
    const pos = new Set(byQuery.get(q)![0].queryPositiveKeys);
    const scored = keys.map((k, j) => ({ k, s: dv[j].reduce((a, x, t) => a + x * qv[qi][t], 0) })).sort((a, b) => b.s - a.s);
    const first = scored.findIndex((x) => pos.has(x.k));
    if (first >= 0) mrr += 1 / (first + 1);
    const inPool = keys.filter((k) => pos.has(k)).length;
    if (inPool > 0) r10 += scored.slice(0, 10).filter((x) => pos.has(x.k)).length / inPool;
  });
  return { step, mrr: mrr / Math.max(1, queries.length), recall10: r10 / Math.max(1, queries.length), queries: queries.length, pool: keys.length };
}

function pickNegatives(e: FinetuneExample, n: number, rng: Rng): number[] {
  const idx = e.negatives.map((_, i) => i);
  // Partial Fisher–Yates: n distinct picks from the pool.
  for (let i = 0; i < Math.min(n, idx.length); i++) {
    const j = i + Math.floor(rng() * (idx.length - i));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx.slice(0, Math.min(n, idx.length));
}

/** What the steps of one fine-tuning run share. */
interface FinetuneRun {
  cfg: FinetuneConfig;
  trainable: TrainableUseLite;
  vars: Variable[];
  adam: AdamState;
  rng: Rng;
  /** Steps planned (epochs × batches, capped by maxSteps): the learning-rate schedule's length. */
  planned: number;
  /** Token ids of a text cut to `max` tokens (cached: texts repeat across steps). */
  tokens: (s: string, max: number) => number[];
}

/**
 * One MNRL step on a batch: each pair's positive plus `negativesPerPair` of its hard negatives (drawn from the run's
 * rng) as the documents, other positives of a query masked, AdamW at the scheduled rate. Returns the loss and rate.
 */
async function finetuneStep(run: FinetuneRun, batch: readonly FinetuneExample[], step: number): Promise<{ loss: number; lr: number }> {
  const tf = getTf();
  const { cfg, trainable, vars } = run;
  const docTexts = batch.map((e) => e.positive);
  const docKeys: Array<string | number> = batch.map((e) => e.positiveKey);
  for (const e of batch)
    for (const i of pickNegatives(e, cfg.negativesPerPair, run.rng)) {
      docTexts.push(e.negatives[i]);
      docKeys.push(e.negativeKeys[i]);
    }
  // Mask documents that are positives of the query (other than its own column): they are not negatives.
  const b = batch.length;
  const mask = new Float32Array(b * docKeys.length);
  batch.forEach((e, i) => {
    const pos = new Set(e.queryPositiveKeys);
    docKeys.forEach((k, j) => {
      if (j !== i && (pos.has(k) || k === e.positiveKey)) mask[i * docKeys.length + j] = 1;
    });
  });
  const lists = [...batch.map((e) => run.tokens(e.query, cfg.maxQueryTokens)), ...docTexts.map((s) => run.tokens(s, cfg.maxDocTokens))];
  const prepared = await prepareUseBatch(trainable, lists);
  const maskT = tf.tensor2d(mask, [b, docKeys.length]);
  const lr = warmupLinearLr(step, run.planned, cfg.lr, cfg.warmupFraction);
  try {
    const { value, grads } = tf.variableGrads(() => {
      const e = forwardUseLite(trainable, prepared);
      const q = tf.slice(e, [0, 0], [b, USE_LITE_DIM]);
      const d = tf.slice(e, [b, 0], [docKeys.length, USE_LITE_DIM]);
      return mnrlLoss(q, d, cfg.scale, maskT);
    }, vars);
    const loss = (await value.data())[0];
    value.dispose();
    if (!Number.isFinite(loss)) throw new EoError('ENCODER', `finetune: loss became ${loss} at step ${step}`);
    adamwStep(tf, vars, vars.map((v) => grads[v.name]), run.adam, lr, cfg.weightDecay);
    tf.dispose(grads);
    return { loss, lr };
  } finally {
    maskT.dispose();
    disposeUseBatch(prepared);
  }
}

/** Save a fine-tuning run's trainable weights with its config, seed, backend, data hash and curves (atomically). */
async function saveFinetuneCheckpoint(opts: FinetuneOptions, result: FinetuneResult): Promise<void> {
  const tensors = await trainableWeightValues(result.trainable);
  const { config: cfg, baseEncoderId, trainable, trainableWeights: names, steps, validation, stoppedBy, pairsSeen, wallSeconds } = result;
  saveCheckpoint(opts.checkpointDir!, {
    kind: USE_LITE_FT_KIND,
    config: { ...cfg, baseEncoderId, trainableParams: trainable.params, trainableWeights: names, examples: opts.examples.length, ...(opts.record ?? {}) },
    seed: cfg.seed,
    backend: result.backend,
    dataHash: opts.dataHash!,
    ...(opts.trainingData ? { trainingData: opts.trainingData } : {}),
    metrics: { steps, validation, stoppedBy, pairsSeen, wallSeconds },
    tensors,
  });
}

/**
 * Fine-tune USE-lite's own weights (the `scope` part) with MultipleNegativesRankingLoss: each step takes a batch of
 * pairs with distinct positives (`batchesWithoutDuplicates`), adds `negativesPerPair` of each pair's hard negatives,
 * scores every query against all documents of the step (in-batch + hard negatives; other positives of the same
 * query masked) and applies AdamW with linear warm-up/decay. Deterministic for a given seed on one backend.
 * Reports the backend in the result and the checkpoint.
 */
export async function finetuneUseLite(opts: FinetuneOptions): Promise<FinetuneResult> {
  const cfg: FinetuneConfig = { ...CPU_FINETUNE_CONFIG, ...(opts.config ?? {}) };
  checkConfig(cfg);
  if (opts.examples.length === 0) throw new EoError('INVALID_ARGUMENT', 'finetuneUseLite: no training examples');
  if (opts.checkpointDir && !opts.dataHash) throw new EoError('INVALID_ARGUMENT', 'finetuneUseLite: dataHash is required with checkpointDir');
  const tf = getTf();
  if (!tfBackendInfo()) await initTfBackend();
  const backend = tfBackendInfo()!.name;
  // USE-lite's graph is differentiated through tfjs-converter's synchronous `execute`, which reads shape tensors with
  // dataSync: tfjs-backend-webgpu cannot read synchronously without a browser (it reaches for OffscreenCanvas)
  if (backend === 'webgpu')
    throw new EoError('ENCODER', "fine-tuning USE-lite cannot run on the WebGPU backend in Node: tfjs-converter's graph reads shape tensors synchronously, which tfjs-backend-webgpu can only do in a browser; fine-tune on wasm (the default) or node-gpu — NN-SSC and the static encoder train on WebGPU", { backend });
  const t0 = Date.now();
  const model = opts.model ?? (await loadUseLiteModel());
  const trainable = makeTrainableUseLite(model, cfg.scope);
  const names = [...trainable.variables.keys()];
  const vars = names.map((n) => trainable.variables.get(n)!);
  const tokenCache = new Map<string, number[]>();
  const run: FinetuneRun = {
    cfg, trainable, vars,
    adam: { m: vars.map((v) => tf.zerosLike(v)), v: vars.map((v) => tf.zerosLike(v)), t: 0 },
    rng: mulberry32(cfg.seed),
    planned: Math.min(cfg.epochs * Math.ceil(opts.examples.length / cfg.batchSize), cfg.maxSteps ?? Infinity),
    tokens: (s, max) => {
      const key = `${max}\u0000${s}`;
      let t = tokenCache.get(key);
      if (!t) tokenCache.set(key, (t = useLiteTokens(model, s, max)));
      return t;
    },
  };
  const steps: FinetuneStep[] = [];
  const validation: FinetuneValidation[] = [];
  const validate = async (step: number) => {
    if (!opts.val || opts.val.length === 0) return;
    const v = await validateFinetune(model, opts.val, cfg, step);
    validation.push(v);
    opts.onValidation?.(v);
  };
  await validate(0);
  let stoppedBy: FinetuneResult['stoppedBy'] = 'schedule';
  let pairsSeen = 0;
  const tTrain = Date.now();
  try {
    outer: for (let epoch = 0; epoch < cfg.epochs; epoch++) {
      for (const batch of batchesWithoutDuplicates(opts.examples, cfg.batchSize, (e) => e.positiveKey, run.rng)) {
        if (steps.length >= run.planned) break outer;
        if (cfg.timeBudgetSec !== null && (Date.now() - tTrain) / 1000 >= cfg.timeBudgetSec) {
          stoppedBy = 'time-budget';
          break outer;
        }
        const ts = Date.now();
        const { loss, lr } = await finetuneStep(run, batch, steps.length);
        pairsSeen += batch.length;
        const s: FinetuneStep = { step: steps.length + 1, epoch: epoch + 1, loss, lr, seconds: (Date.now() - ts) / 1000 };
        steps.push(s);
        opts.onStep?.(s);
      }
      await validate(steps.length);
    }
  } finally {
    run.adam.m.forEach((t) => t.dispose());
    run.adam.v.forEach((t) => t.dispose());
  }
  if (validation.length > 0 && validation[validation.length - 1].step !== steps.length) await validate(steps.length);
  const result: FinetuneResult = {
    config: cfg, backend, baseEncoderId: useLiteId(model.modelDir), scope: cfg.scope, trainableParams: trainable.params, trainableWeights: names,
    steps, validation, stoppedBy, pairsSeen, wallSeconds: (Date.now() - t0) / 1000, trainable,
  };
  if (opts.checkpointDir) {
    await saveFinetuneCheckpoint(opts, result);
    result.checkpointDir = opts.checkpointDir;
  }
  return result;
}

/** Default checkpoint folder of a fine-tuning run: `<repo>/checkpoints/finetune/<name>` (name default `use-lite-mnrl`). */
export function defaultFinetuneDir(name = 'use-lite-mnrl'): string {
  return checkpointsDir('finetune', name);
}

/** The fine-tuned encoder of a checkpoint folder; id `use-lite-ft@<weights hash>` (see `loadFinetunedUseLite`). */
export function loadFinetunedEncoder(dir: string = defaultFinetuneDir()): Promise<SentenceEncoder> {
  return loadFinetunedUseLite({ checkpointDir: dir });
}

/** Options of `finetuneExamplesFromSplit`. */
export interface FinetuneExamplesOptions {
  corpus: Corpus;
  /** The benchmark's TRAIN split (`benchmarkSplit(bench, 'train')`). */
  split: BenchSplitView;
  /** Base-encoder embeddings of `split.queries` (row i = query i), unit norm. */
  queryVecs: Float32Array;
  /** Base-encoder corpus embeddings (corpus order), unit norm. */
  corpusMatrix: Float32Array;
  /** Default 512. */
  dim?: number;
  /** Hard negatives mined per query. Default 5 (the paper's k). */
  k?: number;
  /** Fraction of publications held out for validation. Default 0.1. */
  valFraction?: number;
  /** Seed of the hold-out. Default 42. */
  seed?: number;
  /** Dataset text (default `datasetEncoderText`). */
  text?: (i: number) => string;
}

/**
 * Training pairs from a benchmark split: one example per (query, positive dataset), hard negatives = the k
 * nearest datasets to the query in the base embedding space that are not among its positives. A seeded
 * `valFraction` of publications is held out (all their queries) for validation. Also returns the data hash
 * (corpus, split, base embeddings) that keys the checkpoint.
 */
export function finetuneExamplesFromSplit(o: FinetuneExamplesOptions): { train: FinetuneExample[]; val: FinetuneExample[]; dataHash: string } {
  const dim = o.dim ?? USE_LITE_DIM;
  const k = o.k ?? 5;
  const text = o.text ?? ((i: number) => datasetEncoderText(o.corpus.datasets[i]));
  const { queries, qrels } = o.split;
  if (o.queryVecs.length !== queries.length * dim) throw new EoError('INVALID_ARGUMENT', `finetuneExamplesFromSplit: ${o.queryVecs.length / dim} query vectors for ${queries.length} queries`);
  const positives = queries.map((q) => {
    const rel = qrels.get(q.id);
    const rows: number[] = [];
    for (const [id, g] of rel ?? []) {
      const i = o.corpus.indexById.get(id);
      if (g > 0 && i !== undefined) rows.push(i);
    }
    return rows;
  });
  const negs = mineHardNegatives({ queryVecs: o.queryVecs, corpusMatrix: o.corpusMatrix, dim, positives, k });
  const pubs = [...new Set(queries.map((q) => q.publicationId))].sort();
  shuffleInPlace(pubs, mulberry32(o.seed ?? 42));
  const valPubs = new Set(pubs.slice(0, Math.round(pubs.length * (o.valFraction ?? 0.1))));
  const train: FinetuneExample[] = [];
  const val: FinetuneExample[] = [];
  queries.forEach((q, qi) => {
    for (const p of positives[qi]) {
      const e: FinetuneExample = {
        query: q.text, positive: text(p), positiveKey: p, negatives: negs[qi].map(text), negativeKeys: negs[qi], queryPositiveKeys: positives[qi],
      };
      (valPubs.has(q.publicationId) ? val : train).push(e);
    }
  });
  const h = sha256(`${o.corpus.hash}\n${queries.map((q) => q.id).join(',')}\n${sha256(new Uint8Array(o.corpusMatrix.buffer, o.corpusMatrix.byteOffset, o.corpusMatrix.byteLength))}\nk=${k}`);
  return { train, val, dataHash: h.slice(0, 16) };
}
