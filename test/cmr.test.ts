import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { isEoError, loadSnapshot } from '../lib';
import {
  buildCmrSearchUrl, cmrItemToDataset, collectCmrCollections, downloadCmrCorpus, parseRetryAfter,
  searchCmrCollections, CMR_UMM_JSON_ACCEPT, EARTHDATA_TOKEN_ENV
} from '../lib/data';

const ITEMS: unknown[] = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'cmr', 'umm-items.json'), 'utf8'));

interface SeenRequest {
  url: URL;
  headers: http.IncomingHttpHeaders;
}

interface TestServer {
  baseUrl: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number, url: URL) => void;

/** A local server on 127.0.0.1; `n` counts requests from 0. Hanging connections are destroyed on close. */
async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ url, headers: req.headers });
    handler(req, res, requests.length - 1, url);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** CMR-like paging: search-after token `sa:<offset>`; page size from the query. */
function pagingHandler(items: unknown[], o: { omitSearchAfter?: boolean; failAtOffset?: number } = {}): Handler {
  return (req, res, _n, url) => {
    if (url.pathname !== '/search/collections.umm_json') {
      res.writeHead(404).end('{"errors":["not found"]}');
      return;
    }
    const size = Number(url.searchParams.get('page_size') ?? '10');
    const sa = req.headers['cmr-search-after'];
    const offset = typeof sa === 'string' ? Number(JSON.parse(sa)[1]) : 0;
    if (o.failAtOffset !== undefined && offset >= o.failAtOffset) {
      res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"errors":["boom"]}');
      return;
    }
    const page = items.slice(offset, offset + size);
    const headers: Record<string, string> = { 'Content-Type': CMR_UMM_JSON_ACCEPT, 'CMR-Hits': String(items.length) };
    if (!o.omitSearchAfter && page.length > 0) headers['CMR-Search-After'] = JSON.stringify(['sa', offset + page.length]);
    res.writeHead(200, headers).end(JSON.stringify({ hits: items.length, took: 3, items: page }));
  };
}

async function collectAll<T>(gen: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
}

async function rejects(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  assert.unreachable('should have thrown');
  throw new Error('unreachable');
}

const FAST = { token: null, baseDelayMs: 5, timeoutMs: 5000 } as const;

test('URL building: parameters, arrays, page_size', () => {
  const u = new URL(buildCmrSearchUrl({ keyword: 'sea ice', provider: ['NSIDC_ECS', 'NSIDC_CPRD'], hasGranules: true, extra: { 'options[keyword][pattern]': true } }, { pageSize: 50 }));
  assert.is(u.origin + u.pathname, 'https://cmr.earthdata.nasa.gov/search/collections.umm_json');
  assert.is(u.searchParams.get('page_size'), '50');
  assert.is(u.searchParams.get('keyword'), 'sea ice');
  assert.equal(u.searchParams.getAll('provider[]'), ['NSIDC_ECS', 'NSIDC_CPRD']);
  assert.is(u.searchParams.get('has_granules'), 'true');
  assert.is(u.searchParams.get('options[keyword][pattern]'), 'true');
  assert.is(u.searchParams.get('page_num'), null);
});

