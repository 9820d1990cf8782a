// Facets and filters on the GCMD names inferred from titles (issue 38 step 2), on the FULL snapshot, BM25 alone: the
// three queries of the issue list the right platform first, the counts say how many are inferred, a filter on a
// series keeps its members, and the page and the CLI mark inferred values.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { loadSnapshot } from '../lib/data/snapshot';
import { bm25Scorer } from '../lib/retrieve/scorers';
import { bm25Scores, loadOrBuildBm25 } from '../lib/retrieve/bm25';
import { createSearchEngine } from '../lib/search/engine';
import { search } from '../lib/search/search';
import { renderSearchPage } from '../lib/serve/page';
import { repoRoot } from '../lib/util';

const full = loadSnapshot();
const engine = createSearchEngine(full, { lexical: bm25Scorer(loadOrBuildBm25(full), 'bm25', 'BM25'), semantic: null });
const NOW = new Date('2026-12-05T00:00:00Z');

test('the issue\'s queries list the right platform first in the platform facet, counted from inferred names', async () => {
  const cases: [string, RegExp][] = [
    ['Landsat surface reflectance', /^LANDSAT$/i],
    ['GEDI aboveground biomass', /^ISS$/],
    ['Sentinel-1 SAR backscatter', /^SENTINEL-1$/],
  ];
  for (const [q, platform] of cases) {
    const res = await search(engine, q, { k: 10, facets: true, now: NOW });
    const first = res.facets!.platform[0];
    assert.ok(first && platform.test(first.value), `${q}: ${JSON.stringify(res.facets!.platform.slice(0, 4))}`);
    assert.ok(first.inferred! > 0 && first.inferred! <= first.count, JSON.stringify(first));
    // other facets carry no inferred count
    assert.is(res.facets!.provider[0].inferred, undefined);
  }
  // without the inference (a corpus without the GCMD files) these titles gave no platform at all
  const bare = { ...full, datasets: full.datasets.map(({ inferred: _, ...d }) => d) };
  const bareEngine = createSearchEngine(bare, { lexical: bm25Scorer(loadOrBuildBm25(full), 'bm25', 'BM25'), semantic: null });
  const before = await search(bareEngine, 'GEDI aboveground biomass', { k: 10, facets: true, now: NOW });
  assert.not.ok(before.facets!.platform.some((v) => v.value === 'ISS'), JSON.stringify(before.facets!.platform));
});

test('BM25 reads the inferred instruments: "Sentinel-1 SAR backscatter" finds ASF\'s Sentinel-1A / 1B products, whose records name no SAR (the payload SENTINEL-1 C-SAR)', () => {
  const s1 = /^SENTINEL-1[AB]_/;
  const firstRank = (index: ReturnType<typeof loadOrBuildBm25>) => {
    const s = bm25Scores(index, 'Sentinel-1 SAR backscatter');
    const order = [...s.keys()].sort((a, b) => s[b] - s[a] || a - b);
    return order.findIndex((i) => s1.test(full.datasets[i].longName)) + 1;
  };
  const withInferred = firstRank(loadOrBuildBm25(full));
  const without = firstRank(loadOrBuildBm25(full, { inferredMetadata: false }));
  assert.ok(withInferred >= 1 && withInferred <= 5, `first Sentinel-1A/1B product at ${withInferred}`);
  assert.ok(without > 10, `without the inferred metadata at ${without}`);
});

test('"SeaWinds ocean winds" finds SeaWinds products that name only QuikSCAT; the instrument facet counts them', async () => {
  const res = await search(engine, 'SeaWinds ocean winds', { k: 6, facets: true, now: NOW });
  const seawinds = res.results.filter((r) => r.instruments.includes('SEAWINDS'));
  assert.ok(seawinds.length >= 4, res.results.map((r) => `${r.longName} ${r.instruments}`).join('\n'));
  assert.ok(seawinds.some((r) => !/seawinds/i.test(r.longName)), 'one that names only QuikSCAT');
  const facet = res.facets!.instrument.find((v) => v.value === 'SEAWINDS');
  assert.ok(facet && facet.count >= 10, JSON.stringify(res.facets!.instrument.slice(0, 4)));
});

