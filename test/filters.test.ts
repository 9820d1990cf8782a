// Filters and facets (issue 21, item 6): the CMR-like parameter parsers, the hard filters and the facet counts on the
// SAMPLE snapshot (200 datasets), the search path with filters/ignore/facets, and the service's parameters (400s,
// filters applied, facets present, the answer cache keyed by the filters). BM25 alone: no embeddings needed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSearchServer, loadSnapshot, search, type SearchResponse } from '../lib';
import { type DatasetRecord } from '../lib/data';
import { bm25Scorer, buildBm25 } from '../lib/retrieve';
import { createSearchEngine } from '../lib/search';
import { bboxesIntersect, temporalCoverage } from '../lib/search/constraints';
import { computeFacets, decadeTemporal, FACET_NAMES } from '../lib/search/facets';
import {
  applyFilters, canonicalFilters, carriesName, nameKey, normaliseProcessingLevel, parseBoundingBox, parseFilterParams, parseTemporalFilter,
  type SearchFilters,
} from '../lib/search/filters';
import { isEoError } from '../lib/errors';
import { renderSearchPage } from '../lib/serve/page';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const corpus = loadSnapshot({ sample: true });
const engine = createSearchEngine(corpus, { lexical: bm25Scorer(buildBm25(corpus)), semantic: null, source: 'given' });
const N = corpus.datasets.length;
const ones = () => new Float32Array(N).fill(1);
const NOW = new Date('2026-11-30T00:00:00Z');

