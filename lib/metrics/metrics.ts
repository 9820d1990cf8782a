import { sortRunEntries } from './rank';
import { METRIC_NAMES, type EvaluateOptions, type MetricName, type MetricRow, type PerQueryMetrics, type Qrels, type Run, type RunEntry } from './types';

/** Relevant (rel > 0) dataset ids of one query. */
export function relevantSet(judged: Map<string, number> | undefined): Set<string> {
  const s = new Set<string>();
  if (judged) for (const [d, r] of judged) if (r > 0) s.add(d);
  return s;
}

/** Recall@k: relevant datasets in the top k / all relevant datasets. `ranked` must be sorted. */
export function recallAt(ranked: readonly RunEntry[], relevant: Set<string>, k: number): number {
  if (relevant.size === 0) return 0;
  let hit = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) if (relevant.has(ranked[i].docId)) hit++;
  return hit / relevant.size;
}

/** Average precision over the ranked list (already cut at depth), normalised by all relevant datasets. */
export function averagePrecision(ranked: readonly RunEntry[], relevant: Set<string>): number {
  if (relevant.size === 0) return 0;
  let hit = 0;
  let sum = 0;
  for (let i = 0; i < ranked.length; i++) {
    if (relevant.has(ranked[i].docId)) {
      hit++;
      sum += hit / (i + 1);
    }
  }
  return sum / relevant.size;
}

/** Reciprocal rank of the first relevant dataset; 0 when none is retrieved. */
export function reciprocalRank(ranked: readonly RunEntry[], relevant: Set<string>): number {
  for (let i = 0; i < ranked.length; i++) if (relevant.has(ranked[i].docId)) return 1 / (i + 1);
  return 0;
}

/**
 * Precision@k from a judgement function (e.g. an LLM judge): judged-relevant among the top k, divided by k
 * (as trec_eval's P_k: a list shorter than k counts the missing ranks as non-relevant).
 */
export async function precisionAtFromJudge(
  ranked: readonly RunEntry[],
  k: number,
  judge: (docId: string, rank: number) => boolean | Promise<boolean>,
): Promise<number> {
  let hit = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) if (await judge(ranked[i].docId, i + 1)) hit++;
  return hit / k;
}

/**
 * Per-query R@10/20/100, MAP and MRR (both over the top `depth`, default 100), with trec_eval semantics:
 * runs are sorted by score desc, id desc; queries without any relevant dataset are skipped (listed);
 * queries with positives but absent from the run score 0 (as trec_eval -c). Query order follows the qrels.
 */
export function evaluateRun(run: Run, qrels: Qrels, opts: EvaluateOptions = {}): PerQueryMetrics {
  const depth = opts.depth ?? 100;
  const out: PerQueryMetrics = {
    queryIds: [],
    values: { 'R@10': [], 'R@20': [], 'R@100': [], MAP: [], MRR: [] },
    skippedNoPositives: [],
    missingFromRun: [],
  };
  for (const [qid, judged] of qrels) {
    const relevant = relevantSet(judged);
    if (relevant.size === 0) {
      out.skippedNoPositives.push(qid);
      continue;
    }
    const entries = run.get(qid);
    if (!entries) out.missingFromRun.push(qid);
    const ranked = sortRunEntries(entries ?? [], depth);
    out.queryIds.push(qid);
    out.values['R@10'].push(recallAt(ranked, relevant, 10));
    out.values['R@20'].push(recallAt(ranked, relevant, 20));
    out.values['R@100'].push(recallAt(ranked, relevant, 100));
    out.values.MAP.push(averagePrecision(ranked, relevant));
    out.values.MRR.push(reciprocalRank(ranked, relevant));
  }
  return out;
}

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Macro-average per-query metrics into one table row. */
export function summarize(system: string, pq: PerQueryMetrics): MetricRow {
  const row = { system } as MetricRow;
  for (const m of METRIC_NAMES) row[m] = mean(pq.values[m]);
  return row;
}

/** Restrict per-query metrics to a subset of query ids (kept in the original order). */
export function selectQueries(pq: PerQueryMetrics, keep: ReadonlySet<string>): PerQueryMetrics {
  const idx = pq.queryIds.map((q, i) => (keep.has(q) ? i : -1)).filter((i) => i >= 0);
  const values = {} as Record<MetricName, number[]>;
  for (const m of METRIC_NAMES) values[m] = idx.map((i) => pq.values[m][i]);
  return {
    queryIds: idx.map((i) => pq.queryIds[i]),
    values,
    skippedNoPositives: pq.skippedNoPositives.filter((q) => keep.has(q)),
    missingFromRun: pq.missingFromRun.filter((q) => keep.has(q)),
  };
}
