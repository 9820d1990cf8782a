/**
 * The paper's model entries (lib/llm/models.json) driven through the real SDKs against local servers: the exact
 * request bodies each one sends (no temperature for reasoning models, the right token-limit field, reasoning
 * effort only where accepted, Anthropic thinking off unless asked), notes for dropped options, and the validation
 * of the models file.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLlmClient, type EoError } from '../lib';
import { defaultModelsFilePath, entryWireOptions, getModelConfig, loadModelsFile, memoryRecordStore, type ModelConfig } from '../lib/llm';
import { startFakeAnthropic, startFakeOpenAI, type FakeServer } from './servers/fake-llm';
import { normalizeChatRequest } from '../lib/llm/key';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-llm-models-'));
const ENV = { OPENAI_API_KEY: 'sk-test-openai-key-0000000000', ANTHROPIC_API_KEY: 'sk-ant-test-key-1111111111', DEEPSEEK_API_KEY: 'sk-deepseek-test-22222222' };
const MODELS = loadModelsFile(defaultModelsFilePath(), {}).models;
const MESSAGES = [
  { role: 'system' as const, content: 'You rank datasets.' },
  { role: 'user' as const, content: '<query>sea ice</query>' },
];

/** The entry with its base URL pointed at a local server (everything else as in models.json). */
function local(id: string, srv: FakeServer): ModelConfig {
  const c = getModelConfig(id, MODELS);
  return { ...c, baseUrl: srv.url, baseUrlEnv: undefined };
}

async function bodyOf(id: string, req: Parameters<ReturnType<typeof createLlmClient>['chat']>[0]): Promise<{ body: any; notes: string[] | undefined }> {
  const provider = getModelConfig(id, MODELS).provider;
  const srv = provider === 'anthropic' ? await startFakeAnthropic([{ text: '{"ranked": [1]}' }]) : await startFakeOpenAI([{ text: '{"ranked": [1]}' }]);
  try {
    const store = memoryRecordStore();
    const client = createLlmClient(local(id, srv), { mode: 'record', store, env: ENV, maxRetries: 0, timeoutMs: 5000, log: () => {} });
    await client.chat(req);
    assert.is(srv.requests.length, 1);
    return { body: srv.requests[0].body, notes: store.records()[0].notes };
  } finally {
    await srv.close();
  }
}

test('the paper snapshots are in models.json with declared parameters and batch prices marked to be checked', () => {
  const byModel = new Map(MODELS.map((m) => [m.id, m]));
  for (const [id, snapshot] of [['gpt-5.5', 'gpt-5.5-2026-04-23'], ['gpt-5.4', 'gpt-5.4-2026-03-05'], ['o4-mini', 'o4-mini-2025-04-16'], ['claude-opus-4-7', 'claude-opus-4-7'], ['deepseek-v4-pro', 'deepseek-v4-pro'], ['gpt-5.4-writer', 'gpt-5.4-2026-03-05'], ['qwen3.6-35b-a3b-judge', 'Qwen/Qwen3.6-35B-A3B']]) {
    const m = byModel.get(id);
    assert.ok(m, id);
    assert.is(m!.model, snapshot);
    assert.ok(m!.params, `${id} declares params`);
  }
  for (const id of ['gpt-5.5', 'gpt-5.4', 'o4-mini', 'claude-opus-4-7']) {
    const m = byModel.get(id)!;
    assert.is(m.pricesToBeChecked, true, id);
    assert.ok(m.batchInputPricePerMTok! < m.inputPricePerMTok && m.batchOutputPricePerMTok! < m.outputPricePerMTok, `${id} batch cheaper`);
  }
  assert.is(byModel.get('gpt-5.4-writer')!.defaultTemperature, 0.2);
  assert.is(byModel.get('qwen3.6-35b-a3b-judge')!.baseUrlEnv, 'EO_JUDGE_BASE_URL');
});

test('o4-mini: no temperature, max_completion_tokens, reasoning_effort when asked; the dropped 0 is noted', async () => {
  const { body, notes } = await bodyOf('o4-mini', { messages: MESSAGES, temperature: 0, maxTokens: 1024, reasoningEffort: 'high' });
  assert.equal(Object.keys(body).sort(), ['max_completion_tokens', 'messages', 'model', 'reasoning_effort']);
  assert.is(body.model, 'o4-mini-2025-04-16');
  assert.is(body.max_completion_tokens, 1024);
  assert.is(body.reasoning_effort, 'high');
  assert.ok(notes && notes.some((n) => /temperature 0 not sent/.test(n)), JSON.stringify(notes));
  const bad = await bodyOf('o4-mini', { messages: MESSAGES, reasoningEffort: 'xhigh' });
  assert.not.ok('reasoning_effort' in bad.body, 'an effort the model does not list is never sent');
  assert.ok(bad.notes!.some((n) => /reasoning_effort xhigh not sent/.test(n)));
});

