#!/usr/bin/env node
/**
 * The `eo` command. Thin: parses flags and calls the same library functions the notebooks call.
 *   eo search "<query>" [--k 10] [--json] [--retriever best|bm25|bm25-stop|cosine|static|nnssc] [--semantic best|nnssc|use-lite|static] [--fusion adaptive|analytic|grid|rrf] [--alpha A] [--nnssc-top-m M|exact] [--no-repair] [--sample] [--data DIR]
 *             [filters: --provider, --platform, --instrument, --processing-level-id (repeatable or comma-separated),
 *              --temporal=START,END, --bounding-box=W,S,E,N; --ignore period|place:NAME|identifier:TEXT; --facets]
 *   eo bench build [--seed 42] [--test-fraction 0.2] [--subset 200] [--relations cites,...] [--out DIR] [--sample]
 *   eo eval --run FILE --qrels FILE [--depth 100] [--json]
 *   eo eval --system best|bm25|bm25-stop|cosine|static|nnssc [--split test|train|test-subset] [--bench FILE] [--out DIR] [--json]
 * `eo search` and `eo eval --system` run the one query path of lib/search (the same engine as `eo serve`).
 *   eo serve [--port 8765] [--host 127.0.0.1] [--sample] ...   (see lib/cli/serve.ts)
 *   eo llm plan|batch|import|status ...                          (see lib/cli/llm.ts)
 *   eo cache verify | eo cache rebuild bm25|embeddings|all ...   (see lib/cli/cache.ts)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
// Per-module imports (not '../index'): `eo search` loads only the stages it uses.
import { EoError } from '../errors';
import { checkQuery, MAX_QUERY_CHARS } from '../serve/validate';
import { gcmdKeywordsFile } from '../router/variables';
import { repoReportsDir } from '../util/paths';
import { requireFile } from '../util/fs';
import { loadSnapshot } from '../data/snapshot';
import type { Corpus } from '../data/types';
import { benchmarkSplit, buildBenchmark } from '../bench/build';
import { leakageSummary } from '../bench/leakage';
import { benchmarkSettings, exportBenchmark, loadBenchmark } from '../bench/export';
import { BENCHMARK_DEFAULTS } from '../bench/settings';
import { evaluateRun, summarize } from '../metrics/metrics';
import { readTrecQrels, readTrecRun, writeTrecQrels, writeTrecRun } from '../metrics/trec';
import { METRIC_NAMES, type MetricRow } from '../metrics/types';
import { pairedComparisons, pairedTable } from '../metrics/systems';
import { bm25StopScorer, buildBm25Stop } from '../retrieve/bm25-stop';
import { scoreQueries } from '../retrieve/scorers';
import { parseEncoderName } from '../encode/registry';
import { searchBatch } from '../search/retrieve-batch';
import { loadSearchEngine } from '../search/engine';
import { FACET_NAMES } from '../search/facets';
import { describeFilters } from '../search/filters';
import { describeRepair } from '../search/repair';
import { search } from '../search/search';
import { checkFilters } from '../serve/validate';
import type { LoadSearchEngineOptions } from '../search/engine';
import type { SearchEngine, SearchResponse } from '../search/types';
import { checkAlphaWithFusion, fusionFlag, LLM_USAGE, nnsscTopMFlag, numberFlag, staticPrfFlag } from './usage';
import { commandHelp, COMMAND_FLAGS, parseArgsOptions, type FlagSpec } from './flags';
import { checkArgvLength, exitWithError, stderrLog } from './exit';
import { BENCH_USAGE, runBenchCommand } from './bench';
import { runStyleEval } from './eval-styles';
import { runExportCommand } from './export';
import { latexTable } from '../report/latex';

const USAGE = `usage:
  eo search "<query>" [flags]                     rank the datasets for a question (the page's and the API's ranking)
  eo eval --run FILE --qrels FILE [flags]         score a TREC run
  eo eval --system NAME [--bench FILE|styles]     rank a benchmark's queries with a system and score it
  eo bench build [flags]                          build the title benchmark from the snapshot
${BENCH_USAGE.replace('usage:\n', '')}
  eo export latex FILE [flags]                    a results table as LaTeX
  eo serve [flags]                                the search page and JSON API
  eo cache verify | rebuild bm25|embeddings|all   check or rebuild the caches
  eo gpu check                                    the WebGPU adapter for training, or why there is none
${LLM_USAGE}
eo <command> --help lists every flag of a command with its default.`;

/** A usage error: exit status 2 (lib/cli/exit.ts). */
function fail(msg: string): never {
  throw new EoError('INVALID_ARGUMENT', msg);
}

