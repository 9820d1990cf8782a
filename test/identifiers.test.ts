// Named identifiers are respected (lib/search/identifiers.ts): which names are identifiers on the real corpus, the
// rule's arithmetic (alternatives within a class, all classes wanted, levels, context, "unless none carries it"), and
// the failure case on the full snapshot: a semantic half that favours SeaWiFS no longer outvotes "VIIRS".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSnapshot } from '../lib';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import { applyIdentifierRule, describeIdentifierEffects, identifierKey, identifierVocabulary, namedIdentifiers } from '../lib/search/identifiers';
import { bm25Scorer } from '../lib/retrieve/scorers';
import { loadOrBuildBm25 } from '../lib/retrieve/bm25';
import { createSearchEngine } from '../lib/search/engine';
import { search } from '../lib/search/search';
import { renderSearchPage } from '../lib/serve/page';
import type { CorpusScorer } from '../lib/retrieve/scorers';
import { throwsWith } from './helpers/data';

const full = loadSnapshot();
const vocab = identifierVocabulary(full);
const ids = (q: string) => namedIdentifiers(vocab, q).filter((x) => !x.context).map((x) => x.group.id);

test('identifiers of the real corpus: instruments, platforms with aliases, archives, levels; ordinary words and formulas are not', () => {
  assert.equal(ids('VIIRS aerosol optical thickness'), ['VIIRS']);
  assert.equal(ids('MISR aerosol optical depth'), ['MISR']);
  assert.equal(ids('Suomi NPP cloud mask'), ['SNPP']);
  assert.equal(ids('snpp cloud mask'), ['SNPP']);
  assert.equal(ids('NOAA-20 aerosol'), ids('noaa20 aerosol'));
  assert.equal(ids('GES DISC MERRA-2 hourly'), ['GES_DISC', 'MERRA-2']);
  assert.equal(ids('OMI NO2 L3 daily').sort(), ['L3', 'OMI']);
  assert.equal(ids('soil moisture SMAP level 3').sort(), ['L3', 'SMAP']);
  // ordinary words (also when a project of the corpus is named so), places and formulas are not identifiers
  for (const q of ['sea ice extent', 'fire emissions in the Amazon', 'soil vegetation', 'aerosol optical depth over India', 'CO2 NO2 O3', 'map of daily rainfall in West Africa'])
    assert.equal(ids(q), [], q);
  assert.is(identifierKey('NOAA-20'), identifierKey('noaa 20'));
  // every group a query can name is carried by some dataset
  for (const g of vocab.groups) assert.ok(g.carriers.length > 0, g.id);
});

test('a name after a context cue ("the successor of TRMM", "pre-MODIS") is context, not the asked data', () => {
  const n = namedIdentifiers(vocab, 'daily rain rates from the successor of TRMM');
  const trmm = n.find((x) => x.group.id === 'TRMM')!;
  assert.is(trmm.context, 'successor');
  assert.ok(namedIdentifiers(vocab, 'a pre-MODIS aerosol record').every((x) => x.context === 'pre'));
  assert.is(namedIdentifiers(vocab, 'a lightning record from before TRMM').find((x) => x.group.id === 'TRMM')?.context, 'before');
  // "gap" is no cue: in the corpus it precedes a dataset's own instrument ("gap-filled MODIS …")
  const modis = namedIdentifiers(vocab, 'gap filled MODIS snow cover').find((x) => x.group.id === 'MODIS');
  assert.ok(modis, 'MODIS is named');
  assert.is(modis!.context, undefined);
  const ones = new Float32Array(full.datasets.length).fill(1);
  const r = applyIdentifierRule(ones, n.filter((x) => x.group.id === 'TRMM'));
  assert.is(r.scores.every((s) => s === 1), true);
  assert.match(describeIdentifierEffects(r.effects, r.countedTop)[0], /taken as context/);
});

function ds(id: string, longName: string, extra: Partial<DatasetRecord> = {}): DatasetRecord {
  return {
    id, shortName: null, longName, abstract: '', doi: null, daac: 'LAADS', publisher: null, temporalStart: null, temporalEnd: null, bbox: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: '', shortNameSource: null, catalogRecordComplete: true, sources: [],
    ...extra,
  } as DatasetRecord;
}

