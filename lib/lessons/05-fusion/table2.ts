// Notebook 05, sections 4–11: Table 2 as the notebook shows it (run files, the paper's and the judge's columns,
// paired tables, verdict), and every view that follows from it — multiple testing, the self-supervised rows, the α
// knob, per-query gains, score geometry, ablation, the seed sections, the query styles, the discussion — then
// results.json. Each step is one notebook cell: a function of the values earlier cells made, which returns what it
// computed; the notebook keeps those values in named variables and results.json is a pure function of them
// (`fusionResults`), so cells that do not read each other's values run in any order, and a re-run cell replaces its
// value and, through its `showMarkdown` key, its sentence.
import { llmJudgePlan, plannedJudge } from '../../judge/plan';
import { pairedTable } from '../../metrics/systems';
import type { PairedComparison, Run } from '../../metrics/types';
import { showFigure, showMarkdown, showTable } from '../../report/display';
import { closeFigureRenderer, reportsDir, writeResults } from '../../report/export';
import { repoRelativePath, toDataFrame } from '../../report/frame';
import { ablationComparisons, alphaRows, hybridGains, selfSupervisedPairedRows, table2GainPairs, type PerQueryGain } from '../../report/fusion';
import { runFilesSource, sourceCaption } from '../../report/lesson';
import { tukeyHeatmap, tukeyRows, vsReferenceVerdict } from '../../report/paired-text';
import { paperReportsRow, paperTable2Value, PAPER_TABLE2_CLAIM, TABLE2_DIFFERENCES } from '../../report/paper';
import { table2BestColumns, table2JudgeColumns, table2VsReference, withJudgeColumns, withPaperColumns, writeTable2RunFiles, type Table2, type Table2VsReference } from '../../report/table2';
import type { TableRow, TableSource } from '../../report/types';
import { tfBackendInfo } from '../../tensor/backend';
import { trainingCosts, type Table2SectionInputs } from './lesson';
import { readSeedSpread, seedEpochRows, seedSpreadFiles, seedSpreadMissing, seedSpreadRows, seedSpreadVerdict } from './seed-spread';
import type { SeedTable2Result } from './seed-table';
import { FUSION_TEXT_KEYS } from './text-keys';
import { titleDefaultSection, type DefaultRankingResult, type StyleTable2Result, type TitleDefaultResult } from './styles';
import { alphaTryIt, strongestSemantic, type AlphaTryIt } from './try-it';
import { gainFigure, gainRows, mostHelpedQuery, scoreGeometryFigure } from './views';
import { ablationVerdict, alphaTryItVerdict, fusionDiscussion, gainsVerdict, selfSupervisedNote, table2Verdict } from './verdicts';

/** The columns of Table 2's view, in order. */
export const TABLE2_VIEW_COLUMNS = ['system', 'in paper', 'R@10', 'R@10 (paper)', 'R@20', 'R@20 (paper)', 'R@100', 'R@100 (paper)', 'MAP', 'MAP (paper)', 'MRR', 'MRR (paper)', 'π', 'π (train)', 'P@5', 'P@10', 'P@20', 'judge',
  'α', 'α from', 'trainable params', 'training time (s)', 'backend', 'ΔMAP vs best [95% CI]', 'p (MAP)', 'ΔMRR vs best [95% CI]', 'p (MRR)', 'note'];

/** Table 2 as shown (section 4), with what it was made from: what the later steps read. Plain values; no step changes it. */
export interface FusionTable2 extends Table2SectionInputs {
  table: Table2;
  /** Table 2's display rows (paper and judge columns). */
  view: TableRow[];
  judged: { rows: TableRow[] };
  runFiles: string[];
  /** Source of every test-split table and figure (run and qrels files, settings). */
  source: TableSource;
  /** Every row against BM25-stop (null when it has no test run). */
  vsBm25Stop: Table2VsReference | null;
}

/** What the α knob made (section 6): the hybrid it re-fused, the α and the re-fused rows and curve. */
export interface FusionTryIt {
  hybrid: string;
  alpha: number;
  result: AlphaTryIt;
  source: TableSource;
}