function intFlag(v: string | undefined, name: string, def: number): number {
  return numberFlag(v, name, def, { integer: true, min: 1 });
}

/** `--test-fraction`: a number strictly between 0 and 1 (both splits non-empty). */
function testFractionFlag(v: string | undefined, def: number): number {
  const f = numberFlag(v, 'test-fraction', def, { min: 0, max: 1 });
  if (f === 0 || f === 1) fail(`--test-fraction must be strictly between 0 and 1 (got "${v}")`);
  return f;
}

const RETRIEVERS = ['best', 'bm25', 'bm25-stop', 'cosine', 'static', 'nnssc'] as const;

/**
 * The `loadSearchEngine` options of a retriever name, every flag checked (before any file is read): `best` (BM25 +
 * the best semantic scorer, fused with the stored α), `bm25`, `cosine` (USE-lite alone) or `nnssc` (NN-SSC alone).
 */
function engineOptions(name: string, values: { sample?: boolean; data?: string; fusion?: string; alpha?: string; semantic?: string; 'nnssc-top-m'?: string; 'static-prf'?: string }): LoadSearchEngineOptions {
  if (!(RETRIEVERS as readonly string[]).includes(name)) fail(`unknown retriever "${name}" (best, bm25, bm25-stop, cosine, static or nnssc)`);
  const log = stderrLog;
  // unset flags leave the default ranking (DEFAULT_RANKING): the same engine as `eo serve`'s page and API
  // --data names the router's GCMD keywords too (the default data folder's otherwise)
  const gcmdFile = values.data === undefined ? undefined : gcmdKeywordsFile(values.data);
  const staticPrf = staticPrfFlag(values['static-prf'], USAGE);
  const common = { sample: !!values.sample, fusion: fusionFlag(values.fusion, USAGE), nnsscTwoStage: nnsscTopMFlag(values['nnssc-top-m'], USAGE), gcmdFile, log, ...(staticPrf !== undefined ? { staticPrf } : {}) };
  const alpha = numberFlag(values.alpha, 'alpha', undefined, { min: 0, max: 1 });
  checkAlphaWithFusion(alpha, common.fusion);
  const semantic = values.semantic ?? 'best';
  if (!['best', 'nnssc', 'use-lite', 'static'].includes(semantic)) fail(`--semantic must be best, nnssc, use-lite or static (got "${semantic}")`);
  if (name === 'best') return { ...common, alpha, semantic: semantic as 'best' | 'nnssc' | 'use-lite' | 'static' };
  if (name === 'bm25') return { ...common, semantic: 'none', lexical: 'bm25' }; // the paper's BM25 (the default ranking's lexical half adds the vocabulary expansion)
  if (name === 'bm25-stop') return { ...common, semantic: 'none', lexical: 'bm25-stop' }; // the strong short baseline
  if (name === 'cosine') return { ...common, semantic: 'use-lite', lexical: false };
  if (name === 'static') return { ...common, semantic: 'static', lexical: false }; // the corpus-trained static encoder alone
  return { ...common, semantic: 'nnssc', lexical: false };
}

function defaultBenchDir(sample: boolean): string {
  return benchmarkSettings({ sample }).dir;
}