test('UMM-C mapping to DatasetRecord', () => {
  const d = cmrItemToDataset(ITEMS[0], { index: 0 });
  assert.equal(d, {
    id: 'C1276812863-GES_DISC',
    shortName: 'M2T1NXSLV',
    longName: 'MERRA-2 tavg1_2d_slv_Nx: 2d,1-Hourly,Time-Averaged,Single-Level,Assimilation,Single-Level Diagnostics V5.12.4',
    abstract: 'M2T1NXSLV is an hourly time-averaged 2-dimensional data collection in MERRA-2.\nIt includes surface air temperature, winds and pressure.',
    doi: '10.5067/VJAFPLI1CSIV',
    daac: 'GES_DISC',
    publisher: 'NASA/GSFC/SED/ESD/GCDC/GESDISC',
    temporalStart: '1980-01-01T00:00:00.000Z',
    temporalEnd: null,
    bbox: [-180, -90, 180, 90],
    keywords: ['earth science', 'atmosphere', 'atmospheric temperature', 'surface temperature', 'air temperature', 'atmospheric winds', 'surface winds'],
    platforms: ['Models/Analyses'],
    instruments: ['NOT APPLICABLE'],
    projects: ['MERRA-2'],
    processingLevel: '4',
    landingPage: 'https://disc.gsfc.nasa.gov/datacollection/M2T1NXSLV_5.12.4.html',
    shortNameSource: 'cmr-umm-json',
    catalogRecordComplete: true,
    sources: ['cmr-umm-json'],
  });
  const mls = cmrItemToDataset(ITEMS[1], { index: 1 });
  assert.is(mls.doi, '10.5067/Aura/MLS/DATA2009');
  assert.is(mls.temporalEnd, '2021-12-31T23:59:59.999Z');
  assert.equal(mls.instruments, ['MLS', 'MLS-THz']);
  assert.equal(mls.keywords.slice(-3), ['humidity', 'mixing ratio', 'h2o']);
  assert.is(mls.publisher, 'NASA/GSFC/SED/ESD/GCDC/GESDISC');
  assert.is(mls.landingPage, 'https://doi.org/10.5067/Aura/MLS/DATA2009');
  const mur = cmrItemToDataset(ITEMS[2], { index: 2 });
  assert.is(mur.temporalStart, '2002-05-31T21:00:00.000Z');
  assert.is(mur.temporalEnd, '2020-12-31T00:00:00.000Z');
  assert.equal(mur.platforms, ['Terra', 'Aqua']);
  assert.equal(mur.instruments, ['MODIS', 'AMSR-E']);
  assert.is(mur.doi, null);
  assert.is(mur.landingPage, 'https://cmr.earthdata.nasa.gov/search/concepts/C2036882064-POCLOUD.html');
  const cddis = cmrItemToDataset(ITEMS[4], { index: 4 }, { baseUrl: 'https://cmr.uat.earthdata.nasa.gov/' });
  assert.is(cddis.doi, null);
  assert.is(cddis.landingPage, 'https://cmr.uat.earthdata.nasa.gov/search/concepts/C1000000017-CDDIS.html');
  assert.is(cddis.publisher, null);
  assert.equal(cddis.keywords, []);
});

test('UMM-C mapping errors name the item index and field', () => {
  const bad = (patch: (x: any) => void, index = 7) => {
    const item = JSON.parse(JSON.stringify(ITEMS[1]));
    patch(item);
    try {
      cmrItemToDataset(item, { index, page: 2 });
    } catch (e) {
      assert.ok(isEoError(e, 'DATA_INVALID'));
      return (e as Error).message;
    }
    assert.unreachable('should throw');
    return '';
  };
  assert.match(bad((x) => delete x.umm.EntryTitle), /^CMR item 7 \(page 2\) \[C1251101564-GES_DISC\]: field "umm\.EntryTitle" is required/);
  assert.match(bad((x) => (x.umm.Platforms = 'Aura')), /field "umm\.Platforms" must be an array/);
  assert.match(bad((x) => (x.umm.Platforms[0].Instruments[0].ShortName = 5)), /field "umm\.Platforms\[0\]\.Instruments\[0\]\.ShortName" must be a string/);
  assert.match(bad((x) => (x.meta['concept-id'] = 'G123-GES_DISC')), /field "meta\['concept-id'\]" must be a collection concept id/);
  assert.match(bad((x) => delete x.meta), /CMR item 7 \(page 2\): field "meta" is required/);
  assert.match(bad((x) => (x.umm.TemporalExtents[0].RangeDateTimes[0].BeginningDateTime = 'yesterday')), /field "umm\.TemporalExtents\[0\]\.RangeDateTimes\[0\]\.BeginningDateTime" must be an ISO 8601/);
});

