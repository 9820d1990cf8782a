import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSearchServer, search, type SearchEngine, type SearchResponse } from '../lib';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import { bm25Scorer, buildBm25, type CorpusScorer } from '../lib/retrieve';
import { createSearchEngine } from '../lib/search';
import { checkK, checkQuery, escapeHtml } from '../lib/serve';

function ds(id: string, shortName: string | null, longName: string, abstract = ''): DatasetRecord {
  return {
    id, shortName, longName, abstract, doi: null, daac: 'GES_DISC', publisher: null, temporalStart: '2004-10-01T00:00:00Z', temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

const corpus = makeCorpus(
  [
    ds('C1-GES_DISC', 'OMNO2d', 'OMI/Aura NO2 Total and Tropospheric Column Daily L3', 'nitrogen dioxide columns'),
    ds('C2-GES_DISC', 'MOD08_M3', 'MODIS Terra Aerosol Cloud Water Vapor Ozone Monthly L3', 'aerosol optical depth'),
    ds('C3-POCLOUD', 'MUR-JPL-L4-GLOB-v4.1', 'GHRSST Level 4 MUR Global Foundation Sea Surface Temperature Analysis', 'sea surface temperature'),
    ds('C4-GES_DISC', 'GPM_3IMERGM', 'GPM IMERG Final Precipitation L3 Monthly', 'rainfall estimates'),
    ds('C5-LPDAAC', null, 'Smoke plume heights', 'haze from burning'),
  ],
  [], [], 'hand-made',
);

/** A semantic stand-in: 1 for datasets whose title shares a "topic" with the query, else 0.1 (no embeddings needed). */
const topicScorer: CorpusScorer = {
  id: 'topic', label: 'topic stand-in',
  async scoreBatch(texts) {
    return texts.map((t) => Float32Array.from(corpus.datasets, (d) => (/smoke|aerosol/i.test(t) && /smoke|aerosol/i.test(d.longName) ? 1 : 0.1)));
  },
};

function pipeline(over: { lexical?: CorpusScorer; semantic?: CorpusScorer | null } = {}): SearchEngine {
  const semantic = over.semantic === undefined ? topicScorer : over.semantic;
  return createSearchEngine(corpus, { lexical: over.lexical ?? bm25Scorer(buildBm25(corpus)), semantic, fusion: semantic ? { method: 'convex', alpha: 0.4 } : undefined, source: 'given' });
}

const get = async (app: Awaited<ReturnType<typeof createSearchServer>>, url: string) => app.inject({ method: 'GET', url, remoteAddress: '127.0.0.1' });

test('search: fused = α·semantic + (1−α)·BM25 after min-max, components add up, stage says who won', async () => {
  const { results } = await search(pipeline(), 'aerosol smoke', { k: 5, router: false });
  assert.ok(results.length >= 2);
  for (let i = 1; i < results.length; i++) assert.ok(results[i - 1].score >= results[i].score, 'sorted');
  for (const r of results) {
    const sum = r.components.lexical!.contribution + r.components.semantic!.contribution;
    assert.ok(Math.abs(sum - r.score) < 1e-5, `${r.id}: ${sum} vs ${r.score}`);
    assert.ok(Math.abs(r.components.semantic!.contribution - 0.4 * r.components.semantic!.normalized) < 1e-6);
  }
  const smoke = results.find((r) => r.id === 'C5-LPDAAC')!;
  assert.is(smoke.components.lexical!.raw > 0, true, '"smoke" is in its title');
  const mod = results.find((r) => r.id === 'C2-GES_DISC')!;
  assert.ok(['bm25', 'both', 'semantic'].includes(mod.stage));
  const { results: lexOnly } = await search(pipeline({ semantic: null }), 'sea surface temperature', { k: 3, router: false });
  assert.is(lexOnly[0].id, 'C3-POCLOUD');
  assert.is(lexOnly[0].components.semantic, null);
  assert.is(lexOnly[0].stage, 'bm25');
});

test('query checks: empty, too long, binary, markup, bad k; messages never repeat the query', () => {
  const bad = (q: unknown) => ('problem' in checkQuery(q, 50) ? (checkQuery(q, 50) as any).problem : null);
  assert.is(bad('   ').code, 'EMPTY_QUERY');
  assert.is(bad(undefined).code, 'EMPTY_QUERY');
  assert.is(bad(['a', 'b']).code, 'BAD_PARAMETER');
  assert.is(bad('x'.repeat(51)).code, 'QUERY_TOO_LONG');
  assert.is(bad('ozone\u0000\u0001').code, 'BINARY_QUERY');
  assert.is(bad('ozone \uFFFD').code, 'BINARY_QUERY');
  for (const q of ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', 'javascript:alert(1)', 'a" onmouseover="x()']) {
    const p = bad(q);
    assert.is(p.code, 'MARKUP_QUERY', q);
    assert.not.match(p.message, q);
  }
  assert.equal(checkQuery('  sea   ice  ', 50), { query: 'sea ice' });
  assert.equal(checkQuery('SST < 20 °C & salinity > 35', 50), { query: 'SST < 20 °C & salinity > 35' });
  assert.equal(checkK(undefined, 10, 50), { k: 10 });
  assert.equal(checkK('7', 10, 50), { k: 7 });
  for (const k of ['0', '51', '-1', '2.5', 'abc', '1e3']) assert.ok('problem' in checkK(k, 10, 50), k);
  assert.is(escapeHtml(`<a href="x">'&\``), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#96;');
});

test('GET /api/search: router actions, ranked datasets with components, timings', async () => {
  const app = await createSearchServer(pipeline(), { now: () => new Date('2026-11-29T00:00:00Z') });
  try {
    const res = await get(app, '/api/search?q=' + encodeURIComponent('show me aerosol optical depth over India in 2019') + '&k=3');
    assert.is(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /application\/json/);
    const body = res.json() as SearchResponse;
    assert.is(body.k, 3);
    assert.is(body.retrievalQuery, 'aerosol optical depth over India in 2019');
    assert.ok(body.results.length >= 1 && body.results.length <= 3);
    assert.is(body.results[0].id, 'C2-GES_DISC');
    assert.ok(body.results[0].components.semantic);
    assert.is(body.results[0].links.detail, '/dataset/C2-GES_DISC');
    const wv = body.router!.actions.find((a) => a.tool === 'worldview')!;
    const u = new URL(wv.url);
    assert.is(u.searchParams.get('t'), '2019-07-02-T00:00:00Z');
    assert.ok(u.searchParams.get('l')!.includes('MODIS_Combined_Value_Added_AOD'));
    assert.equal(body.router!.parsed.places.map((p) => p.name), ['India']);
    // every stage was timed (a finite, non-negative number) and the whole search took at least its stages together
    const t = body.timings;
    for (const key of ['parseMs', 'routeMs', 'lexicalMs', 'semanticMs', 'fuseMs', 'constraintsMs', 'explainMs', 'totalMs'] as const)
      assert.ok(Number.isFinite(t[key]) && t[key] >= 0, `${key} = ${t[key]}`);
    const parts = t.parseMs + t.routeMs + t.lexicalMs + t.semanticMs + t.fuseMs + t.constraintsMs + t.explainMs;
    assert.ok(t.totalMs > 0 && t.totalMs + 1e-6 >= parts, `total ${t.totalMs} ms < stages ${parts} ms`);
    assert.is(body.retrieval.alpha, 0.4);
    // a plain search falls through with no tool
    const plain = (await get(app, '/api/search?q=nitrogen+dioxide+columns')).json() as SearchResponse;
    assert.is(plain.router!.fallThrough, true);
    assert.is(plain.router!.actions.length, 0);
    assert.is(plain.results[0].id, 'C1-GES_DISC');
  } finally {
    await app.close();
  }
});

test('CMR\'s parameter forms: provider[] / temporal[] / bounding_box[] applied, options[…][ignore_case] taken, unknown parameters and out-of-range paging refused by name; page_num pages the ranking; the page links say page_size', async () => {
  const app = await createSearchServer(pipeline(), { now: () => new Date('2026-11-29T00:00:00Z'), maxResultDepth: 20 });
  try {
    const json = async (url: string) => {
      const r = await get(app, url);
      assert.is(r.statusCode, 200, `${url}: ${r.body}`);
      return r.json() as SearchResponse;
    };
    const plain = await json('/api/search?q=data&provider=GES_DISC&temporal=2005-01-01,2006-01-01&bounding_box=-10,-10,10,10');
    const arrays = await json('/api/search?q=data&provider%5B%5D=GES_DISC&temporal[]=2005-01-01,2006-01-01&bounding_box[]=-10,-10,10,10');
    assert.equal(arrays.retrieval.filters, plain.retrieval.filters);
    assert.equal(arrays.retrieval.filters!.applied.provider, ['GES_DISC']);
    assert.equal(arrays.results.map((r) => r.id), plain.results.map((r) => r.id));
    assert.ok(arrays.results.every((r) => r.id.endsWith('GES_DISC')));
    // both forms together are one list, as CMR reads them
    const both = await json('/api/search?q=data&platform=Aura&platform[]=Terra');
    assert.equal([...both.retrieval.filters!.applied.platform!].sort(), ['Aura', 'Terra']);
    assert.is((await get(app, '/api/search?q=data&options[platform][ignore_case]=true')).statusCode, 200);
    const refused = async (url: string, code: string, message: RegExp) => {
      const r = await get(app, url);
      assert.is(r.statusCode, 400, url);
      assert.is(r.json().error.code, code, url);
      assert.match(r.json().error.message, message, url);
    };
    await refused('/api/search?q=data&providr=GES_DISC', 'BAD_PARAMETER', /^Parameter \[providr\] was not recognized$/);
    await refused('/api/search?q=data&foo=1&bar[]=2', 'BAD_PARAMETER', /^Parameter \[foo\] was not recognized; Parameter \[bar\[\]\] was not recognized$/);
    await refused('/api/search?q=data&options[platform][ignore_case]=false', 'BAD_PARAMETER', /options\[platform\]\[ignore_case\]\] must be true/);
    await refused('/api/search?q=data&page_size=100000', 'BAD_K', /^page_size must be an integer from 1 to 50$/);
    await refused('/api/search?q=data&offset=-5', 'BAD_PARAMETER', /^offset must be an integer from 0$/);
    await refused('/api/search?q=data&page_num=0', 'BAD_PARAMETER', /^page_num must be an integer from 1$/);
    await refused('/api/search?q=data&page_num=3&page_size=10', 'BAD_PARAMETER', /the page ends at result 30; results are ranked to 20 at most/);
    await refused('/api/search?q=data&k=3&page_size=3', 'BAD_PARAMETER', /give k or page_size, not both/);
    // paging: page 2 of size 2 is ranks 3 and 4 of the same ranking
    const many = '/api/search?q=' + encodeURIComponent('aerosol ozone sea surface temperature precipitation smoke');
    const top4 = await json(many + '&page_size=4');
    const page2 = await json(many + '&page_size=2&page_num=2');
    assert.is(top4.results.length, 4);
    assert.equal(page2.results.map((r) => [r.rank, r.id]), top4.results.slice(2).map((r) => [r.rank, r.id]));
    assert.equal(page2.page, { size: 2, offset: 2 });
    assert.equal((await json(many + '&page_size=2&offset=2')).results.map((r) => r.id), page2.results.map((r) => r.id));
    // the page's own links use CMR's names
    const html = await get(app, '/?q=data&page_size=3&provider[]=GES_DISC');
    assert.is(html.statusCode, 200);
    assert.match(html.body, /name="page_size" value="3"/);
    assert.not.match(html.body, /[?&;]k=\d/);
    // the page speaks plainly: how α was set is in a disclosure, not in the line every visitor reads
    assert.match(html.body, /<p class="note">Ranked for “data” by its words and its meaning together; [\d.]+ ms<\/p>/);
    assert.match(html.body, /<details class="note" id="ranking-details"><summary>how these were ranked<\/summary>[^<]*α from [^<]+<\/details>/);
  } finally {
    await app.close();
  }
});

test('bad input: clear 4xx in JSON and HTML, nothing echoed unescaped; 404s; security headers', async () => {
  const app = await createSearchServer(pipeline(), { maxQueryChars: 100 });
  try {
    const cases: [string, number, string][] = [
      ['/api/search', 400, 'EMPTY_QUERY'],
      ['/api/search?q=', 400, 'EMPTY_QUERY'],
      ['/api/search?q=' + 'a'.repeat(101), 400, 'QUERY_TOO_LONG'],
      ['/api/search?q=%00%01ozone', 400, 'BINARY_QUERY'],
      ['/api/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E', 400, 'MARKUP_QUERY'],
      ['/api/search?q=ozone&k=0', 400, 'BAD_K'],
      ['/api/search?q=ozone&k=abc', 400, 'BAD_K'],
      ['/api/nothing', 404, 'NOT_FOUND'],
    ];
    for (const [url, status, code] of cases) {
      const r = await get(app, url);
      assert.is(r.statusCode, status, url);
      assert.is(r.json().error.code, code, url);
      assert.not.match(r.body, /<script>/);
    }
    const page = await get(app, '/?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    assert.is(page.statusCode, 400);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.not.match(page.body, /<script>alert/);
    assert.match(page.body, /id="error"/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.is(page.headers['x-content-type-options'], 'nosniff');
    // characters that are fine in a query are escaped when shown back
    const ok = await get(app, '/?q=' + encodeURIComponent('SST "warm" & <20> ozone'));
    assert.is(ok.statusCode, 200);
    assert.match(ok.body, /value="SST &quot;warm&quot; &amp; &lt;20&gt; ozone"/);
    assert.not.match(ok.body, /<20>/);
    const d = await get(app, '/dataset/C3-POCLOUD');
    assert.is(d.statusCode, 200);
    assert.match(d.body, /MUR-JPL-L4-GLOB-v4.1/);
    assert.is((await get(app, '/dataset/C999-NONE')).statusCode, 404);
    assert.is((await get(app, '/api/dataset/C1-GES_DISC')).json().shortName, 'OMNO2d');
  } finally {
    await app.close();
  }
});

test('LLM router where configured: its tools are used; a failing LLM leaves the rule router answering', async () => {
  const fake = { chat: async () => ({ text: '{"tools":[{"tool":"sde","confidence":0.8,"fullyAnswers":false,"why":"background"}]}', model: 'fake' }) };
  const app = await createSearchServer(pipeline(), { llmRouter: fake });
  try {
    const body = (await get(app, '/api/search?q=nitrogen+dioxide+columns')).json() as SearchResponse;
    assert.is(body.router!.router, 'llm:fake');
    assert.equal(body.router!.actions.map((a) => a.tool), ['sde']);
  } finally {
    await app.close();
  }
  const down = await createSearchServer(pipeline(), { llmRouter: { chat: async () => { throw new Error('connect ECONNREFUSED key=sk-123'); } } });
  try {
    const r = await get(down, '/api/search?q=show+me+NO2+over+China+in+2020');
    assert.is(r.statusCode, 200);
    const body = r.json() as SearchResponse;
    assert.is(body.router!.router, 'rules');
    assert.match(body.router!.notes.join(' '), /LLM router was unavailable/);
    assert.not.match(r.body, /sk-123|ECONNREFUSED/);
    assert.equal(body.router!.actions.map((a) => a.tool), ['worldview']);
  } finally {
    await down.close();
  }
});

test('per-client rate limit answers 429 in JSON; internal errors are 500 without details', async () => {
  const app = await createSearchServer(pipeline(), { rateLimitMax: 3, rateLimitWindowMs: 60_000 });
  try {
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await get(app, '/api/search?q=ozone')).statusCode);
    assert.equal(codes, [200, 200, 200, 429, 429]);
    const r = await get(app, '/api/search?q=ozone');
    assert.is(r.json().error.code, 'RATE_LIMITED');
    const other = await app.inject({ method: 'GET', url: '/api/search?q=ozone', remoteAddress: '127.0.0.2' });
    assert.is(other.statusCode, 200, 'another client has its own budget');
  } finally {
    await app.close();
  }
  const broken: CorpusScorer = { id: 'broken', label: 'broken', scoreBatch: async () => { throw new Error('secret /path/to/file exploded'); } };
  const app2 = await createSearchServer(pipeline({ lexical: broken }));
  try {
    const r = await get(app2, '/api/search?q=ozone');
    assert.is(r.statusCode, 500);
    assert.equal(r.json(), { error: { code: 'INTERNAL', message: 'internal error; the request was logged' } });
    assert.not.match(r.body, /secret|exploded|at /);
    const p = await get(app2, '/?q=ozone');
    assert.is(p.statusCode, 500);
    assert.not.match(p.body, /exploded/);
  } finally {
    await app2.close();
  }
});

test.run();
