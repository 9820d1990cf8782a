import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { loadGazetteer } from '../router/gazetteer';
import { loadIntentMatcher, retrievalStripCues } from '../router/parse';
import { routeQuery } from '../router/route';
import { loadVariableIndex } from '../router/variables';
import { canonicalFilters, canonicalIgnore } from '../search/filters';
import { identifierVocabulary } from '../search/identifiers';
import { loadRepairVocabulary } from '../search/repair-vocabulary';
import { search } from '../search/search';
import type { SearchEngine, SearchResponse } from '../search/types';
import { createLru } from '../util/lru';
import { createAdmission } from './admission';
import { PAGE_CSS, PAGE_JS, renderDatasetPage, renderErrorPage, renderSearchPage } from './page';
import type { SearchServerOptions } from './types';
import { BINARY_REQUEST, checkFilters, checkPaging, checkQuery, isUtf8RequestTarget, normaliseSearchParameters, MAX_QUERY_CHARS, type QueryProblem, type ServiceErrorCode } from './validate';

const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function wantsHtml(req: FastifyRequest): boolean {
  return !(req.raw.url ?? req.url).startsWith('/api/');
}

/** Headers of every answer, errors included (set here as well as in onSend: Fastify's URL errors skip the hooks). */
function securityHeaders(reply: FastifyReply, html: boolean): void {
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  if (html) reply.header('content-security-policy', CSP);
}

/** Every refusal: `{ error: { code, message } }` on /api/, the HTML error page elsewhere, with the security headers. */
function sendProblem(req: FastifyRequest, reply: FastifyReply, p: QueryProblem) {
  reply.code(p.status);
  const html = wantsHtml(req);
  securityHeaders(reply, html);
  return reply.type(`${html ? 'text/html' : 'application/json'}; charset=utf-8`).send(problemBody(p, html));
}

/** A refusal's body: the HTML error page, or `{"error": {"code", "message"}}`. */
function problemBody(p: QueryProblem, html: boolean): string {
  return html ? renderErrorPage(p.status, p.message) : JSON.stringify({ error: { code: p.code, message: p.message } });
}

/**
 * Fastify's own errors (body parsing, content types, sizes) as the service's codes; messages are ours, so that nothing
 * of the request (the decoded path, the body) is echoed.
 */
const FRAMEWORK_PROBLEMS: Readonly<Record<number, { code: ServiceErrorCode; message: string }>> = {
  400: { code: 'BAD_REQUEST', message: 'bad request' },
  405: { code: 'METHOD_NOT_ALLOWED', message: 'method not allowed: the service answers GET' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'the request body is too large' },
  414: { code: 'URI_TOO_LONG', message: 'the path is too long' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'unsupported content type' },
};

/**
 * Node's own refusals, before Fastify sees a request (`clientError`: a header over the limit, a stalled header, a
 * request line that is not HTTP, bytes that are not text in the path), answered in the service's shape and headers:
 * `{ error: { code, message } }` for /api/, the HTML error page elsewhere (the path read from the raw request line,
 * when there is one), `nosniff`, `no-referrer` (and the CSP on pages), then the connection is closed.
 */
