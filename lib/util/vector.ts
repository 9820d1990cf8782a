// Pure vector helpers on row-major Float32Array matrices. They live in util/ (below every stage) so that any stage
// can use them: encode normalises embeddings, bench's leakage audit and the offline reranker take dot products.
/** Scale a vector to unit L2 norm in place (an all-zero vector stays zero); returns it. */
export function l2NormalizeInPlace(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}

/** Normalise every row of a row-major matrix (`dim` columns) in place; returns it. */
export function l2NormalizeRows(matrix: Float32Array, dim: number): Float32Array {
  for (let o = 0; o + dim <= matrix.length; o += dim) l2NormalizeInPlace(matrix.subarray(o, o + dim));
  return matrix;
}

/** Dot product of two equal-length vectors (summed in double precision, first index first). */
export function dotProduct(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Stack rows into one row-major matrix. */
export function stackRows(rows: Float32Array[], dim: number): Float32Array {
  const m = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => m.set(r, i * dim));
  return m;
}

/** Row i of a row-major matrix, as a view (no copy). */
export function matrixRow(matrix: Float32Array, dim: number, i: number): Float32Array {
  return matrix.subarray(i * dim, (i + 1) * dim);
}
