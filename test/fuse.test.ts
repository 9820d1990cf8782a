import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signedBound } from '../lib/report/numbers';
import { fuseConvex, analyticAlpha, buildTable2, type MetricRow, type SentenceEncoder } from '../lib';
import { l2NormalizeRows } from '../lib/encode';
import {
  minMaxNormalize, performanceIndex, meanDirection, removeDirection, r2Transform, r2Encoder, competitionRanks,
  rrfScores, rrfScorer, fuseConvexParts, explainFused, fusedScorer, gridSearchAlpha
} from '../lib/fuse';
import { evaluateRun, summarize, type Qrels, type Run } from '../lib/metrics';
import { runFromScoreVectors } from '../lib/fuse/grid';
import { type CorpusScorer } from '../lib/retrieve';
import { mulberry32 } from '../lib/util';

const close = (a: number, b: number, eps = 1e-6, msg = '') => assert.ok(Math.abs(a - b) <= eps, `${msg} ${a} != ${b}`);
const arr = (x: ArrayLike<number>) => Array.from(x, (v) => Math.round(v * 1e6) / 1e6);

function fixed(id: string, table: Record<string, number[]>): CorpusScorer {
  return { id, label: id, async scoreBatch(texts) { return texts.map((t) => Float32Array.from(table[t])); } };
}

test('min-max normalisation: range to [0, 1]; constant vector to zeros', () => {
  assert.equal(arr(minMaxNormalize([2, 4, 3, 6])), [0, 0.5, 0.25, 1]);
  assert.equal(arr(minMaxNormalize([-1, -1, -1])), [0, 0, 0]);
  assert.equal(arr(minMaxNormalize([5])), [0]);
});

test('convex fusion on a hand example', () => {
  // sem → [0, .5, 1], lex → [1, 0, .5]; α = .25: [.75, .125, .625]
  assert.equal(arr(fuseConvex([1, 2, 3], [10, 0, 5], 0.25)), [0.75, 0.125, 0.625]);
  assert.equal(arr(fuseConvex([1, 2, 3], [10, 0, 5], 1)), [0, 0.5, 1]);
  assert.equal(arr(fuseConvex([1, 2, 3], [10, 0, 5], 0)), [1, 0, 0.5]);
  assert.throws(() => fuseConvex([1], [1], 1.5));
  assert.throws(() => fuseConvex([1, 2], [1], 0.5));
});

test('fused parts sum to the fused score and explain each dataset', () => {
  const f = fuseConvexParts(Float32Array.from([1, 2, 3]), Float32Array.from([10, 0, 5]), 0.25);
  assert.equal(arr(f.scores), [0.75, 0.125, 0.625]);
  for (let i = 0; i < 3; i++) close(f.semantic[i] + f.lexical[i], f.scores[i]);
  const e = explainFused(f, 2);
  close(e.semantic, 0.25);
  close(e.lexical, 0.375);
  close(e.semanticNormalized, 1);
  close(e.lexicalNormalized, 0.5);
  close(e.semanticShare, 0.4);
  assert.is(e.rawSemantic, 3);
  assert.is(e.rawLexical, 5);
  assert.is(explainFused(fuseConvexParts(Float32Array.from([1, 1]), Float32Array.from([0, 0]), 0.5), 0).semanticShare, 0.5);
});

test('fusedScorer equals fuseConvex and keeps the parts', async () => {
  const sem = fixed('sem', { q: [1, 2, 3] });
  const lex = fixed('bm25', { q: [10, 0, 5] });
  const s = fusedScorer(sem, lex, 0.25);
  assert.is(s.id, 'sem+bm25');
  const [scores] = await s.scoreBatch(['q']);
  assert.equal(arr(scores), arr(fuseConvex([1, 2, 3], [10, 0, 5], 0.25)));
  const [ex] = await s.scoreBatchExplained(['q']);
  close(explainFused(ex, 0).lexical, 0.75);
  assert.throws(() => fusedScorer(sem, lex, -0.1));
});

