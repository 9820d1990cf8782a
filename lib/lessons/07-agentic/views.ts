// Notebook 07: the rows of Table 6 and of the agent's per-query traces (moved from lib/agent, which only computes them).
import type { RerankOutcome } from '../../rerank/evaluate';
import { pairedComparisons } from '../../metrics/systems';

/**
 * Table 6 rows: per model, single-shot vs agentic on the same backbone — MAP/MRR of both, the agentic gain over
 * single-shot with paired CI, tool-call rate (share of queries with ≥ 1 call), tool calls per query, LLM calls per
 * query, and cost and latency ratios agentic / single-shot.
 */
export function agentReportRows(pairs: readonly { model: string; singleShot: RerankOutcome; agentic: RerankOutcome }[]): Record<string, unknown>[] {
  return pairs.map(({ model, singleShot: s, agentic: a }) => {
    const g = pairedComparisons(a.perQuery, s.perQuery, 'agentic', 'single-shot', ['MAP', 'MRR']);
    const ratio = (x: number, y: number) => (y > 0 ? x / y : null);
    return {
      model,
      'MAP single': s.row.MAP, 'MAP agentic': a.row.MAP,
      'MRR single': s.row.MRR, 'MRR agentic': a.row.MRR,
      'ΔMRR (agentic−single)': g[1].meanDiff, 'ΔMRR CI95': `[${g[1].ciLow.toFixed(3)}, ${g[1].ciHigh.toFixed(3)}]`,
      'tool-call rate': a.summary.toolCallRate,
      'tool calls/query': a.summary.toolCallsPerQuery,
      'LLM calls/query': a.summary.callsPerQuery,
      'cost ratio': ratio(a.summary.costPerQueryUsd, s.summary.costPerQueryUsd),
      'latency ratio': ratio(a.summary.latencyPerQueryMs, s.summary.latencyPerQueryMs),
      'guard removals': a.summary.guardRemovals,
    };
  });
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
