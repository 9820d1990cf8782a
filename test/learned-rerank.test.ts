// The learned reranker over the default ranking's top 100 (lib/search/learned-rerank.ts): its features are read from
// what the search path computed (checked by hand on a small corpus), it learns which evidence separates relevant
// candidates, deterministically, and its scores reorder only the candidates, keeping them above every other dataset.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import { applyConstraints } from '../lib/search/constraints';
import type { IdentifierGroup } from '../lib/search/identifiers';
import {
  buildRerankFieldIndexes, learnedRerankRows, learnedRerankScores, LEARNED_RERANK_FEATURES, trainLearnedReranker, type RerankRows,
} from '../lib/search/learned-rerank';
import type { QueryScoreSources } from '../lib/search/run-parts';
import type { RuledScores } from '../lib/search/rules';
import { throwsWith } from './helpers/data';

function record(id: string, longName: string, extra: Partial<DatasetRecord> = {}): DatasetRecord {
  return {
    id, shortName: null, longName, abstract: '', doi: null, daac: 'GES_DISC', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [], ...extra,
  };
}

const datasets = [
  record('A', 'Sea ice thickness', { keywords: ['SEA ICE'], temporalStart: '2000-01-01', temporalEnd: '2010-12-31' }),
  record('B', 'Ocean color chlorophyll', { abstract: 'sea ice edge and ice thickness', temporalStart: '1980-01-01', temporalEnd: '1990-12-31' }),
  record('C', 'Aerosol optical depth'),
];
const corpus = makeCorpus(datasets, [], [], 'toy');
const at = (row: number[], name: string) => row[LEARNED_RERANK_FEATURES.indexOf(name as never)];

test('features by hand: fused score and rank, each scorer, BM25 per field, carried identifiers, period coverage', () => {
  const fields = buildRerankFieldIndexes(corpus);
  const final = Float32Array.from([0.9, 0.6, 0.1]);
  const lexical = Float32Array.from([4, 2, 0]);
  const semantic = Float32Array.from([0.2, 0.8, 0.5]);
  const instrument: IdentifierGroup = { id: 'ICESAT', kind: 'instrument', source: 'x', carriers: Int32Array.from([0]) };
  const level: IdentifierGroup = { id: 'L3', kind: 'level', source: 'level', carriers: Int32Array.from([0, 1]) };
  const constrained = applyConstraints(new Float32Array(3).fill(1), corpus.datasets, { period: { start: '2005-01-01', end: '2006-12-31' }, places: [] });
  const ruled = { scores: final, asked: {} as never, constrained, named: [{ text: 'ICESat', group: instrument }, { text: 'L3', group: level }], identified: null } as RuledScores;
  const source: QueryScoreSources = { spec: { method: 'convex', alpha: 0.5 }, lexical, semantic, ruled };
  const { candidates, rows } = learnedRerankRows(fields, 'sea ice thickness', final, source, 2);
  assert.equal(candidates, [0, 1]); // the top 2 of the final scores
  assert.is(rows[0].length, LEARNED_RERANK_FEATURES.length);
  assert.equal([at(rows[0], 'fused'), at(rows[1], 'fused')].map((x) => +x.toFixed(6)), [1, +(0.6 / 0.9).toFixed(6)]);
  assert.equal([at(rows[0], 'fusedRank'), at(rows[1], 'fusedRank')], [1, 0.5]);
  assert.equal([at(rows[0], 'lexical'), at(rows[1], 'lexical')], [1, 0.5]); // min-max over the corpus
  assert.ok(Math.abs(at(rows[1], 'semantic') - 1) < 1e-6 && Math.abs(at(rows[0], 'semantic')) < 1e-6);
  assert.is(at(rows[0], 'titleBm25'), 1); // "sea ice thickness" is A's title
  assert.is(at(rows[1], 'titleBm25'), 0);
  assert.ok(at(rows[1], 'abstractBm25') > 0); // B's abstract speaks of sea ice
  assert.equal([at(rows[0], 'identifierCarried'), at(rows[1], 'identifierCarried')], [1, 0]);
  assert.equal([at(rows[0], 'levelCarried'), at(rows[1], 'levelCarried')], [1, 1]);
  assert.equal([at(rows[0], 'platformCarried'), at(rows[0], 'typeCarried')], [0, 0]); // none named
  assert.equal([at(rows[0], 'periodCovers'), at(rows[0], 'periodOutside')], [1, 0]);
  assert.equal([at(rows[1], 'periodCovers'), at(rows[1], 'periodOutside')], [0, 1]);
  assert.equal([at(rows[0], 'placeCovers'), at(rows[0], 'placeOutside')], [0, 0]); // no place asked
});

/** Queries whose relevant candidate is the one carrying the named identifier, wherever the fused order puts it. */
function carrierQueries(n: number): { rows: RerankRows; relevant: Set<number> }[] {
  const out = [];
  for (let q = 0; q < n; q++) {
    const relevantAt = (q * 7) % 10;
    const rows = Array.from({ length: 10 }, (_, r) => LEARNED_RERANK_FEATURES.map((f) => (f === 'fusedRank' ? 1 / (1 + r) : f === 'identifierCarried' ? (r === relevantAt ? 1 : 0) : f === 'semantic' ? ((q + r) % 5) / 5 : 0)));
    out.push({ rows: { candidates: rows.map((_, r) => 100 + r), rows }, relevant: new Set([100 + relevantAt]) });
  }
  return out;
}

test('training: it learns the evidence that separates relevant candidates, the same model from the same data', () => {
  const data = carrierQueries(30);
  const m = trainLearnedReranker(data, { epochs: 10, seed: 42 });
  const w = (name: string) => m.model.weights[LEARNED_RERANK_FEATURES.indexOf(name as never)];
  assert.ok(w('identifierCarried') > Math.abs(w('fusedRank')) && w('identifierCarried') > Math.abs(w('semantic')), JSON.stringify(m.model.weights));
  assert.equal(trainLearnedReranker(data, { epochs: 10, seed: 42 }), m);
  assert.equal(m.trainQueries, { used: 30, given: 30 });
  // a feature left out of the model gets no weight
  const without = trainLearnedReranker(data, { epochs: 10, seed: 42, features: LEARNED_RERANK_FEATURES.filter((f) => f !== 'identifierCarried') });
  assert.is(without.model.weights[LEARNED_RERANK_FEATURES.indexOf('identifierCarried')], 0);
  throwsWith(() => trainLearnedReranker([{ rows: data[0].rows, relevant: new Set() }]), 'INVALID_ARGUMENT', /no training query has a relevant and a non-relevant candidate/);
});

test('reranked scores: the candidates in the model\'s order, above every other dataset, whose scores stay', () => {
  const data = carrierQueries(30);
  const m = trainLearnedReranker(data, { epochs: 10, seed: 42 });
  const final = new Float32Array(120);
  for (let i = 0; i < 120; i++) final[i] = i >= 100 && i < 110 ? 2 - (i - 100) / 10 : 0.01 * (i % 7);
  const q = data[3]; // relevant at fused rank 1 (0-based), here 100 + 1
  const out = learnedRerankScores(m, final, q.rows);
  const order = [...out.keys()].sort((a, b) => out[b] - out[a]);
  assert.is(order[0], [...q.relevant][0]);
  assert.equal(new Set(order.slice(0, 10)), new Set(q.rows.candidates));
  for (let i = 0; i < 100; i++) assert.is(out[i], final[i]);
  assert.is.not(out, final);
});

test.run();