/**
 * Section 4: write every row's run files, add the judge's P@K and the paper's columns, show Table 2, every row
 * against the best one, and the verdict generated from the table.
 */
export async function table2Section(inputs: Table2SectionInputs & { table: Table2 }): Promise<FusionTable2> {
  const { lesson, systems, table } = inputs;
  const { corpus, test, train, bench, sample, notebook } = lesson;
  const runFiles = writeTable2RunFiles(reportsDir(notebook), systems, test.qrels, train.qrels);
  const source = runFilesSource(runFiles, { split: 'test', depth: 100, 'α from': 'train split', bootstrap: 10000, permutations: 10000, seed: 42, sample }, { split: 'test' });
  console.log(`${runFiles.length} run/qrels files in ${repoRelativePath(reportsDir(notebook))}`);
  const judgePlan = llmJudgePlan(); // $EO_JUDGE_MODEL + key, or judge calls recorded in the store (replay)
  const judged = await table2JudgeColumns({ systems, queries: test.queries, corpus, judge: plannedJudge(judgePlan), notConfigured: judgePlan.status });
  const view = withPaperColumns(withJudgeColumns(table.rows, judged.rows), { inPaper: paperReportsRow, paperValue: paperTable2Value });
  const columns = TABLE2_VIEW_COLUMNS;
  showTable(toDataFrame(view, columns), {
    title: `Table 2 on the test split (${test.queries.length} queries, ${bench.writerLabel}); Δ and p vs the best row: ${table.best.label}`,
    digits: 4, best: table2BestColumns(columns), source: { ...source, note: '(paper) columns: the paper\'s Table 2 (arXiv 2607.02387), empty for rows the paper does not report' },
  });
  showTable(toDataFrame(table.paired), { title: `Every row vs ${table.best.label}, all metrics (paired randomization p, bootstrap 95% CI)`, digits: 4, maxRows: 400, source });
  showMarkdown(table2Verdict({
    table, claim: PAPER_TABLE2_CLAIM, paperValue: paperTable2Value, inPaper: paperReportsRow,
    reasons: [TABLE2_DIFFERENCES.queries, TABLE2_DIFFERENCES.encoder, TABLE2_DIFFERENCES.finetune, TABLE2_DIFFERENCES.nnssc, TABLE2_DIFFERENCES.benchmark],
    sample, queries: test.queries.length, datasets: corpus.datasets.length, writerLabel: bench.writerLabel,
  }), { key: FUSION_TEXT_KEYS.table2 });
  // every row against the strong short baseline (lib/retrieve/bm25-stop.ts), Holm over the rows compared with it
  const vsBm25Stop = table2VsReference(table, systems, 'bm25-stop', { paired: { seed: 42, permutations: 10000, bootstrapSamples: 10000 } });
  if (vsBm25Stop) {
    showTable(toDataFrame(vsBm25Stop.rows.filter((r) => ['MAP', 'MRR', 'R@10'].includes(String(r.metric)))), {
      title: `Every row − ${vsBm25Stop.reference.label} (the strong short lexical baseline), MAP, MRR and R@10: paired randomization p, bootstrap 95% CI, Holm per metric`, digits: 4, maxRows: 400, source,
    });
  }
  showMarkdown(vsBm25Stop ? vsReferenceVerdict(vsBm25Stop.comparisons, vsBm25Stop.reference.label, 'MAP') : '', { key: FUSION_TEXT_KEYS.vsBm25Stop });
  return { ...inputs, view, judged, runFiles, source, vsBm25Stop };
}

/** Section 5: Holm's note, and the randomised Tukey HSD over every pair of rows with its heatmap. */
export async function showMultipleTesting(t2: FusionTable2): Promise<void> {
  const { table } = t2;
  showMarkdown(table.holmNote, { key: FUSION_TEXT_KEYS.holm });
  if (!table.tukey) return;
  showTable(toDataFrame(tukeyRows(table.tukey)), { title: `Randomised Tukey HSD on ${table.tukey.metric}: p for every pair of rows (${table.tukey.n} queries, ${table.tukey.permutations} permutations)`, digits: 3 });
  await showFigure(tukeyHeatmap(table.tukey, { title: `Tukey HSD p on ${table.tukey.metric}` }), { name: 'tukey-hsd', notebook: t2.lesson.notebook });
}