export function clientErrorAnswer(err: { code?: string; rawPacket?: Buffer }): string {
  const requestLine = (err.rawPacket ?? Buffer.alloc(0)).subarray(0, 2048).toString('latin1').split('\r\n')[0];
  const target = /^[A-Z]+ (\S+)/.exec(requestLine)?.[1] ?? '';
  const html = !target.startsWith('/api/');
  const p: QueryProblem = err.code === 'HPE_HEADER_OVERFLOW' ? { status: 431, code: 'HEADERS_TOO_LARGE', message: 'the request headers are too large' }
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? { status: 408, code: 'REQUEST_TIMEOUT', message: 'the request did not arrive in time' }
    : /[^\x20-\x7e]/.test(target) ? BINARY_REQUEST
    : { status: 400, ...FRAMEWORK_PROBLEMS[400] };
  const body = problemBody(p, html);
  const headers = [
    `HTTP/1.1 ${p.status} ${STATUS_CODES[p.status]}`, `content-type: ${html ? 'text/html' : 'application/json'}; charset=utf-8`,
    `content-length: ${Buffer.byteLength(body)}`, 'x-content-type-options: nosniff', 'referrer-policy: no-referrer',
    ...(html ? [`content-security-policy: ${CSP}`] : []), 'connection: close',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

function clientErrorHandler(err: Error & { code: string }, socket: Socket): void {
  // a reset connection has nobody to answer
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const raw = (err as { rawPacket?: unknown }).rawPacket; // Node's Buffer (Fastify's types say otherwise)
    socket.end(clientErrorAnswer({ code: err.code, rawPacket: Buffer.isBuffer(raw) ? raw : undefined }));
  } else socket.destroy(err);
}

/** GET routes by path shape, to answer 405 (not 404) to another method on them. */
const GET_PATHS = /^\/(?:|api\/search|healthz|static\/app\.(?:css|js)|(?:api\/)?dataset\/[^/]+)$/;

const ms = (x: number) => Math.round(x * 100) / 100;

/**
 * `Server-Timing` of one answer (one entry per stage, ms; W3C Server Timing, shown by browsers' dev tools and read by
 * bench/serve-load.cjs): `admission` (waiting for a search slot), `parse`, `repair`, `route`, `bm25`, the semantic scorer's
 * stages (`queue`, `embed`, `prfSeeds`, `cosine` / `nnssc` / `firstStage`; `semantic` when it reports none), `fuse`,
 * `constraints`, `explain`, `search` (all of the search), then `json` (or `html`): rendering the answer. `batch`
 * carries the micro-batch size in `desc`. A cached answer has only `cache;desc=hit` and the rendering.
 */
function serverTiming(res: SearchResponse | null, admitMs: number, render: 'json' | 'html', renderMs: number): string {
  const parts: string[] = [];
  if (!res) parts.push('cache;desc=hit');
  else {
    const t = res.timings;
    const st = t.semanticStages ?? {};
    parts.push(`admission;dur=${ms(admitMs)}`, `parse;dur=${ms(t.parseMs)}`, `repair;dur=${ms(t.repairMs)}`, `route;dur=${ms(t.routeMs)}`, `bm25;dur=${ms(t.lexicalMs)}`);
    const named = Object.entries(st).filter(([k]) => k !== 'batch');
    if (named.length) for (const [k, v] of named) parts.push(`${k};dur=${ms(v)}`);
    else parts.push(`semantic;dur=${ms(t.semanticMs)}`);
    if (st.batch !== undefined) parts.push(`batch;desc=${st.batch}`);
    parts.push(`fuse;dur=${ms(t.fuseMs)}`, `constraints;dur=${ms(t.constraintsMs)}`, `explain;dur=${ms(t.explainMs)}`, `search;dur=${ms(t.totalMs)}`);
  }
  parts.push(`${render};dur=${ms(renderMs)}`);
  return parts.join(', ');
}

/**
 * The search service: Fastify app with
 *   GET /                  search page (server-rendered; `?q=…&k=…` shows router actions and ranked datasets)
 *   GET /api/search?q=&k=  JSON: router decisions/actions, ranked datasets with per-stage scores, timings (facet counts
 *                          with `include_facets=true`, as CMR's collection search);
 *                          CMR-like filters `provider`, `platform`, `instrument`, `processing_level_id`, `temporal`,
 *                          `bounding_box` and `ignore` (lib/search/filters.ts; bad values 400 `BAD_FILTER`)
 *                          (`repair=0` searches the query as typed; default 1: misspellings mended, see search/repair.ts)
 *   GET /dataset/:id       one dataset's record (HTML); GET /api/dataset/:id (JSON)
 *   GET /healthz           liveness and what is loaded
 * Bad queries get a 400 with a clear message that never echoes the query; a per-client rate limit answers 429;
 * unexpected errors answer 500 without details (logged server-side).
 * Under load: answers are kept in an LRU keyed by (normalised query, k, router, day, filters, ignored constraints)
 * and served without searching (header `x-eo-cache: hit`); at most `maxConcurrentSearches` searches run and
 * `maxQueuedSearches` wait, beyond that (or after `queueTimeoutMs` in the queue) the answer is 503 with
 * `Retry-After: 1`, so no request hangs.
 */
export async function createSearchServer(engine: SearchEngine, opts: SearchServerOptions = {}): Promise<FastifyInstance> {
  warmUpQueryPath(engine);
  const app = Fastify({
    logger: opts.logger ?? false, routerOptions: { maxParamLength: 200 }, bodyLimit: 4096, clientErrorHandler,
    // a path that is not a URL, or a parameter over maxParamLength: our shape, never the decoded path
    frameworkErrors: (err, req, reply) => {
      if (!isUtf8RequestTarget(req.raw.url ?? '')) return sendProblem(req, reply, BINARY_REQUEST);
      if ((err as { code?: string }).code === 'FST_ERR_MAX_PARAM_LENGTH') return sendProblem(req, reply, { status: 414, ...FRAMEWORK_PROBLEMS[414] });
      return sendProblem(req, reply, { status: 400, code: 'BAD_URL', message: 'the path is not a valid URL' });
    },
  });
  // bytes that are not UTF-8 anywhere in the request target: refused before any route reads a parameter
  app.addHook('onRequest', async (req, reply) => {
    if (!isUtf8RequestTarget(req.raw.url ?? '')) return sendProblem(req, reply, BINARY_REQUEST);
  });

  await app.register(rateLimit, {
    max: opts.rateLimitMax ?? 300,
    timeWindow: opts.rateLimitWindowMs ?? 60_000,
    errorResponseBuilder: (_req, ctx) => ({ statusCode: 429, error: { code: 'RATE_LIMITED', message: `too many requests: at most ${ctx.max} per ${Math.round(ctx.ttl / 1000)} s per client; retry later` } }),
  });

  installProblemHandlers(app);
  const run = searchRoute(engine, opts);
  app.get('/api/search', (req, reply) => run(req, reply, false));
  app.get('/', (req, reply) => {
    const q = (req.query as Record<string, unknown>).q;
    if (q === undefined) return reply.type('text/html; charset=utf-8').send(renderSearchPage(null));
    return run(req, reply, true);
  });
  const dataset = (req: FastifyRequest) => {
    const id = (req.params as { id: string }).id;
    const i = engine.corpus.indexById.get(id);
    return i === undefined ? null : engine.corpus.datasets[i];
  };
  app.get('/dataset/:id', (req, reply) => {
    const d = dataset(req);
    if (!d) return sendProblem(req, reply, { status: 404, code: 'NOT_FOUND', message: 'no dataset with that id' });
    return reply.type('text/html; charset=utf-8').send(renderDatasetPage(d));
  });
  app.get('/api/dataset/:id', (req, reply) => {
    const d = dataset(req);
    if (!d) return reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'no dataset with that id' } });
    return reply.send(d);
  });
  app.get('/static/app.css', (_req, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'max-age=3600').send(PAGE_CSS));
  app.get('/static/app.js', (_req, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'max-age=3600').send(PAGE_JS));
  app.get('/healthz', () => ({ ok: true, datasets: engine.corpus.datasets.length, retrieval: engine.label, alphaSource: engine.fusion.source }));
  return app;
}

