import { bm25Tokens } from '../retrieve/bm25';
import type { SourcePublication, ToolItem } from './types';

/** Bare lower-case DOI from a DOI, a doi.org URL or `doi:` prefix; null when none. */
export function normalizeDoi(s: string | null | undefined): string | null {
  if (!s) return null;
  const m = /(10\.\d{4,9}\/[^\s"'<>]+)/i.exec(decodeURIComponentSafe(s));
  return m ? m[1].toLowerCase().replace(/[.,;)\]]+$/, '') : null;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Similarity of two titles: token-set Jaccard over lower-case letter/digit tokens (1 = same words). */
export function titleSimilarity(a: string, b: string): number {
  const ta = new Set(bm25Tokens(a));
  const tb = new Set(bm25Tokens(b));
  if (ta.size === 0 || tb.size === 0) return 0;
  let inter = 0;
  for (const t of ta) if (tb.has(t)) inter++;
  return inter / (ta.size + tb.size - inter);
}

export interface LeakageGuardOptions {
  /** Titles at least this similar (token Jaccard) count as the source publication. Default 0.8. */
  titleThreshold?: number;
}

/** Why an item identifies the source publication, or null when it does not. */
export function leakReason(item: ToolItem, pub: SourcePublication, opts: LeakageGuardOptions = {}): string | null {
  const doi = normalizeDoi(pub.doi);
  if (doi) {
    const itemDois = [item.doi, item.url, item.id].map(normalizeDoi);
    if (itemDois.includes(doi)) return 'doi';
    if (item.snippet && item.snippet.toLowerCase().includes(doi)) return 'doi';
  }
  if (pub.title.trim() !== '' && titleSimilarity(item.title, pub.title) >= (opts.titleThreshold ?? 0.8)) return 'title';
  return null;
}

/**
 * The label-leakage guard: drop tool results that identify the query's source publication (same DOI, or a
 * near-identical title) before the model sees them. Returns what was kept and what was removed (with why).
 */
export function applyLeakageGuard(items: readonly ToolItem[], pub: SourcePublication | null, opts: LeakageGuardOptions = {}): { kept: ToolItem[]; removed: { item: ToolItem; reason: string }[] } {
  if (!pub) return { kept: [...items], removed: [] };
  const kept: ToolItem[] = [];
  const removed: { item: ToolItem; reason: string }[] = [];
  for (const it of items) {
    const why = leakReason(it, pub, opts);
    if (why) removed.push({ item: it, reason: why });
    else kept.push(it);
  }
  return { kept, removed };
}
