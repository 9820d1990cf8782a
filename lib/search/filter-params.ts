/**
 * Search filters as the API and the CLI give them (CMR's parameter names): their types and limits, the parsing of
 * each parameter with errors that name it, and their canonical form. Applying them to a ranking: filters.ts.
 */
import { gcmdAliasOf } from '../data/gcmd-infer';
import type { BBox, Corpus } from '../data/types';
import { EoError } from '../errors';
import type { QueryConstraints } from './constraints';

/** Filters of one search (`SearchOptions.filters`). Absent or empty fields filter nothing. */
export interface SearchFilters {
  /** DAACs (CMR provider ids, e.g. `GES_DISC`); a dataset of any of them matches. */
  provider?: string[];
  /** Platform names (e.g. `Aqua`, `SUOMI-NPP`); any one matches (see the matching rule above). */
  platform?: string[];
  /** Instrument names (e.g. `MODIS`, `OMI`); any one matches. */
  instrument?: string[];
  /** Processing levels, normalised (`3`, `2G`, `1B`); any one matches. */
  processing_level_id?: string[];
  /** Inclusive range of ISO dates or date-times (with a zone); null = open on that side. */
  temporal?: { start: string | null; end: string | null };
  /** `[west, south, east, north]` in degrees; west > east crosses the antimeridian. */
  bounding_box?: BBox;
}

/** Parsed constraints of the question to leave out of the ranking (`SearchOptions.ignore`). */
export interface IgnoreParsed {
  /** Ignore the question's period. Default false. */
  period?: boolean;
  /** Place names (as the router names them, case-insensitive) to ignore. Default none. */
  places?: string[];
  /** Named identifiers (their text, case-insensitive) to ignore: read by the identifier rule. Default none. */
  identifiers?: string[];
}

/** What the filters did to one search (`SearchResponse.retrieval.filters`). */
export interface FilterEffect {
  /** The filters as applied (normalised values). */
  applied: SearchFilters;
  /** Datasets with a positive score that the filters removed. */
  removed: number;
  /** Datasets with a positive score that passed them. */
  kept: number;
}

/** Limits of the filter parameters (`parseFilterParams`). */
export const FILTER_LIMITS = {
  /** Values per list parameter (repeated and comma-separated together). */
  maxValues: 20,
  /** Characters per value. */
  maxValueChars: 80,
} as const;

/** The list parameters, by their CMR names. */
export const LIST_FILTERS = ['provider', 'platform', 'instrument', 'processing_level_id'] as const;
export type ListFilter = (typeof LIST_FILTERS)[number];

/** The keys a filter's names match: each name's `nameKey`, and that of the GCMD name an alias stands for ("L8" → LANDSAT-8, "SNPP" → SUOMI-NPP). */
export function filterNameKeys(field: 'platforms' | 'instruments', names: readonly string[]): string[] {
  return [...new Set(names.flatMap((n) => [nameKey(n), ...[gcmdAliasOf(field, n)].filter((a): a is string => a !== null).map(nameKey)]))];
}

/** Comparison key of a platform or instrument name: lower case, runs of anything but letters/digits → one space. */
export function nameKey(name: string): string {
  return name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, ' ').trim();
}

/**
 * A processing level's id, normalised: "L3", "Level 3", "level-3", "3" → `3`; "l2g" → `2G`; null when the text is
 * not a level (a digit, then up to two letters/digits).
 */
export function normaliseProcessingLevel(s: string | null | undefined): string | null {
  if (!s) return null;
  const m = /^\s*(?:level|lvl|l)?\s*[-_ ]?\s*(\d[a-z0-9]{0,2})\s*$/i.exec(s);
  return m ? m[1].toUpperCase() : null;
}

/** An error naming the filter parameter; `details.parameter` carries it for the service's 400. */
export function filterError(parameter: string, message: string): EoError {
  return new EoError('INVALID_ARGUMENT', `${parameter}: ${message}`, { parameter });
}