/** Section 5: the corpus self-supervised rows against their plain rows (test split); returns the paired rows. */
export function selfSupervisedSection(t2: FusionTable2): TableRow[] {
  const { lesson, plan, table, systems, source } = t2;
  showMarkdown(selfSupervisedNote({ found: plan.selfSupervised.found, missing: plan.selfSupervised.missing, sample: lesson.sample }), { key: FUSION_TEXT_KEYS.selfSupervised });
  const paired = selfSupervisedPairedRows(table, systems);
  if (paired.length > 0) showTable(toDataFrame(paired), { title: 'Corpus self-supervised rows − their plain rows (test split): Δ, bootstrap 95% CI, paired randomization p', digits: 4, maxRows: 100, source });
  return paired;
}

/** Section 6, the α knob: re-fuse the strongest hybrid at `choice` ('analytic' = the reported row). */
export async function tryAlphaSection(t2: FusionTable2, choice: number | 'analytic'): Promise<FusionTryIt> {
  const { lesson, runFiles, hybrids, plan } = t2;
  const { corpus, test, sample, notebook } = lesson;
  const semId = strongestSemantic(hybrids);
  const hybrid = hybrids[semId];
  const alpha = choice === 'analytic' ? hybrid.analytic.alpha! : choice;
  const label = plan.scored[semId].scorer.label;
  const result = alphaTryIt({ corpus, test, hybrid, semantic: plan.scored[semId].scores, lexical: plan.scored.bm25.scores, alpha });
  const source = runFilesSource(runFiles, { split: 'test', hybrid: `${label} + BM25`, 'your α': alpha, 'analytic α': hybrid.analyticRecord.alpha, 'grid α': hybrid.gridRecord.alpha, sample }, { split: 'test', ids: [semId, 'bm25'] });
  showTable(toDataFrame(result.rows), { title: `Try it: ${label} + BM25 at α = ${alpha.toFixed(3)}`, digits: 4, best: { MAP: 'max', MRR: 'max', 'R@10': 'max' }, source });
  await showFigure(result.figure, { name: 'alpha-try-it', notebook });
  showMarkdown(sourceCaption('Figure: test MAP vs α (re-fused from the component runs\' score vectors), analytic, grid and your α marked.', source), { key: FUSION_TEXT_KEYS.tryItCaption });
  showMarkdown(alphaTryItVerdict(result, label), { key: FUSION_TEXT_KEYS.tryIt });
  return { hybrid: semId, alpha, result, source };
}

/** Section 7: per-query ΔAP of each hybrid over each of its components; returns the gains. */
export async function gainsSection(t2: FusionTable2): Promise<PerQueryGain[]> {
  const { table, systems, plan, source, lesson } = t2;
  const gains = hybridGains(table, systems, table2GainPairs(plan.rows));
  if (gains.length > 0) {
    await showFigure(gainFigure(gains), { name: 'per-query-gain', notebook: lesson.notebook });
    showTable(toDataFrame(gainRows(gains)), { title: 'Per-query gains (AP)', digits: 4, source });
  }
  showMarkdown(gains.length ? sourceCaption('Figure: per-query ΔAP of each hybrid over each component, test split, sorted.', source) : '', { key: FUSION_TEXT_KEYS.gainsCaption });
  showMarkdown(gains.length ? gainsVerdict(gains) : '', { key: FUSION_TEXT_KEYS.gains });
  return gains;
}

/**
 * Section 8: the score geometry of the test query the strongest hybrid helped most, at its analytic α; the hybrid
 * is the one `tryIt` re-fused when given (the knob's hybrid), else the strongest.
 */
