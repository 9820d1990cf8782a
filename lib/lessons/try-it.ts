/**
 * The "Try it" cells of the training notebooks (03, 04), shared: the reader changes one knob and sees its effect on
 * the test split next to the reported row. At the default setting nothing trains: the reported run is evaluated
 * again, so the reported numbers come back exactly. Another setting trains once into its own checkpoint folder
 * (`…-try-…`, reused when the same setting is tried again), never over the reported checkpoint. Each notebook's knob
 * lives in its lesson module (`tryFinetuneSchedule` in encoder-finetune.ts, `tryNnsscNegatives` in nnssc.ts);
 * notebook 02's untrained BM25 knob is `knobVerdict` in baselines.ts.
 */
import type { Qrels } from '../metrics/types';
import { EoError } from '../errors';
import { evaluateRun, summarize } from '../metrics/metrics';
import { pairedRows } from '../metrics/systems';
import type { MetricRow, Run } from '../metrics/types';
import { resultVerdict } from '../report/lesson';

/** What a Try-it cell shows: the reported row and, when a knob changed, the tried row and the paired comparison. */
export interface TryItResult {
  /** False at the default setting (only the reported row, re-derived from its run). */
  changed: boolean;
  /** The reported row, then the tried one (when changed). */
  rows: MetricRow[];
  /** Tried − reported, paired over the test queries (pairedRows); empty when unchanged. */
  paired: ReturnType<typeof pairedRows>;
  /** The knobs as tried, e.g. `hardNegatives=5, randomNegatives=15`. */
  setting: string;
  /** Checkpoint folder of the tried model (null when unchanged). */
  dir: string | null;
}

/** Knobs as `hardNegatives=5, randomNegatives=15`. */
export const knobSetting = (o: Readonly<Record<string, number>>): string => Object.entries(o).map(([k, v]) => `${k}=${v}`).join(', ');

/** Each knob must be a finite number ≥ its minimum (default 0); `INVALID_ARGUMENT` naming the knob otherwise. */
export function checkKnobs(knobs: Readonly<Record<string, unknown>>, where: string, min: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(knobs)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < (min[k] ?? 0))
      throw new EoError('INVALID_ARGUMENT', `${where}: ${k} must be a number ≥ ${min[k] ?? 0}, got ${JSON.stringify(v)}`, { knob: k });
  }
}

/** The Try-it result of a reported run and, when a knob changed, the tried one (paired tried − reported). */
export function compareTried(reported: { label: string; run: Run }, tried: { label: string; run: Run } | null, qrels: Qrels, setting: string, dir: string | null): TryItResult {
  const a = evaluateRun(reported.run, qrels);
  if (!tried) return { changed: false, rows: [summarize(reported.label, a)], paired: [], setting, dir: null };
  const b = evaluateRun(tried.run, qrels);
  return { changed: true, rows: [summarize(reported.label, a), summarize(tried.label, b)], paired: pairedRows(b, a, tried.label, reported.label), setting, dir };
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
