import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSearchServer } from '../lib';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import { bm25Scorer, buildBm25, type CorpusScorer } from '../lib/retrieve';
import { createSearchEngine } from '../lib/search';
import { type SearchServerOptions } from '../lib/serve';

function ds(id: string, shortName: string, longName: string): DatasetRecord {
  return {
    id, shortName, longName, abstract: '', doi: null, daac: 'GES_DISC', publisher: null, temporalStart: '2004-10-01T00:00:00Z', temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

const corpus = makeCorpus(
  [
    ds('C1-GES_DISC', 'OMNO2d', 'OMI/Aura NO2 Total and Tropospheric Column Daily L3'),
    ds('C2-GES_DISC', 'MOD08_M3', 'MODIS Terra Aerosol Cloud Water Vapor Ozone Monthly L3'),
    ds('C3-POCLOUD', 'MUR-JPL-L4-GLOB-v4.1', 'GHRSST Level 4 MUR Global Foundation Sea Surface Temperature Analysis'),
  ],
  [], [], 'hand-made',
);

/** A semantic scorer that holds every search until the test opens its gate, counting calls. */
function gatedScorer() {
  let open = false;
  const waiting: (() => void)[] = [];
  const s = {
    calls: 0,
    open() {
      open = true;
      waiting.splice(0).forEach((w) => w());
    },
    scorer: {
      id: 'gated', label: 'gated stand-in',
      async scoreBatch(texts: string[]) {
        s.calls++;
        if (!open) await new Promise<void>((r) => waiting.push(r));
        return texts.map(() => Float32Array.from(corpus.datasets, (_, i) => 0.1 * (i + 1)));
      },
    } as CorpusScorer,
  };
  return s;
}

async function server(g: ReturnType<typeof gatedScorer>, opts: SearchServerOptions) {
  const engine = createSearchEngine(corpus, { lexical: bm25Scorer(buildBm25(corpus)), semantic: g.scorer, fusion: { method: 'convex', alpha: 0.4 }, source: 'given' });
  return createSearchServer(engine, { rateLimitMax: 1e6, ...opts });
}

/** Fails instead of hanging. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error(`${what}: still pending after ${ms} ms (a hang)`)), ms).unref())]);
}

test('overload: beyond running + queued searches the answer is 503 with Retry-After at once; the admitted ones succeed', async () => {
  const g = gatedScorer();
  const app = await server(g, { maxConcurrentSearches: 2, maxQueuedSearches: 3, resultCacheEntries: 0 });
  const settled: { status: number; retryAfter: unknown; body: string }[] = [];
  const all = Array.from({ length: 20 }, (_, i) =>
    app.inject({ method: 'GET', url: `/api/search?q=${encodeURIComponent(`sea surface temperature ${i}`)}`, remoteAddress: '127.0.0.1' })
      .then((r) => settled.push({ status: r.statusCode, retryAfter: r.headers['retry-after'], body: r.body })));
  // the 15 refused answer while the 5 admitted are still held by the gate
  await within((async () => {
    while (settled.length < 15) await new Promise((r) => setTimeout(r, 5));
  })(), 10_000, 'refusals');
  assert.is(settled.length, 15, 'nothing admitted has finished yet');
  for (const s of settled) {
    assert.is(s.status, 503);
    assert.is(s.retryAfter, '1');
    assert.is(JSON.parse(s.body).error.code, 'OVERLOADED');
  }
  g.open();
  await within(Promise.all(all), 10_000, 'admitted searches');
  const ok = settled.filter((s) => s.status === 200);
  assert.is(ok.length, 5, '2 running + 3 queued succeed');
  assert.is(g.calls, 5, 'refused requests never reached the scorer');
  await app.close();
});

test('overload: a search that waits in the queue longer than queueTimeoutMs gets 503 with Retry-After (no hang)', async () => {
  const g = gatedScorer();
  const app = await server(g, { maxConcurrentSearches: 1, maxQueuedSearches: 5, queueTimeoutMs: 30, resultCacheEntries: 0 });
  // inject dispatches on then(): start the first search and let it take the only slot
  const first = app.inject({ method: 'GET', url: '/api/search?q=aerosol', remoteAddress: '127.0.0.1' }).then((r) => r);
  while (g.calls === 0) await new Promise((r) => setTimeout(r, 2));
  const queued = await within(Promise.all(['ozone', 'no2'].map((q) => app.inject({ method: 'GET', url: `/api/search?q=${q}`, remoteAddress: '127.0.0.1' }))), 10_000, 'queued');
  for (const r of queued) {
    assert.is(r.statusCode, 503);
    assert.is(r.headers['retry-after'], '1');
  }
  g.open();
  assert.is((await within(first, 10_000, 'first')).statusCode, 200);
  const html = await app.inject({ method: 'GET', url: '/?q=ozone', remoteAddress: '127.0.0.1' });
  assert.is(html.statusCode, 200, 'a free slot serves again');
  await app.close();
});

test('answer cache: the same query (any whitespace) is answered from the LRU without searching; other k searches again', async () => {
  const g = gatedScorer();
  g.open();
  const app = await server(g, {});
  const a = await app.inject({ method: 'GET', url: '/api/search?q=sea%20surface%20temperature&k=2', remoteAddress: '127.0.0.1' });
  const b = await app.inject({ method: 'GET', url: '/api/search?q=%20sea%20%20surface%20temperature%20&k=2', remoteAddress: '127.0.0.1' });
  assert.is(a.headers['x-eo-cache'], 'miss');
  assert.is(b.headers['x-eo-cache'], 'hit');
  assert.equal(JSON.parse(b.body).results, JSON.parse(a.body).results);
  assert.is(g.calls, 1);
  await app.inject({ method: 'GET', url: '/api/search?q=sea%20surface%20temperature&k=3', remoteAddress: '127.0.0.1' });
  assert.is(g.calls, 2, 'k is part of the key');
  const off = await server(g, { resultCacheEntries: 0 });
  await off.inject({ method: 'GET', url: '/api/search?q=ozone', remoteAddress: '127.0.0.1' });
  await off.inject({ method: 'GET', url: '/api/search?q=ozone', remoteAddress: '127.0.0.1' });
  assert.is(g.calls, 4, 'resultCacheEntries 0 searches every time');
  await app.close();
  await off.close();
});

test('rate limit: 429 keeps its Retry-After', async () => {
  const g = gatedScorer();
  g.open();
  const app = await server(g, { rateLimitMax: 2 });
  let last;
  for (let i = 0; i < 3; i++) last = await app.inject({ method: 'GET', url: `/api/search?q=ozone${i}`, remoteAddress: '10.0.0.9' });
  assert.is(last!.statusCode, 429);
  assert.ok(Number(last!.headers['retry-after']) >= 1, `retry-after ${last!.headers['retry-after']}`);
  await app.close();
});

test.run();
