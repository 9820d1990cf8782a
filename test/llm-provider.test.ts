/**
 * Adding an LLM vendor is one `LlmProvider` object plus models.json entries: a fake vendor ("acme", with its own
 * wire format, key variable and batch protocol, spoken by a local server below) is registered at run time and
 * goes through the ordinary client (record, then replay with no key and no server) and `runBatch` (submit, poll,
 * collect at batch prices, rerun submits nothing, replay). And no file of lib/llm/ outside providers/ compares a
 * provider name: the vendor code lives in one file per vendor.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isEoError } from '../lib/errors';
import {
  apiKeyEnvOf,
  backoffMs,
  batchApiOf,
  createLlmClient,
  createLlmClientFromEnv,
  loadModelsFile,
  openRecordStore,
  providerFor,
  providerNames,
  isRetryable,
  readBatchLog,
  registerProvider,
  retryAfterMs,
  retryWaitMs,
  runBatch,
  tokenLimitField,
  vendorHttpError,
  type ChatMessage,
  type ChatRequest,
  type LlmProvider,
  type ModelConfig,
  type WireOptions,
} from '../lib/llm';
import { startHttpServer } from './servers/fake-llm';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-llm-provider-'));
const quiet = () => {};
const KEY = 'acme-secret-key-0123456789';

// ---------------------------------------------------------------------------------------------------------------
// The fake vendor: what a new vendor file under lib/llm/providers/ would hold.

/** Acme's wire format: `engine`, `turns` of `{ speaker, text }`, `budget` (its output limit), `heat` (temperature). */
function toAcmeRequest(config: ModelConfig, req: Parameters<LlmProvider['toRequest']>[1], w: WireOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { engine: config.model, turns: req.messages.map((m: ChatMessage) => ({ speaker: m.role, text: m.content })) };
  if (w.temperature !== undefined) body.heat = w.temperature;
  if (w.tokenLimit) body.budget = w.tokenLimit.value;
  return body;
}

function fromAcmeResponse(body: unknown, requestedModel: string) {
  const b = body as { engine?: string; completion?: unknown; finish?: string; meter?: { read?: number; written?: number } } | null;
  if (b === null || typeof b !== 'object' || typeof b.completion !== 'string') throw new Error('not an acme completion');
  return { text: b.completion, toolCalls: [], stopReason: b.finish ?? 'unknown', model: b.engine ?? requestedModel, usage: { inputTokens: b.meter?.read ?? 0, outputTokens: b.meter?.written ?? 0 } };
}

/** The vendor's HTTP calls (plain fetch: a vendor needs no SDK). */
function acmeHttp(opts: Parameters<LlmProvider['openChat']>[0]) {
  const f = opts.fetch ?? fetch;
  return async (method: string, route: string, body?: unknown): Promise<any> => {
    const r = await f(`${opts.baseURL}${route}`, { method, headers: { 'content-type': 'application/json', 'x-acme-key': opts.apiKey ?? '' }, body: body === undefined ? undefined : JSON.stringify(body) });
    // its status and headers travel with the error: the client's one retry policy reads them (lib/llm/retry.ts)
    if (!r.ok) throw vendorHttpError(r, `acme ${method} ${route}: HTTP ${r.status}`);
    return r.json();
  };
}

