// Identifiers that meet across their forms (lib/data/identifier-forms.ts, issue 38 step 3): the joined forms of a
// token list, and BM25 with them (`identifierForms`, default on) against the plain word analyzer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { identifierFormTokens } from '../lib/data/identifier-forms';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import { bm25ConfigFingerprint, bm25Scores, bm25Tokens, buildBm25 } from '../lib/retrieve/bm25';
import { bm25Scorer } from '../lib/retrieve/scorers';

const forms = (text: string) => identifierFormTokens(bm25Tokens(text));

test('series and members, Landsat short forms, levels and versions get one joined form; ordinary numbers do not', () => {
  assert.equal(forms('SENTINEL-1A_DUAL_POL_GRD'), ['sentinel1a', 'sentinel1']);
  assert.equal(forms('Sentinel-1 backscatter'), ['sentinel1']);
  assert.equal(forms('Landsat 8 OLI'), ['landsat8']);
  assert.equal(forms('Landsat-8'), ['landsat8']);
  assert.equal(forms('Surface Reflectance - L8 OLI/TIRS'), ['landsat8']);
  assert.equal(forms('L2 and L3 products'), [], 'L0 … L4 are levels, not Landsats');
  assert.equal(forms('VIIRS/NOAA-20 Level-2A'), ['noaa20', 'l2a']);
  assert.equal(forms('Level 3 monthly'), ['l3']);
  assert.equal(forms('MOD11A1 V006 and version 61, v6'), ['v6', 'v61']);
  // numbers after ordinary words, units and stop words are not members
  assert.equal(forms('band 7 of 2 days at 1 km, 2005 to 2010'), []);
  assert.equal(forms(''), []);
});

function ds(id: string, longName: string): DatasetRecord {
  return {
    id, shortName: null, longName, abstract: '', doi: null, daac: 'X', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

test('BM25 with the forms: a series query meets its members, Level 2 meets L2, version 6 meets V006, L8 meets Landsat 8; off, they do not', () => {
  const corpus = makeCorpus([
    ds('C1-X', 'SENTINEL-1A_SLC radar'), ds('C2-X', 'Sentinel-2A MSI radar'), ds('C3-X', 'Ozone L2 swath'), ds('C4-X', 'Ozone level 3 grid'),
    ds('C5-X', 'Snow cover V006'), ds('C6-X', 'Snow cover V005'), ds('C7-X', 'Landsat 8 reflectance'), ds('C8-X', 'Landsat 7 reflectance'),
  ], [], [], 'toy');
  const on = buildBm25(corpus);
  const off = buildBm25(corpus, { identifierForms: false });
  assert.is(on.config.identifierForms, true);
  assert.not.equal(on.key, off.key, 'the analyzer is part of the cache key');
  // and of the scorer's fingerprint, which keys stored fusion weights: an α set with one analyzer is not read for the other
  assert.match(bm25Scorer(on).fingerprint!, /^bm25\(k1=1\.5,b=0\.75,identifier-forms,inferred-metadata=[0-9a-f]{8}\)$/);
  assert.match(bm25Scorer(off).fingerprint!, /^bm25\(k1=1\.5,b=0\.75,inferred-metadata=[0-9a-f]{8}\)$/);
  // the inferred values read are part of it too: an α set before a rule of the GCMD inference changed is not read after
  const other = { ...corpus, datasets: corpus.datasets.map((d, i) => (i === 0 ? { ...d, inferred: { platforms: ['SENTINEL-1A'], instruments: [], projects: [], series: [] } } : d)) };
  assert.is.not(bm25Scorer(buildBm25(other)).fingerprint, bm25Scorer(on).fingerprint);
  assert.is.not(buildBm25(other).key, on.key);
  assert.is(bm25Scorer(buildBm25(other, { inferredMetadata: false })).fingerprint, bm25Scorer(buildBm25(corpus, { inferredMetadata: false })).fingerprint, 'not read, not part of it');
  assert.is(bm25Scorer(buildBm25(corpus, { identifierForms: false, inferredMetadata: false })).fingerprint, 'bm25(k1=1.5,b=0.75)');
  assert.match(bm25ConfigFingerprint(buildBm25(corpus, { mode: 'fields' }).config), /^bm25\(k1=1\.5,b=0\.75,identifier-forms,inferred-metadata,cfg=[0-9a-f]{8}\)$/);
  const score = (index: typeof on, q: string) => Array.from(bm25Scores(index, q));
  const [s1, s2] = score(on, 'Sentinel-1');
  assert.ok(s1 > s2, `${s1} > ${s2}`);
  const [p1, p2] = score(off, 'Sentinel-1');
  assert.is(p1, p2, 'the plain analyzer cannot tell 1A from 2A');
  const level = score(on, 'ozone level 2');
  assert.ok(level[2] > level[3], JSON.stringify(level));
  assert.ok(score(off, 'ozone level 2')[2] <= score(off, 'ozone level 2')[3]);
  const version = score(on, 'snow cover version 6');
  assert.ok(version[4] > version[5]);
  const l8 = score(on, 'L8 reflectance');
  assert.ok(l8[6] > l8[7]);
  assert.is(score(off, 'L8 reflectance')[6], score(off, 'L8 reflectance')[7]);
});

test('BM25 with the inferred metadata: a record without CMR platforms or instruments is found by its inferred ones (a payload, a host); CMR\'s own stay when listed; the inferred values key the cache', () => {
  const s1 = { ...ds('C1-X', 'SENTINEL-1A_SLC slant-range product'), inferred: { platforms: ['SENTINEL-1A'], instruments: ['SENTINEL-1 C-SAR'], projects: [], series: ['SENTINEL-1'] } };
  const gedi = { ...ds('C2-X', 'GEDI L2A elevation'), inferred: { platforms: ['ISS'], instruments: ['GEDI'], projects: [], series: [] } };
  // CMR lists an instrument: the inferred one (here deliberately different) is not read
  const listed = { ...ds('C3-X', 'Ocean winds'), instruments: ['SEAWINDS'], inferred: { platforms: [], instruments: ['C-SAR'], projects: [], series: [] } };
  const corpus = makeCorpus([s1, gedi, listed, ds('C4-X', 'Ozone column')], [], [], 'toy');
  const on = buildBm25(corpus);
  const off = buildBm25(corpus, { inferredMetadata: false });
  assert.is(on.config.inferredMetadata, true);
  const score = (index: typeof on, q: string) => Array.from(bm25Scores(index, q));
  const sar = score(on, 'SAR');
  assert.ok(sar[0] > 0, 'the payload C-SAR of Sentinel-1A is a word of the record');
  assert.is(sar[2], 0, 'CMR lists an instrument: the inferred one is not indexed');
  assert.is(score(off, 'SAR')[0], 0);
  assert.ok(score(on, 'ISS')[1] > 0 && score(off, 'ISS')[1] === 0, 'the host of GEDI');
  assert.ok(score(on, 'SeaWinds')[2] > 0 && score(off, 'SeaWinds')[2] > 0, 'CMR\'s instrument in both');
  // another inference (a rule changed) is another index
  const changed = makeCorpus([{ ...s1, inferred: { ...s1.inferred, instruments: [] } }, gedi, listed, ds('C4-X', 'Ozone column')], [], [], 'toy');
  assert.not.equal(buildBm25(changed).key, on.key);
  assert.is(buildBm25(changed, { inferredMetadata: false }).key, off.key);
});

test.run();
