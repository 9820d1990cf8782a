/**
 * NASA CMR UMM-JSON collection item (`{meta, umm}`, UMM-C) → DatasetRecord. Field reading and the final check
 * reuse validate.ts; every problem names the item (index, page, concept id) and the UMM field.
 */
import { EoError } from '../errors';
import type { DatasetRecord } from './types';
import { conceptIdProvider, isConceptId, isPlainObject as isObj, optArrayField, optObjectValue, optStringField, validateDataset, type FieldFail } from './validate';

/** Public CMR (production). */
export const CMR_DEFAULT_BASE_URL = 'https://cmr.earthdata.nasa.gov';
/** Value of `shortNameSource` and `sources` for records built from CMR UMM-JSON. */
export const CMR_SOURCE = 'cmr-umm-json';

type Obj = Record<string, unknown>;

/** Where a CMR item came from, for error messages. */
export interface CmrItemLocation {
  /** 0-based index over the whole search (or array). */
  index: number;
  /** 1-based page number, when known. */
  page?: number;
}

function itemFail(loc: CmrItemLocation, id: string | null, field: string, why: string): never {
  const where = `CMR item ${loc.index}${loc.page !== undefined ? ` (page ${loc.page})` : ''}${id ? ` [${id}]` : ''}`;
  throw new EoError('DATA_INVALID', `${where}: field "${field}" ${why}`, { index: loc.index, page: loc.page, id, field });
}

