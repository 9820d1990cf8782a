#!/usr/bin/env node
/**
 * The `eo` command. Thin: parses flags and calls the same library functions the notebooks call.
 *   eo search "<query>" [--k 10] [--json] [--retriever best|bm25|cosine|nnssc] [--semantic best|nnssc|use-lite] [--fusion adaptive|analytic|grid|rrf] [--alpha A] [--nnssc-top-m M|exact] [--no-repair] [--sample] [--data DIR]
 *             [filters: --provider, --platform, --instrument, --processing-level-id (repeatable or comma-separated),
 *              --temporal=START,END, --bounding-box=W,S,E,N; --ignore period|place:NAME|identifier:TEXT; --facets]
 *   eo bench build [--seed 42] [--test-fraction 0.2] [--subset 200] [--relations cites,...] [--out DIR] [--sample]
 *   eo eval --run FILE --qrels FILE [--depth 100] [--json]
 *   eo eval --system best|bm25|cosine|nnssc [--split test|train|test-subset] [--bench FILE] [--out DIR] [--json]
 * `eo search` and `eo eval --system` run the one query path of lib/search (the same engine as `eo serve`).
 *   eo serve [--port 8765] [--host 127.0.0.1] [--sample] ...   (see lib/cli/serve.ts)
 *   eo llm plan|batch|import|status ...                          (see lib/cli/llm.ts)
 *   eo cache verify | eo cache rebuild bm25|embeddings|all ...   (see lib/cli/cache.ts)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
// Per-module imports (not '../index'): `eo search` loads only the stages it uses.
import { isEoError } from '../errors';
import { repoReportsDir } from '../util/paths';
import { loadSnapshot } from '../data/snapshot';
import type { Corpus } from '../data/types';
import { benchmarkSplit, buildBenchmark } from '../bench/build';
import { benchmarkSettings, exportBenchmark, loadBenchmark } from '../bench/export';
import { BENCHMARK_DEFAULTS } from '../bench/settings';
import { evaluateRun, summarize } from '../metrics/metrics';
import { readTrecQrels, readTrecRun, writeTrecQrels, writeTrecRun } from '../metrics/trec';
import { METRIC_NAMES, type MetricRow } from '../metrics/types';
import { parseEncoderName } from '../encode/registry';
import { searchBatch } from '../search/batch';
import { loadSearchEngine } from '../search/engine';
import { FACET_NAMES } from '../search/facets';
import { describeFilters } from '../search/filters';
import { describeRepair } from '../search/repair';
import { search } from '../search/search';
import { checkFilters } from '../serve/validate';
import type { SearchEngine } from '../search/types';
import { CACHE_USAGE, fusionFlag, LLM_USAGE, nnsscTopMFlag, SERVE_USAGE } from './usage';
import { BENCH_USAGE, runBenchCommand } from './bench';
import { runStyleEval } from './eval-styles';

const USAGE = `usage:
  eo search "<query>" [--k 10] [--json] [--retriever best|bm25|cosine|nnssc] [--semantic best|nnssc|use-lite] [--fusion adaptive|analytic|grid|rrf] [--alpha A] [--nnssc-top-m M|exact] [--no-repair] [--sample] [--data DIR]
      [--provider DAAC] [--platform NAME] [--instrument NAME] [--processing-level-id L]   (each repeatable or comma-separated; values OR, filters AND)
      [--temporal=START,END] [--bounding-box=W,S,E,N]   (CMR syntax: ISO dates/date-times, a side empty = open; west > east crosses 180°; use = before a leading -)
      [--ignore period|place:NAME|identifier:TEXT]   (repeatable: leave a constraint parsed from the question out)   [--facets]   (facet counts of the top 100)
  eo bench build [--seed 42] [--test-fraction 0.2] [--subset 200] [--relations R1,R2] [--out DIR] [--sample] [--data DIR]
  eo eval --run FILE --qrels FILE [--depth 100] [--json]
  eo eval --system best|bm25|cosine|nnssc [--split test|train|test-subset] [--bench FILE] [--no-rules] [--out DIR] [--json] [--sample] [--data DIR]
  eo eval --system best|bm25|cosine|nnssc --bench styles [--split test|dev] [--no-rules] [--json]   (the benchmark of real query styles)
  ${SERVE_USAGE.replace('usage: ', '')}
${BENCH_USAGE.replace('usage:\n', '')}
${CACHE_USAGE.replace('usage:\n', '')}
${LLM_USAGE}`;

function fail(msg: string): never {
  process.stderr.write(`eo: ${msg}\n`);
  process.exit(2);
}

function intFlag(v: string | undefined, name: string, def: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) fail(`--${name} must be a positive integer (got "${v}")`);
  return n;
}

/**
 * The search engine of a retriever name: `best` (BM25 + the best semantic scorer, fused with the stored α), `bm25`,
 * `cosine` (USE-lite alone) or `nnssc` (NN-SSC alone).
 */