test('Retry-After parsing', () => {
  assert.is(parseRetryAfter('2'), 2000);
  assert.is(parseRetryAfter('0.5'), 500);
  assert.is(parseRetryAfter(new Date(10_000 + 3000).toUTCString(), 10_000), 3000);
  assert.is(parseRetryAfter('soon'), null);
  assert.is(parseRetryAfter(null), null);
});

test('search-after paging over three pages, with headers and hits', async () => {
  const srv = await startServer(pagingHandler(ITEMS));
  try {
    const pages: number[] = [];
    const r = await collectCmrCollections(
      { keyword: 'temperature', provider: 'GES_DISC' },
      { ...FAST, baseUrl: srv.baseUrl, pageSize: 2, userAgent: 'eo-test/1', onPage: (p) => pages.push(p.items) },
    );
    assert.is(r.datasets.length, 5);
    assert.equal(
      r.datasets.map((d) => d.id),
      ITEMS.map((i: any) => i.meta['concept-id']),
    );
    assert.is(r.hits, 5);
    assert.is(r.pages, 3);
    assert.equal(pages, [2, 2, 1]);
    assert.is(srv.requests.length, 3);
    const [a, b, c] = srv.requests;
    assert.is(a.headers['cmr-search-after'], undefined);
    assert.is(b.headers['cmr-search-after'], '["sa",2]');
    assert.is(c.headers['cmr-search-after'], '["sa",4]');
    for (const q of srv.requests) {
      assert.is(q.headers.accept, CMR_UMM_JSON_ACCEPT);
      assert.is(q.headers['user-agent'], 'eo-test/1');
      assert.is(q.headers.authorization, undefined);
      assert.is(q.url.searchParams.get('page_size'), '2');
      assert.is(q.url.searchParams.get('keyword'), 'temperature');
      assert.is(q.url.searchParams.get('provider'), 'GES_DISC');
      assert.is(q.url.searchParams.get('page_num'), null);
    }
  } finally {
    await srv.close();
  }
});

test('paging stops at maxRecords, at a missing search-after header, and at an exact multiple', async () => {
  let srv = await startServer(pagingHandler(ITEMS));
  try {
    const got = await collectAll(searchCmrCollections({}, { ...FAST, baseUrl: srv.baseUrl, pageSize: 2, maxRecords: 3 }));
    assert.is(got.length, 3);
    assert.is(srv.requests.length, 2);
    // maxRecords smaller than the page size shrinks the page.
    const one = await collectAll(searchCmrCollections({}, { ...FAST, baseUrl: srv.baseUrl, pageSize: 100, maxRecords: 1 }));
    assert.is(one.length, 1);
    assert.is(srv.requests[2].url.searchParams.get('page_size'), '1');
  } finally {
    await srv.close();
  }
  srv = await startServer(pagingHandler(ITEMS, { omitSearchAfter: true }));
  try {
    const got = await collectAll(searchCmrCollections({}, { ...FAST, baseUrl: srv.baseUrl, pageSize: 2 }));
    assert.is(got.length, 2);
    assert.is(srv.requests.length, 1);
  } finally {
    await srv.close();
  }
  srv = await startServer(pagingHandler(ITEMS.slice(0, 4)));
  try {
    const got = await collectAll(searchCmrCollections({}, { ...FAST, baseUrl: srv.baseUrl, pageSize: 2 }));
    assert.is(got.length, 4);
    assert.is(srv.requests.length, 3); // the third page is empty
  } finally {
    await srv.close();
  }
});

test('429 with Retry-After is honoured, then success', async () => {
  const inner = pagingHandler(ITEMS);
  const srv = await startServer((req, res, n, url) => {
    if (n === 0) res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'application/json' }).end('{"errors":["Too many requests"]}');
    else inner(req, res, n, url);
  });
  try {
    const logs: string[] = [];
    const t0 = Date.now();
    // A long backoff: finishing in about 1 s proves that Retry-After, not the backoff, set the wait.
    const got = await collectAll(searchCmrCollections({}, { ...FAST, baseDelayMs: 20_000, baseUrl: srv.baseUrl, pageSize: 10, log: (l) => logs.push(l) }));
    const dt = Date.now() - t0;
    assert.is(got.length, 5);
    assert.is(srv.requests.length, 2);
    assert.ok(dt >= 950 && dt < 5000, `waited ${dt} ms`);
    assert.ok(logs.some((l) => /HTTP 429.*retry 1\/4 in 1000 ms/.test(l)), logs.join('\n'));
  } finally {
    await srv.close();
  }
});

