import * as chrono from 'chrono-node';
import type { Period, TextSpan } from './types';

const YEAR = '(19[5-9]\\d|20[0-4]\\d)';
const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twenty: 20, thirty: 30 };

/** Meteorological seasons (northern hemisphere): first and last month, 1-based. Winter spans the year end. */
const SEASONS: Record<string, [number, number]> = {
  spring: [3, 5], summer: [6, 8], autumn: [9, 11], fall: [9, 11], winter: [12, 2],
  monsoon: [6, 9], 'dry season': [11, 4], 'wet season': [5, 10],
};

function iso(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function lastDay(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function isoOf(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function span(m: RegExpExecArray, group = 0): TextSpan {
  const text = m[group];
  const start = m.index + (group === 0 ? 0 : m[0].indexOf(text));
  return { text, start, end: start + text.length };
}

function seasonPeriod(season: string, year: number, m: RegExpExecArray, yearIsEnd = false): Period {
  const [a, b] = SEASONS[season];
  const wraps = b < a;
  // "winter 2019" = Dec 2019 – Feb 2020; "winter 2019/20" likewise; `yearIsEnd` when the year names the second year.
  const y0 = wraps && yearIsEnd ? year - 1 : year;
  const y1 = wraps ? y0 + 1 : y0;
  return { start: iso(y0, a, 1), end: iso(y1, b, lastDay(y1, b)), rule: 'season', granularity: 'season', span: span(m) };
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_RE = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const monthOf = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3))) + 1;
/** Words that join the two ends of a range ("2003 to 2010", "March – May"). */
const RANGE_JOIN = /\s+(?:to|until|till|through|and)\s+|\s*[–—]\s*/i;

/**
 * Why the period of `text` cannot be trusted, or null: a date that does not exist ("2020-13-45", "February 30
 * 2021") or a range that ends before it starts ("between 2025 and 2010", "from 2021-05-01 to 2020-01-01"). Without
 * this check the other rules would read something else into the text (chrono-node drops impossible dates, so
 * "from 2020-13-45" became "since 2020"; it swaps reversed ranges; a reversed year range fell back to its first year).
 */
export function periodProblem(text: string, now: Date = new Date(), found: chrono.ParsedResult[] = chrono.parse(text, now, { forwardDate: false })): string | null {
  const lower = text.toLowerCase();
  for (const m of lower.matchAll(/(?<![\w.-])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\w.-]|\.\d)/g)) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (mo < 1 || mo > 12 || d < 1 || d > lastDay(y, mo)) return `${m[0]} is not a date (${mo < 1 || mo > 12 ? `month ${mo}` : `day ${d} of ${MONTHS[mo - 1]} ${y}`})`;
  }
  const dayMonth = [
    new RegExp(`\\b${MONTH_RE}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'g'),
    new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_RE}\\.?,?\\s+(\\d{4})\\b`, 'g'),
  ];
  for (const [i, re] of dayMonth.entries())
    for (const m of lower.matchAll(re)) {
      const mo = monthOf(i === 0 ? m[1] : m[2]);
      const d = Number(i === 0 ? m[2] : m[1]);
      const y = Number(m[3]);
      if (d < 1 || d > lastDay(y, mo)) return `${text.slice(m.index!, m.index! + m[0].length)} is not a date (${MONTHS[mo - 1]} ${y} has ${lastDay(y, mo)} days)`;
    }
  const years = new RegExp(`\\b(?:from|between)?\\s*${YEAR}\\s*(?:-|–|—|to|and|through|until|till)\\s*${YEAR}\\b`).exec(lower);
  if (years && Number(years[2]) < Number(years[1])) return `"${years[0].trim()}" ends before it starts`;
  // chrono-node puts the earlier end first: parse each end of a range on its own to see the order the query gave
  for (const r of found) {
    if (!r.end) continue;
    const ends = r.text.split(RANGE_JOIN);
    if (ends.length !== 2) continue;
    // only ends that name their year: "March to May 2020" borrows the year of its second end
    const [a, b] = ends.map((e) => {
      const k = chrono.parse(e, now, { forwardDate: false })[0]?.start;
      return k && k.isCertain('year') ? k.date().getTime() : undefined;
    });
    if (a !== undefined && b !== undefined && b < a) return `"${r.text}" ends before it starts`;
  }
  return null;
}

