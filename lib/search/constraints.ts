/**
 * The question's constraints shape the ranking: a dataset that cannot cover the period or the place a query asks
 * for is demoted (or filtered). Coverage follows CMR's own collection search semantics, so a result here agrees
 * with what `temporal=` and `bounding_box=` would return from CMR:
 *   - temporal: the collection's [start, end] intersects the asked range (an open end means "ongoing");
 *   - spatial: the collection's box intersects the asked box (boxes with west > east cross the antimeridian);
 *     a global box always intersects.
 * A dataset whose extent is unknown (no bbox, unparseable date) is never demoted: absence of metadata is not
 * evidence against it.
 */
import type { BBox, DatasetRecord } from '../data/types';
import { EoError } from '../errors';
import type { ParsedQuery } from '../router/types';

/** What the query asks for. Both ends of the period are inclusive ISO dates (YYYY-MM-DD). */
export interface QueryConstraints {
  period: { start: string; end: string } | null;
  /** Places asked for; a dataset covering any one of them satisfies the place constraint. */
  places: { name: string; bbox: BBox }[];
}

/** How one dataset relates to one constraint. */
export type Coverage = 'covers' | 'outside' | 'unknown' | 'unconstrained';

export interface ConstraintRule {
  /**
   * 'demote' (default): a dataset outside the asked period or place keeps `penalty` times its score (per violated
   * constraint, so outside both keeps penalty²); 'filter': it is removed from the ranking; 'off': no effect.
   */
  mode?: 'demote' | 'filter' | 'off';
  /** Score multiplier per violated constraint in 'demote' mode, in [0, 1]. Default 0.5. */
  penalty?: number;
  /** Apply the period constraint. Default true. */
  temporal?: boolean;
  /** Apply the place constraint. Default true. */
  spatial?: boolean;
}

export const DEFAULT_CONSTRAINT_RULE: Required<ConstraintRule> = { mode: 'demote', penalty: 0.5, temporal: true, spatial: true };

/** Why a dataset moved: its coverage of each constraint and the factor applied to its score (0 = filtered). */
export interface ConstraintEffect {
  temporal: Coverage;
  spatial: Coverage;
  factor: number;
}

const DAY_MS = 86_400_000;

/** Milliseconds since the epoch of an ISO date or date-time; NaN when it cannot be read. */
function isoMs(s: string | null | undefined): number {
  if (!s) return NaN;
  const t = Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s);
  return Number.isFinite(t) ? t : NaN;
}

/** The asked period in ms, [start, end of the end day]; throws on dates that cannot be read. */
function periodMs(period: NonNullable<QueryConstraints['period']>): [number, number] {
  const qs = isoMs(period.start);
  const qe = isoMs(period.end) + DAY_MS - 1; // the asked end day is inclusive
  if (!Number.isFinite(qs) || !Number.isFinite(qe)) throw new EoError('INVALID_ARGUMENT', `period ${period.start}..${period.end} is not a pair of ISO dates`);
  return [qs, qe];
}

/** A dataset's [start, end] in ms (end Infinity: ongoing; NaN: unreadable). */
function extentMs(d: Pick<DatasetRecord, 'temporalStart' | 'temporalEnd'>): [number, number] {
  return [isoMs(d.temporalStart), d.temporalEnd ? isoMs(d.temporalEnd) : Infinity];
}

function coverageMs(ds: number, de: number, [qs, qe]: [number, number]): Coverage {
  if (Number.isNaN(ds) || Number.isNaN(de)) return 'unknown';
  return ds <= qe && de >= qs ? 'covers' : 'outside';
}

/** Temporal coverage by CMR semantics: the dataset's [start, end] intersects the asked period (ends inclusive). */
export function temporalCoverage(d: Pick<DatasetRecord, 'temporalStart' | 'temporalEnd'>, period: QueryConstraints['period']): Coverage {
  if (!period) return 'unconstrained';
  const [ds, de] = extentMs(d);
  return coverageMs(ds, de, periodMs(period));
}

/**
 * Every dataset's temporal extent in ms, parsed once per datasets array (a service applies the rule to the whole
 * corpus on every request: parsing 2 × 10k dates each time cost more than the scoring).
 */
const extentsByCorpus = new WeakMap<readonly object[], Float64Array>();
function corpusExtentsMs(datasets: readonly Pick<DatasetRecord, 'temporalStart' | 'temporalEnd'>[]): Float64Array {
  let ms = extentsByCorpus.get(datasets);
  if (!ms || ms.length !== 2 * datasets.length) {
    ms = new Float64Array(2 * datasets.length);
    datasets.forEach((d, i) => ms!.set(extentMs(d), 2 * i));
    extentsByCorpus.set(datasets, ms);
  }
  return ms;
}

/** Longitude intervals of a box, split at the antimeridian when west > east. */
function lonIntervals([w, , e]: BBox): [number, number][] {
  return w <= e ? [[w, e]] : [[w, 180], [-180, e]];
}

/** True when two boxes intersect (edges touching count, as in CMR). */
export function bboxesIntersect(a: BBox, b: BBox): boolean {
  if (a[1] > b[3] || b[1] > a[3]) return false;
  for (const [aw, ae] of lonIntervals(a)) for (const [bw, be] of lonIntervals(b)) if (aw <= be && bw <= ae) return true;
  return false;
}

