import { checkpointsDir } from '../util/paths';
import { NNSSC_KIND, nnsscTensors } from '../retrieve/nnssc';
import { saveCheckpoint } from '../store/checkpoint';
import type { TrainingData } from '../store/types';
import type { NnsscTrainResult } from './nnssc';


/** Default checkpoint folder: `<repo>/checkpoints/nnssc/<name>`. */
export function defaultNnsscDir(name: string): string {
  return checkpointsDir('nnssc', name);
}

/** Context saved beside NN-SSC weights (checked when it is loaded for scoring). */
export interface NnsscCheckpointContext {
  encoderId: string;
  corpusHash: string;
  dataHash: string;
  /** The benchmark training split it was trained on (`benchmarkTrainingData`); checked by `loadOrTrainNnssc`. */
  trainingData?: TrainingData;
  /** Benchmark name / writer, for the record. */
  benchmark?: string;
  [key: string]: unknown;
}

/** Save a trained NN-SSC with its config, seed, backend, data hash, learning curve and timings (atomically). */
export function saveNnsscCheckpoint(dir: string, result: NnsscTrainResult, ctx: NnsscCheckpointContext, extraMetrics: Record<string, unknown> = {}): void {
  const { dataHash, trainingData, ...rest } = ctx;
  saveCheckpoint(dir, {
    kind: NNSSC_KIND,
    config: { ...result.config, dim: result.model.dim, ...rest },
    seed: result.config.seed,
    backend: result.backend,
    dataHash,
    ...(trainingData ? { trainingData } : {}),
    metrics: {
      curve: result.curve,
      bestEpoch: result.bestEpoch,
      stoppedBecause: result.stoppedBecause,
      wallSeconds: result.wallSeconds,
      trainableParams: result.trainableParams,
      trainQueries: result.trainQueries,
      valQueries: result.valQueries,
      trainPositives: result.trainPositives,
      positivesPerSecond: result.positivesPerSecond,
      bestValScore: result.bestValScore,
      ...(result.pretrainCurve.length > 0 ? { pretrainCurve: result.pretrainCurve } : {}),
      ...(result.extraPositives > 0 ? { extraPositives: result.extraPositives } : {}),
      ...extraMetrics,
    },
    tensors: nnsscTensors(result.model),
  });
}
