import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLlmClient, isEoError, type EoError } from '../lib';
import { llmQueryWriter } from '../lib/bench';
import {
  createLlmClientFromEnv, llmModeFromEnv, llmRecordKey, loadModelsFile, memoryRecordStore, modelAvailability,
  openRecordStore, redactSecrets, toLlmComplete, type ChatMessage, type LlmRecord, type ModelConfig,
  type ToolSpec
} from '../lib/llm';
import { fakeReplies, hasToolResults, lastUserText, startFakeAnthropic, startFakeArxiv, startFakeOpenAI, type FakeServer } from './servers/fake-llm';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-llm-test-'));
let fileNo = 0;
const tmpFile = (name = 'records.jsonl') => path.join(TMP, `${fileNo++}-${name}`);

const ENV = { OPENAI_API_KEY: 'sk-test-openai-key-0000000000', ANTHROPIC_API_KEY: 'sk-ant-test-key-1111111111' };

function openaiConfig(url: string, extra: Partial<ModelConfig> = {}): ModelConfig {
  return { id: 'fake-gpt', provider: 'openai', model: 'gpt-fake-2024-01-01', baseUrl: url, inputPricePerMTok: 1, outputPricePerMTok: 2, ...extra };
}
function anthropicConfig(url: string, extra: Partial<ModelConfig> = {}): ModelConfig {
  return { id: 'fake-claude', provider: 'anthropic', model: 'claude-fake-20250101', baseUrl: url, inputPricePerMTok: 3, outputPricePerMTok: 15, ...extra };
}

const FAST = { env: ENV, maxRetries: 2, timeoutMs: 5000, log: () => {} } as const;

async function rejects(p: Promise<unknown>): Promise<EoError> {
  try {
    await p;
  } catch (e) {
    return e as EoError;
  }
  assert.unreachable('should have thrown');
  throw new Error('unreachable');
}

async function withServer<T>(srv: FakeServer, f: (s: FakeServer) => Promise<T>): Promise<T> {
  try {
    return await f(srv);
  } finally {
    await srv.close();
  }
}

const USER: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Name a sea-ice dataset.' },
];

