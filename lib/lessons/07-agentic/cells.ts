// Notebook 07: one function per cell that only assembles what the cell shows (its tools, the routing views, the
// Try-it sweep, Table 6 and its traces, plots and the leakage guard), and the results file. The stage calls a
// reader learns from (trainRoutedReranker, routedOfflineReranker, listwiseReranker, agenticReranker, rerankTable,
// the LLM client) stay in the cells.
import { arxivSearchTool } from '../../agent/arxiv';
import { sourcePublicationLookup } from '../../agent/harness';
import { buildLocalPublicationIndex, localArxivTool, localDatasetDocsTool } from '../../agent/local';
import { agenticPairsOf } from '../../agent/report';
import { queryMargins, routingSweep, type RoutedRerankerModel } from '../../agent/routed';
import { openToolStore, recordedTool } from '../../agent/tool-store';
import type { AgentTool } from '../../agent/types';
import { searxngProvider, webSearchProviderFromEnv, webSearchTool } from '../../agent/web';
import { pairedComparisons, pairedTable } from '../../metrics/systems';
import type { PairedComparison } from '../../metrics/types';
import type { Backbone } from '../../rerank/candidate-lists';
import { runFromLists } from '../../rerank/compose';
import { mergeRerankTables, rerankMetricRows, type RerankOutcome, type RerankTable } from '../../rerank/evaluate';
import type { LlmPlan } from '../../rerank/llm-plan';
import type { Reranker } from '../../rerank/types';
import { rankedDatasetRows } from '../../report/ranked';
import type { RerankJudge } from '../../report/rerank';
import type { RerankExperiment } from '../../study/experiment';
import { trainingLinks, trainingPublicationTool } from '../../study/experiment';
import { costPlanView, rerankJudgeSetup, rerankResultsHead, rerankTableView, writeRerankRunFiles } from '../06-llm-rerank/cells';
import { rerankQueriesSentence } from '../06-llm-rerank/text';
import { firstToolTrace, guardRemovalRows, llmPlanRows, rerankerLabel, toolCallRows, toolUseRows, type RerankShownTable } from '../06-llm-rerank/views';
import {
  agenticGainFigure, agenticVerdict, costGainFigure, routingGainVerdict, routingSweepFigure, routingThresholds, routingVerdict, toolUseFigure,
} from './text';
import { agentReportRows, agentTraceRows } from './views';

/**
 * Notebook 07's setup: the N sentence, the cost plans, the LLM plan table, the judge, each query's source publication
 * (for the leakage guard), and the tools: offline (local indexes, the default) or, with `EO_AGENT_TOOLS=live`, the
 * real arXiv and web search, recorded in a tool store beside the LLM store and replayed from it.
 */
export function agenticSetup(exp: RerankExperiment, plan: LlmPlan, env: Record<string, string | undefined> = process.env) {
  const pubIndex = buildLocalPublicationIndex(exp.corpus.publications, trainingLinks(exp));
  const localPubs = localArxivTool(pubIndex);
  const live = env.EO_AGENT_TOOLS === 'live';
  const toolStore = live ? openToolStore(plan.storePath.replace(/\.jsonl$/, '') + '.tools.jsonl') : null;
  const webProvider = live && plan.mode !== 'replay' ? webSearchProviderFromEnv() : null;
  const webRecorded = !!toolStore && toolStore.records().some((r) => r.tool === 'web_search');
  const tools: AgentTool[] = toolStore
    ? [
      recordedTool(arxivSearchTool(), toolStore, plan.mode),
      ...(webProvider || webRecorded ? [recordedTool(webSearchTool(webProvider ?? searxngProvider('http://replay-only.invalid')), toolStore, plan.mode)] : []),
    ]
    : [localPubs, localDatasetDocsTool(exp.corpus, exp.bm25, 'web_search')];
  return {
    queriesSentence: rerankQueriesSentence(exp.subset.queries.length),
    cost: costPlanView(exp, plan),
    llmPlan: { rows: llmPlanRows(plan), options: { title: `LLM models: mode ${plan.mode}` } } as RerankShownTable,
    judge: rerankJudgeSetup(exp),
    /** Each query's source publication, which the leakage guard removes from tool results. */
    sourceOf: sourcePublicationLookup(exp.corpus),
    /** The local publication tool over every publication (test time; the guard removes each query's own). */
    localPubs,
    /** The local publication tool a routed reranker is TRAINED with: training publications and links only. */
    trainingTool: trainingPublicationTool(exp),
    tools,
    toolsTable: { rows: tools.map((t) => ({ tool: t.spec.name, mode: t.mode, description: t.spec.description })), options: { title: 'Tools offered to the agent' } } as RerankShownTable,
    toolsLine: `local publication index: ${pubIndex.publications.length} publications, ${pubIndex.datasetLinks.size} with training-split dataset links`,
  };
}

