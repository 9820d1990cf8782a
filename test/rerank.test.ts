import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DatasetRecord } from '../lib/data/types';
import type { ChatRequest, ChatResponse, LlmClient, ModelConfig } from '../lib/llm/types';
import { createLlmClient, memoryRecordStore } from '../lib/llm';
import { evaluateRun } from '../lib/metrics/metrics';
import type { Qrels } from '../lib/metrics/types';
import {
  applyWindowOrder, candidatesXml, composeWindowOrder, listwiseReranker, loadListwisePrompt, parseRanking, rerankBackbone,
  llmRerankPlan, rerankTable, runFromLists, slidingWindowStarts, summarizeTraces, writeTraceFiles, type BackboneList, type RerankCandidate, type Reranker,
} from '../lib/rerank';
import { startFakeAnthropic, startFakeOpenAI, lastUserText } from './servers/fake-llm';

// ---------------------------------------------------------------- parsing repairs

test('clean JSON: no repair', () => {
  const p = parseRanking('{"ranked": [3, 1, 2]}', 3);
  assert.equal(p.ranked, [3, 1, 2]);
  assert.not.ok(p.failed);
  assert.ok(Object.values(p.repairs).every((v) => v === 0), JSON.stringify(p.repairs));
});

test('JSON inside a code fence', () => {
  const p = parseRanking('Here you go:\n```json\n{"ranked": [2, 1]}\n```\n', 2);
  assert.equal(p.ranked, [2, 1]);
  assert.is(p.repairs.codeFence, 1);
});

test('JSON after reasoning text and <think> blocks; the last ranked object wins', () => {
  const p = parseRanking('<think>maybe {"ranked": [1]} no</think>Candidate 2 measures ozone. So: {"ranked": [2, 3, 1]} — done.', 3);
  assert.equal(p.ranked, [2, 3, 1]);
  assert.is(p.repairs.thinkRemoved, 1);
  assert.is(p.repairs.surroundingText, 1);
  const q = parseRanking('I think {"ranked": [1, 2]} then reconsider {"ranked": [2, 1]}', 2);
  assert.equal(q.ranked, [2, 1]);
});

test('unterminated <think> still finds the JSON', () => {
  const p = parseRanking('<think>the best is 2 {"ranked": [2, 1]}', 2);
  assert.equal(p.ranked, [2, 1]);
  assert.is(p.repairs.thinkRemoved, 1);
});

test('duplicates dropped, out-of-range ignored, non-integers dropped, numeric strings converted', () => {
  const p = parseRanking('{"ranked": [2, 2, 11, 0, -1, 1.5, "3", "[4]", "x", null, {"id": 5}, 1]}', 10);
  assert.equal(p.ranked, [2, 3, 4, 1]);
  assert.is(p.repairs.duplicates, 1);
  assert.is(p.repairs.outOfRange, 3);
  assert.is(p.repairs.nonInteger, 4);
  assert.is(p.repairs.stringIds, 2);
  assert.is(p.repairs.missing, 6);
  assert.not.ok(p.failed);
});

test('bare array accepted and counted', () => {
  const p = parseRanking('Ranking: [3, 1]', 3);
  assert.equal(p.ranked, [3, 1]);
  assert.is(p.repairs.bareArray, 1);
});

// The listwise answer formats rank_llm accepts (RankGPT's "[i] > [j]" above all), each parsed as the model meant it.
test('RankGPT "[3] > [1] > …": the ids in that order (not the last "[4]" as a bare array)', () => {
  const p = parseRanking('[3] > [1] > [2] > [5] > [4]', 5);
  assert.equal(p.ranked, [3, 1, 2, 5, 4]);
  assert.equal([p.repairs.idList, p.repairs.bareArray, p.repairs.missing, p.repairs.surroundingText], [1, 0, 0, 0]);
  assert.not.ok(p.failed);
  assert.equal(parseRanking('[2], [1], [3]', 3).ranked, [2, 1, 3]);
});

