import { NASA_EO_BENCH } from '../bench/paper';
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

/** Our benchmark's sizes beside NASA-EO-Bench's (the paper's §4), one row per quantity. */
export function benchmarkVsPaperRows(stats: BenchmarkStats, corpusDatasets: number): { what: string; ours: number; 'NASA-EO-Bench': number }[] {
  const p = NASA_EO_BENCH;
  return [
    { what: 'datasets (corpus)', ours: corpusDatasets, 'NASA-EO-Bench': p.datasets },
    { what: 'queries', ours: stats.queries.total, 'NASA-EO-Bench': p.queries },
    { what: 'train queries', ours: stats.queries.train, 'NASA-EO-Bench': p.train },
    { what: 'test queries', ours: stats.queries.test, 'NASA-EO-Bench': p.test },
    { what: 'labelled datasets per query (mean)', ours: stats.positivesSummary.mean, 'NASA-EO-Bench': p.labelsPerQuery },
    { what: 'rerank subset (test queries)', ours: stats.queries.testSubset, 'NASA-EO-Bench': p.rerankSubset },
  ];
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/**
 * What the benchmark's size and split tables show, in words: how many publications became how many queries, the
 * train/test shares against the target test fraction, the stratum furthest from it, and the positives per query
 * against the paper's 2.24. Markdown; says when the numbers come from the sample.
 */
export function benchmarkVerdict(stats: BenchmarkStats, opts: { testFraction: number; seed: number; sample: boolean }): string {
  const q = stats.queries;
  const testShare = q.total ? q.test / q.total : 0;
  const worst = [...stats.splitBalance].filter((r) => r.train + r.test > 0)
    .sort((a, b) => Math.abs(b.testShare - opts.testFraction) - Math.abs(a.testShare - opts.testFraction))[0];
  const perQuery = stats.positivesSummary.mean;
  const paper = NASA_EO_BENCH.labelsPerQuery;
  const lines = [
    `- **${stats.publications} publications** with at least one linked dataset became **${q.total} queries** (${(q.total / Math.max(1, stats.publications)).toFixed(2)} per publication, ${stats.writerLabel}).`,
    `- Split at publication level with seed ${opts.seed}: ${q.train} train and ${q.test} test queries, a test share of ${pct(testShare)} against the target ${pct(opts.testFraction)}.`,
    worst
      ? `- Stratification keeps every stratum near the target: the furthest is "${worst.stratum}" linked datasets at ${pct(worst.testShare)} test (${worst.test} of ${worst.train + worst.test} publications)` +
        (worst.train + worst.test < 10 ? ', a stratum too small to hit the target exactly.' : '.')
      : '- No stratum has publications.',
    `- Positives per query: median ${stats.positivesSummary.median}, mean ${perQuery.toFixed(2)}, max ${stats.positivesSummary.max} — ` +
      `${(perQuery / paper).toFixed(2)}× NASA-EO-Bench's ${paper} per query (its labels are the knowledge graph's USES_DATASET edges; ours are this snapshot's publication→dataset links).`,
    `- ${stats.distinctLabelledDatasets} distinct datasets are right answers somewhere; every other dataset of the corpus is a distractor only.`,
  ];
  lines.push(opts.sample ? '\n*Sample snapshot (`EO_SAMPLE=1` / `--sample`): a 200-dataset teaching corpus, so these counts are small.*' : '\n*Full snapshot.*');
  return lines.join('\n');
}

/**
 * A "try it" split (other seed or test fraction) against the reported one, in words: queries per split and the
 * largest change in any stratum's test share. Identical settings say so (the default restores the reported split).
 */
export function splitKnobVerdict(reported: BenchmarkStats, tried: BenchmarkStats, settings: { seed: number; testFraction: number; reportedSeed: number; reportedTestFraction: number }): string {
  const same = settings.seed === settings.reportedSeed && settings.testFraction === settings.reportedTestFraction;
  const share = (s: BenchmarkStats) => (s.queries.total ? s.queries.test / s.queries.total : 0);
  const byStratum = new Map(reported.splitBalance.map((r) => [r.stratum, r.testShare]));
  const moved = tried.splitBalance.map((r) => ({ stratum: r.stratum, d: r.testShare - (byStratum.get(r.stratum) ?? 0) }))
    .sort((a, b) => Math.abs(b.d) - Math.abs(a.d))[0];
  const head = same
    ? `Seed ${settings.seed} and test fraction ${settings.testFraction} are the reported settings: this is the reported split (${tried.queries.train} train / ${tried.queries.test} test queries).`
    : `Seed ${settings.seed}, test fraction ${settings.testFraction}: ${tried.queries.train} train / ${tried.queries.test} test queries ` +
      `(test share ${pct(share(tried))}, reported ${pct(share(reported))} with seed ${settings.reportedSeed} and fraction ${settings.reportedTestFraction}).`;
  const tail = !same && moved ? ` The stratum whose test share moved most is "${moved.stratum}" (${moved.d >= 0 ? '+' : '−'}${pct(Math.abs(moved.d))}); every later number changes with the split, which is why the seed is fixed.` : '';
  return head + tail;
}
