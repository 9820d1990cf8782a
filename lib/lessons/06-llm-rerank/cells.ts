// Notebook 06 (and the setup 07 shares): one function per cell that only assembles what the cell shows, and the
// results file. The stage calls a reader learns from (backbones, rerankers, rerankTable, positionBias, the LLM
// client) stay in the cells.
import { llmJudgePlan, plannedJudge, type JudgePlan } from '../../judge';
import type { LlmJudge } from '../../judge/types';
import { loadModelsFile } from '../../llm/models';
import { writeRunFiles } from '../../metrics/systems';
import type { Qrels } from '../../metrics/types';
import type { Backbone } from '../../rerank/candidate-lists';
import { rerankTableRows, writeTraceFiles, type RerankOutcome, type RerankTable } from '../../rerank/evaluate';
import type { LlmPlan } from '../../rerank/llm-plan';
import { rerankSystemRuns } from '../../rerank/views';
import { reportsDir } from '../../report/export';
import { barFigure } from '../../report/figures';
import { rerankExtras, rerankJudge, type RerankJudge } from '../../report/rerank';
import type { Figure } from '../../report/types';
import type { RerankExperiment } from '../../study/experiment';
import { positionBiasRows, type PositionBias } from '../../study/position-bias';
import { repoRelativePath } from '../../util/paths';
import {
  costPlanVerdict, judgeVerdict, paperColumnsNote, positionBiasVerdict, rerankCostVerdict, rerankQueriesSentence, rerankVerdict,
} from './text';
import {
  backboneRows, boldFootnote, costPlanNote, costPlanRows, costRows, distinctMetricRows, distinctOutcomes, judgeAgreementRows,
  judgePickRows, llmPlanRows, notebookCostPlans, offlineWeightRows, rerankBestColumns, rerankGainFigure, repairRows, winLossRows,
  type NamedCostPlan, type RerankShownTable,
} from './views';

/** The judge of a rerank notebook: its plan, the judge (null without one), a status line, and P@K for tables. */
export interface RerankJudgeSetup {
  plan: JudgePlan;
  judge: LlmJudge | null;
  line: string;
  /** Judge every system of the tables (backbones: those the tables' rows come from). */
  of(tables: readonly RerankTable[], backbones: readonly Backbone[]): Promise<RerankJudge>;
}

/** The judge from the environment (`EO_JUDGE_MODEL`, or the model with recorded judge calls in replay). */
export function rerankJudgeSetup(exp: Pick<RerankExperiment, 'corpus' | 'subset'>): RerankJudgeSetup {
  const plan = llmJudgePlan();
  const judge = plannedJudge(plan);
  const datasets = new Map(exp.corpus.datasets.map((d) => [d.id, d]));
  return {
    plan, judge,
    line: `judge: ${plan.config ? `${plan.config.id} (${plan.status})` : plan.status}`,
    of: (tables, backbones) => rerankJudge({ backbones, tables, queries: exp.subset.queries, datasets, judge, notConfigured: plan.status, standIn: plan.standIn }),
  };
}

/** The cost plans of an LLM notebook (the `eo llm plan` table): the plans, one table each, and what they would take. */
export function costPlanView(exp: Pick<RerankExperiment, 'corpus' | 'bench'>, plan: Pick<LlmPlan, 'store' | 'storePath'>): { plans: NamedCostPlan[]; tables: RerankShownTable[]; verdict: string } {
  const plans = notebookCostPlans(exp.corpus, exp.bench, { models: loadModelsFile().models, store: plan.store });
  const tables = plans.map((p) => ({
    rows: costPlanRows(p.rows),
    options: { title: `LLM cost plan: ${p.title}`, digits: 2, source: { note: costPlanNote(p.rows), settings: { store: plan.storePath.replace(process.cwd() + '/', '') } } },
  }));
  return { plans, tables, verdict: costPlanVerdict(plans) };
}