test('gpt-5.5 and gpt-5.4 rerankers: no temperature at the default effort, max_completion_tokens from the entry', async () => {
  for (const [id, snap] of [['gpt-5.5', 'gpt-5.5-2026-04-23'], ['gpt-5.4', 'gpt-5.4-2026-03-05']]) {
    const { body, notes } = await bodyOf(id, { messages: MESSAGES, temperature: 0 });
    assert.equal(body, { model: snap, messages: MESSAGES, max_completion_tokens: 4096 }, id);
    assert.ok(notes!.some((n) => /temperature 0 not sent/.test(n)));
  }
});

test('gpt-5.4 writer: temperature 0.2 with reasoning_effort none (the paper writer), no note', async () => {
  const { body, notes } = await bodyOf('gpt-5.4-writer', { messages: MESSAGES, sample: 1 });
  assert.equal(body, { model: 'gpt-5.4-2026-03-05', messages: MESSAGES, temperature: 0.2, max_completion_tokens: 256, reasoning_effort: 'none' });
  assert.is(notes, undefined);
});

test('claude-opus-4-7: temperature 0, max_tokens, system apart, thinking off unless asked; asked → thinking on, no temperature', async () => {
  const off = await bodyOf('claude-opus-4-7', { messages: MESSAGES, temperature: 0 });
  assert.equal(off.body, { model: 'claude-opus-4-7', max_tokens: 2048, messages: [{ role: 'user', content: '<query>sea ice</query>' }], temperature: 0, system: 'You rank datasets.' });
  assert.is(off.notes, undefined);
  const on = await bodyOf('claude-opus-4-7', { messages: MESSAGES, temperature: 0, maxTokens: 8000, thinking: { budgetTokens: 4000 } });
  assert.equal(on.body.thinking, { type: 'enabled', budget_tokens: 4000 });
  assert.not.ok('temperature' in on.body);
  assert.ok(on.notes!.some((n) => /extended thinking requires the default temperature/.test(n)));
});

