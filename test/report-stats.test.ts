import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { holmAdjust, type PairedComparison, type Qrels, type Run } from '../lib/metrics';
import { pairedPhraseProblems } from '../lib/lessons/claims';
import { clauseProblems, pairedClauses } from '../lib/lessons/06-llm-rerank/claims';
import { ablationComparisons, buildTable2, gainSentence, holmNote, pairedSentence, pairedText, tukeyHeatmap, tukeyRows } from '../lib/report';
import { applyRerankHolm, rerankTableRows, type RerankTable } from '../lib/rerank';
import { mulberry32 } from '../lib/util/random';

const qrels: Qrels = new Map(Array.from({ length: 30 }, (_, i) => [`q${i}`, new Map([[`rel${i}`, 1]])]));
/** A run whose relevant dataset for query i sits at rank rankOf(i) (1-based; > 5 = not retrieved). */
const mk = (rankOf: (i: number) => number): Run =>
  new Map(Array.from({ length: 30 }, (_, i) => [`q${i}`, Array.from({ length: 5 }, (_, k) => ({ docId: k === rankOf(i) - 1 ? `rel${i}` : `x${k}`, score: 10 - k }))]));
const rng = mulberry32(9);
const noise = Array.from({ length: 30 }, () => rng());

function table() {
  return buildTable2(
    [
      { id: 'best', label: 'Best', test: mk(() => 1) },
      { id: 'near', label: 'Near', test: mk((i) => (noise[i] < 0.25 ? 2 : 1)) },
      { id: 'mid', label: 'Mid', test: mk((i) => (noise[i] < 0.5 ? 2 : 1)) },
      { id: 'weak', label: 'Weak', test: mk((i) => (noise[i] < 0.9 ? 4 : 1)) },
      { id: 'gone', label: 'Gone', note: 'not available' },
    ],
    { testQrels: qrels, paired: { permutations: 2000, bootstrapSamples: 500 }, tukey: { permutations: 2000 } },
  );
}

test('Table 2: Holm p per metric over the rows compared with the best one, beside the raw p', () => {
  const t = table();
  assert.is(t.best.id, 'best');
  const map = t.comparisons.filter((c) => c.metric === 'MAP');
  assert.equal(map.map((c) => c.systemA), ['Near', 'Mid', 'Weak']);
  assert.equal(map.map((c) => c.pHolm), holmAdjust(map.map((c) => c.pValue)));
  assert.ok(map.every((c) => c.family === 'Holm over the 3 rows compared with the best one (MAP)'));
  for (const c of map) assert.ok(c.pHolm! >= c.pValue);
  const near = t.rows.find((r) => r.system === 'Near')!;
  assert.is(near['p Holm (MAP)'], map[0].pHolm);
  assert.is(near['d_z (MAP)'], map[0].effectSize);
  assert.is(t.rows.find((r) => r.system === 'Best')!['p Holm (MAP)'], null);
  const long = t.paired.find((r) => r.system === 'Weak' && r.metric === 'MAP')!;
  assert.equal([long.improved, long.tied, long.worse], [0, 30 - map[2].worse, map[2].worse]);
  assert.ok((long.worse as number) > 20 && (long['d_z'] as number) < 0);
  assert.match(t.holmNote, /Holm over the 3 rows compared with the best one/);
});

test('holmNote lists exactly the conclusions that change after Holm', () => {
  const t = table();
  const c = t.comparisons[0];
  const changed = [{ ...c, pValue: 0.04, pHolm: 0.08 }];
  assert.match(holmNote([...t.comparisons, ...changed], changed), /raw but not after Holm: Near vs Best on R@10 \(p 0\.040 → Holm 0\.080\)/);
  assert.match(holmNote(t.comparisons, []), /No conclusion at 0\.05 changes/);
});

test('Table 2: randomised Tukey HSD over all available rows, as rows and a heat map', () => {
  const t = table();
  const h = t.tukey!;
  assert.equal(h.systems, ['Best', 'Near', 'Mid', 'Weak']);
  assert.is(h.metric, 'MAP');
  assert.ok(h.p[0][3] < 0.01, 'Best vs Weak told apart');
  assert.ok(h.p[0][1] > h.p[0][3], 'the nearer row has the larger p');
  const rows = tukeyRows(h);
  assert.is(rows[0].Weak, h.p[0][3]);
  assert.is(rows[0].Best, null);
  const fig = tukeyHeatmap(h, { title: 'Tukey HSD' });
  assert.equal((fig.data[0] as { z: number[][] }).z[0][3], 1 - h.p[0][3]);
  const labels = (fig.layout!.annotations as { text: string }[]).map((a) => a.text);
  assert.is(labels[3], h.p[0][3].toFixed(2));
  assert.is(labels[0], '');
  assert.is(buildTable2([{ id: 'a', label: 'A', test: mk(() => 1) }, { id: 'b', label: 'B', test: mk(() => 2) }], { testQrels: qrels, tukey: false, paired: { permutations: 10, bootstrapSamples: 10 } }).tukey, undefined);
});