async function engineFor(name: string, corpus: Corpus, values: { sample?: boolean; fusion?: string; alpha?: string; semantic?: string; 'nnssc-top-m'?: string }): Promise<SearchEngine> {
  const log = (l: string) => process.stderr.write(l.startsWith('embedding') ? `\r${l}` : `${l}\n`);
  // unset flags leave the default ranking (DEFAULT_RANKING): the same engine as `eo serve`'s page and API
  const common = { sample: !!values.sample, fusion: fusionFlag(values.fusion, USAGE), nnsscTwoStage: nnsscTopMFlag(values['nnssc-top-m'], USAGE), log };
  const alpha = values.alpha === undefined ? undefined : Number(values.alpha);
  if (alpha !== undefined && !(alpha >= 0 && alpha <= 1)) fail(`--alpha must be a number in [0, 1] (got "${values.alpha}")`);
  const semantic = values.semantic ?? 'best';
  if (!['best', 'nnssc', 'use-lite'].includes(semantic)) fail(`--semantic must be best, nnssc or use-lite (got "${semantic}")`);
  if (name === 'best') return loadSearchEngine(corpus, { ...common, alpha, semantic: semantic as 'best' | 'nnssc' | 'use-lite' });
  if (name === 'bm25') return loadSearchEngine(corpus, { ...common, semantic: 'none' });
  if (name === 'cosine') return loadSearchEngine(corpus, { ...common, semantic: 'use-lite', lexical: false });
  if (name === 'nnssc') return loadSearchEngine(corpus, { ...common, semantic: 'nnssc', lexical: false });
  return fail(`unknown retriever "${name}" (best, bm25, cosine or nnssc)`);
}

function defaultBenchDir(sample: boolean): string {
  return benchmarkSettings({ sample }).dir;
}

function printTable(rows: MetricRow[]): void {
  const cols = ['system', ...METRIC_NAMES];
  const lines = [cols.join('\t'), ...rows.map((r) => [r.system, ...METRIC_NAMES.map((m) => r[m].toFixed(4))].join('\t'))];
  process.stdout.write(lines.join('\n') + '\n');
}

/**
 * `--encoder use-lite|onnx:<folder>` is accepted by every subcommand (serve included): it sets $EO_ENCODER, which
 * every encoder load (`loadEncoder`) reads, so one flag reaches the library code without threading it through.
 */
function takeEncoderFlag(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--encoder' || a.startsWith('--encoder=')) {
      const v = a === '--encoder' ? argv[++i] : a.slice('--encoder='.length);
      if (!v) fail('--encoder needs a value: use-lite or onnx:<folder>');
      parseEncoderName(v, '--encoder'); // a bad name fails here, not deep inside a command that may not need it
      process.env.EO_ENCODER = v;
    } else out.push(a);
  }
  return out;
}

