/**
 * How the load-or-train helpers of this folder treat a checkpoint folder (`ArtefactMode`): whether a checkpoint can
 * stand for a model trained on the current training data with the current config (`checkpointStaleness`, `decide`),
 * and the command that rebuilds it. NN-SSC (artefacts.ts), the fine-tuned encoder (finetune-artefact.ts) and the
 * static encoder (static-artefact.ts) all decide so.
 */
import { trainingDataDifference } from '../bench/build';
import type { Benchmark } from '../bench/types';
import { EoError } from '../errors';
import { checkpointExists, notebookRunCommand, readCheckpointManifest } from '../store/checkpoint';
import type { CheckpointManifest, TrainingData } from '../store/types';
import { repoRelativePath } from '../util/paths';

/**
 * What a load-or-train helper does with the checkpoint folder:
 * - `load-or-train` (default): reuse the checkpoint when it was trained on the current training data with the same
 *   config, otherwise train (and overwrite it);
 * - `load`: never train (the CLI and the service): a missing, stale or differently configured checkpoint is an
 *   EoError naming both training-data hashes and the command that rebuilds it;
 * - `retrain`: always train.
 */
export type ArtefactMode = 'load-or-train' | 'load' | 'retrain';

/**
 * Why the checkpoint behind `manifest` cannot stand for a model trained on `current` with `config`, or null when it
 * can. A checkpoint without a training-data record (written before checkpoints recorded one) is stale: it cannot be
 * shown to come from the current training split.
 */
export function checkpointStaleness(manifest: Pick<CheckpointManifest, 'trainingData' | 'config'>, current: TrainingData, config: object): string | null {
  const was = manifest.trainingData;
  if (!was || typeof was.hash !== 'string')
    return `records no training-data hash (written before checkpoints recorded the data they were trained on), so it cannot be shown to match the current training data ${current.hash}`;
  if (was.hash !== current.hash)
    return `was trained on training data ${was.hash} (benchmark ${was.benchmark}), but the current training data is ${current.hash} (benchmark ${current.benchmark}): ${trainingDataDifference(was, current)}`;
  // A setting the manifest lacks counts as null: an option added later with a null (off) default matches checkpoints
  // written before it existed, and a checkpoint trained with it on never matches a request with it off.
  const changed = Object.entries(config)
    .filter(([k, v]) => JSON.stringify(manifest.config[k] ?? null) !== JSON.stringify(v ?? null))
    .map(([k, v]) => `${k} ${JSON.stringify(manifest.config[k] ?? null)} → ${JSON.stringify(v ?? null)}`);
  return changed.length > 0 ? `was trained on the current training data ${current.hash} but with other settings: ${changed.join(', ')}` : null;
}

/** The command that rebuilds an artefact of a notebook: `npm start -- --only <notebook>` (with `--sample` for a sample benchmark). */
export function notebookRebuildCommand(notebook: string, bench: Pick<Benchmark, 'name'>): string {
  return notebookRunCommand(notebook, bench.name.endsWith('-sample'));
}

/**
 * Decide between reusing and training: returns null to reuse, or the reason to train; in `load` mode a missing or
 * unusable checkpoint throws instead (DATA_NOT_FOUND / CACHE_MISMATCH), naming the command that rebuilds it.
 */
export function decide(dir: string, kind: string, mode: ArtefactMode, current: TrainingData, config: object, rebuild: string): string | null {
  if (mode === 'retrain') return 'retraining on request';
  if (!checkpointExists(dir)) {
    if (mode === 'load') throw new EoError('DATA_NOT_FOUND', `no ${kind} checkpoint at ${dir}; train it: ${rebuild}`, { dir });
    return `no checkpoint at ${repoRelativePath(dir)}`;
  }
  let why: string | null;
  try {
    const m = readCheckpointManifest(dir);
    why = m.kind !== kind ? `is a "${m.kind}" checkpoint, not "${kind}"` : checkpointStaleness(m, current, config);
  } catch (e) {
    if (!(e instanceof EoError) || mode === 'load') throw e;
    why = e.message;
  }
  if (why === null) return null;
  if (mode === 'load')
    throw new EoError('CACHE_MISMATCH', `checkpoint ${dir} ${why}; rebuild it: ${rebuild}`, { dir, trainingDataHash: current.hash });
  return `checkpoint ${repoRelativePath(dir)} ${why}`;
}
