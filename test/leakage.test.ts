// Leakage audit of a benchmark split: near-duplicate test/train queries by token Jaccard and, with embeddings, cosine;
// the build's coded warning above the count.
import { test } from 'uvu';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as assert from 'uvu/assert';
import { buildBenchmark, leakageAudit, leakageRows, queryTokenSet, type BenchQuery, type LeakageAudit } from '../lib/bench';
import { makeCorpus, type DatasetRecord } from '../lib/data';
import type { EoWarning } from '../lib/errors';
import { mulberry32 } from '../lib/util';

const q = (id: string, text: string, split: 'train' | 'test'): BenchQuery => ({ id, publicationId: `pub-${id}`, text, writer: 'title', variant: 1, split, positives: 1 });

const queries = [
  q('a', 'Arctic sea ice extent trends', 'train'),
  q('b', 'Global ozone column from satellites', 'train'),
  q('c', 'arctic sea-ice extent trends', 'test'), // same tokens as a: Jaccard 1
  q('d', 'Arctic sea ice extent trends 2020', 'test'), // 5 of 6 tokens: Jaccard 0.833
  q('e', 'Aerosol optical depth over Africa', 'test'), // shares nothing with train
  q('f', 'Arctic sea ice thickness', 'test'), // 3 shared of 6: Jaccard 0.5
];

test('token Jaccard finds the near-duplicates and names both publications', async () => {
  const a = await leakageAudit({ queries });
  assert.is(a.count, 2);
  assert.equal(a.pairs.map((p) => p.testQueryId), ['c', 'd']);
  assert.is(a.pairs[0].jaccard, 1);
  assert.ok(Math.abs(a.pairs[1].jaccard - 5 / 6) < 1e-12);
  assert.is(a.pairs[1].trainPublicationId, 'pub-a');
  assert.is(a.pairs[1].testPublicationId, 'pub-d');
  assert.is(a.cosineThreshold, null);
  assert.is(a.pairs[0].cosine, null);
  assert.is(leakageRows(a)[1]['train publication'], 'pub-a');
  assert.is((await leakageAudit({ queries }, { jaccard: 0.5 })).count, 3);
  assert.is((await leakageAudit({ queries }, { jaccard: 0.9 })).count, 1);
  assert.equal([...queryTokenSet('Sea-ice, sea ICE!')], ['sea', 'ice']);
});

test('the prefix-filtered index finds exactly what comparing every pair finds', async () => {
  const words = ['sea', 'ice', 'ozone', 'the', 'of', 'arctic', 'rain', 'cloud', 'aerosol', 'snow'];
  const rng = mulberry32(5);
  const qs = Array.from({ length: 80 }, (_, i) => q(`r${i}`, Array.from({ length: 2 + Math.floor(rng() * 5) }, () => words[Math.floor(rng() * words.length)]).join(' '), i % 4 === 0 ? 'test' : 'train'));
  for (const t of [0.5, 0.7, 0.8, 1]) {
    const brute = qs.filter((a) => a.split === 'test').map((a) => {
      const A = queryTokenSet(a.text);
      return Math.max(0, ...qs.filter((b) => b.split === 'train').map((b) => {
        const B = queryTokenSet(b.text);
        const inter = [...A].filter((x) => B.has(x)).length;
        return inter / (A.size + B.size - inter);
      }));
    }).filter((j) => j >= t);
    const a = await leakageAudit({ queries: qs }, { jaccard: t });
    assert.is(a.count, brute.length, `threshold ${t}`);
    assert.equal(a.pairs.map((p) => p.jaccard).sort(), brute.sort());
  }
});

test('an embedding function adds the pairs whose cosine passes, even with no shared token', async () => {
  // fake embedding: the test query about aerosols points the same way as the ozone query
  const dir: Record<string, number[]> = { ozone: [1, 0], aerosol: [1, 0] };
  const embed = (texts: string[]) => texts.map((t) => {
    const k = Object.keys(dir).find((w) => t.toLowerCase().includes(w));
    return Float32Array.from(k ? dir[k] : [0, 1]);
  });
  const a = await leakageAudit({ queries }, { embed });
  const e = a.pairs.find((p) => p.testQueryId === 'e')!;
  assert.ok(e, 'aerosol query matched by cosine');
  assert.is(e.trainQueryId, 'b');
  assert.equal(e.by, ['cosine']);
  assert.is(e.jaccard, 0);
  assert.is(a.cosineThreshold, 0.95);
  assert.ok(a.count >= 3);
});

test('buildBenchmark warns with a coded warning above the count and hands the audit over', async () => {
  const ds: DatasetRecord = {
    id: 'C1-X', shortName: null, longName: 'sea ice', abstract: '', doi: null, daac: 'X', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null, catalogRecordComplete: true, sources: [],
  };
  // ten publications with the same title: both splits get some, so every test query leaks
  const pubs = Array.from({ length: 10 }, (_, i) => ({ id: `p${i}`, doi: null, title: 'Arctic sea ice extent', abstract: null, year: null, venue: null, source: null, sources: [] }));
  const corpus = makeCorpus([ds], pubs, pubs.map((p) => ({ publicationId: p.id, datasetId: 'C1-X', relation: 'cites', source: null, sources: [] })), 'toy');
  const writer = { id: 'title', label: 'title', write: async (p: { title: string }) => [p.title] };
  const warnings: EoWarning[] = [];
  let audit: LeakageAudit | null = null;
  const bench = await buildBenchmark(corpus, { writer, seed: 3, onWarning: (w) => warnings.push(w), onLeakage: (a) => { audit = a; } });
  const tests = bench.queries.filter((x) => x.split === 'test').length;
  assert.ok(tests > 0);
  assert.is(audit!.count, tests);
  assert.is(warnings.length, 1);
  assert.is(warnings[0].code, 'BENCH_LEAKAGE');
  assert.match(warnings[0].message, `${tests} of ${tests} test queries`);
  const quiet: EoWarning[] = [];
  await buildBenchmark(corpus, { writer, seed: 3, leakageWarnAbove: tests, onWarning: (w) => quiet.push(w) });
  assert.is(quiet.length, 0);
});

test('eo bench build prints the leakage count of the split it wrote', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-leakage-'));
  try {
    const r = spawnSync(process.execPath, [path.join(__dirname, '..', 'dist', 'lib', 'cli', 'eo.js'), 'bench', 'build', '--sample', '--out', path.join(dir, 'bench')], { encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
    const m = /leakage: (\d+) of (\d+) test queries have a near-duplicate among (\d+) training queries \(token Jaccard ≥ 0\.8\)/.exec(r.stdout);
    assert.ok(m, r.stdout);
    const bench = JSON.parse(fs.readFileSync(path.join(dir, 'bench', 'benchmark.json'), 'utf8'));
    assert.is(Number(m![2]), bench.queries.filter((x: { split: string }) => x.split === 'test').length);
    assert.not.match(r.stderr, /BENCH_LEAKAGE/, 'the sample split has none, so no warning');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
