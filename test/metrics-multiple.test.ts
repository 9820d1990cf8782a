import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { effectSizeDz, holmAdjust, holmChangedConclusions, pairedComparisons, pairedDraws, pairedTable, pairedTest, tukeyHsd, withHolm } from '../lib/metrics';
import { mulberry32 } from '../lib/util/random';

const close = (a: number, b: number, eps = 1e-12) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

test('holmAdjust: hand-computed step-down, input order kept, monotone, capped at 1', () => {
  // sorted .01 .02 .03 .04 → ×4 ×3 ×2 ×1 = .04 .06 .06 .04 → running max .04 .06 .06 .06
  const got = holmAdjust([0.03, 0.01, 0.04, 0.02]);
  [0.06, 0.04, 0.06, 0.06].forEach((w, i) => close(got[i], w));
  // .2 × 3 = .6, .5 × 2 = 1.0, .9 × 1 → running max 1 (capped)
  const capped = holmAdjust([0.5, 0.2, 0.9]);
  [1, 0.6, 1].forEach((w, i) => close(capped[i], w));
  assert.equal(holmAdjust([]), []);
  close(holmAdjust([0.3])[0], 0.3);
  // ties keep equal adjusted values
  const tied = holmAdjust([0.01, 0.01]);
  close(tied[0], 0.02);
  close(tied[1], 0.02);
});

test('holmAdjust property: ≥ raw, ≤ 1, same order as raw, ≤ Bonferroni, for random families', () => {
  const rng = mulberry32(7);
  for (let t = 0; t < 200; t++) {
    const m = 1 + Math.floor(rng() * 12);
    const ps = Array.from({ length: m }, () => (rng() < 0.2 ? rng() * 0.01 : rng()));
    const adj = holmAdjust(ps);
    for (let i = 0; i < m; i++) {
      assert.ok(adj[i] >= ps[i] - 1e-15 && adj[i] <= 1, `adj ${adj[i]} of ${ps[i]}`);
      assert.ok(adj[i] <= Math.min(1, ps[i] * m) + 1e-15, 'Holm is never above Bonferroni');
      for (let j = 0; j < m; j++) if (ps[i] < ps[j]) assert.ok(adj[i] <= adj[j] + 1e-15, 'monotone in the raw p');
    }
  }
});

test('holmAdjust refuses a value that is not a p-value', () => {
  assert.throws(() => holmAdjust([0.1, Number.NaN]), /p-value 1/);
  assert.throws(() => holmAdjust([1.5]), /\[0, 1\]/);
});

test('withHolm names the family; holmChangedConclusions lists rows significant raw but not after Holm', () => {
  const a = [0.5, 0.6, 0.7, 0.8, 0.9, 0.4, 0.3, 0.6];
  const base = a.map((x) => x - 0.05);
  const noisy = a.map((x, i) => x + (i % 2 ? 0.3 : -0.28));
  const cs = [pairedTest(a, base, 'MAP', { permutations: 2000, bootstrapSamples: 500 }), pairedTest(noisy, a, 'MAP', { permutations: 2000, bootstrapSamples: 500 })];
  const h = withHolm(cs, 'Holm over 2 rows');
  assert.equal(h.map((c) => c.family), ['Holm over 2 rows', 'Holm over 2 rows']);
  const adj = holmAdjust(cs.map((c) => c.pValue));
  assert.equal(h.map((c) => c.pHolm), adj);
  const fake = [{ ...h[0], pValue: 0.03, pHolm: 0.06 }, { ...h[1], pValue: 0.01, pHolm: 0.02 }, { ...h[1], pValue: 0.2, pHolm: 0.2 }];
  assert.equal(holmChangedConclusions(fake).length, 1);
  assert.is(holmChangedConclusions(fake)[0].pValue, 0.03);
});

test("pairedTest: improved/tied/worse counts and Cohen's d_z with a seeded bootstrap CI", () => {
  const a = [0.5, 0.4, 0.3, 0.9, 0.2, 0.6];
  const b = [0.4, 0.4, 0.5, 0.6, 0.1, 0.6];
  const c = pairedTest(a, b, 'MAP', { permutations: 500, bootstrapSamples: 2000, seed: 3 });
  assert.equal([c.improved, c.tied, c.worse], [3, 2, 1]);
  // d = .1 0 −.2 .3 .1 0: mean .05, sd (n − 1) = sqrt(((.05² + .05² + .25² + .25² + .05² + .05²)) / 5)
  const sd = Math.sqrt((4 * 0.05 ** 2 + 2 * 0.25 ** 2) / 5);
  close(c.effectSize, 0.05 / sd, 1e-9);
  close(effectSizeDz([0.1, 0, -0.2, 0.3, 0.1, 0]), 0.05 / sd, 1e-9);
  assert.ok(c.effectSizeCi95[0] <= c.effectSize && c.effectSize <= c.effectSizeCi95[1], `${c.effectSizeCi95} around ${c.effectSize}`);
  const again = pairedTest(a, b, 'MAP', { permutations: 500, bootstrapSamples: 2000, seed: 3 });
  assert.equal(again.effectSizeCi95, c.effectSizeCi95);
  assert.is(effectSizeDz([0, 0, 0]), 0);
  assert.ok(effectSizeDz([0.1, 0.1, 0.1]) > 1000, 'a constant gain is a huge, capped effect');
  assert.ok(Number.isFinite(effectSizeDz([0.1, 0.1, 0.1])));
});

