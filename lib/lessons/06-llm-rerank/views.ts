// Notebooks 06 and 07: the rows, tables and figures their cells show (each assembled by one function here), moved
// out of lib/report and lib/rerank because only these two notebooks show them.
import type { Benchmark } from '../../bench/types';
import type { Corpus } from '../../data/types';
import { performanceIndex } from '../../fuse/alpha';
import type { JudgeVsCitation } from '../../judge';
import { llmCostPlan, paperPlanStages, UNKNOWN_RECORDED_NOTE, type CostPlanRow } from '../../llm/plan';
import type { ModelConfig, RecordStore } from '../../llm/types';
import { winsLossesTies } from '../../metrics/paired';
import type { MetricRow, PerQueryMetrics } from '../../metrics/types';
import type { Backbone } from '../../rerank/candidate-lists';
import type { RerankedRun } from '../../rerank/compose';
import { rerankMetricRows, type RerankOutcome, type RerankTable } from '../../rerank/evaluate';
import type { LlmPlan } from '../../rerank/llm-plan';
import type { OfflineRerankerModel } from '../../rerank/offline';
import type { RerankTrace } from '../../rerank/types';
import { formatTable } from '../../report/display';
import { scatterFigure } from '../../report/figures';
import { paperPromptSizes } from '../../report/llm-cost';
import type { RerankJudge } from '../../report/rerank';
import type { Figure, ShowTableOptions } from '../../report/types';

/** What a cell shows as one table: its rows and `showTable` options. */
export interface RerankShownTable {
  rows: Record<string, unknown>[];
  options: ShowTableOptions;
}

/**
 * The footnote a table prints under itself naming the columns it bolds (`bold (text: *) = best value of …`), exactly
 * as `showTable` prints it; null when it bolds nothing.
 */
export function boldFootnote(view: RerankShownTable): string | null {
  return formatTable(view.rows, view.options).split('\n').find((l) => l.startsWith('bold (text: *)')) ?? null;
}

/** One cost plan of the LLM notebooks: its title, query count and rows. */
export interface NamedCostPlan {
  title: string;
  queries: number;
  rows: CostPlanRow[];
}

/**
 * The cost plans shown at the top of notebooks 06/07 (the `eo llm plan` table): the paper's N = 200 sweep and the
 * full test split of `bench` (each: the five listwise rerankers, the two agentic ones, the judge over the top 20),
 * with the calls already in `store` counted as recorded. Prompt sizes are measured once on the corpus.
 */
export function notebookCostPlans(corpus: Corpus, bench: Pick<Benchmark, 'queries'>, opts: { models: readonly ModelConfig[]; store?: RecordStore | null }): NamedCostPlan[] {
  const sizes = paperPromptSizes(corpus);
  const testQueries = bench.queries.filter((q) => q.split === 'test').length;
  return [
    { title: "the paper's N = 200 sweep", queries: 200 },
    { title: `the full test split (${testQueries.toLocaleString('en-US')} queries)`, queries: testQueries },
  ].map((p) => ({ ...p, rows: llmCostPlan(paperPlanStages({ queries: p.queries, sizes }), { models: opts.models, store: opts.store }) }));
}

/** A cost plan as display rows (USD rounded to cents, `*` on unchecked prices) with a total row. */
export function costPlanRows(rows: readonly CostPlanRow[]): Record<string, string | number>[] {
  const usd = (n: number) => Math.round(n * 100) / 100;
  const out: Record<string, string | number>[] = rows.map((r) => ({
    model: `${r.model}${r.pricesToBeChecked ? '*' : ''}`, stage: r.stage, calls: r.calls, recorded: r.recorded ?? '–',
    'input tokens': r.inputTokens, 'output tokens': r.outputTokens, 'standard $': usd(r.standardUsd), 'batch $': r.batchApi === 'none' || r.batchUsd === null ? 'live only' : usd(r.batchUsd),
  }));
  const sum = (f: (r: CostPlanRow) => number) => rows.reduce((a, r) => a + f(r), 0);
  out.push({
    model: 'total', stage: '', calls: sum((r) => r.calls), recorded: rows.every((r) => r.recorded === null) ? '–' : sum((r) => r.recorded ?? 0), 'input tokens': sum((r) => r.inputTokens), 'output tokens': sum((r) => r.outputTokens),
    'standard $': usd(sum((r) => r.standardUsd)), 'batch $': usd(sum((r) => r.batchUsd ?? r.standardUsd)),
  });
  return out;
}