function printTable(rows: MetricRow[], format = 'tsv'): void {
  if (format === 'latex') {
    process.stdout.write(latexTable(rows.map((r) => ({ ...r })), { columns: ['system', ...METRIC_NAMES], best: Object.fromEntries(METRIC_NAMES.map((m) => [m, 'max' as const])), digits: 4 }));
    return;
  }
  if (format !== 'tsv') fail(`--format must be tsv or latex, got "${format}"`);
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

const wantsHelp = (argv: readonly string[]) => argv.includes('--help') || argv.includes('-h');

async function main(rawArgv: string[]): Promise<void> {
  const argv = takeEncoderFlag(rawArgv);
  // before anything loads: a long argument stays in process.argv, where onnxruntime-node crashes on it when it loads
  // (lib/cli/exit.ts); `eo search` first refuses a long query with the service's code, then checks the same
  if (argv[0] !== 'search') checkArgvLength(process.argv);
  if (argv[0] === 'llm' && wantsHelp(argv)) return void process.stdout.write(commandHelp('llm') + '\n');
  if (argv[0] === 'serve' && wantsHelp(argv)) return void process.stdout.write(commandHelp('serve') + '\n');
  if (argv[0] === 'cache') return (await import('./cache')).runCacheCommand(argv.slice(1));
  // loaded here only: `eo llm` pulls in both LLM SDKs
  if (argv[0] === 'llm') return (await import('./llm')).runLlmCommand(argv.slice(1));
  if (argv[0] === 'serve') return runServeCommand(argv);
  if (argv[0] === 'bench' && (argv[1] === 'import' || argv.includes('--kg'))) return runBenchCommand(argv.slice(1));
  if (argv[0] === 'export') return runExportCommand(argv.slice(1));
  if (argv[0] === 'gpu') return (await import('./gpu')).runGpuCommand(argv.slice(1));
  const cmd = argv[0];
  const given = cmd === 'bench' && argv[1] === 'build' ? 'bench build' : cmd;
  const name = given === 'search' || given === 'eval' || given === 'bench build' ? given : undefined;
  if (!name) {
    if (cmd === 'bench') return runBenchCommand(argv.slice(1)); // eo bench import, eo bench --help
    if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') return void process.stdout.write(USAGE + '\n');
    fail(`unknown command "${cmd}"\n${USAGE}`);
  }
  if (wantsHelp(argv)) return void process.stdout.write(commandHelp(name) + '\n');
  const { values, positionals } = parseCli(argv, COMMAND_FLAGS[name].flags);
  const rest = positionals.slice(1);
  if (name === 'search') return runSearchCommand(rest, values);
  if (name === 'bench build') return runBenchBuild(values);
  return runEvalCommand(values);
}

async function runServeCommand(argv: string[]): Promise<void> {
  // loaded here only: the service pulls in Fastify, the LLM SDKs and the search pipeline
  const { runServe, SERVE_PROCESS } = await import('./serve');
  if (process.env.EO_SERVE_PROCESS !== '1') {
    // malloc arenas and V8's young generation are read only at start: run the service again with them (SERVE_PROCESS)
    const { spawn } = await import('node:child_process');
    const env = { ...(process.platform === 'linux' ? SERVE_PROCESS.env : {}), ...process.env, EO_SERVE_PROCESS: '1' };
    // an IPC channel the service watches: it closes when this process dies, even by SIGKILL, and the service stops
    const child = spawn(process.execPath, [...SERVE_PROCESS.nodeFlags, ...process.execArgv, ...process.argv.slice(1)], { stdio: ['inherit', 'inherit', 'inherit', 'ipc'], env });
    let forwarded: NodeJS.Signals | null = null;
    for (const sig of ['SIGINT', 'SIGTERM'] as const)
      process.on(sig, () => {
        forwarded = sig;
        child.kill(sig);
      });
    child.on('exit', (code, signal) => {
      if (signal === null || signal === forwarded) process.exit(code ?? 0);
      // the service died of a signal nobody here sent (kill -9, the out-of-memory killer): say so, with a status
      exitWithError('eo', new EoError('SERVE_PROCESS', `the service process (pid ${child.pid}) was ended by ${signal} (kill, or the system out of memory); its port is free again: start eo serve again`));
    });
    return;
  }
  const server = await runServe(argv.slice(1));
  let stopping = false;
  const stop = (why?: string) => {
    if (stopping) return; // a second Ctrl-C (the terminal's and the launcher's) while closing
    stopping = true;
    if (why) process.stderr.write(`eo serve: ${why}; stopping\n`);
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop());
  process.on('SIGTERM', () => stop());
  // started by the launcher above: its death closes the channel (kill -9 included), and the service ends with it
  if (process.channel) {
    process.channel.unref();
    process.on('disconnect', () => stop('the eo serve process that started this service is gone'));
  }
}

/** The flags of `eo search`, `eo eval` and `eo bench build`, as parsed (each command takes only its own: lib/cli/flags.ts). */
interface CliValues {
  k?: string; json?: boolean; retriever?: string; sample?: boolean; data?: string; seed?: string; 'test-fraction'?: string;
  subset?: string; relations?: string; out?: string; run?: string; qrels?: string; depth?: string; system?: string;
  split?: string; bench?: string; fusion?: string; alpha?: string; semantic?: string; 'nnssc-top-m'?: string; 'static-prf'?: string;
  provider?: string[]; platform?: string[]; instrument?: string[]; 'processing-level-id'?: string[];
  temporal?: string[]; 'bounding-box'?: string[]; ignore?: string[]; facets?: boolean; 'no-rules'?: boolean;
  'no-repair'?: boolean; format?: string; help?: boolean; encoder?: string;
}

/** Parse a command's flags with its table (an unknown flag is a usage error naming it). */
function parseCli(argv: string[], flags: readonly FlagSpec[]): { values: CliValues; positionals: string[] } {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: parseArgsOptions(flags) });
  return { values: values as CliValues, positionals };
}

