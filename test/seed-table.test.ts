// Table 2 over N seeds: mean ± sd rows, seed-averaged per-query metrics, paired tests on them, the claim on the mean;
// EO_SEEDS and the runner's --seeds flag.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { notebookSeeds, seedAveragedTable2, seedCheckpointName, type SeedRuns } from '../lib/lessons';
import { meanPerQueryMetrics, type Qrels, type Run } from '../lib/metrics';

const qrels: Qrels = new Map([['q1', new Map([['D1', 1]])], ['q2', new Map([['D2', 1]])]]);
const run = (lists: Record<string, string[]>): Run => new Map(Object.entries(lists).map(([q, ids]) => [q, ids.map((docId, i) => ({ docId, score: 10 - i }))]));
const cosine = run({ q1: ['X', 'Y', 'Z', 'W', 'D1'], q2: ['X', 'Y', 'Z', 'W', 'D2'] }); // RR 1/5 on both
// the trained hybrid finds D1 first on every seed, D2 at rank 1, 2 or 1 depending on the seed
const hybrid = [run({ q1: ['D1'], q2: ['D2'] }), run({ q1: ['D1'], q2: ['X', 'D2'] }), run({ q1: ['D1'], q2: ['D2'] })];
const perSeed: SeedRuns[] = [42, 43, 44].map((seed, i) => ({
  seed, systems: [{ id: 'cos', label: 'Cosine (base)', test: cosine }, { id: 'hyb', label: 'NN-SSC + BM25', test: hybrid[i] }],
}));

test('mean ± sd over seeds, seed-averaged per-query metrics, paired rows and the 5× claim on the mean', () => {
  const t = seedAveragedTable2(perSeed, { testQrels: qrels, paired: { permutations: 200, bootstrapSamples: 200, seed: 1 } });
  assert.equal(t.seeds, [42, 43, 44]);
  // hybrid MRR per seed: 1, 0.75, 1 → mean 11/12, sd of (1, .75, 1)
  assert.ok(Math.abs(t.spread.hyb.MRR.mean - 11 / 12) < 1e-12);
  assert.ok(Math.abs(t.spread.hyb.MRR.sd - Math.sqrt(((1 / 12) ** 2 * 2 + (1 / 6) ** 2) / 2)) < 1e-12);
  assert.ok(t.spread.cos.MRR.sd < 1e-12, 'the untrained row does not move');
  assert.equal(t.perQuery.hyb.values.MRR, [1, (1 + 0.5 + 1) / 3]);
  assert.is(t.rows[1].MRR, '0.917 ± 0.144');
  assert.is(t.rows[1].seeds, 3);
  assert.equal(t.best, { id: 'hyb', label: 'NN-SSC + BM25' });
  assert.is(t.paired.length, 5);
  assert.ok(t.paired.every((r) => r.system === 'Cosine (base)' && r.vs === 'NN-SSC + BM25'));
  // one row against the best: Holm over a family of one leaves p as it is
  assert.ok(t.paired.every((r) => r['p Holm'] === r.p));
  assert.ok(Math.abs((t.claim.ratios.MRR as number) - (11 / 12) / 0.2) < 1e-12);
  assert.is(t.claim.holds, false, 'R@10 ratio is 1 (cosine finds both in the top 10)');
  const one = seedAveragedTable2(perSeed.slice(0, 1), { testQrels: qrels });
  assert.is(one.spread.hyb.MRR.sd, 0);
});

test('seeds must have the same systems; per-query metrics must cover the same queries', () => {
  assert.throws(() => seedAveragedTable2([perSeed[0], { seed: 9, systems: perSeed[0].systems.slice(0, 1) }], { testQrels: qrels }), /seed 9 has systems cos/);
  const a = { queryIds: ['q1'], values: { 'R@10': [1], 'R@20': [1], 'R@100': [1], MAP: [1], MRR: [1] }, skippedNoPositives: [], missingFromRun: [] };
  assert.throws(() => meanPerQueryMetrics([a, { ...a, queryIds: ['q2'] }]), /other queries/);
});

test('EO_SEEDS gives consecutive seeds from 42; default one seed; bad values are CONFIG errors', () => {
  assert.equal(notebookSeeds({}), [42]);
  assert.equal(notebookSeeds({ EO_SEEDS: '5' }), [42, 43, 44, 45, 46]);
  assert.throws(() => notebookSeeds({ EO_SEEDS: 'five' }), /EO_SEEDS must be a positive integer \(got "five"\)/);
  assert.throws(() => notebookSeeds({ EO_SEEDS: '0' }), /EO_SEEDS/);
  assert.equal(notebookSeeds({ EO_SEEDS: '3' }).map((s) => seedCheckpointName('use-lite-eo-title', s)), ['use-lite-eo-title', 'use-lite-eo-title-seed43', 'use-lite-eo-title-seed44']);
});

test('npm start -- --seeds N is parsed and refused when not a positive integer', () => {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { parseArgs } = require('../scripts/run-notebooks.cjs');
  assert.is(parseArgs([]).seeds, 1);
  assert.is(parseArgs(['--seeds', '5']).seeds, 5);
  assert.is(parseArgs(['--seeds=3', '--sample']).seeds, 3);
  assert.throws(() => parseArgs(['--seeds', '0']), /--seeds must be a positive integer/);
});

test.run();