/** The footnote of a cost plan table: unchecked prices, what the batch column means, how tokens were estimated. */
export function costPlanNote(rows: readonly CostPlanRow[]): string {
  return [
    rows.some((r) => r.pricesToBeChecked) ? '* placeholder prices (pricesToBeChecked in lib/llm/models.json): check before quoting.' : '',
    rows.some((r) => r.recorded === null) ? UNKNOWN_RECORDED_NOTE : '',
    'Costs cover calls not yet recorded; "live only": no batch API for the model or stage (batch total adds their standard cost).',
    'Tokens: prompts measured on this corpus with the real prompt builders (4 characters per token); answers estimated per stage.',
  ].filter((x) => x !== '').join(' ');
}


/** One row per backbone: its analytic α and the training-split π (Eq. 7) of its two scorers. */
export function backboneRows(backbones: readonly Backbone[]) {
  return backbones.map((b) => ({
    backbone: b.label, 'α (semantic)': b.alpha, 'π semantic (train)': performanceIndex(b.alphaFrom.semantic), 'π BM25 (train)': performanceIndex(b.alphaFrom.lexical), queries: b.lists.length,
  }));
}

/** The offline rerankers' learned weights (standardised features): one row per feature, one column per backbone. */
export function offlineWeightRows(models: Readonly<Record<string, OfflineRerankerModel>>): Record<string, string | number>[] {
  const ids = Object.keys(models);
  if (ids.length === 0) return [];
  return models[ids[0]].model.features.map((feature, i) => ({ feature, ...Object.fromEntries(ids.map((id) => [`weight (${id})`, models[id].model.weights[i]])) }));
}

/** The LLM plan as table rows (model, provider, snapshot, status, runs). */
export function llmPlanRows(plan: Pick<LlmPlan, 'rows'>) {
  return plan.rows.map((r) => ({ model: r.model, provider: r.provider, snapshot: r.snapshot, status: r.status, runs: r.runs ? 'yes' : 'no' }));
}

/** The reranker part of an outcome's label (`<backbone label> + <reranker>` → `<reranker>`). */
export function rerankerLabel(o: Pick<RerankOutcome, 'label'>, backboneLabel: string): string {
  return o.label.startsWith(`${backboneLabel} + `) ? o.label.slice(backboneLabel.length + 3) : o.label;
}

/** Outcomes of several tables, each (backbone, reranker) once, first occurrence kept. */
export function distinctOutcomes(...tables: readonly RerankTable[]): RerankOutcome[] {
  const out: RerankOutcome[] = [];
  for (const t of tables) for (const o of t.outcomes) if (!out.some((p) => p.backbone === o.backbone && p.reranker === o.reranker)) out.push(o);
  return out;
}

/** `results.json` metric rows of several tables, each system once, first occurrence kept. */
export function distinctMetricRows(...tables: readonly RerankTable[]): MetricRow[] {
  const out: MetricRow[] = [];
  for (const t of tables) for (const r of rerankMetricRows(t)) if (!out.some((s) => s.system === r.system)) out.push(r);
  return out;
}

/** Parse repairs per reranker (window counts, failed windows, each repair kind). */
export function repairRows(outcomes: readonly RerankOutcome[]) {
  return outcomes.map((o) => ({ reranker: o.label, windows: o.summary.windows, 'failed windows': o.summary.failedWindows, ...o.summary.repairs }));
}

/** Cost per query per reranker: LLM calls, tokens, dollars, latency. */
export function costRows(outcomes: readonly RerankOutcome[]) {
  return outcomes.map((o) => {
    const n = Math.max(1, o.summary.queries);
    return {
      reranker: o.label, 'LLM calls/query': o.summary.callsPerQuery, 'input tok/query': o.summary.inputTokens / n, 'output tok/query': o.summary.outputTokens / n,
      '$/query': o.summary.costPerQueryUsd, '$ total': o.summary.costUsd, 'latency ms/query': o.summary.latencyPerQueryMs,
    };
  });
}

/** Tool use per reranker: tool-call rate, calls per query, leakage-guard removals. */
export function toolUseRows(outcomes: readonly RerankOutcome[]) {
  return outcomes.map((o) => ({
    reranker: o.label, 'tool-call rate': o.summary.toolCallRate, 'tool calls/query': o.summary.toolCallsPerQuery, 'guard removals': o.summary.guardRemovals,
    'queries with removals': o.summary.queriesWithGuardRemovals,
  }));
}