const loadCorpus = (values: CliValues) => loadSnapshot({ dir: values.data, sample: values.sample });

async function runSearchCommand(rest: string[], values: CliValues): Promise<void> {
  const query = rest.join(' ');
  if (query.trim() === '') fail('search needs a query, e.g. eo search "sea ice extent Arctic"');
  // the service's checks and codes, before anything loads (a long query would crash onnxruntime-node; control
  // characters would reach the terminal in the lines that repeat the query)
  if (query.length > MAX_QUERY_CHARS)
    throw new EoError('QUERY_TOO_LONG', `the query is too long (${query.length} characters; at most ${MAX_QUERY_CHARS}, as for eo serve)`, { chars: query.length, max: MAX_QUERY_CHARS });
  const checked = checkQuery(query, MAX_QUERY_CHARS);
  if ('problem' in checked) {
    const { code, message } = checked.problem;
    throw new EoError(code === 'BINARY_QUERY' || code === 'MARKUP_QUERY' ? code : 'INVALID_ARGUMENT', `${message} (as eo serve refuses it)`);
  }
  checkArgvLength(process.argv);
  const k = intFlag(values.k, 'k', 10);
  const engineOpts = engineOptions(values.retriever ?? 'best', values);
  const corpus = loadCorpus(values);
  // the service's parser (lib/serve/validate.ts → lib/search/filters.ts): one set of rules and messages for both
  const cf = checkFilters({
    provider: values.provider, platform: values.platform, instrument: values.instrument, processing_level_id: values['processing-level-id'],
    temporal: values.temporal, bounding_box: values['bounding-box'], ignore: values.ignore,
  }, corpus);
  if ('problem' in cf) fail(`--${cf.problem.message.replace(/^\w+/, (p) => p.replace(/_/g, '-'))}`);
  const engine = await loadSearchEngine(corpus, engineOpts);
  try {
    const res = await search(engine, query, { k, filters: cf.filters, ignore: cf.ignore, facets: !!values.facets, repair: !values['no-repair'] });
    // the page's "showing results for …" line, on stderr so that stdout stays the results
    if (res.repair) process.stderr.write(`${describeRepair(res.repair, query)}${res.repair.repaired !== res.repair.original ? ' (--no-repair)' : ''}\n`);
    if (values.json) process.stdout.write(JSON.stringify(res, null, 2) + '\n');
    else printSearchResult(res, engine, corpus);
  } finally {
    engine.dispose();
  }
}