/** Bare DOI (strip `doi:` and resolver prefixes), case preserved; null when empty. */
export function bareDoi(doi: string | null | undefined): string | null {
  if (doi === null || doi === undefined) return null;
  const d = doi
    .trim()
    .replace(/^doi:\s*/i, '')
    .replace(/^https?:\/\/(dx\.)?doi\.org\//i, '')
    .trim();
  return d === '' ? null : d;
}

/** The optional-field readers of one UMM item, failing through `fail` (which names the item and the field). */
interface UmmReader {
  fail: FieldFail;
  str(o: Obj, key: string, field: string): string | null;
  arr(o: Obj, key: string, field: string): unknown[];
  obj(v: unknown, field: string): Obj | null;
}

function ummReader(fail: FieldFail): UmmReader {
  return {
    fail,
    str: (o, key, field) => optStringField(o, key, fail, { field, blankAsNull: true }),
    arr: (o, key, field) => optArrayField(o, key, fail, { field }),
    obj: (v, field) => optObjectValue(v, fail, field),
  };
}

function pushUnique(list: string[], s: string | null): void {
  if (s !== null && !list.includes(s)) list.push(s);
}

/** Temporal extent: earliest begin / single date; latest end, or null when any range is open-ended. */
function ummTemporalExtent(umm: Obj, r: UmmReader): { start: string | null; end: string | null } {
  let start: string | null = null;
  let end: string | null = null;
  let openEnded = false;
  const consider = (s: string, field: string, kind: 'begin' | 'end' | 'single') => {
    const t = Date.parse(s);
    if (Number.isNaN(t)) r.fail(field, `must be an ISO 8601 date-time (got "${s}")`);
    if (kind !== 'end' && (start === null || t < Date.parse(start))) start = s;
    if (kind !== 'begin' && (end === null || t > Date.parse(end))) end = s;
  };
  r.arr(umm, 'TemporalExtents', 'umm.TemporalExtents').forEach((te, i) => {
    const f = `umm.TemporalExtents[${i}]`;
    const o = r.obj(te, f);
    if (!o) return;
    if (o.EndsAtPresentFlag === true) openEnded = true;
    r.arr(o, 'RangeDateTimes', `${f}.RangeDateTimes`).forEach((range, j) => {
      const rf = `${f}.RangeDateTimes[${j}]`;
      const ro = r.obj(range, rf);
      if (!ro) return;
      const b = r.str(ro, 'BeginningDateTime', `${rf}.BeginningDateTime`);
      const e = r.str(ro, 'EndingDateTime', `${rf}.EndingDateTime`);
      if (b !== null) consider(b, `${rf}.BeginningDateTime`, 'begin');
      if (e !== null) consider(e, `${rf}.EndingDateTime`, 'end');
      else openEnded = true;
    });
    r.arr(o, 'SingleDateTimes', `${f}.SingleDateTimes`).forEach((s, j) => {
      const sf = `${f}.SingleDateTimes[${j}]`;
      if (typeof s !== 'string') r.fail(sf, 'must be a string');
      if (s.trim() !== '') consider(s.trim(), sf, 'single');
    });
  });
  return { start, end: openEnded ? null : end };
}

/**
 * UMM-C SpatialExtent: one bounding rectangle as it is; several → the box enclosing them (the whole longitude
 * range when one crosses the antimeridian); no rectangle (points, polygons only) → null.
 */
function ummBoundingBox(umm: Obj, r: UmmReader): [number, number, number, number] | null {
  let bbox: [number, number, number, number] | null = null;
  const geometry = r.obj(r.obj(r.obj(umm.SpatialExtent, 'umm.SpatialExtent')?.HorizontalSpatialDomain, 'umm.SpatialExtent.HorizontalSpatialDomain')?.Geometry, 'umm.SpatialExtent.HorizontalSpatialDomain.Geometry');
  if (!geometry) return null;
  r.arr(geometry, 'BoundingRectangles', 'umm.SpatialExtent.HorizontalSpatialDomain.Geometry.BoundingRectangles').forEach((rect, i) => {
    const f = `umm.SpatialExtent.HorizontalSpatialDomain.Geometry.BoundingRectangles[${i}]`;
    const o = r.obj(rect, f);
    if (!o) return;
    const c = ['WestBoundingCoordinate', 'SouthBoundingCoordinate', 'EastBoundingCoordinate', 'NorthBoundingCoordinate'].map((k) => o[k]);
    if (c.some((v) => typeof v !== 'number' || !Number.isFinite(v))) r.fail(f, 'must have four numeric bounding coordinates');
    const [w, so, e, n] = c as number[];
    if (!bbox) bbox = [w, so, e, n];
    else {
      const crosses = w > e || bbox[0] > bbox[2];
      bbox = crosses ? [-180, Math.min(bbox[1], so), 180, Math.max(bbox[3], n)] : [Math.min(bbox[0], w), Math.min(bbox[1], so), Math.max(bbox[2], e), Math.max(bbox[3], n)];
    }
  });
  return bbox;
}

/** Every level of every science keyword, lower-cased and whitespace-collapsed, each once. */
function ummScienceKeywords(umm: Obj, r: UmmReader): string[] {
  const keywords: string[] = [];
  r.arr(umm, 'ScienceKeywords', 'umm.ScienceKeywords').forEach((sk, i) => {
    const f = `umm.ScienceKeywords[${i}]`;
    const o = r.obj(sk, f);
    if (!o) return;
    for (const level of ['Category', 'Topic', 'Term', 'VariableLevel1', 'VariableLevel2', 'VariableLevel3', 'DetailedVariable']) {
      const s = r.str(o, level, `${f}.${level}`);
      const k = s === null ? '' : s.toLowerCase().replace(/\s+/g, ' ').trim();
      if (k !== '' && !keywords.includes(k)) keywords.push(k);
    }
  });
  return keywords;
}

/** Platform short names, and the instruments on them (nested ComposedOf instruments too), each once. */
function ummPlatformsAndInstruments(umm: Obj, r: UmmReader): { platforms: string[]; instruments: string[] } {
  const platforms: string[] = [];
  const instruments: string[] = [];
  const addInstruments = (arr: unknown[], f: string) => {
    arr.forEach((ins, k) => {
      const insf = `${f}[${k}]`;
      const io = r.obj(ins, insf);
      if (!io) return;
      pushUnique(instruments, r.str(io, 'ShortName', `${insf}.ShortName`));
      addInstruments(r.arr(io, 'ComposedOf', `${insf}.ComposedOf`), `${insf}.ComposedOf`);
    });
  };
  r.arr(umm, 'Platforms', 'umm.Platforms').forEach((p, i) => {
    const f = `umm.Platforms[${i}]`;
    const o = r.obj(p, f);
    if (!o) return;
    pushUnique(platforms, r.str(o, 'ShortName', `${f}.ShortName`));
    addInstruments(r.arr(o, 'Instruments', `${f}.Instruments`), `${f}.Instruments`);
  });
  return { platforms, instruments };
}

/** Publisher: the ARCHIVER data center (else the first one), as data.json's publisher string does. */
function ummPublisher(umm: Obj, r: UmmReader): string | null {
  let publisher: string | null = null;
  let firstCenter: string | null = null;
  r.arr(umm, 'DataCenters', 'umm.DataCenters').forEach((dc, i) => {
    const f = `umm.DataCenters[${i}]`;
    const o = r.obj(dc, f);
    if (!o) return;
    const name = r.str(o, 'ShortName', `${f}.ShortName`);
    if (firstCenter === null) firstCenter = name;
    const roles = r.arr(o, 'Roles', `${f}.Roles`);
    if (publisher === null && roles.includes('ARCHIVER')) publisher = name;
  });
  return publisher ?? firstCenter;
}

/** The first DATA SET LANDING PAGE collection URL, or null (the caller falls back to the DOI or the concept page). */
function ummLandingPage(umm: Obj, r: UmmReader): string | null {
  let landingPage: string | null = null;
  r.arr(umm, 'RelatedUrls', 'umm.RelatedUrls').forEach((ru, i) => {
    const f = `umm.RelatedUrls[${i}]`;
    const o = r.obj(ru, f);
    if (!o || landingPage !== null) return;
    const ct = r.str(o, 'URLContentType', `${f}.URLContentType`);
    const type = r.str(o, 'Type', `${f}.Type`);
    const url = r.str(o, 'URL', `${f}.URL`);
    if (ct === 'CollectionURL' && type === 'DATA SET LANDING PAGE' && url !== null) landingPage = url;
  });
  return landingPage;
}

/**
 * Map one UMM-JSON search item (`{meta, umm}`) to a validated DatasetRecord.
 * `baseUrl` is used for the concept-page fallback of `landingPage` (default: public CMR).
 * Throws DATA_INVALID naming the item index and the offending field (e.g. `umm.EntryTitle`).
 */
export function cmrItemToDataset(item: unknown, loc: CmrItemLocation, opts: { baseUrl?: string } = {}): DatasetRecord {
  if (!isObj(item)) itemFail(loc, null, '(item)', 'must be a JSON object with "meta" and "umm"');
  const meta = item.meta;
  const umm = item.umm;
  if (!isObj(meta)) itemFail(loc, null, 'meta', 'is required and must be an object');
  const idRaw = meta['concept-id'];
  if (typeof idRaw !== 'string' || idRaw.trim() === '') itemFail(loc, null, "meta['concept-id']", 'is required and must be a non-empty string');
  const id = idRaw.trim();
  if (!isConceptId(id)) itemFail(loc, id, "meta['concept-id']", `must be a collection concept id like C123-PROVIDER (got "${id}")`);
  if (!isObj(umm)) itemFail(loc, id, 'umm', 'is required and must be an object');

  const r = ummReader((field, why) => itemFail(loc, id, field, why));

  const providerRaw = meta['provider-id'];
  if (providerRaw !== undefined && providerRaw !== null && typeof providerRaw !== 'string')
    itemFail(loc, id, "meta['provider-id']", 'must be a string');
  const daac = typeof providerRaw === 'string' && providerRaw.trim() !== '' ? providerRaw.trim() : conceptIdProvider(id);

  const shortName = r.str(umm, 'ShortName', 'umm.ShortName');
  const longName = r.str(umm, 'EntryTitle', 'umm.EntryTitle');
  if (longName === null) itemFail(loc, id, 'umm.EntryTitle', 'is required and must be a non-empty string');
  const abstract = (r.str(umm, 'Abstract', 'umm.Abstract') ?? '').replace(/\r\n?/g, '\n');

  const doiObj = r.obj(umm.DOI, 'umm.DOI');
  const doi = doiObj ? bareDoi(r.str(doiObj, 'DOI', 'umm.DOI.DOI')) : null;
  // read in this order so that the first bad field reported stays the same
  const { start, end } = ummTemporalExtent(umm, r);
  const bbox = ummBoundingBox(umm, r);
  const keywords = ummScienceKeywords(umm, r);
  const { platforms, instruments } = ummPlatformsAndInstruments(umm, r);
  const projects: string[] = [];
  r.arr(umm, 'Projects', 'umm.Projects').forEach((p, i) => {
    const o = r.obj(p, `umm.Projects[${i}]`);
    if (o) pushUnique(projects, r.str(o, 'ShortName', `umm.Projects[${i}].ShortName`));
  });
  const pl = r.obj(umm.ProcessingLevel, 'umm.ProcessingLevel');
  const processingLevel = pl ? r.str(pl, 'Id', 'umm.ProcessingLevel.Id') : null;
  const publisher = ummPublisher(umm, r);
  const landingPage = ummLandingPage(umm, r) ?? (doi ? `https://doi.org/${doi}` : `${(opts.baseUrl ?? CMR_DEFAULT_BASE_URL).replace(/\/+$/, '')}/search/concepts/${id}.html`);

  const record = {
    id,
    shortName,
    longName,
    abstract,
    doi,
    daac,
    publisher,
    temporalStart: start,
    temporalEnd: end,
    bbox,
    keywords,
    platforms,
    instruments,
    projects,
    processingLevel,
    landingPage,
    shortNameSource: shortName !== null ? CMR_SOURCE : null,
    catalogRecordComplete: true,
    sources: [CMR_SOURCE],
  };
  try {
    return validateDataset(record, { file: `CMR item ${loc.index}`, line: loc.index });
  } catch (e) {
    const field = (e as EoError).details?.field;
    itemFail(loc, id, String(field ?? '(record)'), `failed validation: ${(e as Error).message}`);
  }
}
