import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { trainNnssc, isEoError, type SentenceEncoder } from '../lib';
import { l2NormalizeRows } from '../lib/encode';
import {
  nnsscLogitReference, NnsscCorpusIndex, NnsscThreadedIndex, nnsscNaiveScores, loadNnsscCheckpoint,
  nnsscParamCount, nnsscScorer, type NnsscModel
} from '../lib/retrieve';
import { initTfBackend, getTf } from '../lib/tensor';
import {
  nnsscPositiveLoss, nnsscLossReference, nnsscLossAndGrads, nnsscVariables, disposeNnsscVariables,
  initNnsscModel, makeNnsscBatch, saveNnsscCheckpoint, validationSplit
} from '../lib/train';
import { mulberry32 } from '../lib/util';
import { randMatrix, randomModel } from './nnssc-fixtures';

const close = (a: number, b: number, eps: number, msg = '') => assert.ok(Math.abs(a - b) <= eps, `${msg} ${a} != ${b} (eps ${eps})`);


test.before(async () => {
  await initTfBackend({ backend: 'wasm' });
});

test('Eq. 5 loss against hand computation', () => {
  // s_p = 2, negatives 1 and 0: logaddexp(2, log(e + 1)) − 2 = log(1 + e^-1 + e^-2)
  close(nnsscPositiveLoss(2, [1, 0]), Math.log(1 + Math.exp(-1) + Math.exp(-2)), 1e-12);
  close(nnsscPositiveLoss(2, [1, 0]), 0.40760596444438, 1e-10);
  // a positive far above its negatives: loss → 0; equal scores: log(1 + |N|)
  close(nnsscPositiveLoss(50, [0, 0]), 0, 1e-12);
  close(nnsscPositiveLoss(0.3, [0.3, 0.3, 0.3]), Math.log(4), 1e-12);
  // logaddexp(a, b) − a with b = logsumexp(N), written out
  const sp = -1.5, negs = [0.5, -3, 2];
  const lseN = Math.log(negs.reduce((s, x) => s + Math.exp(x), 0));
  const logaddexp = Math.max(sp, lseN) + Math.log1p(Math.exp(-Math.abs(sp - lseN)));
  close(nnsscPositiveLoss(sp, negs), logaddexp - sp, 1e-12);
  // averaged over positives
  close(nnsscLossReference([{ positive: 2, negatives: [1, 0] }, { positive: 0.3, negatives: [0.3, 0.3, 0.3] }]), (0.40760596444438 + Math.log(4)) / 2, 1e-10);
});

test('tensor loss (with padding mask) equals the reference on the reference logits', () => {
  const tf = getTf();
  const D = 6, model = randomModel(D, 5, 4, 10);
  const corpus = l2NormalizeRows(randMatrix(12, D, 3), D);
  const queries = l2NormalizeRows(randMatrix(2, D, 4), D);
  const items = [
    { query: 0, positive: 1, negatives: [2, 3, 4] },
    { query: 1, positive: 5, negatives: [6, 7] }, // one padded slot
  ];
  const batch = makeNnsscBatch(items, queries, corpus, D, 4);
  const v = nnsscVariables(model);
  const out = tf.tidy(() => {
    const g = nnsscLossAndGrads(v, batch, false);
    return [g.loss.dataSync()[0], Array.from(g.scores.dataSync())] as const;
  });
  disposeNnsscVariables(v);
  const logit = (q: number, d: number) => nnsscLogitReference(model, queries.subarray(q * D, (q + 1) * D), corpus.subarray(d * D, (d + 1) * D));
  const ref = nnsscLossReference(items.map((it) => ({ positive: logit(it.query, it.positive), negatives: it.negatives.map((n) => logit(it.query, n)) })));
  close(out[0], ref, 1e-5, 'loss');
  close(out[1][0], logit(0, 1), 1e-5, 'logit');
});

/** A tiny network, 15 corpus rows, 3 queries and their items (the third with `lastNegatives`) from three seeds. */
function tinyProblem(seeds: [number, number, number], lastNegatives: number[]) {
  const D = 5, model = randomModel(D, 6, 4, seeds[0]);
  const corpus = l2NormalizeRows(randMatrix(15, D, seeds[1]), D);
  const queries = l2NormalizeRows(randMatrix(3, D, seeds[2]), D);
  const items = [
    { query: 0, positive: 1, negatives: [2, 3, 4] },
    { query: 1, positive: 5, negatives: [6, 7, 8] },
    { query: 2, positive: 9, negatives: lastNegatives },
  ];
  return { D, model, corpus, queries, items };
}