test('performance index and analytic α (Eq. 7) on a hand example', () => {
  const row = (v: number[]): MetricRow => ({ system: 's', 'R@10': v[0], 'R@20': v[1], 'R@100': v[2], MAP: v[3], MRR: v[4] });
  const sem = row([0.2, 0.3, 0.5, 0.1, 0.4]); // π = 0.3
  const lex = row([0.4, 0.5, 0.7, 0.3, 0.6]); // π = 0.5
  close(performanceIndex(sem), 0.3, 1e-12);
  close(analyticAlpha(sem, lex), 0.3 / 0.8, 1e-12);
  assert.throws(() => analyticAlpha(row([0, 0, 0, 0, 0]), row([0, 0, 0, 0, 0])));
});

test('R2: result orthogonal to the mean direction, unit norm; the direction is the unit mean', () => {
  const dim = 6;
  const rng = mulberry32(3);
  const shift = [0.9, 0.2, -0.3, 0.1, 0, 0.4];
  const make = (n: number) => {
    const m = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) for (let j = 0; j < dim; j++) m[i * dim + j] = shift[j] + (rng() - 0.5) * 0.5;
    return l2NormalizeRows(m, dim);
  };
  const datasets = make(50), queries = make(10);
  const r2 = r2Transform(datasets, queries, dim);
  let un = 0;
  for (const x of r2.direction) un += x * x;
  close(un, 1, 1e-6);
  // direction = normalised mean of all 60 rows
  const mean = new Array(dim).fill(0);
  for (const m of [datasets, queries]) for (let i = 0; i < m.length; i++) mean[i % dim] += m[i];
  const mn = Math.hypot(...mean);
  mean.forEach((v, j) => close(r2.direction[j], v / mn, 1e-6));
  const check = (m: Float32Array) => {
    for (let o = 0; o < m.length; o += dim) {
      let dot = 0, nn = 0;
      for (let j = 0; j < dim; j++) {
        dot += m[o + j] * r2.direction[j];
        nn += m[o + j] * m[o + j];
      }
      close(dot, 0, 1e-6, 'orthogonal');
      close(nn, 1, 1e-5, 'unit norm');
    }
  };
  check(r2.datasets);
  check(r2.project(queries));
  // hand example: u = x-axis, (0.6, 0.8) → (0, 1)
  assert.equal(arr(removeDirection(Float32Array.from([0.6, 0.8, 1, 0]), 2, Float32Array.from([1, 0]))), [0, 1, 0, 0]);
  assert.equal(arr(meanDirection([Float32Array.from([1, 0, 0, 1])], 2)), arr([Math.SQRT1_2, Math.SQRT1_2]));
  assert.throws(() => meanDirection([Float32Array.from([1, 0, -1, 0])], 2));
});

test('R2 encoder wraps an encoder and changes its id', async () => {
  const enc: SentenceEncoder = { id: 'e', dim: 2, async embed(t) { return t.map(() => Float32Array.from([0.6, 0.8])); }, dispose() {} };
  const r = r2Encoder(enc, Float32Array.from([1, 0]));
  assert.match(r.id, /^e\+r2-[0-9a-f]{10}$/);
  assert.equal(arr((await r.embed(['x']))[0]), [0, 1]);
});