/** A shown table of paired comparisons: the typed comparisons (what verdicts and results.json read) and their display rows. */
type PairedShownTable = RerankShownTable & { comparisons: PairedComparison[] };

/** The four offline policies of section 5 (no tools, routed, tools always, tools always without the guard). */
export interface OfflinePolicies { offline: Reranker; routed: Reranker; always: Reranker; noGuard: Reranker }

/** Section 5: the offline rerankers' table and verdict, their tool use, the gain of routing and the guard's effect. */
export function offlineRoutingView(tOff: RerankTable, p: OfflinePolicies, model: RoutedRerankerModel, judgeOff: RerankJudge, opts: { backbone: Backbone; sample?: boolean }) {
  const oc = (r: Reranker): RerankOutcome => tOff.outcomes.find((o) => o.reranker === r.id)!;
  const routedVsOffline = pairedComparisons(oc(p.routed).perQuery, oc(p.offline).perQuery, 'routed', 'offline', ['MAP', 'MRR']);
  const guardEffect = pairedComparisons(oc(p.noGuard).perQuery, oc(p.always).perQuery, 'guard off', 'guard on', ['MAP', 'MRR']);
  return {
    outcomeOf: oc,
    table: rerankTableView(tOff, {
      title: `Offline rerankers on ${opts.backbone.label} (margin threshold ${model.marginThreshold.toFixed(3)}, trained to route ${model.routeFraction * 100}% of training windows)`,
      judge: judgeOff, sample: opts.sample,
    }),
    toolUse: { rows: toolUseRows(tOff.outcomes), options: { title: 'Tool use of the offline rerankers', digits: 3 } } as RerankShownTable,
    routedVsOffline: { comparisons: routedVsOffline, rows: pairedTable(routedVsOffline), options: { title: 'Gain of tool routing: routed − offline reranker without tools', digits: 4 } } as PairedShownTable,
    guardEffect: { comparisons: guardEffect, rows: pairedTable(guardEffect), options: { title: 'Leakage guard effect: tools without guard − with guard (a positive difference is leaked gain)', digits: 4 } } as PairedShownTable,
    gainVerdict: routingGainVerdict(routedVsOffline, guardEffect),
  };
}

/**
 * The Try-it cell: the routing sweep over every decile of the test margins, never, always, the trained threshold and
 * `tau` (from the two cached runs, no new tool call), its figure, and the line on `tau`.
 */
export function routingTryIt(model: RoutedRerankerModel, backbone: Backbone, never: RerankOutcome, always: RerankOutcome, tau: number) {
  const margins = queryMargins(model.base, backbone.lists);
  const rows = routingSweep(margins, never, always, [...new Set([...routingThresholds(margins, model.marginThreshold), tau])].sort((a, b) => a - b));
  return {
    rows,
    options: { title: `Routing sweep on ${backbone.label}: threshold → tool-call rate, MAP, MRR, R@10`, digits: 4, best: ['MAP', 'MRR'] },
    figure: routingSweepFigure(rows, model.marginThreshold),
    verdict: routingVerdict(rows, tau, model.marginThreshold),
  };
}

/**
 * Sections 7–9: Table 6 from the per-model [single-shot, agentic] tables (judged when there is a pair), its verdict
 * and traces; the plots; the leakage guard's removals and the first query where the routed reranker called a tool.
 */
