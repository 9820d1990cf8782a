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

/**
 * What the query asks for. Both ends of the period are inclusive: ISO dates (YYYY-MM-DD; the end date counts to its
 * last millisecond) or ISO date-times with a zone (taken as given).
 */
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

/** Coverage codes (a dataset's codes: temporal in the low 2 bits, spatial in the next 2). */
const COVERAGES: Coverage[] = ['unconstrained', 'covers', 'outside', 'unknown'];

/** Milliseconds since the epoch of an ISO date or date-time; NaN when it cannot be read. */
function isoMs(s: string | null | undefined): number {
  if (!s) return NaN;
  const t = Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s);
  return Number.isFinite(t) ? t : NaN;
}

/** The asked period in ms, [start, end of the end day]; throws on dates that cannot be read. */
function periodMs(period: NonNullable<QueryConstraints['period']>): [number, number] {
  const qs = isoMs(period.start);
  const qe = isoMs(period.end) + (period.end.length === 10 ? DAY_MS - 1 : 0); // an asked end day is inclusive
  if (!Number.isFinite(qs) || !Number.isFinite(qe)) throw new EoError('INVALID_ARGUMENT', `period ${period.start}..${period.end} is not a pair of ISO dates`);
  return [qs, qe];
}

/** A dataset's [start, end] in ms (end Infinity: ongoing; NaN: unreadable). */
function extentMs(d: Pick<DatasetRecord, 'temporalStart' | 'temporalEnd'>): [number, number] {
  return [isoMs(d.temporalStart), d.temporalEnd ? isoMs(d.temporalEnd) : Infinity];
}

/** Temporal coverage code of an extent [ds, de] (ms): 1 covers, 2 outside, 3 unknown (`COVERAGES` order). */
function temporalCode(ds: number, de: number, qs: number, qe: number): 1 | 2 | 3 {
  if (Number.isNaN(ds) || Number.isNaN(de)) return 3;
  return ds <= qe && de >= qs ? 1 : 2;
}

