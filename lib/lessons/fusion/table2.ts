// Notebook 05, sections 4–11: Table 2 as the notebook shows it (run files, the paper's and the judge's columns,
// paired tables, verdict), and every view that follows from it — multiple testing, the self-supervised rows, the α
// knob, per-query gains, score geometry, ablation, the seed sections, the query styles, the discussion — then
// results.json. Each method is one notebook cell; what it computed is kept for results.json.
import { llmJudgePlan, plannedJudge } from '../../judge/plan';
import { pairedTable } from '../../metrics/systems';
import type { PairedComparison, Run } from '../../metrics/types';
import { showFigure, showMarkdown, showTable } from '../../report/display';
import { closeFigureRenderer, reportsDir, writeResults } from '../../report/export';
import { repoRelativePath, toDataFrame } from '../../report/frame';
import { ablationComparisons, hybridGains, selfSupervisedPairedRows, table2GainPairs, type PerQueryGain } from '../../report/fusion';
import { runFilesSource, sourceCaption } from '../../report/lesson';
import { tukeyHeatmap, tukeyRows, vsReferenceVerdict } from '../../report/paired-text';
import { paperReportsRow, paperTable2Value, PAPER_TABLE2_CLAIM, TABLE2_DIFFERENCES } from '../../report/paper';
import { table2BestColumns, table2JudgeColumns, table2VsReference, withJudgeColumns, withPaperColumns, writeTable2RunFiles, type Table2, type Table2System, type Table2VsReference } from '../../report/table2';
import type { TableRow, TableSource } from '../../report/types';
import { tfBackendInfo } from '../../tensor/backend';
import { readSeedSpread, seedSpreadFiles } from './seed-spread';
import type { FusionLesson, Table2Plan } from './lesson';
import { seedEpochRows, seedSpreadMissing, seedSpreadRows, seedSpreadVerdict } from './seed-spread';
import { seedTable2Section, type SeedTable2Result } from './seed-table';
import { defaultRankingSection, table2StyleSection, titleDefaultSection, type StyleResults } from './styles';
import { alphaTryIt, strongestSemantic, type AlphaTryIt } from './try-it';
import { gainFigure, gainRows, mostHelpedQuery, scoreGeometryFigure } from './views';
import { ablationVerdict, alphaTryItVerdict, fusionDiscussion, gainsVerdict, selfSupervisedNote, table2Verdict } from './verdicts';

/** The columns of Table 2's view, in order. */
export const TABLE2_VIEW_COLUMNS = ['system', 'in paper', 'R@10', 'R@10 (paper)', 'R@20', 'R@20 (paper)', 'R@100', 'R@100 (paper)', 'MAP', 'MAP (paper)', 'MRR', 'MRR (paper)', 'π', 'π (train)', 'P@5', 'P@10', 'P@20', 'judge',
  'α', 'α from', 'trainable params', 'training time (s)', 'backend', 'ΔMAP vs best [95% CI]', 'p (MAP)', 'ΔMRR vs best [95% CI]', 'p (MRR)', 'note'];

/** Table 2 as shown, its views (one method per notebook cell) and what they computed. */
export interface FusionTable2 {
  lesson: FusionLesson;
  plan: Table2Plan;
  systems: Table2System[];
  table: Table2;
  /** Table 2's display rows (paper and judge columns). */
  view: TableRow[];
  judged: { rows: TableRow[] };
  runFiles: string[];
  /** Source of every test-split table and figure (run and qrels files, settings). */
  source: TableSource;
  tryIt?: { hybrid: string; alpha: number; result: AlphaTryIt; source: TableSource };
  gains: PerQueryGain[];
  /** Typed, keyed `<hybrid> vs <component>` (ablationComparisons); results.json records them so. */
  ablation: Record<string, PairedComparison[]>;
  selfSupervisedPaired: TableRow[];
  /** Every row against BM25-stop (null when it has no test run). */
  vsBm25Stop: Table2VsReference | null;
  seedTable2?: SeedTable2Result;
  styles?: StyleResults;
  discussion?: string;
  showMultipleTesting(): Promise<void>;
  showSelfSupervised(): void;
  /** The α knob: re-fuse the strongest hybrid at `alpha` ('analytic' = the reported row). */
  tryAlpha(alpha: number | 'analytic'): Promise<void>;
  showGains(): Promise<void>;
  showScoreGeometry(): Promise<void>;
  showAblation(): void;
  showSeedSpread(): void;
  /** Table 2 over the NN-SSC seeds in `seeds` (their checkpoints from `bench/nnssc-seeds.cjs`), or what the seed run adds. */
  showSeedTable2(seeds: readonly number[]): Promise<void>;
  showStyleTable2(): void;
  showDefaultRanking(): Promise<void>;
  showDefaultRankingOnTitles(): Promise<void>;
  showDiscussion(): void;
  /** results.json (every table above, the shown text), then the figure renderer is closed. */
  writeResults(): Promise<string>;
}

/**
 * Section 4: write every row's run files, add the judge's P@K and the paper's columns, show Table 2, every row
 * against the best one, and the verdict generated from the table.
 */