export async function agenticOutcomeViews(
  exp: RerankExperiment, runs: readonly { model: string; table: RerankTable }[], judge: ReturnType<typeof rerankJudgeSetup>,
  routing: ReturnType<typeof offlineRoutingView>, policies: OfflinePolicies, opts: { sample?: boolean } = {},
) {
  const t6 = agenticPairsOf(runs);
  const pairs = t6.pairs;
  const judge6 = pairs.length > 0 ? await judge.of([t6.table], [exp.strong]) : null;
  const routed = routing.outcomeOf(policies.routed);
  const always = routing.outcomeOf(policies.always);
  const offOutcomes = [routing.outcomeOf(policies.offline), routed, always, routing.outcomeOf(policies.noGuard)];
  const llmOutcomes = pairs.flatMap((p) => [p.singleShot, p.agentic]);
  const toolUsers = [...pairs.map((p) => ({ name: `${p.model} (agentic)`, outcome: p.agentic })), { name: 'offline, routed', outcome: routed }, { name: 'offline, tools always', outcome: always }];
  const shown = firstToolTrace(routed.reranked);
  const rel = shown ? exp.subset.qrels.get(shown.queryId)! : null;
  return {
    pairs, errors: t6.errors, llmOutcomes,
    table6: judge6 ? { rows: agentReportRows(pairs), options: { title: `Table 6 — ${exp.strong.label}, ${exp.subset.queries.length} queries`, digits: 4 } } as RerankShownTable : null,
    systems: judge6 ? rerankTableView(t6.table, { title: "Table 6 systems with the paper's numbers and the judge's P@K", judge: judge6 }) : null,
    verdict: agenticVerdict(pairs, { sample: opts.sample }),
    traces: pairs.map((p) => ({ rows: agentTraceRows(p.agentic), options: { title: `Per-query trace: ${p.agentic.label}`, digits: 4, maxRows: 15 } }) as RerankShownTable),
    figures: {
      toolUse: toolUseFigure(toolUsers),
      agenticGain: pairs.length > 0 ? agenticGainFigure(pairs, 'MRR') : null,
      costGain: costGainFigure([...offOutcomes, ...llmOutcomes], (o) => rerankerLabel(o, exp.strong.label)),
    },
    guard: { rows: guardRemovalRows([routed, always, ...pairs.map((p) => p.agentic)]), options: { title: "Leakage guard: removed tool results (each identified the query's source publication)" } } as RerankShownTable,
    firstTrace: shown && rel ? {
      line: `query ${shown.queryId}: "${exp.subset.queries.find((x) => x.id === shown.queryId)!.text}"\n${shown.trace.notes.join('; ')}\nranked window ids: ${JSON.stringify(shown.trace.ranked)}`,
      tables: [
        { rows: toolCallRows(shown.trace), options: { title: 'Tool calls', digits: 1 } },
        { rows: rankedDatasetRows(exp.corpus, runFromLists(exp.strong.lists).get(shown.queryId)!, rel, 10), options: { title: 'Backbone top 10', digits: 3 } },
        { rows: rankedDatasetRows(exp.corpus, routed.reranked.run.get(shown.queryId)!, rel, 10), options: { title: 'After routed offline rerank (scores = new positions)', digits: 3 } },
      ] as RerankShownTable[],
    } : null,
  };
}

/** Notebook 07's results.json: writes its run and trace files, and returns what `writeResults` stores. */
export function agenticResults(notebook: string, r: {
  sample: boolean; exp: RerankExperiment; plan: LlmPlan; setup: ReturnType<typeof agenticSetup>; tOff: RerankTable; model: RoutedRerankerModel;
  routing: ReturnType<typeof offlineRoutingView>; policies: OfflinePolicies; sweep: ReturnType<typeof routingTryIt>; judgeOff: RerankJudge;
  outcomes: Awaited<ReturnType<typeof agenticOutcomeViews>>;
}): Record<string, unknown> {
  const { exp, plan, tOff, routing, outcomes } = r;
  const systems = [...tOff.outcomes, ...outcomes.llmOutcomes];
  const files = writeRerankRunFiles(notebook, [exp.strong], systems, exp.subset.qrels, (o) => o.reranker);
  const oc = routing.outcomeOf;
  return {
    ...rerankResultsHead(r.sample, exp, files.traceFiles),
    tools: r.setup.tools.map((t) => `${t.spec.name} (${t.mode})`),
    costPlans: r.setup.cost.plans.map((p) => ({ title: p.title, queries: p.queries, rows: p.rows })),
    metrics: rerankMetricRows(mergeRerankTables(tOff, { backbones: [], outcomes: outcomes.llmOutcomes, errors: [] })),
    offlineRouting: {
      marginThreshold: r.model.marginThreshold,
      toolCallRate: oc(r.policies.routed).summary.toolCallRate,
      gainsOverBackbone: tOff.outcomes.map((o) => ({ system: o.label, toolCallRate: o.summary.toolCallRate, gain: o.gain })),
      // typed comparisons (PairedComparison), which the claim check reads; the tables show them
      routedVsOffline: routing.routedVsOffline.comparisons,
      guardEffect: routing.guardEffect.comparisons,
      guardRemovals: oc(r.policies.always).summary.guardRemovals,
      sweep: r.sweep.rows.map((x) => ({ ...x, threshold: Number.isFinite(x.threshold) ? x.threshold : String(x.threshold) })),
    },
    judge: { status: r.setup.judge.plan.status, judgeId: r.judgeOff.judgeId, standIn: r.judgeOff.standIn, columns: r.judgeOff.columns.rows },
    table6: outcomes.pairs.length > 0 ? agentReportRows(outcomes.pairs) : 'not configured',
    llm: { mode: plan.mode, models: outcomes.pairs.map((p) => p.model), standIn: plan.rows.filter((x) => x.runs && x.standIn).map((x) => x.model) },
    runFiles: files.runFiles,
  };
}