/** Leakage-guard removals per reranker, with the most removed in one query. */
export function guardRemovalRows(outcomes: readonly RerankOutcome[]) {
  return outcomes.map((o) => {
    const per = o.perQuery.queryIds.map((q) => (o.reranked.traces.get(q) ?? []).reduce((s, t) => s + t.toolCalls.reduce((a, c) => a + c.removedByGuard, 0), 0));
    return { reranker: o.label, 'tool calls': o.summary.toolCalls, removals: o.summary.guardRemovals, 'queries with removals': o.summary.queriesWithGuardRemovals, 'max removals in one query': Math.max(0, ...per) };
  });
}

/** The first query (in run order) whose reranker called a tool, with the window trace that called it; null when none. */
export function firstToolTrace(run: RerankedRun): { queryId: string; trace: RerankTrace } | null {
  for (const [queryId, traces] of run.traces) {
    const trace = traces.find((t) => t.toolCalls.length > 0);
    if (trace) return { queryId, trace };
  }
  return null;
}

/** A trace's tool calls as table rows. */
export function toolCallRows(trace: RerankTrace) {
  return trace.toolCalls.map((c) => ({ tool: c.name, arguments: JSON.stringify(c.arguments), results: c.results, 'removed by guard': c.removedByGuard, digest: c.resultDigest, ms: c.latencyMs }));
}

/** Which system each metric family picks (one row per metric), for display. */
export function judgePickRows(c: JudgeVsCitation): Record<string, unknown>[] {
  return c.picks.map((p) => ({ family: p.family, metric: p.metric, 'picks': p.systems.join(' | '), value: p.value }));
}

/** Per-query agreement rows (best systems by the citation metric and by the judge metric). */
export function judgeAgreementRows(c: JudgeVsCitation): Record<string, unknown>[] {
  return c.perQuery.map((q) => ({ query: q.queryId, [`best by ${c.citationMetric}`]: q.citationBest.join(' | '), [`best by ${c.judgeMetric}`]: q.judgeBest.join(' | '), agree: q.agree ? 'yes' : 'no' }));
}

/** A horizontal line at y = 0 for gain figures (plotly layout shapes). */
export const ZERO_LINE = { shapes: [{ type: 'line', xref: 'paper', x0: 0, x1: 1, y0: 0, y1: 0, line: { color: '#999' } }] };

/** Per-query gain (reranked − backbone) of each outcome on one backbone, sorted, one line per reranker; legend below. */
export function rerankGainFigure(outcomes: readonly RerankOutcome[], backbone: { label: string; perQuery: PerQueryMetrics }, metric: 'MAP' | 'MRR' = 'MRR'): Figure {
  const short = (o: RerankOutcome) => (o.label.startsWith(`${backbone.label} + `) ? o.label.slice(backbone.label.length + 3) : o.label);
  return scatterFigure(
    outcomes.map((o) => {
      const gain = o.perQuery.values[metric].map((v, i) => v - backbone.perQuery.values[metric][i]).sort((a, b) => b - a);
      return { x: gain.map((_, i) => i + 1), y: gain, name: short(o), mode: 'lines' as const };
    }),
    { title: `Per-query ${metric === 'MRR' ? 'RR' : 'AP'} gain over ${backbone.label} (sorted)`, xTitle: 'query (sorted by gain)', yTitle: metric === 'MRR' ? 'ΔRR' : 'ΔAP', legend: 'below', layout: ZERO_LINE },
  );
}

/** Wins, losses and ties of each outcome against its backbone, per query, on one metric. */
export function winLossRows(outcomes: readonly RerankOutcome[], backbone: { label: string; perQuery: PerQueryMetrics }, metric: 'MAP' | 'MRR' = 'MRR'): Record<string, unknown>[] {
  return outcomes.map((o) => {
    const w = winsLossesTies(o.perQuery.values[metric], backbone.perQuery.values[metric]);
    return { reranker: o.label.startsWith(`${backbone.label} + `) ? o.label.slice(backbone.label.length + 3) : o.label, [`better (${metric})`]: w.wins, worse: w.losses, same: w.ties };
  });
}

/** Columns whose best value a rerank table marks: R@10, MAP and MRR (the footnote promises every column), and the judge's P@K when it ran. */
export function rerankBestColumns(j: RerankJudge | null): string[] {
  return ['R@10', 'MAP', 'MRR', ...(j && j.byLabel.size > 0 ? (j.comparison?.picks.filter((p) => p.family === 'judge').map((p) => p.metric) ?? ['P@5', 'P@10', 'P@20']) : [])];
}
