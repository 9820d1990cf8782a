import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isEoError } from '../lib';
import { l2NormalizeRows } from '../lib/encode';
import {
  denseScores, denseScoresBatch, denseScoresExactBatch, DenseOnnxIndex, denseScorer, defaultCosineKernel,
  denseTopK, topKIndices, topKScoredHits, topKIndexSet, buildHnsw, saveHnsw, loadHnsw, hnswCached, annSearch,
  hashMatrix, rocchioQueries, validateDensePrf
} from '../lib/retrieve';
import { mulberry32 } from '../lib/util';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'eo-dense-'));
const close = (a: number, b: number, eps = 1e-6) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

// 5 unit vectors in 3-d; rows 1 and 3 are identical (a tie), row 4 is the opposite of row 0.
const s = Math.SQRT1_2;
const M = new Float32Array([
  1, 0, 0,
  s, s, 0,
  0, 1, 0,
  s, s, 0,
  -1, 0, 0,
]);
const ids = ['C1-A', 'C2-B', 'C3-C', 'C4-D', 'C5-E'];

test('denseScores: dot products aligned with corpus order', () => {
  const sc = denseScores(M, 3, new Float32Array([1, 0, 0]));
  assert.instance(sc, Float32Array);
  assert.is(sc.length, 5);
  [1, s, 0, s, -1].forEach((v, i) => close(sc[i], v));
  const sc2 = denseScores(M, 3, [s, s, 0]);
  [s, 1, s, 1, -s].forEach((v, i) => close(sc2[i], v));
});

test('denseScoresExactBatch: bit for bit denseScores per query (same summation order), any block size', () => {
  const rng = mulberry32(5);
  const dim = 37; // not a multiple of 4: the tail loop too
  const n = 53;
  const m = l2NormalizeRows(Float32Array.from({ length: n * dim }, () => rng() - 0.5), dim);
  for (const nq of [1, 2, 16, 17, 40]) {
    const q = l2NormalizeRows(Float32Array.from({ length: nq * dim }, () => rng() - 0.5), dim);
    const batch = denseScoresExactBatch(m, dim, q);
    assert.is(batch.length, nq);
    for (let i = 0; i < nq; i++) assert.equal(Array.from(batch[i]), Array.from(denseScores(m, dim, q.subarray(i * dim, (i + 1) * dim))), `query ${i} of ${nq}`);
  }
  assert.equal(denseScoresExactBatch(m, dim, new Float32Array(0)), []);
  assert.throws(() => denseScoresExactBatch(m, dim, new Float32Array(dim + 1)), (e: unknown) => isEoError(e, 'INVALID_ARGUMENT'));
});

test('defaultCosineKernel: $EO_COSINE_KERNEL, else auto; a bad value is a CONFIG error naming the variable', () => {
  assert.is(defaultCosineKernel({}), 'auto');
  assert.is(defaultCosineKernel({ EO_COSINE_KERNEL: 'EXACT' }), 'exact');
  assert.throws(() => defaultCosineKernel({ EO_COSINE_KERNEL: 'gpu' }), (e: unknown) => isEoError(e, 'CONFIG') && /\$EO_COSINE_KERNEL/.test((e as Error).message));
});

test('denseTopK: best first, ties by dataset id descending', () => {
  const q = new Float32Array([s, s, 0]);
  const hits = denseTopK(M, 3, q, 3, ids);
  // rows 1 and 3 tie at 1.0: 'C4-D' > 'C2-B', so row 3 first; then rows 0 and 2 tie at s: 'C3-C' > 'C1-A'
  assert.equal(hits.map((h) => h.index), [3, 1, 2]);
  close(hits[0].score, 1);
  // without ids, ties keep corpus order
  assert.equal(denseTopK(M, 3, q, 4).map((h) => h.index), [1, 3, 0, 2]);
  assert.equal(denseTopK(M, 3, q, 99, ids).map((h) => h.index), [3, 1, 2, 0, 4]);
  assert.equal(denseTopK(M, 3, q, 0), []);
});

test('dense: bad shapes are INVALID_ARGUMENT', () => {
  assert.throws(() => denseScores(M, 3, [1, 0]), (e: unknown) => isEoError(e, 'INVALID_ARGUMENT'));
  assert.throws(() => denseScores(M, 4, [1, 0, 0, 0]), (e: unknown) => isEoError(e, 'INVALID_ARGUMENT'));
  assert.throws(() => topKIndices([1, 2], 1, ['a']), (e: unknown) => isEoError(e, 'INVALID_ARGUMENT'));
});

