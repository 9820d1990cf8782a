/**
 * Min-max normalisation of one query's scores over the whole corpus: (s − min) / (max − min). A constant vector
 * (e.g. BM25 with no matching term) maps to all zeros, so it adds nothing to a fusion.
 */
export function minMaxNormalize(scores: ArrayLike<number>): Float32Array {
  const n = scores.length;
  const out = new Float32Array(n);
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const s = scores[i];
    if (s < lo) lo = s;
    if (s > hi) hi = s;
  }
  const range = hi - lo;
  if (!(range > 0)) return out;
  for (let i = 0; i < n; i++) out[i] = (scores[i] - lo) / range;
  return out;
}

/** Convex fusion of min-max-normalised scores (paper Eq. 6): α·ŝ_semantic + (1 − α)·ŝ_lexical. */
export function fuseConvex(semantic: ArrayLike<number>, lexical: ArrayLike<number>, alpha: number): Float32Array {
  if (semantic.length !== lexical.length) throw new RangeError(`fuseConvex: ${semantic.length} vs ${lexical.length} scores`);
  if (!(alpha >= 0 && alpha <= 1)) throw new RangeError(`fuseConvex: alpha must be in [0, 1], got ${alpha}`);
  const a = minMaxNormalize(semantic);
  const b = minMaxNormalize(lexical);
  for (let i = 0; i < a.length; i++) a[i] = alpha * a[i] + (1 - alpha) * b[i];
  return a;
}