test('a filter on a series keeps its members; a member filter keeps only that member; facet counts equal what the filter keeps', async () => {
  const q = 'Sentinel SLC radar';
  const series = await search(engine, q, { k: 200, now: NOW, filters: { platform: ['Sentinel-1'] } });
  const a = await search(engine, q, { k: 200, now: NOW, filters: { platform: ['SENTINEL-1A'] } });
  const b = await search(engine, q, { k: 200, now: NOW, filters: { platform: ['Sentinel-1B'] } });
  assert.ok(a.results.length > 0 && b.results.length > 0);
  assert.ok(a.results.every((r) => /sentinel-1a/i.test(`${r.shortName} ${r.longName}`)), a.results.map((r) => r.longName).join('\n'));
  assert.ok(b.results.every((r) => /sentinel-1b/i.test(`${r.shortName} ${r.longName}`)), b.results.map((r) => r.longName).join('\n'));
  const ids = new Set(series.results.map((r) => r.id));
  assert.ok([...a.results, ...b.results].every((r) => ids.has(r.id)), 'every 1A and 1B product is a Sentinel-1 product');
  assert.ok(series.results.length > a.results.length, 'and the series has more');
  const all = await search(engine, q, { k: 100, now: NOW, facets: true });
  const s1 = all.facets!.platform.find((v) => v.value === 'SENTINEL-1');
  const kept = await search(engine, q, { k: 100, now: NOW, filters: { platform: ['SENTINEL-1'] } });
  assert.ok(s1 && s1.count === kept.results.filter((r) => all.results.slice(0, all.facets!.resultSet).some((x) => x.id === r.id)).length, JSON.stringify(s1));
});

test('Landsat 8 = Landsat-8 = L8: the filter, the inference and the identifier rule meet across the forms', async () => {
  const q = 'surface reflectance';
  const ids = async (platform: string) => (await search(engine, q, { k: 50, now: NOW, filters: { platform: [platform] } })).results.map((r) => r.longName);
  const l8 = await ids('L8');
  assert.ok(l8.includes('Landsat Surface Reflectance - L8 OLI/TIRS'), l8.join(' | '));
  assert.equal(await ids('Landsat 8'), l8);
  assert.equal(await ids('LANDSAT-8'), l8);
  assert.not.ok((await ids('L7')).includes('Landsat Surface Reflectance - L8 OLI/TIRS'));
  const named = await search(engine, 'L8 surface reflectance', { k: 3, now: NOW });
  assert.ok(named.retrieval.identifiers!.named.some((n) => n.id === 'Landsat 8' && n.text === 'L8'), JSON.stringify(named.retrieval.identifiers));
  assert.is(named.results[0].longName, 'Landsat Surface Reflectance - L8 OLI/TIRS');
});

test('results name their platforms and instruments; the page and the CLI mark inferred values', async () => {
  const res = await search(engine, 'GEDI aboveground biomass', { k: 5, facets: true, now: NOW });
  // each result names its platforms and instruments, and which are inferred
  const gedi = res.results.find((r) => /^GEDI L\d/.test(r.longName))!;
  assert.ok(gedi, res.results.map((r) => r.longName).join('\n'));
  assert.equal([gedi.platforms, gedi.instruments, gedi.inferred], [['ISS'], ['GEDI'], ['platforms', 'instruments']]);
  const ges = await search(engine, 'AIRS Aqua Level 2 water vapor', { k: 5, now: NOW });
  const cmr = ges.results.find((r) => r.daac === 'GES_DISC' && r.platforms.length)!;
  assert.ok(cmr && cmr.inferred.length === 0 && cmr.platforms.some((p) => /aqua/i.test(p)), JSON.stringify(ges.results.map((r) => [r.longName, r.platforms, r.inferred])));
  const html = renderSearchPage(res);
  assert.match(html, /<div class="carriers">Platforms: ISS <abbr class="inferred"[^>]*>inferred<\/abbr> · Instruments: GEDI <abbr/);
  assert.match(html, /<abbr class="inferred" title="all 1\d inferred from the dataset title with the GCMD vocabularies \(no CMR metadata\)">inferred<\/abbr>/);
  const run = promisify(execFile);
  const { stdout } = await run(process.execPath, [path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js'), 'search', 'GEDI aboveground biomass', '--retriever', 'bm25', '--facets', '--k', '1'], { maxBuffer: 1 << 24 });
  assert.match(stdout, /platform: ISS 1\d \(inferred\)/);
});

test.run();