/** Notebook 06's setup views: the N sentence, the cost plans, the backbones, the offline weights, the LLM plan, the judge. */
export function rerankSetupViews(exp: RerankExperiment, plan: LlmPlan) {
  return {
    queriesSentence: rerankQueriesSentence(exp.subset.queries.length),
    cost: costPlanView(exp, plan),
    backbones: { rows: backboneRows([exp.weak, exp.strong]), options: { title: 'Backbones (analytic α from the training split)', digits: 3 } } as RerankShownTable,
    offlineWeights: { rows: offlineWeightRows(exp.offline), options: { title: `Offline reranker: pairwise logistic, ${exp.offline.weak.model.pairs} training pairs (weak backbone), seed 42`, digits: 3 } } as RerankShownTable,
    llmPlan: { rows: llmPlanRows(plan), options: { title: `LLM rerankers: mode ${plan.mode}, store ${repoRelativePath(plan.storePath)}` } } as RerankShownTable,
    judge: rerankJudgeSetup(exp),
  };
}

export interface RerankTableViewOptions {
  title: string;
  /** The judge's columns beside ours (with the paper's numbers and the best marks); undefined: the plain rows. */
  judge?: RerankJudge | null;
  /** The paper's table the paper columns come from (adds the settings and the paper-columns note). Default none. */
  paperTable?: string;
  sample?: boolean;
}

/** A rerank table as shown: its rows, options, the verdict under it, and the footnote naming the columns it bolds. */
export function rerankTableView(t: RerankTable, opts: RerankTableViewOptions): RerankShownTable & { verdict: string; footnote: string | null } {
  const view: RerankShownTable = opts.judge === undefined
    ? { rows: rerankTableRows(t), options: { title: opts.title, digits: 4 } }
    : {
      rows: rerankTableRows(t, rerankExtras(opts.judge)),
      options: {
        title: opts.title, digits: 4, best: rerankBestColumns(opts.judge),
        ...(opts.paperTable ? { source: { settings: { window: 10, bootstrap: 10000, seed: 42 }, note: paperColumnsNote(opts.paperTable) } } : {}),
      },
    };
  return { ...view, verdict: rerankVerdict(t, { sample: opts.sample }), footnote: boldFootnote(view) };
}

/** The position-bias table and its verdict. */
export function positionBiasView(bias: readonly PositionBias[], title: string): RerankShownTable & { verdict: string } {
  return { rows: positionBiasRows(bias), options: { title, digits: 3 }, verdict: positionBiasVerdict(bias) };
}

/** Sections 8–10 of notebook 06: judge vs citation, per-query gains on the strong backbone, parse repairs and cost. */
export function rerankOutcomeViews(t4: RerankTable, t5: RerankTable, judgeAll: RerankJudge, opts: { sample?: boolean } = {}) {
  const c = judgeAll.comparison;
  const strongBase = t5.backbones[0];
  const outcomes = distinctOutcomes(t4, t5);
  const paid = outcomes.filter((o) => o.summary.costPerQueryUsd > 0); // free endpoints (local servers, the stand-in) have nothing to plot
  const costFigure: Figure | null = paid.length === 0 ? null
    : barFigure(paid.map((o) => o.label), paid.map((o) => o.summary.costPerQueryUsd), { title: 'Cost per query (USD)', yTitle: '$', legend: 'below' });
  return {
    judge: {
      tables: c ? [
        { rows: judgePickRows(c), options: { title: 'Which system each metric picks', digits: 4 } },
        { rows: judgeAgreementRows(c), options: { title: `Per-query agreement: best by ${c.citationMetric} vs best by ${c.judgeMetric}`, maxRows: 20 } },
      ] as RerankShownTable[] : [],
      verdict: judgeVerdict(judgeAll, { sample: opts.sample }),
    },
    gains: {
      figure: rerankGainFigure(t5.outcomes, strongBase, 'MRR'),
      table: { rows: winLossRows(t5.outcomes, strongBase, 'MRR'), options: { title: `Queries improved / hurt / unchanged vs ${strongBase.label}` } } as RerankShownTable,
    },
    outcomes,
    repairs: { rows: repairRows(outcomes), options: { title: 'Parse repairs per reranker (counts over all windows)' } } as RerankShownTable,
    cost: { rows: costRows(outcomes), options: { title: 'Cost per query', digits: 5 } } as RerankShownTable,
    costVerdict: rerankCostVerdict(outcomes),
    costFigure,
  };
}

