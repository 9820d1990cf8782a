/** Number formats shared by the generated text of the notebooks (verdicts, captions, table notes). */

/** Three decimals: `0.342`. */
export const f3 = (x: number): string => x.toFixed(3);

/** A difference with its sign and three decimals: `+0.024`, `−0.011` (a real minus sign). */
export const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

/** A finite number, else null (loosely typed JSON fields). */
export const finiteOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A p-value: three decimals, or `1e-4` style below 0.001. */
export const pText = (p: number): string => (p < 1e-3 ? p.toExponential(0) : p.toFixed(3));
