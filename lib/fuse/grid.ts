import { EoError } from '../errors';
import { evaluateRun, summarize } from '../metrics/metrics';
import type { MetricRow, Qrels, Run } from '../metrics/types';
import { topKScoredHits } from '../retrieve/topk';
import { analyticAlpha, assertConvexAlpha, performanceIndex } from './alpha';
import { convexOfNormalized, minMaxNormalize } from './minmax';

/** α = 0, 0.05, …, 1. */
export const DEFAULT_ALPHA_GRID: readonly number[] = Array.from({ length: 21 }, (_, i) => Math.round(i * 5) / 100);

/** Depth of the runs evaluated here. */
const RUN_DEPTH = 100;

/** One query's top-`depth` ranking from its full score vector (ties by dataset id descending, as trec_eval). */
function rankedHits(scores: ArrayLike<number>, datasetIds: readonly string[], depth = RUN_DEPTH): { docId: string; score: number }[] {
  return topKScoredHits(scores, depth, datasetIds).map((h) => ({ docId: datasetIds[h.index], score: h.score }));
}

/** Top-`depth` run from full score vectors (ties by dataset id descending, as trec_eval). */
export function runFromScoreVectors(queryIds: readonly string[], scores: readonly ArrayLike<number>[], datasetIds: readonly string[], depth = RUN_DEPTH): Run {
  const run: Run = new Map();
  queryIds.forEach((qid, i) => run.set(qid, rankedHits(scores[i], datasetIds, depth)));
  return run;
}

export interface AlphaGridPoint {
  alpha: number;
  /** Objective (default π, the mean of the five metrics) on the training split. */
  value: number;
  row: MetricRow;
}

export interface AlphaGridResult {
  alpha: number;
  value: number;
  curve: AlphaGridPoint[];
}

/** Both scorers' full score vectors on the training queries, with what evaluating them needs. */
export interface TrainingScoreVectors {
  /** Per training query, the semantic scorer's scores (corpus order). */
  semantic: readonly Float32Array[];
  /** Per training query, the lexical scorer's scores. */
  lexical: readonly Float32Array[];
  queryIds: readonly string[];
  qrels: Qrels;
  /** Dataset ids in corpus order. */
  datasetIds: readonly string[];
  /** α values tried by the grid. Default DEFAULT_ALPHA_GRID (0, 0.05, …, 1). */
  grid?: readonly number[];
}

/**
 * Grid search of the fusion weight on the TRAINING split (beyond the paper, which sets α analytically):
 * each α of the grid fuses the per-query score vectors, the run is evaluated against the training qrels, and the
 * α with the highest objective wins (ties: the one closest to 0.5, then the smaller).
 */
export function gridSearchAlpha(opts: TrainingScoreVectors & { objective?: (row: MetricRow) => number }): AlphaGridResult {
  const grid = opts.grid ?? DEFAULT_ALPHA_GRID;
  const objective = opts.objective ?? performanceIndex;
  if (grid.length === 0) throw new EoError('INVALID_ARGUMENT', 'gridSearchAlpha: empty grid');
  if (opts.semantic.length !== opts.queryIds.length || opts.lexical.length !== opts.queryIds.length)
    throw new EoError('INVALID_ARGUMENT', 'gridSearchAlpha: score lists and query ids differ in length');
  for (const alpha of grid) assertConvexAlpha(alpha, 'gridSearchAlpha');
  // each query's vectors normalised once, not once per α: the fused scores are fuseConvex's, value for value
  const semantic = opts.semantic.map((v) => minMaxNormalize(v));
  const lexical = opts.lexical.map((v) => minMaxNormalize(v));
  const fused = new Float32Array(opts.datasetIds.length);
  const curve: AlphaGridPoint[] = grid.map((alpha) => {
    const run: Run = new Map();
    opts.queryIds.forEach((qid, i) => {
      run.set(qid, rankedHits(convexOfNormalized(semantic[i], lexical[i], alpha, fused), opts.datasetIds));
    });
    const row = summarize(`α=${alpha}`, evaluateRun(run, opts.qrels));
    return { alpha, value: objective(row), row };
  });
  let best = curve[0];
  for (const p of curve.slice(1)) {
    const d = p.value - best.value;
    if (d > 1e-12 || (Math.abs(d) <= 1e-12 && Math.abs(p.alpha - 0.5) < Math.abs(best.alpha - 0.5))) best = p;
  }
  return { alpha: best.alpha, value: best.value, curve };
}

/** Analytic α (Eq. 7) from the two scorers' training-split rows, with the π values for the report. */
export function analyticAlphaReport(semanticTrain: MetricRow, lexicalTrain: MetricRow): { alpha: number; piSemantic: number; piLexical: number } {
  return { alpha: analyticAlpha(semanticTrain, lexicalTrain), piSemantic: performanceIndex(semanticTrain), piLexical: performanceIndex(lexicalTrain) };
}

/** How α is set on the training split: analytic (paper Eq. 7) or grid search (beyond the paper). */
export type AlphaMethod = 'analytic' | 'grid';

/** α set on the training split, with what it came from. */
export interface TrainingAlpha {
  alpha: number;
  method: AlphaMethod;
  /** π of each scorer alone on the training split (Eq. 7's inputs). */
  piSemantic: number;
  piLexical: number;
  /** Grid only: π on the training split at each α of the grid. */
  curve?: { alpha: number; value: number }[];
  /** Training queries α was set on. */
  queries: number;
}

/**
 * THE function that sets the fusion weight: from both scorers' full score vectors on the TRAINING split (never the
 * test split), α by Eq. 7 (`analytic`) or by grid search of π (`grid`, `gridSearchAlpha`).
 */
export function trainingAlpha(method: AlphaMethod, train: TrainingScoreVectors): TrainingAlpha {
  if (method !== 'analytic' && method !== 'grid') throw new EoError('INVALID_ARGUMENT', `trainingAlpha: method must be analytic or grid, got ${String(method)}`);
  const row = (scores: readonly Float32Array[], name: string) => summarize(name, evaluateRun(runFromScoreVectors(train.queryIds, scores, train.datasetIds), train.qrels));
  const a = analyticAlphaReport(row(train.semantic, 'semantic'), row(train.lexical, 'lexical'));
  if (method === 'analytic') return { alpha: a.alpha, method, piSemantic: a.piSemantic, piLexical: a.piLexical, queries: train.queryIds.length };
  const g = gridSearchAlpha({ ...train, grid: train.grid });
  return { alpha: g.alpha, method, piSemantic: a.piSemantic, piLexical: a.piLexical, curve: g.curve.map((p) => ({ alpha: p.alpha, value: p.value })), queries: train.queryIds.length };
}
