import * as path from 'node:path';
import { evaluateRun, summarize } from '../metrics/metrics';
import { writeJsonl } from '../util/fs';
import { withHolm } from '../metrics/multiple';
import type { PairedOptions } from '../metrics/paired';
import { pairedComparisons } from '../metrics/systems';
import type { MetricName, MetricRow, PairedComparison, PerQueryMetrics, Qrels } from '../metrics/types';
import type { Backbone } from './candidate-lists';
import { rerankBackbone, runFromLists, type RerankedRun } from './compose';
import { addRepairs, emptyRepairs } from './parse';
import type { RepairCounts, RerankTrace, Reranker, WindowOptions } from './types';

/** Totals of a reranker's traces over all queries of a run. */
export interface TraceSummary {
  queries: number;
  /** LLM calls. */
  calls: number;
  callsPerQuery: number;
  /** Share of queries with at least one tool call. */
  toolCallRate: number;
  toolCallsPerQuery: number;
  toolCalls: number;
  /** Tool results removed by the leakage guard, summed. */
  guardRemovals: number;
  /** Queries where the guard removed at least one result. */
  queriesWithGuardRemovals: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  costPerQueryUsd: number;
  /** Sum of the call latencies per query (ms), averaged. */
  latencyPerQueryMs: number;
  repairs: RepairCounts;
  /** Windows whose answer could not be parsed (kept retrieval order). */
  failedWindows: number;
  windows: number;
}

/** Sum up traces (query id → its windows' traces). */
export function summarizeTraces(traces: ReadonlyMap<string, readonly RerankTrace[]>): TraceSummary {
  const s: TraceSummary = {
    queries: traces.size, calls: 0, callsPerQuery: 0, toolCallRate: 0, toolCallsPerQuery: 0, toolCalls: 0, guardRemovals: 0,
    queriesWithGuardRemovals: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, costPerQueryUsd: 0, latencyPerQueryMs: 0,
    repairs: emptyRepairs(), failedWindows: 0, windows: 0,
  };
  let withTools = 0;
  let latency = 0;
  for (const ts of traces.values()) {
    let tools = 0;
    let removed = 0;
    for (const t of ts) {
      s.windows++;
      s.calls += t.calls;
      tools += t.toolCalls.length;
      removed += t.toolCalls.reduce((a, c) => a + c.removedByGuard, 0);
      s.inputTokens += t.inputTokens;
      s.outputTokens += t.outputTokens;
      s.costUsd += t.costUsd;
      latency += t.latencyMs;
      addRepairs(s.repairs, t.repairs);
      if (t.repairs.failed > 0) s.failedWindows++;
    }
    if (tools > 0) withTools++;
    if (removed > 0) s.queriesWithGuardRemovals++;
    s.toolCalls += tools;
    s.guardRemovals += removed;
  }
  const n = Math.max(1, s.queries);
  s.callsPerQuery = s.calls / n;
  s.toolCallRate = withTools / n;
  s.toolCallsPerQuery = s.toolCalls / n;
  s.costPerQueryUsd = s.costUsd / n;
  s.latencyPerQueryMs = latency / n;
  return s;
}

/** One reranker on one backbone, evaluated. */
export interface RerankOutcome {
  backbone: string;
  reranker: string;
  label: string;
  kind: Reranker['kind'];
  row: MetricRow;
  perQuery: PerQueryMetrics;
  reranked: RerankedRun;
  summary: TraceSummary;
  /** Paired rerank − backbone comparisons (mean diff, bootstrap CI, randomization p; Holm per backbone and metric) for the gain metrics. */
  gain: PairedComparison[];
}

/** A table of rerank results: backbone rows, reranker rows, and what could not run. */
export interface RerankTable {
  backbones: { id: string; label: string; row: MetricRow; perQuery: PerQueryMetrics }[];
  outcomes: RerankOutcome[];
  /** Rerankers that failed (e.g. a replay miss), with the error message; only with `onError: 'skip'`. */
  errors: { backbone: string; reranker: string; label: string; error: string }[];
}

