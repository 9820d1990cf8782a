import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluateRun, summarize } from '../lib';
import {
  pairedTest, compareSystems, formatTrecRun, parseTrecRun, formatTrecQrels, parseTrecQrels, precisionAtFromJudge,
  sortRunEntries, winsLossesTies, type Qrels, type Run
} from '../lib/metrics';

const close = (a: number, b: number, eps = 1e-12) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

function qrelsOf(obj: Record<string, Record<string, number>>): Qrels {
  return new Map(Object.entries(obj).map(([q, d]) => [q, new Map(Object.entries(d))]));
}

test('hand-computed metrics with a tie broken by id descending (trec_eval order)', () => {
  const qrels = qrelsOf({ q1: { a: 1, b: 1, c: 1, nonrel: 0 } });
  const run: Run = new Map([
    ['q1', [{ docId: 'c', score: 0.1 }, { docId: 'b', score: 0.5 }, { docId: 'z', score: 0.9 }, { docId: 'x', score: 0.5 }, { docId: 'a', score: 0.8 }]],
  ]);
  // sorted: z a x b c  (x before b: equal score, "x" > "b")
  assert.equal(sortRunEntries(run.get('q1')!).map((e) => e.docId), ['z', 'a', 'x', 'b', 'c']);
  const pq = evaluateRun(run, qrels);
  close(pq.values['R@10'][0], 1);
  close(pq.values.MAP[0], (1 / 2 + 2 / 4 + 3 / 5) / 3);
  close(pq.values.MRR[0], 1 / 2);
});

test('recall cut-offs, depth cut and reciprocal rank', () => {
  const entries = Array.from({ length: 120 }, (_, i) => ({ docId: `n${String(i).padStart(3, '0')}`, score: 1000 - i }));
  // relevant at ranks 15, 25 and 101 (beyond the depth of 100)
  const qrels = qrelsOf({ q: { n014: 1, n024: 1, n100: 1 } });
  const pq = evaluateRun(new Map([['q', entries]]), qrels);
  close(pq.values['R@10'][0], 0);
  close(pq.values['R@20'][0], 1 / 3);
  close(pq.values['R@100'][0], 2 / 3);
  close(pq.values.MAP[0], (1 / 15 + 2 / 25) / 3);
  close(pq.values.MRR[0], 1 / 15);
  const deeper = evaluateRun(new Map([['q', entries]]), qrels, { depth: 200 });
  close(deeper.values.MAP[0], (1 / 15 + 2 / 25 + 3 / 101) / 3);
});