test('a plain "3 > 1 > …" chain, anywhere; the last one is the answer', () => {
  assert.equal(parseRanking('3 > 1 > 2 > 5 > 4', 5).ranked, [3, 1, 2, 5, 4]);
  const p = parseRanking('At first 2 > 1, but the dates matter. Final ranking: 3 > 1 > 2.', 3);
  assert.equal(p.ranked, [3, 1, 2]);
  assert.equal([p.repairs.idList, p.repairs.surroundingText], [1, 1]);
  assert.ok(parseRanking('version 1.5 > 1.2 of the product', 5).failed); // decimals are no ids
});

test('a JSON array "[3, 1]" and a comma line "3, 1" (after an optional label), prose around them', () => {
  const a = parseRanking('Here is my answer:\n[3, 1, 2]\nThanks.', 3);
  assert.equal([a.ranked, a.repairs.bareArray, a.repairs.surroundingText], [[3, 1, 2], 1, 1]);
  assert.equal(parseRanking('3, 1, 2, 5, 4', 5).ranked, [3, 1, 2, 5, 4]);
  const l = parseRanking('I weighed the periods first.\nRanking: 3, 1, 2\nThe rest are off topic.', 5);
  assert.equal([l.ranked, l.repairs.idList, l.repairs.missing], [[3, 1, 2], 1, 2]);
});

test('plain lists keep the usual repairs: repeated ids dropped, missing and out-of-range counted', () => {
  const p = parseRanking('[2] > [2] > [9] > [4]', 5);
  assert.equal(p.ranked, [2, 4]);
  assert.equal([p.repairs.duplicates, p.repairs.outOfRange, p.repairs.missing], [1, 1, 3]);
  assert.equal(parseRanking('4 > 4 > 1', 4).ranked, [4, 1]);
});

test('numbers in a sentence are no ranking: counted as failed, never guessed', () => {
  for (const text of ['I compared 1, 2 and 3 and cannot decide.', 'Passage 3 is the most relevant.', 'There are 2, maybe 3, good ones here.']) {
    const p = parseRanking(text, 5);
    assert.ok(p.failed, text);
    assert.equal(p.ranked, []);
    assert.is(p.repairs.failed, 1);
  }
});

test('empty, non-JSON and no-valid-id answers fail (counted) and keep retrieval order', () => {
  for (const [text, field] of [['', 'empty'], ['   ', 'empty'], ['I cannot rank these.', 'failed'], ['{"ranked": [42, "x"]}', 'failed'], ['{"order": [1]}', 'failed']] as const) {
    const p = parseRanking(text, 5);
    assert.ok(p.failed, text);
    assert.equal(p.ranked, []);
    assert.is(p.repairs.failed, 1, text);
    assert.ok(p.repairs[field] >= 1, text);
    assert.equal(composeWindowOrder(p.ranked, 5), [0, 1, 2, 3, 4]);
  }
});

test('strings with braces inside JSON do not confuse the scanner', () => {
  const p = parseRanking('{"note": "a } tricky { string", "ranked": [2, 1]}', 2);
  assert.equal(p.ranked, [2, 1]);
  assert.is(p.repairs.surroundingText, 0);
});

// ---------------------------------------------------------------- Algorithm 1

test('Algorithm 1: ranked ids, then unmentioned in original order, then the tail unchanged', () => {
  assert.equal(composeWindowOrder([3, 1], 5), [2, 0, 1, 3, 4]);
  assert.equal(composeWindowOrder([9, 2, 2, 0, 1.5], 3), [1, 0, 2]);
  const list = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  assert.equal(applyWindowOrder(list, 0, 4, [4, 2]), ['d', 'b', 'a', 'c', 'e', 'f', 'g']);
  assert.equal(applyWindowOrder(list, 2, 3, [3]), ['a', 'b', 'e', 'c', 'd', 'f', 'g']);
});

