/**
 * Pseudo-relevance feedback for a dense scorer (Rocchio on embeddings): a query's vector is moved towards the mean of
 * the vectors of the datasets it ranks first, then scored again. A research question names its need among place,
 * period and purpose; the datasets that its first ranking puts on top share the need, so their mean pulls the query
 * towards it (dense PRF as in Li et al. 2021, "Pseudo relevance feedback with deep language models and dense
 * retrievers"; Rocchio 1971). The first ranking is the scorer's own (`seeds: 'self'`) or, where the scorer is the
 * semantic half of a hybrid, its lexical half's (`'lexical'`): a question's exact words (a variable, an instrument)
 * find the right datasets more often than a bag of token vectors does, and their vectors then carry the query's need
 * to datasets that name it in other words (sparse-seeded dense feedback, as studied by Li et al. 2022, "To
 * interpolate or not to interpolate: PRF, dense and sparse retrievers"; chosen on the style benchmark's dev half,
 * see `DEFAULT_RANKING.staticPrf`).
 */
import { EoError } from '../errors';
import { l2NormalizeInPlace } from '../util/vector';
import { topKIndexSet } from './topk';

/** Rocchio feedback: q' = q / |q| + beta · mean of the top `k` datasets' unit vectors, re-normalised. */
export interface DensePrf {
  /** Datasets of the first ranking averaged (≥ 1). */
  k: number;
  /** Weight of their mean against the query (> 0). */
  beta: number;
  /**
   * Whose first ranking picks the datasets: `self` (the scorer's own cosines) or `lexical` (the scores of the lexical
   * scorer it is given: `DenseScorerOptions.prfLexical`). Default `self`.
   */
  seeds?: 'self' | 'lexical';
}

/** A `DensePrf` as written in a fingerprint or a label: `prf k3 β1`, `prf k5 β1 lexical`. */
export function densePrfText(p: DensePrf): string {
  return `prf k${p.k} β${p.beta}${p.seeds === 'lexical' ? ' lexical' : ''}`;
}

/** Throws a CONFIG error naming the bad field. */
export function validateDensePrf(p: DensePrf): void {
  if (!(Number.isInteger(p.k) && p.k >= 1)) throw new EoError('CONFIG', `dense PRF: k must be an integer ≥ 1 (got ${p.k})`);
  if (!(Number.isFinite(p.beta) && p.beta > 0)) throw new EoError('CONFIG', `dense PRF: beta must be a number > 0 (got ${p.beta})`);
  if (p.seeds !== undefined && p.seeds !== 'self' && p.seeds !== 'lexical') throw new EoError('CONFIG', `dense PRF: seeds must be "self" or "lexical" (got ${JSON.stringify(p.seeds)})`);
}

/**
 * The feedback queries (Q×D, unit norm) of `queryVecs` (Q×D) given a first ranking's scores of every row of `matrix`
 * (N×D, unit rows; the query's cosines, or its lexical scores): per query, the `k` best rows (ties to the lower row)
 * averaged and added with weight `beta`. Only rows the first ranking scored above 0 count: a query no word of which
 * matched (BM25 0 everywhere, or a vector of unknown tokens) keeps its vector instead of moving towards rows 0…k−1.
 */
export function rocchioQueries(queryVecs: Float32Array, first: readonly Float32Array[], matrix: Float32Array, dim: number, prf: DensePrf): Float32Array {
  validateDensePrf(prf);
  const n = queryVecs.length / dim;
  if (first.length !== n) throw new EoError('INVALID_ARGUMENT', `rocchioQueries: ${n} queries but ${first.length} score vectors`);
  const out = new Float32Array(queryVecs.length);
  const mean = new Float64Array(dim);
  for (let q = 0; q < n; q++) {
    const rows = Array.from(topKIndexSet(first[q], prf.k)).filter((r) => first[q][r] > 0);
    mean.fill(0);
    for (const r of rows) for (let j = 0; j < dim; j++) mean[j] += matrix[r * dim + j];
    const w = rows.length ? prf.beta / rows.length : 0;
    const v = out.subarray(q * dim, (q + 1) * dim);
    v.set(queryVecs.subarray(q * dim, (q + 1) * dim));
    l2NormalizeInPlace(v);
    for (let j = 0; j < dim; j++) v[j] += w * mean[j];
    l2NormalizeInPlace(v);
  }
  return out;
}
