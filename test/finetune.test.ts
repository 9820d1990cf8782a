import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { finetuneUseLite, isEoError } from '../lib';
import {
  loadUseLiteModel, runUseLite, makeTrainableUseLite, prepareUseBatch, forwardUseLite, disposeUseBatch,
  useLiteTokens, useLiteWeights, trainableWeightValues, embedCorpusCached, USE_LITE_DIM, type TrainableUseLite
} from '../lib/encode';
import { loadCheckpoint } from '../lib/store';
import { getTf, initTfBackend, tfBackendInfo } from '../lib/tensor';
import {
  mnrlLoss, mnrlLossReference, loadFinetunedEncoder, warmupLinearLr, TINY_FINETUNE_CONFIG, type FinetuneExample
} from '../lib/train';
import { sha256 } from '../lib/util';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'eo-ft-'));

// ---------------------------------------------------------------- loss (no model)

test('mnrlLoss equals a hand computation', async () => {
  await initTfBackend();
  const tf = getTf();
  // q1=(1,0), q2=(0,1); docs p1=(1,0), p2=(0.6,0.8), n=(0,1); scale 2.
  // query 1 logits: 2·(1, 0.6, 0) = (2, 1.2, 0) → −log softmax_1 = log(e^2 + e^1.2 + 1) − 2
  // query 2 logits: 2·(0, 0.8, 1) = (0, 1.6, 2) → −log softmax_2 = log(1 + e^1.6 + e^2) − 1.6
  const hand = (Math.log(Math.exp(2) + Math.exp(1.2) + 1) - 2 + Math.log(1 + Math.exp(1.6) + Math.exp(2)) - 1.6) / 2;
  const q = tf.tensor2d([[1, 0], [0, 1]]);
  const d = tf.tensor2d([[1, 0], [0.6, 0.8], [0, 1]]);
  const got = mnrlLoss(q, d, 2).dataSync()[0];
  assert.ok(Math.abs(got - hand) < 1e-5, `loss ${got} vs hand ${hand}`);
  assert.ok(Math.abs(mnrlLossReference([[1, 0], [0, 1]], [[1, 0], [0.6, 0.8], [0, 1]], 2) - hand) < 1e-12);
  // masking doc 3 for query 2 removes its term: log(1 + e^1.6) − 1.6
  const mask = tf.tensor2d([[0, 0, 0], [0, 0, 1]]);
  const masked = mnrlLoss(q, d, 2, mask).dataSync()[0];
  const handMasked = (Math.log(Math.exp(2) + Math.exp(1.2) + 1) - 2 + Math.log(1 + Math.exp(1.6)) - 1.6) / 2;
  assert.ok(Math.abs(masked - handMasked) < 1e-5, `masked ${masked} vs ${handMasked}`);
  tf.dispose([q, d, mask]);
});

test('warm-up then linear decay', () => {
  assert.ok(warmupLinearLr(0, 100, 1, 0.1) < warmupLinearLr(5, 100, 1, 0.1));
  assert.is(warmupLinearLr(10, 100, 1, 0.1), 1);
  assert.ok(Math.abs(warmupLinearLr(55, 100, 1, 0.1) - 0.5) < 1e-12);
  assert.is(warmupLinearLr(100, 100, 1, 0.1), 0);
});

// ---------------------------------------------------------------- the trainable graph

const TEXTS = ['sea surface temperature', 'aerosol optical depth', 'soil moisture active passive', 'ocean color chlorophyll'];
const DOCS = ['MODIS Aqua sea surface temperature daily', 'MODIS Terra aerosol level 2', 'SMAP L3 soil moisture', 'SeaWiFS chlorophyll concentration'];

function lossOf(tf: ReturnType<typeof getTf>, t: TrainableUseLite, b: Awaited<ReturnType<typeof prepareUseBatch>>) {
  const e = forwardUseLite(t, b);
  return mnrlLoss(tf.slice(e, [0, 0], [4, USE_LITE_DIM]), tf.slice(e, [4, 0], [4, USE_LITE_DIM]), 14.3);
}

test('trainable USE-lite: same outputs as the graph, non-zero gradients that match finite differences', async () => {
  const tf = getTf();
  const m = await loadUseLiteModel();
  const lists = [...TEXTS, ...DOCS].map((s) => useLiteTokens(m, s, 24));
  const ref = await runUseLite(m, lists);
  assert.is(useLiteWeights(m).length, 29);
  const t = makeTrainableUseLite(m, 'upper');
  const b = await prepareUseBatch(t, lists);
  const out = tf.tidy(() => forwardUseLite(t, b).dataSync());
  let worst = 0;
  ref.forEach((r, i) => r.forEach((v, j) => (worst = Math.max(worst, Math.abs(v - out[i * USE_LITE_DIM + j])))));
  assert.ok(worst < 1e-5, `forward differs from executeAsync by ${worst}`);

  // d loss / d (layer-1 FFN output bias): through ScatterNd/GatherNd/BatchMatMul gradients of the graph.
  const name = [...t.variables.keys()].find((n) => /Layer_1\/TransformerLayer\/FFN\/conv2\/bias/.test(n))!;
  assert.ok(name, 'layer-1 FFN bias is trainable');
  const v = t.variables.get(name)!;
  const { grads } = tf.variableGrads(() => lossOf(tf, t, b), [...t.variables.values()]);
  for (const [k, g] of Object.entries(grads)) assert.ok(tf.tidy(() => tf.norm(g).dataSync()[0]) > 0, `zero gradient for ${k}`);
  const g = grads[v.name].dataSync() as Float32Array;
  let j = 0;
  for (let i = 1; i < g.length; i++) if (Math.abs(g[i]) > Math.abs(g[j])) j = i;
  const h = 1e-2;
  const base = v.dataSync() as Float32Array;
  const at = (delta: number) => {
    const w = base.slice();
    w[j] += delta;
    v.assign(tf.tensor(w, v.shape));
    return tf.tidy(() => lossOf(tf, t, b).dataSync()[0]);
  };
  const fd = (at(h) - at(-h)) / (2 * h);
  v.assign(tf.tensor(base, v.shape));
  assert.ok(Math.abs(g[j]) > 1e-4, `gradient ${g[j]} is not clearly non-zero`);
  assert.ok(Math.abs(fd - g[j]) <= 0.05 * Math.abs(g[j]) + 1e-4, `finite difference ${fd} vs gradient ${g[j]}`);
  tf.dispose(grads);
  disposeUseBatch(b);
  m.model.dispose();
});

