// Notebook 05's seed section: the seed bench's JSON (bench/nnssc-seeds.cjs) read, tabled and put in words.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readSeedSpread, seedSpreadCommand, seedSpreadFiles, type SeedSpread } from '../lib/lessons';
import { seedEpochRows, seedSpreadMissing, seedSpreadRows, seedSpreadVerdict } from '../lib/lessons';

const row = (map: number, mrr: number) => ({ 'R@10': map + 0.1, 'R@20': map + 0.15, 'R@100': map + 0.4, MAP: map, MRR: mrr });
const stat = (mean: number, sd: number) => ({ mean, sd, min: mean - 2 * sd, max: mean + 2 * sd });
const spreadOf = (map: number, mrr: number, sd: number) =>
  Object.fromEntries(['R@10', 'R@20', 'R@100', 'MAP', 'MRR'].map((m) => [m, stat((row(map, mrr) as Record<string, number>)[m], sd)]));
const cmp = (metric: string, delta: number, lo: number, hi: number, a?: number, b?: number) => ({ metric, delta, ci: [lo, hi] as [number, number], p: 0.01, a, b });

function fixture(over: Partial<SeedSpread> = {}): SeedSpread {
  const seeds = [42, 43, 44];
  const perSeed = (base: number) => seeds.map((seed, i) => ({
    seed, bestEpoch: 20 + 10 * i, epochs: 25 + 10 * i, valMAP: 0.1 + 0.01 * i, alpha: { analytic: 0.5, grid: 0.75 },
    test: { alone: row(base / 4, base / 3), analytic: row(base + 0.01 * i, base + 0.05), grid: row(base, base + 0.08) },
  }));
  return {
    format: 'eo-nnssc-seeds/1', created: '2026-12-01T22:00:00.000Z', sample: false, seeds, variants: ['plain', 'mix'], stopping: { maxEpochs: 100, patience: 15 },
    perSeed: { plain: perSeed(0.35), mix: perSeed(0.38) },
    spread: {
      plain: { alone: spreadOf(0.09, 0.12, 0.02), analytic: spreadOf(0.353, 0.408, 0.023), grid: spreadOf(0.35, 0.437, 0.015) },
      mix: { alone: spreadOf(0.1, 0.13, 0.02), analytic: spreadOf(0.385, 0.44, 0.01), grid: spreadOf(0.37, 0.45, 0.015) },
    },
    seedAveraged: { mix: { alone: [cmp('MAP', 0.01, -0.01, 0.03), cmp('MRR', 0.01, -0.01, 0.03)], analytic: [cmp('MAP', 0.032, 0.012, 0.05), cmp('MRR', 0.03, 0.004, 0.06)], grid: [] } },
    ensembles: { plain: { alpha: { analytic: 0.497, grid: 0.75 }, test: { alone: row(0.101, 0.145), analytic: row(0.364, 0.42), grid: row(0.382, 0.472) } }, mix: { alpha: { analytic: 0.54, grid: 0.75 }, test: { alone: row(0.11, 0.15), analytic: row(0.39, 0.45), grid: row(0.38, 0.46) } } },
    ensembleComparisons: [],
    vsBm25R100: { 'plain ensemble': { delta: -0.144, ci: [-0.255, -0.031], p: 0.015, met: false }, 'mix ensemble': { delta: -0.081, ci: [-0.183, 0.023], p: 0.12, met: false } },
    against: { file: 'bench/out/nnssc-seeds.json', stopping: { maxEpochs: 60, patience: 5 }, rows: [{ variant: 'plain', kind: 'analytic', pooling: 'seed-averaged', label: 'plain seed-averaged (3 vs 5 seeds), + BM25 analytic α', cmp: [cmp('MAP', 0.03, 0.01, 0.05, 0.383, 0.353)] }] },
    ...over,
  };
}

test('seed spread: rows per variant and kind (mean ± sd [min, max], ensemble), per-seed epochs; numbers come from the file', () => {
  const s = fixture();
  const rows = seedSpreadRows(s);
  assert.is(rows.length, 6);
  assert.is(rows[0].system, 'NN-SSC alone');
  assert.is(rows[4].system, 'NN-SSC (corpus mix) + BM25 (analytic α)');
  assert.is(rows[1]['MAP mean ± sd [min, max]'], '0.353 ± 0.023 [0.307, 0.399]');
  assert.is(rows[1]['MAP ensemble'], 0.364);
  assert.is(rows[1].stopping, '≤ 100 epochs, patience 15');
  const epochs = seedEpochRows(s);
  assert.is(epochs.length, 6);
  assert.equal(epochs.slice(0, 3).map((r) => r['kept epoch']), [20, 30, 40]);
  assert.is(epochs[2]['test MAP + BM25'], 0.37);
});