/** `s` cut to `n` characters for an error message (a message never echoes long input). */
export function short(s: string, n = 24): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** One end of a temporal range: an ISO date, or a date-time (UTC when it has no zone, as CMR). Throws when unreadable. */
function isoEnd(s: string, parameter: string): string {
  const m = ISO.exec(s);
  if (!m) throw filterError(parameter, `"${short(s)}" is not an ISO date or date-time (e.g. 2015-01-01 or 2015-01-01T00:00:00Z)`);
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  const d = new Date(`${day}T00:00:00Z`);
  if (!Number.isFinite(d.getTime()) || d.toISOString().slice(0, 10) !== day) throw filterError(parameter, `${short(s)} is not a calendar date`);
  if (m[4] === undefined) return day;
  const out = m[7] ? s : `${s}Z`;
  if (!Number.isFinite(Date.parse(out))) throw filterError(parameter, `${short(s)} is not a valid time`);
  return out;
}

/** Milliseconds of a range end (a date end counts to the end of its day). */
function endMs(s: string, isEnd: boolean): number {
  return s.length === 10 ? Date.parse(`${s}T00:00:00Z`) + (isEnd ? 86_399_999 : 0) : Date.parse(s);
}

/**
 * CMR's `temporal=start,end`: ISO dates or date-times, either side empty for an open range (not both). Throws an
 * `INVALID_ARGUMENT` naming the parameter when a side cannot be read or the range is reversed.
 */
export function parseTemporalFilter(s: string, parameter = 'temporal'): NonNullable<SearchFilters['temporal']> {
  const parts = s.split(',').map((p) => p.trim());
  if (parts.length !== 2) throw filterError(parameter, 'give start,end (ISO dates or date-times; leave a side empty for an open range), e.g. 2015-01-01,2020-12-31');
  const [a, b] = parts;
  if (a === '' && b === '') throw filterError(parameter, 'give a start, an end or both');
  const start = a === '' ? null : isoEnd(a, parameter);
  const end = b === '' ? null : isoEnd(b, parameter);
  if (start && end && endMs(start, false) > endMs(end, true)) throw filterError(parameter, `the start ${short(start)} is after the end ${short(end)}`);
  return { start, end };
}

/** CMR's `temporal` text of a range (`start,end`, empty for an open side). */
export function formatTemporalFilter(t: NonNullable<SearchFilters['temporal']>): string {
  return `${t.start ?? ''},${t.end ?? ''}`;
}

/**
 * CMR's `bounding_box=west,south,east,north` (degrees): longitudes in [-180, 180], latitudes in [-90, 90], south ≤
 * north; west > east is a box across the antimeridian. Throws an `INVALID_ARGUMENT` naming the parameter.
 */
export function parseBoundingBox(s: string, parameter = 'bounding_box'): BBox {
  const parts = s.split(',').map((p) => p.trim());
  if (parts.length !== 4) throw filterError(parameter, 'give four numbers west,south,east,north in degrees, e.g. -10,35,30,60');
  const v = parts.map((p) => (/^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(p) ? Number(p) : NaN));
  const names = ['west', 'south', 'east', 'north'];
  v.forEach((x, i) => {
    if (!Number.isFinite(x)) throw filterError(parameter, `${names[i]} "${short(parts[i], 12)}" is not a number`);
  });
  const [w, so, e, n] = v;
  for (const [x, i] of [[w, 0], [e, 2]] as const) if (x < -180 || x > 180) throw filterError(parameter, `${names[i]} ${x} is out of range (longitudes lie in -180..180)`);
  for (const [x, i] of [[so, 1], [n, 3]] as const) if (x < -90 || x > 90) throw filterError(parameter, `${names[i]} ${x} is out of range (latitudes lie in -90..90)`);
  if (so > n) throw filterError(parameter, `south ${so} is north of north ${n}`);
  return [w, so, e, n];
}

