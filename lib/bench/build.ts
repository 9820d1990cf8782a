import { datasetsByPublication } from '../data/corpus';
import type { Corpus } from '../data/types';
import { EoError, type EoWarning } from '../errors';
import { LEAKAGE_WARN_ABOVE, leakageAudit, leakageSummary, type LeakageAudit, type LeakageOptions } from './leakage';
import type { Qrels } from '../metrics/types';
import { BENCHMARK_DEFAULTS } from './settings';
import { DEFAULT_STRATA, stratifiedSample, stratifiedSplit, stratumOf } from './split';
import { shortHash } from '../util/hash';
import type { TrainingData } from '../store/types';
import type { BenchLabel, BenchQuery, BenchSplitView, Benchmark, QueryWriter, Split } from './types';

export interface BuildBenchmarkOptions {
  writer: QueryWriter;
  /** Name of the benchmark (folder name of exports). Default `eo-<writer id>`. */
  name?: string;
  /** Split and subset seed. Default `BENCHMARK_DEFAULTS.seed` (42). */
  seed?: number;
  /** Share of publications in the test split. Default `BENCHMARK_DEFAULTS.testFraction` (0.2). */
  testFraction?: number;
  /** Size of the stratified test subset for the costly stages. Default `BENCHMARK_DEFAULTS.subsetSize` (200). */
  subsetSize?: number;
  /** Link relations that count as labels. Default `BENCHMARK_DEFAULTS.relations`: all (null). */
  relations?: string[] | null;
  /** Called after each publication (progress). */
  onProgress?: (done: number, total: number) => void;
  /** Thresholds (and optional embeddings) of the train/test leakage audit run after the split. Default token Jaccard only. */
  leakage?: LeakageOptions;
  /** Warn when more test queries than this have a near-duplicate in train. Default `LEAKAGE_WARN_ABOVE` (0). */
  leakageWarnAbove?: number;
  /** Receives coded warnings (`BENCH_LEAKAGE`). Default: none. */
  onWarning?: (w: EoWarning) => void;
  /** Receives the leakage audit of the built split (its `count` is the number the warning compares). */
  onLeakage?: (audit: LeakageAudit) => void;
}

/**
 * Build the citation-grounded benchmark: one or more queries per publication (from the writer), labelled
 * with the datasets linked to that publication; split by publication, stratified by the number of linked
 * datasets, seeded.
 */
export async function buildBenchmark(corpus: Corpus, opts: BuildBenchmarkOptions): Promise<Benchmark> {
  const seed = opts.seed ?? BENCHMARK_DEFAULTS.seed;
  const testFraction = opts.testFraction ?? BENCHMARK_DEFAULTS.testFraction;
  const relations = opts.relations ?? BENCHMARK_DEFAULTS.relations;
  const linked = datasetsByPublication(corpus, relations ?? undefined);
  const pubs = corpus.publications.filter((p) => (linked.get(p.id)?.length ?? 0) > 0);
  if (pubs.length === 0) throw new EoError('BENCH', 'no publication has a linked dataset (check the relations filter)');
  const split = stratifiedSplit(pubs.map((p) => ({ id: p.id, stratum: stratumOf(linked.get(p.id)!.length) })), testFraction, seed);

  const queries: BenchQuery[] = [];
  const labels: BenchLabel[] = [];
  const relationOf = new Map<string, string[]>();
  for (const l of corpus.links) {
    if (relations && !relations.includes(l.relation)) continue;
    const k = `${l.publicationId}\u0000${l.datasetId}`;
    relationOf.set(k, [...(relationOf.get(k) ?? []), l.relation]);
  }
  let done = 0;
  for (const pub of pubs) {
    const texts = await opts.writer.write(pub);
    const ds = linked.get(pub.id)!;
    texts.forEach((text, i) => {
      const id = `${pub.id}#${i + 1}`;
      queries.push({ id, publicationId: pub.id, text, writer: opts.writer.id, variant: i + 1, split: split.get(pub.id)!, positives: ds.length });
      for (const d of ds) for (const relation of relationOf.get(`${pub.id}\u0000${d}`)!) labels.push({ queryId: id, datasetId: d, relation });
    });
    opts.onProgress?.(++done, pubs.length);
  }
  const audit = await leakageAudit({ queries }, opts.leakage);
  opts.onLeakage?.(audit);
  const warnAbove = opts.leakageWarnAbove ?? LEAKAGE_WARN_ABOVE;
  if (audit.count > warnAbove)
    opts.onWarning?.({ code: 'BENCH_LEAKAGE', message: `${leakageSummary(audit)}; more than ${warnAbove}`, details: { count: audit.count, warnAbove, first: audit.pairs.slice(0, 3) } });
  return benchmarkRecord(corpus, {
    name: opts.name ?? `eo-${opts.writer.id.replace(/[^A-Za-z0-9._-]+/g, '_')}`,
    writer: opts.writer.id,
    writerLabel: opts.writer.label,
    seed,
    testFraction,
    relations,
    queries,
    labels,
  }, opts.subsetSize ?? BENCHMARK_DEFAULTS.subsetSize);
}