const TOOL: ToolSpec = {
  name: 'arxiv_search',
  description: 'Search arXiv',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

test('OpenAI: text answer through the SDK, wire format, cost, record → replay equality', async () => {
  await withServer(await startFakeOpenAI([{ text: 'NSIDC-0051', model: 'gpt-fake-2024-01-01-snap', usage: { inputTokens: 1000, outputTokens: 500 } }]), async (srv) => {
    const file = tmpFile();
    const rec = createLlmClient(openaiConfig(srv.url), { ...FAST, mode: 'record', store: file });
    const a = await rec.chat({ messages: USER });
    assert.is(a.text, 'NSIDC-0051');
    assert.is(a.model, 'gpt-fake-2024-01-01-snap');
    assert.equal(a.usage, { inputTokens: 1000, outputTokens: 500 });
    assert.ok(Math.abs(a.costUsd - (1000 * 1 + 500 * 2) / 1e6) < 1e-12);
    assert.is(a.fromRecording, false);
    assert.is(a.stopReason, 'stop');
    // wire format the server saw
    assert.is(srv.requests.length, 1);
    const body = srv.requests[0].body;
    assert.is(srv.requests[0].path, '/v1/chat/completions');
    assert.is(body.model, 'gpt-fake-2024-01-01');
    assert.is(body.temperature, 0);
    assert.equal(body.messages, [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Name a sea-ice dataset.' },
    ]);
    assert.is(body.tools, undefined);
    // the record line
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    assert.is(lines.length, 1);
    const r = JSON.parse(lines[0]) as LlmRecord;
    assert.is(r.key, a.recordKey);
    assert.is(r.configId, 'fake-gpt');
    assert.is(r.requestedModel, 'gpt-fake-2024-01-01');
    assert.is(r.response.model, 'gpt-fake-2024-01-01-snap');
    assert.equal(r.request.messages, USER);
    assert.is(r.request.temperature, 0);
    assert.ok(typeof r.timestamp === 'string' && !Number.isNaN(Date.parse(r.timestamp)));
    assert.is((r.response.raw as any).object, 'chat.completion');
    // replay: same answer, no API call, no key needed
    const rep = createLlmClient(openaiConfig('http://127.0.0.1:9/v1'), { mode: 'replay', store: file, env: {}, log: () => {} });
    const b = await rep.chat({ messages: USER, temperature: 0 });
    assert.is(srv.requests.length, 1);
    assert.is(b.fromRecording, true);
    assert.equal({ ...b, fromRecording: false }, a);
    assert.is(rep.stats.recordedCalls, 1);
    assert.is(rep.stats.liveCalls, 0);
  });
});

test('Anthropic: system → top-level system, max_tokens default, text blocks, record → replay', async () => {
  await withServer(await startFakeAnthropic([{ text: 'Use ', usage: { inputTokens: 100, outputTokens: 10 } }]), async (srv) => {
    const store = memoryRecordStore();
    const c = createLlmClient(anthropicConfig(srv.url), { ...FAST, mode: 'record', store });
    const a = await c.chat({ messages: USER, maxTokens: 64 });
    assert.is(a.text, 'Use ');
    assert.is(a.stopReason, 'end_turn');
    assert.ok(Math.abs(a.costUsd - (100 * 3 + 10 * 15) / 1e6) < 1e-12);
    const body = srv.requests[0].body;
    assert.is(srv.requests[0].path, '/v1/messages');
    assert.is(body.system, 'You are terse.');
    assert.equal(body.messages, [{ role: 'user', content: 'Name a sea-ice dataset.' }]);
    assert.is(body.max_tokens, 64);
    assert.is(body.temperature, 0);
    await c.chat({ messages: USER });
    assert.is(srv.requests[1].body.max_tokens, 4096, 'Anthropic default max_tokens');
    const rep = createLlmClient(anthropicConfig(srv.url), { mode: 'replay', store, env: {} });
    const b = await rep.chat({ messages: USER, maxTokens: 64 });
    assert.equal({ ...b, fromRecording: false }, a);
    assert.is(srv.requests.length, 2);
  });
});

test('OpenAI tool loop: tools/tool_calls both ways; malformed arguments flagged', async () => {
  const script = (req: any) => {
    if (!hasToolResults(req.body)) return { toolCalls: [{ id: 'call_a', name: 'arxiv_search', arguments: { query: 'sea ice' } }, { id: 'call_b', name: 'arxiv_search', arguments: '{"query": "broken' }] };
    return { text: '{"ranked": [2, 1]}' };
  };
  await withServer(await startFakeOpenAI(script), async (srv) => {
    const c = createLlmClient(openaiConfig(srv.url), { ...FAST, mode: 'live' });
    const first = await c.chat({ messages: USER, tools: [TOOL] });
    assert.is(first.stopReason, 'tool_calls');
    assert.is(first.text, '');
    assert.is(first.toolCalls.length, 2);
    assert.equal(first.toolCalls[0], { id: 'call_a', name: 'arxiv_search', arguments: { query: 'sea ice' } });
    assert.equal(first.toolCalls[1].arguments, {});
    assert.ok(first.toolCalls[1].argumentsError?.includes('not valid JSON'));
    assert.is(first.toolCalls[1].rawArguments, '{"query": "broken');
    assert.equal(srv.requests[0].body.tools, [{ type: 'function', function: { name: 'arxiv_search', description: 'Search arXiv', parameters: TOOL.parameters } }]);
    const second = await c.chat({
      messages: [
        ...USER,
        { role: 'assistant', content: '', toolCalls: first.toolCalls.slice(0, 1) },
        { role: 'tool', toolCallId: 'call_a', name: 'arxiv_search', content: '[{"title":"Sea ice"}]' },
      ],
      tools: [TOOL],
    });
    assert.is(second.text, '{"ranked": [2, 1]}');
    const msgs = srv.requests[1].body.messages;
    assert.equal(msgs[2], { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'arxiv_search', arguments: '{"query":"sea ice"}' } }] });
    assert.equal(msgs[3], { role: 'tool', tool_call_id: 'call_a', content: '[{"title":"Sea ice"}]' });
  });
});