/**
 * The time period a query talks about, or null (also when `periodProblem` finds an impossible date or a reversed
 * range: no period is better than another one). Rules, most specific first: explicit dates (chrono-node), seasons
 * with a year ("summer 2019", "winter 2019/2020": meteorological seasons, northern hemisphere), year ranges
 * ("2003-2010", "from 2003 to 2010", "between 2003 and 2010"), "since 2015" (to `now`), "last/past N years|months",
 * months and month ranges with a year (chrono-node: "July 2021", "March to May 2020"), decades ("the 2000s"), a bare
 * year ("in 2018"), and "latest/recent/today" (yesterday, the latest full day of imagery). chrono-node alone misses
 * seasons, year ranges, "since" and bare years, which is why those rules are ours.
 */
export function parsePeriod(text: string, now: Date = new Date()): Period | null {
  return parsePeriodChecked(text, now).period;
}

/** `parsePeriod` with the reason a period was left out (`periodProblem`), null when none was. */
export function parsePeriodChecked(text: string, now: Date = new Date()): { period: Period | null; ignored: string | null } {
  const found = chrono.parse(text, now, { forwardDate: false });
  const ignored = periodProblem(text, now, found);
  if (ignored !== null) return { period: null, ignored };
  const period = periodOf(text, now, found);
  // an open period that starts after today ("since 2030") would end before it starts: no period, said so
  if (period && period.start > period.end)
    return { period: null, ignored: `"${period.span.text}" starts after ${period.end === isoOf(now) ? `today (${period.end})` : `it ends (${period.end})`}` };
  return { period, ignored: null };
}

/** What a period rule reads: the query in lower case, `now`, and chrono-node's results on the query. */
type PeriodRule = (lower: string, now: Date, found: chrono.ParsedResult[]) => Period | null;

/** Full dates (day known): chrono-node. */
const chronoDate: PeriodRule = (_lower, _now, found) => {
  for (const r of found) {
    const k = r.start;
    if (k.isCertain('day') && k.isCertain('month') && k.isCertain('year')) {
      const s = isoOf(new Date(Date.UTC(k.get('year')!, k.get('month')! - 1, k.get('day')!)));
      const e = r.end && r.end.isCertain('day') ? isoOf(new Date(Date.UTC(r.end.get('year')!, r.end.get('month')! - 1, r.end.get('day')!))) : s;
      return { start: s, end: e, rule: 'chrono-date', granularity: s === e ? 'day' : 'span', span: { text: r.text, start: r.index, end: r.index + r.text.length } };
    }
  }
  return null;
};

/** Seasons: "summer 2019", "summer of 2019", "winter 2019/2020", "2019 monsoon". */
const season: PeriodRule = (lower) => {
  const seasonNames = Object.keys(SEASONS).sort((a, b) => b.length - a.length).join('|');
  let m = new RegExp(`\\b(${seasonNames})(?: season)?(?: of)?\\s+${YEAR}(?:\\s*[/-]\\s*(\\d{2,4}))?\\b`).exec(lower);
  if (m) return seasonPeriod(m[1], Number(m[2]), m);
  m = new RegExp(`\\b${YEAR}(?:\\s*[/-]\\s*(\\d{2,4}))?\\s+(${seasonNames})\\b`).exec(lower);
  if (m) return seasonPeriod(m[3], m[2] ? Number(m[1]) : Number(m[1]), m);
  return null;
};

/** Year ranges: "2003-2010", "from 2003 to 2010", "between 2003 and 2010". */
const yearRange: PeriodRule = (lower) => {
  const m = new RegExp(`\\b(?:from|between)?\\s*${YEAR}\\s*(?:-|–|—|to|and|through|until|till)\\s*${YEAR}\\b`).exec(lower);
  if (m && Number(m[2]) >= Number(m[1])) {
    return { start: iso(Number(m[1]), 1, 1), end: iso(Number(m[2]), 12, 31), rule: 'year-range', granularity: 'span', span: { ...span(m), text: m[0].trim(), start: m.index + (m[0].length - m[0].trimStart().length) } };
  }
  return null;
};

