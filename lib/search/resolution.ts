/**
 * Temporal resolutions a query or a dataset's title names ("half hourly precipitation", "GPM IMERG Final
 * Precipitation L3 1 day …"), and the demotion of a dataset whose title names only other resolutions than the query
 * asks for: a query for half-hourly rain should not get the daily products first because their abstracts say
 * "half-hourly" again and again. A title that names no resolution is never demoted (most titles name none).
 * Measured on the style benchmark's dev half before it becomes a query rule (`bench/resolution-rule.cjs`).
 */
import type { Run, RunEntry } from '../metrics/types';

export type TemporalResolution = 'half-hourly' | 'hourly' | '3-hourly' | 'daily' | '8-day' | 'monthly' | 'yearly';

/** How each resolution is written, in queries and titles alike (case-insensitive). */
export const TEMPORAL_RESOLUTION_PATTERNS: Readonly<Record<TemporalResolution, RegExp>> = {
  'half-hourly': /\bhalf[- ]?hourly\b|\b30[- ]?min(?:ute)?s?\b/i,
  // not the "hourly" of "half hourly" or "3-hourly"
  hourly: /(?<!half[- ]?|\b3[- ]?)\bhourly\b|\b1[- ]?hour\b/i,
  '3-hourly': /\b3[- ]?hour(?:ly|s)?\b/i,
  daily: /\bdaily\b|\b1[- ]?day\b/i,
  '8-day': /\b8[- ]?day\b/i,
  monthly: /\bmonthly\b|\b1[- ]?month\b/i,
  yearly: /\byearly\b|\bannual\b|\b1[- ]?year\b/i,
};

/** The temporal resolutions a text names, in `TEMPORAL_RESOLUTION_PATTERNS` order. */
export function namedResolutions(text: string): TemporalResolution[] {
  return (Object.keys(TEMPORAL_RESOLUTION_PATTERNS) as TemporalResolution[]).filter((r) => TEMPORAL_RESOLUTION_PATTERNS[r].test(text));
}

/**
 * Whether a title names resolutions and none of those the query asks for (then the dataset is demoted). False when
 * either names none.
 */
export function otherResolutionOnly(asked: readonly TemporalResolution[], title: readonly TemporalResolution[]): boolean {
  return asked.length > 0 && title.length > 0 && !title.some((r) => asked.includes(r));
}

/**
 * A run with the score of every dataset whose title names only other resolutions than the query asks for multiplied
 * by `factor` in (0, 1] (a run's scores are ≥ 0 here: fused min-max scores; the metrics sort the entries).
 * `queryText(qid)` and `titleOf(docId)` give the texts.
 */
export function demoteOtherResolutions(run: Run, queryText: (qid: string) => string, titleOf: (docId: string) => string, factor: number): Run {
  if (!(factor > 0 && factor <= 1)) throw new RangeError(`demoteOtherResolutions: factor must be in (0, 1], got ${factor}`);
  const out: Run = new Map();
  const titles = new Map<string, TemporalResolution[]>();
  for (const [qid, entries] of run) {
    const asked = namedResolutions(queryText(qid));
    if (!asked.length || factor === 1) {
      out.set(qid, entries);
      continue;
    }
    const moved: RunEntry[] = entries.map((e) => {
      let t = titles.get(e.docId);
      if (!t) titles.set(e.docId, (t = namedResolutions(titleOf(e.docId))));
      return otherResolutionOnly(asked, t) ? { ...e, score: e.score * factor } : e;
    });
    out.set(qid, moved);
  }
  return out;
}