const acme: LlmProvider = {
  name: 'acme',
  defaultApiKeyEnv: 'ACME_API_KEY',
  requiresBaseUrl: true,
  acceptsThinking: false,
  defaultBatchApi: 'acme',
  batchApis: ['acme'],
  tokenLimitField: () => 'max_tokens',
  rejectParam: (name) => (name === 'reasoningEffort' ? 'no reasoningEffort (acme engines do not reason)' : null),
  toRequest: toAcmeRequest,
  fromResponse: fromAcmeResponse,
  openChat(opts) {
    const http = acmeHttp(opts);
    return (body) => http('POST', '/generate', body);
  },
  openBatch(config, opts) {
    const http = acmeHttp(opts);
    return {
      async submit(sid, items) {
        return (await http('POST', '/jobs', { tag: sid, tasks: items.map((it) => ({ ref: it.key, input: toAcmeRequest(config, it.request, it.wire) })) })).job;
      },
      async status(id) {
        const j = await http('GET', `/jobs/${id}`);
        return { status: j.state, ended: j.state === 'finished' };
      },
      async results(id) {
        const out = new Map<string, { body: unknown } | { error: string }>();
        for (const o of (await http('GET', `/jobs/${id}/output`)).outputs) out.set(o.ref, o.failure ? { error: o.failure } : { body: o.answer });
        return out;
      },
      async find(intent, known) {
        const j = (await http('GET', `/jobs?tag=${encodeURIComponent(intent.sid)}`)).jobs.find((x: string) => !known.has(x));
        return j ?? null;
      },
    };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// A local server speaking Acme: POST /generate; batches as jobs (POST /jobs, GET /jobs/:id, GET /jobs/:id/output).

/** Acme's answer to one request body: echoes the last turn; meter: 10 tokens read per word, 7 written. */
function acmeAnswer(body: any) {
  const last = body.turns[body.turns.length - 1].text as string;
  return { engine: `${body.engine}-0101`, completion: `acme says: ${last}`, finish: 'done', meter: { read: 10 * last.split(/\s+/).length, written: 7 } };
}

async function startAcme() {
  const calls: { method: string; path: string; key: string | undefined; body: any }[] = [];
  const jobs = new Map<string, { tag: string; tasks: { ref: string; input: any }[]; polls: number }>();
  const faults = new Map<string, number>();
  const srv = await startHttpServer(async (req, raw, res) => {
    const body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
    const url = new URL(req.url ?? '/', 'http://x');
    calls.push({ method: req.method ?? 'GET', path: url.pathname, key: req.headers['x-acme-key'] as string | undefined, body });
    const send = (status: number, b: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(b));
    };
    if (req.headers['x-acme-key'] !== KEY) return send(401, { error: 'bad key' });
    const job = /^\/jobs\/([^/]+)(\/output)?$/.exec(url.pathname);
    if (req.method === 'POST' && url.pathname === '/generate') {
      // scripted faults by the last turn's text: "busy" 429 (retry-after 2 s) once, "down" 503 (no retry-after) twice,
      // "bad" 400 always
      const last = String(body.turns[body.turns.length - 1].text);
      const seen = (faults.get(last) ?? 0) + 1;
      faults.set(last, seen);
      if (last === 'busy' && seen === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
        return res.end('{"error": "slow down"}');
      }
      if (last === 'down' && seen <= 2) return send(503, { error: 'down' });
      if (last === 'bad') return send(400, { error: 'bad request' });
      return send(200, acmeAnswer(body));
    }
    if (req.method === 'POST' && url.pathname === '/jobs') {
      const id = `job_${jobs.size + 1}`;
      jobs.set(id, { tag: body.tag, tasks: body.tasks, polls: 0 });
      return send(200, { job: id });
    }
    if (req.method === 'GET' && url.pathname === '/jobs') return send(200, { jobs: [...jobs].filter(([, j]) => j.tag === url.searchParams.get('tag')).map(([id]) => id) });
    if (req.method === 'GET' && job && jobs.has(job[1])) {
      const j = jobs.get(job[1])!;
      if (!job[2]) return send(200, { state: ++j.polls >= 2 ? 'finished' : 'running' });
      // the task whose last turn says "fail" fails, as a vendor's per-item error would
      return send(200, { outputs: j.tasks.map((t) => (/fail/.test(JSON.stringify(t.input)) ? { ref: t.ref, failure: 'acme: refused' } : { ref: t.ref, answer: acmeAnswer(t.input) })) });
    }
    return send(404, { error: `no route ${req.method} ${url.pathname}` });
  });
  return { ...srv, calls, jobs };
}

/** A models.json with the vendor's entry (and a built-in one beside it), as a user would write it. */
function writeModelsFile(baseUrl: string): string {
  const f = path.join(TMP, `models-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(f, JSON.stringify({
    models: [
      { id: 'gpt-4o-mini', provider: 'openai', model: 'gpt-4o-mini-2024-07-18', inputPricePerMTok: 0.15, outputPricePerMTok: 0.6 },
      { id: 'acme-large', provider: 'acme', model: 'acme-large-2026', baseUrl, inputPricePerMTok: 2, outputPricePerMTok: 8, batchInputPricePerMTok: 1, batchOutputPricePerMTok: 4, maxTokens: 256 },
    ],
  }));
  return f;
}

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: text }], ...extra });

registerProvider(acme);

// ---------------------------------------------------------------------------------------------------------------

test('the registry: the built-in vendors, the fake one after them; its entry is validated by the vendor', () => {
  assert.equal(providerNames(), ['openai', 'anthropic', 'openai-compatible', 'acme']);
  assert.is(providerFor('acme'), acme);
  assert.throws(() => providerFor('nobody'), (e: unknown) => isEoError(e, 'CONFIG') && /unknown LLM provider "nobody"; registered: openai, anthropic, openai-compatible, acme/.test((e as Error).message));
  const models = loadModelsFile(writeModelsFile('http://127.0.0.1:9')).models;
  const cfg = models.find((m) => m.id === 'acme-large')!;
  assert.is(apiKeyEnvOf(cfg), 'ACME_API_KEY', 'the default key variable comes from the vendor');
  assert.is(batchApiOf(cfg), 'acme', 'the default batch protocol comes from the vendor');
  assert.is(tokenLimitField(cfg), 'max_tokens');
  // the generic checks name the vendor; the vendor's own check gives its reason
  const bad = (entry: Record<string, unknown>, re: RegExp) => {
    const f = path.join(TMP, `bad-${Math.random().toString(36).slice(2)}.json`);
    fs.writeFileSync(f, JSON.stringify({ models: [{ id: 'a', provider: 'acme', model: 'm', baseUrl: 'http://h', inputPricePerMTok: 1, outputPricePerMTok: 1, ...entry }] }));
    assert.throws(() => loadModelsFile(f), (e: unknown) => isEoError(e, 'CONFIG') && re.test((e as Error).message), JSON.stringify(entry));
  };
  bad({ params: { reasoningEffort: ['low'] } }, /models\[0\]\.params\.reasoningEffort: expected no reasoningEffort \(acme engines do not reason\)/);
  bad({ params: { thinking: true } }, /models\[0\]\.params\.thinking: expected false \(provider acme does not accept extended thinking\)/);
  bad({ baseUrl: undefined }, /models\[0\]: provider acme needs baseUrl or baseUrlEnv/);
  bad({ batchApi: 'openai' }, /models\[0\]\.batchApi: openai batches cannot carry provider acme requests/);
  bad({ batchApi: 'nobody' }, /models\[0\]\.batchApi: expected one of openai, anthropic, acme, none/);
});

test('registerProvider checks what it is given, and unregistering removes the vendor again', () => {
  const invalid = (p: unknown, re: RegExp) => assert.throws(() => registerProvider(p as LlmProvider), (e: unknown) => isEoError(e, 'INVALID_ARGUMENT') && re.test((e as Error).message));
  invalid({ ...acme }, /already registered/);
  invalid({ ...acme, name: 'none' }, /name must be a non-empty string other than "none"/);
  invalid({ ...acme, name: 'acme2', toRequest: undefined }, /toRequest must be a function/);
  invalid({ ...acme, name: 'acme2', openBatch: undefined, batchApis: ['nobody'] }, /batchApis: "nobody" is not a batch protocol/);
  invalid({ ...acme, name: 'acme2', defaultBatchApi: 'openai' }, /defaultBatchApi: "openai" must be none or one of batchApis/);
  const remove = registerProvider({ ...acme, name: 'acme-lite', openBatch: undefined, batchApis: ['openai'], defaultBatchApi: 'none' });
  assert.is(batchApiOf({ id: 'l', provider: 'acme-lite', model: 'm', inputPricePerMTok: 0, outputPricePerMTok: 0 }), 'none');
  remove();
  assert.equal(providerNames(), ['openai', 'anthropic', 'openai-compatible', 'acme']);
});

test('a live call through the fake vendor is recorded, then replayed with no key and no server call', async () => {
  const srv = await startAcme();
  try {
    const models = loadModelsFile(writeModelsFile(srv.origin)).models;
    const store = path.join(TMP, 'live.jsonl');
    // record mode needs the vendor's key variable, and says which one
    const noKey = createLlmClientFromEnv('acme-large', { models, mode: 'record', store, env: {}, client: { log: quiet } });
    const e = await noKey.chat(ask('hello')).catch((x) => x);
    assert.ok(isEoError(e, 'CONFIG') && /ACME_API_KEY is not set/.test(e.message), String(e));
    assert.is(srv.calls.length, 0);

    const llm = createLlmClientFromEnv('acme-large', { models, mode: 'record', store, env: { ACME_API_KEY: KEY }, client: { log: quiet } });
    const r = await llm.chat(ask('sea ice extent', { temperature: 0.3, reasoningEffort: 'low', stage: 'writer' }));
    assert.is(r.text, 'acme says: sea ice extent');
    assert.is(r.model, 'acme-large-2026-0101', 'the model the vendor reported');
    assert.equal(r.usage, { inputTokens: 30, outputTokens: 7 });
    assert.ok(Math.abs(r.costUsd - (30 * 2 + 7 * 8) / 1e6) < 1e-15, 'usage × the entry\'s standard prices');
    assert.not.ok(r.fromRecording);
    // the wire: the vendor's format, the key in its header, the entry's token limit as its budget
    assert.is(srv.calls.length, 1);
    assert.is(srv.calls[0].key, KEY);
    assert.equal(srv.calls[0].body, { engine: 'acme-large-2026', turns: [{ speaker: 'system', text: 'be brief' }, { speaker: 'user', text: 'sea ice extent' }], heat: 0.3, budget: 256 });
    // the record: provider name, stage, the note of the option the entry does not accept; never the key
    const text = fs.readFileSync(store, 'utf8');
    assert.not.ok(text.includes(KEY), 'the key is not in the store');
    const rec = openRecordStore(store).get(r.recordKey)!;
    assert.is(rec.provider, 'acme');
    assert.is(rec.stage, 'writer');
    assert.equal(rec.notes, ['reasoning_effort low not sent: acme-large does not accept reasoning_effort']);
    assert.equal(rec.response.raw, { engine: 'acme-large-2026-0101', completion: 'acme says: sea ice extent', finish: 'done', meter: { read: 30, written: 7 } });

    // a second call of the same request in record mode is served from the store
    const again = await llm.chat(ask('sea ice extent', { temperature: 0.3, reasoningEffort: 'low' }));
    assert.ok(again.fromRecording);
    assert.is(srv.calls.length, 1);
    // replay: no key, same answer, no call; a request never recorded is a replay miss
    const replay = createLlmClient(models.find((m) => m.id === 'acme-large')!, { mode: 'replay', store, env: {}, log: quiet });
    const back = await replay.chat(ask('sea ice extent', { temperature: 0.3, reasoningEffort: 'low' }));
    assert.is(back.text, r.text);
    assert.is(back.recordKey, r.recordKey);
    assert.ok(back.fromRecording);
    const miss = await replay.chat(ask('never asked')).catch((x) => x);
    assert.ok(isEoError(miss, 'LLM_REPLAY_MISS'), String(miss));
    assert.is(srv.calls.length, 1);
  } finally {
    await srv.close();
  }
});

test('a vendor written with fetch gets the client\'s retries: Retry-After honoured, backoff without it, a 400 not retried', async () => {
  const srv = await startAcme();
  try {
    const models = loadModelsFile(writeModelsFile(srv.origin)).models;
    const waits: number[] = [];
    const lines: string[] = [];
    const llm = createLlmClientFromEnv('acme-large', { models, mode: 'live', env: { ACME_API_KEY: KEY }, client: { log: (l) => lines.push(l), maxRetries: 3, sleep: async (ms) => void waits.push(ms) } });
    assert.is((await llm.chat(ask('busy'))).text, 'acme says: busy');
    assert.equal(waits, [2000], 'the 429\'s retry-after: 2');
    assert.match(lines.join('\n'), /\[acme-large\] attempt 1 failed \(429\); retrying in 2\.0 s/);
    assert.is((await llm.chat(ask('down'))).text, 'acme says: down');
    assert.equal(waits, [2000, 500, 1000], 'no retry-after: 0.5 s, then doubled');
    const e = await llm.chat(ask('bad')).catch((x) => x);
    assert.ok(isEoError(e, 'LLM') && /call failed after 1 attempt \(maxRetries 3\): Error 400/.test(e.message), String(e));
    assert.is(e.details.status, 400);
    assert.equal(waits, [2000, 500, 1000], 'a 400 is not retried');
    assert.is(srv.calls.filter((c) => c.path === '/generate').length, 2 + 3 + 1);
  } finally {
    await srv.close();
  }
});

test('the retry policy reads every form of Retry-After and caps what it honours', () => {
  const err = (headers: Record<string, string>) => ({ status: 429, headers });
  assert.is(retryAfterMs(err({ 'retry-after-ms': '250' })), 250);
  assert.is(retryAfterMs(err({ 'Retry-After': '3' })), 3000);
  assert.is(retryAfterMs({ status: 503, headers: new Headers({ 'retry-after': '1.5' }) }), 1500);
  assert.is(retryAfterMs(err({ 'retry-after': new Date(Date.UTC(2026, 0, 1, 0, 0, 10)).toUTCString() }), Date.UTC(2026, 0, 1)), 10_000);
  assert.is(retryAfterMs(err({})), null);
  assert.is(retryWaitMs(err({ 'retry-after': '3600' }), 2), 2000, 'an hour is not honoured: the backoff');
  assert.equal([0, 1, 2, 3, 4, 5].map(backoffMs), [500, 1000, 2000, 4000, 8000, 8000]);
  assert.equal([408, 409, 429, 500, 529, undefined, 400, 401, 404, 422].map(isRetryable), [true, true, true, true, true, true, false, false, false, false]);
});

test('a batch through the fake vendor\'s protocol: submit, poll, collect at batch prices, failures reported, a rerun submits nothing, replay', async () => {
  const srv = await startAcme();
  try {
    const config = loadModelsFile(writeModelsFile(srv.origin)).models.find((m) => m.id === 'acme-large')!;
    const store = path.join(TMP, 'batch.jsonl');
    const requests = [ask('sea ice'), ask('soil moisture'), ask('please fail'), ask('sea ice')];
    const env = { ACME_API_KEY: KEY };
    const r1 = await runBatch({ config, requests, store, env, sleep: async () => {}, log: quiet, maxAttempts: 1 });
    assert.is(r1.api, 'acme');
    assert.is(r1.total, 3, 'the repeated request is one key');
    assert.is(r1.submittedRequests, 3);
    assert.is(r1.collected, 2);
    assert.equal(r1.failed.map((f) => f.reason), ['acme: refused']);
    assert.equal(r1.submittedBatches, ['job_1']);
    assert.is(srv.jobs.size, 1);
    assert.is(srv.jobs.get('job_1')!.tasks.length, 3);
    assert.equal(srv.jobs.get('job_1')!.tasks[0].input, { engine: 'acme-large-2026', turns: [{ speaker: 'system', text: 'be brief' }, { speaker: 'user', text: 'sea ice' }], heat: 0, budget: 256 }, 'batch lines are the live request bodies');
    assert.ok(srv.calls.filter((c) => c.path === '/jobs/job_1').length >= 2, 'polled until the job ended');
    // records: batch provenance and batch prices; the log names the vendor's job id
    const recs = openRecordStore(store).records();
    assert.is(recs.length, 2);
    for (const rec of recs) {
      assert.is(rec.provider, 'acme');
      assert.equal(rec.batch, { api: 'acme', batchId: 'job_1', customId: rec.key });
      assert.ok(Math.abs(rec.costUsd - (rec.response.usage.inputTokens * 1 + rec.response.usage.outputTokens * 4) / 1e6) < 1e-15);
    }
    assert.ok(Math.abs(r1.costUsd - recs.reduce((a, x) => a + x.costUsd, 0)) < 1e-15);
    assert.is(readBatchLog(`${store}.batches.jsonl`)[0].batchId, 'job_1');
    assert.not.ok(fs.readFileSync(store, 'utf8').includes(KEY));
    // rerun: the answered ones are recorded and the failed one has used its attempt: nothing is submitted
    const r2 = await runBatch({ config, requests, store, env, sleep: async () => {}, log: quiet, maxAttempts: 1 });
    assert.is(r2.alreadyRecorded, 2);
    assert.is(r2.submittedRequests, 0);
    assert.is(srv.jobs.size, 1);
    // the batch answers replay through the ordinary client under the keys a live call would use
    const replay = createLlmClient(config, { mode: 'replay', store, env: {}, log: quiet });
    assert.is((await replay.chat(ask('soil moisture'))).text, 'acme says: soil moisture');
    assert.is((await replay.chat(ask('sea ice'))).text, 'acme says: sea ice');
    assert.is(srv.calls.filter((c) => c.path === '/generate').length, 0, 'no live call was made');
  } finally {
    await srv.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------

const LLM_DIR = path.resolve(__dirname, '..', 'lib', 'llm');
const VENDOR_NAMES = ['openai', 'anthropic', 'openai-compatible'];

/** Lines of a TypeScript source that compare something with a vendor name (`=== 'anthropic'`, `'openai' !==`, `case 'openai':`, `.provider ===`). */
function providerComparisons(src: string): string[] {
  const names = VENDOR_NAMES.map((n) => n.replace(/-/g, '\\-')).join('|');
  const lit = `['"\`](?:${names})['"\`]`;
  const re = new RegExp(`(?:[!=]==?\\s*${lit})|(?:${lit}\\s*[!=]==?)|(?:case\\s+${lit})|(?:\\.provider\\s*[!=]==?)|(?:[!=]==?\\s*[\\w.]*\\.provider\\b)`);
  return src.split('\n').filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l) && re.test(l));
}

test('no file of lib/llm/ outside providers/ compares a provider name (the detector finds the comparisons the old code had)', () => {
  // the detector, on lines the four files held before the vendors moved to providers/
  for (const line of [
    "  if (config.provider === 'anthropic') return 'max_tokens';",
    "  return provider === 'openai' ? 'OPENAI_API_KEY' : null;",
    "        answer = api === 'anthropic' ? fromA(r.body) : fromO(r.body);",
    "    if (batchApi !== 'none' && batchApi !== (provider === \"anthropic\" ? 'anthropic' : 'openai'))",
    "  if (x && 'openai-compatible' !== provider) throw bad('x');",
  ])
    assert.equal(providerComparisons(line), [line], line);
  assert.equal(providerComparisons("  const api = s.batchable === false ? 'none' : batchApiOf(config);"), []);
  const files = fs.readdirSync(LLM_DIR).filter((f) => f.endsWith('.ts'));
  assert.ok(['client.ts', 'params.ts', 'models.ts', 'batch.ts'].every((f) => files.includes(f)), files.join(', '));
  const found = files.flatMap((f) => providerComparisons(fs.readFileSync(path.join(LLM_DIR, f), 'utf8')).map((l) => `${f}: ${l.trim()}`));
  assert.equal(found, [], 'provider-name comparisons outside lib/llm/providers/');
  // and the vendor SDKs are imported only by the vendor files
  const sdkImports = files.filter((f) => /from ['"](openai|@anthropic-ai\/sdk)['"]/.test(fs.readFileSync(path.join(LLM_DIR, f), 'utf8')));
  assert.equal(sdkImports, []);
});

test.run();
