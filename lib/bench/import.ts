import type { EoBench } from '../data/eobench-read';
import { restrictEoBenchToCorpus, type EoBenchUnknownPositive } from '../data/eobench';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { BENCHMARK_DEFAULTS } from './settings';
import { benchmarkRecord } from './build';
import type { BenchLabel, BenchQuery, Benchmark } from './types';

export interface EoBenchToBenchmarkOptions {
  /** Benchmark name (export folder name). Default `nasa-eo-bench`. */
  name?: string;
  /** Seed of the stratified test subset. Default BENCHMARK_DEFAULTS.seed (42). */
  seed?: number;
  /** Size of the stratified test subset. Default BENCHMARK_DEFAULTS.subsetSize (200). */
  subsetSize?: number;
  /** Replace an unknown positive by the corpus dataset it probably means (same id ignoring case, DOI, unique shortName). Default false. */
  resolve?: boolean;
  /** Label of the writer shown with every number. Default `NASA-EO-Bench queries imported from <files>`. */
  writerLabel?: string;
}

export interface EoBenchImportReport {
  queries: number;
  /** Queries in the benchmark (those with at least one positive in the corpus). */
  kept: number;
  /** Positive ids not in the corpus: how many, and the first few (with a likely corpus match when there is one). */
  unknownPositives: number;
  unknownExamples: EoBenchUnknownPositive[];
  /** Unknown positives replaced by their suggestion (`resolve`). */
  resolved: number;
  /** Queries dropped because none of their positives is in the corpus. */
  droppedQueries: string[];
  /** Validation-split queries, put in the training split (the benchmark has train and test only). */
  valAsTrain: number;
}

/**
 * NASA-EO-Bench queries → our Benchmark layout (exportable with exportBenchmark as BEIR + TREC). Positives not in the
 * corpus are reported, never silently dropped: counted, with the first few, and queries left without any are listed.
 */
export function eoBenchToBenchmark(eb: EoBench, corpus: Corpus, opts: EoBenchToBenchmarkOptions = {}): { benchmark: Benchmark; report: EoBenchImportReport } {
  const { bench, report: check, droppedQueries } = restrictEoBenchToCorpus(eb, corpus, { resolve: opts.resolve ?? false });
  if (bench.queries.length === 0)
    throw new EoError('BENCH', `none of the ${eb.queries.length} queries has a positive in the corpus (${check.unknown.length} unknown dataset ids, e.g. ${check.unknown.slice(0, 3).map((u) => u.id).join(', ')}): is it the right corpus?`);
  const seed = opts.seed ?? BENCHMARK_DEFAULTS.seed;
  const queries: BenchQuery[] = [];
  const labels: BenchLabel[] = [];
  let valAsTrain = 0;
  for (const q of bench.queries) {
    if (q.split === 'val') valAsTrain++;
    const split = q.split === 'test' ? 'test' : 'train';
    queries.push({ id: q.id, publicationId: q.id, text: q.text, writer: 'nasa-eo-bench', variant: 1, split, positives: q.positives.length });
    for (const d of q.positives) labels.push({ queryId: q.id, datasetId: d, relation: 'nasa-eo-bench' });
  }
  const testCount = queries.filter((q) => q.split === 'test').length;
  const resolved = opts.resolve ? check.unknown.filter((u) => u.suggestion !== null).length : 0;
  const benchmark = benchmarkRecord(corpus, {
    name: opts.name ?? 'nasa-eo-bench',
    writer: 'nasa-eo-bench',
    writerLabel: opts.writerLabel ?? `NASA-EO-Bench queries imported from ${eb.files.join(', ')}`,
    seed,
    testFraction: queries.length > 0 ? testCount / queries.length : 0,
    relations: null,
    queries,
    labels,
  }, opts.subsetSize ?? BENCHMARK_DEFAULTS.subsetSize);
  return {
    benchmark,
    report: {
      queries: eb.queries.length,
      kept: queries.length,
      unknownPositives: check.unknown.length,
      unknownExamples: check.unknown.slice(0, 5),
      resolved,
      droppedQueries,
      valAsTrain,
    },
  };
}
