import { EoError } from '../errors';
import { shuffleInPlace, type Rng } from '../util/random';

export interface MineHardNegativesOptions {
  /** Q×dim row-major query embeddings (unit norm). */
  queryVecs: Float32Array;
  /** N×dim row-major corpus embeddings (unit norm). */
  corpusMatrix: Float32Array;
  dim: number;
  /** Corpus row indices that are positives, per query (never returned as negatives of that query). */
  positives: number[][];
  /** Negatives per query. */
  k: number;
}

/**
 * KNN hard negatives: for each query, the `k` corpus rows nearest by cosine (dot product of unit vectors) that
 * are not among that query's positives, best first; equal scores go to the lower index. Fewer than `k` only
 * when the corpus has fewer non-positive rows.
 */
export function mineHardNegatives(opts: MineHardNegativesOptions): number[][] {
  const { queryVecs, corpusMatrix, dim, positives, k } = opts;
  if (!(dim > 0) || corpusMatrix.length % dim !== 0 || queryVecs.length % dim !== 0)
    throw new EoError('INVALID_ARGUMENT', `mineHardNegatives: matrix sizes (${queryVecs.length}, ${corpusMatrix.length}) are not multiples of dim ${dim}`);
  const q = queryVecs.length / dim;
  const n = corpusMatrix.length / dim;
  if (positives.length !== q) throw new EoError('INVALID_ARGUMENT', `mineHardNegatives: ${positives.length} positive lists for ${q} queries`);
  const kk = Math.max(0, Math.floor(k));
  const out: number[][] = [];
  const scores = new Float32Array(n);
  // Bounded best-k list kept sorted: (score desc, index asc).
  const topS = new Float64Array(kk + 1);
  const topI = new Int32Array(kk + 1);
  for (let qi = 0; qi < q; qi++) {
    const qo = qi * dim;
    for (let j = 0; j < n; j++) {
      const o = j * dim;
      let s = 0;
      for (let t = 0; t < dim; t++) s += queryVecs[qo + t] * corpusMatrix[o + t];
      scores[j] = s;
    }
    const pos = new Set(positives[qi]);
    let len = 0;
    for (let j = 0; j < n; j++) {
      if (pos.has(j)) continue;
      const s = scores[j];
      // Indices arrive ascending, so an equal score never displaces an earlier index.
      if (len === kk && !(s > topS[len - 1])) continue;
      let p = len < kk ? len : len - 1;
      while (p > 0 && s > topS[p - 1]) {
        topS[p] = topS[p - 1];
        topI[p] = topI[p - 1];
        p--;
      }
      topS[p] = s;
      topI[p] = j;
      if (len < kk) len++;
    }
    out.push(Array.from(topI.subarray(0, len)));
  }
  return out;
}

/**
 * `count` distinct random indices in [0, corpusSize), none in `exclude` (fewer only when the corpus has fewer
 * allowed rows). Deterministic for a given generator state.
 */
export function sampleRandomNegatives(count: number, corpusSize: number, exclude: ReadonlySet<number>, rng: Rng): number[] {
  let allowed = corpusSize;
  for (const e of exclude) if (Number.isInteger(e) && e >= 0 && e < corpusSize) allowed--;
  const want = Math.max(0, Math.min(Math.floor(count), allowed));
  if (want === 0) return [];
  // Dense case: a partial Fisher–Yates over the allowed indices; sparse case: rejection sampling.
  if (want * 4 > allowed) {
    const pool: number[] = [];
    for (let i = 0; i < corpusSize; i++) if (!exclude.has(i)) pool.push(i);
    for (let i = 0; i < want; i++) {
      const j = i + Math.floor(rng() * (pool.length - i));
      const t = pool[i];
      pool[i] = pool[j];
      pool[j] = t;
    }
    return pool.slice(0, want);
  }
  const seen = new Set<number>();
  const out: number[] = [];
  while (out.length < want) {
    const i = Math.floor(rng() * corpusSize);
    if (exclude.has(i) || seen.has(i)) continue;
    seen.add(i);
    out.push(i);
  }
  return out;
}

/**
 * Shuffle `items` and cut them into batches of at most `batchSize` in which no two items share a key (two copies
 * of one positive in a batch would act as false in-batch negatives). An item whose key is already in the
 * current batch waits for a later batch; every item is used exactly once. All batches but the last are full
 * unless the keys make that impossible (e.g. one key covering more than half of the items).
 */
export function batchesWithoutDuplicates<T>(items: T[], batchSize: number, keyOf: (t: T) => string | number, rng: Rng): T[][] {
  if (!(batchSize >= 1)) throw new EoError('INVALID_ARGUMENT', `batchesWithoutDuplicates: batchSize must be ≥ 1, got ${batchSize}`);
  const size = Math.floor(batchSize);
  let pending = shuffleInPlace(items.slice(), rng);
  const batches: T[][] = [];
  while (pending.length > 0) {
    const batch: T[] = [];
    const keys = new Set<string | number>();
    const deferred: T[] = [];
    let i = 0;
    for (; i < pending.length && batch.length < size; i++) {
      const it = pending[i];
      const key = keyOf(it);
      if (keys.has(key)) deferred.push(it);
      else {
        keys.add(key);
        batch.push(it);
      }
    }
    batches.push(batch);
    // Deferred items go first in the queue so they are not starved to the very end.
    pending = deferred.concat(pending.slice(i));
  }
  return batches;
}