test('500 then success; 400 is not retried; retries are bounded', async () => {
  const inner = pagingHandler(ITEMS);
  let srv = await startServer((req, res, n, url) => {
    if (n === 0) res.writeHead(500).end('internal error');
    else inner(req, res, n, url);
  });
  try {
    const got = await collectAll(searchCmrCollections({}, { ...FAST, baseUrl: srv.baseUrl, pageSize: 10 }));
    assert.is(got.length, 5);
    assert.is(srv.requests.length, 2);
  } finally {
    await srv.close();
  }
  srv = await startServer((_req, res) => res.writeHead(400, { 'Content-Type': 'application/json' }).end('{"errors":["Parameter [foo] was not recognized."]}'));
  try {
    const e = await rejects(collectAll(searchCmrCollections({ extra: { foo: 1 } }, { ...FAST, baseUrl: srv.baseUrl })));
    assert.ok(isEoError(e, 'HTTP'));
    assert.match(e.message, /HTTP 400.*Parameter \[foo\] was not recognized/);
    assert.is(srv.requests.length, 1);
  } finally {
    await srv.close();
  }
  srv = await startServer((_req, res) => res.writeHead(503).end('down'));
  try {
    const e = await rejects(collectAll(searchCmrCollections({}, { ...FAST, baseUrl: srv.baseUrl, retries: 2 })));
    assert.ok(isEoError(e, 'HTTP'));
    assert.match(e.message, /failed after 3 attempt\(s\): HTTP 503/);
    assert.is(srv.requests.length, 3);
    assert.is((e as any).details.status, 503);
  } finally {
    await srv.close();
  }
});

test('timeouts are retried, and reported when they persist; network errors too', async () => {
  const inner = pagingHandler(ITEMS);
  let srv = await startServer((req, res, n, url) => {
    if (n === 0) return; // never answer
    inner(req, res, n, url);
  });
  try {
    const got = await collectAll(searchCmrCollections({}, { ...FAST, baseUrl: srv.baseUrl, timeoutMs: 200, retries: 1 }));
    assert.is(got.length, 5);
    assert.is(srv.requests.length, 2);
  } finally {
    await srv.close();
  }
  srv = await startServer(() => undefined);
  try {
    const e = await rejects(collectAll(searchCmrCollections({}, { ...FAST, baseUrl: srv.baseUrl, timeoutMs: 150, retries: 1 })));
    assert.ok(isEoError(e, 'HTTP'));
    assert.match(e.message, /failed after 2 attempt\(s\): timed out after 150 ms/);
  } finally {
    await srv.close();
  }
  // A port that nothing listens on.
  const probe = await startServer(() => undefined);
  const deadUrl = probe.baseUrl;
  await probe.close();
  const e = await rejects(collectAll(searchCmrCollections({}, { ...FAST, baseUrl: deadUrl, retries: 1 })));
  assert.ok(isEoError(e, 'HTTP'));
  assert.match(e.message, /network error/);
});

