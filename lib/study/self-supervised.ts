import * as path from 'node:path';
import { benchmarkTrainingData } from '../bench/build';
import type { Benchmark } from '../bench/types';
import type { Corpus } from '../data/types';
import { embedCorpusCached } from '../encode/cache';
import type { SentenceEncoder } from '../encode/types';
import { denseScorer, type CorpusScorer } from '../retrieve/scorers';
import { checkpointExists, readCheckpointManifest } from '../store/checkpoint';
import type { CheckpointManifest } from '../store/types';
import { finetuneCheckpointName } from '../train/finetune-artefact';
import { defaultFinetuneDir, loadFinetunedEncoder } from '../train/finetune';
import { repoRelativePath, repoRoot } from '../util/paths';
import { loadNnsscScorer, nnsscCheckpointDir } from '../search/nnssc';

/**
 * A scorer trained with the corpus self-supervised pairs (beyond the paper, issue 11 item 4), beside the plain scorer
 * of the same recipe: `<plain>-corpus-<schedule>`. Every one saw the training split's publications and the corpus
 * text (titles, short names, abstract sentences, keyword phrases), never a test publication.
 */
export interface SelfSupervisedScorerSpec {
  /** Scorer id (run ids, fusion records): `nnssc-corpus-pretrain`, `nnssc-corpus-mix`, `cosine-ft-corpus-mix`. */
  scorer: string;
  /** The plain scorer of the same recipe, its paired counterpart. */
  plain: 'nnssc' | 'cosine-ft';
  /** `pretrain`: corpus pairs first, then the publication pairs; `mix`: both in every epoch (NN-SSC) or in the training pool (encoder). */
  schedule: 'pretrain' | 'mix';
  label: string;
}

/**
 * The self-supervised scorers, in Table 2 order: NN-SSC pre-trained and mixed (`loadOrTrainNnssc({ selfSupervised })`),
 * the fine-tuned encoder mixed (`loadOrTrainFinetunedEncoder({ selfSupervised })`).
 */
export const SELF_SUPERVISED_SCORERS: readonly SelfSupervisedScorerSpec[] = [
  { scorer: 'nnssc-corpus-pretrain', plain: 'nnssc', schedule: 'pretrain', label: 'NN-SSC (corpus pretrain)' },
  { scorer: 'nnssc-corpus-mix', plain: 'nnssc', schedule: 'mix', label: 'NN-SSC (corpus mix)' },
  { scorer: 'cosine-ft-corpus-mix', plain: 'cosine-ft', schedule: 'mix', label: 'Cosine (fine-tuned, corpus mix)' },
];

/** The command that trains (and measures on the test split) a self-supervised scorer: bench/self-supervised.cjs with its variant. */
export function selfSupervisedTrainCommand(spec: Pick<SelfSupervisedScorerSpec, 'plain' | 'schedule'>, sample: boolean): string {
  return `node bench/self-supervised.cjs${sample ? ' --sample' : ''}${spec.plain === 'cosine-ft' ? ' --scorer finetune' : ''} --variants ${spec.schedule}`;
}

/**
 * The run id of a self-supervised row's plain counterpart (`nnssc-corpus-mix+bm25-grid` → `nnssc+bm25-grid`,
 * `cosine-ft-corpus-mix` → `cosine-ft`), or null for a row that is not self-supervised.
 */
export function selfSupervisedPlainId(runId: string): string | null {
  const m = /^(.+?)-corpus-(?:pretrain|mix)((?:\+.*)?)$/.exec(runId);
  return m ? m[1] + m[2] : null;
}

/** Checkpoint folder of a self-supervised scorer: `checkpoints/nnssc/use-lite-<benchmark>-corpus-<schedule>` or `checkpoints/finetune/use-lite-mnrl[-sample]-corpus-mix`. */
export function selfSupervisedCheckpointDir(spec: Pick<SelfSupervisedScorerSpec, 'plain' | 'schedule'>, benchmarkName: string, sample: boolean): string {
  if (spec.plain === 'nnssc') return nnsscCheckpointDir(benchmarkName, spec.schedule);
  if (spec.schedule !== 'mix') throw new Error(`the fine-tuned encoder has no corpus "${spec.schedule}" schedule (only mix)`);
  return defaultFinetuneDir(finetuneCheckpointName(sample, 'mix'));
}

