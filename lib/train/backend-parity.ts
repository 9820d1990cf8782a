/**
 * Whether a TensorFlow.js backend trains as the CPU path does (issue 45, step 3): the static encoder's MNRL step and
 * two seeded epochs of its training against the typed-array trainer, and NN-SSC's loss and hand-written gradients
 * against tfjs' `cpu` backend, within `PARITY_TOLERANCE`. Run by `eo gpu check --parity` on the adapter found and by
 * test/webgpu-parity.test.ts. Synthetic, seeded data: a vocabulary of 400 words, texts of 0–24 tokens (one without
 * known tokens: its zero vector is normalised by 1), hard negatives on half the pairs.
 */
import { buildStaticVocabulary, staticText, type StaticVocabulary } from '../encode/static';
import { staticBatchGradient, staticBatchWork, trainStaticModel, type StaticPair } from './static';
import { staticBatchGradientTf, staticTfBatch, trainStaticModelTf } from './static-tf';
import { initNnsscModel, makeNnsscBatch, nnsscLossAndGrads, nnsscVariables, disposeNnsscVariables } from './nnssc-loss';
import { getTf, initTfBackend } from '../tensor/backend';
import type { TfBackendName } from '../tensor/types';
import { mulberry32 } from '../util/random';

/**
 * The stated tolerance (relative to the reference's largest magnitude): float32 on the backend against the typed
 * arrays' float64 sums (static) or tfjs' cpu backend (NN-SSC). Loss and gradients of one step 1e-5; the table after
 * two epochs of Adam 1e-4 (Adam divides by √v, which magnifies the rounding of small gradients).
 */
export const PARITY_TOLERANCE = Object.freeze({ step: 1e-5, trained: 1e-4 });

export interface ParityReport {
  backend: string;
  adapter?: string;
  static: { loss: number; lossRef: number; maxGradDiff: number; maxGrad: number; correct: number; correctRef: number };
  training: { curve: number[]; curveRef: number[]; maxTableDiff: number; maxTable: number; finite: boolean };
  /** `…Rows`: the batch as corpus rows gathered from a corpus tensor on this backend (trainNnssc on WebGPU). */
  nnssc: { loss: number; lossCpu: number; maxGradDiff: number; maxGrad: number; lossRows: number; maxGradDiffRows: number };
}

/** What the parity test checks of a report, as messages (none: within `PARITY_TOLERANCE`). */
export function parityProblems(r: ParityReport): string[] {
  const out: string[] = [];
  const within = (what: string, diff: number, scale: number, tol: number) => {
    if (!(diff <= tol * Math.max(1, scale))) out.push(`${what}: ${diff} > ${tol} × ${Math.max(1, scale)}`);
  };
  within('static step loss', Math.abs(r.static.loss - r.static.lossRef), Math.abs(r.static.lossRef), PARITY_TOLERANCE.step);
  within('static step gradient', r.static.maxGradDiff, r.static.maxGrad, PARITY_TOLERANCE.step);
  if (r.static.correct !== r.static.correctRef) out.push(`static in-batch hits ${r.static.correct} vs ${r.static.correctRef}`);
  if (r.training.curve.length !== r.training.curveRef.length) out.push(`training curve has ${r.training.curve.length} epochs, the reference ${r.training.curveRef.length}`);
  r.training.curve.forEach((l, i) => within(`training loss of epoch ${i + 1}`, Math.abs(l - r.training.curveRef[i]), Math.abs(r.training.curveRef[i]), PARITY_TOLERANCE.trained));
  if (!r.training.finite) out.push('trained table has a non-finite value');
  within('trained table', r.training.maxTableDiff, r.training.maxTable, PARITY_TOLERANCE.trained);
  within('NN-SSC loss', Math.abs(r.nnssc.loss - r.nnssc.lossCpu), Math.abs(r.nnssc.lossCpu), PARITY_TOLERANCE.step);
  within('NN-SSC gradients', r.nnssc.maxGradDiff, r.nnssc.maxGrad, PARITY_TOLERANCE.step);
  within('NN-SSC loss from corpus rows', Math.abs(r.nnssc.lossRows - r.nnssc.lossCpu), Math.abs(r.nnssc.lossCpu), PARITY_TOLERANCE.step);
  within('NN-SSC gradients from corpus rows', r.nnssc.maxGradDiffRows, r.nnssc.maxGrad, PARITY_TOLERANCE.step);
  return out;
}

function syntheticData(): { vocab: StaticVocabulary; pairs: StaticPair[] } {
  const rng = mulberry32(7);
  const words = Array.from({ length: 400 }, (_, i) => `w${i}`);
  const text = (topic: number, len: number) => Array.from({ length: len }, () => words[(topic * 20 + Math.floor(rng() * 40)) % words.length]).join(' ');
  const pairs: StaticPair[] = [];
  for (let i = 0; i < 96; i++) {
    const topic = Math.floor(rng() * 20);
    pairs.push({ query: text(topic, 1 + Math.floor(rng() * 8)), doc: i === 5 ? 'unknownword' : text(topic, 4 + Math.floor(rng() * 20)), negative: i % 2 ? text((topic + 1) % 20, 10) : undefined, source: 'synthetic' });
  }
  return { vocab: buildStaticVocabulary(pairs.flatMap((p) => [p.query, p.doc])), pairs };
}

