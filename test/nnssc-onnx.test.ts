import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isEoError, type SentenceEncoder } from '../lib';
import { l2NormalizeRows } from '../lib/encode';
import {
  nnsscLogitReference, nnsscScorer, nnsscTwoStageScores, NnsscCorpusIndex, NnsscOnnxIndex, openNnsscIndex,
  twoStageCandidates, type CorpusScorer
} from '../lib/retrieve';
import { initTfBackend } from '../lib/tensor';
import { encodeOnnxModel, loadOnnxRuntime, ONNX_FLOAT } from '../lib/tensor';
import { randMatrix, randomModel } from './nnssc-fixtures';

const close = (a: number, b: number, eps: number, msg = '') => assert.ok(Math.abs(a - b) <= eps, `${msg} ${a} != ${b} (eps ${eps})`);


const D = 16, N = 300, Q = 4;
const model = randomModel(D, 32, 24, 30);
const corpus = l2NormalizeRows(randMatrix(N, D, 7), D);
const queries = l2NormalizeRows(randMatrix(Q, D, 8), D);

test.before(async () => {
  await initTfBackend({ backend: 'wasm' });
});

test('encodeOnnxModel: a hand-encoded MatMul + Add graph runs on onnxruntime and computes x·W + b', async () => {
  const ort = loadOnnxRuntime();
  assert.ok(ort, 'onnxruntime-node loads (its CPU binaries ship in the package)');
  const w = new Float32Array([1, 2, 3, 4, 5, 6]); // [3, 2]
  const b = new Float32Array([0.5, -1]);
  const bytes = encodeOnnxModel({
    name: 'affine',
    nodes: [
      { opType: 'MatMul', inputs: ['x', 'w'], outputs: ['xw'] },
      { opType: 'Add', inputs: ['xw', 'b'], outputs: ['y'] },
    ],
    initializers: [{ name: 'w', dims: [3, 2], data: w }, { name: 'b', dims: [2], data: b }],
    inputs: [{ name: 'x', elemType: ONNX_FLOAT, shape: ['n', 3] }],
    outputs: [{ name: 'y', elemType: ONNX_FLOAT, shape: ['n', 2] }],
  });
  const s = await ort!.InferenceSession.create(bytes);
  const out = await s.run({ x: new ort!.Tensor('float32', new Float32Array([1, 0, 0, 1, 1, 1]), [2, 3]) });
  assert.equal(out.y.dims, [2, 2]);
  assert.equal(Array.from(out.y.data as Float32Array), [1.5, 1, 9.5, 11]);
  await s.release();
  assert.throws(() => encodeOnnxModel({ name: 'bad', nodes: [], initializers: [{ name: 'w', dims: [2, 2], data: w }], inputs: [], outputs: [] }), /dims 2×2 hold 4 values, data has 6/);
});

test('NnsscOnnxIndex: the same logits as the tfjs index and the JS reference (1e-5), for 1 and 2 threads', async () => {
  const tfIdx = await NnsscCorpusIndex.create(model, corpus);
  const ref = await tfIdx.scoreVectors(queries);
  tfIdx.dispose();
  for (const threads of [1, 2]) {
    const idx = (await NnsscOnnxIndex.create(model, corpus, { intraOpThreads: threads, queriesPerBatch: 3 }))!;
    assert.is(idx.backend, 'onnxruntime-cpu');
    assert.is(idx.size, N);
    const got = await idx.scoreVectors(queries);
    assert.is(got.length, Q);
    for (let q = 0; q < Q; q++) {
      assert.is(got[q].length, N);
      for (let i = 0; i < N; i++) close(got[q][i], ref[q][i], 1e-5, `threads ${threads} q${q} d${i}`);
      for (let i = 0; i < N; i += 41) close(got[q][i], nnsscLogitReference(model, queries.subarray(q * D, (q + 1) * D), corpus.subarray(i * D, (i + 1) * D)), 1e-5);
    }
    // a subset of rows scores exactly as those rows of the full pass
    const rows = [299, 0, 17, 17, 150];
    const sub = await idx.scoreRows(queries.subarray(D, 2 * D), rows);
    rows.forEach((r, k) => close(sub[k], got[1][r], 1e-6, `row ${r}`));
    assert.equal(Array.from(await idx.scoreRows(queries.subarray(0, D), [])), []);
    // several queries' rows in one run: each query's logits as its own full pass (and as scoreRows one by one)
    const lists = [[3, 1, 4], [], [299, 0, 17], [5, 9, 2, 6, 5]];
    const many = await idx.scoreRowsMany(queries.subarray(0, lists.length * D), lists);
    assert.is(many.length, lists.length);
    lists.forEach((l, q) => {
      assert.is(many[q].length, l.length);
      l.forEach((r, k) => close(many[q][k], got[q][r], 1e-6, `query ${q} row ${r}`));
    });
    await idx.scoreRowsMany(queries.subarray(0, D), [[1], [2]]).then(() => assert.unreachable('2 lists for 1 query'), (e) => assert.ok(isEoError(e, 'INVALID_ARGUMENT')));
    try {
      await idx.scoreRows(queries.subarray(0, D), [N]);
      assert.unreachable();
    } catch (e) {
      assert.ok(isEoError(e, 'INVALID_ARGUMENT') && /outside the corpus/.test(String(e)), String(e));
    }
    idx.dispose();
    try {
      await idx.scoreVectors(queries);
      assert.unreachable();
    } catch (e) {
      assert.ok(isEoError(e, 'INVALID_ARGUMENT'), String(e));
    }
  }
});

