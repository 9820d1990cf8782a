import type { Corpus } from '../data/types';
import { stratumOf } from './split';
import type { Benchmark } from './types';

export interface BenchmarkStats {
  writer: string;
  writerLabel: string;
  publications: number;
  queries: { total: number; train: number; test: number; testSubset: number };
  labels: number;
  labelsByRelation: Record<string, number>;
  /** Distribution of positives per query: value → number of queries. */
  positivesPerQuery: Record<string, number>;
  positivesSummary: { min: number; median: number; mean: number; max: number };
  /** Per stratum: publications in train and in test (split balance). */
  splitBalance: { stratum: string; train: number; test: number; testShare: number }[];
  /** Labelled datasets per DAAC (distinct datasets). */
  labelledDatasetsPerDaac: Record<string, number>;
  /** Corpus datasets per DAAC. */
  corpusDatasetsPerDaac: Record<string, number>;
  distinctLabelledDatasets: number;
}

function count<T>(xs: T[], key: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return out;
}

export function benchmarkStats(bench: Benchmark, corpus: Corpus): BenchmarkStats {
  const posPerQuery = new Map<string, Set<string>>();
  for (const l of bench.labels) {
    let s = posPerQuery.get(l.queryId);
    if (!s) posPerQuery.set(l.queryId, (s = new Set()));
    s.add(l.datasetId);
  }
  const sizes = bench.queries.map((q) => posPerQuery.get(q.id)?.size ?? 0).sort((a, b) => a - b);
  const pubs = new Map(bench.queries.map((q) => [q.publicationId, q]));
  const balance = new Map<string, { train: number; test: number }>();
  for (const q of pubs.values()) {
    const s = stratumOf(q.positives);
    const b = balance.get(s) ?? { train: 0, test: 0 };
    b[q.split]++;
    balance.set(s, b);
  }
  const labelled = new Set(bench.labels.map((l) => l.datasetId));
  const daacOf = (id: string) => corpus.datasets[corpus.indexById.get(id)!]?.daac ?? 'unknown';
  return {
    writer: bench.writer,
    writerLabel: bench.writerLabel,
    publications: pubs.size,
    queries: {
      total: bench.queries.length,
      train: bench.queries.filter((q) => q.split === 'train').length,
      test: bench.queries.filter((q) => q.split === 'test').length,
      testSubset: bench.testSubset.length,
    },
    labels: bench.labels.length,
    labelsByRelation: count(bench.labels, (l) => l.relation),
    positivesPerQuery: count(sizes, (n) => String(n)),
    positivesSummary: {
      min: sizes[0] ?? 0,
      median: sizes.length ? (sizes[(sizes.length - 1) >> 1] + sizes[sizes.length >> 1]) / 2 : 0,
      mean: sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length),
      max: sizes[sizes.length - 1] ?? 0,
    },
    splitBalance: bench.strata
      .map((s) => ({ stratum: s.label, ...(balance.get(s.label) ?? { train: 0, test: 0 }) }))
      .map((r) => ({ ...r, testShare: r.train + r.test === 0 ? 0 : r.test / (r.train + r.test) })),
    labelledDatasetsPerDaac: count([...labelled], daacOf),
    corpusDatasetsPerDaac: count(corpus.datasets, (d) => d.daac),
    distinctLabelledDatasets: labelled.size,
  };
}
