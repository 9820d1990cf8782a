import { EoError } from '../errors';
import type { DatasetRecord, Publication, PublicationLink } from './types';

/** Where a record came from, for error messages: `file:line`. */
export interface RecordLocation {
  file: string;
  line: number;
}

type Obj = Record<string, unknown>;

function fail(loc: RecordLocation, field: string, why: string): never {
  throw new EoError('DATA_INVALID', `${loc.file}:${loc.line}: field "${field}" ${why}`, { ...loc, field });
}

function asObject(v: unknown, loc: RecordLocation): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(loc, '(record)', 'must be a JSON object');
  return v as Obj;
}

function reqString(o: Obj, f: string, loc: RecordLocation): string {
  const v = o[f];
  if (typeof v !== 'string' || v.trim() === '') fail(loc, f, 'is required and must be a non-empty string');
  return v;
}

function optString(o: Obj, f: string, loc: RecordLocation): string | null {
  const v = o[f];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') fail(loc, f, `must be a string or null (got ${typeof v})`);
  return v;
}

function optStringArray(o: Obj, f: string, loc: RecordLocation): string[] {
  const v = o[f];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) fail(loc, f, 'must be an array of strings');
  return v as string[];
}

function optInt(o: Obj, f: string, loc: RecordLocation): number | null {
  const v = o[f];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(loc, f, 'must be an integer or null');
  return v;
}

const CONCEPT_ID = /^C\d+-[A-Z0-9_]+$/;

/** Validate one dataset record; optional fields may be missing or null. */
export function validateDataset(v: unknown, loc: RecordLocation): DatasetRecord {
  const o = asObject(v, loc);
  const id = reqString(o, 'id', loc);
  if (!CONCEPT_ID.test(id)) fail(loc, 'id', `must be a CMR collection concept id like C123-PROVIDER (got "${id}")`);
  const daac = optString(o, 'daac', loc) ?? id.slice(id.indexOf('-') + 1);
  const complete = o.catalogRecordComplete;
  if (complete !== undefined && complete !== null && typeof complete !== 'boolean') fail(loc, 'catalogRecordComplete', 'must be a boolean');
  return {
    id,
    shortName: optString(o, 'shortName', loc),
    longName: reqString(o, 'longName', loc),
    abstract: optString(o, 'abstract', loc) ?? '',
    doi: optString(o, 'doi', loc),
    daac,
    publisher: optString(o, 'publisher', loc),
    temporalStart: optString(o, 'temporalStart', loc),
    temporalEnd: optString(o, 'temporalEnd', loc),
    keywords: optStringArray(o, 'keywords', loc),
    platforms: optStringArray(o, 'platforms', loc),
    instruments: optStringArray(o, 'instruments', loc),
    projects: optStringArray(o, 'projects', loc),
    processingLevel: optString(o, 'processingLevel', loc),
    landingPage: optString(o, 'landingPage', loc),
    shortNameSource: optString(o, 'shortNameSource', loc),
    catalogRecordComplete: complete === undefined || complete === null ? true : (complete as boolean),
    sources: optStringArray(o, 'sources', loc),
  };
}

export function validatePublication(v: unknown, loc: RecordLocation): Publication {
  const o = asObject(v, loc);
  return {
    id: reqString(o, 'id', loc),
    doi: optString(o, 'doi', loc),
    title: reqString(o, 'title', loc),
    abstract: optString(o, 'abstract', loc),
    year: optInt(o, 'year', loc),
    venue: optString(o, 'venue', loc),
    source: optString(o, 'source', loc),
    sources: optStringArray(o, 'sources', loc),
  };
}

export function validateLink(v: unknown, loc: RecordLocation): PublicationLink {
  const o = asObject(v, loc);
  return {
    publicationId: reqString(o, 'publicationId', loc),
    datasetId: reqString(o, 'datasetId', loc),
    relation: optString(o, 'relation', loc) ?? 'unspecified',
    source: optString(o, 'source', loc),
    sources: optStringArray(o, 'sources', loc),
  };
}
