import { EoError } from '../errors';
import type { PerQueryMetrics, Qrels } from '../metrics/types';
import { quantileSorted } from '../metrics/paired';
import type { BackboneList } from '../rerank/compose';
import { contentTokens, leaveOutBySource, OFFLINE_FEATURES, windowFeatures, type PriorsLeaveOut } from '../rerank/features';
import { newTrace } from '../rerank/listwise';
import { rankByScores, scoreLinear, topMargin, trainingWindows, trainPairwiseRanker, type LinearRankModel, type OfflineRerankerModel, type OfflineTrainOptions, type RankGroup } from '../rerank/offline';
import type { RerankCandidate, RerankQuery, Reranker } from '../rerank/types';
import { callToolGuarded } from './harness';
import type { LeakageGuardOptions } from './guard';
import type { AgentTool, SourcePublication, ToolItem } from './types';

/** Evidence features the routed reranker adds from tool results, in vector order. */
export const EVIDENCE_FEATURES = ['linkedByResults', 'linkedByTopResult', 'evidenceTextCover'] as const;

/**
 * Evidence of tool results for each window candidate: reciprocal-rank-weighted votes of results that list the
 * dataset among the datasets they use (local publication index: training links only), whether the top result
 * lists it, and how much of the dataset's title the results' text covers.
 */
export function evidenceFeatures(window: readonly RerankCandidate[], items: readonly ToolItem[]): number[][] {
  const text = contentTokens(items.map((i) => `${i.title} ${i.snippet}`).join(' '));
  return window.map((c) => {
    let votes = 0;
    items.forEach((it, r) => {
      if (it.datasetIds?.includes(c.id)) votes += 1 / (r + 1);
    });
    const title = contentTokens(`${c.record.shortName ?? ''} ${c.record.longName}`);
    let cover = 0;
    for (const t of title) if (text.has(t)) cover++;
    return [votes, items[0]?.datasetIds?.includes(c.id) ? 1 : 0, title.size ? cover / title.size : 0];
  });
}

/** The tool-routed offline reranker: base model, evidence model, and the margin below which it calls tools. */
export interface RoutedRerankerModel {
  base: OfflineRerankerModel;
  /** Linear model over base features + EVIDENCE_FEATURES. */
  withEvidence: LinearRankModel;
  /** Call tools when the base model's top-2 score margin is below this. */
  marginThreshold: number;
  /** Share of training windows below the threshold (the intended tool-call rate). */
  routeFraction: number;
  /** Results requested from the tool per call. */
  results: number;
}

export interface RoutedTrainOptions extends OfflineTrainOptions {
  /** Share of (training) windows that should consult tools: the margin threshold is this quantile of the training margins. Default 0.3. */
  routeFraction?: number;
  /** Results per tool call. Default 5. */
  results?: number;
  guardOptions?: LeakageGuardOptions;
}

/**
 * Train the routed variant on the TRAINING split: the evidence model sees every training window with tool
 * results (leakage guard on: a training query never sees its own publication); the margin threshold is the
 * `routeFraction` quantile of the base model's top-2 margins over the training queries' first windows. Both use
 * the priors with the query's source publication left out (as at test time, where a query's labels are not in
 * the priors). `tool` must answer from training publications only (`trainingPublicationTool(exp)`): the test
 * split's publications must not shape a trained model.
 */
export async function trainRoutedReranker(
  base: OfflineRerankerModel,
  trainLists: readonly BackboneList[],
  trainQrels: Qrels,
  tool: AgentTool,
  sourceOf: (q: RerankQuery) => SourcePublication | null,
  opts: RoutedTrainOptions = {},
): Promise<RoutedRerankerModel> {
  const results = opts.results ?? 5;
  const evidence = new Map<string, ToolItem[]>();
  for (const l of trainLists) {
    const out = await callToolGuarded(tool, tool.spec.name, { query: l.query.text, max_results: results }, { queryId: l.query.id, source: sourceOf(l.query), guardOptions: opts.guardOptions });
    evidence.set(l.query.id, out.items);
  }
  const groups: RankGroup[] = [];
  const leaveOut = leaveOutBySource(base.priors, trainQrels, trainLists.map((l) => l.query));
  for (const { query, window } of trainingWindows(trainLists, opts)) {
    const own = new Set([...(trainQrels.get(query.id) ?? new Map())].filter(([, r]) => r > 0).map(([d]) => d));
    const y = window.map((c) => (own.has(c.id) ? 1 : 0));
    if (!y.some((v) => v > 0) || y.every((v) => v > 0)) continue;
    const fb = windowFeatures(query, window, base.priors, leaveOut.get(query.id));
    const fe = evidenceFeatures(window, evidence.get(query.id) ?? []);
    groups.push({ x: fb.map((r, i) => [...r, ...fe[i]]), y });
  }
  const withEvidence = trainPairwiseRanker(groups, [...OFFLINE_FEATURES, ...EVIDENCE_FEATURES], opts);
  const margins = routingMargins(base, trainLists, leaveOut);
  const routeFraction = opts.routeFraction ?? 0.3;
  const marginThreshold = routeFraction >= 1 ? Infinity : routeFraction <= 0 || margins.length === 0 ? -Infinity : quantileSorted(margins, routeFraction);
  return { base, withEvidence, marginThreshold, routeFraction, results };
}

