/**
 * Tables and sentences of the per-style evaluation (`lib/study/style-eval.ts`): one display row per system and
 * style with its graded metrics and its paired difference from the reference, and a verdict written from those
 * numbers (winner per style, whether each CI excludes 0).
 */
import { GRADED_METRIC_NAMES, type GradedMetricName } from '../metrics/graded';
import type { StyleRow } from '../study/style-eval';
import { signed as sgn } from './numbers';

const STYLE_ORDER = ['question', 'keyword', 'identifier', 'misspelled', 'all'];

/** Display rows: system, style, n, the graded metrics, and Δ vs the reference for `delta` (default nDCG@10) with CI and p. */
export function styleTableRows(rows: readonly StyleRow[], opts: { delta?: GradedMetricName; reference?: string } = {}): Record<string, string | number>[] {
  const m = opts.delta ?? 'nDCG@10';
  const styleRank = (s: string) => (STYLE_ORDER.indexOf(s) < 0 ? 99 : STYLE_ORDER.indexOf(s));
  return [...rows]
    .sort((a, b) => styleRank(a.style) - styleRank(b.style))
    .map((r) => {
      const d = r.vsReference?.[m];
      return {
        style: r.style, system: r.system, n: r.n,
        ...Object.fromEntries(GRADED_METRIC_NAMES.map((k) => [k, r.metrics[k]])),
        [`Δ${m} vs ${opts.reference ?? 'reference'}`]: d ? d.diff : '',
        '95% CI': d ? `[${d.low.toFixed(3)}, ${d.high.toFixed(3)}]` : '',
        p: d ? d.p : '',
      };
    });
}


/**
 * One paragraph on `system` against the reference, from the rows: the overall difference with its CI and whether the
 * CI excludes 0, then each style where it wins or loses with a CI that excludes 0, and the styles where the CI
 * includes 0 (no detectable difference).
 */
export function styleVerdict(rows: readonly StyleRow[], o: { system: string; reference: string; metric?: GradedMetricName; split?: string }): string {
  const m = o.metric ?? 'nDCG@10';
  const mine = rows.filter((r) => r.system === o.system && r.vsReference);
  const all = mine.find((r) => r.style === 'all');
  if (!all) return `No per-style rows for ${o.system} against ${o.reference}.`;
  const d = all.vsReference![m];
  const sure = (x: { low: number; high: number }) => x.low > 0 || x.high < 0;
  const head = `On the ${o.split ?? 'evaluated'} half (${all.n} queries), **${o.system}** ${d.diff >= 0 ? 'beats' : 'trails'} **${o.reference}** by ${sgn(d.diff)} ${m} overall ` +
    `[95% CI ${sgn(d.low)}, ${sgn(d.high)}]${sure(d) ? ', a CI that excludes 0' : ', a CI that includes 0: no detectable difference'}.`;
  const styles = mine.filter((r) => r.style !== 'all');
  const wins = styles.filter((r) => r.vsReference![m].low > 0).map((r) => `${r.style} (${sgn(r.vsReference![m].diff)})`);
  const losses = styles.filter((r) => r.vsReference![m].high < 0).map((r) => `${r.style} (${sgn(r.vsReference![m].diff)})`);
  const ties = styles.filter((r) => !sure(r.vsReference![m])).map((r) => `${r.style} (${sgn(r.vsReference![m].diff)})`);
  const parts = [
    wins.length ? `It wins on ${wins.join(', ')}` : 'It wins on no style with a CI that excludes 0',
    losses.length ? `loses on ${losses.join(', ')}` : 'loses on no style',
    ties.length ? `and the CI includes 0 on ${ties.join(', ')}` : '',
  ].filter(Boolean);
  return `${head} ${parts.join('; ')}.`;
}
