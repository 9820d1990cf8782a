import { EoError } from '../errors';
import type { Qrels } from '../metrics/types';
import { mulberry32, shuffleInPlace } from '../util/random';
import type { BackboneList } from './compose';
import { leaveOutBySource, OFFLINE_FEATURES, windowFeatures, type TrainingPriors } from './features';
import { newTrace } from './listwise';
import type { RerankCandidate, RerankQuery, Reranker } from './types';

/** A linear scoring function over standardised features, trained with a pairwise logistic (RankNet) loss. */
export interface LinearRankModel {
  features: string[];
  mean: number[];
  std: number[];
  weights: number[];
  seed: number;
  config: Required<PairwiseTrainOptions>;
  /** Training pairs used and the mean pairwise loss of the last epoch. */
  pairs: number;
  finalLoss: number;
}

export interface PairwiseTrainOptions {
  /** Seed of the pair shuffling. Default 42. */
  seed?: number;
  /** Passes over the pairs. Default 40. */
  epochs?: number;
  /** SGD step size. Default 0.05. */
  learningRate?: number;
  /** L2 penalty per step. Default 1e-4. */
  l2?: number;
}

/** One training group: the rows of one window and their 0/1 labels. */
export interface RankGroup {
  x: number[][];
  y: number[];
}

/**
 * Train a linear scorer with pairwise logistic loss log(1 + exp(−w·(x⁺ − x⁻))) over every (relevant, non-relevant)
 * pair inside each group; features standardised with the training mean/std. Plain SGD, pairs shuffled with
 * mulberry32(seed): the same data and seed give the same weights.
 */
export function trainPairwiseRanker(groups: readonly RankGroup[], features: readonly string[], opts: PairwiseTrainOptions = {}): LinearRankModel {
  const config = { seed: opts.seed ?? 42, epochs: opts.epochs ?? 40, learningRate: opts.learningRate ?? 0.05, l2: opts.l2 ?? 1e-4 };
  const d = features.length;
  const rows = groups.flatMap((g) => g.x);
  if (rows.length === 0) throw new EoError('INVALID_ARGUMENT', 'trainPairwiseRanker: no training rows');
  for (const r of rows) if (r.length !== d) throw new EoError('INVALID_ARGUMENT', `trainPairwiseRanker: row has ${r.length} features, expected ${d}`);
  const mean = new Array(d).fill(0);
  const std = new Array(d).fill(0);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j] += r[j] / rows.length;
  for (const r of rows) for (let j = 0; j < d; j++) std[j] += (r[j] - mean[j]) ** 2 / rows.length;
  for (let j = 0; j < d; j++) std[j] = Math.sqrt(std[j]) || 1;
  const z = (r: number[]) => r.map((v, j) => (v - mean[j]) / std[j]);
  // every (relevant, non-relevant) difference, row after row in one buffer (float64: the numbers of per-pair arrays,
  // without a hundred thousand small arrays to allocate and chase)
  let count = 0;
  for (const g of groups) {
    let pos = 0;
    for (const y of g.y) if (y > 0) pos++;
    count += pos * (g.y.length - pos);
  }
  const diffs = new Float64Array(count * d);
  let row = 0;
  for (const g of groups) {
    const zx = g.x.map(z);
    for (let a = 0; a < g.y.length; a++)
      if (g.y[a] > 0)
        for (let b = 0; b < g.y.length; b++)
          if (g.y[b] <= 0) {
            for (let j = 0; j < d; j++) diffs[row * d + j] = zx[a][j] - zx[b][j];
            row++;
          }
  }
  const w = new Float64Array(d);
  const rng = mulberry32(config.seed);
  // the pairs' order, shuffled in place each epoch as the pairs themselves were (the same draws, the same order)
  const order = Array.from({ length: count }, (_, i) => i);
  let loss = 0;
  for (let e = 0; e < config.epochs; e++) {
    shuffleInPlace(order, rng);
    loss = 0;
    const lr = config.learningRate / (1 + e * 0.1);
    for (let i = 0; i < count; i++) {
      const o = order[i] * d;
      let s = 0;
      for (let j = 0; j < d; j++) s += w[j] * diffs[o + j];
      loss += s > 30 ? 0 : Math.log1p(Math.exp(-s));
      const g = 1 / (1 + Math.exp(s)); // −dloss/ds
      for (let j = 0; j < d; j++) w[j] += lr * (g * diffs[o + j] - config.l2 * w[j]);
    }
    loss = count ? loss / count : 0;
  }
  return { features: [...features], mean, std, weights: Array.from(w), seed: config.seed, config, pairs: count, finalLoss: loss };
}

