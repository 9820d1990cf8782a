import { EoError } from '../errors';
import { mean } from './metrics';
import { METRIC_NAMES, type PerQueryMetrics } from './types';

/** Mean and spread (sample sd, min, max) of a number list: the one summary of values over seeds or shuffles. */
export interface Spread { mean: number; sd: number; min: number; max: number }

/** `Spread` of a list (sd 0 for fewer than two values; all 0 for none). */
export function spreadOf(xs: readonly number[]): Spread {
  const m = mean(xs);
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean: m, sd, min: xs.length ? Math.min(...xs) : 0, max: xs.length ? Math.max(...xs) : 0 };
}

/**
 * Per-query metrics averaged over several evaluations of the same queries (e.g. one per training seed): each
 * query's value is the mean over the evaluations, so paired tests see the seed-averaged system. All must cover the
 * same queries in the same order (`evaluateRun` follows the qrels); otherwise an INVALID_ARGUMENT error.
 */
export function meanPerQueryMetrics(pqs: readonly PerQueryMetrics[]): PerQueryMetrics {
  if (pqs.length === 0) throw new EoError('INVALID_ARGUMENT', 'meanPerQueryMetrics needs at least one evaluation');
  const ids = pqs[0].queryIds;
  pqs.forEach((p, k) => {
    if (p.queryIds.length !== ids.length || p.queryIds.some((q, i) => q !== ids[i]))
      throw new EoError('INVALID_ARGUMENT', `per-query metrics ${k} cover other queries than the first (${p.queryIds.length} vs ${ids.length})`, { index: k });
  });
  const values = Object.fromEntries(METRIC_NAMES.map((m) => [m, ids.map((_, i) => pqs.reduce((s, p) => s + p.values[m][i], 0) / pqs.length)])) as PerQueryMetrics['values'];
  return { queryIds: ids.slice(), values, skippedNoPositives: pqs[0].skippedNoPositives.slice(), missingFromRun: [...new Set(pqs.flatMap((p) => p.missingFromRun))] };
}