/** The results as text lines (stdout), the ranking's provenance on stderr. */
function printSearchResult(res: SearchResponse, engine: SearchEngine, corpus: Corpus): void {
  const tools = res.router?.decisions.filter((d) => d.applies).map((d) => d.tool) ?? [];
  if (tools.length) process.stdout.write(`NASA tools for this request: ${tools.join(', ')} (eo serve shows their links)\n`);
  for (const n of [...(res.router?.notes ?? []), ...(res.retrieval.identifiers?.notes ?? [])]) process.stdout.write(`note: ${n}\n`);
  if (res.retrieval.filters) process.stdout.write(`filters: ${describeFilters(res.retrieval.filters)}\n`);
  if (res.retrieval.ignored) process.stdout.write(`ignored from the question: ${JSON.stringify(res.retrieval.ignored)}\n`);
  if (res.results.length === 0) process.stdout.write('no dataset matches\n');
  for (const r of res.results)
    process.stdout.write(`${String(r.rank).padStart(3)}. ${r.id}  ${r.shortName ?? '-'}  score ${r.score.toFixed(4)}\n     ${r.longName}\n     ${r.why}\n` +
      [r.constraint, r.identifier].filter(Boolean).map((m) => `     moved down: ${m}\n`).join('') + (r.type ? `     type: ${r.type}\n` : '') + `     ${r.links.landingPage}\n`);
  if (res.facets) {
    process.stdout.write(`facets (top ${res.facets.resultSet} results):\n`);
    for (const f of FACET_NAMES) if (res.facets[f].length) process.stdout.write(`  ${f}: ${res.facets[f].slice(0, 10).map((v) => `${v.value} ${v.count}${v.inferred ? ` (${v.inferred === v.count ? '' : `${v.inferred} `}inferred)` : ''}`).join(', ')}${res.facets[f].length > 10 ? `, … (${res.facets[f].length - 10} more)` : ''}\n`);
  }
  process.stderr.write(`(${engine.label}; α from ${engine.fusion.source}; ranked "${res.retrievalQuery}" over ${corpus.datasets.length} datasets in ${res.timings.totalMs.toFixed(1)} ms)\n`);
}

async function runBenchBuild(values: CliValues): Promise<void> {
  const d = BENCHMARK_DEFAULTS;
  // flags first, then the snapshot
  const settings = {
    ...benchmarkSettings({ sample: !!values.sample }),
    seed: intFlag(values.seed, 'seed', d.seed),
    testFraction: testFractionFlag(values['test-fraction'], d.testFraction),
    subsetSize: intFlag(values.subset, 'subset', d.subsetSize),
    relations: values.relations ? values.relations.split(',') : d.relations,
  };
  const corpus = loadCorpus(values);
  let leakage = '';
  const bench = await buildBenchmark(corpus, {
    ...settings,
    onLeakage: (a) => { leakage = leakageSummary(a); },
    onWarning: (w) => process.stderr.write(`eo: warning [${w.code}] ${w.message}\n`),
  });
  const out = values.out ?? defaultBenchDir(!!values.sample);
  exportBenchmark(out, bench, corpus);
  const tr = bench.queries.filter((q) => q.split === 'train').length;
  process.stdout.write(`${bench.queries.length} queries (${tr} train, ${bench.queries.length - tr} test, test subset ${bench.testSubset.length}); writer: ${bench.writerLabel}\nleakage: ${leakage}\nwritten to ${out}\n`);
}

