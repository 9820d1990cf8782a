import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeCorpus } from '../lib/data/corpus';
import type { DatasetRecord, Publication } from '../lib/data/types';
import { createLlmClient, memoryRecordStore } from '../lib/llm';
import type { ModelConfig } from '../lib/llm/types';
import { buildBm25 } from '../lib/retrieve/bm25';
import { rerankBackbone, type BackboneList } from '../lib/rerank';
import {
  agenticReranker, applyLeakageGuard, arxivClient, arxivSearchQuery, arxivSearchTool, braveProvider, buildLocalPublicationIndex,
  callToolGuarded, localArxivTool, localDatasetDocsTool, normalizeDoi, parseArxivAtom, searxngProvider, tavilyProvider,
  webSearchProviderFromEnv, webSearchTool, openToolStore, recordedTool, type AgentTool,
} from '../lib/agent';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hasToolResults, startFakeAnthropic, startFakeArxiv, startFakeOpenAI } from './servers/fake-llm';

function ds(id: string, longName: string, abstract: string): DatasetRecord {
  return {
    id, shortName: null, longName, abstract, doi: null, daac: 'TEST', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null,
    catalogRecordComplete: true, sources: [],
  };
}
const pub = (id: string, title: string, abstract: string, doi: string | null = null): Publication => ({ id, doi, title, abstract, year: 2020, venue: null, source: null, sources: [] });

const SOURCE = { doi: '10.1234/own.paper', title: 'Stratospheric ozone trends from Aura MLS' };

// ---------------------------------------------------------------- leakage guard

test('leakage guard removes the source publication by DOI (any form) or near-identical title, and counts it', () => {
  assert.is(normalizeDoi('https://doi.org/10.1234/OWN.paper'), '10.1234/own.paper');
  assert.is(normalizeDoi('doi:10.1234/own.paper.'), '10.1234/own.paper');
  const items = [
    { title: 'Something else', snippet: 'x', doi: '10.1234/own.paper' },
    { title: 'A different title', snippet: 'y', url: 'https://doi.org/10.1234/OWN.PAPER' },
    { title: 'Stratospheric Ozone Trends from Aura-MLS', snippet: 'preprint' },
    { title: 'Stratospheric ozone trends', snippet: 'a related but different paper on ozone' },
    { title: 'Sea ice extent', snippet: 'unrelated', doi: '10.9999/other' },
  ];
  const { kept, removed } = applyLeakageGuard(items, SOURCE);
  assert.equal(removed.map((r) => r.reason), ['doi', 'doi', 'title']);
  assert.equal(kept.map((k) => k.title), ['Stratospheric ozone trends', 'Sea ice extent']);
  assert.is(applyLeakageGuard(items, null).kept.length, 5);
});

test('guarded tool call: removal counted in the trace; the model text never contains the source', async () => {
  const tool: AgentTool = {
    spec: { name: 'arxiv_search', description: 'd', parameters: {} }, mode: 'offline',
    async run() {
      return { source: 't', items: [{ title: SOURCE.title, snippet: 'leak' }, { title: 'Other', snippet: 'fine' }] };
    },
  };
  const on = await callToolGuarded(tool, 'arxiv_search', { query: 'ozone' }, { queryId: 'q', source: SOURCE });
  assert.is(on.trace.removedByGuard, 1);
  assert.is(on.trace.results, 1);
  assert.not.match(on.text, /leak/);
  const off = await callToolGuarded(tool, 'arxiv_search', { query: 'ozone' }, { queryId: 'q', source: SOURCE, guard: false });
  assert.is(off.trace.removedByGuard, 0);
  assert.match(off.text, /leak/);
  const missing = await callToolGuarded(undefined, 'nope', {}, { queryId: 'q', source: null });
  assert.match(missing.text, /^error: unknown tool/);
  const bad = await callToolGuarded(tool, 'arxiv_search', {}, { queryId: 'q', source: null });
  assert.ok(bad.trace.error === undefined, 'this tool ignores args');
});

// ---------------------------------------------------------------- arXiv

const ENTRIES = [
  { id: '2101.00001v2', title: 'Ozone profiles from limb sounders & satellites', summary: 'We compare <b>MLS</b> ozone.', doi: '10.1234/own.paper', authors: ['A. One', 'B. Two'], categories: ['physics.ao-ph', 'physics.geo-ph'] },
  { id: '2102.00002v1', title: 'Sea ice extent from passive microwave', summary: 'Arctic sea ice.' },
  { id: '2103.00003v1', title: 'Ozone and aerosols', summary: 'Aerosol optical depth and total ozone.' },
];

