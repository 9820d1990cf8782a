import { EoError } from '../errors';
import type { BBox, DatasetRecord, Publication, PublicationLink } from './types';

/** Where a record came from, for error messages: `file:line`. */
export interface RecordLocation {
  file: string;
  line: number;
}

type Obj = Record<string, unknown>;

/**
 * The one pattern of a CMR collection concept id (`C<digits>-<PROVIDER>`, e.g. `C1276812863-GES_DISC`); every
 * reader (snapshot, CMR, knowledge graph) checks ids with it.
 */
export const CMR_CONCEPT_ID_PATTERN = /^C\d+-[A-Z0-9_]+$/;

/** Whether `s` is a CMR collection concept id. */
export function isConceptId(s: string): boolean {
  return CMR_CONCEPT_ID_PATTERN.test(s);
}

/** The CMR provider of a concept id (the part after the first `-`), which the snapshot stores as `daac`. */
export function conceptIdProvider(id: string): string {
  return id.slice(id.indexOf('-') + 1);
}

/** Throws DATA_INVALID for one field of one record; each reader binds it to its own way of naming the record. */
export type FieldFail = (field: string, why: string) => never;

/** A FieldFail naming `file:line` and the field. */
export function failAt(loc: RecordLocation): FieldFail {
  return (field, why) => {
    throw new EoError('DATA_INVALID', `${loc.file}:${loc.line}: field "${field}" ${why}`, { ...loc, field });
  };
}

/** A JSON object (not null, not an array). */
export function isPlainObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Options of the optional-field readers. */
export interface FieldReadOptions {
  /** Name used in messages. Default: the key. */
  field?: string;
  /** Trim, and read a blank string (or one matching `placeholder`) as null. Default false (strings as given). */
  blankAsNull?: boolean;
  /** With `blankAsNull`: strings that mean "missing" (e.g. `"N/A"`). Default none. */
  placeholder?: RegExp;
}

/** `o[key]` as a string or null when missing/null; anything else fails. */
export function optStringField(o: Obj, key: string, fail: FieldFail, opts: FieldReadOptions = {}): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') fail(opts.field ?? key, `must be a string or null (got ${Array.isArray(v) ? 'array' : typeof v})`);
  if (!opts.blankAsNull) return v;
  const t = v.trim();
  return t === '' || (opts.placeholder !== undefined && opts.placeholder.test(t)) ? null : t;
}

/** `o[key]` as a non-empty string; anything else fails. */
export function reqStringField(o: Obj, key: string, fail: FieldFail, opts: { field?: string } = {}): string {
  const v = o[key];
  if (typeof v !== 'string' || v.trim() === '') fail(opts.field ?? key, 'is required and must be a non-empty string');
  return v;
}

/** `o[key]` as an array (empty when missing/null); a non-array fails. */
export function optArrayField(o: Obj, key: string, fail: FieldFail, opts: { field?: string } = {}): unknown[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(opts.field ?? key, `must be an array (got ${typeof v})`);
  return v;
}

/** `o[key]` as an array of strings (empty when missing/null). */
export function optStringArrayField(o: Obj, key: string, fail: FieldFail, opts: { field?: string } = {}): string[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) fail(opts.field ?? key, 'must be an array of strings');
  return v as string[];
}

/** `v` as an object, or null when missing/null; anything else fails. */
export function optObjectValue(v: unknown, fail: FieldFail, field: string): Obj | null {
  if (v === undefined || v === null) return null;
  if (!isPlainObject(v)) fail(field, 'must be an object');
  return v;
}

function optInt(o: Obj, f: string, fail: FieldFail): number | null {
  const v = o[f];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(f, 'must be an integer or null');
  return v;
}

function asObject(v: unknown, fail: FieldFail): Obj {
  if (!isPlainObject(v)) fail('(record)', 'must be a JSON object');
  return v;
}

/** `[west, south, east, north]` in degrees: longitudes in [-180, 180], latitudes in [-90, 90], south <= north. */
function optBBox(o: Obj, f: string, fail: FieldFail): BBox | null {
  const v = o[f];
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.length !== 4 || v.some((x) => typeof x !== 'number' || !Number.isFinite(x)))
    fail(f, 'must be [west, south, east, north] (four finite numbers) or null');
  const [w, s, e, n] = v as number[];
  if (Math.abs(w) > 180 || Math.abs(e) > 180) fail(f, `longitudes must lie in [-180, 180] (got west ${w}, east ${e})`);
  if (Math.abs(s) > 90 || Math.abs(n) > 90 || s > n) fail(f, `latitudes must lie in [-90, 90] with south <= north (got south ${s}, north ${n})`);
  return [w, s, e, n];
}

/** Validate one dataset record; optional fields may be missing or null. */
export function validateDataset(v: unknown, loc: RecordLocation): DatasetRecord {
  const fail = failAt(loc);
  const o = asObject(v, fail);
  const id = reqStringField(o, 'id', fail);
  if (!isConceptId(id)) fail('id', `must be a CMR collection concept id like C123-PROVIDER (got "${id}")`);
  const daac = optStringField(o, 'daac', fail) ?? conceptIdProvider(id);
  const complete = o.catalogRecordComplete;
  if (complete !== undefined && complete !== null && typeof complete !== 'boolean') fail('catalogRecordComplete', 'must be a boolean');
  const s = (f: string) => optStringField(o, f, fail);
  const list = (f: string) => optStringArrayField(o, f, fail);
  return {
    id,
    shortName: s('shortName'),
    longName: reqStringField(o, 'longName', fail),
    abstract: s('abstract') ?? '',
    doi: s('doi'),
    daac,
    publisher: s('publisher'),
    temporalStart: s('temporalStart'),
    temporalEnd: s('temporalEnd'),
    bbox: optBBox(o, 'bbox', fail),
    keywords: list('keywords'),
    platforms: list('platforms'),
    instruments: list('instruments'),
    projects: list('projects'),
    processingLevel: s('processingLevel'),
    landingPage: s('landingPage'),
    shortNameSource: s('shortNameSource'),
    catalogRecordComplete: complete === undefined || complete === null ? true : (complete as boolean),
    sources: list('sources'),
  };
}

export function validatePublication(v: unknown, loc: RecordLocation): Publication {
  const fail = failAt(loc);
  const o = asObject(v, fail);
  return {
    id: reqStringField(o, 'id', fail),
    doi: optStringField(o, 'doi', fail),
    title: reqStringField(o, 'title', fail),
    abstract: optStringField(o, 'abstract', fail),
    year: optInt(o, 'year', fail),
    venue: optStringField(o, 'venue', fail),
    source: optStringField(o, 'source', fail),
    sources: optStringArrayField(o, 'sources', fail),
  };
}

export function validateLink(v: unknown, loc: RecordLocation): PublicationLink {
  const fail = failAt(loc);
  const o = asObject(v, fail);
  return {
    publicationId: reqStringField(o, 'publicationId', fail),
    datasetId: reqStringField(o, 'datasetId', fail),
    relation: optStringField(o, 'relation', fail) ?? 'unspecified',
    source: optStringField(o, 'source', fail),
    sources: optStringArrayField(o, 'sources', fail),
  };
}
