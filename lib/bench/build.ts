import { datasetsByPublication } from '../data/corpus';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import type { Qrels } from '../metrics/types';
import { BENCHMARK_DEFAULTS } from './settings';
import { DEFAULT_STRATA, stratifiedSample, stratifiedSplit, stratumOf } from './split';
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
  const test = queries.filter((q) => q.split === 'test');
  const testSubset = stratifiedSample(test.map((q) => ({ id: q.id, stratum: stratumOf(q.positives) })), opts.subsetSize ?? BENCHMARK_DEFAULTS.subsetSize, seed);
  return {
    name: opts.name ?? `eo-${opts.writer.id.replace(/[^A-Za-z0-9._-]+/g, '_')}`,
    writer: opts.writer.id,
    writerLabel: opts.writer.label,
    seed,
    testFraction,
    relations,
    corpusHash: corpus.hash,
    queries,
    labels,
    testSubset,
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
