import { mean } from './metrics';

/** Mean and spread (sample sd, min, max) of a number list: the one summary of values over seeds or shuffles. */
export interface Spread { mean: number; sd: number; min: number; max: number }

/** `Spread` of a list (sd 0 for fewer than two values; all 0 for none). */
export function spreadOf(xs: readonly number[]): Spread {
  const m = mean(xs);
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean: m, sd, min: xs.length ? Math.min(...xs) : 0, max: xs.length ? Math.max(...xs) : 0 };
}