function coverageMs(ds: number, de: number, [qs, qe]: [number, number]): Coverage {
  return COVERAGES[temporalCode(ds, de, qs, qe)];
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

/** True when two longitude ranges overlap; a range with west > east crosses the antimeridian (edges touching count). */
function lonRangesOverlap(aw: number, ae: number, bw: number, be: number): boolean {
  const over = (x0: number, x1: number, y0: number, y1: number) => x0 <= y1 && y0 <= x1;
  const aCross = aw > ae;
  const bCross = be < bw;
  if (!aCross && !bCross) return over(aw, ae, bw, be);
  if (aCross && bCross) return true; // both hold longitude 180
  if (aCross) return over(aw, 180, bw, be) || over(-180, ae, bw, be);
  return over(aw, ae, bw, 180) || over(aw, ae, -180, be);
}

/** True when the box [w, s, e, n] intersects `b` (edges touching count, as in CMR). */
function boxIntersects(w: number, so: number, e: number, n: number, b: BBox): boolean {
  return !(so > b[3] || b[1] > n) && lonRangesOverlap(w, e, b[0], b[2]);
}

/** True when two boxes intersect (edges touching count, as in CMR). */
export function bboxesIntersect(a: BBox, b: BBox): boolean {
  return boxIntersects(a[0], a[1], a[2], a[3], b);
}

/** Every dataset's box as 4 numbers (NaN: no box), read once per datasets array (as `corpusExtentsMs`). */
const boxesByCorpus = new WeakMap<readonly object[], Float64Array>();
function corpusBoxes(datasets: readonly Pick<DatasetRecord, 'bbox'>[]): Float64Array {
  let b = boxesByCorpus.get(datasets);
  if (!b || b.length !== 4 * datasets.length) {
    b = new Float64Array(4 * datasets.length).fill(NaN);
    datasets.forEach((d, i) => d.bbox && b!.set(d.bbox, 4 * i));
    boxesByCorpus.set(datasets, b);
  }
  return b;
}

/** Spatial coverage code of a box [w, s, e, n] (NaN w: no box) for the asked places: 0 unconstrained, 1 covers, 2 outside, 3 unknown. */
function spatialCode(w: number, so: number, e: number, n: number, places: QueryConstraints['places']): 0 | 1 | 2 | 3 {
  if (places.length === 0) return 0;
  if (Number.isNaN(w)) return 3;
  for (const p of places) if (boxIntersects(w, so, e, n, p.bbox)) return 1;
  return 2;
}

/** Spatial coverage by CMR semantics: the dataset's box intersects the box of at least one asked place. */
export function spatialCoverage(d: Pick<DatasetRecord, 'bbox'>, places: QueryConstraints['places']): Coverage {
  const b = d.bbox;
  return COVERAGES[b ? spatialCode(b[0], b[1], b[2], b[3], places) : spatialCode(NaN, NaN, NaN, NaN, places)];
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
  /** How many datasets the rule moved. */
  moved: number;
  /** Why the dataset at corpus position `i` moved (its coverage of each constraint and its factor), or undefined. */
  effectOf(i: number): ConstraintEffect | undefined;
  /** Every dataset that moved, by corpus position (built when first read: a service only explains its top k). */
  readonly effects: Map<number, ConstraintEffect>;
  /** How the dataset at corpus position `i` relates to each constraint (`unknown`: no box, unreadable dates). */
  coverageOf(i: number): { temporal: Coverage; spatial: Coverage };
}

const OUTSIDE = 2;

/** Violated constraints (0–2) of a dataset's coverage codes. */
function violationsOf(code: number): number {
  return ((code & 3) === OUTSIDE ? 1 : 0) + (code >> 2 === OUTSIDE ? 1 : 0);
}

/**
 * Apply the rule to corpus-aligned scores (fused or single-scorer, any scale ≥ 0). Returns new scores and, for
 * each dataset that moved, which constraint moved it. Scores of datasets that satisfy every constraint (or
 * whose extent is unknown) are untouched, so the rule only ever moves violators down. One pass over typed arrays
 * (extents and boxes read once per corpus): a service applies it to the whole corpus on every request.
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
  const n = datasets.length;
  const codes = new Uint8Array(n);
  let moved = 0;
  if (r.mode !== 'off' && hasConstraints(constraints)) {
    const period = r.temporal && constraints.period ? periodMs(constraints.period) : null;
    const places = r.spatial ? constraints.places : [];
    const extents = period ? corpusExtentsMs(datasets) : null;
    const boxes = places.length > 0 ? corpusBoxes(datasets) : null;
    for (let i = 0; i < n; i++) {
      let t = 0;
      if (period) t = temporalCode(extents![2 * i], extents![2 * i + 1], period[0], period[1]);
      const sp = boxes ? spatialCode(boxes[4 * i], boxes[4 * i + 1], boxes[4 * i + 2], boxes[4 * i + 3], places) : 0;
      codes[i] = t | (sp << 2);
      const violations = violationsOf(codes[i]);
      if (violations === 0) continue;
      moved++;
      out[i] = r.mode === 'filter' ? -Infinity : scores[i] * r.penalty ** violations;
    }
  }
  const effectOf = (i: number): ConstraintEffect | undefined => {
    const violations = violationsOf(codes[i]);
    if (violations === 0) return undefined;
    return { temporal: COVERAGES[codes[i] & 3], spatial: COVERAGES[codes[i] >> 2], factor: r.mode === 'filter' ? 0 : r.penalty ** violations };
  };
  let effects: Map<number, ConstraintEffect> | null = null;
  return {
    scores: out, moved, effectOf,
    coverageOf: (i) => ({ temporal: COVERAGES[codes[i] & 3], spatial: COVERAGES[codes[i] >> 2] }),
    get effects() {
      if (!effects) {
        effects = new Map();
        for (let i = 0; i < n; i++) {
          const e = effectOf(i);
          if (e) effects.set(i, e);
        }
      }
      return effects;
    },
  };
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