export async function table2Section(lesson: FusionLesson, plan: Table2Plan, systems: Table2System[], table: Table2): Promise<FusionTable2> {
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
  }));
  // every row against the strong short baseline (lib/retrieve/bm25-stop.ts), Holm over the rows compared with it
  const vsBm25Stop = table2VsReference(table, systems, 'bm25-stop', { paired: { seed: 42, permutations: 10000, bootstrapSamples: 10000 } });
  if (vsBm25Stop) {
    showTable(toDataFrame(vsBm25Stop.rows.filter((r) => ['MAP', 'MRR', 'R@10'].includes(String(r.metric)))), {
      title: `Every row − ${vsBm25Stop.reference.label} (the strong short lexical baseline), MAP, MRR and R@10: paired randomization p, bootstrap 95% CI, Holm per metric`, digits: 4, maxRows: 400, source,
    });
    showMarkdown(vsReferenceVerdict(vsBm25Stop.comparisons, vsBm25Stop.reference.label, 'MAP'));
  }

  const t2: FusionTable2 = {
    lesson, plan, systems, table, view, judged, runFiles, source, gains: [], ablation: {}, selfSupervisedPaired: [], vsBm25Stop,
    showMultipleTesting: async () => {
      showMarkdown(table.holmNote);
      if (!table.tukey) return;
      showTable(toDataFrame(tukeyRows(table.tukey)), { title: `Randomised Tukey HSD on ${table.tukey.metric}: p for every pair of rows (${table.tukey.n} queries, ${table.tukey.permutations} permutations)`, digits: 3 });
      await showFigure(tukeyHeatmap(table.tukey, { title: `Tukey HSD p on ${table.tukey.metric}` }), { name: 'tukey-hsd', notebook });
    },
    showSelfSupervised: () => {
      showMarkdown(selfSupervisedNote({ found: lesson.selfSupervised.found, missing: lesson.selfSupervised.missing, sample }));
      t2.selfSupervisedPaired = selfSupervisedPairedRows(table, systems);
      if (t2.selfSupervisedPaired.length > 0) showTable(toDataFrame(t2.selfSupervisedPaired), { title: 'Corpus self-supervised rows − their plain rows (test split): Δ, bootstrap 95% CI, paired randomization p', digits: 4, maxRows: 100, source });
    },
    tryAlpha: async (choice) => {
      const semId = strongestSemantic(lesson.hybrids);
      const hybrid = lesson.hybrids[semId];
      const alpha = choice === 'analytic' ? hybrid.analytic.alpha! : choice;
      const label = lesson.scorers[semId].label;
      const result = alphaTryIt({ corpus, test, hybrid, semantic: lesson.scored[semId], lexical: lesson.scored.bm25, alpha });
      const trySource = runFilesSource(runFiles, { split: 'test', hybrid: `${label} + BM25`, 'your α': alpha, 'analytic α': hybrid.analyticRecord.alpha, 'grid α': hybrid.gridRecord.alpha, sample }, { split: 'test', ids: [semId, 'bm25'] });
      t2.tryIt = { hybrid: semId, alpha, result, source: trySource };
      showTable(toDataFrame(result.rows), { title: `Try it: ${label} + BM25 at α = ${alpha.toFixed(3)}`, digits: 4, best: { MAP: 'max', MRR: 'max', 'R@10': 'max' }, source: trySource });
      await showFigure(result.figure, { name: 'alpha-try-it', notebook });
      showMarkdown(sourceCaption('Figure: test MAP vs α (re-fused from the component runs\' score vectors), analytic, grid and your α marked.', trySource));
      showMarkdown(alphaTryItVerdict(result, label));
    },
    showGains: async () => {
      t2.gains = hybridGains(table, systems, table2GainPairs(plan.rows));
      if (t2.gains.length === 0) return;
      await showFigure(gainFigure(t2.gains), { name: 'per-query-gain', notebook });
      showMarkdown(sourceCaption('Figure: per-query ΔAP of each hybrid over each component, test split, sorted.', source));
      showTable(toDataFrame(gainRows(t2.gains)), { title: 'Per-query gains (AP)', digits: 4, source });
      showMarkdown(gainsVerdict(t2.gains));
    },
    showScoreGeometry: async () => {
      const semId = t2.tryIt?.hybrid ?? strongestSemantic(lesson.hybrids);
      const alpha = lesson.hybrids[semId].analytic.alpha!;
      const qid = mostHelpedQuery(table, `${semId}+bm25`, semId) ?? test.queries[0].id;
      const qi = test.queries.findIndex((q) => q.id === qid);
      await showFigure(scoreGeometryFigure({
        corpus, query: test.queries[qi], qrels: test.qrels, semantic: lesson.scored[semId].test.scores[qi], lexical: lesson.scored.bm25.test.scores[qi],
        alpha, semanticLabel: lesson.scorers[semId].label,
      }), { name: 'score-geometry', notebook });
      showMarkdown(sourceCaption(`Figure: score geometry of test query ${qid} at α = ${alpha.toFixed(3)}.`, t2.tryIt?.source ?? source));
    },
    showAblation: () => {
      t2.ablation = ablationComparisons(table, ['nnssc+bm25', 'NN-SSC + BM25'], [['nnssc', 'NN-SSC'], ['bm25', 'BM25']]);
      for (const [k, cs] of Object.entries(t2.ablation)) showTable(toDataFrame(pairedTable(cs)), { title: `Ablation: ${k}`, digits: 4, source });
      if (Object.keys(t2.ablation).length === 0) console.log('ablation not available: run 04-nnssc');
      else showMarkdown(ablationVerdict(t2.ablation));
    },
    showSeedSpread: () => {
      const files = seedSpreadFiles(sample);
      for (const file of files) {
        const spread = readSeedSpread(file);
        const from = { note: `from ${file.split('/').slice(-3).join('/')}; test split, ${test.queries.length} queries` };
        showTable(toDataFrame(seedSpreadRows(spread)), { title: `NN-SSC over ${spread.seeds.length} seeds, trained ≤ ${spread.stopping.maxEpochs} epochs with patience ${spread.stopping.patience}: spread of each row, and the seed ensemble`, source: from });
        showTable(toDataFrame(seedEpochRows(spread)), { title: `Per seed (≤ ${spread.stopping.maxEpochs} epochs, patience ${spread.stopping.patience}): where early stopping kept the weights`, source: from });
        showMarkdown(seedSpreadVerdict(spread));
      }
      if (files.length === 0) showMarkdown(seedSpreadMissing(sample));
    },
    showSeedTable2: async (seeds) => {
      t2.seedTable2 = await seedTable2Section(t2, seeds);
    },
    showStyleTable2: () => {
      t2.styles = table2StyleSection(lesson);
    },
    showDefaultRanking: async () => {
      if (!t2.styles) t2.styles = table2StyleSection(lesson);
      await defaultRankingSection(lesson, t2.styles);
    },
    showDefaultRankingOnTitles: async () => {
      if (!t2.styles) t2.styles = table2StyleSection(lesson);
      const runOf = (id: string): Run | undefined => systems.find((s) => s.id === id)?.test;
      await titleDefaultSection(lesson, t2.styles, runOf, systems.filter((s) => s.id === 'nnssc+bm25' && s.test).map((s) => ({ id: s.id, label: s.label, run: s.test! })), source);
    },
    showDiscussion: () => {
      t2.discussion = fusionDiscussion({ table, hybrids: Object.values(lesson.hybrids), gains: t2.gains, queries: test.queries.length, writerLabel: bench.writerLabel });
      showMarkdown(t2.discussion);
    },
    writeResults: async () => {
      const base = lesson.base;
      const file = writeResults(notebook, fusionResults(t2, base ? { id: base.encoder.id, backend: base.encoder.backend } : null, tfBackendInfo()?.name ?? null));
      await closeFigureRenderer();
      return file;
    },
  };
  return t2;
}