/** Every value of a list parameter: repeated, comma-separated, or both; trimmed, empty ones dropped. */
function listValues(raw: unknown, parameter: string): string[] {
  if (raw === undefined || raw === null) return [];
  const items = Array.isArray(raw) ? raw : [raw];
  const out: string[] = [];
  for (const it of items) {
    if (typeof it !== 'string') throw filterError(parameter, 'give text values');
    for (const v of it.split(',')) if (v.trim() !== '') out.push(v.trim());
  }
  if (out.length > FILTER_LIMITS.maxValues) throw filterError(parameter, `too many values (${out.length}; at most ${FILTER_LIMITS.maxValues})`);
  for (const v of out) {
    if (v.length > FILTER_LIMITS.maxValueChars) throw filterError(parameter, `a value is too long (${v.length} characters; at most ${FILTER_LIMITS.maxValueChars})`);
    if (/[\u0000-\u001F\u007F<>"`]/.test(v)) throw filterError(parameter, 'a value contains control characters or markup');
  }
  return [...new Set(out)];
}

/** A single-valued parameter (given at most once, not empty); undefined when absent or empty. */
function singleValue(raw: unknown, parameter: string): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const items = (Array.isArray(raw) ? raw : [raw]).filter((x) => !(typeof x === 'string' && x.trim() === ''));
  if (items.length === 0) return undefined;
  if (items.length > 1) throw filterError(parameter, 'give it once');
  if (typeof items[0] !== 'string') throw filterError(parameter, 'give a text value');
  if (items[0].length > 200) throw filterError(parameter, `the value is too long (${items[0].length} characters; at most 200)`);
  return items[0].trim();
}

/** DAACs of a corpus, most datasets first (the provider list an error message shows a few of). */
const providersByCorpus = new WeakMap<readonly object[], string[]>();
export function corpusProviders(corpus: Pick<Corpus, 'datasets'>): string[] {
  let p = providersByCorpus.get(corpus.datasets);
  if (!p) {
    const n = new Map<string, number>();
    for (const d of corpus.datasets) n.set(d.daac, (n.get(d.daac) ?? 0) + 1);
    p = [...n].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k]) => k);
    providersByCorpus.set(corpus.datasets, p);
  }
  return p;
}

/**
 * Filters and ignored constraints from request parameters named as CMR's (`provider`, `platform`, `instrument`,
 * `processing_level_id`: repeatable and/or comma-separated; `temporal`, `bounding_box`: once; `ignore`: repeatable,
 * `period`, `place:<name>` or `identifier:<text>`). One parser for the service and `eo search`. Throws an
 * `INVALID_ARGUMENT` whose message starts with the parameter's name and whose `details.parameter` names it: an
 * unknown provider (a few valid ones listed), a level that is not one, an unreadable or reversed temporal range, a
 * box out of range, too many or too long values.
 */