test('topK: NaN last, k clamps, ids compared as strings', () => {
  assert.equal(topKIndices([0.5, NaN, 0.9, 0.5], 4), [2, 0, 3, 1]);
  assert.equal(topKIndices([0.5, NaN, 0.9, 0.5], 4, ['a', 'b', 'c', 'd']), [2, 3, 0, 1]);
  assert.equal(topKIndices(new Float32Array(0), 5), []);
  // string order, not numeric: 'C9' > 'C10'
  assert.equal(topKIndices([1, 1], 2, ['C10-X', 'C9-X']), [1, 0]);
  assert.equal(topKScoredHits([3, 1, 2], 2), [{ index: 0, score: 3 }, { index: 2, score: 2 }]);
});

test('topK: heap path (small k) equals a full sort, with many ties', () => {
  const rng = mulberry32(7);
  const n = 5000;
  const scores = new Float32Array(n);
  const idList: string[] = [];
  for (let i = 0; i < n; i++) {
    scores[i] = Math.floor(rng() * 20) / 20; // 20 distinct values → heavy ties
    idList.push(`C${Math.floor(rng() * 1e9)}-P${i % 7}`);
  }
  const ref = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b] - scores[a] || (idList[a] < idList[b] ? 1 : idList[a] > idList[b] ? -1 : 0));
  for (const k of [1, 10, 100, 1000, n]) {
    assert.equal(topKIndices(scores, k, idList), ref.slice(0, k), `k=${k}`);
    const plain = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
    assert.equal(topKIndices(scores, k), plain.slice(0, k), `k=${k} no ids`);
  }
});

function randomUnitMatrix(n: number, dim: number, seed: number): Float32Array {
  const rng = mulberry32(seed);
  const m = new Float32Array(n * dim);
  for (let i = 0; i < m.length; i++) m[i] = rng() * 2 - 1;
  return l2NormalizeRows(m, dim);
}

const N = 800;
const DIM = 32;
const X = randomUnitMatrix(N, DIM, 42);
const Q = randomUnitMatrix(40, DIM, 43);

test('hnsw: top-10 agrees with exact search', () => {
  const idx = buildHnsw(X, DIM, { seed: 1 });
  assert.is(idx.meta.count, N);
  let agree = 0;
  for (let q = 0; q < 40; q++) {
    const qv = Q.subarray(q * DIM, (q + 1) * DIM);
    const exact = denseTopK(X, DIM, qv, 10);
    const ann = annSearch(idx, qv, 10);
    assert.is(ann.length, 10);
    for (let i = 1; i < ann.length; i++) assert.ok(ann[i - 1].score >= ann[i].score);
    const ex = new Set(exact.map((h) => h.index));
    agree += ann.filter((h) => ex.has(h.index)).length;
    // scores are the same dot products
    const byIndex = denseScores(X, DIM, qv);
    for (const h of ann) close(h.score, byIndex[h.index], 1e-5);
  }
  const recall = agree / 400;
  assert.ok(recall >= 0.98, `recall@10 ${recall}`);
  // k beyond the size returns everything
  assert.is(annSearch(idx, Q.subarray(0, DIM), N + 10).length, N);
});