test('hand-written gradients equal tf.grads (autodiff) on a tiny network', () => {
  const tf = getTf();
  const { D, model, corpus, queries, items } = tinyProblem([20, 5, 6], [10, 11]);
  const batch = makeNnsscBatch(items, queries, corpus, D, 4);
  const v = nnsscVariables(model);
  const names = Object.keys(v) as (keyof typeof v)[];
  const hand = tf.tidy(() => {
    const g = nnsscLossAndGrads(v, batch, true);
    return Object.fromEntries(names.map((n) => [n, Array.from(g.grads[n].dataSync())]));
  });
  const auto = tf.tidy(() => {
    const { grads } = tf.variableGrads(() => nnsscLossAndGrads(v, batch, false).loss, names.map((n) => v[n]));
    return Object.fromEntries(names.map((n) => [n, Array.from(grads[v[n].name].dataSync())]));
  });
  disposeNnsscVariables(v);
  for (const n of names) {
    assert.is(hand[n].length, auto[n].length, n);
    hand[n].forEach((x: number, i: number) => close(x, auto[n][i], 1e-5, `${n}[${i}]`));
  }
});

test('a batch named by corpus rows, gathered from a corpus tensor (trainNnssc on WebGPU), gives the same loss and gradients, padding included', () => {
  const tf = getTf();
  const { D, model, corpus, queries, items } = tinyProblem([21, 7, 8], [10]); // the third item: two padded slots
  const byValue = makeNnsscBatch(items, queries, corpus, D, 4);
  const byRows = makeNnsscBatch(items, queries, null, D, 4);
  assert.is(byRows.d, undefined);
  assert.equal([...byRows.rows], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0]);
  assert.equal([...byRows.rows], [...byValue.rows]);
  const v = nnsscVariables(model);
  const names = Object.keys(v) as (keyof typeof v)[];
  const read = (g: ReturnType<typeof nnsscLossAndGrads>) => [g.loss.dataSync()[0], ...names.flatMap((n) => Array.from(g.grads[n].dataSync()))];
  const a = tf.tidy(() => read(nnsscLossAndGrads(v, byValue, true)));
  const c = tf.tensor2d(corpus, [15, D]);
  const b = tf.tidy(() => read(nnsscLossAndGrads(v, byRows, true, c)));
  assert.equal(b, a, 'bit-identical on one backend');
  assert.throws(() => nnsscLossAndGrads(v, byRows, true), /names corpus rows only: pass the corpus tensor/);
  c.dispose();
  disposeNnsscVariables(v);
});

test('decomposed first layer equals the naive concatenation (and the JS reference) to 1e-5', async () => {
  const D = 16, N = 300, Q = 5;
  const model = randomModel(D, 32, 24, 30);
  const corpus = l2NormalizeRows(randMatrix(N, D, 7), D);
  const queries = l2NormalizeRows(randMatrix(Q, D, 8), D);
  for (const per of [1, 3]) {
    const idx = await NnsscCorpusIndex.create(model, corpus, { queriesPerBatch: per });
    const dec = await idx.scoreVectors(queries);
    idx.dispose();
    const naive = await nnsscNaiveScores(model, corpus, queries, { queriesPerBatch: per });
    assert.is(dec.length, Q);
    for (let q = 0; q < Q; q++) {
      assert.is(dec[q].length, N);
      for (let i = 0; i < N; i++) close(dec[q][i], naive[q][i], 1e-5, `q${q} d${i}`);
      for (let i = 0; i < N; i += 37) close(dec[q][i], nnsscLogitReference(model, queries.subarray(q * D, (q + 1) * D), corpus.subarray(i * D, (i + 1) * D)), 1e-5);
    }
  }
  // sharded over 2 worker threads: the same numbers
  const th = await NnsscThreadedIndex.create(model, corpus, { threads: 2 });
  const single = await NnsscCorpusIndex.create(model, corpus);
  const a = await th.scoreVectors(queries, { chunk: 2 });
  const b = await single.scoreVectors(queries);
  th.dispose();
  single.dispose();
  for (let q = 0; q < Q; q++) assert.equal(Array.from(a[q]), Array.from(b[q]));
  // paper-sized layers too
  const big = initNnsscModel(512, 256, 256, 1);
  big.b1.fill(0.01);
  const c2 = l2NormalizeRows(randMatrix(200, 512, 9), 512);
  const q2 = l2NormalizeRows(randMatrix(2, 512, 10), 512);
  const idx = await NnsscCorpusIndex.create(big, c2);
  const dec = await idx.scoreVectors(q2);
  idx.dispose();
  const naive = await nnsscNaiveScores(big, c2, q2);
  for (let q = 0; q < 2; q++) for (let i = 0; i < 200; i++) close(dec[q][i], naive[q][i], 1e-5);
  assert.is(nnsscParamCount(big), 1024 * 256 + 256 + 256 * 256 + 256 + 256 + 1);
});