/**
 * A benchmark record over `corpus` (its hashes, the default strata) from its queries and labels, with the stratified
 * test subset of `subsetSize` queries drawn with the benchmark's seed. Built benchmarks and imported ones alike.
 */
export function benchmarkRecord(
  corpus: Pick<Corpus, 'hash' | 'dataHash'>,
  parts: Omit<Benchmark, 'corpusHash' | 'dataHash' | 'testSubset' | 'strata'>,
  subsetSize: number,
): Benchmark {
  const test = parts.queries.filter((q) => q.split === 'test');
  const testSubset = stratifiedSample(test.map((q) => ({ id: q.id, stratum: stratumOf(q.positives) })), subsetSize, parts.seed);
  // field order as the benchmark.json files have always been written
  const { name, writer, writerLabel, seed, testFraction, relations, queries, labels } = parts;
  return {
    name, writer, writerLabel, seed, testFraction, relations, corpusHash: corpus.hash, dataHash: corpus.dataHash, queries, labels, testSubset,
    strata: DEFAULT_STRATA.map((s) => ({ ...s })),
  };
}

/** Relevance judgements of a benchmark (every label relevance 1), optionally for some relations only. */
export function benchmarkQrels(bench: Benchmark, opts: { split?: Split | 'all'; relations?: string[]; queryIds?: Iterable<string> } = {}): Qrels {
  const keep = opts.queryIds ? new Set(opts.queryIds) : null;
  const qs = bench.queries.filter((q) => (opts.split === undefined || opts.split === 'all' || q.split === opts.split) && (!keep || keep.has(q.id)));
  const qrels: Qrels = new Map(qs.map((q) => [q.id, new Map<string, number>()]));
  for (const l of bench.labels) {
    if (opts.relations && !opts.relations.includes(l.relation)) continue;
    qrels.get(l.queryId)?.set(l.datasetId, 1);
  }
  return qrels;
}

/** Queries + qrels of one split (or of the test subset). */
export function benchmarkSplit(bench: Benchmark, which: Split | 'test-subset'): BenchSplitView {
  const subset = which === 'test-subset' ? new Set(bench.testSubset) : null;
  const queries = bench.queries.filter((q) => (subset ? subset.has(q.id) : q.split === which));
  return { queries, qrels: benchmarkQrels(bench, { queryIds: queries.map((q) => q.id) }) };
}

/**
 * What a model trained on this benchmark's TRAINING split is trained on (see `TrainingData`). The hash covers the
 * data hash (datasets, publications, links), the writer, seed, test fraction and relations filter, and every
 * training query (id, publication, text) with its labels (dataset, relation): another seed, relations filter,
 * writer or links file gives another hash; a rebuild of the same benchmark gives the same one.
 */
export function benchmarkTrainingData(bench: Benchmark): TrainingData {
  if (!bench.dataHash)
    throw new EoError('CACHE_MISMATCH', `benchmark ${bench.name} records no data hash (saved before benchmarks recorded one); rebuild it: eo bench build`);
  const labels = new Map<string, string[]>();
  for (const l of bench.labels) labels.set(l.queryId, [...(labels.get(l.queryId) ?? []), `${l.datasetId}:${l.relation}`]);
  const train = bench.queries.filter((q) => q.split === 'train').sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const lines = [
    `v1 data=${bench.dataHash} writer=${bench.writer} seed=${bench.seed} testFraction=${bench.testFraction} relations=${JSON.stringify(bench.relations)}`,
    ...train.map((q) => `${q.id}\u0001${q.publicationId}\u0001${q.text}\u0001${(labels.get(q.id) ?? []).sort().join(',')}`),
  ];
  return {
    hash: shortHash(lines.join('\n')),
    dataHash: bench.dataHash,
    benchmark: bench.name,
    writer: bench.writer,
    seed: bench.seed,
    testFraction: bench.testFraction,
    relations: bench.relations,
    queries: train.length,
  };
}

/** What differs between two training-data records, e.g. `seed 7 → 42; relations cites → all` (empty when none). */
export function trainingDataDifference(was: Partial<TrainingData>, now: TrainingData): string {
  const show = (k: keyof TrainingData, v: unknown) => (v === undefined ? 'unrecorded' : k === 'relations' ? (v === null ? 'all' : (v as string[]).join(',')) : String(v));
  const keys: (keyof TrainingData)[] = ['dataHash', 'writer', 'seed', 'testFraction', 'relations', 'queries'];
  const names: Partial<Record<keyof TrainingData, string>> = { dataHash: 'data (datasets, publications, links)', queries: 'training queries' };
  const diffs = keys.filter((k) => JSON.stringify(was[k]) !== JSON.stringify(now[k])).map((k) => `${names[k] ?? k} ${show(k, was[k])} → ${show(k, now[k])}`);
  return diffs.length > 0 ? diffs.join('; ') : 'the training queries or labels';
}
