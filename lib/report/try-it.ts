/**
 * "Try it" cells: the reader changes one knob and sees its effect at once. The text under the result is generated
 * here (the one home of that text; lib/train/try-it.ts computes the trained knobs' rows): a tried metric row against
 * the reported one, metric by metric, and whether the knob is back at the default.
 */
import { METRIC_NAMES, type MetricName, type MetricRow } from '../metrics/types';
import type { TryItResult } from '../train/try-it';
import { resultVerdict } from './lesson';
import { signed } from './numbers';

/** The settings as `k1 = 0.9, b = 0.4`. */
export function knobText(settings: Readonly<Record<string, unknown>>): string {
  return Object.entries(settings).map(([k, v]) => `${k} = ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
}

/**
 * The tried row against the reported one: the change of each metric, which metrics rose and fell, and a note when
 * the knob is at its default (then the numbers must equal the reported ones, and the text says whether they do).
 * Markdown.
 */
export function knobVerdict(input: {
  reported: MetricRow;
  tried: MetricRow;
  settings: Readonly<Record<string, unknown>>;
  defaults: Readonly<Record<string, unknown>>;
  metrics?: readonly MetricName[];
  /** Differences below this count as none. Default 1e-9. */
  tolerance?: number;
}): string {
  const metrics = input.metrics ?? METRIC_NAMES;
  const tol = input.tolerance ?? 1e-9;
  const atDefault = Object.keys(input.defaults).every((k) => input.settings[k] === input.defaults[k]);
  const diffs = metrics.map((m) => ({ m, d: input.tried[m] - input.reported[m] }));
  const up = diffs.filter((x) => x.d > tol);
  const down = diffs.filter((x) => x.d < -tol);
  const out: string[] = [];
  if (atDefault) {
    out.push(up.length + down.length === 0
      ? `With the defaults (${knobText(input.settings)}) the tried row equals the reported **${input.reported.system}** row on every metric: change a value above and re-run this cell.`
      : `The knobs are at their defaults (${knobText(input.settings)}) but the tried row differs from the reported one on ${[...up, ...down].map((x) => x.m).join(', ')}: the reported row was made with other settings.`);
    return out.join('\n');
  }
  out.push(`With ${knobText(input.settings)} (defaults: ${knobText(input.defaults)}), against the reported **${input.reported.system}**:`);
  out.push(diffs.map((x) => `${x.m} ${input.tried[x.m].toFixed(3)} (${Math.abs(x.d) <= tol ? 'unchanged' : signed(x.d)})`).join(' · '));
  out.push(up.length === 0 && down.length === 0
    ? 'No metric moved: on these queries the rankings\' relevant positions did not change.'
    : `${up.length ? `Up on ${up.map((x) => x.m).join(', ')}` : 'Nothing rose'}; ${down.length ? `down on ${down.map((x) => x.m).join(', ')}` : 'nothing fell'}. ` +
      'One knob setting on the test split is an illustration, not tuning: choosing it here would fit the test queries.');
  return out.join('\n\n');
}

/**
 * The paragraph under a Try-it table: at the default setting, that the reported row came back (and how to change the
 * knob); otherwise `resultVerdict` of the tried row against the reported one.
 */
export function tryItVerdict(tried: TryItResult, ctx: Omit<Parameters<typeof resultVerdict>[0], 'rows' | 'paired' | 'a' | 'b'> & { knobs: string }): string {
  if (!tried.changed || tried.rows.length < 2)
    return `Default setting (${tried.setting}): the reported row, re-derived from its run file. Change ${ctx.knobs} above and run the cell again to train another model.`;
  return resultVerdict({ ...ctx, rows: tried.rows, paired: tried.paired, a: tried.rows[1].system, b: tried.rows[0].system });
}