test('arXiv Atom parsing against the fake arXiv: ids, titles, entities, authors, DOI, categories', async () => {
  const srv = await startFakeArxiv(ENTRIES);
  try {
    const client = arxivClient({ url: srv.queryUrl, minIntervalMs: 0 });
    const feed = await client.search('ozone satellites', 5);
    assert.is(feed.entries.length, 2);
    const e = feed.entries[0];
    assert.is(e.id, '2101.00001v2');
    assert.is(e.title, 'Ozone profiles from limb sounders & satellites');
    assert.is(e.summary, 'We compare <b>MLS</b> ozone.');
    assert.equal(e.authors, ['A. One', 'B. Two']);
    assert.is(e.doi, '10.1234/own.paper');
    assert.equal(e.categories, ['physics.ao-ph', 'physics.geo-ph']);
    assert.is(e.url, 'http://arxiv.org/abs/2101.00001v2');
    assert.is(feed.totalResults, 2);
    const q = new URL(srv.requests[0].path, 'http://x').searchParams;
    assert.is(q.get('search_query'), 'all:ozone OR all:satellites');
    assert.is(q.get('max_results'), '5');
  } finally {
    await srv.close();
  }
});

test('arXiv client retries a 503 and the tool applies no guard itself (the harness does)', async () => {
  const srv = await startFakeArxiv(ENTRIES, { failFirst: 1 });
  try {
    const tool = arxivSearchTool({ url: srv.queryUrl, minIntervalMs: 0 });
    const out = await callToolGuarded(tool, 'arxiv_search', { query: 'ozone', max_results: 3 }, { queryId: 'q1', source: SOURCE });
    assert.is(srv.requests.length, 2);
    assert.is(out.trace.removedByGuard, 1, 'the own paper (DOI) removed');
    assert.equal(out.items.map((i) => i.id), ['2103.00003v1']);
  } finally {
    await srv.close();
  }
});

test('arXiv parser: error feed and non-Atom text are clear errors; CDATA and numeric entities decoded', () => {
  assert.throws(() => parseArxivAtom('<html>busy</html>'), /not an Atom feed/);
  const err = '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#incorrect_id</id><title>Error</title><summary>incorrect id format</summary></entry></feed>';
  assert.throws(() => parseArxivAtom(err), /incorrect id format/);
  const f = parseArxivAtom('<feed><entry><id>http://arxiv.org/abs/1</id><title><![CDATA[A & B]]></title><summary>caf&#233; &#x2013; ok</summary></entry></feed>');
  assert.is(f.entries[0].title, 'A & B');
  assert.is(f.entries[0].summary, 'café – ok');
  assert.is(f.entries[0].doi, null);
  assert.is(arxivSearchQuery('The ozone of the Arctic'), 'all:ozone OR all:arctic');
});

// ---------------------------------------------------------------- web search providers

async function jsonServer(reply: (req: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }) => unknown) {
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(r);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply(r)));
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, seen, close: () => new Promise<void>((r) => srv.close(() => r())) };
}

test('web search providers send their real request shapes and parse their JSON', async () => {
  const s = await jsonServer((r) =>
    r.url.startsWith('/res/v1/web/search')
      ? { web: { results: [{ title: 'Brave hit', url: 'https://b', description: 'about <strong>ozone</strong>' }] } }
      : { results: [{ title: 'Hit', url: 'https://a', content: 'snippet' }] },
  );
  try {
    const ctx = { queryId: 'q' };
    const t = await webSearchTool(tavilyProvider('tvly-secret', s.url)).run({ query: 'ozone', max_results: 3 }, ctx);
    assert.is(s.seen[0].method, 'POST');
    assert.is(s.seen[0].url, '/search');
    assert.is(s.seen[0].headers.authorization, 'Bearer tvly-secret');
    assert.equal(JSON.parse(s.seen[0].body), { query: 'ozone', max_results: 3, search_depth: 'basic' });
    assert.equal(t.items, [{ title: 'Hit', snippet: 'snippet', url: 'https://a' }]);
    const b = await webSearchTool(braveProvider('brv', s.url)).run({ query: 'ozone' }, ctx);
    assert.is(s.seen[1].headers['x-subscription-token'], 'brv');
    assert.is(s.seen[1].url, '/res/v1/web/search?q=ozone&count=5');
    assert.is(b.items[0].snippet, 'about ozone');
    await webSearchTool(searxngProvider(`${s.url}/`)).run({ query: 'sea ice' }, ctx);
    assert.is(s.seen[2].url, '/search?q=sea+ice&format=json');
  } finally {
    await s.close();
  }
  assert.is(webSearchProviderFromEnv({}), null);
  assert.is(webSearchProviderFromEnv({ BRAVE_API_KEY: 'k' })!.id, 'brave');
  assert.is(webSearchProviderFromEnv({ EO_WEB_SEARCH: 'searxng', SEARXNG_URL: 'http://h', BRAVE_API_KEY: 'k' })!.id, 'searxng');
  assert.throws(() => webSearchProviderFromEnv({ EO_WEB_SEARCH: 'tavily' }), /TAVILY|not set/);
  assert.throws(() => webSearchProviderFromEnv({ EO_WEB_SEARCH: 'bing' }), /expected tavily/);
});