test('openNnsscIndex: onnx by default, tfjs on request; the tfjs index scores subsets too', async () => {
  const auto = await openNnsscIndex(model, corpus);
  assert.is(auto.backend, 'onnxruntime-cpu');
  const tf = await openNnsscIndex(model, corpus, { engine: 'tfjs' });
  assert.is(tf.backend, 'wasm');
  const rows = [3, 250, 9];
  const a = await auto.scoreRows(queries.subarray(0, D), rows);
  const b = await tf.scoreRows(queries.subarray(0, D), rows);
  const full = (await tf.scoreVectors(queries.subarray(0, D)))[0];
  rows.forEach((r, k) => {
    close(a[k], b[k], 1e-5);
    close(b[k], full[r], 1e-6);
  });
  auto.dispose();
  tf.dispose();
  const th = await openNnsscIndex(model, corpus, { engine: 'tfjs', threads: 2 });
  close((await th.scoreRows(queries.subarray(0, D), [5]))[0], full[5], 1e-6);
  th.dispose();
});

test('twoStageCandidates: the union of each first stage\'s top M, ascending', () => {
  const bm25 = [5, 1, 9, 0, 3, 7];
  const cos = [0.1, 0.9, 0.2, 0.8, 0.3, 0.0];
  assert.equal(Array.from(twoStageCandidates([bm25, cos], 2)), [1, 2, 3, 5]);
  assert.equal(Array.from(twoStageCandidates([bm25, cos], 1)), [1, 2]);
  assert.equal(Array.from(twoStageCandidates([bm25], 10)), [0, 1, 2, 3, 4, 5]);
  assert.throws(() => twoStageCandidates([bm25], 0), /topM must be >= 1/);
});

test('two-stage scores: exact on the candidates, the lowest candidate logit elsewhere; M ≥ N is exact scoring', async () => {
  const idx = (await NnsscOnnxIndex.create(model, corpus))!;
  const exact = await idx.scoreVectors(queries);
  const first = [Array.from({ length: Q }, (_, q) => randMatrix(1, N, 100 + q)), Array.from({ length: Q }, (_, q) => randMatrix(1, N, 200 + q))];
  const { scores, candidates } = await nnsscTwoStageScores(idx, queries, D, first, 20);
  for (let q = 0; q < Q; q++) {
    const cand = twoStageCandidates([first[0][q], first[1][q]], 20);
    assert.is(candidates[q], cand.length);
    assert.ok(cand.length >= 20 && cand.length <= 40);
    const inCand = new Set(cand);
    let low = Infinity;
    for (const r of cand) {
      close(scores[q][r], exact[q][r], 1e-6);
      low = Math.min(low, scores[q][r]);
    }
    for (let i = 0; i < N; i++) if (!inCand.has(i)) assert.is(scores[q][i], low);
  }
  const all = await nnsscTwoStageScores(idx, queries, D, first, N);
  for (let q = 0; q < Q; q++) for (let i = 0; i < N; i++) close(all.scores[q][i], exact[q][i], 1e-6);
  idx.dispose();
});

test('nnsscScorer twoStage option: first-stage scorers pick the candidates', async () => {
  const enc: SentenceEncoder = { id: 'fake-16', dim: D, async embed(ts) { return ts.map((_, i) => queries.slice(i * D, (i + 1) * D)); }, dispose() {} };
  // one first stage that prefers the last 10 datasets
  const lastTen: CorpusScorer = { id: 'x', label: 'x', async scoreBatch(texts) { return texts.map(() => Float32Array.from({ length: N }, (_, i) => i)); } };
  const two = nnsscScorer(enc, corpus, model, { noCache: true, twoStage: { topM: 10, firstStage: [lastTen] } });
  const exact = nnsscScorer(enc, corpus, model, { noCache: true });
  const [s2] = await two.scoreBatch(['q']);
  const [s1] = await exact.scoreBatch(['q']);
  for (let i = N - 10; i < N; i++) close(s2[i], s1[i], 1e-6);
  const low = Math.min(...Array.from(s2.subarray(N - 10)));
  for (let i = 0; i < N - 10; i++) assert.is(s2[i], low);
  two.dispose();
  exact.dispose();
});

test.run();