function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}
/** Largest absolute difference (NaN counts as a difference: Math.max propagates it). */
function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = a.length === b.length ? 0 : Infinity;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** Run the comparisons on `backend` (started here; tfjs' cpu backend is current afterwards). */
export async function backendParity(backend: TfBackendName): Promise<ParityReport> {
  const { vocab, pairs } = syntheticData();
  const D = 16;
  const dims = [16, 8];
  const tau = 0.05;
  const V = vocab.tokens.length;
  const rng = mulberry32(11);
  const table = Float32Array.from({ length: V * D }, () => (rng() - 0.5) * 0.2);
  // one batch of 32 pairs with their hard negatives: the typed-array reference
  const batchPairs = pairs.slice(0, 32);
  const queries = batchPairs.map((p) => staticText(vocab, p.query));
  const docs = [...batchPairs.map((p) => staticText(vocab, p.doc)), ...batchPairs.filter((p) => p.negative).map((p) => staticText(vocab, p.negative!))];
  const grad = new Float32Array(V * D);
  const ref = staticBatchGradient({ table, dim: D, dims, temperature: tau }, queries, docs, grad, new Uint8Array(V), staticBatchWork(queries.length, D));
  const info = await initTfBackend({ backend, verbose: false });
  const tf = getTf();
  const batch = staticTfBatch(queries, docs);
  const t = tf.tensor2d(table, [V, D]);
  const r = staticBatchGradientTf(t, batch, dims, tau);
  const g = (await r.grad.data()) as Float32Array;
  // the reference's rows, in the batch's order
  const gRef = new Float32Array(g.length);
  batch.rows.forEach((row, l) => gRef.set(grad.subarray(row * D, (row + 1) * D), l * D));
  const stat = { loss: (await r.loss.data())[0], lossRef: ref.loss, maxGradDiff: maxDiff(g, gRef), maxGrad: maxAbs(gRef), correct: (await r.correct.data())[0], correctRef: ref.correct };
  tf.dispose([t, r.loss, r.correct, r.grad]);
  // two epochs of training from the same table
  const config = { dim: D, dims, epochs: 2, batchSize: 32, learningRate: 0.05, temperature: tau, seed: 3 };
  const js = trainStaticModel(vocab, pairs, config, { init: table });
  const onTf = await trainStaticModelTf(vocab, pairs, config, { init: table, backend });
  const training = {
    curve: onTf.curve.map((l) => l.loss), curveRef: js.curve.map((l) => l.loss), maxTableDiff: maxDiff(onTf.model.table, js.model.table), maxTable: maxAbs(js.model.table),
    finite: onTf.model.table.every(Number.isFinite),
  };
  // NN-SSC: the same batch on this backend and on tfjs' cpu backend; here also as corpus rows gathered on the device
  // (what trainNnssc does on WebGPU), padding slot included
  const nn = async (viaRows: boolean) => {
    const dim = 24;
    const model = initNnsscModel(dim, 32, 16, 5);
    const r2 = mulberry32(13);
    const Q = Float32Array.from({ length: 8 * dim }, () => r2() - 0.5);
    const C = Float32Array.from({ length: 40 * dim }, () => r2() - 0.5);
    const items = Array.from({ length: 8 }, (_, i) => ({ query: i, positive: i * 3, negatives: i === 2 ? [1, 4] : [1 + i, 10 + i, 20 + i, 30 + i] }));
    const b = makeNnsscBatch(items, Q, viaRows ? null : C, dim, 5);
    const corpus = viaRows ? tf.tensor2d(C, [40, dim]) : undefined;
    const vars = nnsscVariables(model);
    const out = nnsscLossAndGrads(vars, b, true, corpus);
    const loss = (await out.loss.data())[0];
    const grads: number[] = [];
    for (const k of Object.keys(out.grads).sort()) grads.push(...((await out.grads[k as keyof typeof out.grads].data()) as Float32Array));
    tf.dispose([out.loss, out.scores, ...Object.values(out.grads), ...(corpus ? [corpus] : [])]);
    disposeNnsscVariables(vars);
    return { loss, grads };
  };
  const here = await nn(false);
  const hereRows = await nn(true);
  await initTfBackend({ backend: 'cpu', verbose: false });
  const cpu = await nn(false);
  return {
    backend: info.name, adapter: info.adapter, static: stat, training,
    nnssc: {
      loss: here.loss, lossCpu: cpu.loss, maxGradDiff: maxDiff(here.grads, cpu.grads), maxGrad: maxAbs(cpu.grads),
      lossRows: hereRows.loss, maxGradDiffRows: maxDiff(hereRows.grads, cpu.grads),
    },
  };
}
