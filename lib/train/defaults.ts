import { PAPER_TRAINING } from '../bench/paper';
import { trainingProfileFor } from '../tensor/backend';
import type { TfBackendInfo, TrainingProfile } from '../tensor/types';
import { CPU_FINETUNE_CONFIG, PAPER_FINETUNE_CONFIG, type FinetuneConfig } from './finetune';
import { DEFAULT_NNSSC_CONFIG, type NnsscTrainConfig } from './nnssc';

/**
 * NN-SSC as the paper trains it: 1000 epochs. Early stopping stays available through `patience`, set
 * to the epoch count so that it never fires: the paper reports no early stopping. Everything else is already the
 * paper's in DEFAULT_NNSSC_CONFIG (256-256 hidden, 10 KNN + 10 random negatives, Adam 1e-4, batch 64).
 */
export const PAPER_NNSSC_CONFIG: NnsscTrainConfig = { ...DEFAULT_NNSSC_CONFIG, maxEpochs: PAPER_TRAINING.nnssc.epochs, patience: PAPER_TRAINING.nnssc.epochs };

/** Training defaults chosen for a backend, with the reason. */
export interface DefaultTrainingConfig extends TrainingProfile {
  finetune: FinetuneConfig;
  nnssc: NnsscTrainConfig;
}

/**
 * The training configs to use when the caller gives none: the paper's (`PAPER_FINETUNE_CONFIG`,
 * `PAPER_NNSSC_CONFIG`) when TensorFlow runs on a GPU, the 2-core CPU ones (`CPU_FINETUNE_CONFIG`,
 * `DEFAULT_NNSSC_CONFIG`) otherwise; $EO_TRAINING_PROFILE=paper|cpu overrides (see `trainingProfileFor`).
 * Explicit configs passed to the trainers always win over this.
 */
export function defaultTrainingConfig(info: TfBackendInfo | null, env: NodeJS.ProcessEnv = process.env): DefaultTrainingConfig {
  const p = trainingProfileFor(info, env);
  return p.profile === 'paper'
    ? { ...p, finetune: PAPER_FINETUNE_CONFIG, nnssc: PAPER_NNSSC_CONFIG }
    : { ...p, finetune: CPU_FINETUNE_CONFIG, nnssc: DEFAULT_NNSSC_CONFIG };
}