test('trainable USE-lite: every one of the 29 weights (embeddings included) gets a gradient', async () => {
  const tf = getTf();
  const m = await loadUseLiteModel();
  const t = makeTrainableUseLite(m, 'all');
  assert.is(t.variables.size, 29);
  assert.is(t.params, 6975744);
  const b = await prepareUseBatch(t, [...TEXTS, ...DOCS].map((s) => useLiteTokens(m, s, 16)));
  const { grads } = tf.variableGrads(() => lossOf(tf, t, b), [...t.variables.values()]);
  const zero = Object.entries(grads).filter(([, g]) => !(tf.tidy(() => tf.norm(g).dataSync()[0]) > 0));
  assert.equal(zero.map(([k]) => k), []);
  tf.dispose(grads);
  disposeUseBatch(b);
  m.model.dispose();
});

// ---------------------------------------------------------------- training

const EXAMPLES: FinetuneExample[] = TEXTS.map((q, i) => ({
  query: q, positive: DOCS[i], positiveKey: i,
  negatives: DOCS.filter((_, j) => j !== i).slice(0, 2), negativeKeys: [0, 1, 2, 3].filter((j) => j !== i).slice(0, 2),
  queryPositiveKeys: [i],
}));

async function tinyRun(dir?: string) {
  const model = await loadUseLiteModel();
  const r = await finetuneUseLite({
    examples: EXAMPLES, model, checkpointDir: dir, dataHash: 'test-data',
    config: { ...TINY_FINETUNE_CONFIG, scope: 'head', epochs: 8, batchSize: 4, maxSteps: 8, lr: 2e-3, warmupFraction: 0, seed: 7, maxDocTokens: 16 },
  });
  return { r, model };
}

test('seeded tiny run lowers the loss, is bit-for-bit reproducible, and round-trips through its checkpoint', async () => {
  const dir = tmp();
  const a = await tinyRun(dir);
  const b = await tinyRun();
  const la = a.r.steps.map((s) => s.loss);
  assert.is(la.length, 8);
  assert.ok(la[la.length - 1] < la[0] - 0.05, `loss did not fall: ${la.join(', ')}`);
  assert.equal(b.r.steps.map((s) => s.loss), la, 'same seed, same backend → same losses');
  const hash = async (r: typeof a.r) => sha256(Buffer.concat(Object.values(await trainableWeightValues(r.trainable)).map((t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))));
  assert.is(await hash(b.r), await hash(a.r), 'same seed → identical weights');
  // the backend recorded is the one that trained (our name and tfjs' own agree)
  assert.is(a.r.backend, tfBackendInfo()!.name);
  assert.is(getTf().getBackend(), tfBackendInfo()!.tfName);

  const ck = loadCheckpoint(dir, { kind: 'finetune-use-lite' });
  assert.is(ck.backend, a.r.backend);
  assert.is(ck.config.scope, 'head');
  const enc = await loadFinetunedEncoder(dir);
  assert.match(enc.id, /^use-lite-ft@[0-9a-f]{12}$/);
  const [fromCkpt] = await enc.embed([TEXTS[0]]);
  const [fromTrained] = await runUseLite(a.model, [useLiteTokens(a.model, TEXTS[0])]);
  let worst = 0;
  fromCkpt.forEach((x, i) => (worst = Math.max(worst, Math.abs(x - fromTrained[i]))));
  assert.ok(worst < 1e-6, `reloaded encoder differs by ${worst}`);
  // worker threads rebuild the same encoder from its spec (embedCorpusCached with workers, as notebook 03 does)
  const viaWorkers = await embedCorpusCached({ encoder: enc, texts: DOCS, key: 'ft-test', workers: 2, chunkSize: 2, noCache: true });
  const inline = await enc.embed(DOCS);
  inline.forEach((r, i) => r.forEach((x, j) => assert.ok(Math.abs(x - viaWorkers[i * USE_LITE_DIM + j]) < 1e-6, `worker row ${i} differs`)));
  enc.dispose();
  // a checkpoint of another kind is refused with a clear error
  try {
    await loadFinetunedEncoder(path.join(dir, 'missing'));
    assert.unreachable('missing checkpoint accepted');
  } catch (e) {
    assert.ok(isEoError(e, 'DATA_NOT_FOUND'), String(e));
  }
  a.model.model.dispose();
  b.model.model.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

test.run();