/** Scores of feature rows under a linear model. */
export function scoreLinear(model: LinearRankModel, x: readonly number[][]): number[] {
  return x.map((r) => r.reduce((s, v, j) => s + model.weights[j] * ((v - model.mean[j]) / model.std[j]), 0));
}

/** 1-based window ids ordered by score descending (ties keep retrieval order). */
export function rankByScores(scores: readonly number[]): number[] {
  return scores.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i).map((o) => o.i + 1);
}

/** Difference between the best and second-best score of a window (Infinity for a window of one). */
export function topMargin(scores: readonly number[]): number {
  const s = [...scores].sort((a, b) => b - a);
  return s.length < 2 ? Infinity : s[0] - s[1];
}

/** The trained offline reranker: model + the training priors its features read. */
export interface OfflineRerankerModel {
  model: LinearRankModel;
  priors: TrainingPriors;
  window: number;
  trainQueries: number;
}

export interface OfflineTrainOptions extends PairwiseTrainOptions {
  /** Window size K it is trained for (features are window-relative). Default 10. */
  window?: number;
  /** Training windows start at 0, stride, 2·stride… while start + window ≤ trainDepth. Default 30. */
  trainDepth?: number;
  /** Default window / 2. */
  trainStride?: number;
}

/** Training windows of the backbone lists (several per query, sliding, so that more queries contribute positives). */
export function trainingWindows(lists: readonly BackboneList[], opts: { window?: number; trainDepth?: number; trainStride?: number } = {}): { query: RerankQuery; window: RerankCandidate[] }[] {
  const k = opts.window ?? 10;
  const depth = opts.trainDepth ?? 30;
  const stride = opts.trainStride ?? Math.max(1, Math.floor(k / 2));
  const out: { query: RerankQuery; window: RerankCandidate[] }[] = [];
  for (const l of lists)
    for (let s = 0; s + k <= Math.max(k, depth) && s < l.candidates.length; s += stride) out.push({ query: l.query, window: l.candidates.slice(s, s + k) });
  return out;
}

/**
 * Train the offline reranker on the TRAINING split's backbone lists: features of `windowFeatures` (link-count and
 * DAAC priors leave-one-publication-out, so a training query never sees the labels of its own source
 * publication, through any of its queries), pairwise logistic loss.
 */
export function trainOfflineReranker(trainLists: readonly BackboneList[], trainQrels: Qrels, priors: TrainingPriors, opts: OfflineTrainOptions = {}): OfflineRerankerModel {
  const groups: RankGroup[] = [];
  const leaveOut = leaveOutBySource(priors, trainQrels, trainLists.map((l) => l.query));
  for (const { query, window } of trainingWindows(trainLists, opts)) {
    const judged = trainQrels.get(query.id);
    const own = new Set([...(judged ?? new Map())].filter(([, r]) => r > 0).map(([d]) => d));
    const y = window.map((c) => (own.has(c.id) ? 1 : 0));
    if (!y.some((v) => v > 0) || y.every((v) => v > 0)) continue;
    groups.push({ x: windowFeatures(query, window, priors, leaveOut.get(query.id)), y });
  }
  return { model: trainPairwiseRanker(groups, OFFLINE_FEATURES, opts), priors, window: opts.window ?? 10, trainQueries: trainLists.length };
}

export const OFFLINE_RERANKER_LABEL = 'offline reranker (learned, no LLM)';

/** The offline reranker as a Reranker: scores the window with the linear model; no LLM, no cost. */
export function offlineReranker(m: OfflineRerankerModel, opts: { id?: string; label?: string } = {}): Reranker {
  const id = opts.id ?? 'offline-rerank';
  return {
    id,
    label: opts.label ?? OFFLINE_RERANKER_LABEL,
    kind: 'offline',
    async rerank(query, window) {
      const t0 = performance.now();
      const trace = newTrace(id, query.id, window.length);
      const ranked = rankByScores(scoreLinear(m.model, windowFeatures(query, window, m.priors)));
      trace.ranked = ranked;
      trace.latencyMs = performance.now() - t0;
      return { ranked, trace };
    },
  };
}
