import { EoError } from '../errors';
import { mulberry32 } from '../util/random';
import { SIGNIFICANCE_LEVEL } from './significance';
import type { PairedComparison } from './types';

/**
 * Holm's step-down adjustment of a family of p-values (controls the family-wise error rate without assuming
 * independence): sort ascending, p(i)·(m − i + 1), running maximum so the adjusted values keep the raw order,
 * capped at 1. Returned in the input order. NaN or values outside [0, 1] are refused.
 */
export function holmAdjust(ps: readonly number[]): number[] {
  ps.forEach((p, i) => {
    if (!(p >= 0 && p <= 1)) throw new EoError('INVALID_ARGUMENT', `holmAdjust: p-value ${i} is ${p}; p-values lie in [0, 1]`);
  });
  const m = ps.length;
  const order = ps.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, p * (m - rank)));
    out[i] = running;
  });
  return out;
}

/**
 * Holm-adjust a family of paired comparisons (each against the same reference) and name the family in each:
 * returns copies with `pHolm` and `family` set.
 */
export function withHolm(comparisons: readonly PairedComparison[], family: string): PairedComparison[] {
  const adj = holmAdjust(comparisons.map((c) => c.pValue));
  return comparisons.map((c, i) => ({ ...c, pHolm: adj[i], family, correction: 'Holm' as const }));
}

/**
 * Holm per metric over several systems compared with one reference on the same metrics (`perSystem[i][m]`: system i on
 * the m-th metric, every system's metrics in the same order): the same shape back, each metric's column adjusted as one
 * family, named by `family(metric)`.
 */
export function withHolmPerMetric(perSystem: readonly (readonly PairedComparison[])[], family: (metric: string) => string): PairedComparison[][] {
  const metrics = perSystem[0]?.map((c) => c.metric) ?? [];
  const adjusted = metrics.map((m, mi) => withHolm(perSystem.map((cs) => cs[mi]), family(m)));
  return perSystem.map((_, si) => adjusted.map((column) => column[si]));
}

/** The comparisons whose verdict at `alpha` (default SIGNIFICANCE_LEVEL) differs between raw and Holm-adjusted p. */
export function holmChangedConclusions(comparisons: readonly PairedComparison[], alpha = SIGNIFICANCE_LEVEL): PairedComparison[] {
  return comparisons.filter((c) => c.pHolm !== undefined && c.pValue < alpha && !(c.pHolm < alpha));
}

export interface TukeyHsdOptions {
  /** Permutations (each query's row of k scores shuffled independently). Default 10000. */
  permutations?: number;
  /** PRNG seed. Default 42. */
  seed?: number;
}

/** Randomised Tukey HSD over k systems on the same queries. */
export interface TukeyHsd {
  systems: string[];
  /** Mean of each system over the queries. */
  means: number[];
  /** diff[i][j] = mean_i − mean_j. */
  diff: number[][];
  /** p[i][j]: share of permutations whose largest pairwise mean difference reaches |diff[i][j]| (1 on the diagonal). */
  p: number[][];
  n: number;
  permutations: number;
  seed: number;
}

/**
 * Randomised Tukey HSD (Carterette 2012, as in ranx): under the null that the k systems are exchangeable on every
 * query, each permutation shuffles each query's row of k scores, and records the largest pairwise difference of
 * system means (max mean − min mean). p_ij = (1 + #{max* ≥ |diff_ij|}) / (1 + B): one test for all pairs, so the
 * family-wise error over the k(k − 1)/2 pairs is controlled. `scores[s][q]` is system s's value on query q.
 */
export function tukeyHsd(systems: readonly string[], scores: readonly (readonly number[])[], opts: TukeyHsdOptions = {}): TukeyHsd {
  const k = systems.length;
  if (scores.length !== k) throw new EoError('INVALID_ARGUMENT', `tukeyHsd: ${k} systems but ${scores.length} score vectors`);
  const n = scores[0]?.length ?? 0;
  scores.forEach((s, i) => {
    if (s.length !== n) throw new EoError('INVALID_ARGUMENT', `tukeyHsd: system ${systems[i]} has ${s.length} queries, ${systems[0]} ${n}; scores must align`);
  });
  const permutations = opts.permutations ?? 10000;
  const seed = opts.seed ?? 42;
  const means = scores.map((s) => (n === 0 ? 0 : s.reduce((a, b) => a + b, 0) / n));
  const diff = means.map((a) => means.map((b) => a - b));
  const rng = mulberry32(seed);
  const maxStats = new Float64Array(permutations);
  const row = new Float64Array(k);
  const sums = new Float64Array(k);
  for (let b = 0; b < permutations; b++) {
    sums.fill(0);
    for (let q = 0; q < n; q++) {
      for (let s = 0; s < k; s++) row[s] = scores[s][q];
      // Fisher–Yates shuffle of the query's k scores
      for (let s = k - 1; s > 0; s--) {
        const j = Math.floor(rng() * (s + 1));
        const t = row[s];
        row[s] = row[j];
        row[j] = t;
      }
      for (let s = 0; s < k; s++) sums[s] += row[s];
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (let s = 0; s < k; s++) {
      lo = Math.min(lo, sums[s]);
      hi = Math.max(hi, sums[s]);
    }
    maxStats[b] = n === 0 || k === 0 ? 0 : (hi - lo) / n;
  }
  const eps = 1e-12; // float noise must not make an equal statistic non-extreme
  const p = diff.map((r, i) => r.map((d, j) => {
    if (i === j || n === 0) return 1;
    let extreme = 0;
    for (let b = 0; b < permutations; b++) if (maxStats[b] >= Math.abs(d) - eps) extreme++;
    return (1 + extreme) / (1 + permutations);
  }));
  return { systems: [...systems], means, diff, p, n, permutations, seed };
}
