/**
 * Metrics of a graded benchmark (relevance 2 = the asked product, 1 = same family): the user-facing ones beside the
 * paper's. Binary metrics count every grade ≥ 1 as relevant; nDCG@10 uses the grades as gains with a log2 discount
 * (trec_eval's `ndcg_cut.10` convention: gain = grade, ideal = the judged grades sorted).
 */
import { averagePrecision, reciprocalRank, recallAt } from './metrics';
import { pairedTest, type PairedOptions } from './paired';
import { sortRunEntries } from './rank';
import type { PairedComparison, Qrels, Run, RunEntry } from './types';

export const GRADED_METRIC_NAMES = ['R@10', 'MAP', 'MRR', 'nDCG@10', 'P@10', 'S@10'] as const;
export type GradedMetricName = (typeof GRADED_METRIC_NAMES)[number];

export interface GradedPerQuery {
  queryIds: string[];
  values: Record<GradedMetricName, number[]>;
}

/** nDCG at k with linear gains. */
export function ndcgAt(ranked: readonly RunEntry[], grades: ReadonlyMap<string, number>, k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) dcg += (grades.get(ranked[i].docId) ?? 0) / Math.log2(i + 2);
  const ideal = [...grades.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += ideal[i] / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Every graded metric of a run, per query of the qrels that has a relevant dataset (depth 100 for MAP/MRR). */
export function evaluateGraded(run: Run, qrels: Qrels, depth = 100): GradedPerQuery {
  const out: GradedPerQuery = { queryIds: [], values: { 'R@10': [], MAP: [], MRR: [], 'nDCG@10': [], 'P@10': [], 'S@10': [] } };
  for (const [qid, judged] of qrels) {
    const relevant = new Set([...judged].filter(([, g]) => g > 0).map(([d]) => d));
    if (relevant.size === 0) continue;
    const ranked = sortRunEntries(run.get(qid) ?? [], depth);
    let hits10 = 0;
    for (let i = 0; i < Math.min(10, ranked.length); i++) if (relevant.has(ranked[i].docId)) hits10++;
    out.queryIds.push(qid);
    out.values['R@10'].push(recallAt(ranked, relevant, 10));
    out.values.MAP.push(averagePrecision(ranked, relevant));
    out.values.MRR.push(reciprocalRank(ranked, relevant));
    out.values['nDCG@10'].push(ndcgAt(ranked, judged, 10));
    out.values['P@10'].push(hits10 / 10);
    out.values['S@10'].push(hits10 > 0 ? 1 : 0);
  }
  return out;
}

/** Mean of each graded metric over the queries in `keep` (all when absent). */
export function gradedMeans(pq: GradedPerQuery, keep?: ReadonlySet<string>): Record<GradedMetricName, number> & { n: number } {
  const idx = pq.queryIds.map((q, i) => (!keep || keep.has(q) ? i : -1)).filter((i) => i >= 0);
  const row = { n: idx.length } as Record<GradedMetricName, number> & { n: number };
  for (const m of GRADED_METRIC_NAMES) row[m] = idx.length ? idx.reduce((s, i) => s + pq.values[m][i], 0) / idx.length : 0;
  return row;
}

/** Paired comparison A − B of one graded metric over the queries in `keep` (both evaluated on the same qrels). */
export function gradedPaired(a: GradedPerQuery, b: GradedPerQuery, metric: GradedMetricName, keep?: ReadonlySet<string>, opts: PairedOptions = {}): PairedComparison {
  const bi = new Map(b.queryIds.map((q, i) => [q, i]));
  const xa: number[] = [];
  const xb: number[] = [];
  a.queryIds.forEach((q, i) => {
    const j = bi.get(q);
    if (j === undefined || (keep && !keep.has(q))) return;
    xa.push(a.values[metric][i]);
    xb.push(b.values[metric][j]);
  });
  return pairedTest(xa, xb, metric, opts);
}
