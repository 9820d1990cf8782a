/**
 * Local servers speaking the two batch protocols closely enough for the real SDKs (via their base-URL option):
 *
 * OpenAI Batch: `POST /v1/files` (multipart, purpose `batch`, JSONL of `{custom_id, method, url, body}`),
 * `POST /v1/batches` `{input_file_id, endpoint, completion_window, metadata}`, `GET /v1/batches/:id`,
 * `GET /v1/batches` (cursor list, newest first), `GET /v1/files/:id/content`. Output lines are
 * `{id, custom_id, response: {status_code, request_id, body}, error: null}`; failed and expired items go to the
 * error file as `{id, custom_id, response: null | {status_code, body}, error: {code, message}}`.
 *
 * Anthropic Message Batches: `POST /v1/messages/batches` `{requests: [{custom_id, params}]}`,
 * `GET /v1/messages/batches/:id` (`processing_status`, `request_counts`, `results_url`), `GET /v1/messages/batches`
 * (`{data, has_more, first_id, last_id}`, newest first), `GET /v1/messages/batches/:id/results` (JSONL of
 * `{custom_id, result: {type: succeeded, message} | {type: errored, error} | {type: expired} | {type: canceled}}`).
 *
 * A batch ends after `pollsToEnd` status reads (default 1). `answer(body, customId)` decides each item: a text,
 * an HTTP error, or `expire` (the whole batch then ends as `expired` with that item unanswered).
 * `submissions` counts accepted batches; `submittedCustomIds` lists every custom id ever submitted.
 */
import type * as http from 'node:http';
import { startHttpServer } from './fake-llm';

export type FakeBatchItemReply = { text: string; usage?: { inputTokens: number; outputTokens: number } } | { status: number; message?: string } | 'expire';

export interface FakeBatchOptions {
  answer: (body: any, customId: string) => FakeBatchItemReply;
  /** Status reads before a batch has ended. Default 1 (the first read says in progress, the second ended). */
  pollsToEnd?: number;
  /** Fail the first N batch creations with HTTP 500 after accepting them (the client never sees the id). Default 0. */
  acceptThenFail?: number;
}

export interface FakeBatchServer {
  /** Base URL for the SDK (OpenAI: origin + /v1; Anthropic: origin). */
  url: string;
  origin: string;
  /** Batches accepted (POST create answered or accepted). */
  submissions: number;
  submittedCustomIds: string[];
  /** Every request line as `METHOD path`. */
  log: string[];
  /** The JSONL bodies uploaded (OpenAI) or the create bodies (Anthropic). */
  uploads: string[];
  close(): Promise<void>;
}

interface Batch {
  id: string;
  created: number;
  items: { customId: string; body: any }[];
  metadata: Record<string, string> | null;
  inputFileId: string | null;
  reads: number;
  ended: boolean;
  expired: boolean;
  outputFileId: string | null;
  errorFileId: string | null;
  /** Each item's reply, decided once when the batch ends. */
  replies: FakeBatchItemReply[] | null;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The `file` part of a multipart/form-data body. */
function multipartFile(body: Buffer, contentType: string): { file: string; fields: Record<string, string> } {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!m) throw new Error('no multipart boundary');
  const boundary = `--${m[1] ?? m[2]}`;
  const parts = body.toString('utf8').split(boundary).slice(1, -1);
  const fields: Record<string, string> = {};
  let file = '';
  for (const p of parts) {
    const [head, ...rest] = p.replace(/^\r\n/, '').split('\r\n\r\n');
    const content = rest.join('\r\n\r\n').replace(/\r\n$/, '');
    const name = /name="([^"]+)"/.exec(head)?.[1] ?? '';
    if (/filename=/.test(head)) file = content;
    else fields[name] = content;
  }
  return { file, fields };
}

function openaiBody(model: string, text: string, n: number, usage?: { inputTokens: number; outputTokens: number }) {
  const u = usage ?? { inputTokens: 100, outputTokens: 10 };
  return {
    id: `chatcmpl-batch-${n}`, object: 'chat.completion', created: 0, model,
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: u.inputTokens, completion_tokens: u.outputTokens, total_tokens: u.inputTokens + u.outputTokens },
  };
}