export async function scoreGeometrySection(t2: FusionTable2, tryIt: FusionTryIt | null = null): Promise<void> {
  const { lesson, table, source, hybrids, plan } = t2;
  const { corpus, test, notebook } = lesson;
  const semId = tryIt?.hybrid ?? strongestSemantic(hybrids);
  const alpha = hybrids[semId].analytic.alpha!;
  const qid = mostHelpedQuery(table, `${semId}+bm25`, semId) ?? test.queries[0].id;
  const qi = test.queries.findIndex((q) => q.id === qid);
  await showFigure(scoreGeometryFigure({
    corpus, query: test.queries[qi], qrels: test.qrels, semantic: plan.scored[semId].scores.test.scores[qi], lexical: plan.scored.bm25.scores.test.scores[qi],
    alpha, semanticLabel: plan.scored[semId].scorer.label,
  }), { name: 'score-geometry', notebook });
  showMarkdown(sourceCaption(`Figure: score geometry of test query ${qid} at α = ${alpha.toFixed(3)}.`, tryIt?.source ?? source), { key: FUSION_TEXT_KEYS.scoreGeometry });
}

/** Section 9: NN-SSC + BM25 without each component; typed, keyed `<hybrid> vs <component>` (`ablationComparisons`). */
export function ablationSection(t2: FusionTable2): Record<string, PairedComparison[]> {
  const { table, source } = t2;
  const ablation = ablationComparisons(table, ['nnssc+bm25', 'NN-SSC + BM25'], [['nnssc', 'NN-SSC'], ['bm25', 'BM25']]);
  for (const [k, cs] of Object.entries(ablation)) showTable(toDataFrame(pairedTable(cs)), { title: `Ablation: ${k}`, digits: 4, source });
  if (Object.keys(ablation).length === 0) console.log('ablation not available: run 04-nnssc');
  showMarkdown(Object.keys(ablation).length ? ablationVerdict(ablation) : '', { key: FUSION_TEXT_KEYS.ablation });
  return ablation;
}

/** Section 9: the seed bench's spread of the NN-SSC rows, where it was run (`bench/nnssc-seeds.cjs`). */
export function seedSpreadSection(t2: FusionTable2): void {
  const { sample, test } = t2.lesson;
  const files = seedSpreadFiles(sample);
  const texts: string[] = [];
  for (const file of files) {
    const spread = readSeedSpread(file);
    const from = { note: `from ${file.split('/').slice(-3).join('/')}; test split, ${test.queries.length} queries` };
    showTable(toDataFrame(seedSpreadRows(spread)), { title: `NN-SSC over ${spread.seeds.length} seeds, trained ≤ ${spread.stopping.maxEpochs} epochs with patience ${spread.stopping.patience}: spread of each row, and the seed ensemble`, source: from });
    showTable(toDataFrame(seedEpochRows(spread)), { title: `Per seed (≤ ${spread.stopping.maxEpochs} epochs, patience ${spread.stopping.patience}): where early stopping kept the weights`, source: from });
    texts.push(seedSpreadVerdict(spread));
  }
  if (files.length === 0) texts.push(seedSpreadMissing(sample));
  showMarkdown(texts.join('\n\n'), { key: FUSION_TEXT_KEYS.seedSpread });
}

/** Section 10: the default ranking on Table 2's title test queries beside BM25 and the analytic-α NN-SSC + BM25 row. */
export async function titleDefaultRankingSection(t2: FusionTable2): Promise<TitleDefaultResult> {
  const { systems, source, lesson } = t2;
  const runOf = (id: string): Run | undefined => systems.find((s) => s.id === id)?.test;
  return titleDefaultSection(lesson, runOf, systems.filter((s) => s.id === 'nnssc+bm25' && s.test).map((s) => ({ id: s.id, label: s.label, run: s.test! })), source);
}

/** Section 12: the discussion, written from Table 2, the fusion records and the per-query gains. */
export function discussionSection(t2: FusionTable2, gains: readonly PerQueryGain[]): string {
  const { table, lesson, hybrids } = t2;
  const discussion = fusionDiscussion({ table, hybrids: Object.values(hybrids), gains: [...gains], queries: lesson.test.queries.length, writerLabel: lesson.bench.writerLabel });
  showMarkdown(discussion, { key: FUSION_TEXT_KEYS.discussion });
  return discussion;
}