/** A self-supervised scorer whose checkpoint was found and loaded. */
export interface FoundSelfSupervisedScorer {
  spec: SelfSupervisedScorerSpec;
  /** Checkpoint folder, relative to the repository. */
  dir: string;
  scorer: CorpusScorer;
  /** Its checkpoint manifest (training cost: `trainingCost(manifest)`). */
  manifest: Pick<CheckpointManifest, 'backend' | 'config' | 'metrics'>;
  /** Frees the scorer's encoder or worker threads (after scoring). */
  dispose(): void;
}

/**
 * The self-supervised scorers that were trained for this benchmark (their checkpoints exist and match its training
 * split, corpus and encoder), ready to score; the others with the reason. Nothing is trained here (the bench trains
 * them: `selfSupervisedTrainCommand`). The fine-tuned one embeds the corpus with its encoder (`embedCorpusCached`, the
 * cache the bench filled); NN-SSC scores over `baseMatrix`, `encoder`'s corpus embeddings.
 */
export async function loadSelfSupervisedScorers(o: {
  corpus: Corpus; bench: Benchmark; encoder: SentenceEncoder; baseMatrix: Float32Array;
  /** The corpus texts the encoders embed (`datasetEncoderText` of every dataset, corpus order). */
  texts: readonly string[];
  /** The sample snapshot (selects the fine-tuned checkpoint folder). */
  sample: boolean;
  /** Which scorers. Default `SELF_SUPERVISED_SCORERS`. */
  specs?: readonly SelfSupervisedScorerSpec[];
  /** Checkpoint folder of a scorer. Default `selfSupervisedCheckpointDir(spec, bench.name, sample)`. */
  dirOf?: (spec: SelfSupervisedScorerSpec) => string;
  /** Embedding progress of the fine-tuned encoder's corpus (done, total). Default none. */
  onProgress?: (done: number, total: number) => void;
}): Promise<{ found: FoundSelfSupervisedScorer[]; missing: { spec: SelfSupervisedScorerSpec; dir: string; why: string }[] }> {
  const found: FoundSelfSupervisedScorer[] = [];
  const missing: { spec: SelfSupervisedScorerSpec; dir: string; why: string }[] = [];
  for (const spec of o.specs ?? SELF_SUPERVISED_SCORERS) {
    const abs = o.dirOf?.(spec) ?? selfSupervisedCheckpointDir(spec, o.bench.name, o.sample);
    const dir = path.relative(repoRoot(), abs) || abs;
    if (!checkpointExists(abs)) {
      missing.push({ spec, dir, why: `no checkpoint at ${repoRelativePath(dir)}` });
      continue;
    }
    if (spec.plain === 'nnssc') {
      const nn = loadNnsscScorer(o.corpus, o.encoder, o.baseMatrix, { dir: abs, threads: 2, bench: o.bench, id: spec.scorer, label: spec.label });
      if (nn.scorer && nn.checkpoint) {
        const scorer = nn.scorer;
        found.push({ spec, dir, scorer, manifest: nn.checkpoint, dispose: () => scorer.dispose() });
      } else missing.push({ spec, dir, why: nn.note });
      continue;
    }
    // The fine-tuned encoder: refuse a checkpoint trained on another training split (its recorded training-data hash).
    const manifest = readCheckpointManifest(abs);
    const current = benchmarkTrainingData(o.bench).hash;
    if (manifest.trainingData?.hash !== current) {
      missing.push({ spec, dir, why: `checkpoint ${dir} was trained on training data ${manifest.trainingData?.hash ?? 'unknown'}, the current one is ${current}` });
      continue;
    }
    const ft = await loadFinetunedEncoder(abs);
    const matrix = await embedCorpusCached({ encoder: ft, key: o.corpus.hash, texts: [...o.texts], workers: 2, waitForOther: true, onProgress: o.onProgress });
    found.push({ spec, dir, scorer: denseScorer(ft, matrix, { id: spec.scorer, label: spec.label }), manifest, dispose: () => ft.dispose() });
  }
  return { found, missing };
}
