import { EoError } from '../errors';

/** One ranked item: position in corpus order and its score. */
export interface ScoredHit {
  index: number;
  score: number;
}

type Scores = ArrayLike<number>;

/**
 * Indices of the `k` best scores, best first. Equal scores are ordered by `ids` DESCENDING (plain string
 * comparison), which is how trec_eval orders ties, so MAP computed here matches trec_eval's; without `ids`, ties
 * keep corpus order (lower index first). NaN counts as -Infinity. `k` larger than the list returns everything.
 */
export function topKIndices(scores: Scores, k: number, ids?: readonly string[]): number[] {
  const n = scores.length;
  if (ids && ids.length !== n) throw new EoError('INVALID_ARGUMENT', `topK: ${ids.length} ids for ${n} scores`);
  if (!(k >= 0)) throw new EoError('INVALID_ARGUMENT', `topK: k must be >= 0, got ${k}`);
  const m = Math.min(Math.floor(k), n);
  if (m === 0) return [];
  const val = (i: number) => {
    const s = scores[i];
    return s === s ? s : -Infinity;
  };
  // better(a, b): a ranks above b.
  const better = ids
    ? (a: number, b: number) => {
        const sa = val(a);
        const sb = val(b);
        return sa > sb || (sa === sb && ids[a] > ids[b]) || (sa === sb && ids[a] === ids[b] && a < b);
      }
    : (a: number, b: number) => {
        const sa = val(a);
        const sb = val(b);
        return sa > sb || (sa === sb && a < b);
      };
  const cmp = (a: number, b: number) => (better(a, b) ? -1 : better(b, a) ? 1 : 0);
  if (m * 8 >= n) {
    const all = Array.from({ length: n }, (_, i) => i);
    all.sort(cmp);
    return all.slice(0, m);
  }
  // Threshold first: the m-th best score by a bounded heap of plain values (no comparator calls); only the
  // entries at or above it can be in the top m, and sorting those few with `cmp` gives exactly the heap's answer
  // (the top m of a total order is unique). Many ties at the threshold (e.g. BM25 zeros) fall back to the heap.
  if (n >= 1024) {
    const threshold = mthLargest(scores, m);
    const picked: number[] = [];
    for (let i = 0; i < n && picked.length <= 4 * m; i++) if (val(i) >= threshold) picked.push(i);
    if (picked.length <= 4 * m) return picked.sort(cmp).slice(0, m);
  }
  // Bounded heap whose root is the worst of the current best m.
  const heap: number[] = [];
  const worse = (a: number, b: number) => better(b, a);
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < heap.length && worse(heap[l], heap[w])) w = l;
      if (r < heap.length && worse(heap[r], heap[w])) w = r;
      if (w === i) break;
      [heap[i], heap[w]] = [heap[w], heap[i]];
      i = w;
    }
  };
  for (let i = 0; i < n; i++) {
    if (heap.length < m) {
      heap.push(i);
      up(heap.length - 1);
    } else if (better(i, heap[0])) {
      heap[0] = i;
      down(0);
    }
  }
  return heap.sort(cmp);
}

/** The m-th largest of the scores (1 ≤ m ≤ length; NaN counts as -Infinity): a bounded min-heap of values. */
function mthLargest(scores: Scores, m: number): number {
  const h = new Float64Array(m);
  const sift = (at: number) => {
    const v = h[at];
    let i = at;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= m) break;
      const c = l + 1 < m && h[l + 1] < h[l] ? l + 1 : l;
      if (h[c] >= v) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = v;
  };
  for (let i = 0; i < m; i++) {
    const x = scores[i];
    h[i] = x === x ? x : -Infinity;
  }
  for (let i = (m >> 1) - 1; i >= 0; i--) sift(i);
  const n = scores.length;
  for (let i = m; i < n; i++) {
    const x = scores[i];
    if (x > h[0]) {
      h[0] = x;
      sift(0);
    }
  }
  return h[0];
}

/**
 * The same set as `topKIndices(scores, k)` (no ids: ties keep the lower index), in no particular order, without sorting by
 * score: a heap of plain values for the threshold, then one pass. For candidate sets (two-stage scoring).
 */
export function topKIndexSet(scores: Scores, k: number): Int32Array {
  if (!(k >= 0)) throw new EoError('INVALID_ARGUMENT', `topKIndexSet: k must be >= 0, got ${k}`);
  const n = scores.length;
  const m = Math.min(Math.floor(k), n);
  if (m === 0) return new Int32Array(0);
  const threshold = mthLargest(scores, m);
  const out = new Int32Array(m);
  const ties: number[] = [];
  let o = 0;
  for (let i = 0; i < n; i++) {
    const x = scores[i];
    const v = x === x ? x : -Infinity;
    if (v > threshold) out[o++] = i;
    else if (v === threshold) ties.push(i);
  }
  // the entries equal to the threshold fill the rest, lowest index first
  for (let t = 0; o < m; t++) out[o++] = ties[t];
  return out;
}

/** `topKIndices` with the scores attached. */
export function topKScoredHits(scores: Scores, k: number, ids?: readonly string[]): ScoredHit[] {
  return topKIndices(scores, k, ids).map((index) => ({ index, score: scores[index] }));
}