test('thinking budgets the vendor would refuse are LLM_CONFIG errors before anything is sent, naming the model and both numbers', async () => {
  const srv = await startFakeAnthropic([{ text: '{"ranked": [1]}' }]);
  try {
    const client = createLlmClient(local('claude-opus-4-7', srv), { mode: 'record', store: memoryRecordStore(), env: ENV, maxRetries: 0, timeoutMs: 5000, log: () => {} });
    const refused = async (req: Parameters<typeof client.chat>[0], re: RegExp) => {
      let err: EoError | null = null;
      try {
        await client.chat(req);
      } catch (e) {
        err = e as EoError;
      }
      assert.ok(err && err.code === 'LLM_CONFIG', String(err));
      assert.match(err!.message, re);
    };
    await refused({ messages: MESSAGES, maxTokens: 1024, thinking: { budgetTokens: 1500 } }, /claude-opus-4-7: thinking budget_tokens 1500 must be below max_tokens 1024/);
    await refused({ messages: MESSAGES, maxTokens: 1024, thinking: { budgetTokens: 4096 } }, /budget_tokens 4096 must be below max_tokens 1024/);
    await refused({ messages: MESSAGES, maxTokens: 8000, thinking: { budgetTokens: 512 } }, /claude-opus-4-7: thinking budget_tokens 512 is below the vendor's minimum of 1024/);
    assert.is(srv.requests.length, 0, 'nothing sent');
    // the limits themselves pass: the minimum, and one below max_tokens
    await client.chat({ messages: MESSAGES, maxTokens: 1025, thinking: { budgetTokens: 1024 } });
    assert.is(srv.requests[0].body.thinking.budget_tokens, 1024);
  } finally {
    await srv.close();
  }
  // a batch line is adapted by the same step (the batch's submit calls entryWireOptions per line): refused alike before any upload
  const config = getModelConfig('claude-opus-4-7', MODELS);
  assert.throws(() => entryWireOptions(config, normalizeChatRequest(config, { messages: MESSAGES, maxTokens: 1024, thinking: { budgetTokens: 1500 } })), /budget_tokens 1500 must be below max_tokens 1024/);
});

test('every models.json entry names a base-URL variable: DeepSeek pointed at a local compatible server by DEEPSEEK_BASE_URL alone', async () => {
  for (const m of MODELS) assert.ok(m.baseUrlEnv && /^[A-Z][A-Z0-9_]*_BASE_URL$/.test(m.baseUrlEnv), `${m.id}: baseUrlEnv ${m.baseUrlEnv}`);
  const srv = await startFakeOpenAI([{ text: 'ok' }]);
  try {
    const ds = getModelConfig('deepseek-v4-pro', MODELS);
    const client = createLlmClient(ds, { mode: 'live', env: { ...ENV, DEEPSEEK_API_KEY: 'sk-test-deepseek-0000', DEEPSEEK_BASE_URL: srv.url }, maxRetries: 0, timeoutMs: 5000, log: () => {} });
    assert.is((await client.chat({ messages: MESSAGES, temperature: 0 })).text, 'ok');
    assert.is(srv.requests.length, 1);
    assert.is(srv.requests[0].body.model, 'deepseek-v4-pro');
  } finally {
    await srv.close();
  }
});

test('deepseek-v4-pro and the vLLM judge: OpenAI-compatible bodies with temperature and max_tokens; judge keyless, URL from env', async () => {
  const ds = await bodyOf('deepseek-v4-pro', { messages: MESSAGES, temperature: 0, reasoningEffort: 'high' });
  assert.equal(ds.body, { model: 'deepseek-v4-pro', messages: MESSAGES, temperature: 0, max_tokens: 2048 });
  assert.ok(ds.notes!.some((n) => /reasoning_effort high not sent/.test(n)));
  const srv = await startFakeOpenAI([{ text: 'YES' }]);
  try {
    const judge = getModelConfig('qwen3.6-35b-a3b-judge', MODELS);
    const client = createLlmClient(judge, { mode: 'live', env: { EO_JUDGE_BASE_URL: srv.url }, maxRetries: 0, timeoutMs: 5000, log: () => {} });
    const r = await client.chat({ messages: MESSAGES, temperature: 0 });
    assert.is(r.text, 'YES');
    assert.equal(srv.requests[0].body, { model: 'Qwen/Qwen3.6-35B-A3B', messages: MESSAGES, temperature: 0, max_tokens: 32 });
    assert.is(srv.requests[0].headers.authorization, 'Bearer EMPTY');
  } finally {
    await srv.close();
  }
});

function writeModels(models: unknown[]): string {
  const f = path.join(TMP, `models-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(f, JSON.stringify({ models }));
  return f;
}

test('models file validation names the entry and the field', () => {
  const base = { id: 'x', provider: 'openai', model: 'm', inputPricePerMTok: 1, outputPricePerMTok: 1 };
  const cases: [unknown, RegExp][] = [
    [{ ...base, params: { temperature: 'low' } }, /models\[0\]\.params\.temperature: expected "any", "default-only" or "effort-none-only"/],
    [{ ...base, params: { tokenLimit: 'max_output_tokens' } }, /models\[0\]\.params\.tokenLimit/],
    [{ ...base, params: { thinking: true } }, /models\[0\]\.params\.thinking: expected false/],
    [{ ...base, params: { topP: 'any' } }, /models\[0\]\.params\.topP: unknown parameter/],
    [{ ...base, reasoningEffort: 'high' }, /models\[0\]\.reasoningEffort: "high" is not one of params\.reasoningEffort \(none accepted\)/],
    [{ ...base, provider: 'anthropic', params: { tokenLimit: 'max_completion_tokens' } }, /models\[0\]\.params\.tokenLimit: expected "max_tokens"/],
    [{ ...base, batchApi: 'anthropic' }, /models\[0\]\.batchApi: anthropic batches cannot carry provider openai/],
    [{ ...base, batchInputPricePerMTok: -1 }, /models\[0\]\.batchInputPricePerMTok: expected a number ≥ 0/],
    [{ ...base, pricesToBeChecked: 'yes' }, /models\[0\]\.pricesToBeChecked/],
    [{ ...base, temprature: 0 }, /models\[0\]\.temprature: unknown field/],
  ];
  for (const [entry, re] of cases) {
    const f = writeModels([entry]);
    try {
      loadModelsFile(f, {});
      assert.unreachable(`accepted ${JSON.stringify(entry)}`);
    } catch (e) {
      assert.is((e as EoError).code, 'CONFIG');
      assert.match((e as Error).message, re);
      assert.ok((e as Error).message.includes(f), 'names the file');
    }
  }
});

test.run();
