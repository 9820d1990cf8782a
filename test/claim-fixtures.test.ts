// Issue 44's ten sentences, as they stood when the fact-check read the nine executed notebooks (full snapshot and
// teacher mode), kept as fixtures: each must fail the claim check that now covers its kind of error, and the
// sentence the notebook shows now (or the rule's own wording) must pass it. The numbers beside each sentence are the
// ones the fact-check re-derived (typed comparisons as results.json records them).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  alphaMethodProblems, checkNotebookClaims, pairedPhraseProblems, paperValueProblems, quotedIntervalProblems, queryCountProblems,
  seedResultProblems, styleVerdictProblems,
} from '../lib/lessons';
import type { PairedComparison } from '../lib/metrics';
import { pairedText } from '../lib/report';
import { NOT_STATED, settingRows } from '../lib/report/frame';
import { PAPER_FINETUNE_CONFIG, PAPER_FINETUNE_STATED } from '../lib/train/finetune';

/** A MAP comparison of `system` with the best row, as results.json records it. */
const vsBest = (system: string, meanDiff: number, ciLow: number, ciHigh: number, pValue: number, pHolm: number): PairedComparison => ({
  metric: 'MAP', n: 145, meanA: 0.3, meanB: 0.3 - meanDiff, meanDiff, pValue, pHolm, ciLow, ciHigh, permutations: 10000, bootstrapSamples: 10000,
  seed: 42, systemA: system, systemB: 'NN-SSC (static backbone) + BM25', improved: 20, tied: 60, worse: 65, effectSize: -0.3, effectSizeCi95: [-0.5, -0.1],
  family: 'Holm over the 13 rows compared with the best one (MAP)', correction: 'Holm',
});
// the fact-check's case: 11 rows with a CI below 0, one of them (Cosine (fine-tuned) + BM25) at p .012 raw, .119 after Holm
const below = Array.from({ length: 10 }, (_, i) => vsBest(`Row ${i + 1}`, -0.1, -0.15, -0.05, 0.0001, 0.0013));
const holmOnly = vsBest('Cosine (fine-tuned) + BM25', -0.03, -0.055, -0.004, 0.012, 0.119);
const tiedRows = [vsBest('BM25', -0.01, -0.03, 0.01, 0.3, 1), vsBest('NN-SSC', -0.005, -0.02, 0.01, 0.5, 1)];
const comparisonsVsBest = [...below, holmOnly, ...tiedRows];
const problems05 = (shownText: string[]) => checkNotebookClaims('05-fusion', { comparisonsVsBest, shownText, best: { label: 'NN-SSC (static backbone) + BM25' } });

test('1. 05 cell 18: "11 row(s) are significantly below it (CI excludes 0)" while Holm leaves 10', () => {
  const old = '### What Table 2 shows\n\n**Against the best row (MAP, paired bootstrap 95% CI and Holm-corrected p).** 11 row(s) are significantly below it (CI excludes 0); its CI includes 0 against: BM25; NN-SSC — on these queries they are not distinguishable from the best.';
  assert.ok(problems05([old]).some((p) => /says 11 rows are significantly below the best; 10 MAP rows/.test(p)));
  const now = old.replace('11 row(s) are significantly below it (CI excludes 0)', '10 row(s) are significantly below it (CI excludes 0, p Holm < 0.05); below it by the CI but not after the Holm correction: Cosine (fine-tuned) + BM25 (p Holm = 0.119)');
  assert.not.ok(problems05([now]).some((p) => /significantly below the best/.test(p)));
});

test('2. 05 cell 42: the discussion leaves the row Holm does not confirm out of "not significantly different from"', () => {
  const old = '## Discussion\n\n**Best row.** On 145 test queries (titles), the best row by π is **NN-SSC (static backbone) + BM25** (MAP 0.422).\nIts MAP is not significantly different (paired randomization p ≥ 0.05) from: BM25; NN-SSC.\n';
  assert.ok(problems05([old]).some((p) => /lists \[BM25; NN-SSC\] as not different from the best/.test(p)));
  const now = old.replace('(paired randomization p ≥ 0.05) from: BM25; NN-SSC.', '(paired bootstrap CI includes 0 or p Holm ≥ 0.05) from: Cosine (fine-tuned) + BM25; BM25; NN-SSC.');
  assert.not.ok(problems05([now]).some((p) => /not different from the best/.test(p)));
});