/** Load the router's gazetteer, variable vocabulary and intent cues now, not on the first request. */
function warmUpQueryPath(engine: SearchEngine): void {
  loadGazetteer();
  if (!engine.variables) loadVariableIndex();
  loadIntentMatcher();
  retrievalStripCues();
  loadRepairVocabulary(engine.corpus); // query repair's vocabulary (tokens, deletes index) is built once, here
  identifierVocabulary(engine.corpus); // so is the named-identifier rule's (not on the first request)
  routeQuery('warm-up: show me rainfall over Kenya in July 2019', { resolveShortName: engine.resolveShortName, variables: engine.variables }); // compiles chrono-node's and our patterns
}

/** Security headers on every answer; errors, unknown paths and wrong methods answered in the service's problem shape. */
function installProblemHandlers(app: FastifyInstance): void {
  app.addHook('onSend', async (_req, reply, payload) => {
    securityHeaders(reply, String(reply.getHeader('content-type') ?? '').startsWith('text/html'));
    return payload;
  });

  app.setErrorHandler((err: Error & { statusCode?: number; error?: unknown }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 429) {
      reply.code(429);
      const body = (err as { error?: { message?: string } }).error;
      const msg = body?.message ?? 'too many requests; retry later';
      return sendProblem(req, reply, { status: 429, code: 'RATE_LIMITED', message: msg });
    }
    if (status === 500) {
      req.log.error(err);
      return sendProblem(req, reply, { status, code: 'INTERNAL', message: 'internal error; the request was logged' });
    }
    return sendProblem(req, reply, { status, ...(FRAMEWORK_PROBLEMS[status] ?? { code: 'BAD_REQUEST', message: 'bad request' }) });
  });

  app.setNotFoundHandler((req, reply) => {
    const path = (req.raw.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD' && GET_PATHS.test(path)) {
      reply.header('allow', 'GET, HEAD');
      return sendProblem(req, reply, { status: 405, ...FRAMEWORK_PROBLEMS[405] });
    }
    return sendProblem(req, reply, wantsHtml(req) ? { status: 404, code: 'NOT_FOUND', message: 'no such page' } : { status: 404, code: 'NOT_FOUND', message: 'no such endpoint' });
  });
}