/** Tiny synthetic task: 40 queries, each close to its 2 positives among 80 datasets. */
function tinyTask() {
  const D = 8, N = 80, Q = 40;
  const corpus = l2NormalizeRows(randMatrix(N, D, 11), D);
  const rng = mulberry32(12);
  const positives: number[][] = [];
  const qm = new Float32Array(Q * D);
  for (let q = 0; q < Q; q++) {
    const a = Math.floor(rng() * N), b = (a + 1 + Math.floor(rng() * (N - 1))) % N;
    positives.push([a, b]);
    for (let j = 0; j < D; j++) qm[q * D + j] = corpus[a * D + j] + corpus[b * D + j] + (rng() - 0.5) * 0.3;
  }
  l2NormalizeRows(qm, D);
  return {
    corpusMatrix: corpus, dim: D, datasetIds: Array.from({ length: N }, (_, i) => `d${String(i).padStart(3, '0')}`),
    queries: Array.from({ length: Q }, (_, i) => ({ id: `q${i}`, group: `pub${Math.floor(i / 2)}` })), queryMatrix: qm, positives,
  };
}

test('seeded tiny training lowers the loss and is reproducible bit-for-bit on the same backend', async () => {
  const data = tinyTask();
  const cfg = { hidden1: 16, hidden2: 16, hardNegatives: 4, randomNegatives: 4, learningRate: 1e-2, batchSize: 8, seed: 7, maxEpochs: 10, patience: 100, valFraction: 0.25 };
  const a = await trainNnssc(data, cfg);
  const b = await trainNnssc(data, cfg);
  assert.is(a.backend, 'wasm');
  assert.is(a.curve.length, 10);
  assert.ok(a.curve[9].trainLoss < a.curve[0].trainLoss * 0.8, `loss ${a.curve[0].trainLoss} → ${a.curve[9].trainLoss}`);
  assert.ok(a.valQueries > 0 && a.trainQueries + a.valQueries === 40);
  assert.equal(a.curve.map((c) => c.trainLoss), b.curve.map((c) => c.trainLoss));
  assert.is(a.bestEpoch, b.bestEpoch);
  for (const k of ['w1', 'b1', 'w2', 'b2', 'w3'] as const) assert.equal(Array.from(a.model[k]), Array.from(b.model[k]), k);
  assert.is(a.model.b3, b.model.b3);
  // another seed gives other weights
  const c = await trainNnssc(data, { ...cfg, seed: 8, maxEpochs: 1 });
  assert.not.equal(Array.from(c.model.w2.slice(0, 10)), Array.from(a.model.w2.slice(0, 10)));
});

test('pipelined validation: an early stop keeps the curve and weights of validating each epoch before the next', async () => {
  const data = tinyTask();
  const cfg = { hidden1: 16, hidden2: 16, hardNegatives: 4, randomNegatives: 4, learningRate: 3e-2, batchSize: 8, seed: 7, maxEpochs: 40, patience: 2, valFraction: 0.25 };
  const stopped = await trainNnssc(data, cfg);
  assert.is(stopped.stoppedBecause, 'early stopping');
  const last = stopped.curve.length;
  assert.ok(last < cfg.maxEpochs && stopped.bestEpoch < last, `stopped at ${last}, best ${stopped.bestEpoch}`);
  // the stop comes exactly `patience` epochs after the kept one: no epoch stepped past the stop is logged
  assert.is(last - stopped.bestEpoch, cfg.patience);
  assert.equal(stopped.curve.map((c) => c.best).lastIndexOf(true) + 1, stopped.bestEpoch);
  // a run that ends at the kept epoch has the same curve up to it and the same weights
  const upToBest = await trainNnssc(data, { ...cfg, maxEpochs: stopped.bestEpoch, patience: 100 });
  assert.equal(upToBest.curve.map((c) => [c.trainLoss, c.valMAP, c.valLoss]), stopped.curve.slice(0, stopped.bestEpoch).map((c) => [c.trainLoss, c.valMAP, c.valLoss]));
  assert.is(upToBest.bestEpoch, stopped.bestEpoch);
  for (const k of ['w1', 'b1', 'w2', 'b2', 'w3'] as const) assert.equal(Array.from(stopped.model[k]), Array.from(upToBest.model[k]), k);
});

