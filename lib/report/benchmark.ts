import type { BenchmarkStats } from '../bench/stats';
import type { Benchmark, Split } from '../bench/types';
import { barFigure, histogramFigure } from './figures';
import type { Figure } from './types';

/** The benchmark's size as `{ what, value }` rows: publications, queries per split, labels, positives per query, labels per relation. */
export function benchmarkSizeRows(stats: BenchmarkStats): { what: string; value: number | string }[] {
  const p = stats.positivesSummary;
  return [
    { what: 'publications (with ≥1 linked dataset)', value: stats.publications },
    { what: 'queries', value: stats.queries.total },
    { what: 'train queries', value: stats.queries.train },
    { what: 'test queries', value: stats.queries.test },
    { what: 'test subset (rerank stages)', value: stats.queries.testSubset },
    { what: 'labels (query, dataset, relation)', value: stats.labels },
    { what: 'distinct labelled datasets', value: stats.distinctLabelledDatasets },
    { what: 'positives per query: median / mean / max', value: `${p.median} / ${p.mean.toFixed(2)} / ${p.max}` },
    ...Object.entries(stats.labelsByRelation).map(([r, n]) => ({ what: `labels with relation ${r}`, value: n })),
  ];
}

/** Histogram of positives per query, values above `cap` counted at `cap` (default 30). */
export function positivesPerQueryFigure(bench: Benchmark, cap = 30): Figure {
  return histogramFigure(bench.queries.map((q) => Math.min(q.positives, cap)), { title: `Positives per query (capped at ${cap})`, xTitle: 'linked datasets', bins: cap });
}

/** Datasets per DAAC, corpus vs labelled, DAACs by corpus size (log scale). */
export function datasetsPerDaacFigure(stats: BenchmarkStats): Figure {
  const daacs = Object.keys(stats.corpusDatasetsPerDaac).sort((a, b) => stats.corpusDatasetsPerDaac[b] - stats.corpusDatasetsPerDaac[a]);
  return barFigure(daacs, {
    'corpus datasets': daacs.map((d) => stats.corpusDatasetsPerDaac[d]),
    'labelled datasets': daacs.map((d) => stats.labelledDatasetsPerDaac[d] ?? 0),
  }, { title: 'Datasets per DAAC: corpus vs labelled', yTitle: 'datasets', layout: { yaxis: { type: 'log', title: { text: 'datasets (log)' } } } });
}

/** Split balance per stratum as table rows. */
export function splitBalanceRows(stats: BenchmarkStats) {
  return stats.splitBalance.map((r) => ({ 'linked datasets': r.stratum, train: r.train, test: r.test, 'test share': r.testShare }));
}

/** Publications per stratum and split, stacked bars. */
export function splitBalanceFigure(stats: BenchmarkStats): Figure {
  const s = stats.splitBalance;
  return barFigure(s.map((r) => r.stratum), { train: s.map((r) => r.train), test: s.map((r) => r.test) },
    { title: 'Publications per stratum and split', xTitle: 'linked datasets', yTitle: 'publications', barmode: 'stack' });
}

/** The first `n` queries of a split as rows (query text, positives, publication). */
export function benchmarkQueryRows(bench: Benchmark, split: Split, n = 8) {
  return bench.queries.filter((q) => q.split === split).slice(0, n).map((q) => ({ query: q.text, positives: q.positives, publication: q.publicationId }));
}
