// bm25-stop, the strong short lexical baseline (lib/retrieve/bm25-stop.ts): its stop words and plural stemming, its
// BM25F weights against a hand computation, its settings' errors, and Table 2's rows paired against it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import { BM25_STOP_DEFAULTS, bm25StopScorer, bm25StopScores, bm25StopTokens, buildBm25Stop, sStem } from '../lib/retrieve/bm25-stop';
import { throwsWith } from './helpers/data';
import { buildTable2, table2VsReference } from '../lib/report/table2';
import { vsReferenceVerdict, VS_REFERENCE_HEAD } from '../lib/report/paired-text';

function ds(id: string, longName: string, abstract = '', keywords: string[] = [], shortName: string | null = null): DatasetRecord {
  return {
    id, shortName, longName, abstract, doi: null, daac: 'GES_DISC', publisher: null, temporalStart: null, temporalEnd: null,
    keywords, platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null,
    shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
}

test('plural-only stemming: plurals meet their singular, singular -s words and identifiers stay whole', () => {
  const cases: [string, string][] = [
    ['aerosols', 'aerosol'], ['fluxes', 'flux'], ['gases', 'gas'], ['classes', 'class'], ['patches', 'patch'], ['properties', 'property'],
    ['surfaces', 'surface'], ['images', 'image'], ['series', 'series'], ['species', 'species'], ['analysis', 'analysis'],
    ['status', 'status'], ['grass', 'grass'], ['mod11s', 'mod11s'], ['ice', 'ice'], ['sea', 'sea'], ['precipitation', 'precipitation'],
  ];
  for (const [word, want] of cases) assert.is(sStem(word), want, word);
  // stop words go from queries and records alike; tokens are letter/digit runs
  assert.equal(bm25StopTokens('What is the sea-ice extent of the Arctic? I need daily data'), ['sea', 'ice', 'extent', 'arctic', 'daily']);
  assert.equal(bm25StopTokens('Aerosols over the oceans', { stem: 'none' }), ['aerosols', 'oceans']);
});

test('BM25F weights equal a hand computation; the title weight lifts a title match above an abstract match', () => {
  const corpus = makeCorpus([
    ds('C1', 'Ozone column', 'Daily total ozone from a spectrometer.'),
    ds('C2', 'Sea ice extent', 'Passive microwave sea ice concentration.', ['SEA ICE']),
    ds('C3', 'Aerosol optical depth', 'Aerosols and ozone.'),
  ], [], [], 'toy-bm25-stop');
  const k1 = 1.2;
  const b = 0.75;
  const w = { title: 3, keywords: 1, abstract: 1 };
  const index = buildBm25Stop(corpus, { k1, b, fieldWeights: w, stem: 's' });
  // by hand: "ozone" is in C1's title (1 of 2 title tokens) and abstract (1 of 4), and in C3's abstract (1 of 2)
  const tl = corpus.datasets.map((d) => bm25StopTokens(`${d.shortName ?? ''} ${d.longName}`).length);
  const al = corpus.datasets.map((d) => bm25StopTokens(d.abstract).length);
  assert.equal(tl, [2, 3, 3]);
  assert.equal(al, [4, 5, 2]); // "from", "a", "and" are stop words
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const norm = (len: number, avg: number) => 1 - b + (b * len) / avg;
  const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
  const sat = (tf: number) => (idf * tf * (k1 + 1)) / (k1 + tf);
  const c1 = sat((w.title * 1) / norm(tl[0], mean(tl)) + (w.abstract * 1) / norm(al[0], mean(al)));
  const c3 = sat((w.abstract * 1) / norm(al[2], mean(al)));
  const s = bm25StopScores(index, 'ozone');
  assert.ok(Math.abs(s[0] - c1) < 1e-5, `${s[0]} vs ${c1}`);
  assert.ok(Math.abs(s[2] - c3) < 1e-5, `${s[2]} vs ${c3}`);
  assert.is(s[1], 0);
  // a repeated query term counts once; a stop-word-only query scores nothing
  assert.equal([...bm25StopScores(index, 'ozone ozone the')], [...s]);
  assert.ok(bm25StopScores(index, 'what is the').every((x) => x === 0));
  // title weight 1 vs 3: the title match's lead over the abstract-only match grows with the weight
  const flat = bm25StopScores(buildBm25Stop(corpus, { k1, b, fieldWeights: { title: 1 } }), 'ozone');
  assert.ok(s[0] / s[2] > flat[0] / flat[2]);
  // plurals meet: "aerosols" finds the "Aerosol" title
  assert.ok(bm25StopScores(index, 'aerosols')[2] > 0);
});

test('bm25-stop settings: defaults documented, bad settings named, the fingerprint follows the settings', async () => {
  const corpus = makeCorpus([ds('C1', 'Ozone column'), ds('C2', 'Sea ice extent')], [], [], 'toy-bm25-stop-2');
  const index = buildBm25Stop(corpus);
  assert.equal(index.settings.fieldWeights, { ...BM25_STOP_DEFAULTS.fieldWeights });
  assert.is(index.settings.k1, BM25_STOP_DEFAULTS.k1);
  throwsWith(() => buildBm25Stop(corpus, { k1: 0 }), 'CONFIG', /k1 must be a number > 0/);
  throwsWith(() => buildBm25Stop(corpus, { b: 1.5 }), 'CONFIG', /b must be in \[0, 1\]/);
  throwsWith(() => buildBm25Stop(corpus, { fieldWeights: { doi: 1 } as never }), 'CONFIG', /unknown field "doi"/);
  throwsWith(() => buildBm25Stop(corpus, { stem: 'porter' as never }), 'CONFIG', /stem must be/);
  const a = bm25StopScorer(index);
  const other = bm25StopScorer(buildBm25Stop(corpus, { b: BM25_STOP_DEFAULTS.b === 0.75 ? 0.3 : 0.75 }));
  assert.is(a.id, 'bm25-stop');
  assert.is.not(a.fingerprint, other.fingerprint);
  const [v] = await a.scoreBatch(['sea ice']);
  assert.ok(v[1] > 0 && v[0] === 0);
});

test('every row against a reference row of Table 2: Holm per metric, and the sentence names the rows above and below it', () => {
  const qrels = new Map(Array.from({ length: 30 }, (_, i) => [`q${i}`, new Map([['d', 1]])]));
  // the right answer at rank r for every query
  const runAt = (r: number) => new Map([...qrels.keys()].map((q) => [q, Array.from({ length: 6 }, (_, k) => ({ docId: k === r - 1 ? 'd' : `x${k}`, score: 10 - k }))]));
  const systems = [
    { id: 'bm25-stop', label: 'BM25-stop', test: runAt(2) },
    { id: 'better', label: 'Better', test: runAt(1) },
    { id: 'worse', label: 'Worse', test: runAt(5) },
    { id: 'same', label: 'Same', test: runAt(2) },
    { id: 'missing', label: 'Missing', note: 'not available' },
  ];
  const table = buildTable2(systems, { testQrels: qrels, tukey: false });
  const vs = table2VsReference(table, systems, 'bm25-stop', { paired: { seed: 42, permutations: 2000, bootstrapSamples: 2000 } })!;
  assert.is(vs.reference.label, 'BM25-stop');
  const map = vs.comparisons.filter((c) => c.metric === 'MAP');
  assert.equal(map.map((c) => c.systemA), ['Better', 'Worse', 'Same']);
  assert.ok(map.every((c) => c.pHolm !== undefined && c.pHolm >= c.pValue && /Holm over the 3 rows compared with BM25-stop/.test(c.family ?? '')));
  assert.ok(Math.abs(map[0].meanDiff - 0.5) < 1e-12 && Math.abs(map[1].meanDiff + 0.3) < 1e-12 && map[2].meanDiff === 0);
  const text = vsReferenceVerdict(vs.comparisons, 'BM25-stop', 'MAP');
  assert.ok(text.startsWith(VS_REFERENCE_HEAD));
  assert.match(text, /significantly above it: \*\*Better\*\*; significantly below it: \*\*Worse\*\*; not distinguishable from it \(CI includes 0 or p Holm ≥ 0\.05\): 1 row\./);
  assert.is(table2VsReference(table, systems, 'no-such-row'), null);
});

test.run();
