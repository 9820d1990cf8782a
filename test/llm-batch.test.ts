/**
 * Batch mode through the real SDKs against local servers speaking the OpenAI Batch and Anthropic Message Batches
 * protocols: submit → interrupt → resume → collect → replay with zero repeated submissions, partial failures and
 * expiry retried in a new batch, a crash between the API accepting a batch and its id being logged, the budget,
 * and models without a batch API running live through the same store.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLlmClient, type EoError } from '../lib';
import { defaultModelsFilePath, getModelConfig, llmRecordKey, loadModelsFile, normalizeChatRequest, openRecordStore, readBatchLog, runBatch, llmSpend, type ChatRequest, type ModelConfig } from '../lib/llm';
import { startFakeAnthropicBatch, startFakeOpenAIBatch, type FakeBatchItemReply } from './servers/fake-batch';
import { startFakeOpenAI } from './servers/fake-llm';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-llm-batch-'));
let n = 0;
const storeFile = () => path.join(TMP, `${n++}-records.jsonl`);
const ENV = { OPENAI_API_KEY: 'sk-test-openai-key-0000000000', ANTHROPIC_API_KEY: 'sk-ant-test-key-1111111111', DEEPSEEK_API_KEY: 'sk-deepseek-test-22222222' };
const MODELS = loadModelsFile(defaultModelsFilePath(), {}).models;
const at = (id: string, url: string): ModelConfig => ({ ...getModelConfig(id, MODELS), baseUrl: url, baseUrlEnv: undefined });
const noSleep = async () => {};
const quiet = () => {};

/** Six listwise-like requests; the query number is in the user message. */
const REQUESTS: ChatRequest[] = Array.from({ length: 6 }, (_, i) => ({
  messages: [
    { role: 'system', content: 'You are an expert Earth-science dataset retrieval reranker.' },
    { role: 'user', content: `<query>q${i}</query>` },
  ],
  temperature: 0,
  maxTokens: 1024,
  stage: 'listwise',
}));

/** q2 fails once (HTTP 500), q4 expires once; both succeed when retried. Answers say which query they answer. */
function flakyAnswer() {
  const seen = new Map<string, number>();
  return (body: any, customId: string): FakeBatchItemReply => {
    const user = JSON.stringify(body.messages);
    const q = /q(\d)/.exec(user)![1];
    const k = (seen.get(customId) ?? 0) + 1;
    seen.set(customId, k);
    if (q === '2' && k === 1) return { status: 500, message: 'scripted failure' };
    if (q === '4' && k === 1) return 'expire';
    return { text: `{"ranked": [${q}]}`, usage: { inputTokens: 1000, outputTokens: 100 } };
  };
}

/** Each key submitted once, plus once more for each of its failures. */
function submittedOnce(ids: string[], retried: Set<string>): void {
  const count = new Map<string, number>();
  for (const id of ids) count.set(id, (count.get(id) ?? 0) + 1);
  for (const [id, c] of count) assert.is(c, retried.has(id) ? 2 : 1, `submissions of ${id}`);
}