export function parseFilterParams(params: Record<string, unknown>, corpus: Pick<Corpus, 'datasets'>): { filters: SearchFilters; ignore: IgnoreParsed } {
  const filters: SearchFilters = {};
  const provider = listValues(params.provider, 'provider');
  if (provider.length) {
    const known = corpusProviders(corpus);
    const byUpper = new Map(known.map((k) => [k.toUpperCase(), k]));
    filters.provider = [...new Set(provider.map((p) => {
      const k = byUpper.get(p.toUpperCase());
      if (!k) throw filterError('provider', `unknown provider "${short(p)}" (providers are DAAC ids such as ${known.slice(0, 5).join(', ')})`);
      return k;
    }))];
  }
  const platform = listValues(params.platform, 'platform');
  if (platform.length) filters.platform = platform;
  const instrument = listValues(params.instrument, 'instrument');
  if (instrument.length) filters.instrument = instrument;
  const levels = listValues(params.processing_level_id, 'processing_level_id');
  if (levels.length) {
    const ids = levels.map((l) => {
      const id = normaliseProcessingLevel(l);
      if (!id) throw filterError('processing_level_id', `"${short(l)}" is not a processing level (e.g. 2, L3, Level 1B)`);
      return id;
    });
    filters.processing_level_id = [...new Set(ids)];
  }
  const temporal = singleValue(params.temporal, 'temporal');
  if (temporal !== undefined) filters.temporal = parseTemporalFilter(temporal);
  const box = singleValue(params.bounding_box, 'bounding_box');
  if (box !== undefined) filters.bounding_box = parseBoundingBox(box);
  const ignore: IgnoreParsed = {};
  for (const v of listIgnore(params.ignore)) {
    if (v === 'period') ignore.period = true;
    else if (v.startsWith('place:') && v.length > 6) (ignore.places ??= []).push(v.slice(6).trim());
    else if (v.startsWith('identifier:') && v.length > 11) (ignore.identifiers ??= []).push(v.slice(11).trim());
    else throw filterError('ignore', `"${short(v)}" is not period, place:<name> or identifier:<text>`);
  }
  return { filters, ignore };
}

/** `ignore` values: repeatable, NOT comma-split (a place name may hold a comma). */
function listIgnore(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  const items = (Array.isArray(raw) ? raw : [raw]).map((x) => {
    if (typeof x !== 'string') throw filterError('ignore', 'give text values');
    return x.trim();
  }).filter((x) => x !== '');
  if (items.length > FILTER_LIMITS.maxValues) throw filterError('ignore', `too many values (${items.length}; at most ${FILTER_LIMITS.maxValues})`);
  for (const v of items) if (v.length > FILTER_LIMITS.maxValueChars + 11) throw filterError('ignore', `a value is too long (${v.length} characters)`);
  return [...new Set(items)];
}

/** True when the filters filter anything. */
export function hasFilters(f: SearchFilters | null | undefined): f is SearchFilters {
  return !!f && (LIST_FILTERS.some((k) => (f[k]?.length ?? 0) > 0) || !!f.temporal || !!f.bounding_box);
}

/** The filters in one canonical form (sorted values, normalised names): equal filters give equal text (a cache key). */
export function canonicalFilters(f: SearchFilters | null | undefined): string {
  if (!hasFilters(f)) return '';
  const o: Record<string, unknown> = {};
  if (f.provider?.length) o.provider = [...f.provider].sort();
  if (f.platform?.length) o.platform = [...new Set(f.platform.map(nameKey))].sort();
  if (f.instrument?.length) o.instrument = [...new Set(f.instrument.map(nameKey))].sort();
  if (f.processing_level_id?.length) o.processing_level_id = [...new Set(f.processing_level_id.map((l) => normaliseProcessingLevel(l) ?? l))].sort();
  if (f.temporal) o.temporal = formatTemporalFilter(f.temporal);
  if (f.bounding_box) o.bounding_box = f.bounding_box.join(',');
  return JSON.stringify(o);
}

/** The ignored constraints in one canonical form (a cache key). */
export function canonicalIgnore(i: IgnoreParsed | null | undefined): string {
  if (!i) return '';
  const low = (xs?: string[]) => [...new Set((xs ?? []).map((x) => x.toLowerCase()))].sort();
  const o = { period: !!i.period, places: low(i.places), identifiers: low(i.identifiers) };
  return o.period || o.places.length || o.identifiers.length ? JSON.stringify(o) : '';
}

/** The question's constraints without the ignored ones (period, places by name, case-insensitive). */
export function withoutIgnored(asked: QueryConstraints, ignore: IgnoreParsed | null | undefined): QueryConstraints {
  if (!ignore) return asked;
  const places = new Set((ignore.places ?? []).map((p) => p.toLowerCase()));
  return { period: ignore.period ? null : asked.period, places: asked.places.filter((p) => !places.has(p.name.toLowerCase())) };
}