test('3. 07 cell 10: bold "excludes 0" for rows whose Holm p is .063–.091', () => {
  const old = '- offline reranker (learned, no LLM): MAP 0.387 vs 0.356; ΔMAP +0.032 (95% CI [+0.003, +0.062], **excludes 0**; p = 0.035, Holm 0.070); R@10 unchanged.';
  const found = pairedPhraseProblems(old);
  assert.ok(found.some((p) => /calls significant/.test(p)) && found.some((p) => /Holm p = 0\.07 ≥ 0\.05, and the text does not say so/.test(p)), found.join('\n'));
  const now = pairedText({ metric: 'MAP', meanDiff: 0.032, ciLow: 0.003, ciHigh: 0.062, pValue: 0.035, pHolm: 0.07 }, { form: 'clause' });
  assert.equal(pairedPhraseProblems(now), []);
});

test('4. 05 in teacher mode: "12 row(s) are significantly below it" beside "not significantly different (p ≥ 0.05)" from seven rows', () => {
  // the sample's case: 12 rows with a CI below 0, but after Holm only 5 are significant; the discussion named 7 as not different
  const sample = [
    ...Array.from({ length: 5 }, (_, i) => vsBest(`Row ${i + 1}`, -0.2, -0.3, -0.1, 0.001, 0.01)),
    ...Array.from({ length: 7 }, (_, i) => vsBest(`Weak ${i + 1}`, -0.1, -0.2, -0.01, 0.04, 0.2)),
  ];
  const verdict = '### What Table 2 shows\n\n**Against the best row (MAP, paired bootstrap 95% CI and Holm-corrected p).** 12 row(s) are significantly below it (CI excludes 0).';
  const found = checkNotebookClaims('05-fusion', { comparisonsVsBest: sample, shownText: [verdict] });
  assert.ok(found.some((p) => /says 12 rows are significantly below the best; 5 MAP rows/.test(p)), found.join('\n'));
});

test('5. 08 cells 0 and 11: "α from Eq. 7 on the training split" while the walkthrough fuses with an adaptive α per query', () => {
  const results = { retrieval: { alphaSource: 'adaptive α per query (start α 0.300, fitted on 459 training queries)' } };
  assert.ok(alphaMethodProblems('five queries walked through router → hybrid retrieval (min-max convex fusion, α from Eq. 7 on the training split)', results).length > 0);
  assert.ok(alphaMethodProblems('fused as … with α from the stored fusion record (Eq. 7 on the training split)', results).length > 0);
  assert.equal(alphaMethodProblems("with α set per query by the default ranking's adaptive model (starting from Eq. 7's α on the training split)", results), []);
});

test('6. 02 cells 16-17: "No per-style rows for Cosine (base) against BM25" beside a table that has them', () => {
  const rows = [{ system: 'Cosine (base)', style: 'all', vsReference: { 'nDCG@10': { diff: -0.2 } } }, { system: 'Cosine (base)', style: 'question', vsReference: { 'nDCG@10': { diff: -0.1 } } }];
  const found = styleVerdictProblems({ shownText: ['No per-style rows for Cosine (base) against BM25.'] }, rows, 'Cosine (base)', 'BM25');
  assert.ok(found.some((p) => /the table has them/.test(p)), found.join('\n'));
});

test('7. 04 cell 3: a seed result ("stopped three of five seeds … notebook 05, section 9") this run does not produce', () => {
  assert.ok(seedResultProblems('keeps the best epoch (patience 5 and 60 epochs stopped three of five seeds on a noisy plateau, 0.03 lower in hybrid MAP; notebook 05, section 9).').length > 0);
  assert.equal(seedResultProblems('How much the stopping rule and the seed move the rows is what the optional seed run measures (`bench/nnssc-seeds.cjs`).'), []);
});

