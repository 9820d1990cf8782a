import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeJsonAtomic } from '../util/fs';
import { compareSystems, type PairedOptions } from './paired';
import { evaluateRun, summarize } from './metrics';
import { writeRunPartsSidecar } from './run-parts';
import { writeTrecQrels, writeTrecRun } from './trec';
import type { EvaluateOptions, MetricName, MetricRow, PairedComparison, PerQueryMetrics, Qrels, Run } from './types';

/** A named run of one system, as compared in the notebooks' tables. */
export interface SystemRun {
  /** One word: TREC run tag and file stem. */
  id: string;
  /** Table label. */
  label: string;
  run: Run;
}

export interface SystemsEvaluation {
  rows: MetricRow[];
  perQuery: Record<string, PerQueryMetrics>;
}

/** Evaluate several systems on the same qrels: one table row and one per-query vector each. */
export function evaluateSystems(systems: readonly SystemRun[], qrels: Qrels, opts: EvaluateOptions = {}): SystemsEvaluation {
  const perQuery: Record<string, PerQueryMetrics> = {};
  const rows = systems.map((s) => {
    perQuery[s.id] = evaluateRun(s.run, qrels, opts);
    return summarize(s.label, perQuery[s.id]);
  });
  return { rows, perQuery };
}

/** A and B compared on every metric, as typed rows naming both systems (`compareSystems` with labels). */
export function pairedComparisons(a: PerQueryMetrics, b: PerQueryMetrics, labelA: string, labelB: string, metrics?: readonly MetricName[], opts: PairedOptions = {}): PairedComparison[] {
  return compareSystems(a, b, metrics, opts).map((c) => ({ ...c, systemA: labelA, systemB: labelB }));
}

/**
 * One comparison as a table row: both means, mean difference with bootstrap CI, randomization p (and Holm p where
 * adjusted), queries improved / tied / worse, and Cohen's d_z with its bootstrap CI.
 */
export function pairedComparisonRow(c: PairedComparison, labelA = c.systemA ?? 'A', labelB = c.systemB ?? 'B') {
  return {
    metric: c.metric,
    [labelA]: c.meanA,
    [labelB]: c.meanB,
    'mean diff (A−B)': c.meanDiff,
    'CI95 low': c.ciLow,
    'CI95 high': c.ciHigh,
    p: c.pValue,
    ...(c.pHolm === undefined ? {} : { 'p (Holm)': c.pHolm }),
    n: c.n,
    improved: c.improved,
    tied: c.tied,
    worse: c.worse,
    'd_z': c.effectSize,
    'd_z CI95 low': c.effectSizeCi95[0],
    'd_z CI95 high': c.effectSizeCi95[1],
  };
}

/**
 * Typed comparisons as display rows (`pairedComparisonRow` each), for tables only: verdicts, sentences and claim
 * checks read the comparisons themselves, never these columns.
 */
export function pairedTable(comparisons: readonly PairedComparison[]): ReturnType<typeof pairedComparisonRow>[] {
  return comparisons.map((c) => pairedComparisonRow(c));
}

/**
 * Write `<dir>/<id>.<split>.run` for each system and `<dir>/qrels.<split>.trec`; returns the paths. A run that carries
 * score parts (`runScoreParts`) also gets its `<id>.<split>.parts.json` sidecar (not in the returned list, which
 * holds run and qrels files only).
 */
export function writeRunFiles(dir: string, systems: readonly SystemRun[], qrels: Qrels, split: string, depth = 100): string[] {
  const files = systems.map((s) => {
    const f = path.join(dir, `${s.id}.${split}.run`);
    writeTrecRun(f, s.run, s.id, depth);
    writeRunPartsSidecar(f, s.run, s.id, split);
    return f;
  });
  recordRunLabels(dir, systems);
  const q = path.join(dir, `qrels.${split}.trec`);
  writeTrecQrels(q, qrels);
  return [...files, q];
}

/** The file beside a notebook's run files that names each run id's system label (the run explorer shows labels). */
export const RUN_LABELS_FILE = 'run-labels.json';

/**
 * Merge `{ id: label }` of these systems into the folder's RUN_LABELS_FILE (written atomically; ids written by an
 * earlier call, e.g. the other split or another table of the same notebook, are kept).
 */
export function recordRunLabels(dir: string, systems: readonly Pick<SystemRun, 'id' | 'label'>[]): void {
  const labels = { ...readRunLabels(dir), ...Object.fromEntries(systems.map((s) => [s.id, s.label])) };
  writeJsonAtomic(path.join(dir, RUN_LABELS_FILE), labels);
}

/** The run-id → label map of a folder's RUN_LABELS_FILE; {} when absent or unreadable (the explorer then shows ids). */
export function readRunLabels(dir: string): Record<string, string> {
  try {
    const body = JSON.parse(fs.readFileSync(path.join(dir, RUN_LABELS_FILE), 'utf8')) as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
    return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}
