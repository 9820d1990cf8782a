// Table 2 assembly as library functions: the α loop and fusion runs (studyHybrid), the row list (table2Systems),
// per-query gains, the α table and the generated discussion.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyticAlpha, buildTable2, evaluateRun, fuseConvex, summarize } from '../lib';
import { rrfScores } from '../lib/fuse';
import { fusionDiscussion } from '../lib/lessons';
import { alphaRows, perQueryGain, table2Systems, TABLE2_ROWS, table2RowId, hybridGains } from '../lib/report';
import { bm25Scorer, buildBm25, meanScorer, meanScoreVectors, runFromScores } from '../lib/retrieve';
import { retrieveSplits, studyHybrid } from '../lib/study';
import type { PerQueryMetrics } from '../lib/metrics';
import type { CorpusScorer } from '../lib/retrieve';
import { toyCorpus, toySemantic, toySplits } from './helpers/toy-study';

const corpus = toyCorpus;
const splits = toySplits;
const semantic = toySemantic();

test('studyHybrid: α from the fusion records (Eq. 7 and grid), runs equal fusing the score vectors by hand', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-study-'));
  try {
    const lexical = bm25Scorer(buildBm25(corpus));
    const lex = await retrieveSplits(lexical, splits, corpus);
    const sem = await retrieveSplits(semantic, splits, corpus);
    const h = await studyHybrid({ corpus, splits, semantic: { scorer: semantic, scores: sem }, lexical: { scorer: lexical, scores: lex }, fusionDir: dir });
    const row = (r: typeof lex) => summarize('x', evaluateRun(r.train.run, (splits.train as { qrels: never }).qrels));
    assert.ok(Math.abs(h.analytic.alpha! - analyticAlpha(row(sem), row(lex))) < 1e-12);
    assert.is(h.analyticRecord.alpha, h.analytic.alpha);
    assert.is(h.gridRecord.alpha, h.grid.alpha);
    const ids = (splits.test as { queries: { id: string }[] }).queries.map((q) => q.id);
    const byHand = runFromScores(ids, sem.test.scores.map((s, i) => fuseConvex(s, lex.test.scores[i], h.analytic.alpha!)), corpus);
    assert.equal([...h.analytic.test], [...byHand]);
    const rrf = runFromScores(ids, sem.test.scores.map((s, i) => rrfScores([s, lex.test.scores[i]])), corpus);
    assert.equal([...h.rrf.test], [...rrf]);
    assert.is(h.rrf.alpha, null);
    assert.equal(fs.readdirSync(dir).length, 2, 'an analytic and a grid record');
    const again = await studyHybrid({ corpus, splits, semantic: { scorer: semantic, scores: sem }, lexical: { scorer: lexical, scores: lex }, fusionDir: dir });
    assert.is(again.analyticRecord.created, h.analyticRecord.created, 'records are reused');

    // Table 2 rows: the paper's list in order; missing scorers say which notebook makes them
    const sys = table2Systems({ scores: { bm25: lex, 'cosine-base': sem }, hybrids: { 'cosine-base': h } });
    assert.equal(sys.map((s) => s.label), TABLE2_ROWS.map((r) => r.label));
    assert.equal(sys.map((s) => s.id), TABLE2_ROWS.map(table2RowId));
    const nn = sys.find((s) => s.id === 'nnssc+bm25')!;
    assert.is(nn.test, undefined);
    assert.is(nn.note, 'not available: run 04-nnssc');
    const hyb = sys.find((s) => s.id === 'cosine-base+bm25')!;
    assert.is(hyb.alpha, h.analytic.alpha);
    assert.is(hyb.alphaMethod, 'analytic (Eq. 7)');
    assert.is(hyb.trainableParams, 0);
    assert.is(sys.find((s) => s.id === 'cosine-base+bm25-rrf')!.alpha, null);
    const table = buildTable2(sys, { testQrels: (splits.test as { qrels: never }).qrels, trainQrels: (splits.train as { qrels: never }).qrels, paired: { samples: 200 } });
    const gains = hybridGains(table, sys, [['cosine-base+bm25', 'cosine-base'], ['cosine-base+bm25', 'bm25'], ['nnssc+bm25', 'nnssc']]);
    assert.equal(gains.map((g) => g.comparison), ['Cosine (base) + BM25 − Cosine (base)', 'Cosine (base) + BM25 − BM25']);
    const a = alphaRows([h]);
    assert.is(a[0]['α analytic (Eq. 7)'], h.analytic.alpha);
    const md = fusionDiscussion({ table, hybrids: [h], gains, queries: 3, writerLabel: 'titles' });
    assert.match(md, /^## Discussion/);
    assert.ok(md.includes(`**${table.best.label}**`), md);
    assert.ok(md.includes(`better on ${gains[0].better}, worse on ${gains[0].worse}, tied on ${gains[0].tied}`), md);
    assert.ok(md.includes(`analytic α ${h.analytic.alpha!.toFixed(3)}`), md);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('perQueryGain: counts better, worse and tied queries by query id', () => {
  const pq = (ids: string[], ap: number[]) => ({ queryIds: ids, values: { MAP: ap } }) as unknown as PerQueryMetrics;
  const g = perQueryGain(pq(['a', 'b', 'c', 'd'], [0.5, 0.2, 0.3, 1]), pq(['d', 'c', 'b', 'a'], [1, 0.1, 0.4, 0.5]), 'x − y');
  assert.equal(g.sorted, [-0.2, 0, 0, 0.19999999999999998].map((x) => x).sort((p, q) => p - q));
  assert.is(g.better, 1);
  assert.is(g.worse, 1);
  assert.is(g.tied, 2);
  assert.ok(Math.abs(g.mean - (-0.2 + 0.2) / 4) < 1e-12);
});

test('meanScorer: a seed ensemble scores the element-wise mean of its members, in member order; bad shapes are refused', async () => {
  const member = (id: string, f: (t: string, i: number) => number): CorpusScorer => ({
    id, label: id, fingerprint: `fp-${id}`,
    async scoreBatch(texts) {
      return texts.map((t) => Float32Array.from({ length: 5 }, (_, i) => f(t, i)));
    },
  });
  const a = member('a', (t, i) => t.length + i);
  const b = member('b', (t, i) => 10 * i - t.length + 0.1);
  const c = member('c', (_t, i) => (i % 2 ? 3 : -3));
  const ens = meanScorer([a, b, c], { id: 'ens', label: 'ensemble' });
  assert.is(ens.fingerprint, 'mean(fp-a,fp-b,fp-c)');
  const got = await ens.scoreBatch(['ozone', 'sea ice']);
  assert.is(got.length, 2);
  ['ozone', 'sea ice'].forEach((t, q) => {
    for (let i = 0; i < 5; i++) {
      const want = Math.fround((Math.fround(Math.fround(t.length + i) + Math.fround(10 * i - t.length + 0.1)) + (i % 2 ? 3 : -3)) * Math.fround(1 / 3));
      assert.is(got[q][i], want, `query ${q} dataset ${i}`);
    }
  });
  // the same as meanScoreVectors over the members' vectors, which does not touch its inputs
  const vecs = await Promise.all([a, b, c].map((m) => m.scoreBatch(['ozone', 'sea ice'])));
  const before = vecs.map((m) => m.map((v) => [...v]));
  assert.equal(meanScoreVectors(vecs).map((v) => [...v]), got.map((v) => [...v]));
  assert.equal(vecs.map((m) => m.map((v) => [...v])), before);
  // a one-member ensemble is that member; a constant added to one member moves every dataset alike (rankings stay)
  assert.equal((await meanScorer([a], { id: 'one', label: 'one' }).scoreBatch(['x']))[0], (await a.scoreBatch(['x']))[0]);
  const shifted = member('a+7', (t, i) => t.length + i + 7);
  const s1 = (await meanScorer([shifted, b], { id: 's', label: 's' }).scoreBatch(['ozone']))[0];
  const s0 = (await meanScorer([a, b], { id: 's0', label: 's0' }).scoreBatch(['ozone']))[0];
  for (let i = 0; i < 5; i++) assert.ok(Math.abs(s1[i] - s0[i] - 3.5) < 1e-5);
  assert.throws(() => meanScorer([], { id: 'x', label: 'x' }), /at least one member/);
  assert.throws(() => meanScoreVectors([[new Float32Array(3)], [new Float32Array(4)]]), /3 and 4 datasets/);
  assert.throws(() => meanScoreVectors([[new Float32Array(3)], []]), /members score 1\/0 queries/);
});

test.run();
