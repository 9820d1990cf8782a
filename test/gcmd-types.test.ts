// Instrument and platform types in the query (lib/search/gcmd-types.ts, issue 38 step 4): the type file checked
// against GCMD, a type's names and carriers on a corpus (CMR's fields, inferred names, the title), the types a query
// names, the identifier rule's preference for their carriers (only when one of the top candidates carries the type),
// the explanation of each result, and the full snapshot as a user types it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import type { GcmdEntity } from '../lib/data/gcmd';
import { readGcmdInstruments, readGcmdPlatforms } from '../lib/data/gcmd';
import { loadSnapshot } from '../lib/data/snapshot';
import { queryWordCounts } from '../lib/search/adaptive-fusion';
import { expandQuery, gcmdTypeGroups, queryVocabulary } from '../lib/search/expand';
import { describeTypeMatch, gcmdTypesFile, gcmdTypeVocabulary, namedGcmdTypes, readGcmdTypeTerms } from '../lib/search/gcmd-types';
import { applyIdentifierRule, DEFAULT_IDENTIFIER_RULE, describeIdentifierEffects, identifierVocabulary, namedIdentifiers } from '../lib/search/identifiers';
import { bm25Scorer } from '../lib/retrieve/scorers';
import { loadOrBuildBm25 } from '../lib/retrieve/bm25';
import { createSearchEngine } from '../lib/search/engine';
import { search } from '../lib/search/search';
import { renderSearchPage } from '../lib/serve/page';

const entity = (shortName: string, ...levels: string[]): [string, GcmdEntity] => [shortName.toUpperCase(), { shortName, longName: '', path: levels }];
const gcmd = {
  instruments: new Map([
    entity('CALIOP', 'Earth Remote Sensing Instruments', 'Active Remote Sensing', 'Altimeters', 'Lidar/Laser Altimeters'),
    entity('GEDI', 'Earth Remote Sensing Instruments', 'Active Remote Sensing', 'Altimeters', 'Lidar/Laser Altimeters'),
    entity('SEAWINDS', 'Earth Remote Sensing Instruments', 'Active Remote Sensing', 'Scatterometers'),
    entity('MODIS', 'Earth Remote Sensing Instruments', 'Passive Remote Sensing', 'Spectrometers/Radiometers', 'Imaging Spectrometers/Radiometers'),
  ]),
  platforms: new Map([entity('DC-8', 'Aircraft'), entity('TERRA', 'Earth Observation Satellites'), entity('GOES-16', 'Earth Observation Satellites', 'GOES')]),
};

function ds(id: string, longName: string, extra: Partial<DatasetRecord> = {}): DatasetRecord {
  return {
    id, shortName: null, longName, abstract: '', doi: null, daac: 'X', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [], ...extra,
  };
}
const inferred = (platforms: string[], instruments: string[]) => ({ inferred: { platforms, instruments, projects: [], series: [] } });

function typeFile(types: unknown[]): string {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gcmd-types-')), 'types.json');
  fs.writeFileSync(f, JSON.stringify({ types }));
  return f;
}
const TYPES = [
  { id: 'lidar', names: ['lidar', 'laser altimetry'], field: 'instruments', gcmd: ['Lidar/Laser Altimeters'], members: [] },
  { id: 'scatterometer', names: ['scatterometer'], field: 'instruments', gcmd: ['Scatterometers'], members: [] },
  { id: 'airborne', names: ['airborne'], field: 'platforms', gcmd: ['Aircraft'], members: [] },
  { id: 'geostationary', names: ['geostationary'], field: 'platforms', gcmd: ['GOES'], members: ['TERRA'] }, // a member by hand (here deliberately odd)
];

