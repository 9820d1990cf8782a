import { EoError } from '../errors';
import { topKHits, type ScoredHit } from './topk';

function check(matrix: Float32Array, dim: number, q: ArrayLike<number>, where: string): number {
  if (!Number.isInteger(dim) || dim < 1) throw new EoError('INVALID_ARGUMENT', `${where}: dim must be a positive integer, got ${dim}`);
  if (matrix.length % dim !== 0) throw new EoError('INVALID_ARGUMENT', `${where}: matrix length ${matrix.length} is not a multiple of dim ${dim}`);
  if (q.length !== dim) throw new EoError('INVALID_ARGUMENT', `${where}: query has ${q.length} dimensions, matrix has ${dim}`);
  return matrix.length / dim;
}

/**
 * Exact cosine scores of one query against every row of an L2-normalised row-major matrix (N×dim): the dot
 * products, aligned with corpus order. The query should be unit-norm too (encoders return it so).
 */
export function denseScores(matrix: Float32Array, dim: number, queryVec: ArrayLike<number>): Float32Array {
  const n = check(matrix, dim, queryVec, 'denseScores');
  const q = queryVec instanceof Float32Array ? queryVec : Float32Array.from(queryVec);
  const out = new Float32Array(n);
  for (let r = 0, o = 0; r < n; r++, o += dim) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j + 3 < dim; j += 4) {
      s0 += matrix[o + j] * q[j];
      s1 += matrix[o + j + 1] * q[j + 1];
      s2 += matrix[o + j + 2] * q[j + 2];
      s3 += matrix[o + j + 3] * q[j + 3];
    }
    for (; j < dim; j++) s0 += matrix[o + j] * q[j];
    out[r] = s0 + s1 + s2 + s3;
  }
  return out;
}

/** Exact cosine top-k: best first, ties by `ids` descending (trec_eval order), else by corpus order. */
export function denseTopK(matrix: Float32Array, dim: number, queryVec: ArrayLike<number>, k: number, ids?: readonly string[]): ScoredHit[] {
  return topKHits(denseScores(matrix, dim, queryVec), k, ids);
}
