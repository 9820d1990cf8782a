import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { writeTrecQrels } from '../metrics/trec';
import { ensureWritableDir, readTextFile, writeJsonAtomic, writeJsonl, writeFileAtomic } from '../util/fs';
import { benchDataDir } from '../util/paths';
import { checkContentHash, sha256 } from '../util/hash';
import { snapshotFlags } from '../data/snapshot';
import { benchmarkQrels, buildBenchmark, type BuildBenchmarkOptions } from './build';
import { BENCHMARK_DEFAULTS } from './settings';
import type { Benchmark, QueryWriter } from './types';
import { titleQueryWriter } from './writers';

/** The content hash a saved benchmark records: SHA-256 of its JSON (2-space indented) without the hash field. */
function benchmarkContentHash(fields: object): string {
  return sha256(JSON.stringify(fields, null, 2));
}

/** Save a benchmark as one JSON document (atomic), recording its content hash (`sha256`), checked by `loadBenchmark`. */
export function saveBenchmark(file: string, bench: Benchmark): void {
  const { sha256: _old, ...fields } = bench as Benchmark & { sha256?: unknown };
  writeJsonAtomic(file, { ...fields, sha256: benchmarkContentHash(fields) });
}

/**
 * Load a benchmark saved by saveBenchmark. With `corpus`, refuses (CACHE_MISMATCH) one built on other data — other
 * datasets, publications or links, or data it did not record — naming both data hashes and the command that rebuilds
 * it. Then its content hash is checked: a damaged file, or one saved before benchmarks recorded a hash, is refused
 * (CACHE_MISMATCH naming the file, both hashes and the `eo bench build` command that rebuilds it).
 */
export function loadBenchmark(file: string, corpus?: Corpus): Benchmark {
  let b: Benchmark;
  let recorded: unknown;
  try {
    const { sha256: h, ...fields } = JSON.parse(readTextFile(file));
    b = fields as Benchmark;
    recorded = h;
  } catch (e) {
    if ((e as { code?: string }).code === 'DATA_NOT_FOUND') throw e;
    throw new EoError('DATA_PARSE', `${file}: not a benchmark JSON document (${(e as Error).message})`, { file });
  }
  const rebuild = () => benchBuildCommand(b, path.dirname(file)) + (corpus ? snapshotFlags(corpus.origin) : '');
  for (const f of ['queries', 'labels', 'testSubset'] as const)
    if (!Array.isArray((b as any)[f])) throw new EoError('DATA_INVALID', `${file}: field "${f}" must be an array`, { file, field: f });
  if (corpus && (b.corpusHash !== corpus.hash || b.dataHash !== corpus.dataHash)) {
    const was = b.dataHash ? `data ${b.dataHash}` : 'data it did not record (saved before benchmarks recorded their data hash)';
    throw new EoError(
      'CACHE_MISMATCH',
      `${file}: built on ${was}, but the loaded datasets, publications and links are data ${corpus.dataHash}; rebuild it: ${rebuild()}`,
      { file, dataHash: b.dataHash ?? null, expected: corpus.dataHash },
    );
  }
  checkContentHash(file, recorded, benchmarkContentHash(b), rebuild());
  return b;
}

/** The `eo bench build` command that rebuilds a benchmark with its own split settings into `dir` (add `--sample` / `--data` for other snapshots). */
export function benchBuildCommand(b: Pick<Benchmark, 'seed' | 'testFraction' | 'relations'>, dir: string): string {
  const d = BENCHMARK_DEFAULTS;
  const flags = [
    b.seed !== d.seed ? `--seed ${b.seed}` : '',
    b.testFraction !== d.testFraction ? `--test-fraction ${b.testFraction}` : '',
    b.relations ? `--relations ${b.relations.join(',')}` : '',
  ].filter(Boolean);
  return ['eo bench build', ...flags, `--out ${dir}`].join(' ');
}

/**
 * Export in BEIR layout (corpus.jsonl, queries.jsonl, qrels/{train,test}.tsv) plus TREC qrels
 * (qrels.{train,test,test-subset}.trec) and the benchmark itself (benchmark.json).
 */