test('a malformed item fails with its index and field, or is skipped on request', async () => {
  const items = JSON.parse(JSON.stringify(ITEMS));
  delete items[3].umm.EntryTitle;
  const srv = await startServer(pagingHandler(items));
  try {
    const e = await rejects(collectAll(searchCmrCollections({}, { ...FAST, baseUrl: srv.baseUrl, pageSize: 2 })));
    assert.ok(isEoError(e, 'DATA_INVALID'));
    assert.match(e.message, /^CMR item 3 \(page 2\) \[C179003030-ORNL_CLOUD\]: field "umm\.EntryTitle"/);
    const r = await collectCmrCollections({}, { ...FAST, baseUrl: srv.baseUrl, pageSize: 2, onInvalid: 'skip' });
    assert.is(r.datasets.length, 4);
    assert.is(r.skippedInvalid, 1);
  } finally {
    await srv.close();
  }
  const srv2 = await startServer((_req, res) => res.writeHead(200).end('<html>maintenance</html>'));
  try {
    const e = await rejects(collectAll(searchCmrCollections({}, { ...FAST, baseUrl: srv2.baseUrl })));
    assert.ok(isEoError(e, 'DATA_PARSE'));
    assert.match(e.message, /CMR page 1: response is not JSON/);
  } finally {
    await srv2.close();
  }
});

test('the Earthdata token is sent as a bearer header and never appears in errors or logs', async () => {
  const token = 'EDL-secret-token-0123456789';
  const saved = process.env[EARTHDATA_TOKEN_ENV];
  process.env[EARTHDATA_TOKEN_ENV] = token;
  const inner = pagingHandler(ITEMS);
  // First a 503 that echoes the header (some proxies do), then a page; a 401 for the keyword "deny".
  const srv = await startServer((req, res, n, url) => {
    if (url.searchParams.get('keyword') === 'deny') {
      res.writeHead(401, { 'Content-Type': 'application/json' }).end(JSON.stringify({ errors: [`Token [${req.headers.authorization}] is not valid`] }));
    } else if (n === 0) res.writeHead(503).end(`upstream rejected ${req.headers.authorization}`);
    else inner(req, res, n, url);
  });
  try {
    const logs: string[] = [];
    const got = await collectAll(searchCmrCollections({}, { baseDelayMs: 1, baseUrl: srv.baseUrl, log: (l) => logs.push(l) }));
    assert.is(got.length, 5);
    assert.is(srv.requests[0].headers.authorization, `Bearer ${token}`);
    assert.is(srv.requests[1].headers.authorization, `Bearer ${token}`);
    assert.ok(logs.some((l) => l.includes('upstream rejected Bearer ***')), logs.join('\n'));
    assert.not.ok(logs.join('\n').includes(token));

    const e = await rejects(collectAll(searchCmrCollections({ keyword: 'deny' }, { baseDelayMs: 1, baseUrl: srv.baseUrl })));
    assert.ok(isEoError(e, 'HTTP'));
    assert.match(e.message, /HTTP 401/);
    for (const text of [e.message, String(e.stack), JSON.stringify((e as any).details)]) assert.not.ok(text.includes(token), text);

    // Exhausted retries on echoing 503s.
    const srv503 = await startServer((req, res) => res.writeHead(503).end(`bad ${req.headers.authorization}`));
    try {
      const e2 = await rejects(collectAll(searchCmrCollections({}, { baseDelayMs: 1, retries: 1, baseUrl: srv503.baseUrl })));
      for (const text of [e2.message, String(e2.stack), JSON.stringify((e2 as any).details)]) assert.not.ok(text.includes(token), text);
    } finally {
      await srv503.close();
    }

    // token: null sends nothing even with the variable set; an explicit token wins over the variable.
    const n0 = srv.requests.length;
    await collectAll(searchCmrCollections({}, { baseDelayMs: 1, baseUrl: srv.baseUrl, token: null }));
    assert.is(srv.requests[n0].headers.authorization, undefined);
    await collectAll(searchCmrCollections({}, { baseDelayMs: 1, baseUrl: srv.baseUrl, token: 'other' }));
    assert.is(srv.requests[srv.requests.length - 1].headers.authorization, 'Bearer other');
  } finally {
    if (saved === undefined) delete process.env[EARTHDATA_TOKEN_ENV];
    else process.env[EARTHDATA_TOKEN_ENV] = saved;
    await srv.close();
  }
});

test('invalid options are rejected', async () => {
  for (const opts of [{ pageSize: 0 }, { pageSize: 2001 }, { retries: -1 }, { maxRecords: 1.5 }]) {
    const e = await rejects(collectAll(searchCmrCollections({}, { token: null, ...opts })));
    assert.ok(isEoError(e, 'INVALID_ARGUMENT'), e.message);
  }
});