test('competitionRanks equals ranking by an index sort, with ties, NaN and ±0', () => {
  const reference = (scores: number[]) => {
    const val = (i: number) => (scores[i] === scores[i] ? scores[i] : -Infinity);
    const order = scores.map((_, i) => i).sort((a, b) => val(b) - val(a) || a - b);
    const ranks = new Array<number>(scores.length);
    order.forEach((i, p) => (ranks[i] = p > 0 && val(i) === val(order[p - 1]) ? ranks[order[p - 1]] : p + 1));
    return ranks;
  };
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let t = 0; t < 20; t++) {
    const n = 1 + Math.floor(rnd() * 300);
    // few distinct values, so many ties; some NaN, -0 and +0, ±Infinity
    const xs = Array.from({ length: n }, () => {
      const u = rnd();
      return u < 0.05 ? NaN : u < 0.1 ? -0 : u < 0.15 ? 0 : u < 0.17 ? Infinity : u < 0.19 ? -Infinity : Math.round(rnd() * 20) / 4 - 2;
    });
    assert.equal(Array.from(competitionRanks(xs)), reference(xs), `case ${t}`);
    // a Float32Array takes the keyed sort: the same ranks as the reference on its float32 values
    const f32 = Float32Array.from(xs, (x) => (t % 2 ? x * 1e-39 : x)); // odd cases: subnormal magnitudes too
    assert.equal(Array.from(competitionRanks(f32)), reference(Array.from(f32)), `case ${t} as float32`);
  }
  // negative, positive and huge values, a NaN with its sign bit set, on a view into a larger buffer
  const buf = new Float32Array([9, -3.5, 3.5, -1e38, 1e38, -0, 0, -Infinity, -NaN, 2.5, -2.5, 9]);
  const view = buf.subarray(1, 11);
  assert.equal(Array.from(competitionRanks(view)), reference(Array.from(view)));
  assert.equal(Array.from(competitionRanks(new Float32Array([0.25, NaN, 0.25, 1]))), [2, 4, 2, 1]);
});

test('RRF with competition ranks on a hand example', () => {
  assert.equal(Array.from(competitionRanks([0.5, 0.9, 0.5, 0.1])), [2, 1, 2, 4]);
  // system A ranks: d0=1, d1=2, d2=3; system B (tie d1/d2): d0=3, d1=1, d2=1
  const s = rrfScores([[3, 2, 1], [0, 5, 5]], 60);
  close(s[0], 1 / 61 + 1 / 63, 1e-7);
  close(s[1], 1 / 62 + 1 / 61, 1e-7);
  close(s[2], 1 / 63 + 1 / 61, 1e-7);
  assert.ok(s[1] > s[2]);
  close(s[2], s[0], 1e-9); // d0 and d2 swap ranks 1 and 3 between the systems
});

test('rrfScorer fuses scorers', async () => {
  const r = rrfScorer([fixed('a', { q: [3, 2, 1] }), fixed('b', { q: [0, 5, 5] })]);
  assert.is(r.id, 'rrf-a-b');
  const [s] = await r.scoreBatch(['q']);
  close(s[1], 1 / 62 + 1 / 61, 1e-7);
});

test('grid search of α on training queries finds the mixing weight that works', () => {
  // q1: semantic alone ranks d1 first, BM25 alone d2; the relevant d0 is second for both and wins for 0.2 < α < 0.8.
  // q2: both scorers agree. Ties over the grid go to the α closest to 0.5.
  const ids = ['d0', 'd1', 'd2', 'd3'];
  const sem = [Float32Array.from([0.8, 1, 0, 0]), Float32Array.from([0, 0.2, 0.5, 1])];
  const lex = [Float32Array.from([0.8, 0, 1, 0]), Float32Array.from([0, 0, 0, 1])];
  const qrels: Qrels = new Map([['q1', new Map([['d0', 1]])], ['q2', new Map([['d3', 1]])]]);
  const g = gridSearchAlpha({ semantic: sem, lexical: lex, queryIds: ['q1', 'q2'], qrels, datasetIds: ids });
  assert.is(g.curve.length, 21);
  assert.is(g.alpha, 0.5);
  assert.is(g.curve.find((p) => p.alpha === 0.5)!.row.MRR, 1);
  assert.is(g.curve[0].row.MRR, 0.75);
  assert.is(g.curve[20].row.MRR, 0.75);
  assert.is(g.curve.find((p) => p.alpha === 0.3)!.row.MRR, 1);
  const ranked = g.curve.filter((p) => p.row.MRR === 1).map((p) => p.alpha);
  assert.equal(ranked, [0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75]);
});