test('seed spread: the verdict says the spread, the corpus pairs’ seed-averaged effect, the stopping rule and the R@100 goal', () => {
  const v = seedSpreadVerdict(fixture());
  assert.match(v, /Over 3 seeds \(42, 43, 44; ≤ 100 epochs, patience 15\), NN-SSC \+ BM25's test MAP is 0\.353 ± 0\.023/);
  assert.match(v, /seed 42, the seed of Table 2's row under this rule, gives 0\.350/);
  assert.match(v, /Early stopping kept epochs 20, 30, 40 of at most 100/);
  assert.match(v, /ΔMAP \+0\.032 \[\+0\.012, \+0\.050\], ΔMRR \+0\.030 \[\+0\.004, \+0\.060\] — \*\*both rise with a CI that excludes 0\*\*/);
  assert.match(v, /Stopping rule\*\* \(≤ 100 epochs, patience 15 vs ≤ 60 epochs, patience 5\), plain seed-averaged, \+ BM25 \(analytic α\): MAP 0\.383 vs 0\.353, Δ \+0\.030 \[\+0\.010, \+0\.050\] — the CI excludes 0/);
  assert.match(v, /not met by the best of these rows \(mix ensemble: R@100 − BM25's −0\.0810 \[−0\.1830, \+0\.0230\]\)/);
  // notebook 04's rule (DEFAULT_NNSSC_CONFIG: ≤ 100 epochs, patience 15) needs no flags; another rule's command has them
  assert.not.match(v, /--max-epochs/);
  // a harmful or null effect reads as such
  const worse = fixture({ seedAveraged: { mix: { alone: [], analytic: [cmp('MAP', -0.012, -0.028, 0.002), cmp('MRR', -0.024, -0.046, -0.002)], grid: [] } } });
  assert.match(seedSpreadVerdict(worse), /\*\*they lower the hybrid\*\*/);
  const none = fixture({ seedAveraged: { mix: { alone: [], analytic: [cmp('MAP', 0.005, -0.01, 0.02), cmp('MRR', 0.002, -0.02, 0.03)], grid: [] } }, against: undefined });
  const vn = seedSpreadVerdict(none);
  assert.match(vn, /neither CI excludes 0: no measurable effect/);
  assert.not.match(vn, /Stopping rule/);
  assert.match(seedSpreadVerdict(fixture({ stopping: { maxEpochs: 60, patience: 5 } })), /--max-epochs 60 --patience 5/);
  assert.match(seedSpreadVerdict(fixture({ sample: true })), /sample/);
});

test('seed spread: files found per snapshot and stopping rule, bad files named with their field, the missing note gives the command', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-seeds-'));
  try {
    assert.equal(seedSpreadFiles(false, dir), []);
    for (const f of ['nnssc-seeds-p15e100.json', 'nnssc-seeds-p5e60.json', 'nnssc-seeds-p30e200.json', 'nnssc-seeds-sample-p15e100.json', 'nnssc-seeds.json', 'other.json'])
      fs.writeFileSync(path.join(dir, f), JSON.stringify(fixture()));
    // one file per stopping rule, shorter training first; a file without its rule in the name is not the bench's
    assert.equal(seedSpreadFiles(false, dir).map((f) => path.basename(f)), ['nnssc-seeds-p5e60.json', 'nnssc-seeds-p15e100.json', 'nnssc-seeds-p30e200.json']);
    assert.equal(seedSpreadFiles(true, dir).map((f) => path.basename(f)), ['nnssc-seeds-sample-p15e100.json']);
    assert.is(readSeedSpread(path.join(dir, 'nnssc-seeds-p5e60.json')).seeds.length, 3);
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ ...fixture(), format: 'x/1' }));
    assert.throws(() => readSeedSpread(bad), (e: Error) => /bad\.json: field "format" is "x\/1"/.test(e.message));
    fs.writeFileSync(bad, JSON.stringify({ ...fixture(), spread: null }));
    assert.throws(() => readSeedSpread(bad), (e: Error) => /field "spread" must be an object/.test(e.message));
    fs.writeFileSync(bad, '{');
    assert.throws(() => readSeedSpread(bad), (e: Error) => /bad\.json: not JSON/.test(e.message));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const missing = seedSpreadMissing();
  assert.match(missing, /node bench\/nnssc-seeds\.cjs --seeds 42,43,44,45,46 --variants plain,mix --max-epochs 60 --patience 5/);
  assert.match(missing, /--variants plain,mix --against bench\/out\/nnssc-seeds-p5e60\.json` \(notebook 04's: ≤ 100 epochs, patience 15\)/);
  assert.match(seedSpreadMissing(true), /--sample/);
  assert.is(seedSpreadCommand({ maxEpochs: 200, patience: 30 }), 'npm run build && node bench/nnssc-seeds.cjs --seeds 42,43,44,45,46 --variants plain,mix --max-epochs 200 --patience 30');
  assert.is(seedSpreadCommand({ maxEpochs: 100, patience: 15 }), seedSpreadCommand());
});

test.run();
