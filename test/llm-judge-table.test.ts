/** The judge's table columns (P@5/10/20 or "not configured") and the judge-vs-citation comparison. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { judgeVerdict } from '../lib/lessons';
import { evaluateRun } from '../lib';
import { type DatasetRecord } from '../lib/data';
import { isJudgeRefusal, judgeColumns, judgeFailureNote, judgeVsCitation, kendallTauB, type JudgeVerdict, type LlmJudge } from '../lib/judge';
import { type Qrels, type Run } from '../lib/metrics';
import { withJudgeColumns } from '../lib/report';

function dataset(id: string): DatasetRecord {
  return {
    id, shortName: id, longName: id, abstract: id, doi: null, daac: 'T', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}
const DS = new Map(Array.from({ length: 30 }, (_, i) => [`d${i}`, dataset(`d${i}`)]));

/** A judge that says YES for even-numbered datasets; counts its calls. */
function evenJudge(): LlmJudge & { calls: number } {
  const j = {
    id: 'even@test', calls: 0,
    stats: { judgements: 0, cacheHits: 0, llmCalls: 0, repaired: 0, failed: 0, costUsd: 0, byKind: { exact: 0, prefix: 0, json: 0, marker: 0, 'sole-word': 0, failed: 0 } },
    async judge(_q: string, d: DatasetRecord): Promise<JudgeVerdict> {
      j.calls++;
      const yes = Number(d.id.slice(1)) % 2 === 0;
      return { datasetId: d.id, relevant: yes, kind: 'exact', thinkStripped: false, text: yes ? 'YES' : 'NO', model: 'm', costUsd: 0, fromCache: false };
    },
  };
  return j;
}

const run = (order: Record<string, number[]>): Run => new Map(Object.entries(order).map(([q, ids]) => [q, ids.map((i, r) => ({ docId: `d${i}`, score: 100 - r }))]));
const QUERIES = [{ id: 'q1', text: 'one' }, { id: 'q2', text: 'two' }];
// system A puts even datasets first (judge likes it); system B puts the cited d1 first (citation likes it)
const A = run({ q1: [0, 2, 4, 6, 8, 1, 3, 5, 7, 9], q2: [0, 2, 4, 6, 8, 1, 3, 5, 7, 9] });
const B = run({ q1: [1, 3, 5, 7, 9, 0, 2, 4, 6, 8], q2: [0, 2, 4, 6, 8, 1, 3, 5, 7, 9] });
const QRELS: Qrels = new Map([['q1', new Map([['d1', 1]])], ['q2', new Map([['d0', 1]])]]);

test('judge columns: P@5/10/20 per system; without a judge every row says not configured', async () => {
  const j = evenJudge();
  const cols = await judgeColumns({ systems: [{ system: 'A', run: A }, { system: 'B', run: B }], queries: QUERIES, datasets: DS, judge: j });
  assert.is(cols.rows[0]['P@5'], 1);
  assert.is(cols.rows[1]['P@5'], 0.5); // q1 0/5, q2 5/5
  assert.is(cols.rows[0]['P@10'], 0.5);
  const none = await judgeColumns({ systems: [{ system: 'A', run: A }], queries: QUERIES, datasets: DS, judge: null, notConfigured: 'not configured: no judge recordings' });
  assert.equal(none.rows, [{ system: 'A', judge: 'not configured: no judge recordings' }]);
});

test('judge vs citation: each family picks its system; per-query agreement and Kendall tau', async () => {
  const j = evenJudge();
  const cols = await judgeColumns({ systems: [{ system: 'A', run: A }, { system: 'B', run: B }], queries: QUERIES, datasets: DS, judge: j });
  const cmp = judgeVsCitation([
    { system: 'A', citation: evaluateRun(A, QRELS), judge: cols.results.get('A')! },
    { system: 'B', citation: evaluateRun(B, QRELS), judge: cols.results.get('B')! },
  ], { citationMetric: 'MAP', judgeMetric: 'P@5' });
  assert.equal(cmp.picks.find((p) => p.metric === 'MAP')!.systems, ['B']);
  assert.equal(cmp.picks.find((p) => p.metric === 'P@5')!.systems, ['A']);
  assert.is(cmp.queries, 2);
  // q1: citation picks B, judge picks A (disagree); q2: identical lists, both tie (agree)
  assert.equal(cmp.perQuery.map((p) => p.agree), [false, true]);
  assert.is(cmp.agreement, 0.5);
  assert.is(cmp.kendallTau, -1);
  assert.is(kendallTauB([1, 2, 3], [1, 2, 3]), 1);
});

