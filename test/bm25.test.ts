import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import lunr from 'lunr';
import { isEoError } from '../lib';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import { buildBm25, bm25Scores, bm25Tokens, bm25TopK, loadOrBuildBm25 } from '../lib/retrieve/bm25';

function ds(id: string, longName: string, abstract = '', extra: Partial<DatasetRecord> = {}): DatasetRecord {
  return {
    id, shortName: null, longName, abstract, doi: null, daac: 'TEST', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [], ...extra,
  };
}

const corpus = makeCorpus(
  [
    ds('C1-TEST', 'ozone column', 'total ozone daily'),
    ds('C2-TEST', 'sea surface temperature', 'ocean temperature from satellites'),
    ds('C3-TEST', 'aerosol optical depth', 'aerosol over ocean'),
  ],
  [], [], 'hand-made',
);
const onlyText = { fields: ['longName', 'abstract'] as const };

test('scores follow the BM25 formula (lunr: idf, k1=1.5, b=0.75, 3-decimal weights)', () => {
  const idx = buildBm25(corpus, { fields: [...onlyText.fields] });
  // field lengths count terms after the stop-word filter ("from" dropped): 5, 6, 6 → avg 17/3
  const N = 3, k1 = 1.5, b = 0.75, avg = 17 / 3;
  const idf = (df: number) => Math.log(1 + Math.abs((N - df + 0.5) / (df + 0.5)));
  const w = (tf: number, len: number, df: number) => Math.round(idf(df) * ((k1 + 1) * tf) / (k1 * (1 - b + b * (len / avg)) + tf) * 1000) / 1000;
  const s = bm25Scores(idx, 'ocean');
  assert.is(s[0], 0);
  assert.ok(Math.abs(s[1] - w(1, 6, 2)) < 1e-6, `${s[1]} vs ${w(1, 6, 2)}`);
  assert.ok(Math.abs(s[2] - w(1, 6, 2)) < 1e-6);
  assert.ok(Math.abs(s[2] - s[1]) < 1e-6, 'same tf and length, same score');
  const o = bm25Scores(idx, 'ozone');
  assert.ok(Math.abs(o[0] - w(2, 5, 1)) < 1e-6, `${o[0]} vs ${w(2, 5, 1)}`);
  // two terms: sum divided by the query norm sqrt(2)
  const two = bm25Scores(idx, 'ozone temperature');
  assert.ok(Math.abs(two[1] - w(2, 6, 1) / Math.SQRT2) < 1e-6);
});

test('scores equal lunr\'s own query scores', () => {
  const idx = buildBm25(corpus);
  for (const q of ['ocean temperature', 'aerosols over the ocean', 'ozone ozone column', 'nothing matches']) {
    const ours = bm25Scores(idx, q);
    const res = idx.lunrIndex!.query((qq) => {
      for (const t of bm25Tokens(q)) qq.term(t, { presence: lunr.Query.presence.OPTIONAL });
    });
    const theirs = new Float32Array(3);
    for (const r of res) theirs[Number(r.ref)] = r.score;
    for (let i = 0; i < 3; i++) assert.ok(Math.abs(ours[i] - theirs[i]) < 1e-6, `${q}: ${ours[i]} vs ${theirs[i]}`);
  }
});

test('stemming matches word forms; other fields are searchable', () => {
  const c = makeCorpus([ds('C1-X', 'Aerosol products', '', { doi: '10.5067/AURA/MLS/DATA2001', shortName: 'ML2O3', temporalStart: '2004-08-01T00:00:00Z', temporalEnd: '2020-01-01T00:00:00Z' }), ds('C2-X', 'Other thing')], [], [], 't');
  const idx = buildBm25(c);
  assert.ok(bm25Scores(idx, 'aerosols')[0] > 0);
  assert.ok(bm25Scores(idx, 'ML2O3')[0] > 0);
  assert.ok(bm25Scores(idx, '2004')[0] > 0);
  assert.ok(bm25Scores(idx, '10.5067/AURA/MLS/DATA2001')[0] > 0);
  assert.is(bm25Scores(idx, 'ML2O3')[1], 0);
});

test('top-k: only matching datasets, best first, ties by id descending', () => {
  const c = makeCorpus([ds('C1-T', 'ice sheet'), ds('C3-T', 'ice sheet'), ds('C2-T', 'ocean colour'), ds('C4-T', 'ice sheet ice')], [], [], 't');
  const idx = buildBm25(c);
  const hits = bm25TopK(idx, 'ice', 10, c.datasets.map((d) => d.id));
  assert.equal(hits.map((h) => c.datasets[h.index].id), ['C4-T', 'C3-T', 'C1-T']);
  assert.is(bm25TopK(idx, 'ice', 1, c.datasets.map((d) => d.id)).length, 1);
});