test('grid search: every point is the run of fuseConvex at that α, evaluated (random scores, 300 datasets, ties included)', () => {
  const rng = mulberry32(9);
  const ids = Array.from({ length: 300 }, (_, i) => `d${i}`);
  const vec = (scale: number) => Float32Array.from(ids, () => Math.round(rng() * scale) / scale); // coarse: ties
  const queryIds = Array.from({ length: 12 }, (_, i) => `q${i}`);
  const sem = queryIds.map(() => vec(20));
  const lex = queryIds.map((_, i) => (i === 3 ? new Float32Array(ids.length) : vec(7))); // one query with no lexical match
  const qrels: Qrels = new Map(queryIds.map((q) => [q, new Map([[ids[Math.floor(rng() * 300)], 1], [ids[Math.floor(rng() * 300)], 1]])]));
  const g = gridSearchAlpha({ semantic: sem, lexical: lex, queryIds, qrels, datasetIds: ids, grid: [0, 0.3, 0.55, 1] });
  for (const p of g.curve) {
    const fused = queryIds.map((_, i) => fuseConvex(sem[i], lex[i], p.alpha));
    const expected = summarize(`α=${p.alpha}`, evaluateRun(runFromScoreVectors(queryIds, fused, ids), qrels));
    assert.equal(p.row, expected, `α ${p.alpha}`);
  }
  assert.throws(() => gridSearchAlpha({ semantic: sem, lexical: lex, queryIds, qrels, datasetIds: ids, grid: [0.5, 1.5] }), /1\.5/);
});

test('Table 2: metrics, best row, paired CI/p, unavailable rows', () => {
  const qrels: Qrels = new Map(Array.from({ length: 6 }, (_, i) => [`q${i}`, new Map([[`rel${i}`, 1]])]));
  const mk = (rankOfRel: number[]): Run =>
    new Map(rankOfRel.map((r, i) => [`q${i}`, Array.from({ length: 5 }, (_, k) => ({ docId: k === r - 1 ? `rel${i}` : `x${k}`, score: 10 - k }))]));
  const t = buildTable2(
    [
      { id: 'bm25', label: 'BM25', test: mk([1, 1, 2, 1, 3, 1]) },
      { id: 'weak', label: 'Weak', test: mk([5, 4, 5, 3, 5, 4]), trainableParams: 10, trainingSeconds: 2, backend: 'wasm' },
      { id: 'ft', label: 'Cosine (fine-tuned)', note: 'not available: run 03' },
      { id: 'hyb', label: 'Hybrid', test: mk([1, 1, 1, 1, 1, 2]), alpha: 0.4, alphaMethod: 'analytic (Eq. 7)' },
    ],
    { testQrels: qrels, paired: { permutations: 200, bootstrapSamples: 200 } },
  );
  assert.is(t.best.id, 'hyb');
  assert.is(t.rows.length, 4);
  assert.is(t.rows[2].note, 'not available: run 03');
  assert.is(t.rows[2].MAP, null);
  close(t.rows[3].MRR as number, (5 + 0.5) / 6, 1e-12);
  assert.is(t.rows[3]['ΔMAP vs best [95% CI]'], 'best row');
  assert.match(String(t.rows[1]['ΔMAP vs best [95% CI]']), /^−0\.\d{3} \[[−+]\d\.\d+, [−+]\d\.\d+\]$/);
  // a difference or bound that is not 0 never reads as 0 ("−0.000" said a tie the numbers do not show)
  assert.is(signedBound(-0.0002), '−0.0002');
  assert.is(signedBound(0.00004), '+0.00004');
  assert.is(signedBound(0), '+0.000');
  assert.is(signedBound(-0.0834), '−0.083');
  assert.ok((t.rows[1]['p (MAP)'] as number) < 0.1);
  assert.is(t.rows[3]['α'], 0.4);
  assert.is(t.paired.length, 2 * 5);
  assert.is(t.metrics.length, 3);
});

test.run();
