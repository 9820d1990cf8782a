import { pairedRows } from '../metrics/systems';
import type { RerankOutcome } from '../rerank/report';

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
