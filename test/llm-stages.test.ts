/**
 * The three batchable stages (query writer, listwise rerank, judge) build their batch requests with the same
 * functions their live code uses: a batch run followed by the ordinary stage in replay mode finds every answer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLlmClient, judgeRun, listwiseReranker, type Publication } from '../lib';
import { llmQueryWriter, queryWriterRequests } from '../lib/bench';
import { type DatasetRecord } from '../lib/data';
import { createLlmJudge, judgeBatchRequests } from '../lib/judge';
import { defaultModelsFilePath, getModelConfig, loadModelsFile, runBatch, toLlmComplete, type ModelConfig } from '../lib/llm';
import { listwiseBatchRequests, rerankBackbone, type BackboneList, type RerankCandidate } from '../lib/rerank';
import { startFakeAnthropicBatch, startFakeOpenAIBatch } from './servers/fake-batch';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-llm-stages-'));
const ENV = { OPENAI_API_KEY: 'sk-test-openai-key-0000000000', ANTHROPIC_API_KEY: 'sk-ant-test-key-1111111111' };
const MODELS = loadModelsFile(defaultModelsFilePath(), {}).models;
const at = (id: string, url: string, extra: Partial<ModelConfig> = {}): ModelConfig => ({ ...getModelConfig(id, MODELS), baseUrl: url, baseUrlEnv: undefined, ...extra });
const quiet = () => {};
const noSleep = async () => {};

export function dataset(id: string, longName: string): DatasetRecord {
  return {
    id, shortName: id.toUpperCase(), longName, abstract: `About ${longName}.`, doi: null, daac: 'TEST', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null,
    catalogRecordComplete: true, sources: [],
  };
}

function lists(nQueries: number, depth: number): BackboneList[] {
  return Array.from({ length: nQueries }, (_, q) => ({
    query: { id: `q${q}`, text: `query ${q}` },
    candidates: Array.from({ length: depth }, (_, i): RerankCandidate => ({ id: `d${q}-${i}`, record: dataset(`d${q}-${i}`, `dataset ${q} ${i}`), retrievalScore: depth - i, retrievalRank: i + 1, scores: {} }) as RerankCandidate),
  }));
}

test('listwise: batch (Anthropic) then listwiseReranker in replay over the same lists: every window found, order applied', async () => {
  const srv = await startFakeAnthropicBatch({ answer: () => ({ text: '{"ranked": [10, 9, 8]}' }), pollsToEnd: 0 });
  try {
    const config = at('claude-opus-4-7', srv.url);
    const store = path.join(TMP, 'listwise.jsonl');
    const L = lists(3, 15);
    const reqs = listwiseBatchRequests(L);
    assert.is(reqs.length, 3);
    const r = await runBatch({ config, requests: reqs, store, env: ENV, sleep: noSleep, log: quiet });
    assert.is(r.collected, 3);
    const replay = createLlmClient(config, { mode: 'replay', store, env: {}, log: quiet });
    const out = await rerankBackbone(listwiseReranker(replay), L);
    assert.equal(out.run.get('q0')!.slice(0, 4).map((e) => e.docId), ['d0-9', 'd0-8', 'd0-7', 'd0-0']);
    assert.is(replay.stats.recordedCalls, 3);
  } finally {
    await srv.close();
  }
});

test('judge: batch (OpenAI) of the top-20 pairs, then judgeRun with a replay client reads every verdict', async () => {
  const srv = await startFakeOpenAIBatch({ answer: (body) => ({ text: /dataset 0 [02468]\b/.test(JSON.stringify(body.messages)) ? 'YES' : 'NO' }), pollsToEnd: 0 });
  try {
    const config = at('gpt-5.4', srv.url, { id: 'batch-judge' });
    const store = path.join(TMP, 'judge.jsonl');
    const L = lists(1, 25);
    const run = new Map(L.map((l) => [l.query.id, l.candidates.map((c) => ({ docId: c.id, score: c.retrievalScore }))]));
    const byId = new Map(L.flatMap((l) => l.candidates.map((c) => [c.id, c.record] as const)));
    const queries = L.map((l) => l.query);
    const reqs = judgeBatchRequests(run, queries, (id) => byId.get(id));
    assert.is(reqs.length, 20);
    await runBatch({ config, requests: reqs, store, env: ENV, sleep: noSleep, log: quiet });
    const judge = createLlmJudge({ client: createLlmClient(config, { mode: 'replay', store, env: {}, log: quiet }) });
    const res = await judgeRun({ run, queries, datasets: byId, judge });
    assert.is(res.macro['P@5'], 3 / 5); // d0-0, d0-2, d0-4
    assert.is(res.macro['P@10'], 5 / 10);
    assert.is(judge.stats.llmCalls, 20);
  } finally {
    await srv.close();
  }
});

test('writer: batch (OpenAI, gpt-5.4-writer at 0.2) then llmQueryWriter in replay returns both samples', async () => {
  const srv = await startFakeOpenAIBatch({ answer: (body, id) => ({ text: `I want to study debris ${id.slice(0, 4)}` }), pollsToEnd: 0 });
  try {
    const config = at('gpt-5.4-writer', srv.url);
    const store = path.join(TMP, 'writer.jsonl');
    const pub: Publication = { id: 'p1', doi: null, title: 'Debris', abstract: 'Debris thickness on glaciers of the Everest region.', year: 2020, venue: null, source: null, sources: [] };
    const reqs = queryWriterRequests(pub);
    await runBatch({ config, requests: reqs, store, env: ENV, sleep: noSleep, log: quiet });
    const body = JSON.parse(srv.uploads[0].split('\n')[0]).body;
    assert.is(body.temperature, 0.2);
    assert.is(body.reasoning_effort, 'none');
    const writer = llmQueryWriter({ complete: toLlmComplete(createLlmClient(config, { mode: 'replay', store, env: {}, log: quiet })), model: config.model });
    const qs = await writer.write(pub);
    assert.is(qs.length, 2);
    assert.ok(qs.every((q) => q.startsWith('I want to study debris')));
    assert.is.not(qs[0], qs[1]);
  } finally {
    await srv.close();
  }
});

test.run();
