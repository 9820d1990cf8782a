import type { RunEntry } from './types';

/**
 * The one ordering every metric uses: score descending, ties broken by dataset id DESCENDING (plain string
 * comparison). This is trec_eval's order, so our numbers equal trec_eval's on the same run file.
 */
export function compareRunEntries(a: RunEntry, b: RunEntry): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.docId < b.docId ? 1 : a.docId > b.docId ? -1 : 0;
}

/** Sorted copy of a ranked list, cut at `depth`. Duplicate docIds keep their first (best) occurrence. */
export function sortRunEntries(entries: readonly RunEntry[], depth = Infinity): RunEntry[] {
  const sorted = [...entries].sort(compareRunEntries);
  const seen = new Set<string>();
  const out: RunEntry[] = [];
  for (const e of sorted) {
    if (seen.has(e.docId)) continue;
    seen.add(e.docId);
    out.push(e);
    if (out.length >= depth) break;
  }
  return out;
}