async function main(rawArgv: string[]): Promise<void> {
  const argv = takeEncoderFlag(rawArgv);
  if (argv[0] === 'cache') return (await import('./cache')).runCacheCommand(argv.slice(1));
  // loaded here only: `eo llm` pulls in both LLM SDKs
  if (argv[0] === 'llm') return (await import('./llm')).runLlmCommand(argv.slice(1));
  if (argv[0] === 'serve') {
    // loaded here only: the service pulls in Fastify, the LLM SDKs and the search pipeline
    const { runServe, SERVE_PROCESS } = await import('./serve');
    if (process.env.EO_SERVE_PROCESS !== '1') {
      // malloc arenas and V8's young generation are read only at start: run the service again with them (SERVE_PROCESS)
      const { spawn } = await import('node:child_process');
      const env = { ...(process.platform === 'linux' ? SERVE_PROCESS.env : {}), ...process.env, EO_SERVE_PROCESS: '1' };
      const child = spawn(process.execPath, [...SERVE_PROCESS.nodeFlags, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env });
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig));
      child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
      return;
    }
    const server = await runServe(argv.slice(1));
    const stop = () => void server.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  if (argv[0] === 'bench' && (argv[1] === 'import' || argv.includes('--kg'))) return runBenchCommand(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      k: { type: 'string' }, json: { type: 'boolean' }, retriever: { type: 'string' }, sample: { type: 'boolean' },
      data: { type: 'string' }, seed: { type: 'string' }, 'test-fraction': { type: 'string' }, subset: { type: 'string' },
      relations: { type: 'string' }, out: { type: 'string' }, run: { type: 'string' }, qrels: { type: 'string' },
      depth: { type: 'string' }, system: { type: 'string' }, split: { type: 'string' }, bench: { type: 'string' },
      fusion: { type: 'string' }, alpha: { type: 'string' }, semantic: { type: 'string' }, 'nnssc-top-m': { type: 'string' },
      provider: { type: 'string', multiple: true }, platform: { type: 'string', multiple: true }, instrument: { type: 'string', multiple: true },
      'processing-level-id': { type: 'string', multiple: true }, temporal: { type: 'string' }, 'bounding-box': { type: 'string' },
      ignore: { type: 'string', multiple: true }, facets: { type: 'boolean' }, 'no-rules': { type: 'boolean' },
      'no-repair': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [cmd, ...rest] = positionals;
  if (values.help || !cmd) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const load = () => loadSnapshot({ dir: values.data, sample: values.sample });

  if (cmd === 'search') {
    const query = rest.join(' ');
    if (query.trim() === '') fail('search needs a query, e.g. eo search "sea ice extent Arctic"');
    const k = intFlag(values.k, 'k', 10);
    const corpus = load();
    // the service's parser (lib/serve/validate.ts → lib/search/filters.ts): one set of rules and messages for both
    const cf = checkFilters({
      provider: values.provider, platform: values.platform, instrument: values.instrument, processing_level_id: values['processing-level-id'],
      temporal: values.temporal, bounding_box: values['bounding-box'], ignore: values.ignore,
    }, corpus);
    if ('problem' in cf) fail(`--${cf.problem.message.replace(/^\w+/, (p) => p.replace(/_/g, '-'))}`);
    const engine = await engineFor(values.retriever ?? 'best', corpus, values);
    try {
      const res = await search(engine, query, { k, filters: cf.filters, ignore: cf.ignore, facets: !!values.facets, repair: !values['no-repair'] });
      // the page's "showing results for …" line, on stderr so that stdout stays the results
      if (res.repair) process.stderr.write(`${describeRepair(res.repair, query)}${res.repair.repaired !== res.repair.original ? ' (--no-repair)' : ''}\n`);
      if (values.json) {
        process.stdout.write(JSON.stringify(res, null, 2) + '\n');
      } else {
        const tools = res.router?.decisions.filter((d) => d.applies).map((d) => d.tool) ?? [];
        if (tools.length) process.stdout.write(`NASA tools for this request: ${tools.join(', ')} (eo serve shows their links)\n`);
        if (res.retrieval.filters) process.stdout.write(`filters: ${describeFilters(res.retrieval.filters)}\n`);
        if (res.retrieval.ignored) process.stdout.write(`ignored from the question: ${JSON.stringify(res.retrieval.ignored)}\n`);
        if (res.results.length === 0) process.stdout.write('no dataset matches\n');
        for (const r of res.results)
          process.stdout.write(`${String(r.rank).padStart(3)}. ${r.id}  ${r.shortName ?? '-'}  score ${r.score.toFixed(4)}\n     ${r.longName}\n     ${r.why}\n     ${r.links.landingPage}\n`);
        if (res.facets) {
          process.stdout.write(`facets (top ${res.facets.resultSet} results):\n`);
          for (const f of FACET_NAMES) if (res.facets[f].length) process.stdout.write(`  ${f}: ${res.facets[f].slice(0, 10).map((v) => `${v.value} ${v.count}`).join(', ')}${res.facets[f].length > 10 ? `, … (${res.facets[f].length - 10} more)` : ''}\n`);
        }
        process.stderr.write(`(${engine.label}; α from ${engine.fusion.source}; ranked "${res.retrievalQuery}" over ${corpus.datasets.length} datasets in ${res.timings.totalMs.toFixed(1)} ms)\n`);
      }
    } finally {
      engine.dispose();
    }
    return;
  }

  if (cmd === 'bench' && rest[0] === 'build') {
    const corpus = load();
    const d = BENCHMARK_DEFAULTS;
    const bench = await buildBenchmark(corpus, {
      ...benchmarkSettings({ sample: !!values.sample }),
      seed: intFlag(values.seed, 'seed', d.seed),
      testFraction: values['test-fraction'] ? Number(values['test-fraction']) : d.testFraction,
      subsetSize: intFlag(values.subset, 'subset', d.subsetSize),
      relations: values.relations ? values.relations.split(',') : d.relations,
    });
    const out = values.out ?? defaultBenchDir(!!values.sample);
    exportBenchmark(out, bench, corpus);
    const tr = bench.queries.filter((q) => q.split === 'train').length;
    process.stdout.write(`${bench.queries.length} queries (${tr} train, ${bench.queries.length - tr} test, test subset ${bench.testSubset.length}); writer: ${bench.writerLabel}\nwritten to ${out}\n`);
    return;
  }

  if (cmd === 'eval') {
    if (values.run) {
      if (!values.qrels) fail('eval --run needs --qrels');
      const pq = evaluateRun(readTrecRun(values.run), readTrecQrels(values.qrels), { depth: intFlag(values.depth, 'depth', 100) });
      const row = summarize(path.basename(values.run), pq);
      if (values.json) process.stdout.write(JSON.stringify({ ...row, queries: pq.queryIds.length, skippedNoPositives: pq.skippedNoPositives.length }, null, 2) + '\n');
      else printTable([row]);
      return;
    }
    const system = values.system ?? fail('eval needs --run FILE --qrels FILE, or --system best|bm25|cosine|nnssc');
    const corpus = load();
    if (values.bench === 'styles') {
      const split = values.split ?? 'test';
      if (split !== 'dev' && split !== 'test') fail('--split must be dev or test with --bench styles');
      const engine = await engineFor(system, corpus, values);
      try {
        await runStyleEval(corpus, engine, { system, split, rules: !values['no-rules'], json: !!values.json, out: values.out ?? repoReportsDir('cli') });
      } finally {
        engine.dispose();
      }
      return;
    }
    const benchFile = values.bench ?? path.join(defaultBenchDir(!!values.sample), 'benchmark.json');
    if (!fs.existsSync(benchFile)) fail(`no benchmark at ${benchFile}; run "eo bench build${values.sample ? ' --sample' : ''}" first`);
    const bench = loadBenchmark(benchFile, corpus);
    const split = (values.split ?? 'test') as 'test' | 'train' | 'test-subset';
    if (!['test', 'train', 'test-subset'].includes(split)) fail(`--split must be test, train or test-subset`);
    const view = benchmarkSplit(bench, split);
    const engine = await engineFor(system, corpus, values);
    try {
      // ranked as `eo search` ranks (the query rules on) unless --no-rules: the paper's path, as notebook 05's tables
      const { run } = await searchBatch(engine, view.queries, { rules: !values['no-rules'] });
      const row = summarize(engine.label, evaluateRun(run, view.qrels));
      const out = values.out ?? repoReportsDir('cli');
      writeTrecRun(path.join(out, `${system}.${split}.run`), run, system);
      writeTrecQrels(path.join(out, `qrels.${split}.trec`), view.qrels);
      if (values.json) process.stdout.write(JSON.stringify({ ...row, alphaSource: engine.fusion.source }, null, 2) + '\n');
      else printTable([row]);
    } finally {
      engine.dispose();
    }
    return;
  }
  fail(`unknown command "${cmd}"\n${USAGE}`);
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`eo: ${isEoError(e) ? `[${e.code}] ` : ''}${(e as Error).message}\n`);
  process.exit(1);
});