// ---------------------------------------------------------------- local tools

const corpus = makeCorpus(
  [ds('C1-T', 'MLS ozone profiles', 'stratospheric ozone from Aura MLS'), ds('C2-T', 'Sea ice concentration', 'passive microwave sea ice'), ds('C3-T', 'Aerosol optical depth', 'MODIS aerosol')],
  [pub('10.1234/own.paper', SOURCE.title, 'We use MLS ozone.', '10.1234/own.paper'), pub('p2', 'Ozone recovery in the stratosphere', 'ozone trends with MLS'), pub('p3', 'Arctic sea ice decline', 'sea ice')],
  [], 'toy',
);

test('offline tools search local indexes with the retrieval BM25; links shown only where allowed', async () => {
  const idx = buildLocalPublicationIndex(corpus.publications, new Map([['p2', ['C1-T']]]));
  const r = await localArxivTool(idx).run({ query: 'stratospheric ozone' }, { queryId: 'q' });
  assert.equal(r.items.map((i) => i.id).sort(), ['10.1234/own.paper', 'p2']);
  assert.equal(r.items.find((i) => i.id === 'p2')!.datasetIds, ['C1-T']);
  assert.is(r.items.find((i) => i.id !== 'p2')!.datasetIds, undefined);
  const guarded = await callToolGuarded(localArxivTool(idx), 'arxiv_search', { query: 'stratospheric ozone' }, { queryId: 'q', source: SOURCE });
  assert.equal(guarded.items.map((i) => i.id), ['p2']);
  const docs = await localDatasetDocsTool(corpus, buildBm25(corpus)).run({ query: 'sea ice', max_results: 1 }, { queryId: 'q' });
  assert.equal(docs.items.map((i) => i.id), ['C2-T']);
  const err = await localArxivTool(idx).run({ query: '' }, { queryId: 'q' }).then(() => null, (e: Error) => e);
  assert.match(String(err), /"query" must be a non-empty string/);
});

// ---------------------------------------------------------------- agent loop, both providers

const lists: BackboneList[] = [
  {
    query: { id: 'q1', text: 'ozone in the stratosphere', publicationId: '10.1234/own.paper' },
    candidates: corpus.datasets.map((d, i) => ({ id: d.id, record: d, retrievalScore: 3 - i, retrievalRank: i + 1, scores: {} })),
  },
];