test('the type file: the project\'s is valid against the snapshot\'s GCMD; a bad level, member or field names the file and the field', () => {
  const real = readGcmdTypeTerms({ instruments: readGcmdInstruments(), platforms: readGcmdPlatforms() });
  assert.ok(real.length >= 10 && real.some((t) => t.id === 'lidar') && real.some((t) => t.field === 'platforms'), JSON.stringify(real.map((t) => t.id)));
  assert.ok(fs.readFileSync(gcmdTypesFile(), 'utf8').includes('"about"'));
  const bad = (types: unknown[], field: RegExp) => {
    const f = typeFile(types);
    try {
      readGcmdTypeTerms(gcmd, f);
      assert.unreachable(`no error for ${JSON.stringify(types)}`);
    } catch (e) {
      const err = e as Error & { code?: string };
      assert.is(err.code, 'DATA_INVALID');
      assert.ok(err.message.includes(f) && field.test(err.message), err.message);
    }
  };
  bad([{ ...TYPES[0], gcmd: ['Lidar Things'] }], /types\[0\]\.gcmd: "Lidar Things" is no level of the GCMD instruments/);
  bad([TYPES[1], { ...TYPES[2], members: ['ZEPPELIN'] }], /types\[1\]\.members: "ZEPPELIN" is no GCMD platform short name/);
  bad([{ ...TYPES[0], field: 'sensors' }], /types\[0\]\.field: must be "instruments" or "platforms"/);
  bad([{ ...TYPES[0], names: [] }], /types\[0\]\.names/);
});

test('a type\'s names and carriers: CMR\'s fields first, else the inferred names, and titles that name the type; a query names types; the explanation says why', () => {
  const corpus = makeCorpus([
    ds('C1-X', 'CALIPSO profiles', { instruments: ['CALIOP'] }), // CMR's field
    ds('C2-X', 'GEDI L2A elevation', inferred(['ISS'], ['GEDI'])), // inferred
    ds('C3-X', 'LiDAR-derived canopy height, Maryland'), // the title names the type
    ds('C4-X', 'MODIS snow cover', { instruments: ['MODIS'], ...inferred([], ['GEDI']) }), // CMR lists one: the inferred one is not read
    ds('C5-X', 'QuikSCAT winds', inferred(['QUIKSCAT'], ['SEAWINDS'])),
    ds('C6-X', 'ARCTAS DC-8 in situ', { platforms: ['DC-8'] }),
  ], [], [], 'toy');
  const v = gcmdTypeVocabulary(corpus, { gcmd, file: typeFile(TYPES) });
  const lidar = v.types.find((t) => t.term.id === 'lidar')!;
  assert.equal(lidar.names, ['CALIOP', 'GEDI']);
  assert.equal(lidar.counts, [1, 1]);
  assert.equal([...lidar.carriers], [0, 1, 2]);
  assert.equal([...v.types.find((t) => t.term.id === 'geostationary')!.carriers], []);
  // named: longest phrase, each type once; a type nothing carries is not named
  assert.equal(namedGcmdTypes(v, 'airborne lidar and laser altimetry over geostationary scatterometer').map((n) => `${n.type.term.id}:${n.text}`), ['airborne:airborne', 'lidar:lidar', 'scatterometer:scatterometer']);
  const named = namedGcmdTypes(v, 'lidar canopy height');
  assert.is(describeTypeMatch(corpus.datasets[1], named, v), '"lidar" named: its instrument GEDI is of the GCMD type lidar (inferred from its title)');
  assert.is(describeTypeMatch(corpus.datasets[0], named, v), '"lidar" named: its instrument CALIOP is of the GCMD type lidar');
  assert.is(describeTypeMatch(corpus.datasets[2], named, v), '"lidar" named: its title says "LiDAR"');
  assert.is(describeTypeMatch(corpus.datasets[3], named, v), null);
  // tried as an expansion (not the default): the type adds its names, a name does not add the type's others
  const vocab = queryVocabulary(gcmdTypeGroups(v, { minDatasets: 1 }));
  assert.equal(expandQuery('lidar canopy height', vocab).matches[0].added, ['laser altimetry', 'CALIOP', 'GEDI']);
  assert.equal(expandQuery('CALIOP profiles', vocab).matches, []);
});

