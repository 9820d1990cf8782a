import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createSearchServer, EoError, routeQuery, search } from '../lib';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import { bm25Scorer, buildBm25 } from '../lib/retrieve';
import { loadVariableIndex, parsePeriod, parseQuery } from '../lib/router';
import { createSearchEngine } from '../lib/search';
import { periodProblem } from '../lib/router/time';
import { gcmdKeywordsFile } from '../lib/router/variables';
import { isUtf8RequestTarget, MAX_QUERY_CHARS } from '../lib/serve/validate';
import { numberFlag, staticPrfFlag } from '../lib/cli/usage';
import { SEARCH_FLAGS } from '../lib/cli/flags';
import { DEFAULT_RANKING } from '../lib/search/default-ranking';
import { DEFAULT_STATIC_PRF } from '../lib/retrieve/static-scorer';
import { checkArgvLength, describeCliError, exitClassOfCode, EXIT_STATUS } from '../lib/cli/exit';

const ROOT = path.resolve(__dirname, '..');
const EO = path.join(ROOT, 'dist', 'lib', 'cli', 'eo.js');
const NOW = new Date('2026-06-15T00:00:00Z');

function ds(id: string, longName: string, abstract = ''): DatasetRecord {
  return {
    id, shortName: null, longName, abstract, doi: null, daac: 'GES_DISC', publisher: null, temporalStart: '2004-10-01T00:00:00Z', temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}
const corpus = makeCorpus([ds('C1-X', 'Sea ice extent daily', 'sea ice'), ds('C2-X', 'Rainfall monthly', 'precipitation rainfall')], [], [], 'hand-made');
const engine = () => createSearchEngine(corpus, { lexical: bm25Scorer(buildBm25(corpus)), semantic: null });

/** Run the built `eo` with a short environment; never loads more than the command needs. */
function eo(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [EO, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

// ---------------------------------------------------------------- flags and exit statuses

test('numberFlag: empty, non-numeric, hex, Infinity and out-of-range values are refused with the flag named', () => {
  assert.is(numberFlag(undefined, 'k', 10, { integer: true, min: 1 }), 10);
  assert.is(numberFlag('7', 'k', 10, { integer: true, min: 1 }), 7);
  assert.is(numberFlag('0.25', 'alpha', undefined, { min: 0, max: 1 }), 0.25);
  assert.is(numberFlag(undefined, 'alpha', undefined, { min: 0, max: 1 }), undefined);
  for (const [v, o] of [['', {}], [' ', {}], ['abc', {}], ['0x10', {}], ['Infinity', {}], ['1.5', { integer: true }], ['0', { min: 1 }], ['2', { max: 1 }]] as const) {
    try {
      numberFlag(v, 'k', 1, o);
      assert.unreachable(`"${v}" accepted`);
    } catch (e) {
      assert.instance(e, EoError);
      assert.is((e as EoError).code, 'INVALID_ARGUMENT');
      assert.match((e as Error).message, `--k must be`);
      assert.match((e as Error).message, JSON.stringify(v));
    }
  }
});

test('exit statuses: one class per code family (usage 2, data 3, environment 4, LLM 5, internal 1)', () => {
  assert.equal(EXIT_STATUS, { ok: 0, internal: 1, usage: 2, data: 3, environment: 4, llm: 5 });
  const expect: [string, keyof typeof EXIT_STATUS][] = [
    ['INVALID_ARGUMENT', 'usage'], ['QUERY_TOO_LONG', 'usage'], ['DATA_NOT_FOUND', 'data'], ['DATA_PARSE', 'data'], ['CACHE_MISMATCH', 'data'],
    ['BENCH', 'data'], ['TREC_PARSE', 'data'], ['CONFIG', 'environment'], ['ENCODER', 'environment'], ['DISK_FULL', 'environment'],
    ['LLM', 'llm'], ['LLM_BUDGET', 'llm'], ['LLM_REPLAY_MISS', 'llm'], ['SOMETHING_ELSE', 'internal'],
  ];
  for (const [code, cls] of expect) assert.is(exitClassOfCode(code), cls, code);
  assert.equal(describeCliError(new EoError('LLM_BUDGET', 'x')), { code: 'LLM_BUDGET', status: 5, message: 'x' });
  assert.is(describeCliError(new TypeError('boom')).status, 1);
  assert.is(describeCliError(Object.assign(new Error('no'), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' })).status, 2);
  assert.is(describeCliError(Object.assign(new Error('EACCES: permission denied, open \'x\''), { code: 'EACCES' })).status, 4);
  assert.equal(describeCliError(Object.assign(new Error("ENOENT: no such file or directory, open 'r'"), { code: 'ENOENT' })), { code: 'DATA_NOT_FOUND', status: 3, message: "ENOENT: no such file or directory, open 'r'" });
});

test('--static-prf: the help\'s default is the default ranking\'s feedback, and the encoder alone\'s', () => {
  const flag = SEARCH_FLAGS.find((f) => f.name === 'static-prf')!;
  const { k, beta, seeds } = DEFAULT_RANKING.staticPrf;
  assert.ok(flag.default!.startsWith(`${seeds === 'lexical' ? 'lexical:' : ''}${k}:${beta} `), flag.default);
  assert.ok(flag.default!.endsWith(`else ${DEFAULT_STATIC_PRF.k}:${DEFAULT_STATIC_PRF.beta}`), flag.default);
  assert.ok(flag.help.includes(`start α ${DEFAULT_RANKING.adaptive.startAlpha} was chosen with lexical:${k}:${beta}`), flag.help);
});

test('--static-prf: K:BETA, lexical:K:BETA, none (one pass) or absent (the default); anything else names the flag', () => {
  assert.is(staticPrfFlag(undefined, 'usage'), undefined);
  assert.is(staticPrfFlag('none', 'usage'), null);
  assert.equal(staticPrfFlag('3:1', 'usage'), { k: 3, beta: 1 });
  assert.equal(staticPrfFlag('10:0.5', 'usage'), { k: 10, beta: 0.5 });
  assert.equal(staticPrfFlag('lexical:5:1', 'usage'), { k: 5, beta: 1, seeds: 'lexical' });
  for (const bad of ['', '3', ':1', '3:', '0:1', '2.5:1', '3:0', '3:-1', '3:1e999', '3:0x1', 'none:1', 'lexical:', 'lexical:5', 'bm25:5:1', 'lexical:0:1']) {
    assert.throws(() => staticPrfFlag(bad, 'usage'), (e: unknown) => e instanceof EoError && e.code === 'INVALID_ARGUMENT' && /--static-prf must be K:BETA/.test(e.message), JSON.stringify(bad));
  }
});

test('checkArgvLength: a command line over the limit is refused, naming the longest argument', () => {
  checkArgvLength(['node', 'eo', 'search', 'x'.repeat(1000)]);
  try {
    checkArgvLength(['node', 'eo', 'search', 'x'.repeat(20_000)]);
    assert.unreachable('accepted');
  } catch (e) {
    assert.is((e as EoError).code, 'INVALID_ARGUMENT');
    assert.match((e as Error).message, 'argument 4 alone is 20000');
    assert.match((e as Error).message, 'docs/upstream/onnxruntime-node-long-argv.md');
  }
  assert.ok(fs.existsSync(path.join(ROOT, 'docs', 'upstream', 'onnxruntime-node-long-argv.md')));
});

test('eo: long queries, long command lines and bad flag values are refused before anything loads, with their codes and statuses', () => {
  const long = eo(['search', 'a'.repeat(MAX_QUERY_CHARS + 1)]);
  assert.is(long.status, 2, long.stderr);
  assert.match(long.stderr, `eo: [QUERY_TOO_LONG] the query is too long (${MAX_QUERY_CHARS + 1} characters; at most ${MAX_QUERY_CHARS}`);
  // the length that crashed onnxruntime-node: a message, not SIGSEGV
  const huge = eo(['search', 'a'.repeat(30_000)]);
  assert.is(huge.signal, null);
  assert.is(huge.status, 2);
  assert.match(huge.stderr, '[QUERY_TOO_LONG]');
  const evalLong = eo(['eval', '--system', 'best', '--bench', 'b'.repeat(30_000)]);
  assert.is(evalLong.signal, null);
  assert.is(evalLong.status, 2);
  assert.match(evalLong.stderr, 'eo: [INVALID_ARGUMENT] the command line is');
  for (const args of [['search', 'ice', '--alpha', ''], ['search', 'ice', '--k', 'abc'], ['search', 'ice', '--k', ''], ['search', 'ice', '--nnssc-top-m', ''], ['search', 'ice', '--static-prf', '0:1'], ['search', 'ice', '--static-prf', '3:-1'], ['search', 'ice', '--static-prf', 'three'], ['serve', '--static-prf', '3:0'], ['eval', '--run', 'no-such.run', '--qrels', 'no-such.trec', '--depth', '1e400'], ['llm', 'plan', '--queries', '']]) {
    const r = eo(args);
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, '[INVALID_ARGUMENT] --');
  }
  const noRun = eo(['eval', '--run', 'no-such.run', '--qrels', 'no-such.trec']);
  assert.is(noRun.status, 3, noRun.stderr);
  assert.match(noRun.stderr, 'eo: [DATA_NOT_FOUND] --run: no such file: no-such.run');
  const unknown = eo(['search', 'ice', '--bogus']);
  assert.is(unknown.status, 2);
  assert.match(unknown.stderr, "eo: [INVALID_ARGUMENT] Unknown option '--bogus'");
});

test('eo <cmd> --help works for every subcommand (exit 0, its own usage)', () => {
  for (const [args, want] of [[['llm', '--help'], 'eo llm plan'], [['llm', 'batch', '-h'], 'eo llm batch'], [['serve', '--help'], 'usage: eo serve'], [['search', '--help'], 'eo search'], [['eval', '--help'], 'eo eval --run'], [['bench', 'build', '--help'], 'eo bench build'], [['bench', 'import', '--help'], 'eo bench import'], [['--help'], 'eo search']] as const) {
    const r = eo([...args]);
    assert.is(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, want);
  }
  assert.not.match(eo(['llm', '--help']).stdout, 'eo search');
});

test('eo: a data folder that does not exist is a data error (exit 3, the folder named)', () => {
  const missing = path.join(os.tmpdir(), `eo-no-such-data-${process.pid}`);
  const r = eo(['search', 'sea ice', '--retriever', 'bm25', '--data', missing]);
  assert.is(r.status, 3, r.stderr);
  assert.match(r.stderr, '[DATA_NOT_FOUND]');
  assert.match(r.stderr, missing);
});

// ---------------------------------------------------------------- dates

test('periodProblem: impossible dates and reversed ranges are named; good ones pass', () => {
  assert.match(periodProblem('sea ice from 2020-13-45 to 2021-02-30', NOW)!, '2020-13-45 is not a date (month 13)');
  assert.match(periodProblem('rain on 2021-02-30', NOW)!, '2021-02-30 is not a date (day 30 of february 2021)');
  assert.match(periodProblem('rain on February 30 2021', NOW)!, 'February 30 2021 is not a date');
  assert.match(periodProblem('rain on 31 June 2019', NOW)!, 'is not a date (june 2019 has 30 days)');
  assert.match(periodProblem('rainfall between 2025 and 2010', NOW)!, '"between 2025 and 2010" ends before it starts');
  assert.match(periodProblem('ozone from 2021-05-01 to 2020-01-01', NOW)!, 'ends before it starts');
  assert.match(periodProblem('ozone from March 2021 to January 2020', NOW)!, 'ends before it starts');
  for (const ok of ['rain on 2020-02-29', 'from 2015-03-01 to 2016-04-30', 'between 2010 and 2025', 'March to May 2020', 'summer 2019', 'MOD13Q1 v6.1', 'sea ice']) assert.is(periodProblem(ok, NOW), null, ok);
});

test('impossible or reversed periods become no period and a note "period ignored: …", never another filter', () => {
  // before: "since 2020" (2020-01-01 to today) and "2025" alone
  assert.is(parsePeriod('sea ice from 2020-13-45 to 2021-02-30', NOW), null);
  assert.is(parsePeriod('rainfall between 2025 and 2010', NOW), null);
  assert.equal([parsePeriod('rainfall between 2010 and 2025', NOW)?.start, parsePeriod('rainfall between 2010 and 2025', NOW)?.end], ['2010-01-01', '2025-12-31']);
  const p = parseQuery('sea ice from 2020-13-45 to 2021-02-30', { now: NOW });
  assert.is(p.period, null);
  assert.match(p.periodIgnored!, '2020-13-45');
  assert.is(parseQuery('sea ice in 2019', { now: NOW }).periodIgnored, undefined);
  const r = routeQuery('rainfall between 2025 and 2010', { now: NOW });
  assert.equal(r.notes, ['period ignored: "between 2025 and 2010" ends before it starts']);
});

test('search response and page carry the "period ignored" note', async () => {
  const res = await search(engine(), 'rainfall between 2025 and 2010', { k: 2, now: NOW });
  assert.equal(res.router!.notes, ['period ignored: "between 2025 and 2010" ends before it starts']);
  assert.is(res.router!.parsed.period, null);
  const app = await createSearchServer(engine(), { now: () => NOW });
  try {
    const api = await app.inject({ method: 'GET', url: '/api/search?q=' + encodeURIComponent('sea ice from 2020-13-45 to 2021-02-30'), remoteAddress: '127.0.0.1' });
    assert.is(api.statusCode, 200);
    assert.match(JSON.stringify(api.json().router.notes), 'period ignored: 2020-13-45 is not a date');
    const page = await app.inject({ method: 'GET', url: '/?q=' + encodeURIComponent('sea ice from 2020-13-45 to 2021-02-30'), remoteAddress: '127.0.0.1' });
    assert.match(page.body, 'period ignored: 2020-13-45 is not a date');
  } finally {
    await app.close();
  }
});

// ---------------------------------------------------------------- --data and the router's keywords

test('the router reads the GCMD keywords of the engine\'s data folder (--data), not the default one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-gcmd-'));
  try {
    fs.writeFileSync(path.join(dir, 'gcmd-sciencekeywords.csv'), 'Category,Topic,Term,Variable_Level_1,Variable_Level_2,Variable_Level_3,Detailed_Variable,UUID\nEARTH SCIENCE,ATMOSPHERE,ZORBLAX FLUX,,,,,u1\n');
    assert.is(gcmdKeywordsFile(dir), path.join(dir, 'gcmd-sciencekeywords.csv'));
    const variables = loadVariableIndex({ gcmdFile: gcmdKeywordsFile(dir) });
    const own = createSearchEngine(corpus, { lexical: bm25Scorer(buildBm25(corpus)), semantic: null, variables });
    const res = await search(own, 'zorblax flux over the sea', { k: 1, now: NOW });
    assert.equal(res.router!.parsed.variables.map((v) => v.gcmd), ['ZORBLAX FLUX']);
    // the default folder has no such keyword
    const dflt = await search(engine(), 'zorblax flux over the sea', { k: 1, now: NOW });
    assert.equal(dflt.router!.parsed.variables, []);
    // the service and the rule router take the same vocabulary
    assert.equal(routeQuery('zorblax flux', { now: NOW, variables }).parsed.variables.map((v) => v.gcmd), ['ZORBLAX FLUX']);
    const app = await createSearchServer(own, { now: () => NOW });
    try {
      const r = await app.inject({ method: 'GET', url: '/api/search?q=zorblax+flux+over+the+sea', remoteAddress: '127.0.0.1' });
      assert.equal(r.json().router.parsed.variables.map((v: { gcmd: string }) => v.gcmd), ['ZORBLAX FLUX']);
    } finally {
      await app.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------- the service's errors

test('isUtf8RequestTarget: the three invalid sequences anywhere, and good UTF-8 passes', () => {
  for (const bad of ['/api/search?q=%ff%fe', '/api/search?q=%c0%af', '/api/search?q=%ed%a0%80', '/api/search?q=ice&k=%ff', '/dataset/%ff', '/%ED%A0%80']) assert.is(isUtf8RequestTarget(bad), false, bad);
  for (const good of ['/api/search?q=caf%C3%A9', '/api/search?q=sea+ice&k=5', '/', '/api/search?q=%E2%82%AC', '/api/search?q=100%25']) assert.is(isUtf8RequestTarget(good), true, good);
});

test('service: every error has the project\'s shape and the security headers, Fastify\'s own included; nothing of the path is echoed', async () => {
  const app = await createSearchServer(engine(), { now: () => NOW });
  try {
    const cases: [string, string, number, string, Record<string, unknown>?][] = [
      ['GET', '/api/search?q=%ff%fe', 400, 'BINARY_QUERY'],
      ['GET', '/api/search?q=%c0%af', 400, 'BINARY_QUERY'],
      ['GET', '/api/search?q=%ed%a0%80', 400, 'BINARY_QUERY'],
      ['GET', '/api/search?q=ice&x=%ff', 400, 'BINARY_QUERY'],
      ['GET', '/api/dataset/%ff%fe', 400, 'BINARY_QUERY'],
      ['GET', '/api/dataset/%zz-secret-path', 400, 'BAD_URL'],
      ['GET', `/api/dataset/${'secret'.repeat(50)}`, 414, 'URI_TOO_LONG'],
      ['GET', '/api/nothing-secret', 404, 'NOT_FOUND'],
      ['DELETE', '/api/search', 405, 'METHOD_NOT_ALLOWED'],
      ['POST', '/api/dataset/x', 405, 'METHOD_NOT_ALLOWED'],
      ['GET', `/api/search?q=${'a'.repeat(MAX_QUERY_CHARS + 1)}`, 400, 'QUERY_TOO_LONG'],
    ];
    for (const [method, url, status, code] of cases) {
      const r = await app.inject({ method: method as 'GET', url, remoteAddress: '127.0.0.1' });
      assert.is(r.statusCode, status, `${method} ${url.slice(0, 40)}: ${r.body}`);
      assert.is(r.headers['x-content-type-options'], 'nosniff', url);
      assert.is(r.headers['referrer-policy'], 'no-referrer', url);
      assert.match(String(r.headers['content-type']), 'application/json', url);
      const body = r.json() as { error: { code: string; message: string } };
      assert.equal(Object.keys(body), ['error'], url);
      assert.is(body.error.code, code, url);
      assert.type(body.error.message, 'string');
      assert.not.match(r.body, 'secret', url);
      assert.not.match(r.body, 'FST_ERR', url);
    }
    // page routes: the HTML error page with its CSP, for Fastify's URL errors too
    for (const [url, status] of [['/dataset/%ff%fe', 400], [`/dataset/${'secret'.repeat(50)}`, 414], ['/dataset/%zz', 400], ['/?q=%ed%a0%80', 400]] as const) {
      const r = await app.inject({ method: 'GET', url, remoteAddress: '127.0.0.1' });
      assert.is(r.statusCode, status, url);
      assert.match(String(r.headers['content-type']), 'text/html');
      assert.ok(r.headers['content-security-policy'], url);
      assert.is(r.headers['x-content-type-options'], 'nosniff');
      assert.not.match(r.body, 'secret');
    }
    const ok = await app.inject({ method: 'GET', url: '/api/search?q=caf%C3%A9+sea+ice', remoteAddress: '127.0.0.1' });
    assert.is(ok.statusCode, 200);
    assert.is(ok.json().query, 'café sea ice');
  } finally {
    await app.close();
  }
});

test.run();
