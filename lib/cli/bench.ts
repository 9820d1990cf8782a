/**
 * `eo bench build --kg FILE` and `eo bench import FILE`: the paper's benchmark from a knowledge-graph export, and a
 * user's copy of NASA-EO-Bench mapped to our benchmark layout (BEIR + TREC + benchmark.json, see exportBenchmark).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
// Per-module imports, as in eo.ts: loading the `eo` command stays cheap.
import { buildBenchmark } from '../bench/build';
import { defaultBenchmarkDir, exportBenchmark } from '../bench/export';
import { eoBenchToBenchmark } from '../bench/import';
import { BENCHMARK_DEFAULTS } from '../bench/settings';
import type { QueryWriter } from '../bench/types';
import { titleQueryWriter } from '../bench/writers';
import { formatEoBenchFieldMapping, importEoBench, type EoBenchRole } from '../data/eobench';
import { formatKgCorpusReport, KG_USES_DATASET_RELATION, streamKgCorpus } from '../data/kg';
import { loadSnapshot } from '../data/snapshot';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { writeFileAtomic, writeJsonl } from '../util/fs';
import { gcmdKeywordsFile } from '../router/variables';
import { numberFlag } from './usage';
import { BENCH_FLAGS, BENCH_SYNOPSIS, commandHelp, parseArgsOptions } from './flags';

export const BENCH_USAGE = BENCH_SYNOPSIS;

/** The flags of `eo bench build --kg` and `eo bench import`, as parsed (BENCH_FLAGS). */
interface BenchFlags {
  kg?: string; writer?: string; seed?: string; 'test-fraction'?: string; subset?: string; out?: string; field?: string[];
  split?: string; resolve?: boolean; data?: string; sample?: boolean; help?: boolean;
}

function positiveInt(v: string | undefined, name: string, def: number): number {
  return numberFlag(v, name, def, { integer: true, min: 1 });
}

/** `--field query=task` flags → overrides per role. */
export function parseFieldOverrides(flags: readonly string[] = []): Partial<Record<EoBenchRole, string>> {
  const out: Partial<Record<EoBenchRole, string>> = {};
  for (const f of flags) {
    const m = /^(query|positives|split|id)=(.+)$/.exec(f.trim());
    if (!m) throw new EoError('INVALID_ARGUMENT', `--field must be ROLE=NAME with ROLE one of query, positives, split, id (got "${f}")`);
    out[m[1] as EoBenchRole] = m[2].trim();
  }
  return out;
}

/** The query writer named by `--writer`: `title` (default), or `llm:<model>` through the LLM layer (mode, store and key from the environment). */
async function writerFor(spec: string | undefined): Promise<QueryWriter> {
  if (spec === undefined || spec === 'title') return titleQueryWriter();
  const m = /^llm:(.+)$/.exec(spec);
  if (!m) throw new EoError('INVALID_ARGUMENT', `--writer must be "title" or "llm:<model id from lib/llm/models.json>" (got "${spec}")`);
  // Loaded only here: the title writer needs no LLM client.
  const { createLlmClientFromEnv, toLlmComplete } = await import('../llm/client');
  const { llmQueryWriter } = await import('../bench/writers');
  return llmQueryWriter({ complete: toLlmComplete(createLlmClientFromEnv(m[1])), model: m[1] });
}