test('the identifier rule prefers a named type\'s carriers among the top candidates (×0.2 by default), and only when one of them carries it; its words are no identifier words', () => {
  const full = loadSnapshot();
  const v = identifierVocabulary(full);
  const named = namedIdentifiers(v, 'spaceborne lidar canopy height');
  const kinds = named.map((n) => `${n.group.kind}:${n.group.id}`);
  assert.ok(kinds.includes('instrumentType:lidar') && kinds.includes('platformType:spaceborne'), kinds.join());
  assert.is(DEFAULT_IDENTIFIER_RULE.classPenalty.instrumentType, 0.2);
  const lidar = named.find((n) => n.group.id === 'lidar')!;
  const carrier = lidar.group.carriers[0];
  const other = [...Array(full.datasets.length).keys()].find((i) => !lidar.group.carriers.includes(i))!;
  const scores = new Float32Array(full.datasets.length);
  scores[other] = 1;
  scores[carrier] = 0.5;
  const r = applyIdentifierRule(scores, [lidar]);
  assert.ok(r.scores[carrier] > r.scores[other], 'the carrier comes first');
  assert.is(r.factorOf(other), 0.2);
  assert.equal(r.lackedBy(other), ['lidar']);
  // no carrier among the top candidates: nothing moves, and the note says so
  const none = new Float32Array(full.datasets.length);
  none[other] = 1;
  const n = applyIdentifierRule(none, [lidar]);
  assert.equal([...n.scores], [...none]);
  assert.match(describeIdentifierEffects(n.effects, n.countedTop)[0], /none of the top 20 is of that type/);
  // the adaptive fusion's identifier-word feature ignores the types (it was fitted without them)
  assert.is(queryWordCounts('spaceborne lidar canopy height', named).identifierWords, 0);
  assert.is(queryWordCounts('GEDI lidar canopy height', namedIdentifiers(v, 'GEDI lidar canopy height')).identifierWords, 1);
});

test('as a user types it: "spaceborne lidar canopy height" ranks spaceborne lidar products first and says why; "airborne L-band SAR" the airborne SAR surveys', async () => {
  const full = loadSnapshot();
  const engine = createSearchEngine(full, { lexical: bm25Scorer(loadOrBuildBm25(full), 'bm25', 'BM25'), semantic: null });
  const res = await search(engine, 'spaceborne lidar canopy height', { k: 5, now: new Date('2026-12-05T00:00:00Z') });
  // BM25 alone: the spaceborne lidar products lead, the airborne lidar products follow and say what they lack
  for (const r of res.results.slice(0, 2)) {
    assert.match(r.type ?? '', /"spaceborne" named: its platforms? .* (is|are) of the GCMD type spaceborne.*"lidar" named/, `${r.longName}: ${r.type}`);
    assert.match(r.longName, /GEDI|ICESat|GLAS/);
  }
  const airborneLidar = res.results.find((r) => /LiDAR/.test(r.longName) && !/GLAS|GEDI|ICESat/.test(r.longName))!;
  assert.is(airborneLidar.identifier, 'lacks spaceborne (named in the query) (×0.2)');
  assert.match(airborneLidar.type!, /"lidar" named: its title says "LiDAR"/);
  assert.ok(res.retrieval.identifiers!.notes.some((l) => /^spaceborne named \("spaceborne"\): \d+ of the top 20 without it moved down$/.test(l)), res.retrieval.identifiers!.notes.join(' | '));
  // the page shows the line, escaped
  const html = renderSearchPage(res);
  assert.match(html, /<div class="type">type: &quot;spaceborne&quot; named: its platforms? [^<]* of the GCMD type spaceborne/);
  const sar = await search(engine, 'airborne L-band SAR', { k: 3, now: new Date('2026-12-05T00:00:00Z') });
  for (const r of sar.results.slice(0, 2)) assert.match(r.type ?? '', /"airborne" named: its title says "Airborne"; "SAR" named/, `${r.longName}: ${r.type}`);
});

test.run();
