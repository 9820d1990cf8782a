/**
 * Hard filters, as Earthdata Search / CMR collection search offer them: provider (DAAC), platform, instrument,
 * processing level, temporal range and bounding box. Unlike the question's parsed period and places (which demote,
 * lib/search/constraints.ts), a filter removes every dataset that does not match. Several values of one filter are
 * alternatives (OR); different filters must all hold (AND), as in CMR.
 *
 * Matching rules:
 *   - provider: the dataset's `daac` (the CMR provider id of its concept id), case-insensitive.
 *   - platform / instrument: names are compared by `nameKey` (case, hyphens, slashes and spaces ignored, so
 *     "Suomi NPP" = "SUOMI-NPP"), and a name the GCMD aliases list stands for its GCMD name too (`gcmdAliasOf`: "L8" =
 *     LANDSAT-8, "SNPP" = SUOMI-NPP). CMR matches the UMM-C fields only; here a dataset that has the field (the GES DISC
 *     records matched to UMM-C) matches on the field alone, and a dataset without it (every other DAAC: the snapshot
 *     has no platform/instrument fields for them) matches on the GCMD names inferred from its title and short name
 *     (`DatasetRecord.inferred`, lib/data/gcmd-infer.ts: "GEDI L2A …" carries GEDI and, by its mission, ISS). A
 *     platform's GCMD series counts as one of its platforms (a dataset of SENTINEL-1A carries SENTINEL-1). A corpus
 *     loaded without the GCMD files has no inferred names: there such a dataset matches when the name appears as whole
 *     words in its shortName or title ("MODIS/Terra Land Surface Temperature …" carries MODIS and Terra). Names under 3
 *     letters/digits ("PR", "RO") never match titles: as words they are too often something else.
 *   - processing_level_id: `normaliseProcessingLevel` on both sides ("3" = "L3" = "Level 3"; "1B" ≠ "1"), as CMR's
 *     exact id match after the spelling is normalised. Datasets without a level never match.
 *   - temporal: CMR's `start,end` (ISO dates or date-times; either side empty = open); the dataset's extent must
 *     intersect it (an ongoing dataset has no end), by the coverage code of constraints.ts.
 *   - bounding_box: CMR's `west,south,east,north` (west > east crosses the antimeridian); the dataset's box must
 *     intersect it (`bboxesIntersect`'s rule, via constraints.ts).
 *   Datasets whose extent is unknown (no box; unreadable dates) do not match a temporal or bounding_box filter: CMR
 *   returns only collections whose extent intersects (the demoting rule of constraints.ts keeps them instead).
 */
import { platformsOrInstruments } from '../data/gcmd-infer';
import type { Corpus, DatasetRecord } from '../data/types';
import { EoError } from '../errors';
import { applyConstraints, type QueryConstraints } from './constraints';
import { LIST_FILTERS, filterNameKeys, formatTemporalFilter, nameKey, normaliseProcessingLevel, short, type FilterEffect, type SearchFilters } from './filter-params';

// the names of the parts this module was split into, as before
export { FILTER_LIMITS, LIST_FILTERS, canonicalFilters, canonicalIgnore, corpusProviders, filterError, formatTemporalFilter, hasFilters, nameKey, normaliseProcessingLevel, parseBoundingBox, parseFilterParams, parseTemporalFilter, withoutIgnored, type FilterEffect, type IgnoreParsed, type ListFilter, type SearchFilters } from './filter-params';

/** Names under this many letters/digits never match titles (see the module comment). */
const MIN_TITLE_NAME = 3;

/** ` shortName longName ` as name keys (padded with spaces, so ` key ` finds whole words). */
const titleKeysByCorpus = new WeakMap<readonly object[], string[]>();
function titleKeys(datasets: readonly DatasetRecord[]): string[] {
  let t = titleKeysByCorpus.get(datasets);
  if (!t || t.length !== datasets.length) {
    t = datasets.map((d) => ` ${nameKey(`${d.shortName ?? ''} ${d.longName}`)} `);
    titleKeysByCorpus.set(datasets, t);
  }
  return t;
}

/**
 * Every dataset's platform and instrument keys from its CMR fields, or, for a dataset without the field, from its
 * inferred GCMD names (`DatasetRecord.inferred`); `inferred[i]` says which. Built once per datasets array.
 */
