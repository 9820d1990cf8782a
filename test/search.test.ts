// The one query path (lib/search): the same ranked ids from the CLI, the JSON API and a library call; the stored
// fusion weight (reuse and invalidation); routing before retrieval; optional rerank; `eo search` / `eo eval` end to end.
// run-tests: not beside notebook.test.ts (its default engine reads the NN-SSC checkpoint, fusion records and
// benchmark that the notebooks train and write; the library, the service and the CLI must load the same ones)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import {
  createSearchServer, evaluateRun, loadSearchEngine, loadSnapshot, search, searchBatch, summarize, analyticAlpha,
  type SearchResponse
} from '../lib';
import { benchmarkSplit, buildBenchmark, buildStyleBenchmark, exportBenchmark, loadBenchmark, titleQueryWriter } from '../lib/bench';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import { trainingAlpha } from '../lib/fuse';
import { type Reranker } from '../lib/rerank';
import { bm25Scorer, buildBm25, runFromScores, type CorpusScorer } from '../lib/retrieve';
import { retrievalTextOf } from '../lib/router';
import { createSearchEngine, DEFAULT_RANKING, fusionAlpha, fusionRecordFile, fusionRecordKey } from '../lib/search';
import { repoRoot } from '../lib/util';
import { readTrecRun } from '../lib/metrics';
import { runServe } from '../lib/cli/serve';

const run = promisify(execFile);
const EO = path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'eo-search-'));

const QUERIES = [
  'time series of aerosol optical depth over India',
  'map of sea ice concentration in the Arctic',
  'ozone profiles in the stratosphere from Aura MLS',
  'download precipitation for the Amazon basin from 2003 to 2010',
];

test('retrieval text: one rule strips the leading action phrase and keeps content, titles untouched', () => {
  assert.is(retrievalTextOf('time series of aerosol optical depth over India'), 'aerosol optical depth over India');
  assert.is(retrievalTextOf('map of sea ice concentration in the Arctic'), 'sea ice concentration in the Arctic');
  assert.is(retrievalTextOf('show me a time series of rainfall over Kenya'), 'rainfall over Kenya');
  assert.is(retrievalTextOf('what caused the Hunga Tonga eruption'), 'Hunga Tonga eruption');
  // cues later in the query are content; a title is scored as written
  assert.is(retrievalTextOf('aerosol optical depth time series over India'), 'aerosol optical depth time series over India');
  assert.is(retrievalTextOf('A View of Tropical Cyclones from Above'), 'A View of Tropical Cyclones from Above');
  assert.is(retrievalTextOf('VHF radio pictures of lightning flashes to ground'), 'VHF radio pictures of lightning flashes to ground');
  assert.is(retrievalTextOf('Crop Residue Burning in Northern India'), 'Crop Residue Burning in Northern India');
  for (const t of loadSnapshot({ sample: true }).publications.map((p) => p.title)) assert.is(retrievalTextOf(t), t, t);
  assert.is(retrievalTextOf('ozone profiles in the stratosphere from Aura MLS'), 'ozone profiles in the stratosphere from Aura MLS');
  assert.is(retrievalTextOf('show me'), 'show me', 'nothing left: scored as typed');
});

