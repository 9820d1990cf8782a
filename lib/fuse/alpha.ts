import { EoError } from '../errors';

/** Whether α is a convex weight: a number in [0, 1] (NaN and ±∞ are not). The one home of α's range. */
export function isConvexAlpha(alpha: unknown): alpha is number {
  return typeof alpha === 'number' && alpha >= 0 && alpha <= 1;
}

/** Throws INVALID_ARGUMENT naming `where` unless α is in [0, 1]; every stage that takes an α calls this. */
export function assertConvexAlpha(alpha: unknown, where: string): asserts alpha is number {
  if (!isConvexAlpha(alpha)) throw new EoError('INVALID_ARGUMENT', `${where}: α must be a number in [0, 1], got ${JSON.stringify(alpha)}`, { alpha });
}
import { METRIC_NAMES, type MetricRow } from '../metrics/types';

/** π of a scorer (paper Eq. 7): the mean of R@10, R@20, R@100, MAP and MRR, measured on the training split. */
export function performanceIndex(row: MetricRow): number {
  let s = 0;
  for (const m of METRIC_NAMES) s += row[m];
  return s / METRIC_NAMES.length;
}

/**
 * Analytic fusion weight (paper Eq. 7): α = π_semantic / (π_lexical + π_semantic), where each π is the scorer's
 * performance index on the TRAINING split alone (never the test split).
 */
export function analyticAlpha(semanticTrain: MetricRow, lexicalTrain: MetricRow): number {
  const ps = performanceIndex(semanticTrain);
  const pl = performanceIndex(lexicalTrain);
  if (!(ps + pl > 0)) throw new EoError('INVALID_ARGUMENT', 'analyticAlpha: both scorers have π = 0 on the training split');
  return ps / (ps + pl);
}
