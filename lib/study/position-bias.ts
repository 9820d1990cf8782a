/**
 * Position bias of a reranker: the same windows presented in k seeded shuffles. An order-insensitive reranker
 * returns the same ranking every time (Kendall's τ = 1 between shuffles); a position-biased one follows the
 * presentation. Also the spread of MAP / MRR over the shuffles, and permutation self-consistency: the shuffles'
 * rankings aggregated by mean reciprocal rank (ties: Borda, i.e. mean rank) as a rerank row with its cost. LLM
 * rerankers record every call through their client's store (lib/llm), so a shuffle seed replays exactly.
 */
import { kendallTauB } from '../judge/compare';
import { evaluateRun, summarize } from '../metrics/metrics';
import { spreadOf, type Spread } from '../metrics/spread';
import type { MetricRow, Qrels, Run } from '../metrics/types';
import { composeWindowOrder, entriesFromOrder, type BackboneList } from '../rerank/compose';
import type { Reranker } from '../rerank/types';
import { mulberry32, shuffleInPlace } from '../util/random';

export interface PositionBiasOptions {
  /** Number of seeded shuffles k. Default 5. */
  shuffles?: number;
  /** Seed of shuffle i is `seed + i`. Default 42. */
  seed?: number;
  /** Window size (the top `window` of each backbone list is shuffled and reranked). Default 10. */
  window?: number;
}

export interface PositionBias {
  reranker: string;
  shuffles: number;
  seeds: number[];
  window: number;
  /** Kendall's τ-b between the window orderings of every pair of shuffles, over all queries. */
  tau: Spread;
  /** MAP and MRR of each shuffle's run. */
  map: Spread;
  mrr: Spread;
  /** Each shuffle's run (window reranked, tail unchanged). */
  runs: Run[];
  /** Self-consistency: the shuffles aggregated by mean reciprocal rank. */
  aggregated: { run: Run; row: MetricRow };
  /** Cost of all shuffles together (the aggregated row's cost); per shuffle = divide by `shuffles`. */
  cost: { calls: number; inputTokens: number; outputTokens: number; costUsd: number };
}

/** Rerank the same windows in k seeded shuffles and measure how much the order of presentation moves the result. */
export async function positionBias(reranker: Reranker, lists: readonly BackboneList[], qrels: Qrels, opts: PositionBiasOptions = {}): Promise<PositionBias> {
  const k = opts.shuffles ?? 5;
  const seed0 = opts.seed ?? 42;
  const size = opts.window ?? 10;
  const seeds = Array.from({ length: k }, (_, i) => seed0 + i);
  const cost = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  // orders[s][q] = window dataset ids, best first
  const orders: string[][][] = [];
  for (const seed of seeds) {
    const rng = mulberry32(seed);
    const perQuery: string[][] = [];
    for (const l of lists) {
      const win = shuffleInPlace(l.candidates.slice(0, size), rng);
      const res = await reranker.rerank(l.query, win);
      cost.calls += res.trace.calls; cost.inputTokens += res.trace.inputTokens; cost.outputTokens += res.trace.outputTokens; cost.costUsd += res.trace.costUsd;
      perQuery.push(composeWindowOrder(res.ranked, win.length).map((i) => win[i].id));
    }
    orders.push(perQuery);
  }
  const runOf = (windowIds: (q: number) => string[]): Run =>
    new Map(lists.map((l, q) => [l.query.id, entriesFromOrder([...windowIds(q), ...l.candidates.slice(size).map((c) => c.id)])]));
  const runs = orders.map((o) => runOf((q) => o[q]));
  const taus: number[] = [];
  lists.forEach((l, q) => {
    const ids = l.candidates.slice(0, size).map((c) => c.id);
    const rankIn = (o: string[]) => { const r = new Map(o.map((id, i) => [id, i])); return ids.map((id) => -(r.get(id) ?? ids.length)); };
    for (let a = 0; a < k; a++) for (let b = a + 1; b < k; b++) {
      const t = kendallTauB(rankIn(orders[a][q]), rankIn(orders[b][q]));
      if (Number.isFinite(t)) taus.push(t);
    }
  });
  const rows = runs.map((r) => summarize('', evaluateRun(r, qrels)));
  const aggregatedRun = runOf((q) => aggregateOrders(orders.map((o) => o[q])));
  return {
    reranker: reranker.label, shuffles: k, seeds, window: size,
    tau: spreadOf(taus), map: spreadOf(rows.map((r) => r.MAP)), mrr: spreadOf(rows.map((r) => r.MRR)), runs,
    aggregated: { run: aggregatedRun, row: summarize(`${reranker.label} · self-consistency over ${k} shuffles`, evaluateRun(aggregatedRun, qrels)) },
    cost,
  };
}

/**
 * Rank aggregation of several orderings of the same items: by mean reciprocal rank, ties by mean rank (Borda),
 * then by first appearance in the first ordering.
 */
export function aggregateOrders(orders: readonly (readonly string[])[]): string[] {
  const first = orders[0] ?? [];
  const stat = new Map(first.map((id, i) => [id, { rr: 0, rank: 0, first: i }]));
  for (const o of orders) o.forEach((id, i) => { const s = stat.get(id); if (s) { s.rr += 1 / (i + 1); s.rank += i; } });
  return [...stat].sort((a, b) => b[1].rr - a[1].rr || a[1].rank - b[1].rank || a[1].first - b[1].first).map(([id]) => id);
}

/** Rows for a notebook cell: one per reranker, τ and MAP/MRR spread, the self-consistency row and its cost. */
export function positionBiasRows(results: readonly PositionBias[]): Record<string, string | number>[] {
  const ms = (s: Spread) => `${s.mean.toFixed(3)} ± ${s.sd.toFixed(3)}`;
  return results.map((r) => ({
    reranker: r.reranker, shuffles: r.shuffles,
    'Kendall τ (mean ± sd)': ms(r.tau), 'τ min': Number(r.tau.min.toFixed(3)),
    'MAP (mean ± sd)': ms(r.map), 'MRR (mean ± sd)': ms(r.mrr),
    'self-consistency MAP': Number(r.aggregated.row.MAP.toFixed(4)), 'self-consistency MRR': Number(r.aggregated.row.MRR.toFixed(4)),
    'calls (all shuffles)': r.cost.calls, 'tokens (all shuffles)': r.cost.inputTokens + r.cost.outputTokens,
  }));
}