test('8. 01 cell 0: "a stratified subset of N = 200 test queries" where the run has 145', () => {
  assert.ok(queryCountProblems('citation count, and a stratified subset of N = 200 test queries for the costly rerank stages.', 145).length > 0);
  assert.equal(queryCountProblems("The rerank tables below score this run's test subset, **N = 145** queries (fewer than the paper's stratified N = 200).", 145), []);
});

test('9. 05 cell 38: a CI (+.052, +.096) that neither the notebook nor results.json holds', () => {
  assert.ok(quotedIntervalProblems('the static encoder gains over NN-SSC on the dev half (+.052, +.096), so it became the default.').length > 0);
  assert.ok(quotedIntervalProblems('cross-fitted by topic, it gained +.009\n[−.002, .020] nDCG@10 there').length > 0);
  assert.equal(quotedIntervalProblems('a bounding box such as (40.7, 74.0) or the list [1, 2]'), []);
});

test('10. unsourced "paper" values: 04\'s B200, 01\'s 21,272 / 17,038 / 2.24, 03\'s configuration column', () => {
  const notes = "Measured on the NASA-EO-Bench test split (4,234 queries; 8,058 datasets). NN-SSC: 1000 epochs, batch 64, Adam lr 1e-4, seed 42. BM25 0.0643. Subset: N = 200.";
  assert.ok(paperValueProblems('The paper trains 1000 epochs on a B200; here training stops early.', notes).some((p) => /B200/.test(p)));
  assert.ok(paperValueProblems("and 725 queries (145 test), fewer than its 21,272 (4,234 test), against NASA-EO-Bench's 8,058 datasets.", notes).some((p) => /21,272/.test(p)));
  assert.ok(paperValueProblems("Training data: this benchmark's training split has 580 queries, 29.4× fewer than NASA-EO-Bench's 17,038.", notes).some((p) => /17,038/.test(p)));
  assert.ok(paperValueProblems("mean 6.77, max 104 — 3.02× NASA-EO-Bench's 2.24 per query", notes).some((p) => /2\.24/.test(p)));
  // what is in the notes passes, at the precision the sentence prints
  assert.equal(paperValueProblems("ours 0.280 vs the paper's 0.064 (+0.215); NASA-EO-Bench's 8,058 datasets; the paper trains 1000 epochs", notes), []);
  // 03's configuration table: a setting the notes do not state is not shown as the paper's
  const rows = settingRows(PAPER_FINETUNE_CONFIG, { config: PAPER_FINETUNE_CONFIG, label: 'paper', stated: PAPER_FINETUNE_STATED });
  for (const k of ['weightDecay', 'maxQueryTokens', 'negativesPerPair', 'valFraction', 'seed']) assert.is(rows.find((r) => r.setting === k)!.paper, NOT_STATED, k);
  assert.is(rows.find((r) => r.setting === 'lr')!.paper, String(PAPER_FINETUNE_CONFIG.lr));
});

test('a p just under .05 is not shown as 0.050 (06 on 2026-12-06: p 0.0496, Holm 0.099, read back as ≥ .05 by the check)', () => {
  const c = { metric: 'MAP' as const, meanDiff: 0.0355, ciLow: 0.00053, ciHigh: 0.0713, pValue: 0.049595, pHolm: 0.0992 };
  const shown = pairedText(c, { form: 'clause' });
  assert.match(shown, /p = 0\.0496, Holm 0\.099\b/);
  assert.equal(pairedPhraseProblems(shown), []);
  assert.ok(pairedPhraseProblems(shown.replace('0.0496', '0.050')).some((p) => /disagree at 0\.05/.test(p)), 'three decimals read as ≥ .05');
  assert.match(pairedText({ ...c, pValue: 0.021, pHolm: 0.042 }, { form: 'clause' }), /p = 0\.021, Holm 0\.042\b/);
});

test.run();