test('empty results, missing queries and queries without positives', () => {
  const qrels = qrelsOf({ q1: { a: 1 }, q2: { b: 1 }, q3: { c: 0 } });
  const run: Run = new Map([['q1', []], ['q3', [{ docId: 'c', score: 1 }]]]);
  const pq = evaluateRun(run, qrels);
  assert.equal(pq.queryIds, ['q1', 'q2']);
  assert.equal(pq.skippedNoPositives, ['q3']);
  assert.equal(pq.missingFromRun, ['q2']);
  const row = summarize('sys', pq);
  assert.is(row.system, 'sys');
  for (const m of ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'] as const) assert.is(row[m], 0);
});

test('macro average over queries; duplicates in a run count once', () => {
  const qrels = qrelsOf({ q1: { a: 1 }, q2: { b: 1, c: 1 } });
  const run: Run = new Map([
    ['q1', [{ docId: 'a', score: 2 }, { docId: 'a', score: 1 }]],
    ['q2', [{ docId: 'x', score: 3 }, { docId: 'b', score: 2 }]],
  ]);
  const row = summarize('s', evaluateRun(run, qrels));
  close(row.MRR, (1 + 1 / 2) / 2);
  close(row.MAP, (1 + (1 / 2) / 2) / 2);
  close(row['R@10'], (1 + 0.5) / 2);
});

test('P@K from a judgement function divides by K', async () => {
  const ranked = [{ docId: 'a', score: 3 }, { docId: 'b', score: 2 }, { docId: 'c', score: 1 }];
  const p5 = await precisionAtFromJudge(ranked, 5, (d) => d !== 'b');
  close(p5, 2 / 5);
  const p2 = await precisionAtFromJudge(ranked, 2, async (d) => d === 'b');
  close(p2, 1 / 2);
});

test('TREC run and qrels round trip keeps metrics and tie order', () => {
  const qrels = qrelsOf({ q1: { a: 1, b: 2 }, q2: { d: 1 } });
  const run: Run = new Map([
    ['q1', [{ docId: 'b', score: 0.30000000000000004 }, { docId: 'a', score: 0.3 }, { docId: 'c', score: 0.3 }]],
    ['q2', [{ docId: 'd', score: -1.5e-7 }, { docId: 'e', score: 2 }]],
  ]);
  const text = formatTrecRun(run, 'bm25');
  assert.match(text, /^q1 Q0 b 1 0\.30000000000000004 bm25$/m);
  assert.match(text, /^q1 Q0 c 2 0\.3 bm25$/m);
  const back = parseTrecRun(text);
  const q2 = parseTrecQrels(formatTrecQrels(qrels));
  assert.equal(summarize('x', evaluateRun(back, q2)), summarize('x', evaluateRun(run, qrels)));
  assert.throws(() => parseTrecRun('q1 Q0 a 1 notanumber tag\n', 'r.txt'), /r\.txt:1: field "score"/);
  assert.throws(() => parseTrecQrels('q1 0 a\n', 'q.txt'), /q\.txt:1: expected 4 fields/);
  assert.throws(() => formatTrecRun(run, 'two words'), /one non-empty word/);
});

test('paired test: identical systems give p = 1 and a CI of zero width', () => {
  const a = [0.1, 0.5, 0.3, 0.9];
  const r = pairedTest(a, a, 'MAP', { permutations: 2000, bootstrapSamples: 2000 });
  assert.is(r.pValue, 1);
  assert.is(r.ciLow, 0);
  assert.is(r.ciHigh, 0);
});

test('paired test: a clear difference is significant, CI brackets it, same seed same numbers', () => {
  const b = Array.from({ length: 40 }, (_, i) => (i % 7) / 10);
  const a = b.map((x, i) => x + 0.2 + ((i % 3) - 1) * 0.05);
  const r1 = pairedTest(a, b, 'MRR', { seed: 7 });
  const r2 = pairedTest(a, b, 'MRR', { seed: 7 });
  assert.equal(r1, r2);
  assert.ok(r1.pValue < 0.001, `p=${r1.pValue}`);
  assert.ok(r1.ciLow <= r1.meanDiff && r1.meanDiff <= r1.ciHigh);
  assert.ok(r1.ciLow > 0.15 && r1.ciHigh < 0.25, `${r1.ciLow}..${r1.ciHigh}`);
  const r3 = pairedTest(a, b, 'MRR', { seed: 8 });
  assert.ok(r3.ciLow !== r1.ciLow || r3.pValue !== r1.pValue);
  // no real difference: p is large
  const noise = b.map((x, i) => x + (i % 2 === 0 ? 0.01 : -0.01));
  assert.ok(pairedTest(noise, b).pValue > 0.5);
});

test('compareSystems matches queries by id and refuses different query sets', () => {
  const qrels = qrelsOf({ q1: { a: 1 }, q2: { b: 1 } });
  const A = evaluateRun(new Map([['q1', [{ docId: 'a', score: 1 }]], ['q2', [{ docId: 'b', score: 1 }]]]), qrels);
  const B = evaluateRun(new Map([['q1', [{ docId: 'x', score: 1 }]], ['q2', [{ docId: 'b', score: 1 }]]]), qrels);
  const cmp = compareSystems(A, B, ['MRR'], { permutations: 1000, bootstrapSamples: 1000 });
  close(cmp[0].meanDiff, 0.5);
  const C = evaluateRun(new Map([['q1', []]]), qrelsOf({ q1: { a: 1 } }));
  assert.throws(() => compareSystems(A, C), /different queries/);
});

test('winsLossesTies counts per-query wins, losses and ties of A against B', () => {
  const qrels = qrelsOf({ q1: { a: 1 }, q2: { b: 1 }, q3: { c: 1 }, q4: { d: 1 } });
  // A: a at rank 1, b at rank 2, c at rank 1, d missing. B: a at rank 2, b at rank 1, c at rank 1, d at rank 3.
  const A = evaluateRun(new Map([
    ['q1', [{ docId: 'a', score: 2 }, { docId: 'x', score: 1 }]],
    ['q2', [{ docId: 'y', score: 2 }, { docId: 'b', score: 1 }]],
    ['q3', [{ docId: 'c', score: 1 }]],
    ['q4', [{ docId: 'z', score: 1 }]],
  ]), qrels);
  const B = evaluateRun(new Map([
    ['q1', [{ docId: 'x', score: 2 }, { docId: 'a', score: 1 }]],
    ['q2', [{ docId: 'b', score: 2 }]],
    ['q3', [{ docId: 'c', score: 5 }]],
    ['q4', [{ docId: 'y', score: 3 }, { docId: 'z', score: 2 }, { docId: 'd', score: 1 }]],
  ]), qrels);
  assert.equal(winsLossesTies(A.values.MRR, B.values.MRR), { wins: 1, losses: 2, ties: 1, n: 4 });
  assert.equal(winsLossesTies(B.values.MRR, A.values.MRR), { wins: 2, losses: 1, ties: 1, n: 4 });
  // float noise is a tie by default; a tolerance of 0 counts it
  assert.equal(winsLossesTies([0.1 + 0.2, 0.5], [0.3, 0.5]), { wins: 0, losses: 0, ties: 2, n: 2 });
  assert.equal(winsLossesTies([0.1 + 0.2, 0.5], [0.3, 0.5], 0), { wins: 1, losses: 0, ties: 1, n: 2 });
  assert.equal(winsLossesTies([0.9, 0.5], [0.3, 0.6], 0.2), { wins: 1, losses: 0, ties: 1, n: 2 });
  assert.throws(() => winsLossesTies([1], [1, 2]), /align/);
  assert.throws(() => winsLossesTies([NaN], [1]), /not a number/);
});

test.run();
