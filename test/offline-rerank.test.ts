import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DatasetRecord, Publication } from '../lib/data/types';
import { evaluateRun, mean } from '../lib/metrics/metrics';
import type { Qrels } from '../lib/metrics/types';
import { mulberry32 } from '../lib/util/random';
import {
  offlineReranker, rerankBackbone, rerankTable, runFromLists, trainingPriors, leaveOutBySource, trainOfflineReranker, windowFeatures,
  OFFLINE_FEATURES, type BackboneList,
} from '../lib/rerank';
import { buildLocalPublicationIndex, localArxivTool, routedOfflineReranker, trainRoutedReranker } from '../lib/agent';

const TOPICS = ['ozone', 'aerosol', 'glacier', 'salinity', 'chlorophyll', 'precipitation', 'snowfall', 'lightning', 'wildfire', 'soil'];

function rec(id: string, longName: string, daac: string): DatasetRecord {
  return {
    id, shortName: null, longName, abstract: `${longName} data record`, doi: null, daac, publisher: null, temporalStart: '2001-01-01',
    temporalEnd: '2010-12-31', keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

/**
 * A toy benchmark: each query names a topic; its one relevant dataset's title names the same topic, but the backbone
 * scores are noise, so the backbone ranks it anywhere in the top 20. Field-match features can find it.
 */
function toy(nQueries: number, seed: number, prefix: string): { lists: BackboneList[]; qrels: Qrels } {
  const rng = mulberry32(seed);
  const lists: BackboneList[] = [];
  const qrels: Qrels = new Map();
  for (let q = 0; q < nQueries; q++) {
    const topic = TOPICS[q % TOPICS.length];
    const qid = `${prefix}${q}`;
    const posAt = Math.floor(rng() * 20);
    const cands = Array.from({ length: 20 }, (_, i) => {
      const other = TOPICS[(q + 1 + (i % 9)) % TOPICS.length];
      const id = `C-${qid}-${i}`;
      return { id, record: rec(id, i === posAt ? `${topic} level 3 product` : `${other} level 3 product`, i % 2 ? 'A' : 'B'), scores: { bm25: rng() * 10, semantic: rng(), fused: 0 }, retrievalScore: 0, retrievalRank: 0 };
    });
    for (const c of cands) c.scores.fused = 0.5 * c.scores.semantic + 0.05 * c.scores.bm25;
    cands.sort((a, b) => b.scores.fused - a.scores.fused);
    cands.forEach((c, i) => {
      c.retrievalScore = c.scores.fused;
      c.retrievalRank = i + 1;
    });
    lists.push({ query: { id: qid, text: `${topic} measurements`, publicationId: `pub-${qid}` }, candidates: cands });
    qrels.set(qid, new Map([[cands.find((c) => c.record.longName.startsWith(topic))!.id, 1]]));
  }
  return { lists, qrels };
}

const train = toy(120, 1, 'tr');
const testSet = toy(60, 2, 'te');
const daacs = new Map([['A', 100], ['B', 100]]);
const daacOf = (id: string) => (Number(id.split('-').pop()) % 2 ? 'A' : 'B');

test('features: one row per candidate, one column per feature name, popularity leave-one-out', () => {
  const priors = trainingPriors(train.qrels, daacOf, daacs);
  const l = train.lists[0];
  const pos = [...train.qrels.get(l.query.id)!.keys()][0];
  const x = windowFeatures(l.query, l.candidates.slice(0, 10), priors);
  assert.is(x.length, 10);
  assert.ok(x.every((r) => r.length === OFFLINE_FEATURES.length));
  const i = l.candidates.findIndex((c) => c.id === pos);
  if (i < 10) {
    const col = OFFLINE_FEATURES.indexOf('logPopularity');
    assert.ok(x[i][col] > 0);
    assert.is(windowFeatures(l.query, l.candidates.slice(0, 10), priors, leaveOutBySource(priors, train.qrels, [l.query]).get(l.query.id))[i][col], 0, 'own label removed');
  }
});

test('training is deterministic per seed', () => {
  const priors = trainingPriors(train.qrels, daacOf, daacs);
  const a = trainOfflineReranker(train.lists, train.qrels, priors, { seed: 7 });
  const b = trainOfflineReranker(train.lists, train.qrels, priors, { seed: 7 });
  const c = trainOfflineReranker(train.lists, train.qrels, priors, { seed: 8 });
  assert.equal(a.model.weights, b.model.weights);
  assert.ok(a.model.pairs > 0);
  assert.not.equal(a.model.weights, c.model.weights, 'another seed shuffles pairs differently');
});

test('the offline reranker improves MRR over its backbone on held-out toy queries; R@10 unchanged', async () => {
  const priors = trainingPriors(train.qrels, daacOf, daacs);
  const m = trainOfflineReranker(train.lists, train.qrels, priors, { seed: 42 });
  const cover = m.model.weights[OFFLINE_FEATURES.indexOf('coverLongName')];
  assert.ok(cover > 0, `title coverage learned as positive evidence (${cover})`);
  const base = evaluateRun(runFromLists(testSet.lists), testSet.qrels);
  const rr = await rerankBackbone(offlineReranker(m), testSet.lists);
  const after = evaluateRun(rr.run, testSet.qrels);
  assert.ok(mean(after.values.MRR) > mean(base.values.MRR) + 0.2, `${mean(after.values.MRR)} vs ${mean(base.values.MRR)}`);
  assert.equal(after.values['R@10'], base.values['R@10']);
  const t = await rerankTable([{ id: 'toy', label: 'toy', alpha: 0.5, lists: testSet.lists, trainLists: [], alphaFrom: {} as any }], [offlineReranker(m)], testSet.qrels);
  assert.match(t.outcomes[0].label, /offline reranker/);
  assert.is(t.outcomes[0].summary.calls, 0);
  assert.ok(t.outcomes[0].gain.find((g) => g.metric === 'MRR')!.ciLow > 0);
});

test('tool routing: tools consulted only for uncertain windows (≈ the trained share), guard counted', async () => {
  const priors = trainingPriors(train.qrels, daacOf, daacs);
  const m = trainOfflineReranker(train.lists, train.qrels, priors, { seed: 42 });
  // a local publication index: one publication per query, titled like the query (the guard must remove it)
  const pubs: Publication[] = [...train.lists, ...testSet.lists].map((l) => ({ id: l.query.publicationId!, doi: null, title: l.query.text, abstract: `we study ${l.query.text}`, year: 2020, venue: null, source: null, sources: [] }));
  const tool = localArxivTool(buildLocalPublicationIndex(pubs));
  const byId = new Map(pubs.map((p) => [p.id, p]));
  const sourceOf = (q: { publicationId?: string }) => {
    const p = byId.get(q.publicationId ?? '');
    return p ? { doi: p.doi, title: p.title } : null;
  };
  const routed = await trainRoutedReranker(m, train.lists, train.qrels, tool, sourceOf, { seed: 42, routeFraction: 0.3 });
  assert.ok(Number.isFinite(routed.marginThreshold));
  const rr = await rerankBackbone(routedOfflineReranker(routed, tool, { sourceOf }), testSet.lists);
  const traces = [...rr.traces.values()].flat();
  const called = traces.filter((t) => t.toolCalls.length > 0);
  assert.ok(called.length > 0 && called.length < traces.length, `${called.length} of ${traces.length}`);
  for (const t of called) assert.match(t.notes[0], /uncertain: margin/);
  assert.ok(called.every((t) => t.toolCalls[0].removedByGuard >= 1), 'each query\'s own publication removed');
  const never = await rerankBackbone(routedOfflineReranker(routed, tool, { sourceOf, marginThreshold: -Infinity }), testSet.lists);
  assert.ok([...never.traces.values()].flat().every((t) => t.toolCalls.length === 0));
  const always = await rerankBackbone(routedOfflineReranker(routed, tool, { sourceOf, marginThreshold: Infinity }), testSet.lists);
  assert.ok([...always.traces.values()].flat().every((t) => t.toolCalls.length === 1));
});

test.run();