test('hostile query strings never throw', () => {
  const idx = buildBm25(corpus);
  const hostile = ['', '   ', 'title:ozone', 'ozone^10', 'ozone~2', '*', '**:**', '+ocean -ozone', '-', '+', ':', '^', '~', '"unterminated', 'a:b:c^~*+-', '\u0000\u0001', '🙂 🌊', 'ozone'.repeat(50000), '((ocean))', 'field:*oz*', '\\'];
  for (const q of hostile) {
    const s = bm25Scores(idx, q);
    assert.is(s.length, 3);
    for (const v of s) assert.ok(Number.isFinite(v));
  }
  assert.ok(bm25Scores(idx, 'title:ozone^10')[0] > 0, 'syntax characters act as separators');
  assert.equal([...bm25Scores(idx, '*')], [0, 0, 0], 'a wildcard matches nothing');
});

test('cache round trip gives identical scores and a changed corpus is not served stale', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-bm25-'));
  const a = loadOrBuildBm25(corpus, { cacheDir: dir });
  const b = loadOrBuildBm25(corpus, { cacheDir: dir });
  assert.is(b.lunrIndex, undefined, 'second load comes from the cache');
  assert.equal([...bm25Scores(a, 'ocean aerosol')], [...bm25Scores(b, 'ocean aerosol')]);
  const other = makeCorpus([ds('C1-TEST', 'ozone column', 'changed text'), ds('C9-TEST', 'ice')], [], [], 'x');
  const c = loadOrBuildBm25(other, { cacheDir: dir });
  assert.is(c.size, 2);
  assert.ok(c.lunrIndex, 'rebuilt, not served from the cache');
  // a truncated cache file is refused (its content hash), naming the file and the command that rebuilds it; once it is
  // removed, the index is rebuilt
  const bins = fs.readdirSync(dir).filter((f) => f.endsWith('.bin'));
  for (const f of bins) fs.writeFileSync(path.join(dir, f), Buffer.alloc(3));
  assert.throws(() => loadOrBuildBm25(corpus, { cacheDir: dir }), (e: unknown) => isEoError(e, 'CACHE_MISMATCH') && /\.bin: content hash [0-9a-f]{64} differs from [0-9a-f]{64}.*eo cache rebuild bm25/.test((e as Error).message));
  for (const f of bins) fs.rmSync(path.join(dir, f));
  const d = loadOrBuildBm25(corpus, { cacheDir: dir });
  assert.ok(d.lunrIndex);
});

test('field weights (CMR-style boosts, fields mode): a boosted field scales its own term weights; bad boosts are refused', () => {
  const rec = (id: string, longName: string, shortName: string | null): DatasetRecord => ({
    id, shortName, longName, abstract: '', doi: null, daac: 'LAADS', publisher: null, temporalStart: null, temporalEnd: null, bbox: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: '', shortNameSource: null, catalogRecordComplete: true, sources: [],
  } as DatasetRecord);
  const toy = makeCorpus([rec('C1-X', 'aerosol optical depth', 'MOD04'), rec('C2-X', 'MOD04 aerosol product', null), rec('C3-X', 'sea ice', null)], [], [], 'boost-toy');
  const plain = buildBm25(toy, { mode: 'fields' });
  const boosted = buildBm25(toy, { mode: 'fields', fieldBoosts: { shortName: 2 } });
  const p = bm25Scores(plain, 'MOD04');
  const b = bm25Scores(boosted, 'MOD04');
  assert.ok(Math.abs(b[0] - 2 * p[0]) < 2e-3, `short-name match doubles (lunr rounds weights to 3 decimals): ${p[0]} → ${b[0]}`);
  assert.ok(Math.abs(b[1] - p[1]) < 2e-3, "a title match is unchanged");
  assert.ok(boosted.key !== plain.key, 'boosts are part of the cache key');
  for (const [opts, re] of [
    [{ mode: 'fields', fieldBoosts: { shortName: 0 } }, /fieldBoosts\.shortName must be a number > 0/],
    [{ mode: 'fields', fieldBoosts: { title: 1.2 } }, /unknown BM25 field "title" in fieldBoosts/],
    [{ fieldBoosts: { shortName: 1.4 } }, /fieldBoosts need mode "fields"/],
  ] as const) {
    try {
      buildBm25(toy, opts as never);
      assert.unreachable('should refuse');
    } catch (e) {
      assert.ok(isEoError(e, 'CONFIG'), String(e));
      assert.match((e as Error).message, re);
    }
  }
});

test.run();
