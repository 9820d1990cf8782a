import { EoError } from '../errors';
import { sortRunEntries } from '../metrics/rank';
import type { Run, RunEntry } from '../metrics/types';
import type { RerankCandidate, RerankQuery, RerankTrace, Reranker, WindowOptions } from './types';

/**
 * Algorithm 1 (the paper's composition), the one function every reranker's answer goes through: the window's
 * items in the reranker's order (`ranked`: 1-based window ids; invalid/duplicate ids are ignored here too), then
 * the window items it did not mention in their original order. Returns 0-based window positions, a permutation
 * of 0..k−1.
 */
export function composeWindowOrder(ranked: readonly number[], k: number): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (const id of ranked) {
    if (!Number.isInteger(id) || id < 1 || id > k || seen.has(id)) continue;
    seen.add(id);
    out.push(id - 1);
  }
  for (let i = 0; i < k; i++) if (!seen.has(i + 1)) out.push(i);
  return out;
}

/**
 * Apply one window's order to a ranked list: items before `start` and after the window (the tail) stay where
 * they are; the window's items are placed in `composeWindowOrder(ranked, size)` order. Pure; returns a new list.
 */
export function applyWindowOrder<T>(list: readonly T[], start: number, size: number, ranked: readonly number[]): T[] {
  const k = Math.max(0, Math.min(size, list.length - start));
  const window = list.slice(start, start + k);
  return [...list.slice(0, start), ...composeWindowOrder(ranked, k).map((i) => window[i]), ...list.slice(start + k)];
}

/** Window start positions of the sliding schedule, processed bottom-up (rank_llm's order): the last one is 0. */
export function slidingWindowStarts(listLength: number, opts: WindowOptions = {}): { starts: number[]; window: number } {
  const window = opts.window ?? 10;
  const depth = Math.min(opts.depth ?? window, listLength);
  const stride = opts.stride ?? Math.max(1, Math.floor(window / 2));
  if (!(window >= 1) || !(stride >= 1)) throw new EoError('INVALID_ARGUMENT', `window (${window}) and stride (${stride}) must be >= 1`);
  if (depth <= window) return { starts: [0], window };
  const starts: number[] = [];
  for (let s = depth - window; s > 0; s -= stride) starts.push(s);
  starts.push(0);
  return { starts, window };
}

/** Ranked list → run entries with strictly decreasing scores, so that every metric reads exactly this order. */
export function entriesFromOrder(ids: readonly string[]): RunEntry[] {
  return ids.map((docId, i) => ({ docId, score: ids.length - i }));
}

/** The candidates of one query as the backbone ranked them (best first; depth = the backbone run's depth). */
export interface BackboneList {
  query: RerankQuery;
  candidates: RerankCandidate[];
}

/**
 * Rerank one query's list with a reranker: windows of `window` items slid bottom-up over the top `depth`
 * (default: one window over the top `window`), each answer composed by Algorithm 1; everything below `depth` is
 * the unchanged tail. Returns the new candidate order and one trace per window.
 */
export async function rerankList(reranker: Reranker, list: BackboneList, opts: WindowOptions = {}): Promise<{ candidates: RerankCandidate[]; traces: RerankTrace[] }> {
  let cands = list.candidates.slice();
  const { starts, window } = slidingWindowStarts(cands.length, opts);
  const traces: RerankTrace[] = [];
  for (const start of starts) {
    const win = cands.slice(start, start + window);
    if (win.length === 0) continue;
    const res = await reranker.rerank(list.query, win);
    res.trace.windowStart = start;
    traces.push(res.trace);
    cands = applyWindowOrder(cands, start, window, res.ranked);
  }
  return { candidates: cands, traces };
}

/** Result of reranking a whole backbone. */
export interface RerankedRun {
  run: Run;
  /** Query id → traces of its windows. */
  traces: Map<string, RerankTrace[]>;
}

/** Rerank every query of a backbone (up to `concurrency` queries at a time); query order of the output is kept. */
export async function rerankBackbone(
  reranker: Reranker,
  lists: readonly BackboneList[],
  opts: WindowOptions & { onProgress?: (done: number, total: number) => void } = {},
): Promise<RerankedRun> {
  const results: { candidates: RerankCandidate[]; traces: RerankTrace[] }[] = new Array(lists.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let i = next++; i < lists.length; i = next++) {
      results[i] = await rerankList(reranker, lists[i], opts);
      opts.onProgress?.(++done, lists.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 1) }, worker));
  const run: Run = new Map();
  const traces = new Map<string, RerankTrace[]>();
  lists.forEach((l, i) => {
    run.set(l.query.id, entriesFromOrder(results[i].candidates.map((c) => c.id)));
    traces.set(l.query.id, results[i].traces);
  });
  return { run, traces };
}

/** A backbone run as lists (for evaluation of the backbone itself and as reranker input). */
export function runFromLists(lists: readonly BackboneList[]): Run {
  const run: Run = new Map();
  for (const l of lists) run.set(l.query.id, entriesFromOrder(l.candidates.map((c) => c.id)));
  return run;
}

/** Sorted entries of a run (metric order), as an id list. */
export function orderedIds(entries: readonly RunEntry[], depth = Infinity): string[] {
  return sortRunEntries(entries, depth).map((e) => e.docId);
}