test('Anthropic tool loop: tool_use / tool_result blocks both ways', async () => {
  const script = (req: any) => {
    if (!hasToolResults(req.body)) return { text: 'Let me search.', toolCalls: [{ id: 'toolu_1', name: 'arxiv_search', arguments: { query: 'ozone' } }, { id: 'toolu_2', name: 'arxiv_search', arguments: { query: 'MLS' } }] };
    return { text: 'done' };
  };
  await withServer(await startFakeAnthropic(script), async (srv) => {
    const c = createLlmClient(anthropicConfig(srv.url), { ...FAST, mode: 'live' });
    const first = await c.chat({ messages: USER, tools: [TOOL] });
    assert.is(first.stopReason, 'tool_use');
    assert.is(first.text, 'Let me search.');
    assert.equal(first.toolCalls, [
      { id: 'toolu_1', name: 'arxiv_search', arguments: { query: 'ozone' } },
      { id: 'toolu_2', name: 'arxiv_search', arguments: { query: 'MLS' } },
    ]);
    assert.equal(srv.requests[0].body.tools, [{ name: 'arxiv_search', description: 'Search arXiv', input_schema: TOOL.parameters }]);
    const second = await c.chat({
      messages: [
        ...USER,
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'toolu_1', name: 'arxiv_search', content: 'r1' },
        { role: 'tool', toolCallId: 'toolu_2', name: 'arxiv_search', content: 'r2' },
        { role: 'user', content: 'Now rank.' },
      ],
      tools: [TOOL],
    });
    assert.is(second.text, 'done');
    const msgs = srv.requests[1].body.messages;
    assert.is(msgs.length, 3, 'user, assistant, one user message holding both results and the text');
    assert.equal(msgs[1], {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me search.' },
        { type: 'tool_use', id: 'toolu_1', name: 'arxiv_search', input: { query: 'ozone' } },
        { type: 'tool_use', id: 'toolu_2', name: 'arxiv_search', input: { query: 'MLS' } },
      ],
    });
    assert.equal(msgs[2], {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'r1' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'r2' },
        { type: 'text', text: 'Now rank.' },
      ],
    });
  });
});

test('429 then success and 500 then success: the client retries (one policy for every vendor); one answer, one record', async () => {
  for (const start of [startFakeOpenAI, startFakeAnthropic]) {
    await withServer(await start([fakeReplies.rateLimited(), fakeReplies.serverError(), { text: 'ok' }]), async (srv) => {
      const store = memoryRecordStore();
      const c = createLlmClient(start === startFakeOpenAI ? openaiConfig(srv.url) : anthropicConfig(srv.url), { ...FAST, mode: 'record', store });
      const r = await c.chat({ messages: USER });
      assert.is(r.text, 'ok');
      assert.is(srv.requests.length, 3);
      assert.is(store.size(), 1);
    });
  }
});

test('persistent 500 → EoError LLM with status; nothing recorded; retries bounded', async () => {
  await withServer(await startFakeOpenAI([fakeReplies.serverError()]), async (srv) => {
    const store = memoryRecordStore();
    const c = createLlmClient(openaiConfig(srv.url), { ...FAST, maxRetries: 1, mode: 'record', store });
    const e = await rejects(c.chat({ messages: USER }));
    assert.ok(isEoError(e, 'LLM'), String(e));
    assert.is(e.details?.status, 500);
    assert.ok(e.message.includes('fake-gpt') && e.message.includes('Name a sea-ice dataset'), e.message);
    assert.is(srv.requests.length, 2);
    assert.is(store.size(), 0);
  });
});

test('slow server → SDK timeout → EoError LLM', async () => {
  await withServer(await startFakeAnthropic([fakeReplies.slow(2000)]), async (srv) => {
    const c = createLlmClient(anthropicConfig(srv.url), { ...FAST, timeoutMs: 150, maxRetries: 0, mode: 'live' });
    const t0 = Date.now();
    const e = await rejects(c.chat({ messages: USER }));
    assert.ok(isEoError(e, 'LLM'), String(e));
    assert.ok(/timed? ?out/i.test(e.message), e.message);
    assert.ok(Date.now() - t0 < 1500);
  });
  await withServer(await startFakeOpenAI([{ hang: true }]), async (srv) => {
    const c = createLlmClient(openaiConfig(srv.url), { ...FAST, timeoutMs: 150, maxRetries: 1, mode: 'live' });
    const e = await rejects(c.chat({ messages: USER }));
    assert.ok(isEoError(e, 'LLM'), String(e));
    assert.is(srv.requests.length, 2, 'a timeout is retried');
  });
});