/** Spatial coverage by CMR semantics: the dataset's box intersects the box of at least one asked place. */
export function spatialCoverage(d: Pick<DatasetRecord, 'bbox'>, places: QueryConstraints['places']): Coverage {
  if (places.length === 0) return 'unconstrained';
  if (!d.bbox) return 'unknown';
  return places.some((p) => bboxesIntersect(d.bbox!, p.bbox)) ? 'covers' : 'outside';
}

/**
 * The constraints of a query as the router parsed it: its period, and the boxes of the places it names. A place
 * whose box spans the globe ("global", "worldwide") constrains nothing and is left out.
 */
export function constraintsFromParsed(parsed: Pick<ParsedQuery, 'period' | 'places'>): QueryConstraints {
  const places = parsed.places
    .filter((m) => !(m.place.bbox[0] <= -180 && m.place.bbox[2] >= 180 && m.place.bbox[1] <= -90 && m.place.bbox[3] >= 90))
    .map((m) => ({ name: m.place.name, bbox: m.place.bbox }));
  return { period: parsed.period ? { start: parsed.period.start, end: parsed.period.end } : null, places };
}

/** Resolve a rule against the defaults and check it. */
export function resolveConstraintRule(rule: ConstraintRule = {}): Required<ConstraintRule> {
  const r = { ...DEFAULT_CONSTRAINT_RULE, ...rule };
  if (!['demote', 'filter', 'off'].includes(r.mode)) throw new EoError('INVALID_ARGUMENT', `constraint mode must be demote, filter or off (got "${r.mode}")`);
  if (!(r.penalty >= 0 && r.penalty <= 1)) throw new EoError('INVALID_ARGUMENT', `constraint penalty must lie in [0, 1] (got ${r.penalty})`);
  return r;
}

/** True when the constraints ask for anything (a period or a place). */
export function hasConstraints(c: QueryConstraints | null | undefined): c is QueryConstraints {
  return !!c && (c.period !== null || c.places.length > 0);
}

export interface ConstrainedScores {
  /** Scores after the rule; a filtered dataset gets -Infinity so that no top-k can pick it. */
  scores: Float32Array;
  /** Datasets whose score changed, by corpus position. */
  effects: Map<number, ConstraintEffect>;
}

/**
 * Apply the rule to corpus-aligned scores (fused or single-scorer, any scale ≥ 0). Returns new scores and, for
 * each dataset that moved, which constraint moved it. Scores of datasets that satisfy every constraint (or
 * whose extent is unknown) are untouched, so the rule only ever moves violators down.
 */
export function applyConstraints(
  scores: Float32Array,
  datasets: readonly Pick<DatasetRecord, 'temporalStart' | 'temporalEnd' | 'bbox'>[],
  constraints: QueryConstraints,
  rule: ConstraintRule = {},
): ConstrainedScores {
  if (scores.length !== datasets.length) throw new EoError('INVALID_ARGUMENT', `scores (${scores.length}) and datasets (${datasets.length}) differ in length`);
  const r = resolveConstraintRule(rule);
  const out = new Float32Array(scores);
  const effects = new Map<number, ConstraintEffect>();
  if (r.mode === 'off' || !hasConstraints(constraints)) return { scores: out, effects };
  const period = r.temporal && constraints.period ? periodMs(constraints.period) : null;
  const places = r.spatial ? constraints.places : [];
  const extents = period ? corpusExtentsMs(datasets) : null;
  for (let i = 0; i < datasets.length; i++) {
    const temporal = period ? coverageMs(extents![2 * i], extents![2 * i + 1], period) : 'unconstrained';
    const spatial = spatialCoverage(datasets[i], places);
    const violations = (temporal === 'outside' ? 1 : 0) + (spatial === 'outside' ? 1 : 0);
    if (violations === 0) continue;
    const factor = r.mode === 'filter' ? 0 : r.penalty ** violations;
    out[i] = r.mode === 'filter' ? -Infinity : scores[i] * factor;
    effects.set(i, { temporal, spatial, factor });
  }
  return { scores: out, effects };
}

/** One line for an explanation, e.g. `ends 2010-12-31, before the asked period 2015-01-01..2026-11-30 (×0.5)`. */
export function describeConstraintEffect(d: Pick<DatasetRecord, 'temporalStart' | 'temporalEnd' | 'bbox'>, e: ConstraintEffect, c: QueryConstraints): string {
  const parts: string[] = [];
  if (e.temporal === 'outside' && c.period) {
    const ends = d.temporalEnd ? isoMs(d.temporalEnd) : Infinity;
    const side = ends < isoMs(c.period.start) ? `ends ${d.temporalEnd!.slice(0, 10)}, before` : `starts ${String(d.temporalStart).slice(0, 10)}, after`;
    parts.push(`${side} the asked period ${c.period.start}..${c.period.end}`);
  }
  if (e.spatial === 'outside' && d.bbox) {
    const b = d.bbox.map((x) => Math.round(x * 10) / 10).join(', ');
    parts.push(`extent [${b}] misses ${c.places.map((p) => p.name).join(' / ')}`);
  }
  return `${parts.join('; ')} (${e.factor === 0 ? 'filtered' : `×${e.factor}`})`;
}
