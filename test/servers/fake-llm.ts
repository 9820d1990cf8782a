/**
 * Local test servers that speak the provider wire formats closely enough for the real SDKs (via their base-URL
 * option), plus an arXiv-like Atom endpoint. Used by test/llm.test.ts, test/judge.test.ts and the rerank/agent
 * tests. All listen on 127.0.0.1:0 and are closed with `close()` (hanging connections are destroyed).
 *
 *   const srv = await startFakeOpenAI([{ text: 'hello' }]);
 *   new OpenAI({ baseURL: srv.url, apiKey: 'x' })          // srv.url ends with /v1
 *   const a = await startFakeAnthropic((req) => ({ toolCalls: [{ name: 'arxiv_search', arguments: { query: 'x' } }] }));
 *   new Anthropic({ baseURL: a.url, apiKey: 'x' })         // a.url is the origin
 *
 * A script is either a list of replies (reply n answers request n; past the end, the last reply repeats) or a
 * function `(req, n) => reply`. Every request the server received is in `requests` (method, path, headers, parsed
 * body), including retried ones, so a test can count API calls.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A tool call in a scripted reply. `arguments` may be a string (sent verbatim: malformed JSON for OpenAI). */
export interface FakeToolCall {
  /** Default: `call_<n>_<i>` (OpenAI) / `toolu_<n>_<i>` (Anthropic). */
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

/** A normal answer. */
export interface FakeAnswer {
  /** Text content. Default '' (no text block for Anthropic when there are tool calls). */
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Default: `tool_calls`/`tool_use` when there are tool calls, else `stop`/`end_turn`. */
  stopReason?: string;
  /** Model id reported. Default: the requested model. */
  model?: string;
  /** Default: input ≈ request JSON length / 4, output ≈ text length / 4 (at least 1 each). */
  usage?: { inputTokens: number; outputTokens: number };
  /** Wait this long before answering (for client timeouts). Default 0. */
  delayMs?: number;
  /** Extra fields merged into the OpenAI `message` (e.g. `reasoning_content`). */
  extraMessageFields?: Record<string, unknown>;
}

/** An HTTP error in the provider's error format. */
export interface FakeError {
  status: number;
  /** Error message. Default `scripted <status>`. */
  message?: string;
  /** Extra headers, e.g. `{ 'retry-after-ms': '1' }` for a fast 429 retry. */
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A raw body (e.g. a non-JSON 200 response). */
export interface FakeRaw {
  raw: string;
  status?: number;
  contentType?: string;
  delayMs?: number;
}

/** Never answer (the client's timeout must fire). */
export interface FakeHang {
  hang: true;
}

export type FakeReply = FakeAnswer | FakeError | FakeRaw | FakeHang;

export interface FakeRequest {
  /** 0-based request number on this server. */
  n: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (undefined when absent or not JSON). */
  body: any;
}

export type FakeScript = FakeReply[] | ((req: FakeRequest, n: number) => FakeReply | Promise<FakeReply>);

export interface FakeServer {
  /** Base URL to hand to the SDK / ModelConfig.baseUrl (OpenAI: `http://127.0.0.1:PORT/v1`; Anthropic and arXiv: the origin). */
  url: string;
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** Every request received, in order. */
  requests: FakeRequest[];
  close(): Promise<void>;
}

/** Ready-made replies. */
export const fakeReplies = {
  /** 429 with `retry-after-ms: 1` (the SDKs retry after 1 ms). */
  rateLimited: (): FakeError => ({ status: 429, message: 'Rate limit reached (scripted)', headers: { 'retry-after-ms': '1' } }),
  /** 500 with `retry-after-ms: 1`. */
  serverError: (): FakeError => ({ status: 500, message: 'internal error (scripted)', headers: { 'retry-after-ms': '1' } }),
  /** A slow answer. */
  slow: (delayMs: number, text = 'slow answer'): FakeAnswer => ({ text, delayMs }),
};

function isError(r: FakeReply): r is FakeError {
  return typeof (r as FakeError).status === 'number' && (r as FakeRaw).raw === undefined;
}

function pick(script: FakeScript, req: FakeRequest): FakeReply | Promise<FakeReply> {
  if (typeof script === 'function') return script(req, req.n);
  if (script.length === 0) return { status: 500, message: 'empty fake script' };
  return script[Math.min(req.n, script.length - 1)];
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

type Route = (req: FakeRequest, res: http.ServerResponse) => Promise<void>;

/**
 * A local HTTP server on 127.0.0.1:0 whose handler gets the whole request body; `close()` destroys open
 * connections. A handler that throws answers 500 with an OpenAI-style error body.
 */
export async function startHttpServer(handler: (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => Promise<void>): Promise<{ origin: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handler(req, Buffer.concat(chunks), res).catch((e) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake server error: ${(e as Error).message}` } }));
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function listen(route: Route, urlSuffix: string): Promise<FakeServer> {
  const requests: FakeRequest[] = [];
  const srv = await startHttpServer(async (req, raw, res) => {
    const text = raw.toString('utf8');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const fr: FakeRequest = { n: requests.length, method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, body };
    requests.push(fr);
    await route(fr, res);
  });
  return { url: srv.origin + urlSuffix, origin: srv.origin, requests, close: srv.close };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Rough token count used when a reply does not script usage. */
function roughTokens(s: string): number {
  return Math.max(1, Math.ceil(s.length / 4));
}

/** Text of the last user message of an OpenAI or Anthropic request body (string or text blocks), '' if none. */
export function lastUserText(body: any): string {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      const t = m.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('\n');
      if (t !== '') return t;
    }
  }
  return '';
}

/** Whether the request contains tool results (OpenAI `tool` messages or Anthropic `tool_result` blocks). */
export function hasToolResults(body: any): boolean {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  return msgs.some((m) => m.role === 'tool' || (Array.isArray(m.content) && m.content.some((b: any) => b.type === 'tool_result')));
}

async function replyCommon(reply: FakeReply, res: http.ServerResponse, errorBody: (status: number, message: string) => unknown): Promise<FakeAnswer | null> {
  if ((reply as FakeHang).hang) return null; // leave the request open; close() destroys the socket
  const delay = (reply as { delayMs?: number }).delayMs ?? 0;
  if (delay > 0) await sleep(delay);
  if ((reply as FakeRaw).raw !== undefined) {
    const r = reply as FakeRaw;
    if (!res.destroyed) {
      res.writeHead(r.status ?? 200, { 'content-type': r.contentType ?? 'application/json' });
      res.end(r.raw);
    }
    return null;
  }
  if (isError(reply)) {
    sendJson(res, reply.status, errorBody(reply.status, reply.message ?? `scripted ${reply.status}`), reply.headers);
    return null;
  }
  return reply as FakeAnswer;
}

/**
 * OpenAI chat-completions server: `POST /v1/chat/completions` (non-streaming). Answers follow the wire format the
 * `openai` SDK parses: `{id, object: 'chat.completion', created, model, choices: [{index, message: {role,
 * content, tool_calls?}, finish_reason}], usage: {prompt_tokens, completion_tokens, total_tokens}}`; errors as
 * `{error: {message, type, param, code}}`. `GET /v1/models` lists one model.
 */
export async function startFakeOpenAI(script: FakeScript): Promise<FakeServer> {
  return listen(async (req, res) => {
    if (req.method === 'GET' && req.path.startsWith('/v1/models')) {
      sendJson(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }] });
      return;
    }
    if (req.method !== 'POST' || !req.path.startsWith('/v1/chat/completions')) {
      sendJson(res, 404, { error: { message: `unknown route ${req.method} ${req.path}`, type: 'invalid_request_error', param: null, code: null } });
      return;
    }
    if (req.body?.stream) {
      sendJson(res, 400, { error: { message: 'fake server: streaming not supported', type: 'invalid_request_error', param: 'stream', code: null } });
      return;
    }
    const reply = await pick(script, req);
    const answer = await replyCommon(reply, res, (status, message) => ({
      error: { message, type: status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null },
    }));
    if (!answer) return;
    const calls = answer.toolCalls ?? [];
    const text = answer.text ?? '';
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: text === '' && calls.length > 0 ? null : text,
      refusal: null,
      ...(answer.extraMessageFields ?? {}),
    };
    if (calls.length > 0) {
      message.tool_calls = calls.map((c, i) => ({
        id: c.id ?? `call_${req.n}_${i}`,
        type: 'function',
        function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
      }));
    }
    const usage = answer.usage ?? { inputTokens: roughTokens(JSON.stringify(req.body?.messages ?? '')), outputTokens: roughTokens(text + JSON.stringify(calls)) };
    sendJson(res, 200, {
      id: `chatcmpl-fake-${req.n}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: answer.model ?? req.body?.model ?? 'fake-model',
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, message, logprobs: null, finish_reason: answer.stopReason ?? (calls.length > 0 ? 'tool_calls' : 'stop') }],
      usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens },
    }, { 'x-request-id': `req_fake_${req.n}` });
  }, '/v1');
}