test('non-JSON or wrong-shape 200 body → EoError LLM naming the problem; not recorded', async () => {
  for (const [start, cfg] of [[startFakeOpenAI, openaiConfig], [startFakeAnthropic, anthropicConfig]] as const) {
    await withServer(await start([{ raw: 'this is not json', contentType: 'text/plain' }, { raw: '{"unexpected": true}' }]), async (srv) => {
      const store = memoryRecordStore();
      const c = createLlmClient(cfg(srv.url), { ...FAST, mode: 'record', store });
      const e1 = await rejects(c.chat({ messages: USER }));
      assert.ok(isEoError(e1, 'LLM') && e1.message.includes('unexpected response shape') && e1.message.includes('this is not json'), e1.message);
      const e2 = await rejects(c.chat({ messages: USER }));
      assert.ok(isEoError(e2, 'LLM') && e2.message.includes('keys unexpected'), e2.message);
      assert.is(store.size(), 0);
    });
  }
});

test('replay miss → LLM_REPLAY_MISS naming key and first user message; record mode needs a store', async () => {
  const c = createLlmClient(openaiConfig('http://127.0.0.1:9/v1'), { mode: 'replay', store: memoryRecordStore(), env: {} });
  const e = await rejects(c.chat({ messages: USER, sample: 3 }));
  assert.ok(isEoError(e, 'LLM_REPLAY_MISS'));
  const key = llmRecordKey(openaiConfig('x'), { messages: USER, sample: 3 });
  assert.ok(e.message.includes(key), e.message);
  assert.ok(e.message.includes('Name a sea-ice dataset.'));
  assert.ok(e.message.includes('sample 3'));
  assert.throws(() => createLlmClient(openaiConfig('x'), { mode: 'record' }), (err: unknown) => isEoError(err, 'CONFIG'));
});

test('record key: defaults resolved, key order irrelevant; sample, tools, model id and snapshot change it', () => {
  const cfg = openaiConfig('http://a');
  const k = llmRecordKey(cfg, { messages: USER });
  assert.is(llmRecordKey(cfg, { messages: USER, temperature: 0, sample: 0 }), k);
  assert.is(llmRecordKey({ ...cfg, baseUrl: 'http://elsewhere' }, { messages: USER }), k, 'base URL is not part of the key');
  const reordered = USER.map((m) => JSON.parse(JSON.stringify(m, Object.keys(m).reverse())));
  assert.is(llmRecordKey(cfg, { messages: reordered }), k);
  assert.is.not(llmRecordKey(cfg, { messages: USER, sample: 1 }), k);
  assert.is.not(llmRecordKey(cfg, { messages: USER, temperature: 0.2 }), k);
  assert.is.not(llmRecordKey(cfg, { messages: USER, tools: [TOOL] }), k);
  assert.is.not(llmRecordKey({ ...cfg, id: 'other' }, { messages: USER }), k);
  assert.is.not(llmRecordKey({ ...cfg, model: 'gpt-fake-2025' }, { messages: USER }), k);
});

test('resume: a rerun in record mode re-issues no recorded call (counting server)', async () => {
  let calls = 0;
  await withServer(await startFakeOpenAI((req) => (calls++, { text: `answer to ${lastUserText(req.body)}` })), async (srv) => {
    const file = tmpFile();
    const prompts = ['q1', 'q2', 'q3', 'q4', 'q5'];
    const run = async (upTo: number) => {
      const c = createLlmClient(openaiConfig(srv.url), { ...FAST, mode: 'record', store: file });
      const out: string[] = [];
      for (const p of prompts.slice(0, upTo)) out.push((await c.chat({ messages: [{ role: 'user', content: p }] })).text);
      return { out, c };
    };
    await run(3); // "interrupted" after three calls
    assert.is(calls, 3);
    const { out, c } = await run(5);
    assert.is(calls, 5, 'only the two missing calls went to the API');
    assert.equal(out, prompts.map((p) => `answer to ${p}`));
    assert.is(c.stats.recordedCalls, 3);
    assert.is(c.stats.liveCalls, 2);
    assert.is(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length, 5);
  });
});

test('identical concurrent requests share one live call', async () => {
  await withServer(await startFakeOpenAI([{ text: 'x', delayMs: 50 }]), async (srv) => {
    const c = createLlmClient(openaiConfig(srv.url), { ...FAST, mode: 'record', store: memoryRecordStore() });
    const rs = await Promise.all([1, 2, 3].map(() => c.chat({ messages: USER })));
    assert.is(srv.requests.length, 1);
    assert.ok(rs.every((r) => r.text === 'x'));
  });
});