/** "since 2015", "after 2015", "from 2015 onwards", "2015 to present": to `now`. */
const since: PeriodRule = (lower, now) => {
  const m = new RegExp(`\\b(?:since|after|from)\\s+${YEAR}\\b(?:\\s+(?:on(?:wards?)?|to (?:the )?present|to date|until now))?`).exec(lower)
    ?? new RegExp(`\\b${YEAR}\\s*(?:-|to)\\s*(?:present|now|today)\\b`).exec(lower);
  if (!m) return null;
  const y = Number(m[1]);
  return { start: iso(y, 1, 1), end: isoOf(now), rule: 'since', granularity: 'span', span: span(m) };
};

/** "last 10 years", "past two decades", "last 6 months". */
const lastN: PeriodRule = (lower, now) => {
  const m = /\b(?:last|past|previous)\s+(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty)\s+(years?|decades?|months?)\b/.exec(lower);
  if (!m) return null;
  const n = NUMBER_WORDS[m[1]] ?? Number(m[1]);
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const start = new Date(end);
  if (m[2].startsWith('month')) start.setUTCMonth(start.getUTCMonth() - n);
  else start.setUTCFullYear(start.getUTCFullYear() - n * (m[2].startsWith('decade') ? 10 : 1));
  return { start: isoOf(start), end: isoOf(end), rule: 'last-n', granularity: 'span', span: span(m) };
};

/** Months and month ranges with a year: chrono-node ("July 2021", "March to May 2020"). */
const chronoMonth: PeriodRule = (_lower, _now, found) => {
  for (const r of found) {
    const k = r.start;
    if (k.isCertain('month') && (k.isCertain('year') || (r.end?.isCertain('year') ?? false) || /\b(19|20)\d\d\b/.test(r.text))) {
      const y0 = k.get('year')!;
      const m0 = k.get('month')!;
      const e = r.end ?? k;
      const y1 = e.get('year')!;
      const m1 = e.get('month')!;
      return {
        start: iso(y0, m0, 1), end: iso(y1, m1, lastDay(y1, m1)), rule: r.end ? 'chrono-month-range' : 'chrono-month',
        granularity: r.end ? 'span' : 'month', span: { text: r.text, start: r.index, end: r.index + r.text.length },
      };
    }
  }
  return null;
};

/** Decades: "the 2000s", "1990s". */
const decade: PeriodRule = (lower) => {
  const m = /\b(?:the\s+)?(19[5-9]0|20[0-4]0)s\b/.exec(lower);
  if (!m) return null;
  const y = Number(m[1]);
  return { start: iso(y, 1, 1), end: iso(y + 9, 12, 31), rule: 'decade', granularity: 'span', span: span(m) };
};

/** A bare year. */
const bareYear: PeriodRule = (lower) => {
  const m = new RegExp(`(?<![\\w.-])${YEAR}(?![\\w.-]|\\.\\d)`).exec(lower);
  if (!m) return null;
  const y = Number(m[1]);
  return { start: iso(y, 1, 1), end: iso(y, 12, 31), rule: 'year', granularity: 'year', span: span(m) };
};

/** "latest", "today", "right now", "current": the latest full day. */
const latest: PeriodRule = (lower, now) => {
  const m = /\b(?:latest|most recent|today|yesterday|right now|current|currently|this week)\b/.exec(lower);
  if (!m) return null;
  const y = new Date(now.getTime() - 86_400_000);
  return { start: isoOf(y), end: isoOf(y), rule: 'latest', granularity: 'day', span: span(m) };
};

/** The period rules of `parsePeriod`, most specific first: the first that matches answers. */
const PERIOD_RULES: readonly PeriodRule[] = [chronoDate, season, yearRange, since, lastN, chronoMonth, decade, bareYear, latest];

function periodOf(text: string, now: Date, found: chrono.ParsedResult[]): Period | null {
  const lower = text.toLowerCase();
  for (const rule of PERIOD_RULES) {
    const p = rule(lower, now, found);
    if (p) return p;
  }
  return null;
}

/** A single representative day of a period (for imagery): the day itself, else the middle of the period. */
export function representativeDay(p: Period): string {
  if (p.start === p.end) return p.start;
  const a = Date.parse(`${p.start}T00:00:00Z`);
  const b = Date.parse(`${p.end}T00:00:00Z`);
  return isoOf(new Date(a + Math.floor((b - a) / 86_400_000 / 2) * 86_400_000));
}