test('hnsw: save/load round trip and cached build', () => {
  const dir = tmp();
  const idx = buildHnsw(X, DIM, { seed: 3, key: 'k' });
  const file = path.join(dir, 'x.hnsw');
  saveHnsw(idx, file);
  assert.ok(fs.existsSync(file));
  assert.ok(fs.existsSync(path.join(dir, 'x.json')));
  assert.equal(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
  const back = loadHnsw(file, { count: N, dim: DIM, matrixHash: hashMatrix(X) })!;
  const qv = Q.subarray(0, DIM);
  assert.equal(annSearch(back, qv, 10), annSearch(idx, qv, 10));
  assert.is(loadHnsw(path.join(dir, 'absent.hnsw')), null);
  // built from other embeddings → refused
  try {
    loadHnsw(file, { matrixHash: hashMatrix(Q) });
    assert.unreachable('mismatch');
  } catch (e) {
    assert.ok(isEoError(e, 'CACHE_MISMATCH'));
    assert.match((e as Error).message, /matrixHash/);
  }
  // hnswCached: builds once, then loads
  const c1 = hnswCached({ matrix: X, dim: DIM, key: 'enc__corpus', cacheDir: dir });
  const c2 = hnswCached({ matrix: X, dim: DIM, key: 'enc__corpus', cacheDir: dir });
  assert.is(c2.meta.created, c1.meta.created);
  // same key, other embeddings: error on request, rebuilt by default
  assert.throws(() => hnswCached({ matrix: randomUnitMatrix(N, DIM, 9), dim: DIM, key: 'enc__corpus', cacheDir: dir, onMismatch: 'error' }), (e: unknown) => isEoError(e, 'CACHE_MISMATCH'));
  const c3 = hnswCached({ matrix: randomUnitMatrix(N, DIM, 9), dim: DIM, key: 'enc__corpus', cacheDir: dir });
  assert.is.not(c3.meta.matrixHash, c1.meta.matrixHash);
});

test('hnsw: ties ordered by id descending', () => {
  const idx = buildHnsw(M, 3);
  const hits = annSearch(idx, [s, s, 0], 3, { ids });
  assert.equal(hits.map((h) => h.index), [3, 1, 2]);
});


test('denseScoresBatch and DenseOnnxIndex: one product for a batch equals denseScores per query (to 1e-5)', async () => {
  const rng = mulberry32(5);
  const dim = 37; // odd, so the kernels' remainder loops run
  const n = 211;
  const matrix = l2NormalizeRows(Float32Array.from({ length: n * dim }, () => rng() - 0.5), dim);
  for (const nq of [1, 2, 3, 16]) {
    const queries = l2NormalizeRows(Float32Array.from({ length: nq * dim }, () => rng() - 0.5), dim);
    const want = Array.from({ length: nq }, (_, i) => denseScores(matrix, dim, queries.subarray(i * dim, (i + 1) * dim)));
    const js = denseScoresBatch(matrix, dim, queries);
    const onnx = await DenseOnnxIndex.create(matrix, dim);
    assert.ok(onnx, 'onnxruntime-node loads here (it is a dependency)');
    const viaOnnx = await onnx!.scores(queries);
    onnx!.dispose();
    for (const got of [js, viaOnnx]) {
      assert.is(got.length, nq);
      got.forEach((v, i) => {
        assert.is(v.length, n);
        v.forEach((x, r) => assert.ok(Math.abs(x - want[i][r]) < 1e-5, `query ${i} row ${r}: ${x} vs ${want[i][r]}`));
      });
    }
  }
  assert.equal(denseScoresBatch(matrix, dim, new Float32Array(0)), []);
  try {
    denseScoresBatch(matrix, dim, new Float32Array(dim + 1));
    assert.unreachable('a ragged query matrix must be refused');
  } catch (e) {
    assert.ok(isEoError(e) && e.code === 'INVALID_ARGUMENT');
  }
});

test('denseScorer: every kernel gives today\'s per-query cosine for a batch of texts', async () => {
  const rng = mulberry32(9);
  const dim = 16;
  const vec = (t: string) => {
    const r = mulberry32([...t].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7));
    return l2NormalizeRows(Float32Array.from({ length: dim }, () => r() - 0.5), dim);
  };
  const encoder = { id: 'toy', dim, async embed(texts: string[]) { return texts.map(vec); }, dispose() {} };
  const matrix = l2NormalizeRows(Float32Array.from({ length: 50 * dim }, () => rng() - 0.5), dim);
  const texts = ['sea ice', 'ocean colour', 'aerosol optical depth', 'soil moisture', 'snow cover'];
  // the exact kernel is the per-query reference itself: run files published with it reproduce bit for bit
  const exact = denseScorer(encoder, matrix, { noCache: true, kernel: 'exact' });
  const exactScores = await exact.scoreBatch(texts);
  texts.forEach((t, i) => assert.equal(Array.from(exactScores[i]), Array.from(denseScores(matrix, dim, vec(t))), `exact ${t}`));
  exact.dispose();
  for (const kernel of ['js', 'onnx', 'auto'] as const) {
    const s = denseScorer(encoder, matrix, { noCache: true, kernel });
    const got = await s.scoreBatch(texts);
    texts.forEach((t, i) => {
      const want = denseScores(matrix, dim, vec(t));
      got[i].forEach((x, r) => assert.ok(Math.abs(x - want[r]) < 1e-5, `${kernel} ${t} row ${r}`));
    });
    s.dispose();
    await s.scoreBatch(['x']).then(() => assert.unreachable('used after dispose'), (e) => assert.ok(isEoError(e)));
  }
});

