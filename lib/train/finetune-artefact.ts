/**
 * The fine-tuned USE-lite encoder of a benchmark (notebook 03): its checkpoint when it was trained on the current
 * training split with the current config, otherwise fine-tuned and saved (`loadOrTrainFinetunedEncoder`), optionally
 * with the corpus self-supervised pairs mixed in.
 */
import { decide, notebookRebuildCommand, type ArtefactMode } from './artefact-mode';
import { nnsscStyleExcludedRows } from './artefacts';
import { benchmarkSplit, benchmarkTrainingData } from '../bench/build';
import type { Benchmark } from '../bench/types';
import { datasetEncoderText } from '../data/text';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { defaultQueryCacheDir, embedCorpusCached, embedQueriesCached } from '../encode/cache';
import type { SentenceEncoder } from '../encode/types';
import { loadUseLite } from '../encode/use-lite';
import { readCheckpointManifest } from '../store/checkpoint';
import { CPU_FINETUNE_CONFIG, defaultFinetuneDir, finetuneExamplesFromSplit, finetuneUseLite, loadFinetunedEncoder, type FinetuneConfig, type FinetuneExample, type FinetuneResult, type FinetuneStep, type FinetuneValidation } from './finetune';
import { mulberry32, shuffleInPlace } from '../util/random';
import { USE_LITE_FT_KIND } from '../encode/trainable-use';
import { mineHardNegatives } from './negatives';
import { corpusSelfSupervisedPairs, DEFAULT_CORPUS_PAIRS_OPTIONS, type CorpusPairsOptions, type CorpusPairsResult } from './corpus-pairs';
import type { Checkpoint, TrainingData } from '../store/types';

export interface LoadOrTrainFinetunedEncoderOptions {
  corpus: Corpus;
  /** The benchmark whose TRAINING split the encoder is fine-tuned on. */
  bench: Benchmark;
  /** Checkpoint folder. Default `defaultFinetuneDir()` (`checkpoints/finetune/use-lite-mnrl`). */
  dir?: string;
  /** Default `CPU_FINETUNE_CONFIG` (stops by step count, never by the clock). */
  config?: Partial<FinetuneConfig>;
  /** Default `load-or-train`. */
  mode?: ArtefactMode;
  /** Base encoder whose space the hard negatives are mined in. Default: USE-lite (loaded here when training, then disposed). */
  base?: SentenceEncoder;
  /** The base encoder's corpus embeddings. Default: `embedCorpusCached` (2 workers). */
  baseMatrix?: Float32Array;
  /** Command named in errors. Default `npm start -- --only 03-encoder-finetune` (`--sample` for a sample benchmark). */
  rebuild?: string;
  onStep?: (s: FinetuneStep) => void;
  onValidation?: (v: FinetuneValidation) => void;
  /** Query-embedding cache folder. Default `defaultQueryCacheDir()`. */
  queryCacheDir?: string;
  log?: (line: string) => void;
  /**
   * Corpus self-supervised pairs (beyond the paper; `corpusSelfSupervisedPairs`) mixed into the fine-tuning pairs (see
   * `FinetuneSelfSupervisedConfig`). Default null = off. Recorded in the checkpoint's config (a checkpoint trained with
   * them is never taken for a plain one) and saved by default to `<default folder>-corpus-mix`
   * (`finetuneCheckpointName(sample, 'mix')`). Measured by `node bench/self-supervised.cjs --scorer finetune`.
   */
  selfSupervised?: Partial<FinetuneSelfSupervisedConfig> | null;
}

/** How the encoder fine-tuning mixes in corpus self-supervised pairs (`LoadOrTrainFinetunedEncoderOptions.selfSupervised`). */
export interface FinetuneSelfSupervisedConfig {
  /** Corpus (query, dataset) examples added to the training pool (a seeded draw); 0 = as many as the publication training examples (1:1). Default 0. */
  examples: number;
  /** Pair construction options (`CorpusPairsOptions`; the seed defaults to the fine-tuning seed). Default `DEFAULT_CORPUS_PAIRS_OPTIONS`. */
  pairs: Partial<CorpusPairsOptions>;
}

