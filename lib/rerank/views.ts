import { performanceIndex } from '../fuse/alpha';
import { sortRunEntries } from '../metrics/rank';
import { RUN_PARTS_TOP_K, runScoreParts, setRunScoreParts, type RunPartsTable, type RunScoreParts } from '../metrics/run-parts';
import type { SystemRun } from '../metrics/systems';
import type { MetricRow, PerQueryMetrics } from '../metrics/types';
import type { Backbone } from './candidate-lists';
import { runFromLists } from './compose';
import type { LlmPlan } from './llm-plan';
import type { OfflineRerankerModel } from './offline';
import { rerankMetricRows, type RerankOutcome, type RerankTable } from './evaluate';
import type { RerankedRun } from './compose';
import type { RerankTrace } from './types';

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

/** Per-query difference of one metric, reranked − backbone (queries aligned, as `rerankTable` evaluates them). */
export function rerankGainPerQuery(o: Pick<RerankOutcome, 'perQuery'>, backbone: PerQueryMetrics, metric: keyof PerQueryMetrics['values'] = 'MRR'): number[] {
  return o.perQuery.values[metric].map((v, i) => v - backbone.values[metric][i]);
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

/** Tool calls of each query (aligned with `perQuery.queryIds`). */
export function toolCallsPerQuery(o: Pick<RerankOutcome, 'perQuery' | 'reranked'>): number[] {
  return o.perQuery.queryIds.map((q) => (o.reranked.traces.get(q) ?? []).reduce((s, t) => s + t.toolCalls.length, 0));
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

/**
 * The runs of a rerank table's systems (TREC files, judge columns): every backbone, then every outcome (ids made
 * file-safe). A backbone whose lists are another's (a stand-in) keeps its own row and label, with the same run
 * object: dropping it left its row "not judged" and moved the table's P@K columns.
 */
export function rerankSystemRuns(backbones: readonly Backbone[], outcomes: readonly RerankOutcome[], outcomeId: (o: RerankOutcome) => string = (o) => `${o.backbone}-${o.reranker}`): SystemRun[] {
  const byLists = new Map<Backbone['lists'], SystemRun['run']>();
  const runs: SystemRun[] = [];
  for (const b of backbones) {
    if (runs.some((r) => r.label === b.label)) continue; // the same backbone passed twice
    let run = byLists.get(b.lists);
    if (!run) {
      run = runFromLists(b.lists);
      setRunScoreParts(run, backboneRunParts(run, b, false));
      byLists.set(b.lists, run);
    }
    runs.push({ id: b.id.replace(/[^A-Za-z0-9_.-]/g, '_'), label: b.label, run });
  }
  for (const o of outcomes) {
    const b = backbones.find((x) => x.id === o.backbone);
    // the reranked run's parts are its backbone's (raw scores, α) and where the backbone had each dataset
    if (b && !runScoreParts(o.reranked.run)) setRunScoreParts(o.reranked.run, backboneRunParts(o.reranked.run, b, true));
    runs.push({ id: outcomeId(o).replace(/[^A-Za-z0-9_.-]/g, '_'), label: o.label, run: o.reranked.run });
  }
  return runs;
}

/** Parts of a run's top results from its backbone's candidate lists: the scorers' raw scores, α and (reranked) the retrieval rank. */
function backboneRunParts(run: SystemRun['run'], b: Backbone, reranked: boolean): RunPartsTable {
  const table: RunPartsTable = {};
  for (const l of b.lists) {
    const byId = new Map(l.candidates.map((c) => [c.id, c]));
    const parts: Record<string, RunScoreParts> = {};
    for (const e of sortRunEntries(run.get(l.query.id) ?? [], RUN_PARTS_TOP_K)) {
      const c = byId.get(e.docId);
      if (!c) continue;
      parts[e.docId] = {
        ...(c.scores.bm25 !== undefined ? { bm25Raw: c.scores.bm25 } : {}), ...(c.scores.semantic !== undefined ? { semanticRaw: c.scores.semantic } : {}),
        alpha: b.alpha, ...(reranked ? { retrievalRank: c.retrievalRank } : {}),
      };
    }
    table[l.query.id] = parts;
  }
  return table;
}
