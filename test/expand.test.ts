import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { corpusInstrumentGroups, expandQuery, expandedBm25Scores, queryVocabulary, readVocabularyGroups, type VocabularyGroup } from '../lib/search/expand';
import { buildBm25, bm25Scores } from '../lib/retrieve/bm25';
import { makeCorpus } from '../lib/data/corpus';
import { loadGcmdKeywords } from '../lib/router/variables';
import type { DatasetRecord } from '../lib/data/types';

const rec = (id: string, longName: string, extra: Partial<DatasetRecord> = {}): DatasetRecord => ({
  id, shortName: null, longName, abstract: '', doi: null, daac: id.split('-')[1], publisher: null, temporalStart: null, temporalEnd: null,
  keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null,
  catalogRecordComplete: true, sources: [], ...extra,
});

const groups: VocabularyGroup[] = [
  { gcmd: 'CARBON MONOXIDE', names: ['carbon monoxide'], formulas: ['CO'], instruments: ['MOPITT'], source: 'vocabulary.json' },
  { gcmd: 'METHANE', names: ['methane'], formulas: ['CH4'], instruments: [], source: 'vocabulary.json' },
];

test('formulas match in their exact case only; names and instruments in any case', () => {
  const v = queryVocabulary(groups);
  assert.equal(expandQuery('CO over the Amazon', v).matches.map((m) => [m.text, m.kind, m.added]), [['CO', 'formula', ['carbon monoxide', 'MOPITT']]]);
  assert.equal(expandQuery('co-located ship tracks', v).matches, [], 'lower-case "co" is not a formula');
  assert.equal(expandQuery('mopitt retrievals', v).matches[0].added, ['carbon monoxide', 'CO']);
  assert.equal(expandQuery('Methane and CH4 plumes', v).text, '', 'nothing new to add');
  assert.equal(expandQuery('sea ice extent', v), { text: '', matches: [] });
});

test('expansion adds BM25 score at the given weight and leaves unmatched queries unchanged', () => {
  const corpus = makeCorpus([
    rec('C1-A', 'MOPITT Level 3 monthly gridded retrievals', { instruments: ['MOPITT'] }),
    rec('C2-A', 'Carbon monoxide total column from ground stations'),
    rec('C3-A', 'Sea ice extent'),
  ], [], [], 'test');
  const bm25 = buildBm25(corpus);
  const v = queryVocabulary(groups);
  const plain = bm25Scores(bm25, 'CO columns');
  const { scores, expansion } = expandedBm25Scores(bm25, 'CO columns', v, 0.3);
  const extra = bm25Scores(bm25, expansion.text);
  for (let i = 0; i < 3; i++) assert.ok(Math.abs(scores[i] - (plain[i] + 0.3 * extra[i])) < 1e-5);
  assert.ok(scores[0] > 0, 'the MOPITT dataset is found although the query never names it');
  assert.equal(Array.from(expandedBm25Scores(bm25, 'sea ice', v, 0.3).scores), Array.from(bm25Scores(bm25, 'sea ice')));
  assert.throws(() => expandedBm25Scores(bm25, 'x', v, -1), /weight must be >= 0/);
});

test('corpus instrument groups: keywords most of an instrument\'s datasets carry and few others do', () => {
  const ds: DatasetRecord[] = [];
  for (let i = 0; i < 4; i++) ds.push(rec(`C${i}-X`, `mopitt ${i}`, { instruments: ['MOPITT'], keywords: ['carbon monoxide', 'atmosphere'] }));
  for (let i = 4; i < 20; i++) ds.push(rec(`C${i}-X`, `other ${i}`, { instruments: [`I${i % 3}`], keywords: ['atmosphere', `k${i}`] }));
  const g = corpusInstrumentGroups({ datasets: ds });
  const mopitt = g.find((x) => x.instruments[0] === 'MOPITT');
  assert.ok(mopitt, 'MOPITT group derived');
  assert.equal(mopitt!.names, ['carbon monoxide'], '"atmosphere" is carried by every dataset: dropped');
  assert.is(mopitt!.source, 'corpus:instruments');
});

test('the shipped vocabulary: a SAR backscatter query reaches the GRD and RTC products; a lidar backscatter query does not', () => {
  const v = queryVocabulary(readVocabularyGroups());
  const sar = expandQuery('Sentinel-1 SAR backscatter', v);
  assert.equal(sar.matches.map((m) => m.gcmd), ['RADAR BACKSCATTER']);
  for (const t of ['GRD', 'radiometric terrain corrected', 'sigma0']) assert.ok(sar.matches[0].added.includes(t), `adds ${t}`);
  assert.equal(expandQuery('ALOS PALSAR RTC', v).matches.map((m) => [m.text, m.kind]), [['RTC', 'formula']]);
  assert.equal(expandQuery('CALIPSO lidar backscatter profiles', v).matches.filter((m) => m.gcmd === 'RADAR BACKSCATTER'), []);
  assert.equal(expandQuery('aerosol backscatter', v).matches, [], '"backscatter" alone is not radar backscatter');
  // the analyzer splits ASF's short-name titles, so an added "GRD" meets SENTINEL-1A_DUAL_POL_GRD_HIGH_RES
  const corpus = makeCorpus([
    rec('C1-ASF', 'SENTINEL-1A_DUAL_POL_GRD_HIGH_RES', { abstract: 'Sentinel-1A Dual-pol ground projected high and full resolution images' }),
    rec('C2-ASF', 'SENTINEL-1A_SLC', { abstract: 'Sentinel-1A slant-range product' }),
  ], [], [], 'test');
  const bm25 = buildBm25(corpus);
  const { scores } = expandedBm25Scores(bm25, 'Sentinel-1 SAR backscatter', v, 0.3);
  assert.ok(scores[0] > scores[1], `the GRD product (${scores[0]}) above the SLC one (${scores[1]})`);
});

test('the shipped vocabulary names only real GCMD keywords, and a bad file fails naming the field', () => {
  const gcmd = loadGcmdKeywords();
  const shipped = readVocabularyGroups(undefined, gcmd);
  assert.ok(shipped.length >= 30);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-vocab-'));
  const bad = path.join(dir, 'v.json');
  fs.writeFileSync(bad, JSON.stringify({ groups: [{ gcmd: 'NOT A KEYWORD', names: [], formulas: [], instruments: [] }] }));
  assert.throws(() => readVocabularyGroups(bad, gcmd), /groups\[0\]: "NOT A KEYWORD" is not a GCMD science keyword/);
  fs.writeFileSync(bad, JSON.stringify({ groups: [{ gcmd: 'OZONE', names: 'ozone', formulas: [], instruments: [] }] }));
  assert.throws(() => readVocabularyGroups(bad), /field "names" must be an array/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test.run();