async function loadKg(file: string, log: (s: string) => void): Promise<Corpus> {
  const t0 = performance.now();
  const { corpus, report } = await streamKgCorpus(file);
  log(`read ${file} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  for (const line of formatKgCorpusReport(report)) log(`  ${line}`);
  return corpus;
}

/**
 * The corpus as a snapshot folder, so that `--data <out>/snapshot` points every other command at it; with the GCMD
 * keywords of the default data folder, which the router reads from the `--data` folder too.
 */
function writeSnapshot(dir: string, corpus: Corpus): void {
  writeJsonl(path.join(dir, 'datasets.jsonl'), corpus.datasets);
  writeJsonl(path.join(dir, 'publications.jsonl'), corpus.publications);
  writeJsonl(path.join(dir, 'links.jsonl'), corpus.links);
  const gcmd = gcmdKeywordsFile();
  if (fs.existsSync(gcmd)) writeFileAtomic(path.join(dir, path.basename(gcmd)), fs.readFileSync(gcmd));
}

/** Run `eo bench build --kg …` or `eo bench import …` (argv after `bench`). Lines go to `out` (results) and `log` (progress). */
export async function runBenchCommand(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s + '\n'),
  log: (s: string) => void = (s) => process.stderr.write(s + '\n'),
): Promise<void> {
  const parsed = parseArgs({ args: argv, allowPositionals: true, options: parseArgsOptions(BENCH_FLAGS) });
  const values = parsed.values as BenchFlags;
  const [sub, file] = parsed.positionals;
  if (values.help) return out(commandHelp('bench'));
  const seed = positiveInt(values.seed, 'seed', BENCHMARK_DEFAULTS.seed);
  const subsetSize = positiveInt(values.subset, 'subset', BENCHMARK_DEFAULTS.subsetSize);

  if (sub === 'build') {
    if (!values.kg) throw new EoError('INVALID_ARGUMENT', `bench build --kg needs the export file\n${BENCH_USAGE}`);
    const testFraction = numberFlag(values['test-fraction'], 'test-fraction', BENCHMARK_DEFAULTS.testFraction);
    if (!(testFraction > 0 && testFraction < 1)) throw new EoError('INVALID_ARGUMENT', `--test-fraction must be in (0, 1) (got "${values['test-fraction']}")`);
    const writer = await writerFor(values.writer);
    const corpus = await loadKg(values.kg, log);
    const name = `kg-${writer.id.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
    const bench = await buildBenchmark(corpus, {
      writer, name, seed, testFraction, subsetSize, relations: [KG_USES_DATASET_RELATION],
      onProgress: (d, t) => {
        if (d === t || d % 500 === 0) log(`writing queries ${d}/${t}`);
      },
    });
    const dir = values.out ?? defaultBenchmarkDir(name);
    exportBenchmark(dir, bench, corpus);
    writeSnapshot(path.join(dir, 'snapshot'), corpus);
    const tr = bench.queries.filter((q) => q.split === 'train').length;
    out(`${bench.queries.length} queries (${tr} train, ${bench.queries.length - tr} test, test subset ${bench.testSubset.length}) over ${corpus.datasets.length} datasets; labels: USES_DATASET; writer: ${bench.writerLabel}`);
    out(`written to ${dir} (corpus as a snapshot folder in ${path.join(dir, 'snapshot')})`);
    return;
  }

  if (sub === 'import') {
    if (!file) throw new EoError('INVALID_ARGUMENT', `bench import needs a file or folder\n${BENCH_USAGE}`);
    const { bench: eb, mapping } = importEoBench(file, { fields: parseFieldOverrides(values.field), split: values.split });
    out(mapping ? `field mapping for ${file}:` : `${file}: ${eb.format} layout (fixed field names)`);
    if (mapping) for (const l of formatEoBenchFieldMapping(mapping)) out(`  ${l}`);
    for (const w of eb.warnings) log(`warning: ${w}`);
    const corpus = values.kg ? await loadKg(values.kg, log) : loadSnapshot({ dir: values.data, sample: values.sample });
    const { benchmark, report } = eoBenchToBenchmark(eb, corpus, { seed, subsetSize, resolve: values.resolve });
    const tr = benchmark.queries.filter((q) => q.split === 'train').length;
    out(`${report.queries} queries read; ${report.kept} kept (${tr} train, ${report.kept - tr} test, test subset ${benchmark.testSubset.length})${report.valAsTrain > 0 ? `; ${report.valAsTrain} validation queries put in train` : ''}`);
    if (report.unknownPositives > 0) {
      out(`${report.unknownPositives} positive dataset id(s) are not in the corpus (${corpus.datasets.length} datasets)${values.resolve ? `; ${report.resolved} resolved to a likely match` : ''}; first ones:`);
      for (const u of report.unknownExamples) out(`  ${u.id} (query ${u.queryId}, ${u.source})${u.suggestion ? ` — probably ${u.suggestion}${values.resolve ? '' : ' (--resolve uses it)'}` : ''}`);
    }
    if (report.droppedQueries.length > 0)
      out(`${report.droppedQueries.length} query(ies) dropped: none of their positives is in the corpus (first: ${report.droppedQueries.slice(0, 5).join(', ')})`);
    const dir = values.out ?? defaultBenchmarkDir(benchmark.name);
    exportBenchmark(dir, benchmark, corpus);
    out(`written to ${dir}`);
    return;
  }
  throw new EoError('INVALID_ARGUMENT', `unknown bench command "${sub ?? ''}"\n${BENCH_USAGE}`);
}