/**
 * The search answer of `/api/search` (JSON) and `/?q=` (the page): parameters checked, the LRU of answers, the
 * admission queue, the search and its server-timing header.
 */
function searchRoute(engine: SearchEngine, opts: SearchServerOptions): (req: FastifyRequest, reply: FastifyReply, html: boolean) => Promise<unknown> {
  const maxChars = opts.maxQueryChars ?? MAX_QUERY_CHARS;
  const maxK = opts.maxK ?? 50;
  // answers kept as their JSON text: a third of the memory of the object graph, and a hit skips serialising
  const results = createLru<string, string>(opts.resultCacheEntries ?? 1000);
  const admission = createAdmission({ maxConcurrent: opts.maxConcurrentSearches, maxQueued: opts.maxQueuedSearches, queueTimeoutMs: opts.queueTimeoutMs });
  const maxDepth = opts.maxResultDepth ?? 200;
  return async (req: FastifyRequest, reply: FastifyReply, html: boolean) => {
    // CMR's forms (`provider[]`, `options[…]`) taken, anything else refused by name as CMR refuses it
    const np = normaliseSearchParameters(req.query as Record<string, unknown>);
    if ('problem' in np) return sendProblem(req, reply, np.problem);
    const q = np.params;
    const cq = checkQuery(q.q, maxChars);
    if ('problem' in cq) return sendProblem(req, reply, cq.problem);
    const pg = checkPaging(q, 10, maxK, maxDepth);
    if ('problem' in pg) return sendProblem(req, reply, pg.problem);
    const depth = pg.offset + pg.size; // ranked to the end of the page, then the page is cut out
    const cf = checkFilters(q, engine.corpus);
    if ('problem' in cf) return sendProblem(req, reply, cf.problem);
    if (q.repair !== undefined && q.repair !== '0' && q.repair !== '1')
      return sendProblem(req, reply, { status: 400, code: 'BAD_PARAMETER', message: 'repair must be 0 (search the query as typed) or 1 (mend misspellings; the default)' });
    const repair = q.repair !== '0';
    // facet counts as CMR gives them: the page always shows them, the JSON API when asked (`include_facets=true`)
    if (q.include_facets !== undefined && q.include_facets !== 'true' && q.include_facets !== 'false')
      return sendProblem(req, reply, { status: 400, code: 'BAD_PARAMETER', message: 'include_facets must be true or false' });
    const facets = html || q.include_facets === 'true';
    // whitespace runs do not change a query's meaning: one cache entry (and one answer) for all spellings
    const query = cq.query.normalize('NFC').trim().replace(/\s+/g, ' ');
    const now = opts.now?.() ?? new Date();
    const key = JSON.stringify([query, depth, pg.offset, opts.llmRouter ? 'llm' : 'rules', now.toISOString().slice(0, 10), canonicalFilters(cf.filters), canonicalIgnore(cf.ignore), repair, facets]);
    let json = results.get(key);
    let res: SearchResponse | null = null;
    let admitMs = 0;
    if (json !== undefined) reply.header('x-eo-cache', 'hit');
    else {
      const ta = performance.now();
      const slot = await admission.acquire();
      admitMs = performance.now() - ta;
      if ('refused' in slot) {
        reply.header('retry-after', '1');
        return sendProblem(req, reply, { status: 503, code: 'OVERLOADED', message: `the service is busy (${slot.refused === 'queue-full' ? 'queue full' : 'waited too long in the queue'}); retry in a second` });
      }
      try {
        res = await search(engine, query, {
          k: depth, routerCandidates: opts.routerCandidates, now, router: opts.llmRouter ?? 'rules', log: (e) => req.log.error(e), repair,
          filters: cf.filters, ignore: cf.ignore, facets,
        });
      } finally {
        slot.release();
      }
      // a later page: its results keep their ranks in the whole ranking
      if (pg.offset > 0) res = { ...res, k: pg.size, page: { size: pg.size, offset: pg.offset }, results: res.results.slice(pg.offset) };
      reply.header('x-eo-cache', 'miss');
    }
    const tr = performance.now();
    if (res) {
      json = JSON.stringify(res);
      results.set(key, json);
    }
    const body = html ? renderSearchPage(res ?? (JSON.parse(json!) as SearchResponse)) : json!;
    reply.header('server-timing', serverTiming(res, admitMs, html ? 'html' : 'json', performance.now() - tr));
    return html ? reply.type('text/html; charset=utf-8').send(body) : reply.type('application/json; charset=utf-8').send(body);
  };
}
