/**
 * Paired comparisons in words and in tables: the one phrasing of a typed `PairedComparison` (lib/metrics), the Holm
 * family and the conclusions it changes, and the randomised Tukey HSD matrix as rows and a heat map.
 */
import type { TukeyHsd } from '../metrics/multiple';
import { ciExcludesZero, significanceState, significantSide, SIGNIFICANCE_LEVEL } from '../metrics/significance';
import type { PairedComparison } from '../metrics/types';
import { heatmapFigure, type HeatmapOptions } from './heatmap';
import { pText, signed, signedBound } from './numbers';
import type { Figure, TableRow } from './types';

/** What `pairedText` needs of a comparison: the typed row's numbers (the rest optional). */
export type PairedNumbers = Pick<PairedComparison, 'metric' | 'meanDiff' | 'ciLow' | 'ciHigh'> &
  Partial<Pick<PairedComparison, 'pValue' | 'pHolm' | 'effectSize' | 'effectSizeCi95' | 'improved' | 'tied' | 'worse'>>;

export interface PairedTextOptions {
  /**
   * 'sentence' (default): `**MAP** +0.031 [+0.004, +0.060]: A is ahead; the 95% CI **excludes 0** (p = 0.021).`;
   * 'clause': `ΔMAP +0.031 (95% CI [+0.004, +0.060], **excludes 0**; p = 0.021)` (inside a longer line);
   * 'interval': `+0.031 [+0.004, +0.060]`.
   */
  form?: 'sentence' | 'clause' | 'interval';
  /** Names of A and B in the sentence form. Default 'A' and 'B'. */
  labelA?: string;
  labelB?: string;
}

/** p, and the Holm-adjusted p where the comparison is one of a family: `p = 0.021, Holm 0.084`. */
function pClause(c: PairedNumbers): string {
  if (c.pValue === undefined || !Number.isFinite(c.pValue)) return '';
  return `p = ${pText(c.pValue)}${c.pHolm === undefined ? '' : `, Holm ${pText(c.pHolm)}`}`;
}

/** An effect size with two decimals and a real minus sign. */
const dz = (x: number): string => `${x < 0 ? '−' : ''}${Math.abs(x).toFixed(2)}`;

/** Queries improved / tied / worse and d_z with its CI, where the comparison carries them. */
function effectClause(c: PairedNumbers): string {
  const parts: string[] = [];
  if (c.improved !== undefined && c.tied !== undefined && c.worse !== undefined) parts.push(`${c.improved} ${c.improved === 1 ? 'query' : 'queries'} better, ${c.tied} tied, ${c.worse} worse`);
  if (c.effectSize !== undefined && c.effectSizeCi95) parts.push(`d_z ${dz(c.effectSize)} [${dz(c.effectSizeCi95[0])}, ${dz(c.effectSizeCi95[1])}]`);
  return parts.join('; ');
}

/**
 * Where the bootstrap CI and the randomization test disagree (the CI excludes 0 but p ≥ SIGNIFICANCE_LEVEL, or the
 * reverse), a clause saying which test says what, so that a reader does not take one for both; '' otherwise.
 */
export function testsDisagreeText(c: PairedNumbers): string {
  if (c.pValue === undefined || significanceState(c) !== 'tests disagree') return '';
  return ciExcludesZero(c)
    ? `the two tests disagree: the bootstrap CI excludes 0 but the randomization test gives p = ${pText(c.pValue)} ≥ ${SIGNIFICANCE_LEVEL}, so the difference is borderline, not established`
    : `the two tests disagree: the randomization test gives p = ${pText(c.pValue)} < ${SIGNIFICANCE_LEVEL} but the bootstrap CI includes 0, so the difference is borderline`;
}

/** The words for a CI that excludes 0 but is not significant after the correction (significanceState 'not after correction'). */
export const NOT_AFTER_HOLM = 'not significant after Holm';

/** Where the raw tests agree on significance but the Holm-corrected p does not: the clause that says so; '' otherwise. */
export function notAfterCorrectionText(c: PairedNumbers): string {
  if (significanceState(c) !== 'not after correction' || c.pHolm === undefined) return '';
  return `${NOT_AFTER_HOLM} (Holm p = ${pText(c.pHolm)} ≥ ${SIGNIFICANCE_LEVEL}), so not established`;
}

/**
 * The one phrasing of a paired difference A − B (see `PairedTextOptions.form`). "**excludes 0**" is bold only when the
 * difference is significant by the one rule (`isSignificant`: CI and the corrected p); it says so where the two
 * tests disagree, and where the CI excludes 0 but the Holm-corrected p does not hold.
 */
export function pairedText(c: PairedNumbers, opts: PairedTextOptions = {}): string {
  const ci = `[${signedBound(c.ciLow)}, ${signedBound(c.ciHigh)}]`;
  const interval = `${signed(c.meanDiff)} ${ci}`;
  const form = opts.form ?? 'sentence';
  if (form === 'interval') return interval;
  const excludes = ciExcludesZero(c);
  const zero = significantSide(c) !== 0 ? '**excludes 0**' : excludes ? 'excludes 0' : 'includes 0';
  const p = pClause(c);
  const effect = effectClause(c);
  const caveat = testsDisagreeText(c) || notAfterCorrectionText(c);
  if (form === 'clause')
    return `Δ${c.metric} ${signed(c.meanDiff)} (95% CI ${ci}, ${zero}${p ? `; ${p}` : ''})` +
      (caveat ? ` — **${caveat}**` : '');
  const who = c.meanDiff > 0 ? `${opts.labelA ?? 'A'} is ahead` : c.meanDiff < 0 ? `${opts.labelB ?? 'B'} is ahead` : 'no difference';
  return `**${c.metric}** ${interval}: ${who}; the 95% CI ${zero}` + (p ? ` (${p})` : '') +
    (caveat ? `; **${caveat}**.` : excludes ? '.' : ', so this split cannot tell the two apart on it.') + (effect ? ` ${effect[0].toUpperCase()}${effect.slice(1)}.` : '');
}