test('the rule: carriers first; alternatives of one class are OR, classes are AND; levels only where stated; none carries it: no effect', () => {
  const toy = makeCorpus([
    ds('C1-X', 'MODIS/Terra Land Surface Temperature/Emissivity 8-Day L3'),
    ds('C2-X', 'MODIS/Aqua Land Surface Temperature/Emissivity 8-Day L3'),
    ds('C3-X', 'VIIRS/NPP Land Surface Temperature/Emissivity 8-Day L3'),
    ds('C4-X', 'MODIS/Terra Land Surface Temperature 5-Min L2 Swath'),
    ds('C5-X', 'Land surface temperature climatology'), // states no level
  ], [], [], 'toy');
  const v = identifierVocabulary(toy);
  const scores = Float32Array.from([0.5, 0.4, 0.9, 0.8, 0.7]);
  // the arithmetic with every candidate in play and one factor for every class
  const flat = { window: Infinity, classPenalty: {} };
  const rank = (q: string, rule = flat) => {
    const r = applyIdentifierRule(scores, namedIdentifiers(v, q), rule);
    return [...r.scores.keys()].sort((a, b) => r.scores[b] - r.scores[a]).map((i) => toy.datasets[i].id);
  };
  // MODIS named: the VIIRS product (best raw score) and the one without an instrument go below every MODIS product
  assert.equal(rank('MODIS land surface temperature').slice(0, 3), ['C4-X', 'C1-X', 'C2-X']);
  // Terra and Aqua are alternatives: both MODIS L3 products stay on top, the L2 swath (another stated level) drops
  assert.equal(rank('MODIS Terra Aqua LST L3').slice(0, 2), ['C1-X', 'C2-X']);
  const r = applyIdentifierRule(scores, namedIdentifiers(v, 'MODIS Terra Aqua LST L3'), flat);
  assert.equal(r.lackedBy(3), ['L3']); // the swath lacks only the level
  assert.equal(r.lackedBy(4), ['MODIS', 'Terra or Aqua']); // no stated level: left alone on that count
  assert.is(r.factorOf(2), 0.01 ** 2); // VIIRS/NPP lacks MODIS and Terra-or-Aqua
  // the default: platforms and levels are milder (×0.5), and only the top `window` move, never below the next one
  const d = applyIdentifierRule(scores, namedIdentifiers(v, 'MODIS Terra Aqua LST L3'));
  assert.is(d.factorOf(2), 0.01 * 0.5);
  assert.is(d.factorOf(3), 0.5);
  const w = applyIdentifierRule(scores, namedIdentifiers(v, 'MODIS land surface temperature'), { window: 2 });
  // window 2 = C3 (0.9, lacks MODIS) and C4 (0.8): C3 drops to just above the third (C5, 0.7) and is not pushed further
  assert.ok(w.scores[2] > scores[4] && w.scores[2] < w.scores[3], [...w.scores].join());
  assert.equal([...w.scores].filter((_, i) => i !== 2), [...scores].filter((_, i) => i !== 2));
  assert.equal(w.lackedBy(4), []); // beyond the window: not moved, so nothing to explain
  // a name no candidate carries changes nothing and says so
  const none = applyIdentifierRule(Float32Array.from([0, 0, 0.9, 0, 0.7]), namedIdentifiers(v, 'MODIS land surface temperature'));
  assert.equal([...none.scores], [0, 0, 0.9, 0, 0.7].map(Math.fround));
  assert.match(describeIdentifierEffects(none.effects, none.countedTop)[0], /no candidate carries it/);
  // off, and a removed chip, leave the ranking alone; bad settings are refused
  assert.equal([...applyIdentifierRule(scores, namedIdentifiers(v, 'VIIRS'), { mode: 'off' }).scores], [...scores]);
  assert.equal([...applyIdentifierRule(scores, namedIdentifiers(v, 'VIIRS'), { ignore: ['viirs'] }).scores], [...scores]);
  throwsWith(() => applyIdentifierRule(scores, [], { penalty: 0 }), 'INVALID_ARGUMENT', /penalty/);
  throwsWith(() => applyIdentifierRule(scores, [], { mode: 'tier' as never }), 'INVALID_ARGUMENT', /mode/);
});