for (const provider of ['openai', 'anthropic'] as const) {
  test(`agent tool loop (${provider} wire format): tool call, guarded result, final ranking; record → replay`, async () => {
    const start = provider === 'openai' ? startFakeOpenAI : startFakeAnthropic;
    const srv = await start((req) =>
      hasToolResults(req.body)
        ? { text: 'Evidence says MLS. {"ranked": [1, 3]}' }
        : { toolCalls: [{ name: 'arxiv_search', arguments: { query: 'stratospheric ozone', max_results: 3 } }, { name: 'no_such_tool', arguments: {} }] },
    );
    try {
      const config: ModelConfig = { id: `fake-${provider}`, provider, model: 'm-1', baseUrl: srv.url, apiKeyEnv: 'EO_TEST_FAKE_KEY', inputPricePerMTok: 1, outputPricePerMTok: 1 };
      const store = memoryRecordStore();
      const idx = buildLocalPublicationIndex(corpus.publications);
      const sourceOf = () => SOURCE;
      const client = createLlmClient(config, { mode: 'record', store, env: { EO_TEST_FAKE_KEY: 'sk-secret-123' }, log: () => {} });
      const agent = agenticReranker(client, { tools: [localArxivTool(idx)], sourceOf });
      const a = await rerankBackbone(agent, lists);
      assert.equal(a.run.get('q1')!.map((e) => e.docId), ['C1-T', 'C3-T', 'C2-T']);
      const t = a.traces.get('q1')![0];
      assert.is(t.calls, 2);
      assert.is(t.toolRounds, 1);
      assert.equal(t.toolCalls.map((c) => c.name), ['arxiv_search', 'no_such_tool']);
      assert.is(t.toolCalls[0].removedByGuard, 1);
      assert.is(t.toolCalls[1].error, 'unknown tool');
      assert.is(t.stopReason, 'final');
      // the first request offered the tool natively; the second carried the guarded result
      const first = srv.requests[0].body;
      const toolNames = (first.tools as any[]).map((x) => x.function?.name ?? x.name);
      assert.equal(toolNames, ['arxiv_search']);
      const second = JSON.stringify(srv.requests[1].body);
      assert.match(second, /Ozone recovery in the stratosphere/);
      assert.not.match(second, /Stratospheric ozone trends from Aura MLS/);
      assert.not.match(JSON.stringify(store.records()), /sk-secret-123/);
      const replay = createLlmClient(config, { mode: 'replay', store, env: {}, log: () => {} });
      const b = await rerankBackbone(agenticReranker(replay, { tools: [localArxivTool(idx)], sourceOf }), lists);
      assert.is(srv.requests.length, 2, 'replay: no new API call');
      assert.equal([...b.run], [...a.run]);
    } finally {
      await srv.close();
    }
  });
}

test('agent loop is bounded: after max tool rounds, one final call without tools', async () => {
  const srv = await startFakeOpenAI((req) =>
    req.body.tools ? { toolCalls: [{ name: 'arxiv_search', arguments: { query: 'ozone' } }] } : { text: '{"ranked": [2]}' },
  );
  try {
    const config: ModelConfig = { id: 'loop', provider: 'openai-compatible', model: 'm', baseUrl: srv.url, inputPricePerMTok: 0, outputPricePerMTok: 0 };
    const client = createLlmClient(config, { mode: 'live', env: {}, log: () => {} });
    const agent = agenticReranker(client, { tools: [localArxivTool(buildLocalPublicationIndex(corpus.publications))], maxToolRounds: 2 });
    const r = await agent.rerank(lists[0].query, lists[0].candidates);
    assert.is(srv.requests.length, 3);
    assert.is(srv.requests[2].body.tools, undefined);
    assert.match(JSON.stringify(srv.requests[2].body.messages), /Tool budget exhausted \(max-rounds\)/);
    assert.is(r.trace.stopReason, 'max-rounds');
    assert.is(r.trace.toolCalls.length, 2);
    assert.equal(r.ranked, [2]);
  } finally {
    await srv.close();
  }
});

test('recorded tools: record appends, replay serves the same result without calling, a miss names the call', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-tools-'));
  try {
    let calls = 0;
    const tool: AgentTool = {
      spec: { name: 'arxiv_search', description: 'd', parameters: {} }, mode: 'live',
      async run(args) {
        calls++;
        return { source: 'live', items: [{ title: `result for ${String(args.query)}`, snippet: String(calls) }] };
      },
    };
    const file = path.join(dir, 'tools.jsonl');
    const rec = recordedTool(tool, openToolStore(file), 'record');
    const a = await rec.run({ query: 'ozone', max_results: 2 }, { queryId: 'q' });
    const again = await rec.run({ max_results: 2, query: 'ozone' }, { queryId: 'q' });
    assert.is(calls, 1, 'argument order does not matter; known calls are served from the store');
    assert.equal(again, a);
    const rep = recordedTool(tool, openToolStore(file), 'replay');
    assert.equal(await rep.run({ query: 'ozone', max_results: 2 }, { queryId: 'q' }), a);
    assert.is(calls, 1);
    const miss = await rep.run({ query: 'sea ice' }, { queryId: 'q' }).then(() => null, (e: Error) => e);
    assert.match(String(miss), /no recorded result for tool arxiv_search\(\{"query":"sea ice"\}\)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