test('concurrency limit per model: at most maxConcurrency calls in flight, across clients', async () => {
  let inFlight = 0;
  let peak = 0;
  const script = async () => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise((r) => setTimeout(r, 40));
    inFlight--;
    return { text: 'ok' };
  };
  await withServer(await startFakeOpenAI(script), async (srv) => {
    const cfg = openaiConfig(srv.url, { id: 'limited', maxConcurrency: 2 });
    const c = createLlmClient(cfg, { ...FAST, mode: 'live' });
    const c2 = createLlmClient(cfg, { ...FAST, mode: 'live' }); // a second client of the same model shares the limit
    await Promise.all([1, 2, 3, 4, 5, 6].map((i) => (i % 2 ? c : c2).chat({ messages: [{ role: 'user', content: `q${i}` }] })));
    assert.is(srv.requests.length, 6);
    assert.is(peak, 2);
  });
});

test('store: torn last line ignored with a warning, repaired before the next append; earlier lines kept', async () => {
  await withServer(await startFakeOpenAI((req) => ({ text: lastUserText(req.body) })), async (srv) => {
    const file = tmpFile();
    const c = createLlmClient(openaiConfig(srv.url), { ...FAST, mode: 'record', store: file });
    await c.chat({ messages: [{ role: 'user', content: 'a' }] });
    await c.chat({ messages: [{ role: 'user', content: 'b' }] });
    const good = fs.readFileSync(file, 'utf8');
    fs.appendFileSync(file, '{"v":1,"key":"torn","configId":"fake-gpt","request":{"mess'); // crash mid-write
    const warnings: string[] = [];
    const store = openRecordStore(file, { log: (l) => warnings.push(l) });
    assert.is(store.size(), 2);
    assert.is(warnings.length, 1);
    assert.ok(warnings[0].includes(':3:') && warnings[0].includes('torn'), warnings[0]);
    const c2 = createLlmClient(openaiConfig(srv.url), { ...FAST, mode: 'record', store });
    assert.is((await c2.chat({ messages: [{ role: 'user', content: 'a' }] })).fromRecording, true);
    await c2.chat({ messages: [{ role: 'user', content: 'c' }] });
    const after = fs.readFileSync(file, 'utf8');
    assert.ok(after.startsWith(good), 'earlier lines untouched');
    const lines = after.split('\n').filter(Boolean);
    assert.is(lines.length, 3);
    lines.forEach((l) => JSON.parse(l));
    assert.ok(fs.readFileSync(`${file}.torn`, 'utf8').includes('"key":"torn"'));
    // replay over the repaired file
    const rep = createLlmClient(openaiConfig(srv.url), { mode: 'replay', store: file, env: {}, log: () => {} });
    assert.is((await rep.chat({ messages: [{ role: 'user', content: 'c' }] })).text, 'c');
  });
});

test('store: a bad line in the middle is skipped with a warning naming file and line, and listed; a complete last line without newline is kept', () => {
  const file = tmpFile();
  const rec = (key: string): LlmRecord => ({
    v: 1, key, configId: 'x', provider: 'openai', requestedModel: 'm',
    request: { messages: [{ role: 'user', content: key }], tools: [], temperature: 0, maxTokens: null, sample: 0 },
    response: { text: key, toolCalls: [], stopReason: 'stop', model: 'm', usage: { inputTokens: 1, outputTokens: 1 }, raw: null },
    costUsd: 0, latencyMs: 1, timestamp: '2026-01-01T00:00:00Z',
  });
  fs.writeFileSync(file, JSON.stringify(rec('a')) + '\n{oops\n' + JSON.stringify(rec('b')) + '\n');
  const w1: string[] = [];
  const s1 = openRecordStore(file, { log: (l) => w1.push(l) });
  assert.equal(s1.records().map((r) => r.key), ['a', 'b'], 'the lines around the bad one are read');
  assert.is(w1.length, 1);
  assert.ok(w1[0].includes(`${file}:2`) && /invalid JSON/.test(w1[0]), w1[0]);
  assert.equal(s1.skipped().map((x) => x.line), [2]);
  const f2 = tmpFile();
  fs.writeFileSync(f2, JSON.stringify(rec('a')) + '\n' + JSON.stringify({ ...rec('b'), response: {} }) + '\n');
  const w2: string[] = [];
  const s2 = openRecordStore(f2, { log: (l) => w2.push(l) });
  assert.equal(s2.records().map((r) => r.key), ['a'], 'an invalid record is never read as one');
  assert.ok(w2.length === 1 && w2[0].includes(`${f2}:2`) && w2[0].includes('response.text'), w2.join('\n'));
  assert.is(s2.skipped().length, 1);
  const f3 = tmpFile();
  fs.writeFileSync(f3, JSON.stringify(rec('a')) + '\n' + JSON.stringify(rec('b')));
  const s = openRecordStore(f3, { log: () => assert.unreachable('no warning') });
  assert.is(s.size(), 2);
  s.append(rec('c'));
  const lines = fs.readFileSync(f3, 'utf8').split('\n');
  assert.is(lines.length, 4);
  assert.equal(lines.slice(0, 3).map((l) => JSON.parse(l).key), ['a', 'b', 'c']);
});