/** results.json of notebook 05 (the same keys and tables as before this module; `seedTable2` added). */
export function fusionResults(t2: FusionTable2, encoder: { id: string; backend?: string } | null, tfBackend: string | null): Record<string, unknown> {
  const { lesson, table } = t2;
  const { sample, test, bench, hybrids } = lesson;
  const tryIt = t2.tryIt;
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
    alpha: lesson.alphaRows ?? [],
    tryIt: tryIt ? { knobs: 'α', hybrid: tryIt.hybrid, setting: `α=${tryIt.alpha}`, changed: !tryIt.result.isReported, rows: tryIt.result.rows, curve: tryIt.result.curve } : null,
    ablation: t2.ablation,
    perQueryGains: gainRows(t2.gains),
    runFiles: t2.runFiles.map((f) => f.split('/').pop()),
    encoder: encoder?.id ?? null,
    encoderBackend: encoder?.backend,
    tfBackend,
    training: lesson.cost,
    selfSupervised: {
      found: lesson.selfSupervised.found.map((f) => ({ scorer: f.spec.scorer, label: f.spec.label, checkpoint: f.dir })),
      missing: lesson.selfSupervised.missing.map((m) => ({ scorer: m.spec.scorer, label: m.spec.label, why: m.why })),
      paired: t2.selfSupervisedPaired,
    },
    fusionRecords: Object.fromEntries(Object.entries(hybrids).map(([k, h]) => [k, { analytic: h.analyticRecord.alpha, grid: h.gridRecord.alpha }])),
    discussion: t2.discussion ?? null,
    styles: t2.styles ? {
      half: 'test', queries: lesson.styles.queries.length, table2: t2.styles.table2, ranking: t2.styles.ranking ?? [], titleDefault: t2.styles.titleDefault ?? [], titlePaired: t2.styles.titlePaired ?? [],
      table2VsBm25Stop: t2.styles.table2VsBm25Stop, rankingVsBm25Stop: t2.styles.rankingVsBm25Stop ?? [],
    } : null,
    seedTable2: t2.seedTable2 ?? null,
    notebookSeconds: (Date.now() - lesson.started) / 1000,
  };
}
