import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Benchmark, BenchQuery } from '../lib/bench/types';
import type { Corpus, DatasetRecord, Publication } from '../lib/data/types';
import type { Qrels } from '../lib/metrics/types';
import { quantileSorted } from '../lib/metrics/paired';
import { mulberry32 } from '../lib/util/random';
import {
  daacPrior, leaveOutBySource, OFFLINE_FEATURES, priorsLeaveOut, scoreLinear, topMargin, trainingPriors,
  trainingWindows, trainOfflineReranker, trainPairwiseRanker, windowFeatures, type BackboneList, type RankGroup,
} from '../lib/rerank';
import { buildLocalPublicationIndex, localArxivTool, routingMargins, trainRoutedReranker, type AgentTool, type ToolItem } from '../lib/agent';
import { trainingLinks, trainingPublications, trainingPublicationTool } from '../lib/study';

const close = (a: number, b: number, eps: number, msg = '') => assert.ok(Math.abs(a - b) <= eps, `${msg} ${a} != ${b} (eps ${eps})`);

function rec(id: string, longName: string, daac: string): DatasetRecord {
  return {
    id, shortName: null, longName, abstract: `${longName} data record`, doi: null, daac, publisher: null, temporalStart: '2001-01-01',
    temporalEnd: '2010-12-31', keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

const TOPICS = ['ozone', 'aerosol', 'glacier', 'salinity', 'chlorophyll', 'precipitation', 'snowfall', 'lightning', 'wildfire', 'soil'];
const DAACS = ['A', 'B', 'C'];

/**
 * A toy training split written like the two-query LLM writer: every publication has TWO queries with the same
 * labels and the same candidate datasets (a shared pool, so datasets are labelled by several publications and
 * the link-count prior matters).
 */
function twoQueryToy(nPubs: number, seed: number): { lists: BackboneList[]; qrels: Qrels; daacOf: (id: string) => string } {
  const rng = mulberry32(seed);
  const pool = Array.from({ length: 40 }, (_, i) => rec(`D${i}`, `${TOPICS[i % TOPICS.length]} level ${i % 4} product`, DAACS[i % 3]));
  const daacOf = (id: string) => DAACS[Number(id.slice(1)) % 3];
  const lists: BackboneList[] = [];
  const qrels: Qrels = new Map();
  for (let p = 0; p < nPubs; p++) {
    const topic = TOPICS[p % TOPICS.length];
    const picks = new Set<number>();
    while (picks.size < 15) picks.add(Math.floor(rng() * pool.length));
    const cands = [...picks].map((i, r) => ({ id: pool[i].id, record: pool[i], scores: { bm25: rng() * 10, semantic: rng(), fused: 1 - r / 20 }, retrievalScore: 1 - r / 20, retrievalRank: r + 1 }));
    const positives = cands.filter((c) => c.record.longName.startsWith(topic)).slice(0, 2).map((c) => c.id);
    if (positives.length === 0) positives.push(cands[Math.floor(rng() * cands.length)].id);
    for (const v of ['a', 'b']) {
      const id = `pub${p}#${v}`;
      lists.push({ query: { id, text: v === 'a' ? `${topic} measurements` : `global ${topic} observations`, publicationId: `pub${p}` }, candidates: cands });
      qrels.set(id, new Map(positives.map((d) => [d, 1])));
    }
  }
  return { lists, qrels, daacOf };
}

const toy = twoQueryToy(40, 3);
const corpusDaacs = new Map([['A', 14], ['B', 13], ['C', 13]]);

/** The training qrels without every query of one publication: what the priors would be had it never been labelled. */
function withoutPublication(qrels: Qrels, lists: readonly BackboneList[], pub: string): Qrels {
  const drop = new Set(lists.filter((l) => l.query.publicationId === pub).map((l) => l.query.id));
  return new Map([...qrels].filter(([q]) => !drop.has(q)));
}

test('training priors: link counts per dataset and DAAC log-ratios against the corpus share, by hand', () => {
  const qrels: Qrels = new Map([
    ['q1', new Map([['D0', 1], ['D1', 1]])],
    ['q2', new Map([['D0', 1], ['D3', 0]])],
  ]);
  const p = trainingPriors(qrels, (id) => DAACS[Number(id.slice(1)) % 3], new Map([['A', 2], ['B', 2]]));
  assert.equal([...p.datasetLinks].sort(), [['D0', 2], ['D1', 1]], 'a relevance-0 judgement is not a link');
  assert.is(p.labels, 3);
  assert.is(p.trainQueries, 2);
  // D0 is in A (twice), D1 in B: expected labels per DAAC = 3 · 2/4 = 1.5
  close(p.daacLogRatio.get('A')!, Math.log(3 / 2.5), 1e-12);
  close(p.daacLogRatio.get('B')!, Math.log(2 / 2.5), 1e-12);
  assert.is(daacPrior(p, 'Z'), 0, 'a DAAC outside the corpus counts gets no prior');
});

test('leave-one-out removes the WHOLE source publication (both of its queries) from the link-count and DAAC priors', () => {
  const priors = trainingPriors(toy.qrels, toy.daacOf, corpusDaacs);
  const leaveOut = leaveOutBySource(priors, toy.qrels, toy.lists.map((l) => l.query));
  const pop = OFFLINE_FEATURES.indexOf('logPopularity');
  const daac = OFFLINE_FEATURES.indexOf('daacPrior');
  let checked = 0;
  for (const l of toy.lists) {
    const held = trainingPriors(withoutPublication(toy.qrels, toy.lists, l.query.publicationId!), toy.daacOf, corpusDaacs);
    const got = windowFeatures(l.query, l.candidates, priors, leaveOut.get(l.query.id));
    const want = windowFeatures(l.query, l.candidates, held);
    got.forEach((row, i) => {
      close(row[pop], want[i][pop], 1e-12, `${l.query.id} ${l.candidates[i].id} popularity`);
      close(row[daac], want[i][daac], 1e-12, `${l.query.id} ${l.candidates[i].id} DAAC prior`);
    });
    checked++;
  }
  assert.is(checked, 80);
  // the old rule (subtract this query's own labels only) leaves the sibling query's labels in: a leak
  const l = toy.lists[0];
  const pos = [...toy.qrels.get(l.query.id)!.keys()][0];
  const i = l.candidates.findIndex((c) => c.id === pos);
  const oneQuery = priorsLeaveOut(priors, toy.qrels, [l.query.id]);
  const whole = leaveOut.get(l.query.id)!;
  assert.is(whole.labels, 2 * oneQuery.labels);
  assert.ok(windowFeatures(l.query, l.candidates, priors, oneQuery)[i][pop] > windowFeatures(l.query, l.candidates, priors, whole)[i][pop]);
});

test('the offline reranker trains on features with each query\'s publication left out', () => {
  const priors = trainingPriors(toy.qrels, toy.daacOf, corpusDaacs);
  const m = trainOfflineReranker(toy.lists, toy.qrels, priors, { seed: 5 });
  // the same training, written out with priors recomputed without each query's publication
  const groups: RankGroup[] = [];
  for (const { query, window } of trainingWindows(toy.lists, {})) {
    const own = new Set([...toy.qrels.get(query.id)!].filter(([, r]) => r > 0).map(([d]) => d));
    const y = window.map((c) => (own.has(c.id) ? 1 : 0));
    if (!y.some((v) => v > 0) || y.every((v) => v > 0)) continue;
    const held = trainingPriors(withoutPublication(toy.qrels, toy.lists, query.publicationId!), toy.daacOf, corpusDaacs);
    groups.push({ x: windowFeatures(query, window, held), y });
  }
  const ref = trainPairwiseRanker(groups, OFFLINE_FEATURES, { seed: 5 });
  m.model.weights.forEach((w, k) => close(w, ref.weights[k], 1e-9, OFFLINE_FEATURES[k]));
});

test('routed reranker: the routing threshold is calibrated on margins with each query\'s publication held out', async () => {
  const priors = trainingPriors(toy.qrels, toy.daacOf, corpusDaacs);
  const base = trainOfflineReranker(toy.lists, toy.qrels, priors, { seed: 42 });
  const pubs: Publication[] = toy.lists.filter((l) => l.query.id.endsWith('#a')).map((l) => ({ id: l.query.publicationId!, doi: null, title: l.query.text, abstract: null, year: 2020, venue: null, source: null, sources: [] }));
  const tool = localArxivTool(buildLocalPublicationIndex(pubs));
  const routed = await trainRoutedReranker(base, toy.lists, toy.qrels, tool, () => null, { seed: 42, routeFraction: 0.3 });
  // independent reference: each training query's margin as if its publication had never been labelled
  const heldOut = toy.lists
    .map((l) => {
      const held = trainingPriors(withoutPublication(toy.qrels, toy.lists, l.query.publicationId!), toy.daacOf, corpusDaacs);
      return topMargin(scoreLinear(base.model, windowFeatures(l.query, l.candidates.slice(0, base.window), held)));
    })
    .sort((a, b) => a - b);
  close(routed.marginThreshold, quantileSorted(heldOut, 0.3), 1e-12);
  assert.equal(routingMargins(base, toy.lists, leaveOutBySource(priors, toy.qrels, toy.lists.map((l) => l.query))).length, heldOut.length);
  // the leaky calibration (own positives counted in the popularity feature) gives another threshold here
  const leaky = quantileSorted(routingMargins(base, toy.lists), 0.3);
  assert.ok(Math.abs(leaky - routed.marginThreshold) > 1e-6, `leaky ${leaky} vs held out ${routed.marginThreshold}`);
});

/** A toy experiment: 6 publications (4 train, 2 test), two queries each. */
function toyExperiment(): { bench: Benchmark; corpus: Corpus; train: { queries: BenchQuery[]; qrels: Qrels } } {
  const publications: Publication[] = ['p1', 'p2', 'p3', 'p4', 't1', 't2', 'unused'].map((id) => ({ id, doi: null, title: `${id} ozone aerosol study`, abstract: `about ${id}`, year: 2020, venue: null, source: null, sources: [] }));
  const queries: BenchQuery[] = [];
  for (const p of publications.slice(0, 6))
    for (const variant of [1, 2])
      queries.push({ id: `${p.id}#${variant}`, publicationId: p.id, text: `${p.title} ${variant}`, writer: 'llm:x', variant, split: p.id.startsWith('t') ? 'test' : 'train', positives: 2 });
  const labelsOf: Record<string, string[]> = { p1: ['D1', 'D2'], p2: ['D2'], p3: ['D3', 'D1'], p4: [], t1: ['D9'], t2: ['D1'] };
  const labels = queries.flatMap((q) => labelsOf[q.publicationId].map((d) => ({ queryId: q.id, datasetId: d, relation: 'cites' })));
  const bench = { name: 'toy', writer: 'llm:x', writerLabel: 'toy', seed: 1, testFraction: 0.33, relations: null, corpusHash: 'x', queries, labels, testSubset: [], strata: [] } as Benchmark;
  const trainQueries = queries.filter((q) => q.split === 'train');
  const qrels: Qrels = new Map(trainQueries.map((q) => [q.id, new Map(labelsOf[q.publicationId].map((d) => [d, 1]))]));
  // the variant-2 query of p3 has one label fewer (a writer may drop one): the publication's links are the union
  qrels.set('p3#2', new Map([['D3', 1]]));
  const corpus = { publications } as unknown as Corpus;
  return { bench, corpus, train: { queries: trainQueries, qrels } };
}

test('trainingLinks: the union of a training publication\'s labels over its queries; never a test label', () => {
  const exp = toyExperiment();
  const links = trainingLinks(exp);
  assert.equal([...links.keys()].sort(), ['p1', 'p2', 'p3', 'p4']);
  assert.equal(links.get('p1'), ['D1', 'D2']);
  assert.equal(links.get('p3')!.sort(), ['D1', 'D3'], 'union over both queries, each dataset once');
  assert.equal(links.get('p4'), []);
  assert.not.ok([...links.values()].flat().includes('D9'), 'a test-only label never appears');
});

test('trainingPublications / trainingPublicationTool: the index a reranker is trained with holds training publications only', async () => {
  const exp = toyExperiment();
  assert.equal(trainingPublications(exp).map((p) => p.id), ['p1', 'p2', 'p3', 'p4']);
  const tool = trainingPublicationTool(exp);
  // asked for a test publication by its exact title, it still answers with training publications only
  const seen: ToolItem[] = [];
  for (const q of ['t1 ozone aerosol study', 't2 ozone aerosol study', 'ozone aerosol']) seen.push(...(await tool.run({ query: q, max_results: 10 }, { queryId: 'probe' })).items);
  assert.ok(seen.length > 0);
  assert.ok(seen.every((it) => ['p1', 'p2', 'p3', 'p4'].includes(it.id!)), seen.map((it) => it.id).join(','));
  assert.equal(seen.find((it) => it.id === 'p3')!.datasetIds!.sort(), ['D1', 'D3']);
});

test('trainRoutedReranker with the training tool: no tool result during training is a test publication', async () => {
  const exp = toyExperiment();
  const inner = trainingPublicationTool(exp);
  const seen: ToolItem[] = [];
  const spy: AgentTool = { ...inner, async run(args, ctx) {
    const out = await inner.run(args, ctx);
    seen.push(...out.items);
    return out;
  } };
  const lists: BackboneList[] = exp.train.queries.map((q) => ({
    query: { id: q.id, text: q.text, publicationId: q.publicationId },
    candidates: ['D1', 'D2', 'D3', 'D4'].map((d, r) => ({ id: d, record: rec(d, `ozone ${d}`, 'A'), scores: { bm25: 4 - r, semantic: 0.5, fused: 1 - r / 4 }, retrievalScore: 1 - r / 4, retrievalRank: r + 1 })),
  }));
  const priors = trainingPriors(exp.train.qrels, () => 'A', new Map([['A', 4]]));
  const base = trainOfflineReranker(lists, exp.train.qrels, priors, { seed: 1, window: 4 });
  await trainRoutedReranker(base, lists, exp.train.qrels, spy, () => null, { seed: 1, guardOptions: undefined });
  assert.ok(seen.length > 0);
  assert.not.ok(seen.some((it) => it.id === 't1' || it.id === 't2' || it.id === 'unused'));
});

test('pairwise ranker: the flat training loop gives the weights of plain SGD over per-pair difference arrays, bit for bit', () => {
  // the reference: every (relevant, non-relevant) difference as its own array, shuffled each epoch, one SGD step each
  const reference = (groups: RankGroup[], d: number, seed: number, epochs: number, learningRate: number, l2: number) => {
    const rows = groups.flatMap((g) => g.x);
    const mean = new Array(d).fill(0);
    const std = new Array(d).fill(0);
    for (const r of rows) for (let j = 0; j < d; j++) mean[j] += r[j] / rows.length;
    for (const r of rows) for (let j = 0; j < d; j++) std[j] += (r[j] - mean[j]) ** 2 / rows.length;
    for (let j = 0; j < d; j++) std[j] = Math.sqrt(std[j]) || 1;
    const pairs: number[][] = [];
    for (const g of groups) {
      const zx = g.x.map((r) => r.map((v, j) => (v - mean[j]) / std[j]));
      for (let a = 0; a < g.y.length; a++) if (g.y[a] > 0) for (let b = 0; b < g.y.length; b++) if (g.y[b] <= 0) pairs.push(zx[a].map((v, j) => v - zx[b][j]));
    }
    const w = new Array(d).fill(0);
    const rng = mulberry32(seed);
    let loss = 0;
    for (let e = 0; e < epochs; e++) {
      for (let i = pairs.length - 1; i > 0; i--) {
        const k = Math.floor(rng() * (i + 1));
        [pairs[i], pairs[k]] = [pairs[k], pairs[i]];
      }
      loss = 0;
      const lr = learningRate / (1 + e * 0.1);
      for (const p of pairs) {
        let s = 0;
        for (let j = 0; j < d; j++) s += w[j] * p[j];
        loss += s > 30 ? 0 : Math.log1p(Math.exp(-s));
        const g = 1 / (1 + Math.exp(s));
        for (let j = 0; j < d; j++) w[j] += lr * (g * p[j] - l2 * w[j]);
      }
      loss /= pairs.length;
    }
    return { w, loss, pairs: pairs.length };
  };
  const rng = mulberry32(11);
  const d = 5;
  const groups: RankGroup[] = Array.from({ length: 30 }, (_, q) => {
    const n = 4 + (q % 7);
    const y = Array.from({ length: n }, (_, i) => (i === 0 || rng() < 0.2 ? 1 : 0));
    return { x: y.map((yi) => Array.from({ length: d }, (_, j) => rng() * (j + 1) + yi * (j === 2 ? 1.5 : 0.3))), y };
  });
  const features = ['a', 'b', 'c', 'd', 'e'];
  const m = trainPairwiseRanker(groups, features, { seed: 3, epochs: 7, learningRate: 0.05, l2: 0.1 });
  const ref = reference(groups, d, 3, 7, 0.05, 0.1);
  assert.equal(m.weights, ref.w);
  assert.is(m.finalLoss, ref.loss);
  assert.is(m.pairs, ref.pairs);
  assert.ok(m.weights[2] > 0 && m.weights[2] > Math.abs(m.weights[0]), 'the informative feature gets the weight');
});

test.run();
