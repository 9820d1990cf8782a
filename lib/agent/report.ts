import { pairedRows } from '../metrics/systems';
import { createLlmClient } from '../llm/client';
import type { LlmMode, ModelConfig, RecordStore } from '../llm/types';
import type { Qrels } from '../metrics/types';
import type { Backbone } from '../rerank/candidate-lists';
import { listwiseReranker } from '../rerank/listwise';
import { mergeRerankTables, rerankTable, type RerankOutcome, type RerankTable } from '../rerank/evaluate';
import type { RerankQuery } from '../rerank/types';
import { agenticReranker } from './harness';
import type { AgentTool, SourcePublication } from './types';

/**
 * Table 6 rows: per model, single-shot vs agentic on the same backbone — MAP/MRR of both, the agentic gain over
 * single-shot with paired CI, tool-call rate (share of queries with ≥ 1 call), tool calls per query, LLM calls per
 * query, and cost and latency ratios agentic / single-shot.
 */
export function agentReportRows(pairs: readonly { model: string; singleShot: RerankOutcome; agentic: RerankOutcome }[]): Record<string, unknown>[] {
  return pairs.map(({ model, singleShot: s, agentic: a }) => {
    const g = pairedRows(a.perQuery, s.perQuery, 'agentic', 'single-shot', ['MAP', 'MRR']);
    const ratio = (x: number, y: number) => (y > 0 ? x / y : null);
    return {
      model,
      'MAP single': s.row.MAP, 'MAP agentic': a.row.MAP,
      'MRR single': s.row.MRR, 'MRR agentic': a.row.MRR,
      'ΔMRR (agentic−single)': g[1]['mean diff (A−B)'], 'ΔMRR CI95': `[${g[1]['CI95 low'].toFixed(3)}, ${g[1]['CI95 high'].toFixed(3)}]`,
      'tool-call rate': a.summary.toolCallRate,
      'tool calls/query': a.summary.toolCallsPerQuery,
      'LLM calls/query': a.summary.callsPerQuery,
      'cost ratio': ratio(a.summary.costPerQueryUsd, s.summary.costPerQueryUsd),
      'latency ratio': ratio(a.summary.latencyPerQueryMs, s.summary.latencyPerQueryMs),
      'guard removals': a.summary.guardRemovals,
    };
  });
}

/** One model's Table 6 pair: single-shot and agentic outcomes on the same backbone. */
export interface AgenticPair {
  model: string;
  singleShot: RerankOutcome;
  agentic: RerankOutcome;
}

export interface SingleVsAgenticOptions {
  mode: LlmMode;
  store: RecordStore | null;
  backbone: Backbone;
  qrels: Qrels;
  tools: AgentTool[];
  sourceOf: (q: RerankQuery) => SourcePublication | null;
  /** Environment for keys and base URLs. Default process.env. */
  env?: Record<string, string | undefined>;
  /** Client warnings. Default console.warn. */
  log?: (line: string) => void;
  /** Row label per model and kind. Default the rerankers' own (`LLM rerank (<id>)`, `agentic rerank (<id>)`). */
  label?: (configId: string, kind: 'listwise' | 'agentic') => string;
}

/**
 * Table 6 for any configured model, whatever its vendor (OpenAI, Anthropic, OpenAI-compatible: the harness speaks
 * each one's tool calling): per model, the single-shot listwise reranker and the agentic one on the same backbone.
 * A model that cannot run (e.g. a replay miss) is listed in `errors` and left out; the others go on.
 */
export async function singleShotVsAgentic(configs: readonly ModelConfig[], o: SingleVsAgenticOptions): Promise<{ pairs: AgenticPair[]; errors: string[]; table: RerankTable }> {
  const pairs: AgenticPair[] = [];
  const errors: string[] = [];
  const tables: RerankTable[] = [];
  for (const c of configs) {
    const client = createLlmClient(c, { mode: o.mode, store: o.store, env: o.env, log: o.log });
    const t = await rerankTable(
      [o.backbone],
      [listwiseReranker(client, { label: o.label?.(c.id, 'listwise') }), agenticReranker(client, { tools: o.tools, sourceOf: o.sourceOf, label: o.label?.(c.id, 'agentic') })],
      o.qrels,
      { onError: 'skip' },
    );
    for (const e of t.errors) errors.push(`${e.label}: ${e.error}`);
    if (t.outcomes.length === 2) {
      pairs.push({ model: c.id, singleShot: t.outcomes[0], agentic: t.outcomes[1] });
      tables.push(t);
    }
  }
  return { pairs, errors, table: tables.length > 0 ? mergeRerankTables(...tables) : { backbones: [], outcomes: [], errors: [] } };
}

/** Per-query trace rows of an agentic (or any) outcome: tool calls, rounds, LLM calls, tokens, cost, stop reason. */
export function agentTraceRows(o: Pick<RerankOutcome, 'reranked' | 'perQuery'>): Record<string, unknown>[] {
  return o.perQuery.queryIds.map((q, i) => {
    const ts = o.reranked.traces.get(q) ?? [];
    const sum = (f: (t: (typeof ts)[number]) => number) => ts.reduce((s, t) => s + f(t), 0);
    return {
      query: q, 'tool calls': sum((t) => t.toolCalls.length), tools: [...new Set(ts.flatMap((t) => t.toolCalls.map((c) => c.name)))].join(', '),
      'tool rounds': sum((t) => t.toolRounds), 'LLM calls': sum((t) => t.calls), 'input tok': sum((t) => t.inputTokens), 'output tok': sum((t) => t.outputTokens),
      '$': sum((t) => t.costUsd), 'guard removals': sum((t) => t.toolCalls.reduce((a, c) => a + c.removedByGuard, 0)), RR: o.perQuery.values.MRR[i], AP: o.perQuery.values.MAP[i],
    };
  });
}