for (const [label, modelId, start] of [
  ['OpenAI Batch (o4-mini)', 'o4-mini', startFakeOpenAIBatch],
  ['Anthropic Message Batches (claude-opus-4-7)', 'claude-opus-4-7', startFakeAnthropicBatch],
] as const) {
  test(`${label}: submit → interrupt → resume → collect (failures and expiry retried) → replay, nothing submitted twice`, async () => {
    const srv = await start({ answer: flakyAnswer(), pollsToEnd: 1 });
    try {
      const config = at(modelId, srv.url);
      const file = storeFile();
      const keys = REQUESTS.map((r) => llmRecordKey(config, normalizeChatRequest(config, r)));
      // run 1: submit and stop (the process "dies" before the batch ends)
      const r1 = await runBatch({ config, requests: REQUESTS, store: file, env: ENV, wait: false, sleep: noSleep, log: quiet });
      assert.is(r1.submittedRequests, 6);
      assert.is(r1.inFlight, 6);
      assert.is(srv.submissions, 1);
      assert.is(readBatchLog(`${file}.batches.jsonl`)[0].batchId, r1.submittedBatches[0], 'batch id persisted');
      // run 1b: resume without waiting: the batch has not ended, nothing new is submitted
      const r1b = await runBatch({ config, requests: REQUESTS, store: file, env: ENV, wait: false, sleep: noSleep, log: quiet });
      assert.is(r1b.submittedRequests, 0);
      assert.is(srv.submissions, 1);
      // run 2: resume and wait: collect 4, retry the failed and the expired one in a new batch, collect them
      const progress: string[] = [];
      const r2 = await runBatch({ config, requests: REQUESTS, store: file, env: ENV, sleep: noSleep, log: quiet, onProgress: (p) => progress.push(`${p.done}/${p.total} ${p.event}`) });
      assert.is(r2.collected, 6);
      assert.is(r2.failed.length, 0);
      assert.is(r2.submittedRequests, 2, 'only the failed and expired items are resubmitted');
      assert.is(srv.submissions, 2);
      submittedOnce(srv.submittedCustomIds, new Set([keys[2], keys[4]]));
      assert.ok(progress.some((l) => /^4\/6 collected batch/.test(l)), progress.join('\n'));
      // run 3: everything recorded: no request at all
      const before = srv.log.length;
      const r3 = await runBatch({ config, requests: REQUESTS, store: file, env: ENV, sleep: noSleep, log: quiet });
      assert.is(r3.alreadyRecorded, 6);
      assert.is(r3.submittedRequests, 0);
      assert.is(srv.log.length, before, 'no API request when everything is recorded');
      // records: same keys as a live call, batch provenance, batch prices
      const store = openRecordStore(file);
      assert.equal(store.records().map((r) => r.key).sort(), [...keys].sort());
      const rec = store.get(keys[0])!;
      assert.is(rec.batch!.api, modelId === 'o4-mini' ? 'openai' : 'anthropic');
      assert.is(rec.stage, 'listwise');
      assert.ok(Math.abs(rec.costUsd - (1000 * config.batchInputPricePerMTok! + 100 * config.batchOutputPricePerMTok!) / 1e6) < 1e-12);
      // replay: the ordinary client serves every request from the store, no key, no server
      const replay = createLlmClient(config, { mode: 'replay', store: file, env: {}, log: quiet });
      for (let i = 0; i < 6; i++) assert.is((await replay.chat(REQUESTS[i])).text, `{"ranked": [${i}]}`);
      // wire bodies: the same adaptation as live calls
      const body = modelId === 'o4-mini' ? JSON.parse(srv.uploads[0].split('\n')[0]).body : JSON.parse(srv.uploads[0]).requests[0].params;
      if (modelId === 'o4-mini') {
        assert.not.ok('temperature' in body);
        assert.is(body.max_completion_tokens, 1024);
        assert.ok(rec.notes!.some((x) => /temperature 0 not sent/.test(x)));
      } else {
        assert.is(body.temperature, 0);
        assert.is(body.max_tokens, 1024);
        assert.not.ok('thinking' in body);
        assert.is(body.system, 'You are an expert Earth-science dataset retrieval reranker.');
      }
    } finally {
      await srv.close();
    }
  });

  test(`${label}: a crash after the API accepted a batch but before its id was logged is resolved without resubmitting`, async () => {
    const srv = await start({ answer: (body) => ({ text: `ok ${/q(\d)/.exec(JSON.stringify(body.messages))![1]}` }), pollsToEnd: 0 });
    try {
      const config = at(modelId, srv.url);
      const file = storeFile();
      const err = await runBatch({ config, requests: REQUESTS, store: file, env: ENV, sleep: noSleep, log: quiet, afterCreate: () => { throw new Error('killed'); } }).catch((e) => e as Error);
      assert.is((err as Error).message, 'killed');
      assert.is(srv.submissions, 1);
      const log = readBatchLog(`${file}.batches.jsonl`);
      assert.is(log[0].batchId, null, 'the id was never logged');
      const lines: string[] = [];
      const r = await runBatch({ config, requests: REQUESTS, store: file, env: ENV, sleep: noSleep, log: (l) => lines.push(l) });
      assert.is(srv.submissions, 1, 'found at the provider, not submitted again');
      assert.is(r.collected, 6);
      assert.ok(lines.some((l) => /accepted before the interruption/.test(l)));
    } finally {
      await srv.close();
    }
  });

  test(`${label}: an unanswered create (the API accepted, the client saw an error) is adopted on resume`, async () => {
    const srv = await start({ answer: () => ({ text: 'ok' }), pollsToEnd: 0, acceptThenFail: 1 });
    try {
      const config = at(modelId, srv.url);
      const file = storeFile();
      const e = await runBatch({ config, requests: REQUESTS.slice(0, 3), store: file, env: ENV, sleep: noSleep, log: quiet }).catch((x) => x as EoError);
      assert.is((e as EoError).code, 'LLM');
      assert.is(srv.submissions, 1, 'the SDK did not retry the create');
      const r = await runBatch({ config, requests: REQUESTS.slice(0, 3), store: file, env: ENV, sleep: noSleep, log: quiet });
      assert.is(srv.submissions, 1);
      assert.is(r.collected, 3);
    } finally {
      await srv.close();
    }
  });
}