test('CLI, JSON API and library call rank the same ids (sample snapshot, BM25 + USE-lite, cue-word queries)', async () => {
  const corpus = loadSnapshot({ sample: true });
  const engine = await loadSearchEngine(corpus, { semantic: 'use-lite', alpha: 0.3, sample: true });
  const app = await createSearchServer(engine);
  try {
    const lib: string[][] = [];
    const api: string[][] = [];
    for (const q of QUERIES) {
      const res = await search(engine, q, { k: 10 });
      assert.is(res.retrievalQuery, retrievalTextOf(q));
      assert.is(res.retrieval.alphaSource, 'given');
      assert.ok(res.results.length >= 5, q);
      lib.push(res.results.map((r) => r.id));
      const r = await app.inject({ method: 'GET', url: `/api/search?k=10&q=${encodeURIComponent(q)}`, remoteAddress: '127.0.0.1' });
      assert.is(r.statusCode, 200);
      api.push((r.json() as SearchResponse).results.map((x) => x.id));
    }
    assert.equal(api, lib);
    // the service's engine (micro-batched; queries embedded on a worker thread; one MatMul per batch) answers
    // concurrent queries with the same rankings and scores (to float32 summation order)
    const batched = await loadSearchEngine(corpus, { semantic: 'use-lite', alpha: 0.3, sample: true, queryBatching: {} });
    try {
      const got = await Promise.all(QUERIES.map((q) => search(batched, q, { k: 10 })));
      const one = await Promise.all(QUERIES.map((q) => search(engine, q, { k: 10 })));
      assert.equal(got.map((r) => r.results.map((x) => x.id)), lib);
      got.forEach((r, i) => r.results.forEach((x, j) => assert.ok(Math.abs(x.score - one[i].results[j].score) < 1e-5, `${QUERIES[i]} rank ${j + 1}`)));
    } finally {
      batched.dispose();
    }
    // the corpus embeddings are cached now: the CLI processes only read them
    const cli = await Promise.all(QUERIES.map(async (q) => {
      const { stdout } = await run(process.execPath, [EO, 'search', q, '--json', '--k', '10', '--sample', '--retriever', 'best', '--semantic', 'use-lite', '--alpha', '0.3'], { maxBuffer: 1 << 24 });
      return (JSON.parse(stdout) as SearchResponse).results.map((x) => x.id);
    }));
    assert.equal(cli, lib);
    // the cue words changed what was scored, so stripping matters for these queries
    const raw = await searchBatch(engine, [{ id: 'x', text: 'aerosol optical depth over India' }]);
    assert.ok(raw.scores[0].length === corpus.datasets.length);
  } finally {
    await app.close();
    engine.dispose();
  }
});

test('one default ranking: the library, the service (page/API) and eo search rank alike with NO ranking options', async () => {
  const corpus = loadSnapshot({ sample: true });
  const engine = await loadSearchEngine(corpus, { sample: true });
  const service = await runServe(['--sample', '--port', '0'], () => {});
  try {
    for (const q of [...QUERIES, 'MODIS aerosol', 'OMI NO2 L3 daily']) {
      const lib = await search(engine, q, { k: 10 });
      const api = (await (await fetch(`${service.url}/api/search?k=10&q=${encodeURIComponent(q)}`)).json()) as SearchResponse;
      assert.equal(api.results.map((r) => r.id), lib.results.map((r) => r.id), q);
      assert.is(api.retrieval.label, lib.retrieval.label);
      assert.is(api.retrieval.alphaSource, lib.retrieval.alphaSource);
      assert.ok(Math.abs((api.retrieval.alpha ?? NaN) - (lib.retrieval.alpha ?? NaN)) < 1e-6 || api.retrieval.alpha === lib.retrieval.alpha, q);
      const { stdout } = await run(process.execPath, [EO, 'search', q, '--json', '--k', '10', '--sample'], { maxBuffer: 1 << 24 });
      const cli = JSON.parse(stdout) as SearchResponse;
      assert.equal(cli.results.map((r) => r.id), lib.results.map((r) => r.id), q);
      assert.is(cli.retrieval.label, lib.retrieval.label);
    }
  } finally {
    await service.close();
    engine.dispose();
  }
});