test('pairedText is the one phrasing: sentence (with Holm and effect sizes), clause, interval; the old names call it', () => {
  const t = table();
  const c = t.comparisons.find((x) => x.systemA === 'Weak' && x.metric === 'MAP')!;
  const s = pairedText(c, { labelA: 'Weak', labelB: 'Best' });
  assert.match(s, /^\*\*MAP\*\* −0\.\d{3} \[−0\.\d{3}, −0\.\d{3}\]: Best is ahead; the 95% CI \*\*excludes 0\*\* \(p = [^,]+, Holm [^)]+\)\./);
  assert.match(s, new RegExp(`${c.improved} queries better, ${c.tied} tied, ${c.worse} worse; d_z −\\d\\.\\d\\d \\[`));
  assert.is(pairedSentence(c, 'Weak', 'Best'), s);
  assert.match(pairedText(c, { form: 'clause' }), /^ΔMAP −0\.\d{3} \(95% CI \[.*\], \*\*excludes 0\*\*; p = .*, Holm .*\)$/);
  assert.is(gainSentence('MAP', c), pairedText(c, { form: 'clause' }));
  assert.is(pairedText({ metric: 'x', meanDiff: 0.0314, ciLow: -0.002, ciHigh: 0.06 }, { form: 'interval' }), '+0.031 [−0.002, +0.060]');
  const typed = { ...c, metric: 'MRR', meanDiff: 0.1, ciLow: 0.05, ciHigh: 0.15, pValue: 0.01, pHolm: undefined };
  assert.is(gainSentence('MRR', typed), 'ΔMRR +0.100 (95% CI [+0.050, +0.150], **excludes 0**; p = 0.010)');
  assert.is(gainSentence('MRR', undefined), 'ΔMRR: n/a');
});

test('pairedText says so where the bootstrap CI and the randomization p disagree, in every form but the interval', () => {
  // 07's tool routing: the CI's low end is just above 0 while p is above .05
  const ciOnly = { metric: 'MAP', meanDiff: 0.035, ciLow: 0.0004, ciHigh: 0.071, pValue: 0.057 };
  // not significant, so "excludes 0" is not bold (bold is the one rule's "significant")
  assert.match(pairedText(ciOnly, { form: 'clause' }), /, excludes 0; p = 0\.057\) — \*\*the two tests disagree: the bootstrap CI excludes 0 but the randomization test gives p = 0\.057 ≥ 0\.05/);
  const sentence = pairedText(ciOnly, { labelA: 'tools', labelB: 'plain' });
  assert.match(sentence, /tools is ahead; the 95% CI excludes 0 \(p = 0\.057\); \*\*the two tests disagree/);
  assert.not.match(sentence, /cannot tell/);
  const pOnly = { metric: 'MRR', meanDiff: 0.02, ciLow: -0.001, ciHigh: 0.05, pValue: 0.03 };
  assert.match(pairedText(pOnly, { form: 'clause' }), /the two tests disagree: the randomization test gives p = 0\.030 < 0\.05 but the bootstrap CI includes 0/);
  assert.match(pairedText(pOnly), /the two tests disagree: the randomization test gives p = 0\.030 < 0\.05/);
  for (const agree of [{ ...ciOnly, pValue: 0.01 }, { ...pOnly, pValue: 0.2 }, { ...ciOnly, pValue: undefined }]) {
    assert.not.match(pairedText(agree), /disagree/);
    assert.not.match(pairedText(agree, { form: 'clause' }), /disagree/);
  }
  // a bound that is not 0 never reads as 0: "[+0.000, …], excludes 0" read as a CI touching 0 (check-claims flagged 07)
  assert.is(pairedText(ciOnly, { form: 'interval' }), '+0.035 [+0.0004, +0.071]');
  assert.equal(pairedPhraseProblems(pairedText(ciOnly, { form: 'clause' })), []);
  assert.equal(pairedPhraseProblems(pairedText(ciOnly)), []);
  assert.is(pairedText({ ...ciOnly, ciLow: -0.00002 }, { form: 'interval' }), '+0.035 [−0.00002, +0.071]');
  assert.is(pairedText({ ...ciOnly, ciLow: 0 }, { form: 'interval' }), '+0.035 [+0.000, +0.071]');
  // 06's and 07's own clause check reads such a bound and holds it against the row
  const [clause] = pairedClauses(pairedText(ciOnly, { form: 'clause' }));
  assert.is(clause?.lo, '+0.0004');
  assert.equal(clauseProblems('routedVsOffline', clause, ciOnly as unknown as PairedComparison), []);
  assert.ok(clauseProblems('routedVsOffline', clause, { ...ciOnly, ciLow: 0.0005 } as unknown as PairedComparison).some((x) => /CI is \[\+0\.0004/.test(x)));
  // notebook 07's 'routed − offline' comparison reads the same through gainSentence, which the rerank verdicts use
  const routed = ciOnly as unknown as PairedComparison;
  assert.match(gainSentence('MAP', routed), /^ΔMAP \+0\.035 \(95% CI \[\+0\.0004, \+0\.071\], excludes 0; p = 0\.057\) — \*\*the two tests disagree/);
  assert.match(pairedSentence(routed, 'routed', 'offline'), /routed is ahead.*the two tests disagree/);
});

