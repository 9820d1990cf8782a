import type { RepairCounts } from './types';

/** A RepairCounts with every count 0. */
export function emptyRepairs(): RepairCounts {
  return {
    codeFence: 0, thinkRemoved: 0, surroundingText: 0, bareArray: 0, idList: 0, stringIds: 0, nonInteger: 0, outOfRange: 0,
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

/**
 * The plain id lists rank_llm reads, most specific first: RankGPT's `[3] > [1] > [2]` (also `[3], [1]`), a `>` chain
 * of bare ids anywhere in the text, and a comma list that is a whole line (after an optional short label such as
 * `Ranking:`), so that numbers in a sentence ("between 1, 2 and 3") are never taken for a ranking.
 */
const RANKGPT_CHAIN = /\[\s*\d+\s*\](?:\s*(?:>|,)\s*\[\s*\d+\s*\])+/g;
const ID_CHAIN = /(?<!\d|\d\.)\d+(?:\s*>\s*\d+)+(?!\d|\.\d)/g;
const ID_LINE = /^[^\S\n]*(?:[A-Za-z][A-Za-z ]{0,30}:[^\S\n]*)?(\d+(?:[^\S\n]*,[^\S\n]*\d+)+)[^\S\n]*\.?[^\S\n]*$/gm;

/** The last match of a plain id list (one of the forms above), as its ids and where it sits; null when none. */
function lastIdList(text: string, form: RegExp): { ids: number[]; start: number; end: number } | null {
  let last: RegExpExecArray | null = null;
  for (const m of text.matchAll(form)) last = m;
  if (!last) return null;
  return { ids: (last[0].match(/\d+/g) ?? []).map(Number), start: last.index!, end: last.index! + last[0].length };
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
 * anywhere in the text (reasoning before it, prose after it), else RankGPT's `[3] > [1] > [2]`, else a bare array
 * of ids, else a `3 > 1 > 2` chain or a `3, 1, 2` line (the last of each: the final answer after reasoning);
 * numeric strings are converted; non-integers, ids outside 1..K and duplicates are dropped. Empty output, or one with
 * no ranking in any of these forms → `failed` (the caller keeps the retrieval order; nothing is guessed). Window
 * items the answer left out are counted as `missing`.
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
  const surrounded = (start: number, end: number) => {
    if (body.slice(0, start).trim() !== '' || body.slice(end).trim() !== '') repairs.surroundingText = 1;
  };
  const idList = (form: RegExp) => {
    const list = lastIdList(body, form);
    if (!list) return false;
    repairs.idList = 1;
    entries = list.ids;
    surrounded(list.start, list.end);
    return true;
  };
  const jsonObjects = balancedJsonCandidates(body, '{');
  const objects = jsonObjects.filter((o) => rankedField(o.value) !== null);
  if (objects.length > 0) {
    const o = objects[objects.length - 1];
    entries = rankedField(o.value);
    surrounded(o.start, o.end);
  } else if (!idList(RANKGPT_CHAIN)) {
    // RankGPT's "[3] > [1]" first: each "[3]" alone is a bare JSON array. Then a bare top-level array only: arrays
    // inside some other JSON object (e.g. {"order": [...]}) are not ids
    const arrays = balancedJsonCandidates(body, '[').filter(
      (a) => Array.isArray(a.value) && (a.value as unknown[]).length > 0 && !jsonObjects.some((o) => o.start < a.start && o.end >= a.end),
    );
    if (arrays.length > 0) {
      repairs.bareArray = 1;
      const a = arrays[arrays.length - 1];
      entries = a.value as unknown[];
      surrounded(a.start, a.end);
    } else if (!jsonObjects.length) idList(ID_CHAIN) || idList(ID_LINE);
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
