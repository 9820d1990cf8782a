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

  const fail: FieldFail = (field, why) => itemFail(loc, id, field, why);
  const optStr = (o: Obj, key: string, field: string): string | null => optStringField(o, key, fail, { field, blankAsNull: true });
  const optArr = (o: Obj, key: string, field: string): unknown[] => optArrayField(o, key, fail, { field });
  const optObj = (v: unknown, field: string): Obj | null => optObjectValue(v, fail, field);

  const providerRaw = meta['provider-id'];
  if (providerRaw !== undefined && providerRaw !== null && typeof providerRaw !== 'string')
    itemFail(loc, id, "meta['provider-id']", 'must be a string');
  const daac = typeof providerRaw === 'string' && providerRaw.trim() !== '' ? providerRaw.trim() : conceptIdProvider(id);

  const shortName = optStr(umm, 'ShortName', 'umm.ShortName');
  const longName = optStr(umm, 'EntryTitle', 'umm.EntryTitle');
  if (longName === null) itemFail(loc, id, 'umm.EntryTitle', 'is required and must be a non-empty string');
  const abstract = (optStr(umm, 'Abstract', 'umm.Abstract') ?? '').replace(/\r\n?/g, '\n');

  const doiObj = optObj(umm.DOI, 'umm.DOI');
  const doi = doiObj ? bareDoi(optStr(doiObj, 'DOI', 'umm.DOI.DOI')) : null;

  // Temporal extent: earliest begin / single date; latest end, or null when any range is open-ended.
  let start: string | null = null;
  let end: string | null = null;
  let openEnded = false;
  const consider = (s: string, field: string, kind: 'begin' | 'end' | 'single') => {
    const t = Date.parse(s);
    if (Number.isNaN(t)) itemFail(loc, id, field, `must be an ISO 8601 date-time (got "${s}")`);
    if (kind !== 'end' && (start === null || t < Date.parse(start))) start = s;
    if (kind !== 'begin' && (end === null || t > Date.parse(end))) end = s;
  };
  optArr(umm, 'TemporalExtents', 'umm.TemporalExtents').forEach((te, i) => {
    const f = `umm.TemporalExtents[${i}]`;
    const o = optObj(te, f);
    if (!o) return;
    if (o.EndsAtPresentFlag === true) openEnded = true;
    optArr(o, 'RangeDateTimes', `${f}.RangeDateTimes`).forEach((r, j) => {
      const rf = `${f}.RangeDateTimes[${j}]`;
      const ro = optObj(r, rf);
      if (!ro) return;
      const b = optStr(ro, 'BeginningDateTime', `${rf}.BeginningDateTime`);
      const e = optStr(ro, 'EndingDateTime', `${rf}.EndingDateTime`);
      if (b !== null) consider(b, `${rf}.BeginningDateTime`, 'begin');
      if (e !== null) consider(e, `${rf}.EndingDateTime`, 'end');
      else openEnded = true;
    });
    optArr(o, 'SingleDateTimes', `${f}.SingleDateTimes`).forEach((s, j) => {
      const sf = `${f}.SingleDateTimes[${j}]`;
      if (typeof s !== 'string') itemFail(loc, id, sf, 'must be a string');
      if (s.trim() !== '') consider(s.trim(), sf, 'single');
    });
  });
  if (openEnded) end = null;

  // UMM-C SpatialExtent: one bounding rectangle as it is; several → the box enclosing them (the whole longitude
  // range when one crosses the antimeridian); no rectangle (points, polygons only) → null.
  let bbox: [number, number, number, number] | null = null;
  const geometry = optObj(optObj(optObj(umm.SpatialExtent, 'umm.SpatialExtent')?.HorizontalSpatialDomain, 'umm.SpatialExtent.HorizontalSpatialDomain')?.Geometry, 'umm.SpatialExtent.HorizontalSpatialDomain.Geometry');
  if (geometry) {
    optArr(geometry, 'BoundingRectangles', 'umm.SpatialExtent.HorizontalSpatialDomain.Geometry.BoundingRectangles').forEach((r, i) => {
      const f = `umm.SpatialExtent.HorizontalSpatialDomain.Geometry.BoundingRectangles[${i}]`;
      const o = optObj(r, f);
      if (!o) return;
      const c = ['WestBoundingCoordinate', 'SouthBoundingCoordinate', 'EastBoundingCoordinate', 'NorthBoundingCoordinate'].map((k) => o[k]);
      if (c.some((v) => typeof v !== 'number' || !Number.isFinite(v))) itemFail(loc, id, f, 'must have four numeric bounding coordinates');
      const [w, so, e, n] = c as number[];
      if (!bbox) bbox = [w, so, e, n];
      else {
        const crosses = w > e || bbox[0] > bbox[2];
        bbox = crosses ? [-180, Math.min(bbox[1], so), 180, Math.max(bbox[3], n)] : [Math.min(bbox[0], w), Math.min(bbox[1], so), Math.max(bbox[2], e), Math.max(bbox[3], n)];
      }
    });
  }

  const keywords: string[] = [];
  const addKw = (s: string | null) => {
    if (s === null) return;
    const k = s.toLowerCase().replace(/\s+/g, ' ').trim();
    if (k !== '' && !keywords.includes(k)) keywords.push(k);
  };
  optArr(umm, 'ScienceKeywords', 'umm.ScienceKeywords').forEach((sk, i) => {
    const f = `umm.ScienceKeywords[${i}]`;
    const o = optObj(sk, f);
    if (!o) return;
    for (const level of ['Category', 'Topic', 'Term', 'VariableLevel1', 'VariableLevel2', 'VariableLevel3', 'DetailedVariable'])
      addKw(optStr(o, level, `${f}.${level}`));
  });

  const platforms: string[] = [];
  const instruments: string[] = [];
  const pushUnique = (list: string[], s: string | null) => {
    if (s !== null && !list.includes(s)) list.push(s);
  };
  const addInstruments = (arr: unknown[], f: string) => {
    arr.forEach((ins, k) => {
      const insf = `${f}[${k}]`;
      const io = optObj(ins, insf);
      if (!io) return;
      pushUnique(instruments, optStr(io, 'ShortName', `${insf}.ShortName`));
      addInstruments(optArr(io, 'ComposedOf', `${insf}.ComposedOf`), `${insf}.ComposedOf`);
    });
  };
  optArr(umm, 'Platforms', 'umm.Platforms').forEach((p, i) => {
    const f = `umm.Platforms[${i}]`;
    const o = optObj(p, f);
    if (!o) return;
    pushUnique(platforms, optStr(o, 'ShortName', `${f}.ShortName`));
    addInstruments(optArr(o, 'Instruments', `${f}.Instruments`), `${f}.Instruments`);
  });

  const projects: string[] = [];
  optArr(umm, 'Projects', 'umm.Projects').forEach((p, i) => {
    const o = optObj(p, `umm.Projects[${i}]`);
    if (o) pushUnique(projects, optStr(o, 'ShortName', `umm.Projects[${i}].ShortName`));
  });

  const pl = optObj(umm.ProcessingLevel, 'umm.ProcessingLevel');
  const processingLevel = pl ? optStr(pl, 'Id', 'umm.ProcessingLevel.Id') : null;

  // Publisher: the ARCHIVER data center (else the first one), as data.json's publisher string does.
  let publisher: string | null = null;
  let firstCenter: string | null = null;
  optArr(umm, 'DataCenters', 'umm.DataCenters').forEach((dc, i) => {
    const f = `umm.DataCenters[${i}]`;
    const o = optObj(dc, f);
    if (!o) return;
    const name = optStr(o, 'ShortName', `${f}.ShortName`);
    if (firstCenter === null) firstCenter = name;
    const roles = optArr(o, 'Roles', `${f}.Roles`);
    if (publisher === null && roles.includes('ARCHIVER')) publisher = name;
  });
  publisher = publisher ?? firstCenter;

  let landingPage: string | null = null;
  optArr(umm, 'RelatedUrls', 'umm.RelatedUrls').forEach((ru, i) => {
    const f = `umm.RelatedUrls[${i}]`;
    const o = optObj(ru, f);
    if (!o || landingPage !== null) return;
    const ct = optStr(o, 'URLContentType', `${f}.URLContentType`);
    const type = optStr(o, 'Type', `${f}.Type`);
    const url = optStr(o, 'URL', `${f}.URL`);
    if (ct === 'CollectionURL' && type === 'DATA SET LANDING PAGE' && url !== null) landingPage = url;
  });
  if (landingPage === null) {
    const base = (opts.baseUrl ?? CMR_DEFAULT_BASE_URL).replace(/\/+$/, '');
    landingPage = doi ? `https://doi.org/${doi}` : `${base}/search/concepts/${id}.html`;
  }

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