test('dense PRF: the query moves towards the mean of its first k datasets, and the scorer scores it again', async () => {
  // M's rows: (1,0,0), (s,s,0), (0,1,0), (s,s,0), (−1,0,0); query (1,0,0): first rows 0, then 1 and 3 (a tie)
  const q = new Float32Array([2, 0, 0]); // not unit: normalised first
  const first = [denseScores(M, 3, q)];
  const one = rocchioQueries(q, first, M, 3, { k: 1, beta: 1 });
  // (1,0,0) + 1 · (1,0,0) → (1,0,0)
  assert.equal(Array.from(one), [1, 0, 0]);
  const two = rocchioQueries(q, first, M, 3, { k: 2, beta: 1 });
  // (1,0,0) + ((1,0,0) + (s,s,0)) / 2, re-normalised: row 0 then the lower of the tied rows 1 and 3
  const v = [1 + (1 + s) / 2, s / 2, 0];
  const n = Math.hypot(...v);
  Array.from(two).forEach((x, j) => close(x, v[j] / n));
  // through the scorer: two cosine passes, and the fingerprint says so
  const encoder = { id: 'toy3', dim: 3, async embed(texts: string[]) { return texts.map(() => new Float32Array([1, 0, 0])); }, dispose() {} };
  const plain = denseScorer(encoder, M, { noCache: true, kernel: 'js' });
  const fed = denseScorer(encoder, M, { noCache: true, kernel: 'js', prf: { k: 2, beta: 1 } });
  const [a] = await plain.scoreBatch(['q']);
  const [b] = await fed.scoreBatch(['q']);
  assert.ok(b[2] > a[2], 'row 2 (0,1,0) gains from the feedback');
  assert.ok(b[0] < a[0] && b[0] > b[1], 'row 0 still first, by less');
  assert.is(plain.fingerprint, 'cosine:toy3');
  assert.is(fed.fingerprint, 'cosine:toy3+prf k2 β1');
  assert.equal(Array.from((await fed.topRows(new Float32Array([1, 0, 0]), 2))[0]).sort(), [0, 1]);
  for (const bad of [{ k: 0, beta: 1 }, { k: 1.5, beta: 1 }, { k: 3, beta: 0 }, { k: 3, beta: Number.NaN }]) {
    assert.throws(() => validateDensePrf(bad), (e: unknown) => isEoError(e) && e.code === 'CONFIG', JSON.stringify(bad));
  }
  assert.throws(() => denseScorer(encoder, M, { prf: { k: 0, beta: 1 } }), /k must be/);
  assert.throws(() => rocchioQueries(q, [], M, 3, { k: 1, beta: 1 }), /1 queries but 0/);
  plain.dispose();
  fed.dispose();
});