export function exportBenchmark(dir: string, bench: Benchmark, corpus: Corpus): string[] {
  ensureWritableDir(path.join(dir, 'qrels'));
  const written: string[] = [];
  const w = (f: string) => (written.push(path.join(dir, f)), path.join(dir, f));
  writeJsonl(w('corpus.jsonl'), corpus.datasets.map((d) => ({
    _id: d.id,
    title: d.shortName ? `${d.shortName}: ${d.longName}` : d.longName,
    text: d.abstract,
    metadata: { shortName: d.shortName, longName: d.longName, doi: d.doi, daac: d.daac, temporalStart: d.temporalStart, temporalEnd: d.temporalEnd },
  })));
  writeJsonl(w('queries.jsonl'), bench.queries.map((q) => ({
    _id: q.id, text: q.text,
    metadata: { publicationId: q.publicationId, split: q.split, writer: q.writer, variant: q.variant, inTestSubset: bench.testSubset.includes(q.id) },
  })));
  for (const split of ['train', 'test'] as const) {
    const qrels = benchmarkQrels(bench, { split });
    let tsv = 'query-id\tcorpus-id\tscore\n';
    for (const [q, m] of qrels) for (const [d, r] of m) tsv += `${q}\t${d}\t${r}\n`;
    writeFileAtomic(w(`qrels/${split}.tsv`), tsv);
    writeTrecQrels(w(`qrels.${split}.trec`), qrels);
  }
  writeTrecQrels(w('qrels.test-subset.trec'), benchmarkQrels(bench, { queryIds: bench.testSubset }));
  saveBenchmark(w('benchmark.json'), bench);
  return written;
}

/** Where benchmarks are exported by default: `<repo>/data/bench/<name>`. */
export function defaultBenchmarkDir(name: string): string {
  return benchDataDir(name);
}

/** Settings of the benchmark the notebooks, the CLI and the service share (`loadOrBuildBenchmark(corpus, settings)`). */
export interface BenchmarkSettings extends BuildBenchmarkOptions {
  name: string;
  /** Export folder (`data/bench/<name>`): the benchmark.json there is reused while data and settings match. */
  dir: string;
}

/**
 * The shared benchmark: `BENCHMARK_DEFAULTS` with the given writer (default: the offline title writer), named
 * `eo-title` (`eo-title-sample` on the sample snapshot) and exported to `data/bench/<name>`. Any field may be
 * overridden, e.g. `benchmarkSettings({ sample, seed: 7 })`.
 */
export function benchmarkSettings(opts: { sample?: boolean; writer?: QueryWriter } & Partial<Omit<BenchmarkSettings, 'writer'>> = {}): BenchmarkSettings {
  const { sample, writer = titleQueryWriter(), ...rest } = opts;
  const name = rest.name ?? `eo-${writer.id.replace(/[^A-Za-z0-9._-]+/g, '_')}${sample ? '-sample' : ''}`;
  return { ...BENCHMARK_DEFAULTS, writer, name, dir: defaultBenchmarkDir(name), ...rest };
}

/**
 * The benchmark in `dir` (its benchmark.json) when it exists and was built on this corpus with the same
 * writer, seed and options; otherwise build it, export it there, and return it.
 */
export async function loadOrBuildBenchmark(corpus: Corpus, opts: BuildBenchmarkOptions & { dir: string }): Promise<Benchmark> {
  const file = path.join(opts.dir, 'benchmark.json');
  if (fs.existsSync(file)) {
    try {
      const b = loadBenchmark(file, corpus);
      const d = BENCHMARK_DEFAULTS;
      const same = b.writer === opts.writer.id && b.seed === (opts.seed ?? d.seed) && b.testFraction === (opts.testFraction ?? d.testFraction) &&
        JSON.stringify(b.relations) === JSON.stringify(opts.relations ?? d.relations) &&
        b.testSubset.length === Math.min(opts.subsetSize ?? d.subsetSize, b.queries.filter((q) => q.split === 'test').length);
      if (same) return b;
    } catch (e) {
      // stale (other data or settings, or saved before benchmarks recorded a hash): rebuilt below; a damaged file is an error
      if (!(e instanceof EoError) || typeof e.details?.recorded === 'string') throw e;
    }
  }
  const bench = await buildBenchmark(corpus, opts);
  exportBenchmark(opts.dir, bench, corpus);
  return bench;
}