/** OpenAI Batch API server (see the module comment). */
export async function startFakeOpenAIBatch(opts: FakeBatchOptions): Promise<FakeBatchServer> {
  const files = new Map<string, string>();
  const batches = new Map<string, Batch>();
  let nFile = 0;
  let nBatch = 0;
  let nLine = 0;
  let failsLeft = opts.acceptThenFail ?? 0;
  const state: FakeBatchServer = { url: '', origin: '', submissions: 0, submittedCustomIds: [], log: [], uploads: [], close: async () => {} };
  const view = (b: Batch) => {
    const counts = { total: b.items.length, completed: 0, failed: 0 };
    for (const r of b.replies ?? []) {
      if (r !== 'expire' && 'text' in r) counts.completed++;
      else counts.failed++;
    }
    return {
      id: b.id, object: 'batch', endpoint: '/v1/chat/completions', errors: null, input_file_id: b.inputFileId, completion_window: '24h',
      status: b.ended ? (b.expired ? 'expired' : 'completed') : b.reads === 0 ? 'validating' : 'in_progress',
      output_file_id: b.outputFileId, error_file_id: b.errorFileId, created_at: b.created, in_progress_at: null, expires_at: b.created + 86400,
      finalizing_at: null, completed_at: b.ended && !b.expired ? b.created + 60 : null, failed_at: null, expired_at: b.expired ? b.created + 86400 : null,
      cancelling_at: null, cancelled_at: null, request_counts: counts, metadata: b.metadata,
    };
  };
  const finish = (b: Batch) => {
    const out: string[] = [];
    const err: string[] = [];
    const replies = (b.replies = b.items.map((it) => opts.answer(it.body, it.customId)));
    b.expired = replies.includes('expire');
    b.items.forEach((it, i) => {
      const r = replies[i];
      const id = `batch_req_${++nLine}`;
      if (r === 'expire') err.push(JSON.stringify({ id, custom_id: it.customId, response: null, error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' } }));
      else if ('text' in r) out.push(JSON.stringify({ id, custom_id: it.customId, response: { status_code: 200, request_id: `req_${nLine}`, body: openaiBody(it.body.model, r.text, nLine, r.usage) }, error: null }));
      else err.push(JSON.stringify({ id, custom_id: it.customId, response: { status_code: r.status, request_id: `req_${nLine}`, body: { error: { message: r.message ?? `scripted ${r.status}`, type: 'server_error' } } }, error: null }));
    });
    if (out.length > 0) files.set((b.outputFileId = `file-out-${++nFile}`), out.join('\n') + '\n');
    if (err.length > 0) files.set((b.errorFileId = `file-err-${++nFile}`), err.join('\n') + '\n');
    b.ended = true;
  };
  const srv = await startHttpServer(async (req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    state.log.push(`${req.method} ${p}`);
    if (req.method === 'POST' && p === '/v1/files') {
      const { file, fields } = multipartFile(body, String(req.headers['content-type']));
      if (fields.purpose !== 'batch') return json(res, 400, { error: { message: `purpose must be batch, got ${fields.purpose}` } });
      const id = `file-in-${++nFile}`;
      files.set(id, file);
      state.uploads.push(file);
      return json(res, 200, { id, object: 'file', bytes: file.length, created_at: 0, filename: 'batch.jsonl', purpose: 'batch', status: 'processed' });
    }
    if (req.method === 'POST' && p === '/v1/batches') {
      const b = JSON.parse(body.toString('utf8'));
      const input = files.get(b.input_file_id);
      if (!input) return json(res, 400, { error: { message: `no file ${b.input_file_id}` } });
      if (b.endpoint !== '/v1/chat/completions' || b.completion_window !== '24h') return json(res, 400, { error: { message: 'bad endpoint or window' } });
      const items = input.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
      for (const it of items) if (it.method !== 'POST' || it.url !== '/v1/chat/completions' || typeof it.custom_id !== 'string') return json(res, 400, { error: { message: 'bad line' } });
      const batch: Batch = { id: `batch_${++nBatch}`, created: 1_700_000_000 + nBatch, items: items.map((it) => ({ customId: it.custom_id, body: it.body })), metadata: b.metadata ?? null, inputFileId: b.input_file_id, reads: 0, ended: false, expired: false, outputFileId: null, errorFileId: null, replies: null };
      batches.set(batch.id, batch);
      state.submissions++;
      state.submittedCustomIds.push(...batch.items.map((i) => i.customId));
      if (failsLeft > 0) {
        failsLeft--;
        return json(res, 500, { error: { message: 'accepted, but the answer was lost (scripted)' } });
      }
      return json(res, 200, view(batch));
    }
    if (req.method === 'GET' && p === '/v1/batches') {
      const all = [...batches.values()].reverse().map(view);
      return json(res, 200, { object: 'list', data: all, first_id: all[0]?.id ?? null, last_id: all[all.length - 1]?.id ?? null, has_more: false });
    }
    let m = /^\/v1\/batches\/([^/]+)$/.exec(p);
    if (req.method === 'GET' && m) {
      const b = batches.get(m[1]);
      if (!b) return json(res, 404, { error: { message: 'no batch' } });
      if (!b.ended && b.reads++ >= (opts.pollsToEnd ?? 1)) finish(b);
      return json(res, 200, view(b));
    }
    m = /^\/v1\/files\/([^/]+)\/content$/.exec(p);
    if (req.method === 'GET' && m) {
      const f = files.get(m[1]);
      if (f === undefined) return json(res, 404, { error: { message: 'no file' } });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void res.end(f);
    }
    json(res, 404, { error: { message: `unknown route ${req.method} ${p}` } });
  });
  Object.assign(state, { url: `${srv.origin}/v1`, origin: srv.origin, close: srv.close });
  return state;
}

/** Anthropic Message Batches server (see the module comment). */
export async function startFakeAnthropicBatch(opts: FakeBatchOptions): Promise<FakeBatchServer> {
  const batches = new Map<string, Batch>();
  let nBatch = 0;
  let failsLeft = opts.acceptThenFail ?? 0;
  const state: FakeBatchServer = { url: '', origin: '', submissions: 0, submittedCustomIds: [], log: [], uploads: [], close: async () => {} };
  const view = (b: Batch, origin: string) => {
    const c = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    for (let i = 0; i < b.items.length; i++) {
      if (!b.ended) c.processing++;
      else {
        const r = b.replies![i];
        if (r === 'expire') c.expired++;
        else if ('text' in r) c.succeeded++;
        else c.errored++;
      }
    }
    const created = new Date(Date.now() - 1000 + nBatch).toISOString();
    return {
      id: b.id, type: 'message_batch', processing_status: b.ended ? 'ended' : 'in_progress', request_counts: c,
      ended_at: b.ended ? created : null, created_at: new Date(b.created).toISOString(), expires_at: created, archived_at: null, cancel_initiated_at: null,
      results_url: b.ended ? `${origin}/v1/messages/batches/${b.id}/results` : null,
    };
  };
  const srv = await startHttpServer(async (req, body, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    state.log.push(`${req.method} ${p}`);
    if (req.method === 'POST' && p === '/v1/messages/batches') {
      const b = JSON.parse(body.toString('utf8'));
      if (!Array.isArray(b.requests)) return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'requests: Field required' } });
      for (const r of b.requests) {
        if (!/^[a-zA-Z0-9_-]{1,64}$/.test(r.custom_id)) return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'bad custom_id' } });
        if (typeof r.params?.max_tokens !== 'number') return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
      }
      state.uploads.push(body.toString('utf8'));
      const batch: Batch = { id: `msgbatch_${++nBatch}`, created: Date.now(), items: b.requests.map((r: any) => ({ customId: r.custom_id, body: r.params })), metadata: null, inputFileId: null, reads: 0, ended: false, expired: false, outputFileId: null, errorFileId: null, replies: null };
      batches.set(batch.id, batch);
      state.submissions++;
      state.submittedCustomIds.push(...batch.items.map((i) => i.customId));
      if (failsLeft > 0) {
        failsLeft--;
        return json(res, 500, { type: 'error', error: { type: 'api_error', message: 'accepted, but the answer was lost (scripted)' } });
      }
      return json(res, 200, view(batch, srv.origin));
    }
    if (req.method === 'GET' && p === '/v1/messages/batches') {
      const all = [...batches.values()].reverse().map((b) => view(b, srv.origin));
      return json(res, 200, { data: all, has_more: false, first_id: all[0]?.id ?? null, last_id: all[all.length - 1]?.id ?? null });
    }
    let m = /^\/v1\/messages\/batches\/([^/]+)$/.exec(p);
    if (req.method === 'GET' && m) {
      const b = batches.get(m[1]);
      if (!b) return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'no batch' } });
      if (!b.ended && b.reads++ >= (opts.pollsToEnd ?? 1)) {
        b.replies = b.items.map((it) => opts.answer(it.body, it.customId));
        b.ended = true;
      }
      return json(res, 200, view(b, srv.origin));
    }
    m = /^\/v1\/messages\/batches\/([^/]+)\/results$/.exec(p);
    if (req.method === 'GET' && m) {
      const b = batches.get(m[1]);
      if (!b || !b.ended) return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'no results' } });
      const lines = b.items.map((it, i) => {
        const r = b.replies![i];
        if (r === 'expire') return { custom_id: it.customId, result: { type: 'expired' } };
        if ('text' in r) {
          const u = r.usage ?? { inputTokens: 100, outputTokens: 10 };
          return {
            custom_id: it.customId,
            result: { type: 'succeeded', message: { id: `msg_b${i}`, type: 'message', role: 'assistant', model: it.body.model, content: [{ type: 'text', text: r.text, citations: null }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: u.inputTokens, output_tokens: u.outputTokens } } },
          };
        }
        return { custom_id: it.customId, result: { type: 'errored', error: { type: 'error', error: { type: 'api_error', message: r.message ?? `scripted ${r.status}` } } } };
      });
      res.writeHead(200, { 'content-type': 'application/binary' });
      return void res.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    }
    json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `unknown route ${req.method} ${p}` } });
  });
  Object.assign(state, { url: srv.origin, origin: srv.origin, close: srv.close });
  return state;
}