test('validation holds out whole groups; tiny inputs do not break', () => {
  const groups = ['a', 'a', 'b', 'c', 'c', 'd', 'e', 'f', 'g', 'h'];
  const s = validationSplit(groups, 0.25, 42);
  const valGroups = new Set(s.val.map((i) => groups[i]));
  for (const i of s.train) assert.not.ok(valGroups.has(groups[i]));
  assert.is(s.train.length + s.val.length, groups.length);
  assert.is(valGroups.size, 2);
  assert.equal(validationSplit(['x', 'x'], 0.5, 1).val, []);
  assert.is(validationSplit(['x', 'y'], 0.01, 1).val.length, 1);
});

test('NN-SSC checkpoint round trip gives the same scores; another encoder is refused', async () => {
  const data = tinyTask();
  const res = await trainNnssc(data, { hidden1: 8, hidden2: 8, hardNegatives: 3, randomNegatives: 3, batchSize: 16, maxEpochs: 2, learningRate: 1e-2, valFraction: 0 });
  assert.is(res.stoppedBecause, 'no validation (fixed epochs)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-nnssc-'));
  try {
    saveNnsscCheckpoint(dir, res, { encoderId: 'fake-8', corpusHash: 'c0', dataHash: 'h0' });
    const { model, checkpoint } = loadNnsscCheckpoint(dir, { dataHash: 'h0', encoderId: 'fake-8', corpusHash: 'c0' });
    assert.is(checkpoint.backend, 'wasm');
    assert.is((checkpoint.metrics as any).trainableParams, res.trainableParams);
    assert.equal(Array.from(model.w1), Array.from(res.model.w1));
    try {
      loadNnsscCheckpoint(dir, { encoderId: 'other' });
      assert.unreachable();
    } catch (e) {
      assert.ok(isEoError(e, 'CACHE_MISMATCH'), String(e));
    }
    // the scorer over a fake encoder equals the index on the same vectors
    const texts = ['alpha', 'beta'];
    const vec = (t: string) => data.queryMatrix.slice(t === 'alpha' ? 0 : 8, t === 'alpha' ? 8 : 16);
    const enc: SentenceEncoder = { id: 'fake-8', dim: 8, async embed(ts) { return ts.map(vec); }, dispose() {} };
    const scorer = nnsscScorer(enc, data.corpusMatrix, model, { noCache: true, engine: 'tfjs' });
    const s = await scorer.scoreBatch(texts);
    const idx = await NnsscCorpusIndex.create(model, data.corpusMatrix);
    const direct = await idx.scoreVectors(data.queryMatrix.slice(0, 16));
    idx.dispose();
    scorer.dispose();
    assert.equal(Array.from(s[1]), Array.from(direct[1]));
    // the default engine (onnxruntime when it loads) gives the same logits to float32 rounding
    const auto = nnsscScorer(enc, data.corpusMatrix, model, { noCache: true });
    const sa = await auto.scoreBatch(texts);
    auto.dispose();
    for (let q = 0; q < 2; q++) sa[q].forEach((x, i) => close(x, s[q][i], 1e-5, `default engine q${q} d${i}`));
    const sig = nnsscScorer(enc, data.corpusMatrix, model, { noCache: true, output: 'sigmoid' });
    const s2 = await sig.scoreBatch(texts);
    sig.dispose();
    close(s2[0][3], 1 / (1 + Math.exp(-s[0][3])), 1e-6);
    // the scorer's fingerprint (the key of stored fusion weights) names these weights: other weights, another one
    const fp = scorer.fingerprint!;
    assert.match(fp, /^nnssc\(logit\):fake-8:[0-9a-f]{16}$/);
    assert.is(nnsscScorer(enc, data.corpusMatrix, model, { noCache: true }).fingerprint, fp);
    assert.is.not(sig.fingerprint, fp, 'σ(z) output fuses differently');
    res.model.w2[0] += 1;
    assert.is.not(nnsscScorer(enc, data.corpusMatrix, res.model, { noCache: true }).fingerprint, fp);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