/** The resolved fine-tuning self-supervised settings as a checkpoint records them, or null when off. */
export function finetuneSelfSupervisedIdentity(ssl: Partial<FinetuneSelfSupervisedConfig> | null | undefined, seed: number): { schedule: 'mix'; examples: number; pairs: CorpusPairsOptions; pairsExcluded?: string } | null {
  if (!ssl) return null;
  const examples = ssl.examples ?? 0;
  if (!(Number.isInteger(examples) && examples >= 0)) throw new EoError('INVALID_ARGUMENT', `selfSupervised.examples must be an integer ≥ 0, got ${examples}`);
  return { schedule: 'mix', examples, pairs: { ...DEFAULT_CORPUS_PAIRS_OPTIONS, seed, ...(ssl.pairs ?? {}) } };
}

/**
 * Fine-tuning examples from corpus pairs: one per (pair, positive), hard negatives = the `k` nearest datasets to the pair's
 * text in the base space that are not its positives; `count` of them drawn with the seed (all when `count` ≥ their number).
 */
export function finetuneExamplesFromCorpusPairs(o: {
  corpus: Corpus; pairs: CorpusPairsResult; queryVecs: Float32Array; corpusMatrix: Float32Array; dim: number; k: number; count: number; seed: number;
}): FinetuneExample[] {
  const positives = o.pairs.pairs.map((p) => p.positives);
  const negs = mineHardNegatives({ queryVecs: o.queryVecs, corpusMatrix: o.corpusMatrix, dim: o.dim, positives, k: o.k });
  const text = (i: number) => datasetEncoderText(o.corpus.datasets[i]);
  const all: FinetuneExample[] = [];
  o.pairs.pairs.forEach((p, qi) => {
    for (const row of p.positives)
      all.push({ query: p.text, positive: text(row), positiveKey: row, negatives: negs[qi].map(text), negativeKeys: negs[qi], queryPositiveKeys: p.positives });
  });
  return o.count >= all.length ? all : shuffleInPlace(all, mulberry32(o.seed ^ 0xc0de)).slice(0, o.count);
}

/**
 * Folder name of the fine-tuned encoder's checkpoint under `checkpoints/finetune/`: `use-lite-mnrl` (full snapshot) or
 * `use-lite-mnrl-sample` (`--sample`) for the paper's recipe, with `-corpus-mix` appended when corpus self-supervised
 * pairs are mixed in (so neither overwrites the other). Notebooks 03 and 05 and bench/self-supervised.cjs name it here.
 */
export function finetuneCheckpointName(sample: boolean, selfSupervisedSchedule: 'mix' | null = null): string {
  return `use-lite-mnrl${sample ? '-sample' : ''}${selfSupervisedSchedule ? `-corpus-${selfSupervisedSchedule}` : ''}`;
}

/** Training figures of a fine-tuning checkpoint. */
export interface FinetuneTrainingSummary {
  steps: FinetuneStep[];
  validation: FinetuneValidation[];
  stoppedBy: FinetuneResult['stoppedBy'];
  pairsSeen: number;
  wallSeconds: number;
  backend: string;
  trainableParams: number;
}

export interface FinetunedEncoderArtefact {
  /** The fine-tuned encoder, loaded from the checkpoint (id `use-lite-ft@<weights hash>`); dispose it when done. */
  encoder: SentenceEncoder;
  dir: string;
  trainingData: TrainingData;
  /** The run when this call trained (its in-memory model is disposed); null when reused. */
  trained: Omit<FinetuneResult, 'trainable'> | null;
  why: string;
  config: FinetuneConfig;
  summary: FinetuneTrainingSummary;
}

/**
 * The USE-lite fine-tuned (MNRL) on this benchmark's training split: the checkpoint in `dir` when it was trained on the
 * current training data with the same config, otherwise fine-tuned and saved there (or, in `load` mode, an EoError
 * naming both hashes and the command that rebuilds it). Same seed, data and backend → the same weights, hence the
 * same encoder id and the same cached corpus embeddings.
 */
