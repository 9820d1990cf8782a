// Notebook 05's claim check on the seed-averaged Table 2: the verdict generated from the table passes, a verdict that
// names another best row, miscounts the rows below it or states the paper's claim the other way is caught, and a
// seed claim shown without the seed run's table is refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkNotebookClaims, seedAveragedTable2, seedTable2Verdict, type SeedRuns, type SeedTable2Result } from '../lib/lessons';
import type { Qrels, Run } from '../lib/metrics';

const qrels: Qrels = new Map(['q1', 'q2', 'q3'].map((q, i) => [q, new Map([[`D${i + 1}`, 1]])]));
const run = (lists: Record<string, string[]>): Run => new Map(Object.entries(lists).map(([q, ids]) => [q, ids.map((docId, i) => ({ docId, score: 10 - i }))]));
const cosine = run({ q1: ['X', 'Y', 'Z', 'W', 'V', 'U', 'T', 'S', 'R', 'Q', 'D1'], q2: ['X', 'D2'], q3: ['X', 'Y', 'D3'] });
const hybrids = [run({ q1: ['D1'], q2: ['D2'], q3: ['D3'] }), run({ q1: ['D1'], q2: ['X', 'D2'], q3: ['D3'] })];
const perSeed: SeedRuns[] = [42, 43].map((seed, i) => ({ seed, systems: [{ id: 'cosine-base', label: 'Cosine (base)', test: cosine }, { id: 'nnssc+bm25', label: 'NN-SSC + BM25', test: hybrids[i] }] }));

function seedResults(): SeedTable2Result {
  const st = seedAveragedTable2(perSeed, { testQrels: qrels, paired: { permutations: 200, bootstrapSamples: 200, seed: 1 } });
  return {
    seeds: [42, 43], status: 'done', varied: ['nnssc+bm25'], alphas: [{ seed: 42, analytic: 0.4, grid: 0.5 }, { seed: 43, analytic: 0.45, grid: 0.5 }],
    rows: st.rows, means: st.means as never, comparisons: st.comparisons, best: st.best,
    claim: { better: st.claim.claim.better, than: st.claim.claim.than, metrics: [...st.claim.claim.metrics], atLeast: st.claim.claim.atLeast, ratios: st.claim.ratios, holds: st.claim.holds }, seconds: 1,
  };
}
const seedProblems = (r: Record<string, unknown>) => checkNotebookClaims('05-fusion', r).filter((p) => /seed table\): (the seed|a seed-averaged)/.test(p));

test('the seed-table verdict follows from its table; changed claims are caught', () => {
  const s = seedResults();
  const text = seedTable2Verdict(s);
  assert.match(text, /\*\*Best row by mean MAP over the 2 seeds\*\* \(42, 43\): \*\*NN-SSC \+ BM25\*\*/);
  assert.equal(seedProblems({ seedTable2: s, shownText: [text] }), []);
  const swapped = text.replace('): **NN-SSC + BM25**', '): **Cosine (base)**');
  assert.ok(seedProblems({ seedTable2: s, shownText: [swapped] }).some((p) => /names Cosine \(base\) as best/.test(p)));
  const miscount = text.replace(/(\d+) row\(s\) are significantly below it/, (_, n) => `${Number(n) + 1} row(s) are significantly below it`);
  assert.ok(seedProblems({ seedTable2: s, shownText: [miscount] }).some((p) => /rows are significantly below the best/.test(p)));
  // a row below the best by its CI and raw p but not after Holm is not counted as significantly below (issue 44)
  const c0 = s.comparisons!.find((c) => c.metric === 'MAP')!;
  const notAfter = { ...s, comparisons: s.comparisons!.map((c) => (c === c0 ? { ...c, meanDiff: 0.2, ciLow: 0.05, ciHigh: 0.3, pValue: 0.02, pHolm: 0.08 } : c)) };
  const notAfterText = seedTable2Verdict(notAfter);
  assert.match(notAfterText, /0 row\(s\) are significantly below it .*the bootstrap CI excludes 0 for 1 row\(s\) and the randomization test gives p < 0\.05 for 1 row\(s\)/);
  assert.equal(seedProblems({ seedTable2: notAfter, shownText: [notAfterText] }), []);
  // the same text with the row counted as significant is caught
  const overcount = notAfterText.replace('0 row(s) are significantly below it', '1 row(s) are significantly below it');
  assert.ok(seedProblems({ seedTable2: notAfter, shownText: [overcount] }).some((p) => /significantly below the best; 0 are/.test(p)));
  const flipped = text.includes('the claim **holds**') ? text.replace('the claim **holds**', 'the claim does **not** hold') : text.replace('the claim does **not** hold', 'the claim **holds**');
  assert.ok(seedProblems({ seedTable2: s, shownText: [flipped] }).some((p) => /paper's claim/.test(p)));
});

test('no seed claim without the seed run; one seed shows no seed verdict', () => {
  const s = seedResults();
  const text = seedTable2Verdict(s);
  assert.ok(seedProblems({ seedTable2: { seeds: [42], status: 'one seed', seconds: 0 }, shownText: [text] }).some((p) => /without a seed-averaged table/.test(p)));
  assert.is(seedTable2Verdict({ seeds: [42], status: 'one seed', seconds: 0 }), '');
});

test.run();