test('Algorithm 1 invariants on random answers: a permutation of the window, tail and window set fixed', () => {
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let trial = 0; trial < 200; trial++) {
    const k = 1 + Math.floor(rnd() * 12);
    const ranked = Array.from({ length: Math.floor(rnd() * 15) }, () => Math.floor(rnd() * (k + 4)) - 2);
    const order = composeWindowOrder(ranked, k);
    assert.equal([...order].sort((a, b) => a - b), Array.from({ length: k }, (_, i) => i));
    const list = Array.from({ length: 30 }, (_, i) => `d${i}`);
    const out = applyWindowOrder(list, 0, k, ranked);
    assert.equal(out.slice(k), list.slice(k));
    assert.equal(new Set(out.slice(0, k)), new Set(list.slice(0, k)));
  }
});

// ---------------------------------------------------------------- windows, rerankers, runs

function record(id: string, title: string): DatasetRecord {
  return {
    id, shortName: null, longName: title, abstract: `${title} abstract`, doi: null, daac: 'TEST', publisher: null, temporalStart: null,
    temporalEnd: null, keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

function lists(nQueries: number, depth: number): BackboneList[] {
  return Array.from({ length: nQueries }, (_, q) => ({
    query: { id: `q${q}`, text: `query ${q}` },
    candidates: Array.from({ length: depth }, (_, i): RerankCandidate => ({
      id: `C${q}-${i}`, record: record(`C${q}-${i}`, `dataset ${i} <&>`), retrievalScore: depth - i, retrievalRank: i + 1, scores: { fused: depth - i },
    })),
  }));
}

/** Reverses every window (a deterministic fake reranker). */
const reverser: Reranker = {
  id: 'rev', label: 'reverse', kind: 'offline',
  async rerank(q, w) {
    const ranked = w.map((_, i) => w.length - i);
    return { ranked, trace: { reranker: 'rev', queryId: q.id, windowStart: 0, windowSize: w.length, calls: 0, repairs: parseRanking('{"ranked":[1]}', 1).repairs, toolCalls: [], toolRounds: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, latencyMs: 0, ranked, recordKeys: [], notes: [] } };
  },
};

test('R@K for K ≥ window is unchanged by reranking (one window of 10)', async () => {
  const ls = lists(20, 100);
  const qrels: Qrels = new Map(ls.map((l, q) => [l.query.id, new Map([[`C${q}-${q % 12}`, 1], [`C${q}-${(q * 7) % 40}`, 1]])]));
  const base = evaluateRun(runFromLists(ls), qrels);
  const rr = await rerankBackbone(reverser, ls, { window: 10 });
  const after = evaluateRun(rr.run, qrels);
  for (const m of ['R@10', 'R@20', 'R@100'] as const) assert.equal(after.values[m], base.values[m], m);
  assert.ok(after.values.MRR.some((v, i) => v !== base.values.MRR[i]), 'the order inside the window did change');
  for (const l of ls) assert.equal(rr.run.get(l.query.id)!.slice(10).map((e) => e.docId), l.candidates.slice(10).map((c) => c.id));
});

test('sliding window: starts bottom-up, covers the depth, tail below depth unchanged', async () => {
  assert.equal(slidingWindowStarts(100, { window: 10, stride: 5, depth: 20 }).starts, [10, 5, 0]);
  assert.equal(slidingWindowStarts(100, {}).starts, [0]);
  assert.equal(slidingWindowStarts(8, { window: 10, depth: 50 }).starts, [0]);
  const ls = lists(1, 50);
  const rr = await rerankBackbone(reverser, ls, { window: 10, stride: 5, depth: 20 });
  const ids = rr.run.get('q0')!.map((e) => e.docId);
  assert.equal(ids.slice(20), ls[0].candidates.slice(20).map((c) => c.id));
  assert.equal(new Set(ids.slice(0, 20)), new Set(ls[0].candidates.slice(0, 20).map((c) => c.id)));
  assert.is(rr.traces.get('q0')!.length, 3);
  assert.equal(rr.traces.get('q0')!.map((t) => t.windowStart), [10, 5, 0]);
  // bottom-up windows carry a low item upward: the 20th candidate reaches the first window
  assert.ok(ids.slice(0, 10).includes('C0-19'));
});

test('candidates are numbered XML with escaped title and summary', () => {
  const xml = candidatesXml(lists(1, 3)[0].candidates);
  assert.match(xml, /<candidate id="1">\n<title>dataset 0 &lt;&amp;&gt;<\/title>/);
  assert.match(xml, /<candidate id="3">/);
  const tpl = loadListwisePrompt();
  assert.match(tpl.user, /\{\{CANDIDATES\}\}/);
  assert.not.match(tpl.system, /WRITTEN FROM/, 'header comment stripped');
});

// ---------------------------------------------------------------- listwise reranker with a client

function fakeClient(answers: string[]): LlmClient & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  const config: ModelConfig = { id: 'fake', provider: 'openai-compatible', model: 'fake-1', inputPricePerMTok: 1, outputPricePerMTok: 2 };
  return {
    config, mode: 'live', requests, store: null,
    stats: { calls: 0, liveCalls: 0, recordedCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, liveCostUsd: 0 },
    async chat(req): Promise<ChatResponse> {
      requests.push(req);
      const text = answers[Math.min(requests.length - 1, answers.length - 1)];
      return { text, toolCalls: [], stopReason: 'stop', model: 'fake-1', usage: { inputTokens: 100, outputTokens: 10 }, costUsd: 0.00012, latencyMs: 5, recordKey: `k${requests.length}`, fromRecording: false };
    },
  };
}

test('listwise reranker: prompt carries the query and K candidates; repairs and failures counted per model', async () => {
  const ls = lists(3, 15);
  const client = fakeClient(['```json\n{"ranked": [10, 9, 9, 42]}\n```', 'no idea', '{"ranked": [2, 1]}']);
  const t = await rerankTable([{ id: 'toy', label: 'toy', alpha: 0.5, lists: ls, trainLists: [], alphaFrom: {} as any }], [listwiseReranker(client)], new Map(ls.map((l) => [l.query.id, new Map([[l.candidates[9].id, 1]])])));
  assert.is(client.requests.length, 3);
  assert.match(client.requests[0].messages[1].content, /query 0/);
  assert.match(client.requests[0].messages[1].content, /<candidate id="10">/);
  assert.not.match(client.requests[0].messages[1].content, /<candidate id="11">/);
  assert.is(client.requests[0].temperature, 0);
  const o = t.outcomes[0];
  assert.is(o.summary.repairs.codeFence, 1);
  assert.is(o.summary.repairs.duplicates, 1);
  assert.is(o.summary.repairs.outOfRange, 1);
  assert.is(o.summary.failedWindows, 1);
  assert.is(o.summary.calls, 3);
  assert.ok(Math.abs(o.summary.costPerQueryUsd - 0.00012) < 1e-12);
  const q0 = o.reranked.run.get('q0')!.map((e) => e.docId);
  assert.equal(q0.slice(0, 3), ['C0-9', 'C0-8', 'C0-0']);
  assert.equal(o.reranked.run.get('q1')!.map((e) => e.docId), ls[1].candidates.map((c) => c.id), 'failed parse keeps retrieval order');
  assert.is(o.row.MRR, (1 + 1 / 10 + 1 / 10) / 3);
  assert.ok(o.gain.find((g) => g.metric === 'MRR')!.meanDiff > 0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-traces-'));
  try {
    const [file] = writeTraceFiles(dir, t.outcomes);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.map((l) => l.queryId), ['q0', 'q1', 'q2']);
    assert.equal(lines.map((l) => l.recordKeys), [['k1'], ['k2'], ['k3']]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('listwise reranker through the real clients: OpenAI and Anthropic wire formats, record then replay', async () => {
  const ls = lists(2, 10);
  const reply = (body: any) => ({ text: /query 0/.test(lastUserText(body)) ? 'Sure. {"ranked": [5, 4]}' : '<think>hmm</think>{"ranked": [1, 2, 3]}' });
  for (const start of [startFakeOpenAI, startFakeAnthropic]) {
    const srv = await start((req) => reply(req.body));
    try {
      const provider = start === startFakeOpenAI ? 'openai' : 'anthropic';
      const config: ModelConfig = { id: `fake-${provider}`, provider, model: 'm-1', baseUrl: srv.url, apiKeyEnv: 'EO_TEST_FAKE_KEY', inputPricePerMTok: 1, outputPricePerMTok: 1 };
      const store = memoryRecordStore();
      const env = { EO_TEST_FAKE_KEY: 'sk-test-not-a-real-key' };
      const rec = createLlmClient(config, { mode: 'record', store, env, log: () => {} });
      const a = await rerankBackbone(listwiseReranker(rec), ls);
      assert.equal(a.run.get('q0')!.slice(0, 3).map((e) => e.docId), ['C0-4', 'C0-3', 'C0-0'], provider);
      assert.is(a.traces.get('q1')![0].repairs.thinkRemoved, 1);
      assert.is(srv.requests.length, 2);
      const rep = createLlmClient(config, { mode: 'replay', store, env: {}, log: () => {} });
      const b = await rerankBackbone(listwiseReranker(rep), ls);
      assert.is(srv.requests.length, 2, 'replay makes no call');
      assert.equal([...b.run], [...a.run]);
      assert.equal(summarizeTraces(b.traces).repairs, summarizeTraces(a.traces).repairs);
    } finally {
      await srv.close();
    }
  }
});

test('LLM plan: replay runs recorded models only; otherwise "not configured" with the commands to fill the rows', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-plan-'));
  try {
    const store = path.join(dir, 'records.jsonl');
    const none = llmRerankPlan({ env: { EO_LLM_STORE: store } });
    assert.is(none.mode, 'replay');
    assert.is(none.configs.length, 0);
    assert.ok(none.rows.every((r) => /^not configured/.test(r.status)));
    assert.match(none.howTo.join('\n'), /EO_LLM_MODE=record EO_RERANK_MODELS=/);
    const rec = {
      v: 1, key: 'abc', configId: 'gpt-4o-mini', provider: 'openai', requestedModel: 'gpt-4o-mini-2024-07-18',
      request: { messages: [{ role: 'user', content: 'x' }], tools: [], temperature: 0, maxTokens: null, sample: 0 },
      response: { text: '{"ranked":[1]}', toolCalls: [], stopReason: 'stop', model: 'gpt-4o-mini-2024-07-18', usage: { inputTokens: 1, outputTokens: 1 }, raw: {} },
      costUsd: 0, latencyMs: 1, timestamp: '2026-01-01T00:00:00Z',
    };
    fs.writeFileSync(store, JSON.stringify(rec) + '\n');
    const replay = llmRerankPlan({ env: { EO_LLM_STORE: store } });
    assert.equal(replay.configs.map((c) => c.id), ['gpt-4o-mini']);
    assert.match(replay.rows.find((r) => r.model === 'gpt-4o-mini')!.status, /replay \(1 recorded calls\)/);
    const live = llmRerankPlan({ env: { EO_LLM_MODE: 'live', ANTHROPIC_API_KEY: 'sk-ant-secret' } });
    assert.ok(live.configs.length > 0 && live.configs.every((c) => c.provider === 'anthropic'));
    assert.not.match(JSON.stringify(live), /sk-ant-secret/);
    const picked = llmRerankPlan({ env: { EO_LLM_MODE: 'live', ANTHROPIC_API_KEY: 'k', EO_RERANK_MODELS: 'claude-haiku-4-5' } });
    assert.equal(picked.configs.map((c) => c.id), ['claude-haiku-4-5']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