export async function loadOrTrainFinetunedEncoder(opts: LoadOrTrainFinetunedEncoderOptions): Promise<FinetunedEncoderArtefact> {
  const { corpus, bench } = opts;
  const mode = opts.mode ?? 'load-or-train';
  const config: FinetuneConfig = { ...CPU_FINETUNE_CONFIG, ...(opts.config ?? {}) };
  const selfSupervised = finetuneSelfSupervisedIdentity(opts.selfSupervised, config.seed);
  // the corpus pairs leave every test label of both benchmarks out; the identity says so (a checkpoint from before is not reused)
  const pairExclusion = selfSupervised ? nnsscStyleExcludedRows(corpus, bench) : null;
  if (selfSupervised && pairExclusion) selfSupervised.pairsExcluded = `test labels of ${bench.name} and eo-styles topics ${pairExclusion.styleTopicsHash}`;
  const dir = opts.dir ?? (selfSupervised ? `${defaultFinetuneDir()}-corpus-mix` : defaultFinetuneDir());
  const rebuild = opts.rebuild ?? notebookRebuildCommand('03-encoder-finetune', bench);
  const trainingData = benchmarkTrainingData(bench);
  const why = decide(dir, USE_LITE_FT_KIND, mode, trainingData, { ...config, selfSupervised }, rebuild);
  let trained: FinetunedEncoderArtefact['trained'] = null;
  if (why !== null) {
    opts.log?.(`fine-tuning the encoder (${why})`);
    const base = opts.base ?? (await loadUseLite());
    try {
      const baseMatrix = opts.baseMatrix ?? (await embedCorpusCached({ encoder: base, key: corpus.hash, texts: corpus.datasets.map((d) => datasetEncoderText(d)), workers: 2 }));
      const split = benchmarkSplit(bench, 'train');
      const queryVecs = await embedQueriesCached({ encoder: base, texts: split.queries.map((q) => q.text), cacheDir: opts.queryCacheDir });
      const examples = finetuneExamplesFromSplit({
        corpus, split, queryVecs, corpusMatrix: baseMatrix, dim: base.dim, k: config.hardNegatives, valFraction: config.valFraction, seed: config.seed,
      });
      let trainExamples = examples.train;
      let record: Record<string, unknown> | undefined;
      if (selfSupervised) {
        const pairs = corpusSelfSupervisedPairs(corpus, selfSupervised.pairs, pairExclusion!.rows);
        const pairVecs = await embedCorpusCached({
          encoder: base, key: `corpus-pairs-${corpus.hash}`, texts: pairs.pairs.map((p) => p.text), workers: 2, cacheDir: opts.queryCacheDir ?? defaultQueryCacheDir(),
        });
        const extra = finetuneExamplesFromCorpusPairs({
          corpus, pairs, queryVecs: pairVecs, corpusMatrix: baseMatrix, dim: base.dim, k: config.hardNegatives,
          count: selfSupervised.examples > 0 ? selfSupervised.examples : examples.train.length, seed: config.seed,
        });
        opts.log?.(`mixing ${extra.length} corpus self-supervised examples (pairs ${pairs.hash}) into ${examples.train.length} publication examples`);
        trainExamples = examples.train.concat(extra);
        record = { selfSupervised, selfSupervisedPairs: { hash: pairs.hash, pairs: pairs.pairs.length, counts: pairs.counts, examples: extra.length } };
      }
      const { trainable, ...result } = await finetuneUseLite({
        examples: trainExamples, val: examples.val, config, checkpointDir: dir, dataHash: examples.dataHash, trainingData,
        onStep: opts.onStep, onValidation: opts.onValidation, record,
      });
      trainable.model.model.dispose();
      trained = result;
    } finally {
      if (!opts.base) base.dispose();
    }
  } else opts.log?.(`reusing fine-tuned encoder checkpoint ${dir} (training data ${trainingData.hash})`);
  // The figures of the run: from the result when this call trained, else as the checkpoint recorded them.
  const m = readCheckpointManifest(dir);
  const rec = (trained ?? m.metrics ?? {}) as Partial<FinetuneTrainingSummary>;
  const summary: FinetuneTrainingSummary = {
    steps: rec.steps ?? [], validation: rec.validation ?? [], stoppedBy: rec.stoppedBy ?? 'schedule', pairsSeen: rec.pairsSeen ?? 0,
    wallSeconds: rec.wallSeconds ?? 0, backend: m.backend, trainableParams: Number(m.config.trainableParams ?? 0),
  };
  const encoder = await loadFinetunedEncoder(dir);
  return { encoder, dir, trainingData, trained, why: why ?? 'reused', config, summary };
}