test('API keys never appear in errors, records or console output', async () => {
  const secretOpenAI = 'sk-proj-SECRETSECRET-do-not-leak-42';
  const secretAnthropic = 'weird-anthropic-secret-value-99';
  const env = { OPENAI_API_KEY: secretOpenAI, ANTHROPIC_API_KEY: secretAnthropic };
  // servers that echo the credentials they receive (as a badly behaved proxy might)
  const echo = (req: any) => ({ status: 401, message: `invalid key ${req.headers.authorization} ${req.headers['x-api-key'] ?? ''}` });
  const captured: string[] = [];
  const orig = { log: console.log, warn: console.warn, error: console.error, info: console.info, debug: console.debug, out: process.stdout.write, err: process.stderr.write };
  const grab = (...a: unknown[]) => void captured.push(a.map(String).join(' '));
  console.log = console.warn = console.error = console.info = console.debug = grab;
  (process.stdout as any).write = (s: unknown) => (captured.push(String(s)), true);
  (process.stderr as any).write = (s: unknown) => (captured.push(String(s)), true);
  const errors: unknown[] = [];
  const files: string[] = [];
  try {
    for (const [start, cfg, secret] of [
      [startFakeOpenAI, openaiConfig, secretOpenAI],
      [startFakeAnthropic, anthropicConfig, secretAnthropic],
    ] as const) {
      const srv = await start(echo);
      try {
        const file = tmpFile();
        files.push(file);
        const c = createLlmClient(cfg(srv.url), { mode: 'record', store: file, env, maxRetries: 0, timeoutMs: 5000 }); // default log: console.warn
        const e = await rejects(c.chat({ messages: USER }));
        errors.push(e);
        assert.ok(srv.requests[0].headers.authorization?.includes(secret) || srv.requests[0].headers['x-api-key'] === secret, 'the key was sent');
        // a successful call is recorded; the key must not be in it either
        const srv2 = await start([{ text: 'fine' }]);
        try {
          const c2 = createLlmClient(cfg(srv2.url), { mode: 'record', store: file, env, maxRetries: 0 });
          await c2.chat({ messages: USER });
        } finally {
          await srv2.close();
        }
      } finally {
        await srv.close();
      }
    }
  } finally {
    Object.assign(console, { log: orig.log, warn: orig.warn, error: orig.error, info: orig.info, debug: orig.debug });
    (process.stdout as any).write = orig.out;
    (process.stderr as any).write = orig.err;
  }
  for (const e of errors) {
    assert.ok(isEoError(e, 'LLM'), String(e));
    const text = `${(e as Error).message} ${(e as Error).stack} ${JSON.stringify((e as EoError).details)} ${String((e as Error).cause ?? '')}`;
    assert.ok(text.includes('invalid key'), 'the server message came through');
    assert.not.ok(text.includes(secretOpenAI) || text.includes(secretAnthropic), text);
    assert.ok(text.includes('[REDACTED]'));
  }
  for (const f of files) {
    const t = fs.readFileSync(f, 'utf8');
    assert.ok(t.includes('fine'));
    assert.not.ok(t.includes(secretOpenAI) || t.includes(secretAnthropic));
  }
  const out = captured.join('\n');
  assert.not.ok(out.includes(secretOpenAI) || out.includes(secretAnthropic), out);
  assert.is(redactSecrets(`key=${secretAnthropic}; Authorization: Bearer abcdefghijklmnop`, [secretAnthropic]), 'key=[REDACTED]; Authorization: Bearer [REDACTED]');
});