test('pairedText follows the one rule: a CI that excludes 0 with p < .05 but Holm p ≥ .05 is not bold and is said to be not significant after Holm (07, issue 44)', () => {
  const c = { metric: 'MAP', meanDiff: 0.032, ciLow: 0.003, ciHigh: 0.062, pValue: 0.035, pHolm: 0.070 };
  const clause = pairedText(c, { form: 'clause' });
  assert.is(clause, 'ΔMAP +0.032 (95% CI [+0.003, +0.062], excludes 0; p = 0.035, Holm 0.070) — **not significant after Holm (Holm p = 0.070 ≥ 0.05), so not established**');
  assert.match(pairedText(c, { labelA: 'rerank', labelB: 'backbone' }), /the 95% CI excludes 0 \(p = 0\.035, Holm 0\.070\); \*\*not significant after Holm/);
  const sig = { ...c, pHolm: 0.02 };
  assert.match(pairedText(sig, { form: 'clause' }), /\*\*excludes 0\*\*; p = 0\.035, Holm 0\.020\)$/);
  // the generic claim check catches the old phrasing of the same numbers and passes the new one
  const old = 'ΔMAP +0.032 (95% CI [+0.003, +0.062], **excludes 0**; p = 0.035, Holm 0.070)';
  assert.ok(pairedPhraseProblems(old).some((p) => /calls significant/.test(p)), 'bold excludes 0 with Holm .070 is caught');
  assert.ok(pairedPhraseProblems(old.replace('**excludes 0**', 'excludes 0')).some((p) => /not say so/.test(p)), 'a missing "not significant after Holm" is caught');
  assert.equal(pairedPhraseProblems(clause), []);
  assert.equal(pairedPhraseProblems(pairedText(sig, { form: 'clause' })), []);
});

test('ablation comparisons: Holm per metric over the components the hybrid is compared with', () => {
  const t = table();
  const ab = ablationComparisons(t, ['best', 'Best'], [['near', 'Near'], ['weak', 'Weak'], ['gone', 'Gone']]);
  assert.equal(Object.keys(ab), ['Best vs Near', 'Best vs Weak']);
  const raw = [ab['Best vs Near'][3].pValue, ab['Best vs Weak'][3].pValue];
  assert.is(ab['Best vs Near'][3].metric, 'MAP');
  assert.equal([ab['Best vs Near'][3].pHolm, ab['Best vs Weak'][3].pHolm], holmAdjust(raw));
  assert.is(ab['Best vs Near'][3].correction, 'Holm');
});

test('rerank tables: Holm per backbone and metric over the rerankers compared with it, shown beside the raw p', () => {
  const gain = (p: number) => [{ metric: 'MRR', pValue: p, meanDiff: 0.1, ciLow: 0, ciHigh: 0.2, improved: 3, tied: 1, worse: 2, effectSize: 0.4 }];
  const row = { system: 'x', 'R@10': 0, 'R@20': 0, 'R@100': 0, MAP: 0, MRR: 0 };
  const o = (backbone: string, reranker: string, p: number) => ({ backbone, reranker, label: `${backbone.toUpperCase()} + ${reranker}`, row, gain: gain(p), summary: { costPerQueryUsd: 0, failedWindows: 0 } });
  const t = {
    backbones: [{ id: 'a', label: 'A', row }, { id: 'b', label: 'B', row }],
    outcomes: [o('a', 'r1', 0.01), o('a', 'r2', 0.04), o('a', 'r3', 0.03), o('b', 'r1', 0.04)],
    errors: [],
  } as unknown as RerankTable;
  assert.equal(applyRerankHolm(t), ['Holm over the 3 reranker rows compared with A', 'Holm over the 1 reranker row compared with B']);
  assert.equal(t.outcomes.map((x) => x.gain[0].pHolm), [...holmAdjust([0.01, 0.04, 0.03]), 0.04]);
  const rows = rerankTableRows(t);
  assert.is(rows[2]['p Holm (MRR)'], t.outcomes[1].gain[0].pHolm);
  assert.is(rows[2]['improved / tied / worse (MRR)'], '3 / 1 / 2');
});

test.run();