test('pairedTest: kept draws give the numbers of drawing as it goes, on every n, seed and call; they follow the seed', () => {
  const rng = mulberry32(17);
  for (const n of [1, 2, 7, 86, 338]) {
    const a = Array.from({ length: n }, () => rng());
    const b = a.map((x) => (rng() < 0.3 ? x : Math.max(0, x - rng() * 0.4)));
    for (const seed of [42, 7]) {
      const o = { permutations: 700, bootstrapSamples: 900, seed };
      const drawn = pairedTest(a, b, 'MAP', { ...o, keepDraws: false });
      const first = pairedTest(a, b, 'MAP', o); // makes the draws
      const second = pairedTest(a, b, 'MAP', o); // reuses them
      const other = pairedTest(b, a, 'MAP', o); // other values, the same draws
      for (const c of [first, second]) assert.equal(c, drawn);
      assert.equal(other, pairedTest(b, a, 'MAP', { ...o, keepDraws: false }));
    }
  }
  const o = { permutations: 300, bootstrapSamples: 300 };
  const d42 = pairedDraws(42, 50, o.permutations, o.bootstrapSamples)!;
  assert.ok(pairedDraws(42, 50, o.permutations, o.bootstrapSamples) === d42, 'the same draws, kept');
  const d43 = pairedDraws(43, 50, o.permutations, o.bootstrapSamples)!;
  assert.not.equal([...d43.signs], [...d42.signs]);
  assert.ok(d42.signs.every((x) => x === 1 || x === -1) && d42.picks.every((i) => i >= 0 && i < 50));
  // too many to keep (here 1.2 GB): none kept, the test draws as it goes
  assert.is(pairedDraws(42, 60000, 10000, 10000), null);
});

test('pairedTable (the display rows of typed comparisons) carries the effect-size columns', () => {
  const pq = (vals: number[]) => ({ queryIds: vals.map((_, i) => `q${i}`), values: { MAP: vals, MRR: vals } }) as never;
  const rows = pairedTable(pairedComparisons(pq([0.5, 0.4, 0.3]), pq([0.4, 0.4, 0.5]), 'New', 'Old', ['MAP'], { permutations: 200, bootstrapSamples: 200 }));
  assert.equal([rows[0].improved, rows[0].tied, rows[0].worse], [1, 1, 1]);
  assert.ok(typeof rows[0].d_z === 'number' && rows[0]['d_z CI95 low'] <= rows[0]['d_z CI95 high']);
});

test('tukeyHsd: symmetric p, diagonal 1, a clear winner separated, identical systems not, seeded', () => {
  const rng = mulberry32(11);
  const n = 40;
  const base = Array.from({ length: n }, () => rng());
  const same = base.map((x) => x + (rng() - 0.5) * 0.02);
  const better = base.map((x) => x + 0.3 + (rng() - 0.5) * 0.05);
  const t = tukeyHsd(['base', 'same', 'better'], [base, same, better], { permutations: 2000, seed: 5 });
  for (let i = 0; i < 3; i++) {
    assert.is(t.p[i][i], 1);
    for (let j = 0; j < 3; j++) close(t.p[i][j], t.p[j][i]);
  }
  assert.ok(t.p[2][0] < 0.01 && t.p[2][1] < 0.01, `better vs rest ${t.p[2][0]} ${t.p[2][1]}`);
  assert.ok(t.p[0][1] > 0.2, `base vs same ${t.p[0][1]}`);
  close(t.diff[2][0], t.means[2] - t.means[0]);
  assert.equal(tukeyHsd(['base', 'same', 'better'], [base, same, better], { permutations: 2000, seed: 5 }).p, t.p);
  // the max statistic makes HSD no less conservative than the pair's own sign-flip test
  const pair = pairedTest(base, same, 'x', { permutations: 2000, bootstrapSamples: 10 });
  assert.ok(t.p[0][1] >= pair.pValue - 0.05, `${t.p[0][1]} vs pairwise ${pair.pValue}`);
  assert.throws(() => tukeyHsd(['a', 'b'], [[1, 2], [1]]), /must align/);
});

test.run();