test('an Anthropic resume adopts a batch only when its request ids are the submission\'s: another store\'s and model\'s batch of the same size, just created, is not taken', async () => {
  const srv = await startFakeAnthropicBatch({ answer: () => ({ text: 'ok' }), pollsToEnd: 0 });
  try {
    // store A, claude-haiku: three requests batched and collected
    const fileA = storeFile();
    const a = await runBatch({ config: at('claude-haiku-4-5', srv.url), requests: REQUESTS.slice(0, 3), store: fileA, env: ENV, sleep: noSleep, log: quiet });
    assert.is(a.collected, 3);
    assert.is(srv.submissions, 1);
    // store B, claude-opus, the same three questions: its create never reaches the API (nothing listens there)
    const fileB = storeFile();
    const lost = await runBatch({ config: at('claude-opus-4-7', 'http://127.0.0.1:9'), requests: REQUESTS.slice(0, 3), store: fileB, env: ENV, sleep: noSleep, log: quiet }).catch((x) => x as EoError);
    assert.is((lost as EoError).code, 'LLM');
    assert.is(srv.submissions, 1);
    // resumed seconds later: A's batch has B's size and time, but not B's request ids, so B submits its own
    const lines: string[] = [];
    const b = await runBatch({ config: at('claude-opus-4-7', srv.url), requests: REQUESTS.slice(0, 3), store: fileB, env: ENV, sleep: noSleep, log: (l) => lines.push(l) });
    assert.is(b.collected, 3, JSON.stringify(b));
    assert.is(srv.submissions, 2);
    assert.not.match(lines.join('\n'), /found batch .* accepted before the interruption/);
    const subs = readBatchLog(`${fileB}.batches.jsonl`);
    assert.is(subs.length, 2);
    assert.match(subs[0].abandoned ?? '', /never submitted/);
    assert.is(subs[1].batchId, 'msgbatch_2', 'its own batch, not A\'s msgbatch_1');
    const recs = openRecordStore(fileB).records();
    assert.is(recs.length, 3);
    assert.ok(recs.every((r) => r.configId === 'claude-opus-4-7'));
  } finally {
    await srv.close();
  }
});