test('downloadCmrCorpus: append-only, survives an interruption, resumes without duplicates, loads as a snapshot', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-cmr-'));
  const file = path.join(dir, 'datasets.jsonl');
  // Run 1: page 2 keeps failing -> the first page stays on disk.
  let srv = await startServer(pagingHandler(ITEMS, { failAtOffset: 2 }));
  try {
    const e = await rejects(downloadCmrCorpus({ provider: 'X' }, dir, { ...FAST, baseUrl: srv.baseUrl, pageSize: 2, retries: 0 }));
    assert.ok(isEoError(e, 'HTTP'));
  } finally {
    await srv.close();
  }
  assert.is(fs.readFileSync(file, 'utf8').trim().split('\n').length, 2);
  assert.ok(fs.existsSync(path.join(dir, 'publications.jsonl')));
  assert.ok(fs.existsSync(path.join(dir, 'links.jsonl')));
  // Simulate a crash in the middle of a write.
  fs.appendFileSync(file, '{"id":"C179003030-ORNL_CLOUD","longN');

  // Run 2: resumes.
  srv = await startServer(pagingHandler(ITEMS));
  try {
    const r = await downloadCmrCorpus({ provider: 'X' }, file, { ...FAST, baseUrl: srv.baseUrl, pageSize: 2 });
    assert.is(r.written, 3);
    assert.is(r.skippedExisting, 2);
    assert.is(r.total, 5);
    assert.is(r.hits, 5);
    assert.is(r.pages, 3);
    assert.ok(r.repairedBytes > 0);
    assert.is(r.dir, dir);
    const r2 = await downloadCmrCorpus({ provider: 'X' }, dir, { ...FAST, baseUrl: srv.baseUrl, pageSize: 2 });
    assert.is(r2.written, 0);
    assert.is(r2.skippedExisting, 5);
    assert.is(r2.total, 5);
  } finally {
    await srv.close();
  }
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
  assert.is(lines.length, 5);
  assert.is(new Set(lines.map((l) => JSON.parse(l).id)).size, 5);
  const c = loadSnapshot({ dir });
  assert.is(c.datasets.length, 5);
  assert.is(c.publications.length, 0);
  assert.is(c.datasets[0].shortNameSource, 'cmr-umm-json');

  // A malformed item: the records before it, on its page too, are kept; the error names it.
  const dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-cmr-'));
  const items = JSON.parse(JSON.stringify(ITEMS));
  items[3].umm.Platforms = 'Terra';
  srv = await startServer(pagingHandler(items));
  try {
    const e = await rejects(downloadCmrCorpus({}, dir2, { ...FAST, baseUrl: srv.baseUrl, pageSize: 2 }));
    assert.match(e.message, /^CMR item 3 \(page 2\) \[C179003030-ORNL_CLOUD\]: field "umm\.Platforms" must be an array/);
    assert.is(fs.readFileSync(path.join(dir2, 'datasets.jsonl'), 'utf8').trim().split('\n').length, 3);
    const r = await downloadCmrCorpus({}, dir2, { ...FAST, baseUrl: srv.baseUrl, pageSize: 2, onInvalid: 'skip' });
    assert.equal([r.written, r.skippedExisting, r.skippedInvalid, r.total], [1, 3, 1, 4]);
  } finally {
    await srv.close();
  }
  await rejects(downloadCmrCorpus({}, path.join(dir2, 'datasets.jsonl.gz'), { ...FAST }));

  // A corrupt existing line is reported, not silently overwritten.
  fs.writeFileSync(file, '{"id":"C1-X","longName":"ok"}\n{"id":"C2-X","keywords":"nope","longName":"x"}\n');
  const e = await rejects(downloadCmrCorpus({}, dir, { ...FAST, baseUrl: 'http://127.0.0.1:9' }));
  assert.match(e.message, /datasets\.jsonl:2: field "keywords"/);
});

test.run();