interface FieldKeys {
  keys: string[][];
  inferred: boolean[];
}
const fieldKeysByCorpus = new WeakMap<readonly object[], Record<'platform' | 'instrument', FieldKeys>>();
function fieldKeysOf(datasets: readonly DatasetRecord[], field: 'platform' | 'instrument'): FieldKeys {
  let k = fieldKeysByCorpus.get(datasets);
  if (!k || k.platform.keys.length !== datasets.length) {
    const build = (f: 'platforms' | 'instruments'): FieldKeys => {
      const carried = datasets.map((d) => platformsOrInstruments(d, f));
      // a platform's series too: a filter on "Sentinel-1" keeps SENTINEL-1A and 1B
      const names = (d: DatasetRecord, i: number) => [...carried[i].names, ...(f === 'platforms' ? d.inferred?.series ?? [] : [])];
      return { keys: datasets.map((d, i) => [...new Set(names(d, i).map(nameKey))]), inferred: carried.map((c) => c.inferred) };
    };
    k = { platform: build('platforms'), instrument: build('instruments') };
    fieldKeysByCorpus.set(datasets, k);
  }
  return k[field];
}
function fieldKeys(datasets: readonly DatasetRecord[], i: number, field: 'platform' | 'instrument'): string[] {
  return fieldKeysOf(datasets, field).keys[i];
}

/**
 * True when the dataset's platform or instrument names are inferred from its title (it has no CMR field; the
 * snapshot's GCMD inference gave them), so that facets and results can mark them.
 */
export function namesInferred(datasets: readonly DatasetRecord[], i: number, field: 'platform' | 'instrument'): boolean {
  return fieldKeysOf(datasets, field).inferred[i];
}

/**
 * True when the dataset at corpus position `i` carries one of the names (`nameKey`s) in `field`: on its field when
 * it has one, else on its inferred names, else (a corpus without inference) as whole words of its shortName or title
 * (names of at least 3 letters/digits).
 */
export function carriesName(datasets: readonly DatasetRecord[], i: number, field: 'platform' | 'instrument', keys: readonly string[]): boolean {
  return nameMatcher(datasets, field, keys)(i);
}

/** True when a name key may be looked up in titles (at least `MIN_TITLE_NAME` letters/digits). */
const titleMatchable = (k: string) => k.length - (k.match(/ /g)?.length ?? 0) >= MIN_TITLE_NAME;

/** `carriesName` for one set of keys over many datasets (the keys' title eligibility checked once). */
function nameMatcher(datasets: readonly DatasetRecord[], field: 'platform' | 'instrument', keys: readonly string[]): (i: number) => boolean {
  const inTitles = keys.filter(titleMatchable).map((k) => ` ${k} `);
  const titles = titleKeys(datasets);
  return (i) => {
    const own = fieldKeys(datasets, i, field);
    if (own.length > 0 || datasets[i].inferred) return keys.some((k) => own.includes(k));
    const t = titles[i];
    return inTitles.some((k) => t.includes(k));
  };
}

/**
 * Every platform or instrument name of the corpus's fields: key → the spelling most datasets use, then the inferred
 * GCMD names no field spells. The facet values, and the names a dataset without the field or inferred names is looked
 * up by in its title.
 */
const vocabByCorpus = new WeakMap<readonly object[], Record<'platform' | 'instrument', Map<string, string>>>();
export function corpusNames(datasets: readonly DatasetRecord[], field: 'platform' | 'instrument'): Map<string, string> {
  let v = vocabByCorpus.get(datasets);
  if (!v) {
    const build = (f: 'platform' | 'instrument') => {
      const counts = new Map<string, Map<string, number>>();
      for (const d of datasets)
        for (const name of f === 'platform' ? d.platforms : d.instruments) {
          const k = nameKey(name);
          if (!k) continue;
          const m = counts.get(k) ?? new Map<string, number>();
          m.set(name, (m.get(name) ?? 0) + 1);
          counts.set(k, m);
        }
      const names = new Map([...counts].map(([k, m]) => [k, [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0]]));
      // inferred GCMD names that no CMR field spells: GCMD's short name
      for (const d of datasets) {
        const inferred = f === 'platform' ? [...(d.inferred?.platforms ?? []), ...(d.inferred?.series ?? [])] : d.inferred?.instruments ?? [];
        for (const name of inferred) if (!names.has(nameKey(name))) names.set(nameKey(name), name);
      }
      return names;
    };
    v = { platform: build('platform'), instrument: build('instrument') };
    vocabByCorpus.set(datasets, v);
  }
  return v[field];
}

/**
 * The platform or instrument names (keys) the dataset at position `i` carries: its field, or the corpus's names
 * found in its title (the same rule as `carriesName`, so a facet's count is what its filter keeps).
 */