function ds(id: string, longName: string): DatasetRecord {
  return {
    id, shortName: null, longName, abstract: '', doi: null, daac: 'GES_DISC', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

const toy = makeCorpus([ds('C1-A', 'ozone column'), ds('C2-A', 'sea ice extent'), ds('C3-A', 'aerosol optical depth'), ds('C4-A', 'rainfall rate')], [], [], 'toy');
const train = {
  queries: [{ id: 'q1', text: 'ozone', publicationId: 'p1' }, { id: 'q2', text: 'sea ice', publicationId: 'p2' }, { id: 'q3', text: 'smoke haze', publicationId: 'p3' }],
  qrels: new Map([['q1', new Map([['C1-A', 1]])], ['q2', new Map([['C2-A', 1]])], ['q3', new Map([['C3-A', 1]])]]),
} as unknown as Parameters<typeof fusionAlpha>[0]['train'];

/** A semantic stand-in that counts its calls: it knows "smoke" means aerosol. */
function standIn(fingerprint = 'stand-in@1') {
  const calls = { n: 0 };
  const scorer: CorpusScorer = {
    id: 'standin', label: 'stand-in', fingerprint,
    async scoreBatch(texts) {
      calls.n += texts.length;
      return texts.map((t) => Float32Array.from(toy.datasets, (d) => (/smoke|aerosol/.test(t) && /aerosol/.test(d.longName) ? 1 : /ozone/.test(t) && /ozone/.test(d.longName) ? 0.8 : 0.1)));
    },
  };
  return { scorer, calls };
}

test('fusion record: computed once and stored, then read; another corpus, split, scorer or method is another record', async () => {
  const dir = tmp();
  try {
    const lexical = bm25Scorer(buildBm25(toy));
    const a = standIn();
    const logs: string[] = [];
    const first = await fusionAlpha({ corpus: toy, train, semantic: a.scorer, lexical, dir, log: (l) => logs.push(l) });
    assert.is(first.reused, false);
    assert.ok(fs.existsSync(first.file));
    assert.is(logs.length, 1);
    assert.match(logs[0], /α = .* \(analytic\) set on 3 training queries/);
    // Eq. 7 from the two scorers' training rows
    const ids = train.queries.map((q) => q.id);
    const texts = train.queries.map((q) => q.text);
    const row = async (s: CorpusScorer) => summarize(s.id, evaluateRun(runFromScores(ids, await s.scoreBatch(texts), toy), train.qrels));
    const expected = analyticAlpha(await row(standIn().scorer), await row(lexical));
    assert.ok(Math.abs(first.record.alpha - expected) < 1e-12);
    const callsAfterFirst = a.calls.n;
    const again = await fusionAlpha({ corpus: toy, train, semantic: a.scorer, lexical, dir, log: (l) => logs.push(l) });
    assert.is(again.reused, true);
    assert.is(again.record.alpha, first.record.alpha);
    assert.is(a.calls.n, callsAfterFirst, 'a stored record is read, not recomputed');
    assert.is(logs.length, 1);
    const other = (over: Partial<Parameters<typeof fusionAlpha>[0]>) => fusionAlpha({ corpus: toy, train, semantic: a.scorer, lexical, dir, ...over });
    const files = new Set([first.file]);
    for (const r of [
      await other({ corpus: { ...toy, hash: 'another-corpus' } }),
      await other({ train: { ...train, qrels: new Map([...train.qrels, ['q3', new Map([['C4-A', 1]])]]) } as typeof train }),
      await other({ semantic: standIn('stand-in@2').scorer }),
      await other({ method: 'grid' }),
    ]) {
      assert.is(r.reused, false);
      files.add(r.file);
    }
    assert.is(files.size, 5, 'five keys, five records');
    // the grid record keeps its curve and equals trainingAlpha('grid')
    const grid = await other({ method: 'grid' });
    assert.is(grid.reused, true);
    assert.ok(grid.record.curve && grid.record.curve.length === 21);
    // a corrupt record is recomputed
    fs.writeFileSync(first.file, '{not json');
    assert.is((await fusionAlpha({ corpus: toy, train, semantic: a.scorer, lexical, dir })).reused, false);
    assert.is(fusionRecordFile(fusionRecordKey(toy, train, a.scorer, lexical, 'analytic'), 'standin', dir), first.file);
    assert.throws(() => trainingAlpha('nope' as 'grid', { semantic: [], lexical: [], queryIds: [], qrels: new Map(), datasetIds: [] }), /analytic or grid/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('engine: α read from the record; without a benchmark RRF stands in and every answer says why', async () => {
  const corpus = loadSnapshot({ sample: true });
  const dir = tmp();
  try {
    const sem: CorpusScorer = {
      id: 'len', label: 'length stand-in', fingerprint: 'len@1',
      async scoreBatch(texts) { return texts.map((t) => Float32Array.from(corpus.datasets, (d) => -Math.abs(d.longName.length - t.length))); },
    };
    const none = await loadSearchEngine(corpus, { semantic: sem, sample: true, benchmarkDir: path.join(dir, 'nothing'), fusionDir: dir });
    assert.is(none.fusion.mode, 'rrf');
    const res = await search(none, 'sea ice', { k: 3 });
    assert.match(res.retrieval.alphaSource, /no benchmark at .* to set α on/);
    assert.is(res.retrieval.alpha, null);
    const bench = await buildBenchmark(corpus, { writer: titleQueryWriter(), seed: 42, testFraction: 0.2, subsetSize: 50 });
    const bdir = path.join(dir, 'bench');
    exportBenchmark(bdir, bench, corpus);
    const logs: string[] = [];
    const first = await loadSearchEngine(corpus, { semantic: sem, fusion: 'analytic', sample: true, benchmarkDir: bdir, fusionDir: dir, log: (l) => logs.push(l) });
    assert.is(first.fusion.mode, 'convex');
    assert.ok(logs.some((l) => /stored in/.test(l)), logs.join('\n'));
    const n = logs.length;
    const second = await loadSearchEngine(corpus, { semantic: sem, fusion: 'analytic', sample: true, benchmarkDir: bdir, fusionDir: dir, log: (l) => logs.push(l) });
    assert.is(logs.length, n, 'read, not recomputed');
    assert.is(second.fusion.spec, first.fusion.spec && second.fusion.spec);
    assert.equal(second.fusion.spec, first.fusion.spec);
    assert.match(second.fusion.source, /analytic \(Eq\. 7\) on \d+ training queries, stored in/);
    // the α the engine uses is the one a batch evaluation of the training split gives
    const tr = benchmarkSplit(bench, 'train');
    const direct = await fusionAlpha({ corpus, train: tr, semantic: sem, lexical: second.lexical!, dir });
    assert.is(direct.reused, true);
    assert.equal(second.fusion.spec, { method: 'convex', alpha: direct.record.alpha });
    const off = await loadSearchEngine(corpus, { semantic: { ...sem, fingerprint: 'len@2' }, sample: true, benchmarkDir: bdir, fusionDir: dir, computeAlpha: false });
    assert.is(off.fusion.mode, 'rrf');
    // the default ranking fuses adaptively: its model is fitted once, stored beside the α records, then read
    const adaptive = await loadSearchEngine(corpus, { semantic: sem, sample: true, benchmarkDir: bdir, fusionDir: dir, log: (l) => logs.push(l) });
    assert.ok(adaptive.fusion.adaptive, 'adaptive by default');
    const start = (DEFAULT_RANKING.adaptive.startAlpha as number).toFixed(3).replace('.', '\\.');
    assert.match(adaptive.fusion.source, new RegExp(`^adaptive α per query \\(start α ${start}, fitted on \\d+ training queries: \\d+ title, \\d+ keywordStyle`));
    const m = logs.length;
    const again = await loadSearchEngine(corpus, { semantic: sem, sample: true, benchmarkDir: bdir, fusionDir: dir, log: (l) => logs.push(l) });
    assert.is(logs.length, m, 'adaptive model read, not refitted');
    assert.equal(again.fusion.adaptive!.model, adaptive.fusion.adaptive!.model);
    const perQuery = await Promise.all(['sea ice', 'I want to study how sea ice extent changed since 2000?'].map((q) => search(again, q, { k: 3 })));
    assert.ok(perQuery.every((r) => r.retrieval.alpha! > 0 && r.retrieval.alpha! < 1));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('search: routing happens before retrieval, on one parse; a reranker reorders through Algorithm 1', async () => {
  const order: string[] = [];
  const lexical = bm25Scorer(buildBm25(toy));
  const logged: CorpusScorer = { ...lexical, async scoreBatch(t) { order.push('retrieve'); return lexical.scoreBatch(t); } };
  const engine = createSearchEngine(toy, { lexical: logged, semantic: standIn().scorer, fusion: { method: 'convex', alpha: 0.5 } });
  const llm = { chat: async () => { order.push('route'); return { text: '{"tools":[{"tool":"giovanni","confidence":0.9}]}', model: 'fake' }; } };
  const res = await search(engine, 'time series of ozone column', { k: 4, router: llm, now: new Date('2026-01-01T00:00:00Z') });
  assert.equal(order, ['route', 'retrieve']);
  assert.is(res.router!.router, 'llm:fake');
  assert.is(res.retrievalQuery, 'ozone column');
  assert.is(res.results[0].id, 'C1-A');
  const reverse: Reranker = {
    id: 'rev', label: 'reverse', kind: 'offline',
    async rerank(_q, w) { return { ranked: w.map((_, i) => w.length - i), trace: { reranker: 'rev', queryId: 'q', windowStart: 0, windowSize: w.length, calls: 0, repairs: {} as never, toolCalls: [], toolRounds: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, latencyMs: 0 } as never }; },
  };
  const plain = await search(engine, 'ozone column aerosol', { k: 3, router: false });
  const rr = await search(engine, 'ozone column aerosol', { k: 3, router: false, rerank: { reranker: reverse, window: 3 } });
  assert.equal(rr.results.map((r) => r.id), plain.results.map((r) => r.id).reverse());
  assert.ok(plain.results.length >= 2);
  assert.equal(rr.results.map((r) => r.retrievalRank), plain.results.map((r) => r.rank).reverse());
  assert.is(rr.retrieval.reranker, 'rev');
  assert.is(plain.router, null);
});

test('eo bench build, eo eval and eo search end to end on the sample (spawned CLI)', async () => {
  const dir = tmp();
  try {
    const b = await run(process.execPath, [EO, 'bench', 'build', '--sample', '--out', path.join(dir, 'bench')]);
    assert.match(b.stdout, /queries \(\d+ train, \d+ test/);
    const e = await run(process.execPath, [EO, 'eval', '--system', 'bm25', '--split', 'test', '--sample', '--bench', path.join(dir, 'bench', 'benchmark.json'), '--out', path.join(dir, 'out'), '--json']);
    const row = JSON.parse(e.stdout);
    for (const m of ['R@10', 'R@20', 'R@100', 'MAP', 'MRR']) assert.ok(row[m] >= 0 && row[m] <= 1, m);
    assert.ok(row['R@100'] > 0, 'BM25 finds something on the sample');
    // beside it, the strong short baseline and the paired test against it, on every metric
    assert.is(row.bm25Stop.system, 'BM25-stop');
    assert.equal(row.vsBm25Stop.map((r: { metric: string }) => r.metric), ['R@10', 'R@20', 'R@100', 'MAP', 'MRR']);
    const mapVs = row.vsBm25Stop.find((r: { metric: string }) => r.metric === 'MAP');
    assert.ok(Math.abs(mapVs['mean diff (A−B)'] - (row.MAP - row.bm25Stop.MAP)) < 1e-9);
    // the run file equals a library batch search of the same split
    const corpus = loadSnapshot({ sample: true });
    const bench = loadBenchmark(path.join(dir, 'bench', 'benchmark.json'), corpus);
    const view = benchmarkSplit(bench, 'test');
    const engine = await loadSearchEngine(corpus, { semantic: 'none', lexical: 'bm25', sample: true }); // --retriever bm25: the paper's BM25
    // eo eval ranks as eo search does (query rules and repair on)
    const lib = await searchBatch(engine, view.queries, { rules: true, repair: true });
    const fromCli = readTrecRun(path.join(dir, 'out', 'bm25.test.run'));
    for (const q of view.queries.slice(0, 20)) assert.equal(fromCli.get(q.id)?.map((x) => x.docId), lib.run.get(q.id)?.map((x) => x.docId), q.id);
    assert.ok(Math.abs(summarize('x', evaluateRun(lib.run, view.qrels)).MAP - row.MAP) < 1e-9);
    const s = await run(process.execPath, [EO, 'search', 'sea ice extent', '--retriever', 'bm25', '--sample', '--k', '3']);
    assert.match(s.stdout, /^ {2}1\. C\S+/m);
    assert.match(s.stderr, /BM25 alone/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('eo eval --bench styles: the dev half unless the test half is asked for, which stderr says is for reporting', async () => {
  const dir = tmp();
  try {
    const corpus = loadSnapshot({ sample: true });
    const styles = buildStyleBenchmark(corpus);
    const count = (split: string) => styles.queries.filter((q) => q.split === split).length;
    const dev = await run(process.execPath, [EO, 'eval', '--system', 'bm25', '--bench', 'styles', '--sample', '--out', dir, '--json']);
    assert.is(JSON.parse(dev.stdout).split, 'dev');
    assert.is(JSON.parse(dev.stdout).queries, count('dev'));
    // both references, and the evaluated system paired with each
    const rows = JSON.parse(dev.stdout).rows as { system: string; style: string; vsReference?: unknown; vsBm25Stop?: unknown }[];
    assert.equal([...new Set(rows.map((r) => r.system))].slice(0, 2), ['BM25', 'BM25-stop']);
    const mine = rows.find((r) => r.system.includes('[eo eval --system bm25]') && r.style === 'all')!;
    assert.ok(mine.vsReference && mine.vsBm25Stop);
    assert.not.match(dev.stderr, /for reporting only/);
    assert.ok(fs.existsSync(path.join(dir, 'bm25.styles-dev.run')));
    const t = await run(process.execPath, [EO, 'eval', '--system', 'bm25', '--bench', 'styles', '--split', 'test', '--sample', '--out', dir, '--json']);
    assert.is(JSON.parse(t.stdout).split, 'test');
    assert.is(JSON.parse(t.stdout).queries, count('test'));
    assert.match(t.stderr, /test half is for reporting only/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