async function runEvalCommand(values: CliValues): Promise<void> {
  if (values.run) {
    if (!values.qrels) fail('eval --run needs --qrels');
    const depth = intFlag(values.depth, 'depth', 100);
    for (const [flag, file] of [['--run', values.run], ['--qrels', values.qrels]])
      requireFile(file, flag);
    const pq = evaluateRun(readTrecRun(values.run), readTrecQrels(values.qrels), { depth });
    const row = summarize(path.basename(values.run), pq);
    if (values.json) process.stdout.write(JSON.stringify({ ...row, queries: pq.queryIds.length, skippedNoPositives: pq.skippedNoPositives.length }, null, 2) + '\n');
    else printTable([row], values.format);
    return;
  }
  const system = values.system ?? fail('eval needs --run FILE --qrels FILE, or --system best|bm25|bm25-stop|cosine|static|nnssc');
  const engineOpts = engineOptions(system, values);
  if (values.bench === 'styles') {
    // the dev half by default: the test half is asked for explicitly, and only to report a result already chosen on dev
    const split = values.split ?? 'dev';
    if (split !== 'dev' && split !== 'test') fail('--split must be dev or test with --bench styles');
    if (split === 'test') process.stderr.write('eo: --split test: the style benchmark\'s test half is for reporting only; tune and compare settings on the dev half (the default)\n');
    const corpus = loadCorpus(values);
    const engine = await loadSearchEngine(corpus, engineOpts);
    try {
      await runStyleEval(corpus, engine, { system, split, rules: !values['no-rules'], json: !!values.json, out: values.out ?? repoReportsDir('cli') });
    } finally {
      engine.dispose();
    }
    return;
  }
  const split = (values.split ?? 'test') as 'test' | 'train' | 'test-subset';
  if (!['test', 'train', 'test-subset'].includes(split)) fail(`--split must be test, train or test-subset`);
  const corpus = loadCorpus(values);
  const benchFile = values.bench ?? path.join(defaultBenchDir(!!values.sample), 'benchmark.json');
  if (!fs.existsSync(benchFile)) throw new EoError('DATA_NOT_FOUND', `no benchmark at ${benchFile}; run "eo bench build${values.sample ? ' --sample' : ''}" first`, { file: benchFile });
  const bench = loadBenchmark(benchFile, corpus);
  const view = benchmarkSplit(bench, split);
  const engine = await loadSearchEngine(corpus, engineOpts);
  try {
    // ranked as `eo search` ranks (query rules and repair on) unless --no-rules: the paper's path, as notebook 05's tables
    const { run } = await searchBatch(engine, view.queries, { rules: !values['no-rules'], repair: !values['no-rules'] });
    const pq = evaluateRun(run, view.qrels);
    const row = summarize(engine.label, pq);
    // beside it, the strong short baseline alone (no query rules) and the paired test of the system against it
    const stop = await scoreQueries(bm25StopScorer(buildBm25Stop(corpus)), view.queries, corpus);
    const stopPq = evaluateRun(stop.run, view.qrels);
    const stopRow = summarize('BM25-stop', stopPq);
    const vsBm25Stop = pairedComparisons(pq, stopPq, engine.label, 'BM25-stop');
    const out = values.out ?? repoReportsDir('cli');
    writeTrecRun(path.join(out, `${system}.${split}.run`), run, system);
    writeTrecQrels(path.join(out, `qrels.${split}.trec`), view.qrels);
    if (values.json) process.stdout.write(JSON.stringify({ ...row, alphaSource: engine.fusion.source, bm25Stop: stopRow, vsBm25Stop: pairedTable(vsBm25Stop) }, null, 2) + '\n');
    else {
      printTable(system === 'bm25-stop' ? [row] : [row, stopRow], values.format);
      if (system !== 'bm25-stop' && values.format !== 'latex') {
        process.stdout.write(`\n${engine.label} − BM25-stop, paired over ${pq.queryIds.length} queries (bootstrap 95% CI, randomization p):\n`);
        for (const c of vsBm25Stop) process.stdout.write(`  ${c.metric}\t${c.meanDiff >= 0 ? '+' : ''}${c.meanDiff.toFixed(4)} [${c.ciLow.toFixed(4)}, ${c.ciHigh.toFixed(4)}]\tp ${c.pValue.toFixed(4)}\n`);
      }
    }
  } finally {
    engine.dispose();
  }
}

// a reader that stops early (`eo search … | head -1`) closes the pipe: the output is done, which is no error
process.stdout.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' ? process.exit(0) : exitWithError('eo', e)));
main(process.argv.slice(2)).catch((e) => exitWithError('eo', e));