test('missing key in live mode → CONFIG naming the variable (not its value); replay needs none', async () => {
  const c = createLlmClient(openaiConfig('http://127.0.0.1:9/v1'), { mode: 'live', env: {} });
  const e = await rejects(c.chat({ messages: USER }));
  assert.ok(isEoError(e, 'CONFIG'));
  assert.ok(e.message.includes('OPENAI_API_KEY'));
  // openai-compatible without apiKeyEnv needs no key (vLLM / Ollama)
  await withServer(await startFakeOpenAI([{ text: 'local' }]), async (srv) => {
    const local: ModelConfig = { id: 'local', provider: 'openai-compatible', model: 'Qwen/Qwen2.5-7B-Instruct', baseUrl: srv.url, inputPricePerMTok: 0, outputPricePerMTok: 0, maxTokens: 8 };
    const r = await createLlmClient(local, { mode: 'live', env: {} }).chat({ messages: USER });
    assert.is(r.text, 'local');
    assert.is(r.costUsd, 0);
    assert.is(srv.requests[0].headers.authorization, 'Bearer EMPTY');
    assert.is(srv.requests[0].body.max_tokens, 8, 'compatible servers get max_tokens');
    assert.is(srv.requests[0].body.max_completion_tokens, undefined);
  });
});

test('models file: default file valid; env override; bad entries name file and field; availability', () => {
  const m = loadModelsFile(undefined, {});
  assert.ok(m.models.length >= 6);
  assert.ok(m.note?.toLowerCase().includes('check'));
  const ids = m.models.map((x) => x.id);
  for (const id of ['gpt-4o-mini', 'gpt-4.1-mini', 'deepseek-chat', 'qwen2.5-7b-vllm']) assert.ok(ids.includes(id), id);
  assert.ok(m.models.some((x) => x.provider === 'anthropic'));
  const f = tmpFile('models.json');
  fs.writeFileSync(f, JSON.stringify({ models: [{ id: 'a', provider: 'openai', model: 'm', inputPricePerMTok: 1, outputPricePerMTok: -2 }] }));
  assert.throws(() => loadModelsFile(undefined, { LLM_MODELS_FILE: f }), (e: unknown) => isEoError(e, 'CONFIG') && /models\[0\]\.outputPricePerMTok/.test((e as Error).message) && (e as Error).message.includes(f));
  fs.writeFileSync(f, JSON.stringify({ models: [{ id: 'a', provider: 'mistral', model: 'm', inputPricePerMTok: 1, outputPricePerMTok: 2 }] }));
  assert.throws(() => loadModelsFile(f), (e: unknown) => isEoError(e, 'CONFIG') && /models\[0\]\.provider/.test((e as Error).message));
  fs.writeFileSync(f, JSON.stringify({ models: [{ id: 'a', provider: 'openai', model: 'm', inputPricePerMTok: 1, outputPricePerMTok: 2 }, { id: 'a', provider: 'openai', model: 'n', inputPricePerMTok: 1, outputPricePerMTok: 2 }] }));
  assert.throws(() => loadModelsFile(f), (e: unknown) => isEoError(e, 'CONFIG') && /duplicate/.test((e as Error).message));
  const av = modelAvailability(m.models, { env: { OPENAI_API_KEY: 'sk-x', EO_VLLM_BASE_URL: 'http://gpu:8000/v1' } });
  const byId = new Map(av.map((a) => [a.id, a]));
  assert.is(byId.get('gpt-4o-mini')!.keySet, true);
  assert.is(byId.get('deepseek-chat')!.keySet, false);
  assert.is(byId.get('deepseek-chat')!.apiKeyEnv, 'DEEPSEEK_API_KEY');
  assert.is(byId.get('qwen2.5-7b-vllm')!.baseUrl, 'http://gpu:8000/v1');
  assert.not.ok(JSON.stringify(av).includes('sk-x'));
});

