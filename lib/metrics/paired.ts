import { EoError } from '../errors';
import { mulberry32 } from '../util/random';
import { mean } from './metrics';
import type { MetricName, PairedComparison, PerQueryMetrics } from './types';

export interface PairedOptions {
  /** Sign-flip permutations of the randomization test. Default 10000. */
  permutations?: number;
  /** Bootstrap resamples for the CI. Default 10000. */
  bootstrapSamples?: number;
  /** PRNG seed. Default 42. */
  seed?: number;
  /** Confidence level of the interval. Default 0.95. */
  confidence?: number;
  /**
   * Keep the random draws for the next test on as many pairs with the same seed, permutations and resamples (see
   * PairedDraws; up to 64 MiB held in all), or draw them as they are used and hold nothing. The numbers are the same
   * either way. Default true.
   */
  keepDraws?: boolean;
}

/**
 * Paired comparison of per-query values a[i], b[i] (same queries, same order):
 * - two-sided paired randomization test: each difference's sign is flipped at random; p = (1 + #{|mean*| ≥ |mean|}) / (1 + P);
 * - percentile bootstrap CI of the mean difference (queries resampled with replacement).
 * Seeded: the same inputs and seed give the same p and CI.
 */
export function pairedTest(a: readonly number[], b: readonly number[], metric = 'value', opts: PairedOptions = {}): PairedComparison {
  if (a.length !== b.length) throw new EoError('INVALID_ARGUMENT', `pairedTest: ${a.length} vs ${b.length} values; pairs must align`);
  const permutations = opts.permutations ?? 10000;
  const bootstrapSamples = opts.bootstrapSamples ?? 10000;
  const seed = opts.seed ?? 42;
  const conf = opts.confidence ?? 0.95;
  const n = a.length;
  const d = a.map((x, i) => x - b[i]);
  const observed = mean(d);
  // the draws made once per (seed, n, P, B) and kept; where they would be too large to keep, drawn as they are used
  const draws = opts.keepDraws === false ? null : pairedDraws(seed, n, permutations, bootstrapSamples);
  const rng = draws ? null : mulberry32(seed);
  let extreme = 0;
  const eps = 1e-12; // float noise must not turn an equal statistic into a non-extreme one
  for (let p = 0, k = 0; p < permutations; p++) {
    let s = 0;
    if (draws) for (let i = 0; i < n; i++, k++) s += draws.signs[k] * d[i]; // ±1 · d: exactly the flipped or kept difference
    else for (let i = 0; i < n; i++) s += rng!() < 0.5 ? -d[i] : d[i];
    if (Math.abs(s / n) >= Math.abs(observed) - eps) extreme++;
  }
  const boot = new Float64Array(bootstrapSamples);
  const bootDz = new Float64Array(bootstrapSamples);
  for (let r = 0, k = 0; r < bootstrapSamples; r++) {
    let s = 0;
    let ss = 0;
    if (draws) {
      for (let i = 0; i < n; i++, k++) {
        const x = d[draws.picks[k]];
        s += x;
        ss += x * x;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const x = d[Math.floor(rng!() * n)];
        s += x;
        ss += x * x;
      }
    }
    boot[r] = n === 0 ? 0 : s / n;
    bootDz[r] = n < 2 ? 0 : standardised(s / n, Math.sqrt(Math.max(0, (ss - (s * s) / n) / (n - 1))));
  }
  boot.sort();
  bootDz.sort();
  const lo = quantileSorted(boot, (1 - conf) / 2);
  const hi = quantileSorted(boot, 1 - (1 - conf) / 2);
  const wlt = winsLossesTies(a, b);
  return {
    metric,
    n,
    meanA: mean(a),
    meanB: mean(b),
    meanDiff: observed,
    pValue: n === 0 ? 1 : (1 + extreme) / (1 + permutations),
    ciLow: lo,
    ciHigh: hi,
    permutations,
    bootstrapSamples,
    seed,
    improved: wlt.wins,
    tied: wlt.ties,
    worse: wlt.losses,
    effectSize: effectSizeDz(d),
    effectSizeCi95: [quantileSorted(bootDz, (1 - conf) / 2), quantileSorted(bootDz, 1 - (1 - conf) / 2)],
  };
}

/**
 * The random draws of a paired test: the sign of each difference in each permutation (±1, permutation-major) and the
 * query index of each bootstrap pick (resample-major), in the order `mulberry32(seed)` gives them — all permutations'
 * signs first, then the picks. They depend on (seed, n, permutations, resamples) only, not on the values, and a
 * notebook tests dozens of systems × metrics × styles on the same queries: drawing them once per n instead of per test
 * makes a test 4-6× faster on 86-338 queries (`bench/paired-test.cjs`) with the same numbers.
 */
export interface PairedDraws {
  signs: Int8Array;
  picks: Uint16Array | Uint32Array;
}

/** Bytes the kept draws may hold together (the least recently used are dropped first). */
const PAIRED_DRAWS_CACHE_BYTES = 64 * 1024 * 1024;
const pairedDrawsCache = new Map<string, PairedDraws>();

