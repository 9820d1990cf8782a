// Label holes: unlabelled share of the top K, same-family share, judge share, holes-aware R@K / MAP and the orderings,
// on a hand-made corpus small enough to count by hand.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { familyQrels, labelHoles, labelHolesRows, productFamily } from '../lib/bench';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import type { Qrels, Run } from '../lib/metrics';

function ds(id: string, shortName: string | null, longName: string): DatasetRecord {
  return {
    id, shortName, longName, abstract: '', doi: null, daac: 'X', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

test('productFamily strips version, level, resolution and time step, and keeps different products apart', () => {
  const fam = (s: string | null, l = '') => productFamily({ id: 'C0', shortName: s, longName: l });
  assert.is(fam(null, 'TES/Aura L3 Atmospheric Temperatures Monthly Gridded V004'), fam(null, 'TES/Aura L3 Atmospheric Temperatures Daily Gridded V003'));
  assert.is(fam(null, 'TES/Aura L3 Atmospheric Temperatures Monthly Gridded V004'), 'tes aura atmospheric temperatures');
  assert.is(fam('GPM_3GPROFF14SSMI_DAY_CLIM'), fam('GPM_3GPROFF14SSMI_CLIM'));
  assert.is(fam(null, 'ATLAS/ICESat-2 L3A Sea Ice Freeboard V006'), fam(null, 'ATLAS/ICESat-2 L3A Sea Ice Freeboard V005'));
  assert.is.not(fam('VNP43D23'), fam('VNP43D44'));
  assert.is.not(fam(null, 'Sea Ice Freeboard'), fam(null, 'Sea Ice Thickness'));
  assert.is(productFamily({ id: 'C9', shortName: null, longName: 'V001 L2' }), 'id:C9');
});

// a1/a2 one family (versions), b alone, c1/c2 one family; q1 labels a1, q2 labels b
const corpus = makeCorpus([
  ds('A1', null, 'Ozone Column L3 Daily V003'), ds('A2', null, 'Ozone Column L3 Daily V004'),
  ds('B', null, 'Sea Ice Extent'), ds('C1', null, 'Rain Rate V1'), ds('C2', null, 'Rain Rate V2'),
], [], [], 'toy');
const qrels: Qrels = new Map([['q1', new Map([['A1', 1]])], ['q2', new Map([['B', 1]])]]);
const run = (lists: Record<string, string[]>): Run => new Map(Object.entries(lists).map(([q, ids]) => [q, ids.map((docId, i) => ({ docId, score: 10 - i }))]));

test('familyQrels adds the labelled datasets\' family members only', () => {
  const wide = familyQrels(qrels, corpus);
  assert.equal([...wide.get('q1')!.keys()].sort(), ['A1', 'A2']);
  assert.equal([...wide.get('q2')!.keys()], ['B']);
  assert.equal([...qrels.get('q1')!.keys()], ['A1'], 'input not changed');
});

test('labelHoles counts the holes and reorders systems that rank a sibling first', () => {
  // S1 finds the labels at rank 2; S2 ranks the unlabelled sibling A2 first and misses B
  const s1 = run({ q1: ['C1', 'A1'], q2: ['C2', 'B'] });
  const s2 = run({ q1: ['A2', 'A1'], q2: ['C1', 'C2'] });
  const judged = new Map([['q1', new Map([['A2', true], ['C1', false]])], ['q2', new Map([['C1', false]])]]);
  const h = labelHoles([{ label: 'S1', run: s1 }, { label: 'S2', run: s2 }], qrels, corpus, { k: 2, judged });
  const [r1, r2] = h.rows;
  assert.is(r1.unlabelled, 2 / 4);
  assert.is(r1.sameFamily, 0);
  assert.is(r1.judgeRelevant, 0); // C1 judged not relevant; C2 unjudged
  assert.is(r1.judgedPairs, 1);
  assert.is(r2.unlabelled, 3 / 4);
  assert.is(r2.sameFamily, 1 / 3);
  assert.is(r2.judgeRelevant, 1 / 2); // A2 yes, C1 no; C2 unjudged
  assert.is(r2.judgedPairs, 2);
  // strict: S1 AP 0.5 on both → 0.5; S2 AP 0.5 on q1, 0 on q2 → 0.25
  assert.is(r1.strictMAP, 0.5);
  assert.is(r2.strictMAP, 0.25);
  // holes-aware q1 relevant {A1, A2}: S2 AP (1 + 1)/2 = 1 → (1 + 0)/2 = 0.5; S1 AP (1/2)/2 = 0.25 → (0.25 + 0.5)/2
  assert.is(r2.holesAwareMAP, 0.5);
  assert.is(r1.holesAwareMAP, 0.375);
  assert.is(r1.strictRecall, 1);
  assert.is(r1.holesAwareRecall, 0.75);
  assert.equal(h.ordering.strict, ['S1', 'S2']);
  assert.equal(h.ordering.holesAware, ['S2', 'S1']);
  assert.is(h.sameOrdering, false);
  const rows = labelHolesRows(h);
  assert.is(rows[1]['rank holes-aware'], 1);
  assert.is(rows[0]['unlabelled in top 2'], 0.5);
  assert.is(labelHoles([{ label: 'S1', run: s1 }], qrels, corpus).rows[0].judgeRelevant, null);
});

test.run();
