import type { TextSpan } from './types';

/** A word of the query with its character offsets. */
interface Token {
  word: string;
  start: number;
  end: number;
}

/** Words = runs of letters and digits, lower-cased (so "Murray-Darling" and "murray darling" are the same phrase). */
function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const re = /[\p{L}\p{N}]+/gu;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) out.push({ word: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length });
  return out;
}

/** A phrase normalised the way queries are: its words joined by one space. */
export function normalizePhrase(phrase: string): string {
  return tokenize(phrase).map((t) => t.word).join(' ');
}

export interface PhraseHit<T> {
  values: T[];
  /** The normalised phrase that matched. */
  phrase: string;
  span: TextSpan;
}

/**
 * Longest-match phrase finder: scans the query's words left to right and at each position takes the longest
 * phrase of the table that starts there; hits never overlap. Matching is on whole words only.
 */
export interface PhraseMatcher<T> {
  find(text: string, accept?: (hit: PhraseHit<T>, original: string) => boolean): PhraseHit<T>[];
  size: number;
}

export function phraseMatcher<T>(entries: Iterable<[string, T]>): PhraseMatcher<T> {
  const table = new Map<string, T[]>();
  let maxLen = 1;
  for (const [phrase, value] of entries) {
    const key = normalizePhrase(phrase);
    if (key === '') continue;
    maxLen = Math.max(maxLen, key.split(' ').length);
    const list = table.get(key);
    if (list) list.push(value);
    else table.set(key, [value]);
  }
  return {
    size: table.size,
    find(text, accept) {
      const toks = tokenize(text);
      const hits: PhraseHit<T>[] = [];
      let i = 0;
      while (i < toks.length) {
        let taken = 0;
        for (let n = Math.min(maxLen, toks.length - i); n >= 1; n--) {
          const key = toks.slice(i, i + n).map((t) => t.word).join(' ');
          const values = table.get(key);
          if (!values) continue;
          const start = toks[i].start;
          const end = toks[i + n - 1].end;
          const hit: PhraseHit<T> = { values, phrase: key, span: { text: text.slice(start, end), start, end } };
          if (accept && !accept(hit, text)) continue;
          hits.push(hit);
          taken = n;
          break;
        }
        i += taken || 1;
      }
      return hits;
    },
  };
}

/** True when two spans share a character. */
export function overlaps(a: TextSpan, b: TextSpan): boolean {
  return a.start < b.end && b.start < a.end;
}