/** The error a call throws (fails the test when it throws none). */
function thrown(f: () => unknown): Error & { code?: string; details?: { parameter?: string } } {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

/** Corpus positions the filters keep (uniform scores). */
function keptBy(filters: SearchFilters): number[] {
  const f = applyFilters(ones(), corpus, filters);
  return corpus.datasets.map((_, i) => i).filter((i) => f.keeps(i));
}
const where = (p: (d: DatasetRecord) => boolean) => corpus.datasets.map((d, i) => (p(d) ? i : -1)).filter((i) => i >= 0);

test('temporal: CMR start,end of dates or date-times, open sides, errors naming the parameter', () => {
  assert.equal(parseTemporalFilter('2015-01-01,2020-12-31'), { start: '2015-01-01', end: '2020-12-31' });
  assert.equal(parseTemporalFilter(' ,2010-06-30'), { start: null, end: '2010-06-30' });
  assert.equal(parseTemporalFilter('2019-07-01T12:00:00Z,'), { start: '2019-07-01T12:00:00Z', end: null });
  assert.equal(parseTemporalFilter('2019-07-01T12:00:00,'), { start: '2019-07-01T12:00:00Z', end: null }, 'no zone: UTC, as CMR');
  assert.equal(parseTemporalFilter('2019-07-01,2019-07-01'), { start: '2019-07-01', end: '2019-07-01' }, 'one day');
  for (const [bad, why] of [['2020-01-01,2015-01-01', /after the end/], ['2019-02-30,', /not a calendar date/], ['yesterday,', /not an ISO date/],
    [',', /a start, an end or both/], ['2015', /start,end/], ['2015-01-01,2016-01-01,2017-01-01', /start,end/], ['2019-07-01T25:00:00Z,', /not a valid time/]] as const) {
    const e = thrown(() => parseTemporalFilter(bad));
    assert.ok(isEoError(e, 'INVALID_ARGUMENT'), bad);
    assert.match(e.message, /^temporal: /, bad);
    assert.match(e.message, why, `${bad}: ${e.message}`);
    assert.is(e.details?.parameter, 'temporal');
  }
  const long = `${'9'.repeat(300)},`;
  assert.ok(thrown(() => parseTemporalFilter(long)).message.length < 150, 'a message never echoes long input');
});

test('bounding_box: west,south,east,north in range, antimeridian allowed, south ≤ north', () => {
  assert.equal(parseBoundingBox('-10,35,30,60'), [-10, 35, 30, 60]);
  assert.equal(parseBoundingBox(' 170 , -10 , -170 , 10 '), [170, -10, -170, 10], 'west > east crosses 180°');
  for (const [bad, why] of [['-190,0,0,10', /west -190 is out of range/], ['0,-95,10,10', /south -95 is out of range/], ['0,20,10,10', /south 20 is north of north 10/],
    ['1,2,3', /four numbers/], ['a,0,1,1', /west "a" is not a number/], ['0,0,181,1', /east 181/], ['0x10,0,1,1', /not a number/]] as const) {
    const e = thrown(() => parseBoundingBox(bad));
    assert.match(e.message, /^bounding_box: /, bad);
    assert.match(e.message, why, `${bad}: ${e.message}`);
    assert.is(e.details?.parameter, 'bounding_box');
  }
});

test('processing levels: "3" = "L3" = "Level 3"; sub-levels kept; not-a-level is null', () => {
  for (const s of ['3', 'L3', 'l3', 'Level 3', 'level-3', 'LEVEL_3', ' 3 ']) assert.is(normaliseProcessingLevel(s), '3', s);
  assert.is(normaliseProcessingLevel('l2g'), '2G');
  assert.is(normaliseProcessingLevel('Level 1B'), '1B');
  for (const s of ['x', 'L', '', null, '12345', 'level three']) assert.is(normaliseProcessingLevel(s), null, String(s));
});

test('parseFilterParams: repeated and comma-separated values, canonical providers, unknown provider lists valid ones, limits', () => {
  const { filters, ignore } = parseFilterParams({
    provider: ['ges_disc,POCLOUD', 'GES_DISC'], platform: 'Aqua, SUOMI-NPP', instrument: ['MODIS'], processing_level_id: ['L3', 'Level 3', '2'],
    temporal: '2015-01-01,', bounding_box: '-10,35,30,60', ignore: ['period', 'place:India', 'identifier:VIIRS'],
  }, corpus);
  assert.equal(filters, {
    provider: ['GES_DISC', 'POCLOUD'], platform: ['Aqua', 'SUOMI-NPP'], instrument: ['MODIS'], processing_level_id: ['3', '2'],
    temporal: { start: '2015-01-01', end: null }, bounding_box: [-10, 35, 30, 60],
  });
  assert.equal(ignore, { period: true, places: ['India'], identifiers: ['VIIRS'] });
  assert.equal(parseFilterParams({ provider: '', temporal: '', bounding_box: [''], platform: [' , '] }, corpus), { filters: {}, ignore: {} }, 'empty inputs of the page filter nothing');

  const unknown = thrown(() => parseFilterParams({ provider: 'NASA_XYZ' }, corpus));
  assert.match(unknown.message, /^provider: unknown provider "NASA_XYZ"/);
  assert.match(unknown.message, /GES_DISC/, 'lists valid providers');
  const long = thrown(() => parseFilterParams({ provider: 'Q'.repeat(70) }, corpus));
  assert.not.match(long.message, 'Q'.repeat(30), 'long input not echoed');
  assert.match(thrown(() => parseFilterParams({ platform: Array.from({ length: 21 }, (_, i) => `p${i}`).join(',') }, corpus)).message, /^platform: too many values \(21; at most 20\)/);
  assert.match(thrown(() => parseFilterParams({ instrument: 'x'.repeat(81) }, corpus)).message, /^instrument: a value is too long/);
  assert.match(thrown(() => parseFilterParams({ instrument: 'MODIS<script>' }, corpus)).message, /^instrument: .*markup/);
  assert.match(thrown(() => parseFilterParams({ processing_level_id: 'three' }, corpus)).message, /^processing_level_id: "three" is not a processing level/);
  assert.match(thrown(() => parseFilterParams({ temporal: ['2015-01-01,', '2016-01-01,'] }, corpus)).message, /^temporal: give it once/);
  assert.match(thrown(() => parseFilterParams({ ignore: 'everything' }, corpus)).message, /^ignore: "everything" is not period, place:<name> or identifier:<text>/);
  assert.is(thrown(() => parseFilterParams({ ignore: 'place:' }, corpus)).details?.parameter, 'ignore');
  // one cache entry for equal filters in any order or spelling
  assert.is(canonicalFilters({ provider: ['POCLOUD', 'GES_DISC'], platform: ['Suomi NPP'] }), canonicalFilters({ provider: ['GES_DISC', 'POCLOUD'], platform: ['SUOMI-NPP'] }));
  assert.is.not(canonicalFilters({ provider: ['POCLOUD'] }), canonicalFilters({ provider: ['GES_DISC'] }));
});

test('filters on the sample: each keeps exactly the datasets its rule says, OR within a filter, AND across', () => {
  assert.equal(keptBy({ provider: ['POCLOUD', 'OB_DAAC'] }), where((d) => d.daac === 'POCLOUD' || d.daac === 'OB_DAAC'));
  assert.ok(keptBy({ provider: ['POCLOUD'] }).length > 0);
  const l3 = keptBy({ processing_level_id: ['3'] });
  assert.ok(l3.length > 0);
  assert.equal(l3, where((d) => d.processingLevel === '3'));
  assert.equal(keptBy({ processing_level_id: ['L3'] }), l3, 'the filter value is normalised too');
  const period = { start: '2016-01-01', end: '2018-12-31' };
  const t = keptBy({ temporal: period });
  assert.equal(t, where((d) => temporalCoverage(d, period) === 'covers'));
  assert.ok(t.length > 0 && t.length < N);
  const openEnd = keptBy({ temporal: { start: '2020-01-01', end: null } });
  assert.equal(openEnd, where((d) => temporalCoverage(d, { start: '2020-01-01', end: '9999-12-31' }) === 'covers'));
  assert.ok(openEnd.every((i) => !corpus.datasets[i].temporalEnd || corpus.datasets[i].temporalEnd! >= '2020-01-01'), 'ends before the open start are gone');
  const dayEnd = keptBy({ temporal: { start: null, end: '1990-12-31T00:00:00Z' } });
  assert.ok(dayEnd.every((i) => corpus.datasets[i].temporalStart! <= '1990-12-31T00:00:00Z'), 'a date-time end is taken as given');
  const box: [number, number, number, number] = [-10, 35, 30, 60];
  const b = keptBy({ bounding_box: box });
  assert.equal(b, where((d) => !!d.bbox && bboxesIntersect(d.bbox, box)), 'datasets without a box are removed, as CMR');
  assert.ok(b.length > 0 && where((d) => !d.bbox).length > 0);
  const dateline = keptBy({ bounding_box: [175, -20, -175, 20] });
  assert.equal(dateline, where((d) => !!d.bbox && bboxesIntersect(d.bbox, [175, -20, -175, 20])));
  assert.ok(dateline.every((i) => { const [w, , e] = corpus.datasets[i].bbox!; return w > e || e >= 175 || w <= -175; }), 'across the antimeridian');
  const both = keptBy({ provider: ['GES_DISC'], temporal: period });
  assert.equal(both, t.filter((i) => corpus.datasets[i].daac === 'GES_DISC'), 'AND across filters');
  // removed/kept count datasets with a positive score only
  const scores = Float32Array.from(corpus.datasets, (_, i) => (i % 2 ? 1 : 0));
  const f = applyFilters(scores, corpus, { provider: ['GES_DISC'] });
  assert.is(f.effect.kept, where((d) => d.daac === 'GES_DISC').filter((i) => i % 2).length);
  assert.is(f.effect.removed, where((d) => d.daac !== 'GES_DISC').filter((i) => i % 2).length);
  assert.ok(corpus.datasets.every((d, i) => (d.daac === 'GES_DISC' ? f.scores[i] === scores[i] : f.scores[i] === -Infinity)), 'kept scores untouched');
});

test('platform / instrument: the field when a dataset has one, else whole words of its title; case and punctuation ignored', () => {
  const withField = where((d) => d.instruments.some((x) => x === 'MODIS'));
  const titleOnly = where((d) => d.instruments.length === 0 && /(^|[^A-Za-z0-9])MODIS([^A-Za-z0-9]|$)/i.test(`${d.shortName ?? ''} ${d.longName}`));
  assert.ok(withField.length > 0 && titleOnly.length > 0, `sample has MODIS in fields (${withField.length}) and in titles only (${titleOnly.length})`);
  const modis = keptBy({ instrument: ['modis'] });
  assert.equal(modis, [...withField, ...titleOnly].sort((a, b) => a - b));
  // a dataset whose field lacks MODIS is not matched by its title
  const fieldOther = where((d) => d.instruments.length > 0 && !d.instruments.includes('MODIS'));
  assert.ok(fieldOther.every((i) => !modis.includes(i)));
  assert.equal(keptBy({ platform: ['Suomi NPP'] }), keptBy({ platform: ['SUOMI-NPP'] }));
  assert.ok(keptBy({ platform: ['suomi-npp'] }).length > 0);
  assert.equal(keptBy({ instrument: ['MODIS', 'OMI'] }), [...new Set([...modis, ...keptBy({ instrument: ['OMI'] })])].sort((a, b) => a - b), 'OR');
  assert.is(nameKey('DMSP 5D-2/F13'), 'dmsp 5d 2 f13');
  // two-letter names never match titles ("PR" is the TRMM radar, and a word in many titles)
  const i = corpus.datasets.findIndex((d) => d.instruments.length === 0);
  assert.is(carriesName(corpus.datasets, i, 'instrument', ['pr']), false);
});

test('facets: counts over the top results with a positive score, sorted; each count is what its filter keeps', async () => {
  const [bm] = await engine.lexical!.scoreBatch(['sea surface temperature ocean']);
  const positive = [...bm].filter((x) => x > 0).length;
  assert.ok(positive > 10 && positive < N, `${positive} datasets match`);
  const fc = computeFacets(bm, corpus, { depth: 100, now: NOW });
  assert.is(fc.resultSet, Math.min(100, positive));
  const small = computeFacets(bm, corpus, { depth: 5, now: NOW });
  assert.is(small.resultSet, 5);
  assert.is(small.provider.reduce((s, v) => s + v.count, 0), 5, 'one provider per dataset');
  const top = [...bm.keys()].filter((i) => bm[i] > 0).sort((a, b) => bm[b] - bm[a] || (corpus.datasets[b].id < corpus.datasets[a].id ? -1 : 1)).slice(0, 100);
  for (const f of FACET_NAMES) {
    const vs = fc[f];
    assert.ok(vs.length > 0, `${f} has values`);
    for (let j = 1; j < vs.length; j++) assert.ok(vs[j - 1].count >= vs[j].count, `${f} sorted by count`);
    for (const v of vs) {
      const filter: SearchFilters = f === 'period' ? { temporal: decadeTemporal(v.value)! } : f === 'processing_level_id' ? { processing_level_id: [v.value] } : { [f]: [v.value] };
      const keeps = applyFilters(ones(), corpus, filter);
      const n = top.filter((i) => keeps.keeps(i)).length;
      assert.is(v.count, n, `${f} ${v.value}: facet ${v.count}, filter keeps ${n} of the result set`);
    }
  }
  assert.ok(fc.platform.some((v) => v.value === 'Aqua' || v.value === 'Terra'), JSON.stringify(fc.platform));
  // filtered datasets (-Infinity) are not counted
  const onlyPo = applyFilters(bm, corpus, { provider: ['POCLOUD'] });
  const fp = computeFacets(onlyPo.scores, corpus, { now: NOW });
  assert.equal(fp.provider.map((v) => v.value), ['POCLOUD']);
  assert.is(fp.resultSet, onlyPo.effect.kept);
  assert.equal(decadeTemporal('2010s'), { start: '2010-01-01', end: '2019-12-31' });
  assert.is(decadeTemporal('2015'), null);
  assert.ok(thrown(() => computeFacets(bm, corpus, { depth: 0 })).message.includes('facet depth'));
});

test('search: filters remove without reordering, echo what they removed; facets only when asked; ignore drops parsed constraints', async () => {
  const q = 'aerosol optical depth over India since 2015';
  const all = await search(engine, q, { k: 200, now: NOW });
  const ges = await search(engine, q, { k: 200, now: NOW, filters: { provider: ['GES_DISC'] }, facets: true });
  assert.ok(ges.results.length > 0 && ges.results.every((r) => r.daac === 'GES_DISC'));
  assert.equal(ges.results.map((r) => r.id), all.results.filter((r) => r.daac === 'GES_DISC').map((r) => r.id), 'hard filters keep the order');
  assert.equal(ges.results.map((r) => r.rank), ges.results.map((_, i) => i + 1));
  assert.equal(ges.retrieval.filters, { applied: { provider: ['GES_DISC'] }, removed: all.results.length - ges.results.length, kept: ges.results.length });
  assert.is(all.retrieval.filters, undefined);
  assert.is(all.facets, undefined, 'facets only when asked');
  assert.equal(ges.facets!.provider, [{ value: 'GES_DISC', count: Math.min(100, ges.results.length) }]);
  assert.ok(ges.retrieval.constraints!.period && ges.retrieval.constraints!.places.length === 1, 'the question asks for a period and India');

  const noPeriod = await search(engine, q, { now: NOW, ignore: { period: true } });
  assert.is(noPeriod.retrieval.constraints!.period, null);
  assert.equal(noPeriod.retrieval.constraints!.places.map((p) => p.name), ['India']);
  assert.equal(noPeriod.retrieval.ignored, { period: true });
  assert.ok(noPeriod.router!.parsed.period, 'the parse itself still shows the period (the page offers to restore it)');
  const noPlace = await search(engine, q, { now: NOW, ignore: { places: ['india'] } });
  assert.equal(noPlace.retrieval.constraints!.places, []);
  const none = await search(engine, q, { now: NOW, ignore: { period: true, places: ['India'] } });
  assert.is(none.retrieval.constraints, null, 'nothing left to apply');
  const plain = await search(engine, 'aerosol optical depth', { now: NOW });
  assert.equal(none.results.map((r) => r.id).slice(0, 3).length, 3);
  assert.ok(plain.results.length > 0);

  const t = await search(engine, q, { now: NOW, filters: { temporal: { start: '2016-01-01', end: '2016-12-31' }, bounding_box: [60, 0, 100, 40] }, k: 50 });
  for (const r of t.results) {
    const d = corpus.datasets[corpus.indexById.get(r.id)!];
    assert.is(temporalCoverage(d, { start: '2016-01-01', end: '2016-12-31' }), 'covers', r.id);
    assert.ok(d.bbox && bboxesIntersect(d.bbox, [60, 0, 100, 40]), r.id);
  }
});

const get = async (app: Awaited<ReturnType<typeof createSearchServer>>, url: string) => app.inject({ method: 'GET', url, remoteAddress: '127.0.0.1' });

test('API: bad filter values are 400 BAD_FILTER naming the parameter; filters applied; facets with include_facets; cache keyed by filters', async () => {
  const app = await createSearchServer(engine, { now: () => NOW });
  try {
    const q = 'q=' + encodeURIComponent('sea surface temperature');
    for (const [params, param, why] of [
      ['provider=NOPE', 'provider', /GES_DISC/], ['temporal=2020-01-01,2010-01-01', 'temporal', /after the end/], ['temporal=soon,', 'temporal', /not an ISO date/],
      ['bounding_box=0,50,10,40', 'bounding_box', /north of north/], ['bounding_box=0,0,200,10', 'bounding_box', /out of range/],
      [`platform=${Array.from({ length: 25 }, (_, i) => `p${i}`).join(',')}`, 'platform', /too many values/], ['processing_level_id=Lx', 'processing_level_id', /not a processing level/],
      ['ignore=all', 'ignore', /not period/], ['temporal=2015-01-01,&temporal=2016-01-01,', 'temporal', /once/],
    ] as const) {
      const r = await get(app, `/api/search?${q}&${params}`);
      assert.is(r.statusCode, 400, params);
      const body = r.json();
      assert.is(body.error.code, 'BAD_FILTER', params);
      assert.match(body.error.message, new RegExp(`^${param}: `), params);
      assert.match(body.error.message, why, `${params}: ${body.error.message}`);
    }
    const long = await get(app, `/api/search?${q}&provider=${'Z'.repeat(75)}`);
    assert.is(long.statusCode, 400);
    assert.not.match(long.body, 'Z'.repeat(30));
    const page = await get(app, `/?${q}&bounding_box=1,2,3`);
    assert.is(page.statusCode, 400);
    assert.match(page.body, /bounding_box: give four numbers/);

    const plain = await get(app, `/api/search?${q}&k=50`);
    assert.is(plain.statusCode, 200);
    assert.is((plain.json() as SearchResponse).facets, undefined, 'the JSON API counts facets only when asked (CMR: include_facets)');
    assert.is((await get(app, `/api/search?${q}&include_facets=yes`)).statusCode, 400);
    const a = await get(app, `/api/search?${q}&k=50&include_facets=true`);
    assert.is(a.statusCode, 200);
    assert.is(a.headers['x-eo-cache'], 'miss', 'facets are part of the cache key');
    const all = a.json() as SearchResponse;
    assert.ok(all.facets && all.facets.provider.length > 1, 'facets when asked');
    const f = await get(app, `/api/search?${q}&k=50&include_facets=true&provider=POCLOUD&provider=ob_daac`);
    assert.is(f.headers['x-eo-cache'], 'miss', 'filters are part of the cache key');
    const res = f.json() as SearchResponse;
    assert.ok(res.results.length > 0 && res.results.every((r) => r.daac === 'POCLOUD' || r.daac === 'OB_DAAC'));
    assert.equal(res.retrieval.filters!.applied.provider, ['POCLOUD', 'OB_DAAC']);
    const expected = all.results.filter((r) => r.daac === 'POCLOUD' || r.daac === 'OB_DAAC').map((r) => r.id);
    assert.ok(expected.length > 5);
    assert.equal(res.results.map((r) => r.id).slice(0, expected.length), expected, 'the unfiltered order, filtered (then further down the ranking)');
    assert.ok(res.retrieval.filters!.removed > 0);
    assert.equal(res.facets!.provider.map((v) => v.value).sort(), [...new Set(res.results.map((r) => r.daac))].sort());
    const again = await get(app, `/api/search?${q}&k=50&include_facets=true&provider=OB_DAAC,POCLOUD`);
    assert.is(again.headers['x-eo-cache'], 'hit', 'same filters in another order: one entry');
    const other = await get(app, `/api/search?${q}&k=50&provider=POCLOUD`);
    assert.is(other.headers['x-eo-cache'], 'miss');
    assert.ok((other.json() as SearchResponse).results.every((r) => r.daac === 'POCLOUD'));
    const ig = await get(app, `/api/search?q=${encodeURIComponent('aerosol over India since 2015')}&ignore=period`);
    assert.is(ig.headers['x-eo-cache'], 'miss');
    assert.is((ig.json() as SearchResponse).retrieval.constraints!.period, null);
    const igAgain = await get(app, `/api/search?q=${encodeURIComponent('aerosol over India since 2015')}`);
    assert.is(igAgain.headers['x-eo-cache'], 'miss', 'ignored constraints are part of the key');
    assert.ok((igAgain.json() as SearchResponse).retrieval.constraints!.period);

    // the page: facet links, active-filter chips with remove links, parsed chips, all escaped
    const html = (await get(app, `/?q=${encodeURIComponent('aerosol over India since 2015')}&platform=${encodeURIComponent('Aqua&x')}&provider=GES_DISC`)).body;
    assert.match(html, /id="facets"/);
    assert.match(html, /class="chip filter" data-kind="platform">platform Aqua&amp;x <a class="remove" href="\/\?q=aerosol\+over\+India\+since\+2015&amp;provider=GES_DISC"/);
    assert.not.match(html, /Aqua&x/);
    assert.match(html, /data-kind="period">period 2015-01-01 – 2026-11-30 <a class="remove" href="[^"]*ignore=period"/);
    assert.match(html, /data-kind="place">place India <a class="remove" href="[^"]*ignore=place%3AIndia"/);
    assert.match(html, /<input form="search-form" name="provider" id="f-provider" value="GES_DISC"/);
  } finally {
    await app.close();
  }
});

test('page: identifier chips from retrieval.identifiers.named remove with ignore=identifier:<text>; ignored ones restore; all escaped', async () => {
  const res = await search(engine, 'VIIRS aerosol over India since 2015', { now: NOW, facets: true, ignore: { period: true, identifiers: ['OLD<i>'] } });
  res.retrieval.identifiers = { named: [{ text: 'VIIRS', kind: 'instrument', moved: 4 }, { text: 'a"b<c>', kind: 'short name', moved: 0 }] };
  const html = renderSearchPage(res);
  assert.match(html, /data-kind="identifier">instrument VIIRS \(4 moved down\) <a class="remove" href="\/\?q=VIIRS\+aerosol\+over\+India\+since\+2015&amp;ignore=period&amp;ignore=identifier%3AOLD%3Ci%3E&amp;ignore=identifier%3AVIIRS"/);
  assert.match(html, /short name a&quot;b&lt;c&gt;/);
  assert.not.match(html, /a"b<c>/);
  assert.match(html, /class="chip parsed ignored" data-kind="identifier">identifier OLD&lt;i&gt; <a class="restore" href="\/\?q=VIIRS\+aerosol\+over\+India\+since\+2015&amp;ignore=period"/);
  assert.match(html, /class="chip parsed ignored" data-kind="period">period 2015-01-01 – 2026-11-30 <a class="restore"/);
  assert.not.match(html, /<script>/, 'no inline script');
});

test('eo search: filter flags through the service\'s parser, applied filters and facets printed; a bad flag names itself', () => {
  const eo = path.join(__dirname, '..', 'dist', 'lib', 'cli', 'eo.js');
  const run = (...args: string[]) => spawnSync(process.execPath, [eo, 'search', 'sea surface temperature', '--sample', '--retriever', 'bm25', ...args], { encoding: 'utf8' });
  const ok = run('--provider', 'pocloud', '--temporal=2010-01-01,', '--facets', '--k', '3');
  assert.is(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^filters: provider POCLOUD; temporal 2010-01-01, \(\d+ matching datasets removed, [1-9]\d* kept\)$/m);
  assert.equal([...ok.stdout.matchAll(/^ +\d+\. (C\d+-\w+)/gm)].map((m) => m[1].split('-')[1]), ['POCLOUD', 'POCLOUD', 'POCLOUD']);
  assert.match(ok.stdout, /^facets \(top \d+ results\):\n  provider: POCLOUD \d+$/m);
  const json = spawnSync(process.execPath, [eo, 'search', 'sea surface temperature', '--sample', '--retriever', 'bm25', '--json', '--instrument', 'MODIS,AVHRR', '--bounding-box=170,-30,-170,30', '--processing-level-id', 'Level 3', '--processing-level-id', 'l2g'], { encoding: 'utf8' });
  assert.is(json.status, 0, json.stderr);
  const res = JSON.parse(json.stdout) as SearchResponse;
  assert.equal(res.retrieval.filters!.applied, { instrument: ['MODIS', 'AVHRR'], processing_level_id: ['3', '2G'], bounding_box: [170, -30, -170, 30] });
  assert.is(res.facets, undefined, 'facets only with --facets');
  const bad = run('--bounding-box=0,0,10');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /^eo: \[INVALID_ARGUMENT\] --bounding-box: give four numbers/);
  const badLevel = run('--processing-level-id', 'x');
  assert.match(badLevel.stderr, /^eo: \[INVALID_ARGUMENT\] --processing-level-id: "x" is not a processing level/);
});

test.run();
