/**
 * The "Try it" cells of the training notebooks (03, 04), shared: the reader changes one knob and sees its effect on
 * the test split next to the reported row. At the default setting nothing trains: the reported run is evaluated
 * again, so the reported numbers come back exactly. Another setting trains, never over the reported checkpoint: 03
 * once into its own checkpoint folder (`…-try-…`, reused when the same setting is tried again; `tryFinetuneSchedule`
 * in encoder-finetune.ts), 04 in the cell itself with `trainNnssc` (nothing saved; `nnsscTryConfig`,
 * `nnsscTriedResult` in nnssc.ts); notebook 02's untrained BM25 knob is `knobVerdict` in baselines.ts.
 */
import type { Qrels } from '../metrics/types';
import { EoError } from '../errors';
import { evaluateRun, summarize } from '../metrics/metrics';
import { pairedComparisons } from '../metrics/systems';
import type { MetricRow, PairedComparison, Run } from '../metrics/types';
import { NASA_EO_BENCH } from '../bench/paper';
import { showMarkdown, showTable } from '../report/display';
import { resultVerdict } from '../report/lesson';
import { paperTable2Value } from '../report/paper';
import type { TableSource } from '../report/types';

/** What a Try-it cell shows: the reported row and, when a knob changed, the tried row and the paired comparison. */
export interface TryItResult {
  /** False at the default setting (only the reported row, re-derived from its run). */
  changed: boolean;
  /** The reported row, then the tried one (when changed). */
  rows: MetricRow[];
  /** Tried − reported, paired over the test queries (typed comparisons); empty when unchanged. */
  paired: PairedComparison[];
  /** The knobs as tried, e.g. `hardNegatives=5, randomNegatives=15`. */
  setting: string;
  /** Checkpoint folder of the tried model, or where its weights are (null when unchanged). */
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
  return { changed: true, rows: [summarize(reported.label, a), summarize(tried.label, b)], paired: pairedComparisons(b, a, tried.label, reported.label), setting, dir };
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

/** What a training notebook's Try-it output needs besides the result (03 and 04). */
export interface TrainingTryItContext {
  source: TableSource; fallbackDir: string; sample: boolean; queries: number; datasets: number; writerLabel?: string; trainQueries: number;
}

/**
 * A training notebook's Try-it output (03, 04): the reported (and tried) rows, then the paragraph under them, which
 * names the notebook's knobs and why its numbers differ from the paper's (`reason`, plus the training split's size).
 */
export function showTrainingTryIt(tried: TryItResult, ctx: TrainingTryItContext & { knobs: string; reason: string }): void {
  showTable(tried.rows, { title: `Try it: ${tried.setting}`, digits: 4, best: tried.changed, source: { ...ctx.source, settings: { ...ctx.source.settings, tried: tried.setting, checkpoint: tried.dir ?? ctx.fallbackDir } } });
  showMarkdown(tryItVerdict(tried, {
    knobs: ctx.knobs, sample: ctx.sample, queries: ctx.queries, datasets: ctx.datasets, writerLabel: ctx.writerLabel, paperValue: paperTable2Value,
    reasons: [ctx.reason, trainingScaleClause(ctx.trainQueries)],
  }));
}

/**
 * The size of this benchmark's training split beside NASA-EO-Bench's test split (the one size of its splits the paper
 * notes give; lib/bench/paper.ts), as a clause: `this benchmark's training split has 58 queries, 73.0× fewer than
 * NASA-EO-Bench's test split alone (4,234 queries)`. Notebooks 03 and 04 show it and give it as a reason their trained
 * rows differ from the paper's.
 */
export function trainingScaleClause(trainQueries: number): string {
  const paper = NASA_EO_BENCH.test;
  const how = trainQueries === paper ? 'as many as' : trainQueries < paper ? `${(paper / Math.max(trainQueries, 1)).toFixed(1)}× fewer than` : `${(trainQueries / paper).toFixed(1)}× more than`;
  return `this benchmark's training split has ${trainQueries.toLocaleString('en-US')} queries, ${how} NASA-EO-Bench's test split alone (${paper.toLocaleString('en-US')} queries)`;
}
