/** Number formats shared by the generated text of the notebooks (verdicts, captions, table notes). */
import { SIGNIFICANCE_LEVEL } from '../metrics/significance';

/** Three decimals: `0.342`. */
export const f3 = (x: number): string => x.toFixed(3);

/** A difference with its sign and three decimals: `+0.024`, `−0.011` (a real minus sign). */
export const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

/**
 * A CI bound as `signed` writes it, except that a bound that is not 0 never reads as 0: `+0.0002`, not `+0.000`, so that a
 * CI that excludes 0 does not read as one that touches it (one significant digit, at most 8 decimals).
 */
export const signedBound = (x: number): string => {
  const a = Math.abs(x);
  if (a === 0 || a >= 0.0005 || !Number.isFinite(a)) return signed(x);
  return `${x > 0 ? '+' : '−'}${a.toFixed(Math.min(8, -Math.floor(Math.log10(a))))}`;
};

/** A finite number, else null (loosely typed JSON fields). */
export const finiteOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * A p-value: three decimals, or `1e-4` style below 0.001; four where three would put it on the other side of the
 * significance level (p = 0.0496 reads `0.0496`, not `0.050`, which a reader — and the claim check — takes for ≥ .05).
 */
export const pText = (p: number): string => {
  if (p < 1e-3) return p.toExponential(0);
  const shown = p.toFixed(3);
  return (p < SIGNIFICANCE_LEVEL) === (Number(shown) < SIGNIFICANCE_LEVEL) ? shown : p.toFixed(4);
};