function drawBytes(dr: PairedDraws): number {
  return dr.signs.byteLength + dr.picks.byteLength;
}

/**
 * The draws of `pairedTest(…, { seed, permutations, bootstrapSamples })` on n pairs, made once and kept (see
 * PairedDraws); null where they would take more than the cache holds (a test on that many pairs draws as it goes).
 */
export function pairedDraws(seed: number, n: number, permutations: number, bootstrapSamples: number): PairedDraws | null {
  const key = `${seed}:${n}:${permutations}:${bootstrapSamples}`;
  const hit = pairedDrawsCache.get(key);
  if (hit) {
    pairedDrawsCache.delete(key); // most recently used last: the Map's order is the eviction order
    pairedDrawsCache.set(key, hit);
    return hit;
  }
  const pickBytes = n <= 0xffff ? 2 : 4;
  const bytes = permutations * n + bootstrapSamples * n * pickBytes;
  if (bytes > PAIRED_DRAWS_CACHE_BYTES) return null;
  const rng = mulberry32(seed);
  const signs = new Int8Array(permutations * n);
  for (let k = 0; k < signs.length; k++) signs[k] = rng() < 0.5 ? -1 : 1;
  const picks = pickBytes === 2 ? new Uint16Array(bootstrapSamples * n) : new Uint32Array(bootstrapSamples * n);
  for (let k = 0; k < picks.length; k++) picks[k] = Math.floor(rng() * n);
  let held = bytes;
  for (const v of pairedDrawsCache.values()) held += drawBytes(v);
  for (const [k, v] of pairedDrawsCache) {
    if (held <= PAIRED_DRAWS_CACHE_BYTES) break;
    pairedDrawsCache.delete(k);
    held -= drawBytes(v);
  }
  const draws = { signs, picks };
  pairedDrawsCache.set(key, draws);
  return draws;
}

/**
 * Cohen's d_z of paired differences: mean / sd (sd with n − 1). A constant non-zero difference has sd 0 and would be
 * infinite; it is capped at ±1e6 so tables and JSON stay numeric. Fewer than two differences give 0.
 */
export function effectSizeDz(diffs: readonly number[]): number {
  const n = diffs.length;
  if (n < 2) return 0;
  const m = mean(diffs);
  let ss = 0;
  for (const x of diffs) ss += (x - m) * (x - m);
  return standardised(m, Math.sqrt(ss / (n - 1)));
}

const DZ_CAP = 1e6;
function standardised(m: number, sd: number): number {
  if (Math.abs(m) <= 1e-12) return 0;
  if (sd <= 1e-12) return m > 0 ? DZ_CAP : -DZ_CAP;
  return Math.max(-DZ_CAP, Math.min(DZ_CAP, m / sd));
}

/** Linear-interpolated quantile of sorted values (type 7, as R's and numpy's default). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** Compare two systems' per-query metrics on every metric; queries are matched by id (must be the same set). */
export function compareSystems(a: PerQueryMetrics, b: PerQueryMetrics, metrics: readonly MetricName[] = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'], opts: PairedOptions = {}): PairedComparison[] {
  const pos = new Map(b.queryIds.map((q, i) => [q, i]));
  if (a.queryIds.length !== b.queryIds.length || a.queryIds.some((q) => !pos.has(q)))
    throw new EoError('INVALID_ARGUMENT', 'compareSystems: the two systems were evaluated on different queries');
  return metrics.map((m) => {
    const av = a.values[m];
    const bv = a.queryIds.map((q) => b.values[m][pos.get(q)!]);
    return pairedTest(av, bv, m, opts);
  });
}

/** How often system A beat, lost to and tied with system B, query by query. */
export interface WinsLossesTies {
  /** Queries where A's value exceeds B's by more than the tolerance. */
  wins: number;
  /** Queries where B's value exceeds A's by more than the tolerance. */
  losses: number;
  /** Queries where the two values differ by at most the tolerance. */
  ties: number;
  /** Queries compared (wins + losses + ties). */
  n: number;
}

/**
 * Per-query wins, losses and ties of A against B (values aligned by query, e.g. `perQuery.values.MRR` of two
 * systems evaluated on the same qrels). `tolerance` (default 1e-12) absorbs float noise, so the same ranking
 * computed two ways counts as a tie.
 */
export function winsLossesTies(a: readonly number[], b: readonly number[], tolerance = 1e-12): WinsLossesTies {
  if (a.length !== b.length) throw new EoError('INVALID_ARGUMENT', `winsLossesTies: ${a.length} vs ${b.length} values; pairs must align`);
  if (!(tolerance >= 0)) throw new EoError('INVALID_ARGUMENT', `winsLossesTies: tolerance must be ≥ 0, got ${tolerance}`);
  let wins = 0;
  let losses = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    if (Number.isNaN(d)) throw new EoError('INVALID_ARGUMENT', `winsLossesTies: value ${i} is not a number (${a[i]} vs ${b[i]})`);
    if (d > tolerance) wins++;
    else if (d < -tolerance) losses++;
  }
  return { wins, losses, ties: a.length - wins - losses, n: a.length };
}
