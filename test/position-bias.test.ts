// Position bias: the same windows in seeded shuffles; an order-insensitive reranker agrees with itself (τ = 1), a
// reranker that keeps the presented order does not; the LLM path records every call and replays the same shuffles.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { aggregateOrders, positionBias, positionBiasRows } from '../lib/study';
import { listwiseReranker, newTrace, type BackboneList, type RerankCandidate, type Reranker } from '../lib/rerank';
import { createLlmClient, memoryRecordStore } from '../lib/llm';
import type { ModelConfig } from '../lib/llm/types';
import type { DatasetRecord } from '../lib/data';
import type { Qrels } from '../lib/metrics';
import { startFakeOpenAI } from './servers/fake-llm';

const record = (id: string): DatasetRecord => ({
  id, shortName: null, longName: `dataset ${id}`, abstract: '', doi: null, daac: 'X', publisher: null, temporalStart: null, temporalEnd: null,
  keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
});
const lists: BackboneList[] = Array.from({ length: 4 }, (_, q) => ({
  query: { id: `q${q}`, text: `query ${q}` },
  candidates: Array.from({ length: 12 }, (_, i): RerankCandidate => ({ id: `C${q}-${i}`, record: record(`C${q}-${i}`), retrievalScore: 12 - i, retrievalRank: i + 1, scores: {} })),
}));
const qrels: Qrels = new Map(lists.map((l) => [l.query.id, new Map([[l.candidates[3].id, 1]])]));

// sorts the window by retrieval score: the presentation order cannot matter
const byScore: Reranker = {
  id: 'score', label: 'by score', kind: 'offline',
  async rerank(q, w) {
    const ranked = w.map((c, i) => ({ s: c.retrievalScore, id: i + 1 })).sort((a, b) => b.s - a.s).map((x) => x.id);
    return { ranked, trace: { ...newTrace('score', q.id, w.length), ranked } };
  },
};

test('an order-insensitive reranker: τ = 1 in every pair, no MAP/MRR spread, no calls', async () => {
  const r = await positionBias(byScore, lists, qrels, { shuffles: 4, seed: 7 });
  assert.equal(r.seeds, [7, 8, 9, 10]);
  assert.is(r.tau.mean, 1);
  assert.is(r.tau.sd, 0);
  assert.is(r.map.sd, 0);
  assert.is(r.mrr.mean, 1 / 4);
  assert.is(r.aggregated.row.MRR, 1 / 4);
  assert.is(r.cost.calls, 0);
  assert.equal(r.runs[0].get('q0')!.map((e) => e.docId).slice(10), ['C0-10', 'C0-11'], 'tail below the window unchanged');
});

test('aggregateOrders: mean reciprocal rank, ties by mean rank', () => {
  assert.equal(aggregateOrders([['a', 'b', 'c'], ['b', 'a', 'c'], ['a', 'c', 'b']]), ['a', 'b', 'c']);
  assert.equal(aggregateOrders([['a', 'b'], ['b', 'a']]), ['a', 'b']);
  assert.equal(aggregateOrders([['x', 'y', 'z'], ['z', 'y', 'x'], ['y', 'z', 'x']]), ['y', 'z', 'x']); // rr x 1.67, y 2, z 1.83
});

test('an LLM reranker that keeps the presented order: τ spread, recorded calls, exact replay', async () => {
  const srv = await startFakeOpenAI(() => ({ text: '{"ranked": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}', usage: { inputTokens: 50, outputTokens: 5 } }));
  try {
    const config: ModelConfig = { id: 'fake-openai', provider: 'openai', model: 'm-1', baseUrl: srv.url, apiKeyEnv: 'EO_TEST_FAKE_KEY', inputPricePerMTok: 1, outputPricePerMTok: 1 };
    const store = memoryRecordStore();
    const rec = createLlmClient(config, { mode: 'record', store, env: { EO_TEST_FAKE_KEY: 'sk-test-not-a-real-key' }, log: () => {} });
    const a = await positionBias(listwiseReranker(rec), lists, qrels, { shuffles: 3 });
    assert.is(srv.requests.length, 12, '3 shuffles × 4 windows');
    assert.is(a.cost.calls, 12);
    assert.is(a.cost.inputTokens, 12 * 50);
    assert.ok(a.tau.mean < 0.9, `τ ${a.tau.mean}`);
    assert.ok(a.tau.sd > 0);
    const rep = createLlmClient(config, { mode: 'replay', store, env: {}, log: () => {} });
    const b = await positionBias(listwiseReranker(rep), lists, qrels, { shuffles: 3 });
    assert.is(srv.requests.length, 12, 'replay makes no call');
    assert.equal(b.tau, a.tau);
    assert.equal([...b.aggregated.run], [...a.aggregated.run]);
    const rows = positionBiasRows([a]);
    assert.is(rows[0]['calls (all shuffles)'], 12);
    assert.match(String(rows[0]['Kendall τ (mean ± sd)']), /±/);
  } finally {
    await srv.close();
  }
});

test.run();