test('the issue\'s case on the full snapshot: a semantic half that favours SeaWiFS Deep Blue no longer outvotes "VIIRS"', async () => {
  const lexical = bm25Scorer(loadOrBuildBm25(full), 'bm25', 'BM25');
  // a stand-in for the NN-SSC of the issue: it scores SeaWiFS Deep Blue aerosol products highest for any aerosol query
  const semantic: CorpusScorer = {
    id: 'seawifs-lover', label: 'stand-in',
    async scoreBatch(texts) {
      return texts.map(() => Float32Array.from(full.datasets, (d) => (/SeaWiFS Deep Blue/.test(d.longName) ? 1 : /aerosol/i.test(d.longName) ? 0.6 : 0.1)));
    },
  };
  const engine = createSearchEngine(full, { lexical, semantic, fusion: { method: 'convex', alpha: 0.7 } });
  const off = await search(engine, 'VIIRS aerosol optical thickness', { k: 6, router: false, identifiers: { mode: 'off' } });
  assert.ok(off.results.filter((r) => /SeaWiFS/.test(r.longName)).length >= 3, 'without the rule SeaWiFS wins (the failure)');
  const on = await search(engine, 'VIIRS aerosol optical thickness', { k: 20, router: false });
  // within the rule's window (the top 20) every VIIRS product now comes before every product without VIIRS
  const firstLacking = on.results.findIndex((r) => !/VIIRS/.test(r.longName));
  assert.ok(firstLacking > 0, 'some VIIRS products on top');
  assert.ok(on.results.slice(firstLacking).every((r) => !/VIIRS/.test(r.longName)), on.results.map((r) => r.longName).join('\n'));
  assert.ok(on.results.slice(0, 6).filter((r) => /VIIRS/.test(r.longName)).length > off.results.filter((r) => /VIIRS/.test(r.longName)).length);
  // with the whole ranking as the window, no SeaWiFS product is left in the top 6
  const all = await search(engine, 'VIIRS aerosol optical thickness', { k: 6, router: false, identifiers: { window: Infinity } });
  assert.ok(all.results.every((r) => /VIIRS/.test(r.longName)), all.results.map((r) => r.longName).join('\n'));
  const named = on.retrieval.identifiers!.named;
  assert.equal(named.map((n) => n.id), ['VIIRS']);
  assert.ok(named[0].applied && named[0].moved > 0);
  assert.match(on.retrieval.identifiers!.notes[0], /^VIIRS named \("VIIRS"\): \d+ of the top 20 without it moved down$/);
  // a product few datasets carry: its carriers first, then the others, each saying what it lacks
  const bm25Only = createSearchEngine(full, { lexical, semantic: null });
  const deep = await search(bm25Only, 'IMERG precipitation', { k: 20, router: false }); // the rule's window
  const carrier = (r: { longName: string }) => /IMERG/.test(r.longName);
  const cut = deep.results.findIndex((r) => !carrier(r));
  assert.ok(cut > 0 && deep.results.slice(0, cut).every((r) => !r.identifier));
  const lacking = deep.results.slice(cut);
  assert.ok(lacking.length > 0 && lacking.every((r) => !carrier(r) && /^lacks IMERG \(named in the query\) \(×0\.01\)$/.test(r.identifier ?? '')), lacking.map((r) => r.identifier).join());
  // the page shows it with the result, and the rule's note above the results
  const html = renderSearchPage(deep);
  assert.is(html.split('moved down: lacks IMERG (named in the query) (×0.01)').length - 1, lacking.length);
  assert.match(html, /class="note identifier-note">IMERG named \(&quot;IMERG&quot;\): \d+ of the top 20 without it moved down</);
});

test.run();