/** The TREC run files (`<system>.test-subset.run`) and per-window traces of a notebook's systems, written to its reports folder; file names. */
export function writeRerankRunFiles(notebook: string, backbones: readonly Backbone[], outcomes: readonly RerankOutcome[], qrels: Qrels, outcomeId?: (o: RerankOutcome) => string) {
  const dir = reportsDir(notebook);
  const runFiles = writeRunFiles(dir, rerankSystemRuns(backbones, outcomes, outcomeId), qrels, 'test-subset');
  const traceFiles = writeTraceFiles(dir, outcomes);
  const name = (f: string) => f.split('/').pop();
  return { runFiles: runFiles.map(name), traceFiles: traceFiles.map(name) };
}

/** The first fields of a rerank notebook's results.json (06 and 07): the test subset, its writer, the strong backbone, the trace files. */
export function rerankResultsHead(sample: boolean, exp: RerankExperiment, traceFiles: readonly (string | undefined)[]) {
  return {
    sample,
    split: 'test-subset',
    queries: exp.subset.queries.length,
    writer: exp.bench.writerLabel,
    strongBackbone: exp.strongNote,
    traceFiles,
  };
}

/** Notebook 06's results.json: writes its run and trace files, and returns what `writeResults` stores. */
export function rerankResults(notebook: string, r: {
  sample: boolean; exp: RerankExperiment; plan: LlmPlan; costPlans: readonly NamedCostPlan[];
  t4: RerankTable; t5: RerankTable; tryIt: { table: RerankTable; knobs: { window: number; step: number; depth: number } };
  bias: readonly PositionBias[]; judge: RerankJudgeSetup; judgeAll: RerankJudge; outcomes: readonly RerankOutcome[];
  /** The footnotes naming the bolded columns, of the tables that bold some (Tables 4 and 5). */
  boldFootnotes: readonly (string | null)[];
}): Record<string, unknown> {
  const { exp, plan, judgeAll } = r;
  const files = writeRerankRunFiles(notebook, [exp.weak, exp.strong], r.outcomes, exp.subset.qrels);
  const k = r.tryIt.knobs;
  return {
    ...rerankResultsHead(r.sample, exp, files.traceFiles),
    llm: { mode: plan.mode, models: plan.rows.filter((x) => x.runs).map((x) => x.model), standIn: plan.rows.filter((x) => x.runs && x.standIn).map((x) => x.model), notConfigured: plan.configs.length === 0 },
    costPlans: r.costPlans.map((p) => ({ title: p.title, queries: p.queries, rows: p.rows })),
    metrics: distinctMetricRows(r.t4, r.t5),
    tryIt: { changed: k.window !== 10 || k.step !== 10 || k.depth !== 10, knobs: k, rows: r.tryIt.table.outcomes.map((o) => o.row) },
    positionBias: positionBiasRows(r.bias),
    gains: r.outcomes.map((o) => ({ system: o.label, gain: o.gain })),
    judge: { status: r.judge.plan.status, judgeId: judgeAll.judgeId, standIn: judgeAll.standIn, columns: judgeAll.columns.rows, comparison: judgeAll.comparison ? { picks: judgeAll.comparison.picks, agreement: judgeAll.comparison.agreement, kendallTau: judgeAll.comparison.kendallTau, queries: judgeAll.comparison.queries } : null },
    repairs: r.outcomes.map((o) => ({ system: o.label, failedWindows: o.summary.failedWindows, repairs: o.summary.repairs })),
    cost: r.outcomes.map((o) => ({ system: o.label, costPerQueryUsd: o.summary.costPerQueryUsd, callsPerQuery: o.summary.callsPerQuery })),
    runFiles: files.runFiles,
    boldFootnotes: r.boldFootnotes.filter((f): f is string => f !== null),
  };
}
