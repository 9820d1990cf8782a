import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Corpus } from '../data/types';
import { repoRoot } from '../util/paths';
import type { SentenceEncoder } from '../encode/types';
import { loadNnsscCheckpoint } from '../retrieve/nnssc';
import { nnsscScorer, type NnsscScorer, type NnsscScorerOptions } from '../retrieve/nnssc-scorer';
import { withBatchScoreCache } from '../retrieve/score-cache';
import { shortHash } from '../util/hash';
import { checkpointExists, notebookRunCommand } from '../store/checkpoint';
import { EoError, type EoErrorCode } from '../errors';
import type { Checkpoint } from '../store/types';
import type { Benchmark } from '../bench/types';
import { nnsscCheckpointName, nnsscTrainingPairs } from '../train/artefacts';
import { defaultNnsscDir } from '../train/nnssc-checkpoint';

/**
 * The NN-SSC checkpoint of a benchmark: the one notebook 04 trains, `checkpoints/nnssc/use-lite-<benchmark name>`, or
 * with `selfSupervisedSchedule` the one trained with corpus self-supervised pairs (`…-corpus-<schedule>`).
 */
export function nnsscCheckpointDir(benchmarkName: string, selfSupervisedSchedule: 'pretrain' | 'mix' | null = null): string {
  return defaultNnsscDir(nnsscCheckpointName(benchmarkName, selfSupervisedSchedule));
}

export interface LoadNnsscOptions {
  /** Checkpoint folder. Default `nnsscCheckpointDir(benchmarkName)`. */
  dir?: string;
  /** Benchmark name (selects the default folder). Default `eo-title`. */
  benchmarkName?: string;
  /** Worker threads for scoring (2 for batches on this machine, 1 for a service). Default 1. */
  threads?: number;
  /** Skip the on-disk query-embedding cache (a service). Default false. */
  noCache?: boolean;
  /**
   * The benchmark the checkpoint must have been trained on: its training split (queries, labels, seed, relations)
   * must hash to what the checkpoint recorded, else the checkpoint is refused with both hashes and the command
   * that retrains it. Default: none (only corpus and encoder are checked; the note says so).
   */
  bench?: Benchmark;
  /** Scorer id (run ids, fusion records). Default `nnssc`. */
  id?: string;
  /** Scorer label. Default `NN-SSC`. */
  label?: string;
  /** Two-stage scoring (`nnsscScorer`'s `twoStage`). Default: none, exact full-corpus scoring. */
  twoStage?: NnsscScorerOptions['twoStage'];
  /** Where the onnx graphs run (`nnsscScorer`'s `onnxThread`). Default `caller`. */
  onnxThread?: NnsscScorerOptions['onnxThread'];
  /**
   * Keep whole batches of 64 texts or more of exact (one-stage) scoring in `<dir>/scores` (`withBatchScoreCache`): the
   * training and test titles notebook 05 scores are what notebooks 06 and 07 and the engines' fusion weights score
   * again. Default true; false scores every batch.
   */
  scoreCache?: boolean;
}

/**
 * THE NN-SSC checkpoint loader of the pipeline (search engine, fusion notebook, rerank backbones): the trained
 * scorer over the cached corpus embeddings, or null with the reason (no checkpoint; trained on another corpus or
 * encoder). `matrix` is `encoder`'s embedding of the corpus, in corpus order.
 */
export function loadNnsscScorer(corpus: Corpus, encoder: SentenceEncoder, matrix: Float32Array, opts: LoadNnsscOptions = {}): { scorer: NnsscScorer | null; checkpoint: Checkpoint | null; dir: string; note: string; code?: EoErrorCode } {
  const dir = opts.dir ?? nnsscCheckpointDir(opts.benchmarkName ?? 'eo-title');
  const rel = path.relative(repoRoot(), dir) || dir;
  if (!fs.existsSync(dir) || !checkpointExists(dir))
    return { scorer: null, checkpoint: null, dir, code: 'DATA_NOT_FOUND', note: `no NN-SSC checkpoint at ${rel} (train it: ${notebookRunCommand('04-nnssc', (opts.benchmarkName ?? '').endsWith('-sample'))})` };
  try {
    const pairs = opts.bench ? nnsscTrainingPairs(corpus, opts.bench, encoder.id) : undefined;
    const { model, checkpoint } = loadNnsscCheckpoint(dir, { encoderId: encoder.id, corpusHash: corpus.hash, dataHash: pairs?.dataHash });
    const exact = nnsscScorer(encoder, matrix, model, { id: opts.id ?? 'nnssc', label: opts.label ?? 'NN-SSC', threads: opts.threads, noCache: opts.noCache, twoStage: opts.twoStage, onnxThread: opts.onnxThread });
    // kept batches are keyed by the corpus embeddings themselves (what the scores read beside the weights and the
    // queries), not only the corpus: embeddings of another text recipe are other scores. Two-stage scores depend on
    // first-stage scorers whose fingerprints may not name all they read: scored each time
    const corpusKey = () => `${corpus.hash}:${shortHash(new Uint8Array(matrix.buffer, matrix.byteOffset, matrix.byteLength))}`;
    const scorer = opts.scoreCache === false || opts.twoStage ? exact : withBatchScoreCache(exact, { dir: path.join(dir, 'scores'), corpusKey, rows: corpus.datasets.length });
    // two hashes, named apart: the training data (the benchmark's training split, as notebook 04 prints it) and the
    // NN-SSC pairs made from it with this encoder and corpus (what the checkpoint records and the load checks)
    const checked = pairs ? ` (training data ${pairs.trainingData.hash}; its NN-SSC pairs ${pairs.dataHash} checked)` : ' (training data not checked: no benchmark given)';
    return { scorer, checkpoint, dir, note: `checkpoint ${rel}${checked}` };
  } catch (e) {
    return { scorer: null, checkpoint: null, dir, code: e instanceof EoError ? e.code : undefined, note: `NN-SSC checkpoint ${rel} not usable: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}` };
  }
}