/** What the cells of sections 5–12 made, by name: results.json is a function of these and Table 2 only. */
export interface FusionSteps {
  selfSupervisedPaired?: TableRow[];
  tryIt?: FusionTryIt | null;
  gains?: PerQueryGain[];
  ablation?: Record<string, PairedComparison[]>;
  seedTable2?: SeedTable2Result | null;
  styleTable2?: StyleTable2Result | null;
  defaultRanking?: DefaultRankingResult | null;
  titleDefault?: TitleDefaultResult | null;
  discussion?: string | null;
}

/** results.json (Table 2, what `steps` made, the shown text), then the figure renderer is closed. */
export async function writeFusionResults(t2: FusionTable2, steps: FusionSteps): Promise<string> {
  const base = t2.base;
  const file = writeResults(t2.lesson.notebook, fusionResults(t2, steps, base ? { id: base.encoder.id, backend: base.encoder.backend } : null, tfBackendInfo()?.name ?? null));
  await closeFigureRenderer();
  return file;
}

/** results.json of notebook 05 (the same keys and tables as before this module; `seedTable2` added). */
export function fusionResults(t2: FusionTable2, steps: FusionSteps, encoder: { id: string; backend?: string } | null, tfBackend: string | null): Record<string, unknown> {
  const { lesson, table, hybrids, plan } = t2;
  const { sample, test, bench } = lesson;
  const tryIt = steps.tryIt;
  const styles = steps.styleTable2;
  return {
    sample,
    split: 'test',
    queries: test.queries.length,
    writer: bench.writerLabel,
    metrics: table.metrics,
    table2: table.rows,
    table2View: t2.view,
    judge: t2.judged.rows,
    // typed comparisons (lib/metrics PairedComparison, Holm per metric), which the claim check reads; the tables show them
    comparisonsVsBest: table.comparisons,
    vsBm25Stop: t2.vsBm25Stop ? { reference: t2.vsBm25Stop.reference.label, comparisons: t2.vsBm25Stop.comparisons, holmNote: t2.vsBm25Stop.holmNote } : null,
    holmNote: table.holmNote,
    tukey: table.tukey ? { metric: table.tukey.metric, systems: table.tukey.systems, p: table.tukey.p, permutations: table.tukey.permutations, seed: table.tukey.seed } : null,
    best: table.best,
    alpha: alphaRows(Object.values(hybrids)),
    tryIt: tryIt ? { knobs: 'α', hybrid: tryIt.hybrid, setting: `α=${tryIt.alpha}`, changed: !tryIt.result.isReported, rows: tryIt.result.rows, curve: tryIt.result.curve } : null,
    ablation: steps.ablation ?? {},
    perQueryGains: gainRows(steps.gains ?? []),
    runFiles: t2.runFiles.map((f) => f.split('/').pop()),
    encoder: encoder?.id ?? null,
    encoderBackend: encoder?.backend,
    tfBackend,
    training: trainingCosts(plan.scored),
    selfSupervised: {
      found: plan.selfSupervised.found.map((f) => ({ scorer: f.spec.scorer, label: f.spec.label, checkpoint: f.dir })),
      missing: plan.selfSupervised.missing.map((m) => ({ scorer: m.spec.scorer, label: m.spec.label, why: m.why })),
      paired: steps.selfSupervisedPaired ?? [],
    },
    fusionRecords: Object.fromEntries(Object.entries(hybrids).map(([k, h]) => [k, { analytic: h.analyticRecord.alpha, grid: h.gridRecord.alpha }])),
    discussion: steps.discussion ?? null,
    styles: styles ? {
      half: 'test', queries: lesson.styles.queries.length, table2: styles.table2, ranking: steps.defaultRanking?.ranking ?? [], titleDefault: steps.titleDefault?.titleDefault ?? [], titlePaired: steps.titleDefault?.titlePaired ?? [],
      table2VsBm25Stop: styles.table2VsBm25Stop, rankingVsBm25Stop: steps.defaultRanking?.rankingVsBm25Stop ?? [],
    } : null,
    seedTable2: steps.seedTable2 ?? null,
    notebookSeconds: (Date.now() - lesson.started) / 1000,
  };
}
