/**
 * The one rule that calls a paired difference significant. Every sentence, verdict and claim check reads its
 * conclusion from here, so that no text calls significant what the notebook's own multiple-comparison correction
 * does not (issue 44: five places used to decide it from the raw CI alone).
 */
import type { PairedComparison } from './types';

/** The level at which p is read, the 95% CI's counterpart. */
export const SIGNIFICANCE_LEVEL = 0.05;

/** What the rule needs of a comparison: the bootstrap CI, and the p-values where it has them. */
export type SignificanceInput = Pick<PairedComparison, 'ciLow' | 'ciHigh'> & {
  pValue?: number | null;
  pHolm?: number | null;
};

/** Whether the 95% CI of the mean difference lies entirely on one side of 0. */
export const ciExcludesZero = (c: Pick<PairedComparison, 'ciLow' | 'ciHigh'>): boolean => c.ciLow > 0 || c.ciHigh < 0;

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/** The p a conclusion is read from: the corrected (Holm) p where the comparison is one of a corrected family, else the raw p; null without one. */
export function decisionP(c: Pick<SignificanceInput, 'pValue' | 'pHolm'>): number | null {
  if (finite(c.pHolm)) return c.pHolm;
  return finite(c.pValue) ? c.pValue : null;
}

/**
 * Significant at `alpha`: the bootstrap CI excludes 0 and the decision p (`decisionP`: Holm where corrected) is below
 * `alpha`; a comparison with no p at all is read from its CI alone.
 */
export function isSignificant(c: SignificanceInput, alpha = SIGNIFICANCE_LEVEL): boolean {
  const p = decisionP(c);
  return ciExcludesZero(c) && (p === null || p < alpha);
}

/**
 * The state of a comparison, for the words that describe it:
 *  - 'significant': `isSignificant`;
 *  - 'not after correction': the raw tests agree it is significant (CI excludes 0, raw p < alpha) but the corrected p does not;
 *  - 'tests disagree': the bootstrap CI and the raw randomization p disagree at alpha (borderline either way);
 *  - 'not significant': CI includes 0 and p ≥ alpha (or no p).
 */
export type SignificanceState = 'significant' | 'not after correction' | 'tests disagree' | 'not significant';

export function significanceState(c: SignificanceInput, alpha = SIGNIFICANCE_LEVEL): SignificanceState {
  if (isSignificant(c, alpha)) return 'significant';
  const excludes = ciExcludesZero(c);
  if (!finite(c.pValue)) return 'not significant';
  const raw = c.pValue < alpha;
  if (excludes !== raw) return 'tests disagree';
  return excludes ? 'not after correction' : 'not significant';
}

/** +1 when A is significantly above B, −1 when significantly below, 0 otherwise. */
export function significantSide(c: SignificanceInput & Pick<PairedComparison, 'meanDiff'>, alpha = SIGNIFICANCE_LEVEL): -1 | 0 | 1 {
  if (!isSignificant(c, alpha)) return 0;
  return c.meanDiff > 0 ? 1 : c.meanDiff < 0 ? -1 : 0;
}
