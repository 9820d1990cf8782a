import type { RepairCounts } from './types';

/** A RepairCounts with every count 0. */
export function emptyRepairs(): RepairCounts {
  return {
    codeFence: 0, thinkRemoved: 0, surroundingText: 0, bareArray: 0, stringIds: 0, nonInteger: 0, outOfRange: 0,
    duplicates: 0, missing: 0, empty: 0, failed: 0,
  };
}

/** Sum repair counts (e.g. over all queries of one model). */
export function addRepairs(into: RepairCounts, add: RepairCounts): RepairCounts {
  for (const k of Object.keys(into) as (keyof RepairCounts)[]) into[k] += add[k];
  return into;
}

export interface ParsedRanking {
  /** Valid 1-based ids in the answer's order (duplicates, out-of-range and non-integer entries removed). */
  ranked: number[];
  repairs: RepairCounts;
  /** True when nothing usable was found: the window keeps its retrieval order. */
  failed: boolean;
}

/** Every balanced `{…}` / `[…]` substring starting at an opening bracket (string-aware), in text order. */
function balancedJsonCandidates(text: string, open: '{' | '['): { start: number; end: number; value: unknown }[] {
  const close = open === '{' ? '}' : ']';
  const out: { start: number; end: number; value: unknown }[] = [];
  for (let s = text.indexOf(open); s >= 0; s = text.indexOf(open, s + 1)) {
    let depth = 0;
    let inStr = false;
    for (let i = s; i < text.length; i++) {
      const c = text[i];
      if (inStr) {
        if (c === '\\') i++;
        else if (c === '"') inStr = false;
        continue;
      }
      if (c === '"') inStr = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) {
          if (c === close) {
            try {
              out.push({ start: s, end: i + 1, value: JSON.parse(text.slice(s, i + 1)) });
            } catch {
              /* not JSON */
            }
          }
          break;
        }
      }
    }
  }
  return out;
}

function rankedField(v: unknown): unknown[] | null {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const r = (v as Record<string, unknown>).ranked;
    if (Array.isArray(r)) return r;
  }
  return null;
}

/**
 * Parse a listwise answer into window ids, repairing what can be repaired and counting every repair:
 * `<think>` reasoning is removed; JSON is taken from a code fence, or the last `{"ranked": [...]}` object found
 * anywhere in the text (reasoning before it, prose after it), else a bare array of ids; numeric strings are
 * converted; non-integers, ids outside 1..K and duplicates are dropped. Empty or non-JSON output → `failed`
 * (the caller keeps the retrieval order). Window items the answer left out are counted as `missing`.
 */
export function parseRanking(text: string, k: number): ParsedRanking {
  const repairs = emptyRepairs();
  const fail = (): ParsedRanking => {
    repairs.failed = 1;
    repairs.missing = k;
    return { ranked: [], repairs, failed: true };
  };
  let body = text ?? '';
  if (body.trim() === '') {
    repairs.empty = 1;
    return fail();
  }
  if (/<think>/i.test(body)) {
    repairs.thinkRemoved = 1;
    const closed = body.replace(/<think>[\s\S]*?<\/think>/gi, '');
    // an unterminated <think>: keep what follows the last closing tag, else everything (the JSON may sit inside)
    body = /<think>/i.test(closed) ? closed.replace(/<think>/gi, '') : closed;
  }
  const fence = /```(?:json|JSON)?\s*([\s\S]*?)```/g;
  let fenced: string | null = null;
  for (let m = fence.exec(body); m; m = fence.exec(body)) if (/[[{]/.test(m[1])) fenced = m[1];
  if (fenced !== null) {
    repairs.codeFence = 1;
    body = fenced;
  }
  let entries: unknown[] | null = null;
  const objects = balancedJsonCandidates(body, '{').filter((o) => rankedField(o.value) !== null);
  if (objects.length > 0) {
    const o = objects[objects.length - 1];
    entries = rankedField(o.value);
    if (body.slice(0, o.start).trim() !== '' || body.slice(o.end).trim() !== '') repairs.surroundingText = 1;
  } else {
    // a bare top-level array only: arrays inside some other JSON object (e.g. {"order": [...]}) are not ids
    const others = balancedJsonCandidates(body, '{');
    const arrays = balancedJsonCandidates(body, '[').filter(
      (a) => Array.isArray(a.value) && (a.value as unknown[]).length > 0 && !others.some((o) => o.start < a.start && o.end >= a.end),
    );
    if (arrays.length > 0) {
      repairs.bareArray = 1;
      entries = arrays[arrays.length - 1].value as unknown[];
    }
  }
  if (!entries) return fail();
  const ranked: number[] = [];
  const seen = new Set<number>();
  for (const e of entries) {
    let n: number | null = null;
    if (typeof e === 'number') n = e;
    else if (typeof e === 'string' && /^\s*\[?\s*-?\d+(\.\d+)?\s*\]?\s*$/.test(e)) {
      n = Number(e.replace(/[[\]\s]/g, ''));
      repairs.stringIds++;
    }
    if (n === null || !Number.isInteger(n)) {
      repairs.nonInteger++;
      continue;
    }
    if (n < 1 || n > k) {
      repairs.outOfRange++;
      continue;
    }
    if (seen.has(n)) {
      repairs.duplicates++;
      continue;
    }
    seen.add(n);
    ranked.push(n);
  }
  if (ranked.length === 0) return fail();
  repairs.missing = k - ranked.length;
  return { ranked, repairs, failed: false };
}