test('a torn last line of the batch log (a write cut short) is set aside, not fatal, and nothing is lost', async () => {
  const srv = await startFakeOpenAIBatch({ answer: () => ({ text: 'ok' }), pollsToEnd: 0 });
  try {
    const config = at('gpt-5.5', srv.url);
    const file = storeFile();
    await runBatch({ config, requests: REQUESTS.slice(0, 2), store: file, env: ENV, sleep: noSleep, log: quiet });
    fs.appendFileSync(`${file}.batches.jsonl`, '{"type":"intent","sid":"x');
    assert.is(readBatchLog(`${file}.batches.jsonl`).length, 1, 'torn line ignored on read');
    const r = await runBatch({ config, requests: REQUESTS.slice(0, 4), store: file, env: ENV, sleep: noSleep, log: quiet });
    assert.is(r.alreadyRecorded, 2);
    assert.is(r.collected, 2);
    assert.is(readBatchLog(`${file}.batches.jsonl`).length, 2);
    assert.match(fs.readFileSync(`${file}.batches.jsonl.torn`, 'utf8'), /"sid":"x/);
  } finally {
    await srv.close();
  }
});

test('failures past maxAttempts are reported, not retried forever', async () => {
  const srv = await startFakeOpenAIBatch({ answer: (body) => (/q1/.test(JSON.stringify(body.messages)) ? { status: 400, message: 'bad request (scripted)' } : { text: 'ok' }), pollsToEnd: 0 });
  try {
    const config = at('gpt-5.5', srv.url);
    const file = storeFile();
    const r = await runBatch({ config, requests: REQUESTS.slice(0, 3), store: file, env: ENV, sleep: noSleep, log: quiet, maxAttempts: 2 });
    assert.is(r.collected, 2);
    assert.is(r.failed.length, 1);
    assert.is(r.failed[0].attempts, 2);
    assert.match(r.failed[0].reason, /HTTP 400: bad request/);
    assert.is(srv.submissions, 2);
    const again = await runBatch({ config, requests: REQUESTS.slice(0, 3), store: file, env: ENV, sleep: noSleep, log: quiet, maxAttempts: 2 });
    assert.is(srv.submissions, 2, 'a final failure is not resubmitted by a rerun');
    assert.is(again.failed.length, 1);
  } finally {
    await srv.close();
  }
});

test('budget: a batch run stops submitting before the estimate would exceed it, and a rerun with more budget continues', async () => {
  const srv = await startFakeOpenAIBatch({ answer: () => ({ text: 'ok' }), pollsToEnd: 0 });
  try {
    const config = at('gpt-5.5', srv.url);
    const file = storeFile();
    const lines: string[] = [];
    // one request ≈ 30 input tokens + (64 + 400 reasoning) output tokens at batch prices ≈ 0.0033 USD
    const r = await runBatch({ config, requests: REQUESTS, store: file, env: { ...ENV, EO_LLM_BUDGET_USD: '0.01' }, sleep: noSleep, log: (l) => lines.push(l) });
    assert.ok(r.submittedRequests >= 1 && r.submittedRequests < 6, `submitted ${r.submittedRequests}`);
    assert.is(r.notSubmittedForBudget, 6 - r.submittedRequests);
    assert.ok(r.estimatedCostUsd <= 0.01);
    assert.ok(lines.some((l) => /EO_LLM_BUDGET_USD=0.01/.test(l)));
    const r2 = await runBatch({ config, requests: REQUESTS, store: file, env: { ...ENV, EO_LLM_BUDGET_USD: '1' }, sleep: noSleep, log: quiet });
    assert.is(r2.alreadyRecorded, r.submittedRequests);
    assert.is(r2.collected, 6 - r.submittedRequests);
    assert.is(srv.submittedCustomIds.length, 6, 'each request submitted once over both runs');
  } finally {
    await srv.close();
  }
});

test('budget: it stops on the worst case of what would be submitted, so answers that use their whole limit never take a store past it, and a rerun at the same budget spends nothing more', async () => {
  // every answer bills its whole limit (1024 output tokens, reasoning included), far above the planning estimate
  const srv = await startFakeOpenAIBatch({ answer: () => ({ text: 'ok', usage: { inputTokens: 40, outputTokens: 1024 } }), pollsToEnd: 0 });
  try {
    const config = at('gpt-5.5', srv.url);
    const file = storeFile();
    const env = { ...ENV, EO_LLM_BUDGET_USD: '0.02' };
    const first = await runBatch({ config, requests: REQUESTS, store: file, env, sleep: noSleep, log: quiet });
    const spent = () => openRecordStore(file).records().reduce((a, r) => a + r.costUsd, 0);
    assert.ok(first.collected >= 1 && first.notSubmittedForBudget >= 1, JSON.stringify(first));
    assert.ok(spent() <= 0.02, `spent ${spent()}`);
    const lines: string[] = [];
    const again = await runBatch({ config, requests: REQUESTS, store: file, env, sleep: noSleep, log: (l) => lines.push(l) });
    assert.is(again.submittedRequests, 0);
    assert.is(openRecordStore(file).records().length, first.collected);
    assert.ok(spent() <= 0.02);
    assert.ok(lines.some((l) => /not submitted: the store has recorded \d+\.\d{4} USD/.test(l) && /whole token limits/.test(l)), lines.join('\n'));
  } finally {
    await srv.close();
  }
});

test('budget: the live path of a batch run (no batch API) says on its log, once, how many requests it did not send and the spend so far', async () => {
  const srv = await startFakeOpenAI(() => ({ text: 'ok', usage: { inputTokens: 40, outputTokens: 1024 } }));
  try {
    const lines: string[] = [];
    const r = await runBatch({ config: at('deepseek-v4-pro', srv.url), requests: REQUESTS, store: storeFile(), env: { ...ENV, EO_LLM_BUDGET_USD: '0.000001' }, sleep: noSleep, log: (l) => lines.push(l) });
    assert.is(r.notSubmittedForBudget, 6);
    assert.is(srv.requests.length, 0);
    const said = lines.filter((l) => /request\(s\) not sent/.test(l));
    assert.is(said.length, 1, lines.join('\n'));
    assert.match(said[0], /deepseek-v4-pro: 6 request\(s\) not sent: .*the store has recorded 0\.0000 USD of EO_LLM_BUDGET_USD=0\.000001 USD.*rerun with a higher budget/);
  } finally {
    await srv.close();
  }
});

test('budget: a live call is refused before it is sent when the estimate would exceed the budget', async () => {
  const srv = await startFakeOpenAI([{ text: 'ok', usage: { inputTokens: 10, outputTokens: 10 } }]);
  try {
    const spent = llmSpend.spentUsd;
    const client = createLlmClient(at('gpt-5.4', srv.url), { mode: 'record', store: storeFile(), env: ENV, budgetUsd: spent + 0.0001, log: quiet });
    const e = await client.chat(REQUESTS[0]).catch((x) => x as EoError);
    assert.is((e as EoError).code, 'LLM_BUDGET');
    assert.match((e as Error).message, /rerun with a higher budget to resume/);
    assert.is(srv.requests.length, 0, 'nothing sent');
  } finally {
    await srv.close();
  }
});

test('a model without a batch API (deepseek-v4-pro) runs live through the same store under --batch', async () => {
  const srv = await startFakeOpenAI((req) => ({ text: `live ${/q(\d)/.exec(JSON.stringify(req.body.messages))![1]}` }));
  try {
    const config = at('deepseek-v4-pro', srv.url);
    const file = storeFile();
    const r = await runBatch({ config, requests: REQUESTS.slice(0, 4), store: file, env: ENV, sleep: noSleep, log: quiet });
    assert.is(r.api, 'none');
    assert.is(r.collected, 4);
    assert.is(srv.requests.length, 4);
    const again = await runBatch({ config, requests: REQUESTS.slice(0, 4), store: file, env: ENV, sleep: noSleep, log: quiet });
    assert.is(again.collected, 0);
    assert.is(srv.requests.length, 4);
    assert.is(openRecordStore(file).records()[0].stage, 'listwise');
  } finally {
    await srv.close();
  }
});

test('progress lines show live in-flight and failed counts (not the end-of-run fields)', async () => {
  const srv = await startFakeOpenAIBatch({ answer: flakyAnswer(), pollsToEnd: 1 });
  try {
    const config = at('o4-mini', srv.url);
    const seen: { inFlight: number; failed: number; event: string }[] = [];
    const r = await runBatch({ config, requests: REQUESTS, store: storeFile(), env: ENV, sleep: noSleep, log: quiet, onProgress: (p) => seen.push({ inFlight: p.inFlight, failed: p.failed, event: p.event }) });
    assert.is(r.collected, 6);
    const show = seen.map((p) => `${p.inFlight} in flight, ${p.failed} failed — ${p.event}`).join('\n');
    const first = seen.find((p) => /^submitted batch/.test(p.event))!;
    assert.is(first.inFlight, 6, show);
    assert.ok(seen.some((p) => /^waiting for 1 batch/.test(p.event) && p.inFlight === 6), show);
    // q2 failed and q4 expired in the first batch: 2 failed until their retry is submitted
    const collected = seen.find((p) => /^collected batch .*2 failed/.test(p.event))!;
    assert.equal([collected.inFlight, collected.failed], [0, 2], show);
    const retry = seen.filter((p) => /^submitted batch/.test(p.event))[1];
    assert.equal([retry.inFlight, retry.failed], [2, 0], show);
    assert.equal([seen.at(-1)!.inFlight, seen.at(-1)!.failed, seen.at(-1)!.event], [0, 0, 'done']);
  } finally {
    await srv.close();
  }
});

test('live path (no batch API): progress counts calls in flight and failures as they happen', async () => {
  const srv = await startFakeOpenAI((req) => (/q3/.test(JSON.stringify(req.body.messages)) ? { status: 400, message: 'bad request (scripted)' } : { text: 'ok' }));
  try {
    const seen: { done: number; inFlight: number; failed: number; event: string }[] = [];
    const r = await runBatch({ config: at('deepseek-v4-pro', srv.url), requests: REQUESTS.slice(0, 4), store: storeFile(), env: ENV, sleep: noSleep, maxRetries: 0, log: quiet, onProgress: (p) => seen.push({ done: p.done, inFlight: p.inFlight, failed: p.failed, event: p.event }) });
    assert.is(r.failed.length, 1);
    const show = seen.map((p) => `${p.done} done, ${p.inFlight} in flight, ${p.failed} failed — ${p.event}`).join('\n');
    const failure = seen.find((p) => / failed$/.test(p.event))!;
    assert.is(failure.failed, 1, show);
    // each line: in flight = calls started and not yet answered or failed
    for (const p of seen) assert.is(p.inFlight, 4 - p.done - p.failed, show);
    assert.ok(seen.some((p) => p.inFlight > 0), show);
    assert.equal(seen.at(-1), { done: 3, inFlight: 0, failed: 1, event: 'done' });
  } finally {
    await srv.close();
  }
});

/** A record of an earlier run (another process) in a store file: what it cost is in its costUsd. */
function earlierRecord(file: string, costUsd: number): void {
  const rec = {
    v: 1, key: `earlier-${costUsd}`, configId: 'gpt-5.4', provider: 'openai', requestedModel: 'gpt-5.4', stage: 'listwise', costUsd, latencyMs: 1, timestamp: '2026-01-01T00:00:00Z',
    request: { messages: [{ role: 'user', content: 'earlier' }], tools: [], temperature: 0, maxTokens: null, sample: 0 },
    response: { text: 'x', toolCalls: [], stopReason: 'stop', model: 'gpt-5.4', usage: { inputTokens: 1, outputTokens: 1 }, raw: null },
  };
  fs.appendFileSync(file, JSON.stringify(rec) + '\n');
}

test('budget: cumulative per store — what earlier runs recorded counts, and the message says how to continue', async () => {
  const srv = await startFakeOpenAI(() => ({ text: 'ok', usage: { inputTokens: 10, outputTokens: 10 } }));
  try {
    const spentStore = storeFile();
    earlierRecord(spentStore, 1);
    const client = createLlmClient(at('gpt-5.4', srv.url), { mode: 'record', store: spentStore, env: ENV, budgetUsd: 1, log: quiet });
    const e = (await client.chat(REQUESTS[0]).catch((x) => x)) as EoError;
    assert.is(e.code, 'LLM_BUDGET');
    assert.match(e.message, `the record store ${spentStore} has recorded 1.0000 USD of calls`);
    assert.match(e.message, /rerun with a higher budget to resume: EO_LLM_BUDGET_USD=\d+\.\d\d or more/);
    assert.match(e.message, 'earlier runs\' included');
    assert.is(srv.requests.length, 0, 'nothing sent');
    // the same budget on a store without those records lets the call through
    const fresh = createLlmClient(at('gpt-5.4', srv.url), { mode: 'record', store: storeFile(), env: ENV, budgetUsd: 1, log: quiet });
    assert.is((await fresh.chat(REQUESTS[0])).text, 'ok');
    // the batch path counts the store's recordings too
    const lines: string[] = [];
    const b = await runBatch({ config: at('gpt-5.5', srv.url), requests: REQUESTS, store: spentStore, env: { ...ENV, EO_LLM_BUDGET_USD: '1' }, sleep: noSleep, log: (l) => lines.push(l) });
    assert.is(b.submittedRequests, 0);
    assert.is(b.notSubmittedForBudget, 6);
    assert.ok(lines.some((l) => /the store has recorded 1\.0000 USD/.test(l) && /EO_LLM_BUDGET_USD=\d+\.\d\d or more/.test(l)), lines.join('\n'));
  } finally {
    await srv.close();
  }
});

test('a live answer is scrubbed as its recording is: live and replay return the same text', async () => {
  const leaked = 'sk-proj-abcdefghijklmnop0123456789';
  const srv = await startFakeOpenAI(() => ({ text: `the key is ${leaked} and ${ENV.OPENAI_API_KEY}` }));
  try {
    const file = storeFile();
    const live = await createLlmClient(at('gpt-5.4', srv.url), { mode: 'record', store: file, env: ENV, log: quiet }).chat(REQUESTS[1]);
    assert.not.match(live.text, leaked);
    assert.not.match(live.text, ENV.OPENAI_API_KEY);
    assert.match(live.text, '[REDACTED]');
    const replay = await createLlmClient(at('gpt-5.4', srv.url), { mode: 'replay', store: file, env: {}, log: quiet }).chat(REQUESTS[1]);
    assert.is(replay.text, live.text);
  } finally {
    await srv.close();
  }
});

test.run();