/** Says YES for even datasets, refuses d1 and d3, and answers d5 with something that is neither YES nor NO. */
function refusingJudge(): LlmJudge {
  const base = evenJudge();
  return {
    ...base,
    async judge(q: string, d: DatasetRecord): Promise<JudgeVerdict> {
      if (d.id === 'd1' || d.id === 'd3') return { datasetId: d.id, relevant: null, kind: 'failed', thinkStripped: false, text: "I'm sorry, I can't judge this dataset.", model: 'm', costUsd: 0, fromCache: false };
      if (d.id === 'd5') return { datasetId: d.id, relevant: null, kind: 'failed', thinkStripped: false, text: 'Perhaps; it depends on the region.', model: 'm', costUsd: 0, fromCache: false };
      return base.judge(q, d);
    },
  };
}

test('judge refusals and unreadable answers are counted in every judge column ("N of M calls refused, scored NO")', async () => {
  assert.ok(isJudgeRefusal("I'm sorry, I can't judge this dataset."));
  assert.ok(isJudgeRefusal('<think>hmm</think>'));
  assert.ok(isJudgeRefusal('I cannot determine relevance from the summary.'));
  assert.not.ok(isJudgeRefusal('Perhaps; it depends on the region.'));
  const cols = await judgeColumns({ systems: [{ system: 'A', run: A }, { system: 'B', run: B }], queries: QUERIES, datasets: DS, judge: refusingJudge() });
  const a = cols.results.get('A')!;
  // A's top 20 per query holds d0-d9 (10 distinct datasets per query text, 2 texts): d1, d3 refused, d5 unreadable, each in both queries
  assert.is(a.pairs, 20);
  assert.is(a.failures.length, 6);
  assert.is(a.refused, 4);
  assert.is(cols.rows[0]['judge calls'], '4 of 20 calls refused and 2 unreadable, scored NO');
  assert.is(judgeFailureNote({ pairs: 278, failures: Array.from({ length: 12 }, () => ({ queryId: 'q', datasetId: 'd', text: '' })), refused: 12 }), '12 of 278 calls refused, scored NO');
  assert.is(judgeFailureNote({ pairs: 10, failures: [{ queryId: 'q', datasetId: 'd', text: 'maybe' }], refused: 0 }), '1 of 10 calls unreadable, scored NO');
  const ok = await judgeColumns({ systems: [{ system: 'A', run: A }], queries: QUERIES, datasets: DS, judge: evenJudge() });
  assert.is(ok.rows[0]['judge calls'], 'all 20 calls answered YES/NO');
  // Table 2's view carries the count beside the P@K
  const t2 = withJudgeColumns([{ system: 'A', MAP: 0.5 }, { system: 'C', MAP: 0.1 }] as never, cols.rows);
  assert.is(t2[0]['judge calls'], '4 of 20 calls refused and 2 unreadable, scored NO');
  assert.is(t2[1].judge, 'not judged');
  // and the rerank notebooks' verdict says so
  const comparison = judgeVsCitation(['A', 'B'].map((sys) => ({ system: sys, citation: evaluateRun(sys === 'A' ? A : B, QRELS), judge: cols.results.get(sys)! })));
  const verdict = judgeVerdict({ judgeId: 'even@test', notConfigured: null, columns: cols, byLabel: new Map([...cols.results].map(([k, r]) => [k, r.macro])), comparison, standIn: false });
  assert.match(verdict, '- Judge answers refused or unreadable, scored NO: 2 of 2 systems have some (column "judge calls"; A: 4 of 20 calls refused and 2 unreadable, scored NO).');
});

test.run();