/**
 * The base model's top-2 score margins over the first window of each list, ascending (non-finite dropped): what
 * the routing threshold is a quantile of. `leaveOut` (query id → its source publication's labels) must be given
 * for training lists, else a training query's own labels inflate its popularity feature and its margin.
 */
export function routingMargins(base: OfflineRerankerModel, lists: readonly BackboneList[], leaveOut?: ReadonlyMap<string, PriorsLeaveOut>): number[] {
  return lists
    .map((l) => topMargin(scoreLinear(base.model, windowFeatures(l.query, l.candidates.slice(0, base.window), base.priors, leaveOut?.get(l.query.id)))))
    .filter((m) => Number.isFinite(m))
    .sort((a, b) => a - b);
}

export interface RoutedRerankerOptions {
  /** Source publication per query (leakage guard). */
  sourceOf: (q: RerankQuery) => SourcePublication | null;
  /** Apply the leakage guard. Default true (false only to measure what the guard prevents). */
  guard?: boolean;
  guardOptions?: LeakageGuardOptions;
  /** Override the trained margin threshold (Infinity = always call tools, −Infinity = never). */
  marginThreshold?: number;
  id?: string;
  label?: string;
}

/**
 * Offline reranker with cost-aware tool routing (the paper's proposed next step): score the window with the base
 * model; only when the top-2 margin is small does it call the tool (guarded) and rescore with the evidence model.
 */
export function routedOfflineReranker(m: RoutedRerankerModel, tool: AgentTool, opts: RoutedRerankerOptions): Reranker {
  const id = opts.id ?? 'offline-rerank-routed';
  const threshold = opts.marginThreshold ?? m.marginThreshold;
  return {
    id,
    label: opts.label ?? `offline reranker + tool routing (margin < ${threshold.toFixed(3)})`,
    kind: 'offline',
    async rerank(query, window) {
      const t0 = performance.now();
      const trace = newTrace(id, query.id, window.length);
      const fb = windowFeatures(query, window, m.base.priors);
      const baseScores = scoreLinear(m.base.model, fb);
      const margin = topMargin(baseScores);
      let ranked = rankByScores(baseScores);
      if (margin < threshold) {
        const out = await callToolGuarded(tool, tool.spec.name, { query: query.text, max_results: m.results }, { queryId: query.id, source: opts.sourceOf(query), guard: opts.guard, guardOptions: opts.guardOptions });
        trace.toolCalls.push(out.trace);
        trace.toolRounds = 1;
        const fe = evidenceFeatures(window, out.items);
        ranked = rankByScores(scoreLinear(m.withEvidence, fb.map((r, i) => [...r, ...fe[i]])));
        trace.notes.push(`uncertain: margin ${margin.toFixed(3)} < ${threshold.toFixed(3)}; consulted ${tool.spec.name}`);
      }
      trace.ranked = ranked;
      trace.latencyMs = performance.now() - t0;
      return { ranked, trace };
    },
  };
}

/**
 * Each list's top-2 margin of the base model over its first window (query id → margin), as the routed reranker
 * computes it at test time (no leave-out: test queries' labels are not in the priors).
 */
export function queryMargins(base: OfflineRerankerModel, lists: readonly BackboneList[]): Map<string, number> {
  return new Map(lists.map((l) => [l.query.id, topMargin(scoreLinear(base.model, windowFeatures(l.query, l.candidates.slice(0, base.window), base.priors)))]));
}

/** Per-query metrics of one reranker (aligned query ids), as in a rerank outcome. */
type PerQueryOf = { perQuery: PerQueryMetrics };

// a type, not an interface: rows must fit the tables' Record<string, unknown> (showTable, toDataFrame)
export type RoutingSweepRow = {
  /** Margin threshold: a query consults the tool when its margin is below it. */
  threshold: number;
  /** Share of queries that consult the tool. */
  'tool-call rate': number;
  MAP: number;
  MRR: number;
  'R@10': number;
};

/**
 * Tool-call rate and quality of the routed reranker at other margin thresholds, from two cached runs and no new
 * call: a query whose margin is below the threshold takes the always-tools run's metrics, the others the no-tools
 * run's (the routed reranker is exactly one or the other per query: same base model, same evidence model).
 * `never` and `always` must be evaluated on the same queries in the same order.
 */
export function routingSweep(margins: ReadonlyMap<string, number>, never: PerQueryOf, always: PerQueryOf, thresholds: readonly number[]): RoutingSweepRow[] {
  const ids = never.perQuery.queryIds;
  if (ids.length !== always.perQuery.queryIds.length || ids.some((q, i) => always.perQuery.queryIds[i] !== q))
    throw new EoError('INVALID_ARGUMENT', 'routingSweep: the two runs were evaluated on different queries');
  const metrics = ['MAP', 'MRR', 'R@10'] as const;
  return thresholds.map((t) => {
    const routed = ids.map((q) => (margins.get(q) ?? Infinity) < t);
    const mean = (m: (typeof metrics)[number]) => (ids.length === 0 ? 0 : ids.reduce((s, _q, i) => s + (routed[i] ? always : never).perQuery.values[m][i], 0) / ids.length);
    return { threshold: t, 'tool-call rate': ids.length === 0 ? 0 : routed.filter(Boolean).length / ids.length, MAP: mean('MAP'), MRR: mean('MRR'), 'R@10': mean('R@10') };
  });
}
