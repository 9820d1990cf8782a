/**
 * Facet counts of the current result set, as Earthdata Search shows beside its results: how many of the results
 * carry each provider (DAAC), platform, instrument, processing level and decade. The result set is the top
 * `depth` datasets by final score (after fusion, the constraint rule and the filters) whose score is positive.
 * Each count is what the matching filter would keep of that set: platform and instrument names follow
 * `carriesName` (the field, or the names inferred from the title for datasets without one; `inferred` counts
 * those), levels `normaliseProcessingLevel`, and a decade
 * counts every dataset whose extent intersects it (so a dataset of 1998–2015 counts in the 1990s, 2000s and 2010s,
 * as the temporal filter `1990-01-01,1999-12-31` … would keep it).
 */
import { datasetIds } from '../data/corpus';
import type { Corpus, DatasetRecord } from '../data/types';
import { EoError } from '../errors';
import { topKScoredHits } from '../retrieve/topk';
import { corpusNames, namesInferred, namesOf, normaliseProcessingLevel, type SearchFilters } from './filters';

/** One facet value and how many datasets of the result set carry it. */
export interface FacetValue {
  value: string;
  count: number;
  /**
   * Platform and instrument facets: how many of `count` carry the value by inference from their title (no CMR field;
   * `DatasetRecord.inferred`), not by CMR's metadata. Absent on the other facets.
   */
  inferred?: number;
}

/** The facets of one result set (`SearchResponse.facets`); each list sorted by count, then value. */
export interface FacetCounts {
  /** Datasets counted: the top `depth` with a positive score. */
  resultSet: number;
  provider: FacetValue[];
  platform: FacetValue[];
  instrument: FacetValue[];
  processing_level_id: FacetValue[];
  /** Decades the datasets' extents intersect, e.g. `2010s` (an ongoing dataset runs to `now`). */
  period: FacetValue[];
}

export const FACET_NAMES = ['provider', 'platform', 'instrument', 'processing_level_id', 'period'] as const;
export type FacetName = (typeof FACET_NAMES)[number];

/** Results counted by default: the top 100. */
export const DEFAULT_FACET_DEPTH = 100;

/** The temporal filter of a decade value (`2010s` → 2010-01-01 to 2019-12-31); null when it is not one. */
export function decadeTemporal(value: string): NonNullable<SearchFilters['temporal']> | null {
  const m = /^(\d{3})0s$/.exec(value);
  if (!m) return null;
  const y = Number(m[1]) * 10;
  return { start: `${String(y).padStart(4, '0')}-01-01`, end: `${String(y + 9).padStart(4, '0')}-12-31` };
}

/** Decades a dataset's extent intersects (none when its start cannot be read). */
function decadesOf(d: Pick<DatasetRecord, 'temporalStart' | 'temporalEnd'>, nowYear: number): string[] {
  const y0 = d.temporalStart ? new Date(d.temporalStart).getUTCFullYear() : NaN;
  if (!Number.isFinite(y0)) return [];
  const e = d.temporalEnd ? new Date(d.temporalEnd).getUTCFullYear() : nowYear;
  const y1 = Number.isFinite(e) ? Math.max(y0, e) : y0;
  const out: string[] = [];
  for (let dec = Math.floor(y0 / 10) * 10; dec <= y1; dec += 10) out.push(`${dec}s`);
  return out;
}

function sorted(counts: Map<string, number>, inferred?: Map<string, number>): FacetValue[] {
  return [...counts].map(([value, count]) => (inferred ? { value, count, inferred: inferred.get(value) ?? 0 } : { value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

/** Options of `computeFacets`. */
export interface FacetOptions {
  /** Results counted: the top `depth` with a positive score. Default `DEFAULT_FACET_DEPTH` (100). */
  depth?: number;
  /** "Today" for the decades of ongoing datasets. Default: the current date. */
  now?: Date;
}

/**
 * Facet counts over the result set of corpus-aligned final scores (filtered datasets at -Infinity, unmatched at 0
 * under BM25 or a convex fusion: neither is counted).
 */
export function computeFacets(scores: Float32Array, corpus: Pick<Corpus, 'datasets'>, opts: FacetOptions = {}): FacetCounts {
  const depth = opts.depth ?? DEFAULT_FACET_DEPTH;
  if (!Number.isInteger(depth) || depth < 1) throw new EoError('INVALID_ARGUMENT', `facet depth must be a positive integer (got ${depth})`);
  const datasets = corpus.datasets;
  if (scores.length !== datasets.length) throw new EoError('INVALID_ARGUMENT', `scores (${scores.length}) and datasets (${datasets.length}) differ in length`);
  const nowYear = (opts.now ?? new Date()).getUTCFullYear();
  const hits = topKScoredHits(scores, depth, datasetIds(corpus)).filter((h) => h.score > 0 && Number.isFinite(h.score));
  const c: Record<FacetName, Map<string, number>> = { provider: new Map(), platform: new Map(), instrument: new Map(), processing_level_id: new Map(), period: new Map() };
  const add = (f: FacetName, v: string) => c[f].set(v, (c[f].get(v) ?? 0) + 1);
  const inferred = { platform: new Map<string, number>(), instrument: new Map<string, number>() };
  const platformNames = corpusNames(datasets, 'platform');
  const instrumentNames = corpusNames(datasets, 'instrument');
  for (const { index } of hits) {
    const d = datasets[index];
    add('provider', d.daac);
    for (const [f, names] of [['platform', platformNames], ['instrument', instrumentNames]] as const) {
      const byInference = namesInferred(datasets, index, f);
      for (const k of namesOf(datasets, index, f)) {
        const v = names.get(k) ?? k;
        add(f, v);
        if (byInference) inferred[f].set(v, (inferred[f].get(v) ?? 0) + 1);
      }
    }
    const level = normaliseProcessingLevel(d.processingLevel);
    if (level) add('processing_level_id', level);
    for (const dec of decadesOf(d, nowYear)) add('period', dec);
  }
  return {
    resultSet: hits.length,
    provider: sorted(c.provider), platform: sorted(c.platform, inferred.platform), instrument: sorted(c.instrument, inferred.instrument),
    processing_level_id: sorted(c.processing_level_id), period: sorted(c.period),
  };
}
