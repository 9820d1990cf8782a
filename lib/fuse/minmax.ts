import { assertConvexAlpha } from './alpha';
/**
 * Min-max normalisation of one query's scores over the whole corpus: (s − min) / (max − min). A constant vector
 * (e.g. BM25 with no matching term) maps to all zeros, so it adds nothing to a fusion.
 */
export function minMaxNormalize(scores: ArrayLike<number>): Float32Array {
  const n = scores.length;
  const out = new Float32Array(n);
  const { lo, range } = minMaxRange(scores);
  if (!(range > 0)) return out;
  for (let i = 0; i < n; i++) out[i] = (scores[i] - lo) / range;
  return out;
}

/** Minimum and range (max − min) of one score vector. */
function minMaxRange(scores: ArrayLike<number>): { lo: number; range: number } {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i];
    if (s < lo) lo = s;
    if (s > hi) hi = s;
  }
  return { lo, range: hi - lo };
}

/**
 * `minMaxNormalize` of one vector as a function of a single score (same value, as float32), for explaining a few
 * datasets without normalising the whole corpus again.
 */
export function minMaxNormalizer(scores: ArrayLike<number>): (s: number) => number {
  const { lo, range } = minMaxRange(scores);
  return range > 0 ? (s) => Math.fround((s - lo) / range) : () => 0;
}

/** Convex fusion of min-max-normalised scores (paper Eq. 6): α·ŝ_semantic + (1 − α)·ŝ_lexical. */
export function fuseConvex(semantic: ArrayLike<number>, lexical: ArrayLike<number>, alpha: number): Float32Array {
  if (semantic.length !== lexical.length) throw new RangeError(`fuseConvex: ${semantic.length} vs ${lexical.length} scores`);
  assertConvexAlpha(alpha, 'fuseConvex');
  const a = minMaxNormalize(semantic);
  return convexOfNormalized(a, minMaxNormalize(lexical), alpha, a);
}

/**
 * The convex combination of already-normalised scores, α·ŝ + (1 − α)·l̂ per dataset (computed in double, stored as
 * float32): THE fused score of Eq. 6, shared by `fuseConvex` and `fuseConvexParts`. `out` may be `semantic` itself.
 */
export function convexOfNormalized(semantic: ArrayLike<number>, lexical: ArrayLike<number>, alpha: number, out: Float32Array = new Float32Array(semantic.length)): Float32Array {
  for (let i = 0; i < out.length; i++) out[i] = alpha * semantic[i] + (1 - alpha) * lexical[i];
  return out;
}