const namesByCorpus = new WeakMap<readonly object[], Record<'platform' | 'instrument', { titleNames: string[]; of: (string[] | undefined)[] }>>();
export function namesOf(datasets: readonly DatasetRecord[], i: number, field: 'platform' | 'instrument'): string[] {
  let c = namesByCorpus.get(datasets);
  if (!c) {
    // per dataset, filled when first asked (a service counts the facets of its top 100 on every request)
    const init = (f: 'platform' | 'instrument') => ({ titleNames: [...corpusNames(datasets, f).keys()].filter(titleMatchable), of: new Array<string[] | undefined>(datasets.length) });
    c = { platform: init('platform'), instrument: init('instrument') };
    namesByCorpus.set(datasets, c);
  }
  const cf = c[field];
  let out = cf.of[i];
  if (!out) {
    const own = fieldKeys(datasets, i, field);
    if (own.length > 0 || datasets[i].inferred) out = own;
    else {
      const t = titleKeys(datasets)[i];
      out = cf.titleNames.filter((k) => t.includes(` ${k} `));
    }
    cf.of[i] = out;
  }
  return out;
}

/** Far ends standing in for an open temporal side (the coverage rule takes a closed range). */
const OPEN_START = '0001-01-01';
const OPEN_END = '9999-12-31';

export interface FilteredScores {
  /** Scores after the filters: a removed dataset gets -Infinity, so that no top-k picks it. */
  scores: Float32Array;
  /** Whether the dataset at corpus position `i` passes the filters. */
  keeps(i: number): boolean;
  effect: FilterEffect;
}

/**
 * Apply the filters to corpus-aligned scores (after fusion and the constraint rule, before top-k). Returns new
 * scores with every dataset that fails a filter at -Infinity, and how many datasets with a positive score were
 * removed and kept. Temporal and box checks run through `applyConstraints` (one pass over the corpus's cached
 * extents), which is also the CMR intersection rule of the question's constraints.
 */
export function applyFilters(scores: Float32Array, corpus: Pick<Corpus, 'datasets'>, filters: SearchFilters): FilteredScores {
  const datasets = corpus.datasets;
  if (scores.length !== datasets.length) throw new EoError('INVALID_ARGUMENT', `scores (${scores.length}) and datasets (${datasets.length}) differ in length`);
  const n = datasets.length;
  const pass = new Uint8Array(n).fill(1);
  const providers = filters.provider?.length ? new Set(filters.provider.map((p) => p.toUpperCase())) : null;
  const platformOf = filters.platform?.length ? nameMatcher(datasets, 'platform', filterNameKeys('platforms', filters.platform)) : null;
  const instrumentOf = filters.instrument?.length ? nameMatcher(datasets, 'instrument', filterNameKeys('instruments', filters.instrument)) : null;
  const levels = filters.processing_level_id?.length ? new Set(filters.processing_level_id.map((l) => normaliseProcessingLevel(l) ?? l)) : null;
  const extent: QueryConstraints | null = filters.temporal || filters.bounding_box
    ? {
        period: filters.temporal ? { start: filters.temporal.start ?? OPEN_START, end: filters.temporal.end ?? OPEN_END } : null,
        places: filters.bounding_box ? [{ name: 'bounding_box', bbox: filters.bounding_box }] : [],
      }
    : null;
  const covered = extent ? applyConstraints(scores, datasets, extent, { mode: 'filter' }) : null;
  const out = new Float32Array(scores);
  let removed = 0;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const d = datasets[i];
    let ok = !providers || providers.has(d.daac.toUpperCase());
    if (ok && levels) ok = levels.has(normaliseProcessingLevel(d.processingLevel) ?? '');
    if (ok && platformOf) ok = platformOf(i);
    if (ok && instrumentOf) ok = instrumentOf(i);
    if (ok && covered) {
      const c = covered.coverageOf(i);
      ok = (!extent!.period || c.temporal === 'covers') && (extent!.places.length === 0 || c.spatial === 'covers');
    }
    const positive = scores[i] > 0 && Number.isFinite(scores[i]);
    if (ok) kept += positive ? 1 : 0;
    else {
      pass[i] = 0;
      out[i] = -Infinity;
      removed += positive ? 1 : 0;
    }
  }
  return { scores: out, keeps: (i) => pass[i] === 1, effect: { applied: filters, removed, kept } };
}

/** One line of the filters applied, e.g. `provider GES_DISC; temporal 2015-01-01,; 812 datasets removed`. */
export function describeFilters(e: FilterEffect): string {
  const f = e.applied;
  const parts: string[] = [];
  for (const k of LIST_FILTERS) if (f[k]?.length) parts.push(`${k} ${f[k]!.join(' or ')}`);
  if (f.temporal) parts.push(`temporal ${formatTemporalFilter(f.temporal)}`);
  if (f.bounding_box) parts.push(`bounding_box ${f.bounding_box.join(',')}`);
  return `${parts.join('; ')} (${e.removed} matching datasets removed, ${e.kept} kept)`;
}