test('dense PRF seeded by a lexical ranking: the lexical scorer\'s first k rows (above 0) pull the query, the texts scored once each', async () => {
  // query (1,0,0); the lexical scorer ranks row 2 (0,1,0) first: the feedback moves the query towards it
  const encoder = { id: 'toy3', dim: 3, async embed(texts: string[]) { return texts.map(() => new Float32Array([1, 0, 0])); }, dispose() {} };
  const seen: string[][] = [];
  const lexical = {
    id: 'bm25', label: 'toy BM25', fingerprint: 'bm25:toy',
    async scoreBatch(texts: string[]) {
      seen.push(texts);
      // "none" matches no word: every score 0
      return texts.map((t) => (t === 'none' ? new Float32Array(5) : new Float32Array([0, 0, 3, 0, 0])));
    },
  };
  const fed = denseScorer(encoder, M, { noCache: true, kernel: 'js', prf: { k: 2, beta: 1, seeds: 'lexical' }, prfLexical: lexical });
  assert.is(fed.fingerprint, 'cosine:toy3+prf k2 β1 lexical (bm25:toy)');
  const [moved, kept] = await fed.scoreBatch(['sea ice', 'none']);
  assert.equal(seen, [['sea ice', 'none']]);
  // only row 2 scored above 0: (1,0,0) + (0,1,0) → (s,s,0)
  [s, 1, s, 1, -s].forEach((v, r) => close(moved[r], v));
  // no lexical match: the query keeps its vector (not the mean of rows 0 and 1)
  [1, s, 0, s, -1].forEach((v, r) => close(kept[r], v));
  // the same zero rule for a scorer's own ranking: a vector of unknown tokens stays where it is
  assert.equal(Array.from(rocchioQueries(new Float32Array(3), [new Float32Array(5)], M, 3, { k: 2, beta: 1 })), [0, 0, 0]);
  // vectors alone cannot be scored as the texts are; a lexical seed needs its scorer; bad seeds name the field
  await fed.scoreVectors(new Float32Array([1, 0, 0])).then(() => assert.unreachable('scored vectors'), (e) => assert.ok(isEoError(e) && /scores texts/.test(e.message)));
  assert.throws(() => denseScorer(encoder, M, { prf: { k: 2, beta: 1, seeds: 'lexical' } }), (e: unknown) => isEoError(e) && e.code === 'CONFIG' && /prfLexical/.test(e.message));
  assert.throws(() => validateDensePrf({ k: 2, beta: 1, seeds: 'bm25' as never }), (e: unknown) => isEoError(e) && e.code === 'CONFIG' && /seeds/.test(e.message));
  fed.dispose();
});

test('top rows: onnx TopK beside the MatMul picks topKIndexSet\'s rows (ties to the lower row), on the caller and on the onnx worker', async () => {
  const rng = mulberry32(21);
  const dim = 8;
  // 300 rows drawn from 40 distinct vectors: many exact ties among the cosines
  const base = l2NormalizeRows(Float32Array.from({ length: 40 * dim }, () => rng() - 0.5), dim);
  const n = 300;
  const matrix = new Float32Array(n * dim);
  for (let r = 0; r < n; r++) matrix.set(base.subarray((r % 40) * dim, (r % 40 + 1) * dim), r * dim);
  const queries = l2NormalizeRows(Float32Array.from({ length: 5 * dim }, () => rng() - 0.5), dim);
  for (const thread of ['caller', 'worker'] as const) {
    const onnx = (await DenseOnnxIndex.create(matrix, dim, { thread }))!;
    const scores = await onnx.scores(queries);
    for (const m of [1, 7, 40, 299, 1000]) {
      const rows = await onnx.topRows(queries, m);
      assert.is(rows.length, 5);
      rows.forEach((got, q) => {
        const want = Array.from(topKIndexSet(scores[q], m)).sort((a, b) => a - b);
        assert.equal(Array.from(got).sort((a, b) => a - b), want, `${thread} m=${m} query ${q}`);
      });
    }
    onnx.dispose();
  }
  // the scorer: same rows whichever kernel computes them
  const encoder = { id: 'toy', dim, async embed(texts: string[]) { return texts.map((_, i) => queries.slice(i * dim, (i + 1) * dim)); }, dispose() {} };
  const exact = denseScorer(encoder, matrix, { noCache: true });
  const viaOnnx = denseScorer(encoder, matrix, { noCache: true, kernel: 'onnx', onnxThread: 'worker' });
  const a = await exact.topRows(queries, 25);
  const b = await viaOnnx.topRows(queries, 25);
  a.forEach((rows, q) => assert.equal(Array.from(b[q]).sort((x, y) => x - y), Array.from(rows).sort((x, y) => x - y), `query ${q}`));
  exact.dispose();
  viaOnnx.dispose();
});

test('topKIndexSet: the same set as topKIndices (ties to the lower index, NaN last), in any order', () => {
  const rng = mulberry32(3);
  for (let trial = 0; trial < 200; trial++) {
    const n = 1 + Math.floor(rng() * 3000);
    const v = Float32Array.from({ length: n }, () => (rng() < 0.05 ? NaN : Math.floor(rng() * 30) / 30));
    const k = [1, 5, 100, n, n + 3][trial % 5];
    assert.equal(Array.from(topKIndexSet(v, k)).sort((a, b) => a - b), topKIndices(v, k).sort((a, b) => a - b), `trial ${trial}`);
  }
  assert.equal(Array.from(topKIndexSet(new Float32Array(3), 0)), []);
});

test.run();