/**
 * Holm-adjust the gain comparisons per backbone and metric (the family: every reranker compared with that backbone):
 * each outcome's gain is replaced by its adjusted copy (`pHolm`, `family`, `correction`). Returns the families in
 * words, one per backbone with ≥ 1 reranker.
 */
export function applyRerankHolm(t: RerankTable): string[] {
  const families: string[] = [];
  for (const b of t.backbones) {
    const on = t.outcomes.filter((o) => o.backbone === b.id);
    if (on.length === 0) continue;
    const family = `Holm over the ${on.length} reranker row${on.length === 1 ? '' : 's'} compared with ${b.label}`;
    const metrics = [...new Set(on.flatMap((o) => o.gain.map((g) => g.metric)))];
    for (const m of metrics) {
      const having = on.filter((o) => o.gain.some((g) => g.metric === m));
      const adjusted = withHolm(having.map((o) => o.gain.find((g) => g.metric === m)!), `${family} (${m})`);
      having.forEach((o, i) => { o.gain = o.gain.map((g) => (g.metric === m ? adjusted[i] : g)); });
    }
    families.push(family);
  }
  return families;
}

export interface RerankTableOptions extends WindowOptions {
  /** Metrics of the paired gain rows. Default MAP and MRR (the paper's Tables 4–6). */
  gainMetrics?: MetricName[];
  /** Paired test options (samples, seed). Default pairedTest's (10,000 each, seed 42). */
  paired?: PairedOptions;
  /** 'throw' (default) or 'skip': a failing reranker becomes an `errors` entry and the table goes on. */
  onError?: 'throw' | 'skip';
  onProgress?: (what: string, done: number, total: number) => void;
}

/**
 * Run every reranker on every backbone (one window of K = 10 by default, or a sliding window) and evaluate:
 * the machinery of the paper's Table 4 (two backbones, one model), Table 5 (one backbone, several models) and
 * Table 6 (single-shot vs agentic). Each reranker row carries its paired gain over its backbone.
 */
export async function rerankTable(backbones: readonly Backbone[], rerankers: readonly Reranker[], qrels: Qrels, opts: RerankTableOptions = {}): Promise<RerankTable> {
  const gainMetrics = opts.gainMetrics ?? ['MAP', 'MRR'];
  const out: RerankTable = { backbones: [], outcomes: [], errors: [] };
  for (const b of backbones) {
    const perQuery = evaluateRun(runFromLists(b.lists), qrels);
    out.backbones.push({ id: b.id, label: b.label, row: summarize(b.label, perQuery), perQuery });
    for (const r of rerankers) {
      try {
        const reranked = await rerankBackbone(r, b.lists, { ...opts, onProgress: (d, t) => opts.onProgress?.(`${r.id} on ${b.id}`, d, t) });
        const pq = evaluateRun(reranked.run, qrels);
        const label = `${b.label} + ${r.label}`;
        out.outcomes.push({
          backbone: b.id, reranker: r.id, label, kind: r.kind, row: summarize(label, pq), perQuery: pq, reranked,
          summary: summarizeTraces(reranked.traces),
          gain: pairedComparisons(pq, perQuery, 'rerank', 'backbone', gainMetrics, opts.paired),
        });
      } catch (e) {
        if (opts.onError !== 'skip') throw e;
        out.errors.push({ backbone: b.id, reranker: r.id, label: r.label, error: e instanceof Error ? e.message : String(e) });
      }
    }
  }
  applyRerankHolm(out);
  return out;
}

/** Table 4: one reranker (model) on the weak and the strong backbone. */
export function rerankTableOnBothBackbones(weak: Backbone, strong: Backbone, reranker: Reranker, qrels: Qrels, opts: RerankTableOptions = {}): Promise<RerankTable> {
  return rerankTable(weak.id === strong.id ? [weak] : [weak, strong], [reranker], qrels, opts);
}