test('env configuration: EO_LLM_MODE, EO_LLM_STORE, createLlmClientFromEnv', async () => {
  assert.is(llmModeFromEnv({}), 'replay');
  assert.is(llmModeFromEnv({ EO_LLM_MODE: 'Record' }), 'record');
  assert.throws(() => llmModeFromEnv({ EO_LLM_MODE: 'yes' }), (e: unknown) => isEoError(e, 'CONFIG'));
  await withServer(await startFakeOpenAI([{ text: 'from env' }]), async (srv) => {
    const store = tmpFile();
    const models: ModelConfig[] = [{ id: 'dev', provider: 'openai-compatible', model: 'dev-model', baseUrl: 'http://127.0.0.1:9/v1', baseUrlEnv: 'DEV_BASE_URL', inputPricePerMTok: 0, outputPricePerMTok: 0 }];
    const env = { EO_LLM_MODE: 'record', EO_LLM_STORE: store, DEV_BASE_URL: srv.url };
    const c = createLlmClientFromEnv('dev', { models, env });
    assert.is(c.mode, 'record');
    assert.is(c.store?.path, path.resolve(store));
    assert.is((await c.chat({ messages: USER })).text, 'from env');
    assert.throws(() => createLlmClientFromEnv('nope', { models, env }), (e: unknown) => isEoError(e, 'CONFIG') && (e as Error).message.includes('dev'));
  });
});

test('toLlmComplete drives the benchmark LLM query writer; samples are separate calls and records', async () => {
  await withServer(await startFakeOpenAI((req) => ({ text: `I want to study sea ice (sample ${req.n})`, model: 'gpt-fake-2024-01-01-snap' })), async (srv) => {
    const store = memoryRecordStore();
    const c = createLlmClient(openaiConfig(srv.url), { ...FAST, mode: 'record', store });
    const writer = llmQueryWriter({ complete: toLlmComplete(c), model: 'gpt-fake-2024-01-01' });
    const qs = await writer.write({ id: '10.1/x', doi: '10.1/x', title: 'Arctic sea ice decline', abstract: 'We use passive microwave data.', year: 2020, venue: null, source: null, sources: [] });
    assert.is(qs.length, 2);
    assert.is(srv.requests.length, 2);
    assert.is(store.size(), 2);
    assert.is(srv.requests[0].body.temperature, 0.2);
    assert.ok(qs[0].includes('sea ice'));
    const again = await writer.write({ id: '10.1/x', doi: '10.1/x', title: 'Arctic sea ice decline', abstract: 'We use passive microwave data.', year: 2020, venue: null, source: null, sources: [] });
    assert.equal(again, qs);
    assert.is(srv.requests.length, 2, 'served from the store');
  });
});

test('fake arXiv server: Atom feed, term matching, id_list, paging, 503 first', async () => {
  const entries = [
    { id: '2101.00001v1', title: 'Sea ice thickness from CryoSat-2', summary: 'Radar altimetry of Arctic sea ice.', doi: '10.1000/a' },
    { id: '2101.00002v2', title: 'Ozone profiles', summary: 'Aura MLS ozone in the stratosphere.' },
    { id: '2101.00003v1', title: 'Ice sheets', summary: 'Greenland ice mass.' },
  ];
  await withServer(await startFakeArxiv(entries, { failFirst: 1 }), async (srv) => {
    const r0 = await fetch(`${srv.url}/api/query?search_query=all:sea`);
    assert.is(r0.status, 503);
    const t = await (await fetch(`${srv.url}/api/query?search_query=${encodeURIComponent('all:sea AND all:ice')}&max_results=10`)).text();
    assert.ok(t.includes('<feed xmlns="http://www.w3.org/2005/Atom">'));
    assert.ok(t.includes('<opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">2</opensearch:totalResults>'));
    assert.ok(t.indexOf('2101.00001v1') < t.indexOf('2101.00003v1'), 'two matching terms rank first');
    assert.ok(t.includes('<arxiv:doi xmlns:arxiv="http://arxiv.org/schemas/atom">10.1000/a</arxiv:doi>'));
    const byId = await (await fetch(`${srv.url}/api/query?id_list=2101.00002`)).text();
    assert.ok(byId.includes('<title>Ozone profiles</title>') && !byId.includes('Sea ice'));
    const page = await (await fetch(`${srv.queryUrl}?search_query=ice&start=1&max_results=1`)).text();
    assert.is((page.match(/<entry>/g) ?? []).length, 1);
  });
});

test.after(() => fs.rmSync(TMP, { recursive: true, force: true }));

test.run();