/** The Holm family in words, e.g. "Holm over the 13 rows compared with the best one (MAP)". */
export function holmFamilyText(size: number, reference: string, metric?: string): string {
  return `Holm over the ${size} row${size === 1 ? '' : 's'} compared with ${reference}${metric ? ` (${metric})` : ''}`;
}

/**
 * The caption note of a table whose rows are Holm-adjusted per family: the families, and the rows significant at
 * .05 raw but not after Holm (or that none change). Markdown.
 */
export function holmNote(comparisons: readonly PairedComparison[], changed: readonly PairedComparison[], alpha = 0.05): string {
  const families = [...new Set(comparisons.map((c) => c.family).filter((f): f is string => !!f))];
  if (families.length === 0) return '';
  const head = `p (Holm): ${families.length === 1 ? families[0] : `${families[0].replace(/ \([^)]*\)$/, '')}, per metric`}.`;
  if (changed.length === 0) return `${head} No conclusion at ${alpha} changes after Holm.`;
  const list = changed.map((c) => `${c.systemA ?? 'A'} vs ${c.systemB ?? 'B'} on ${c.metric} (p ${pText(c.pValue)} → Holm ${pText(c.pHolm!)})`);
  return `${head} Significant at ${alpha} raw but not after Holm: ${list.join('; ')}.`;
}

/** The Tukey HSD matrix as table rows: one row per system, its mean, and p against every other system. */
export function tukeyRows(t: TukeyHsd): TableRow[] {
  return t.systems.map((s, i) => {
    const row: TableRow = { system: s, mean: t.means[i] };
    t.systems.forEach((o, j) => { row[o] = i === j ? null : t.p[i][j]; });
    return row;
  });
}

/** The Tukey HSD p-values as a compact heat map (dark = small p, i.e. a pair told apart); cells show p to 2 digits. */
export function tukeyHeatmap(t: TukeyHsd, opts: HeatmapOptions = {}): Figure {
  const z = t.p.map((r) => r.map((p) => 1 - p));
  // sized to its labels: the system names label both axes, and a fixed-size figure with Table 2's long row names left
  // the plot no room (plotly: "Something went wrong with axis scaling"); ~8 px a character, 36 px a cell
  const labels = 8 * Math.max(0, ...t.systems.map((s) => s.length));
  const cells = 36 * t.systems.length;
  const fig = heatmapFigure(z, t.systems, t.systems, { digits: 2, width: labels + cells + 160, height: labels + cells + 120, ...opts, annotate: false });
  const annotations = t.p.flatMap((r, i) => r.map((p, j) => ({ x: t.systems[j], y: t.systems[i], text: i === j ? '' : p.toFixed(2), showarrow: false, font: { color: p < 0.5 ? 'white' : 'black' } })));
  // the colour is 1 − p so that told-apart pairs are dark; hover and labels show p itself
  const data = fig.data.map((d) => ({ ...d, customdata: t.p, hovertemplate: '%{y} vs %{x}: p = %{customdata:.3f}<extra></extra>' }));
  return { ...fig, data, layout: { ...(fig.layout ?? {}), annotations } };
}

/** How `vsReferenceVerdict` starts: the claim check finds the sentence by it. */
export const VS_REFERENCE_HEAD = '**Against the strong short baseline.**';

/**
 * Every row against one reference row (e.g. `BM25-stop`) on one metric, in words: the rows significantly above and
 * below it after Holm over the rows compared (`isSignificant`: CI excludes 0 and p Holm < .05; the side given by the
 * mean difference), and how many are not distinguishable from it. Markdown, starting with `VS_REFERENCE_HEAD`.
 */
export function vsReferenceVerdict(comparisons: readonly PairedComparison[], reference: string, metric: string, alpha = SIGNIFICANCE_LEVEL): string {
  const rows = comparisons.filter((c) => c.metric === metric);
  const above = rows.filter((c) => significantSide(c, alpha) > 0).map((c) => c.systemA ?? '?');
  const below = rows.filter((c) => significantSide(c, alpha) < 0).map((c) => c.systemA ?? '?');
  const names = (xs: readonly string[]) => (xs.length ? xs.map((x) => `**${x}**`).join(', ') : 'none');
  const rest = rows.length - above.length - below.length;
  return `${VS_REFERENCE_HEAD} Every row against **${reference}** on ${metric}, paired, Holm over the ${rows.length} rows compared: ` +
    `significantly above it: ${names(above)}; significantly below it: ${names(below)}; not distinguishable from it (CI includes 0 or p Holm ≥ ${alpha}): ${rest} row${rest === 1 ? '' : 's'}.`;
}
