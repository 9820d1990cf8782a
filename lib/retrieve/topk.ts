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
export function topK(scores: Scores, k: number, ids?: readonly string[]): number[] {
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

/** `topK` with the scores attached. */
export function topKHits(scores: Scores, k: number, ids?: readonly string[]): ScoredHit[] {
  return topK(scores, k, ids).map((index) => ({ index, score: scores[index] }));
}