/**
 * Anthropic messages server: `POST /v1/messages` (non-streaming). Answers follow the wire format the
 * `@anthropic-ai/sdk` parses: `{id, type: 'message', role: 'assistant', model, content: [{type: 'text', text} |
 * {type: 'tool_use', id, name, input}], stop_reason, stop_sequence, usage: {input_tokens, output_tokens}}`;
 * errors as `{type: 'error', error: {type, message}}`. A request without `max_tokens` is answered 400, as the API does.
 */
export async function startFakeAnthropic(script: FakeScript): Promise<FakeServer> {
  const errorType = (status: number) =>
    status === 429 ? 'rate_limit_error' : status === 401 ? 'authentication_error' : status === 529 ? 'overloaded_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return listen(async (req, res) => {
    if (req.method !== 'POST' || !req.path.startsWith('/v1/messages')) {
      sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `unknown route ${req.method} ${req.path}` } });
      return;
    }
    if (typeof req.body?.max_tokens !== 'number') {
      sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
      return;
    }
    if (req.body?.stream) {
      sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'fake server: streaming not supported' } });
      return;
    }
    const reply = await pick(script, req);
    const answer = await replyCommon(reply, res, (status, message) => ({ type: 'error', error: { type: errorType(status), message } }));
    if (!answer) return;
    const calls = answer.toolCalls ?? [];
    const text = answer.text ?? '';
    const content: unknown[] = [];
    if (text !== '' || calls.length === 0) content.push({ type: 'text', text, citations: null });
    calls.forEach((c, i) => {
      let input: unknown = c.arguments;
      if (typeof input === 'string') {
        try {
          input = JSON.parse(input);
        } catch {
          input = { _unparsed: input };
        }
      }
      content.push({ type: 'tool_use', id: c.id ?? `toolu_${req.n}_${i}`, name: c.name, input });
    });
    const usage = answer.usage ?? { inputTokens: roughTokens(JSON.stringify(req.body?.messages ?? '') + String(req.body?.system ?? '')), outputTokens: roughTokens(text + JSON.stringify(calls)) };
    sendJson(res, 200, {
      id: `msg_fake_${req.n}`,
      type: 'message',
      role: 'assistant',
      model: answer.model ?? req.body?.model ?? 'fake-claude',
      content,
      stop_reason: answer.stopReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
      usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard' },
    }, { 'request-id': `req_fake_${req.n}` });
  }, '');
}