/** Table 5: a model sweep (several rerankers) on the strong backbone. */
export function rerankModelSweepTable(strong: Backbone, rerankers: readonly Reranker[], qrels: Qrels, opts: RerankTableOptions = {}): Promise<RerankTable> {
  return rerankTable([strong], rerankers, qrels, opts);
}

/** Extra columns of one row of `rerankTableRows` (e.g. judge P@K, the paper's numbers): given the row's system label, its backbone and its outcome (null on a backbone row). */
export type RerankRowExtra = (row: { label: string; backbone: string; outcome: RerankOutcome | null }) => Record<string, unknown>;

/**
 * Table-ready rows: backbone rows, then each reranker with its metrics, MAP/MRR gain and CI, cost and repairs,
 * then the `extra` columns of each row (default none).
 */
export function rerankTableRows(t: RerankTable, extra?: RerankRowExtra): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const b of t.backbones) {
    rows.push({ system: b.label, 'R@10': b.row['R@10'], MAP: b.row.MAP, MRR: b.row.MRR, ...(extra?.({ label: b.label, backbone: b.label, outcome: null }) ?? {}) });
    for (const o of t.outcomes.filter((x) => x.backbone === b.id)) {
      const g = (m: string) => o.gain.find((r) => r.metric === m);
      const map = g('MAP');
      const mrr = g('MRR');
      rows.push({
        system: `  + ${o.label.slice(b.label.length + 3)}`,
        'R@10': o.row['R@10'], MAP: o.row.MAP, MRR: o.row.MRR,
        'ΔMAP': map?.meanDiff, 'ΔMAP CI95': map ? `[${map.ciLow.toFixed(3)}, ${map.ciHigh.toFixed(3)}]` : '',
        'ΔMRR': mrr?.meanDiff, 'ΔMRR CI95': mrr ? `[${mrr.ciLow.toFixed(3)}, ${mrr.ciHigh.toFixed(3)}]` : '',
        'p (MRR)': mrr?.pValue,
        'p Holm (MRR)': mrr?.pHolm,
        'improved / tied / worse (MRR)': mrr ? `${mrr.improved} / ${mrr.tied} / ${mrr.worse}` : '',
        'd_z (MRR)': mrr?.effectSize,
        '$/query': o.summary.costPerQueryUsd, failed: o.summary.failedWindows,
        ...(extra?.({ label: o.label, backbone: b.label, outcome: o }) ?? {}),
      });
    }
  }
  return rows;
}

/** Concatenate rerank tables (e.g. one per backbone, for rerankers trained per backbone); backbones listed once. */
export function mergeRerankTables(...tables: RerankTable[]): RerankTable {
  const out: RerankTable = { backbones: [], outcomes: [], errors: [] };
  for (const t of tables) {
    for (const b of t.backbones) if (!out.backbones.some((x) => x.id === b.id)) out.backbones.push(b);
    out.outcomes.push(...t.outcomes);
    out.errors.push(...t.errors);
  }
  applyRerankHolm(out);
  return out;
}

/** The `results.json` metric rows of a table: each backbone, then each reranker on it. */
export function rerankMetricRows(t: RerankTable): MetricRow[] {
  return t.backbones.flatMap((b) => [b.row, ...t.outcomes.filter((o) => o.backbone === b.id).map((o) => o.row)]);
}

/**
 * Write every outcome's traces as `<dir>/traces.<backbone>.<reranker>.jsonl` (one line per window: query id,
 * calls, repairs, tool calls with arguments and result digests, tokens, cost, latency, record keys); returns the paths.
 */
export function writeTraceFiles(dir: string, outcomes: readonly RerankOutcome[]): string[] {
  return outcomes.map((o) => {
    const f = path.join(dir, `traces.${o.backbone}.${o.reranker}.jsonl`.replace(/[^A-Za-z0-9_.-]/g, '_'));
    writeJsonl(f, [...o.reranked.traces.values()].flat());
    return f;
  });
}