// ---------------------------------------------------------------------------------------------------------------
// arXiv

/** One paper served by the fake arXiv API. */
export interface FakeArxivEntry {
  /** arXiv id with version, e.g. `2607.02387v1`. */
  id: string;
  title: string;
  summary: string;
  /** Author names. Default: one author "A. Author". */
  authors?: string[];
  /** ISO 8601. Default `2024-01-01T00:00:00Z`. */
  published?: string;
  updated?: string;
  /** Category terms, first is primary. Default ['physics.ao-ph']. */
  categories?: string[];
  doi?: string;
  journalRef?: string;
  comment?: string;
}

export interface FakeArxivOptions {
  /** Answer the first N requests with HTTP 503 (`retry-after: 0`), as arXiv does when overloaded. Default 0. */
  failFirst?: number;
  /** Delay before each answer, ms. Default 0. */
  delayMs?: number;
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const QUERY_FIELDS = /^(all|ti|abs|au|co|jr|cat|rn|id):/i;

/** Terms of an arXiv `search_query` (field prefixes, quotes, parentheses and AND/OR/ANDNOT removed), lower-cased. */
export function arxivQueryTerms(q: string): string[] {
  return q
    .replace(/[()"]/g, ' ')
    .split(/\s+/)
    .filter((t) => t !== '' && !/^(AND|OR|ANDNOT)$/.test(t))
    .map((t) => t.replace(QUERY_FIELDS, '').toLowerCase().replace(/[^a-z0-9.\-]/g, ''))
    .filter((t) => t !== '');
}

function entryXml(e: FakeArxivEntry, origin: string): string {
  const abs = `http://arxiv.org/abs/${e.id}`;
  const cats = e.categories ?? ['physics.ao-ph'];
  const published = e.published ?? '2024-01-01T00:00:00Z';
  const lines = [
    '  <entry>',
    `    <id>${xmlEscape(abs)}</id>`,
    `    <updated>${xmlEscape(e.updated ?? published)}</updated>`,
    `    <published>${xmlEscape(published)}</published>`,
    `    <title>${xmlEscape(e.title)}</title>`,
    `    <summary>${xmlEscape(e.summary)}</summary>`,
    ...(e.authors ?? ['A. Author']).map((a) => `    <author>\n      <name>${xmlEscape(a)}</name>\n    </author>`),
  ];
  if (e.doi) lines.push(`    <arxiv:doi xmlns:arxiv="http://arxiv.org/schemas/atom">${xmlEscape(e.doi)}</arxiv:doi>`);
  if (e.doi) lines.push(`    <link title="doi" href="https://doi.org/${xmlEscape(e.doi)}" rel="related"/>`);
  if (e.comment) lines.push(`    <arxiv:comment xmlns:arxiv="http://arxiv.org/schemas/atom">${xmlEscape(e.comment)}</arxiv:comment>`);
  if (e.journalRef) lines.push(`    <arxiv:journal_ref xmlns:arxiv="http://arxiv.org/schemas/atom">${xmlEscape(e.journalRef)}</arxiv:journal_ref>`);
  lines.push(`    <link href="${xmlEscape(abs)}" rel="alternate" type="text/html"/>`);
  lines.push(`    <link title="pdf" href="${xmlEscape(`http://arxiv.org/pdf/${e.id}`)}" rel="related" type="application/pdf"/>`);
  lines.push(`    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="${xmlEscape(cats[0])}" scheme="http://arxiv.org/schemas/atom"/>`);
  for (const c of cats) lines.push(`    <category term="${xmlEscape(c)}" scheme="http://arxiv.org/schemas/atom"/>`);
  lines.push('  </entry>');
  void origin;
  return lines.join('\n');
}

/**
 * arXiv-like API: `GET /api/query?search_query=…&id_list=…&start=0&max_results=10` answers an Atom 1.0 feed
 * (`application/atom+xml`) with `opensearch:totalResults/startIndex/itemsPerPage` and one `<entry>` per paper
 * (id `http://arxiv.org/abs/<id>`, title, summary, authors, published/updated, `arxiv:doi`, links, categories),
 * as export.arxiv.org does. Matching: an entry matches when any query term occurs in its title or summary;
 * results are ordered by the number of distinct matching terms (desc), then input order. `id_list` (comma
 * separated, version optional) selects by id. `url` is the origin; the query endpoint is `${url}/api/query`.
 */
export async function startFakeArxiv(entries: FakeArxivEntry[], opts: FakeArxivOptions = {}): Promise<FakeServer & { queryUrl: string }> {
  let served = 0;
  let originRef = '';
  const srv = await listen(async (req, res) => {
    const url = new URL(req.path, 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/api/query') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if ((opts.delayMs ?? 0) > 0) await sleep(opts.delayMs!);
    if (served++ < (opts.failFirst ?? 0)) {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' }).end('Service Unavailable');
      return;
    }
    const q = url.searchParams.get('search_query') ?? '';
    const idList = (url.searchParams.get('id_list') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
    const start = Math.max(0, Number(url.searchParams.get('start') ?? '0') || 0);
    const maxResults = Math.max(0, Number(url.searchParams.get('max_results') ?? '10') || 0);
    let matched: FakeArxivEntry[];
    if (idList.length > 0) {
      const bare = (id: string) => id.replace(/v\d+$/, '');
      matched = entries.filter((e) => idList.some((id) => id === e.id || bare(id) === bare(e.id)));
    } else {
      const terms = [...new Set(arxivQueryTerms(q))];
      matched = entries
        .map((e, i) => {
          const hay = `${e.title} ${e.summary}`.toLowerCase();
          return { e, i, hits: terms.filter((t) => hay.includes(t)).length };
        })
        .filter((x) => x.hits > 0)
        .sort((a, b) => b.hits - a.hits || a.i - b.i)
        .map((x) => x.e);
    }
    const page = matched.slice(start, start + maxResults);
    const selfHref = `${originRef}${req.path}`;
    const xml = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<feed xmlns="http://www.w3.org/2005/Atom">',
      `  <link href="${xmlEscape(selfHref)}" rel="self" type="application/atom+xml"/>`,
      `  <title type="html">ArXiv Query: search_query=${xmlEscape(q)}&amp;id_list=${xmlEscape(idList.join(','))}&amp;start=${start}&amp;max_results=${maxResults}</title>`,
      `  <id>http://arxiv.org/api/fake${req.n}</id>`,
      `  <updated>${new Date().toISOString().slice(0, 19)}Z</updated>`,
      `  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${matched.length}</opensearch:totalResults>`,
      `  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${start}</opensearch:startIndex>`,
      `  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${maxResults}</opensearch:itemsPerPage>`,
      ...page.map((e) => entryXml(e, originRef)),
      '</feed>',
      '',
    ].join('\n');
    res.writeHead(200, { 'content-type': 'application/atom+xml; charset=utf-8' }).end(xml);
  }, '');
  originRef = srv.origin;
  return { ...srv, queryUrl: `${srv.origin}/api/query` };
}
