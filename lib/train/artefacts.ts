/**
 * NN-SSC's artefacts (notebook 04): its checkpoint when it was trained on the current training split with the current
 * config, otherwise trained and saved (`loadOrTrainNnssc`, with the corpus self-supervised pairs and user-style queries
 * it may mix in), and the fold models of its cross-fitting (`loadOrTrainNnsscFolds`). How a checkpoint is judged
 * current: artefact-mode.ts.
 */
import { decide, notebookRebuildCommand, type ArtefactMode } from './artefact-mode';
import { benchmarkSplit, benchmarkTrainingData } from '../bench/build';
import type { Benchmark } from '../bench/types';
import { datasetEncoderText } from '../data/text';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { defaultQueryCacheDir, embedCorpusCached, embedQueriesCached } from '../encode/cache';
import type { SentenceEncoder } from '../encode/types';
import { NNSSC_KIND, loadNnsscCheckpoint, type NnsscModel } from '../retrieve/nnssc';
import { mulberry32, shuffleInPlace } from '../util/random';
import { DEFAULT_NNSSC_CONFIG, nnsscDataHash, trainNnssc, type NnsscEpochLog, type NnsscTrainConfig, type NnsscTrainData, type NnsscTrainOptions, type NnsscTrainResult } from './nnssc';
import { defaultNnsscDir, saveNnsscCheckpoint } from './nnssc-checkpoint';
import { mineHardNegatives } from './negatives';
import { corpusSelfSupervisedPairs, corpusStyleQueries, CORPUS_STYLE_KINDS, DEFAULT_CORPUS_PAIRS_OPTIONS, type CorpusPairsOptions, type CorpusPairsResult, type CorpusStyleKind, type CorpusStyleQuery } from './corpus-pairs';
import { testLabelIds } from '../bench/test-labels';
import { shortHash } from '../util/hash';
import type { Checkpoint, TrainingData } from '../store/types';
import { repoRelativePath } from '../util/paths';

// the shared checkpoint decision's names are this module's API too, as before the split (the fine-tuned encoder's
// artefact: finetune-artefact.ts)
export { checkpointStaleness, notebookRebuildCommand, type ArtefactMode } from './artefact-mode';

// ---------------------------------------------------------------------------------------------------------- NN-SSC

export interface LoadOrTrainNnsscOptions {
  corpus: Corpus;
  /** The benchmark whose TRAINING split NN-SSC trains on (no test query reaches it). */
  bench: Benchmark;
  /** The frozen encoder (USE-lite). */
  encoder: SentenceEncoder;
  /** The encoder's corpus embeddings (corpus order, unit norm). Needed only to train; default: `embedCorpusCached` (2 workers). */
  corpusMatrix?: Float32Array;
  /** Checkpoint folder. Default `defaultNnsscDir('use-lite-<benchmark name>')`. */
  dir?: string;
  /** Training config. Default `DEFAULT_NNSSC_CONFIG` (stops by epochs and patience only, never by the clock). */
  config?: Partial<NnsscTrainConfig>;
  /** Default `load-or-train`. */
  mode?: ArtefactMode;
  /** Command named in errors. Default `npm start -- --only 04-nnssc` (`--sample` for a sample benchmark). */
  rebuild?: string;
  /** Backend, per-epoch and per-step callbacks, pre-mined hard negatives (passed to `trainNnssc`). */
  training?: NnsscTrainOptions;
  /** Query-embedding cache folder. Default `defaultQueryCacheDir()`. */
  queryCacheDir?: string;
  /** One line per decision (reuse or train, and why). Default none. */
  log?: (line: string) => void;
  /**
   * Self-supervised corpus pairs (beyond the paper; `corpusSelfSupervisedPairs`) used beside the publication pairs:
   * `pretrain` first or `mix` in (see `NnsscSelfSupervisedConfig`). Default null = off (the paper's recipe). Recorded in
   * the checkpoint's config, so a checkpoint trained with them is never taken for a plain one (or the reverse), and
   * by default saved to its own folder.
   */
  selfSupervised?: Partial<NnsscSelfSupervisedConfig> | null;
}

/** How NN-SSC uses the corpus self-supervised pairs (`LoadOrTrainNnsscOptions.selfSupervised`). */
export interface NnsscSelfSupervisedConfig {
  /** `pretrain`: epochs on the corpus pairs alone, then the publication pairs; `mix`: both in every epoch. Default `pretrain`. */
  schedule: 'pretrain' | 'mix';
  /** `pretrain`: epochs on the corpus pairs. Default 3. */
  epochs: number;
  /** `mix`: corpus-pair positives per epoch; 0 = as many as the publication training positives (1:1). Default 0. */
  perEpoch: number;
  /** Pair construction options (`CorpusPairsOptions`; the seed defaults to the NN-SSC config's seed). Default `DEFAULT_CORPUS_PAIRS_OPTIONS`. */
  pairs: Partial<CorpusPairsOptions>;
  /**
   * Queries in the users' styles instead of the corpus pairs (issue 21 item 4): `corpusStyleQueries` (keyword,
   * identifier-led and question-style queries made from dataset fields, seed = the NN-SSC config's seed), every
   * test label left out (`nnsscStyleExcludedRows`). Exclusive with `pairs`. Default null = the corpus pairs.
   */
  styles: Partial<NnsscStyleQueriesConfig> | null;
}

/** The user-style training queries of NN-SSC (`NnsscSelfSupervisedConfig.styles`). */
export interface NnsscStyleQueriesConfig {
  /** Queries per style (`corpusStyleQueries`' `perStyle`; three styles). Default 400. */
  perStyle: number;
  /** A query text yielded by more datasets than this is dropped (`corpusStyleQueries`' `maxPositives`). Default 20. */
  maxPositives: number;
}

export const DEFAULT_NNSSC_SELF_SUPERVISED: NnsscSelfSupervisedConfig = { schedule: 'pretrain', epochs: 3, perEpoch: 0, pairs: {}, styles: null };

export const DEFAULT_NNSSC_STYLE_QUERIES: NnsscStyleQueriesConfig = { perStyle: 400, maxPositives: 20 };

/** The resolved user-style settings as a checkpoint records them. */
export interface NnsscStyleQueriesIdentity extends NnsscStyleQueriesConfig {
  seed: number;
  /** Which test labels were kept out of the queries (`nnsscStyleExcludedRows`); set by `loadOrTrainNnssc`. */
  excluded?: { titleTestSplit: string; styleTestHalf: string; asNegatives: boolean };
}

/**
 * Folder name of a benchmark's NN-SSC checkpoint under `checkpoints/nnssc/`: `use-lite-<benchmark>` for the paper's
 * recipe, `use-lite-<benchmark>-corpus-<schedule>` with corpus self-supervised pairs, `use-lite-<benchmark>-styles-<schedule>`
 * with the user-style queries (`source` `styles`), so none overwrites another.
 */
export function nnsscCheckpointName(benchmarkName: string, selfSupervisedSchedule: 'pretrain' | 'mix' | null = null, source: 'corpus' | 'styles' = 'corpus'): string {
  return `use-lite-${benchmarkName}${selfSupervisedSchedule ? `-${source}-${selfSupervisedSchedule}` : ''}`;
}

/** The resolved self-supervised settings as a checkpoint records them (all defaults filled in), or null when off. */
export function nnsscSelfSupervisedIdentity(
  ssl: Partial<NnsscSelfSupervisedConfig> | null | undefined, seed: number,
): { schedule: 'pretrain' | 'mix'; epochs: number; perEpoch: number; pairs: CorpusPairsOptions | null; styles?: NnsscStyleQueriesIdentity; pairsExcluded?: string } | null {
  if (!ssl) return null;
  const c = { ...DEFAULT_NNSSC_SELF_SUPERVISED, ...ssl };
  if (c.schedule !== 'pretrain' && c.schedule !== 'mix') throw new EoError('INVALID_ARGUMENT', `selfSupervised.schedule must be "pretrain" or "mix", got ${JSON.stringify(c.schedule)}`);
  if (!(Number.isInteger(c.epochs) && c.epochs >= 0)) throw new EoError('INVALID_ARGUMENT', `selfSupervised.epochs must be an integer ≥ 0, got ${c.epochs}`);
  if (!(Number.isInteger(c.perEpoch) && c.perEpoch >= 0)) throw new EoError('INVALID_ARGUMENT', `selfSupervised.perEpoch must be an integer ≥ 0, got ${c.perEpoch}`);
  const epochs = c.schedule === 'pretrain' ? c.epochs : 0;
  const perEpoch = c.schedule === 'mix' ? c.perEpoch : 0;
  if (c.styles !== null && c.styles !== undefined) {
    const styles = nnsscStyleQueriesIdentity(c.styles, seed);
    if (ssl.pairs !== undefined) throw new EoError('INVALID_ARGUMENT', 'selfSupervised.pairs and selfSupervised.styles exclude each other (styles replaces the corpus pairs)');
    // `styles` enters the identity only when set, so checkpoints trained with the corpus pairs keep matching
    return { schedule: c.schedule, epochs, perEpoch, pairs: null, styles };
  }
  const pairs: CorpusPairsOptions = { ...DEFAULT_CORPUS_PAIRS_OPTIONS, seed, ...c.pairs };
  // Only the settings that change the training enter the identity (epochs for pretrain, perEpoch for mix).
  return { schedule: c.schedule, epochs, perEpoch, pairs };
}

/** `selfSupervised.styles` checked, defaults filled in, with the seed. */
function nnsscStyleQueriesIdentity(styles: Partial<NnsscStyleQueriesConfig>, seed: number): NnsscStyleQueriesIdentity {
  const bad = (why: string) => new EoError('INVALID_ARGUMENT', `selfSupervised.styles${why}`);
  if (typeof styles !== 'object' || Array.isArray(styles)) throw bad(` must be an object like { perStyle: 400 } or null, got ${JSON.stringify(styles)}`);
  for (const k of Object.keys(styles)) if (!(k in DEFAULT_NNSSC_STYLE_QUERIES)) throw bad(` has unknown setting ${JSON.stringify(k)} (known: ${Object.keys(DEFAULT_NNSSC_STYLE_QUERIES).join(', ')})`);
  const s = { ...DEFAULT_NNSSC_STYLE_QUERIES, ...styles };
  if (!(Number.isInteger(s.perStyle) && s.perStyle >= 1)) throw bad(`.perStyle must be an integer ≥ 1, got ${JSON.stringify(s.perStyle)}`);
  if (!(Number.isInteger(s.maxPositives) && s.maxPositives >= 1)) throw bad(`.maxPositives must be an integer ≥ 1, got ${JSON.stringify(s.maxPositives)}`);
  return { perStyle: s.perStyle, maxPositives: s.maxPositives, seed };
}

/**
 * Corpus rows that user-style training queries must never use: every dataset that is a label (any grade) of the
 * title benchmark's TEST split or of the style benchmark's TEST half (`testLabelIds`), so no test query's
 * answer is ever a training positive. The style benchmark's own queries and labels are never training data either:
 * only its test labels are read here, to leave them out. `styleTopicsHash` identifies the style topics read.
 */
export function nnsscStyleExcludedRows(corpus: Corpus, bench: Benchmark): { rows: Set<number>; styleTopicsHash: string } {
  const { ids, styleTopicsHash } = testLabelIds(corpus, benchmarkSplit(bench, 'test'));
  const rows = new Set<number>();
  for (const id of ids) {
    const i = corpus.indexById.get(id);
    if (i !== undefined) rows.add(i);
  }
  return { rows, styleTopicsHash };
}

/** The user-style training queries of a `styles` identity, with their hash (corpus, settings, texts, positives). */
export function nnsscStyleTrainingQueries(corpus: Corpus, styles: NnsscStyleQueriesIdentity, excludeRows: ReadonlySet<number>): {
  queries: CorpusStyleQuery[]; counts: Record<CorpusStyleKind, number>; hash: string;
} {
  const queries = corpusStyleQueries(corpus, { perStyle: styles.perStyle, seed: styles.seed, maxPositives: styles.maxPositives, excludeRows });
  const counts = Object.fromEntries(CORPUS_STYLE_KINDS.map((k) => [k, queries.filter((q) => q.kind === k).length])) as Record<CorpusStyleKind, number>;
  const hash = shortHash([`corpus=${corpus.hash}`, ...queries.map((q) => `${q.id}\t${q.text}\t${q.positives.join(',')}`)].join('\n'));
  return { queries, counts, hash };
}

/** Training figures of an NN-SSC checkpoint, from the run that just trained or from the checkpoint's record. */
export interface NnsscTrainingSummary {
  curve: NnsscEpochLog[];
  bestEpoch: number;
  stoppedBecause: NnsscTrainResult['stoppedBecause'];
  backend: string;
  wallSeconds: number;
  positivesPerSecond: number;
  trainQueries: number;
  valQueries: number;
  trainableParams: number;
  /** Validation score of the kept weights (null when not recorded). */
  bestValScore: number | null;
  /** Pre-training epochs on the corpus pairs (empty without them). */
  pretrainCurve: NnsscEpochLog[];
}

export interface NnsscArtefact {
  model: NnsscModel;
  checkpoint: Checkpoint;
  dir: string;
  /** The training split it was trained on (equal to the current one). */
  trainingData: TrainingData;
  /** Hash of the training pairs (corpus, encoder, training queries and positives), `nnsscDataHash`. */
  dataHash: string;
  /** The run, when this call trained; null when the checkpoint was reused. */
  trained: NnsscTrainResult | null;
  /** Why it trained, or `reused`. */
  why: string;
  config: NnsscTrainConfig;
  summary: NnsscTrainingSummary;
  /** The resolved self-supervised settings (null: plain training). */
  selfSupervised: ReturnType<typeof nnsscSelfSupervisedIdentity>;
  /** The corpus pairs, when this call built them (it trained with them); null otherwise. */
  corpusPairs: CorpusPairsResult | null;
  /** The user-style queries, when this call built them (it trained with them); null otherwise. */
  styleQueries: ReturnType<typeof nnsscStyleTrainingQueries> | null;
}

/** What NN-SSC trains on, from a benchmark's training split: query ids and groups, positives (corpus rows), hashes. */
export function nnsscTrainingPairs(corpus: Corpus, bench: Benchmark, encoderId: string): {
  queries: { id: string; group: string; text: string }[]; positives: number[][]; dataHash: string; trainingData: TrainingData;
} {
  const train = benchmarkSplit(bench, 'train');
  const positives = train.queries.map((q) => {
    const rows: number[] = [];
    for (const [id, g] of train.qrels.get(q.id) ?? []) {
      const i = corpus.indexById.get(id);
      if (g > 0 && i !== undefined) rows.push(i);
    }
    return rows;
  });
  const queries = train.queries.map((q) => ({ id: q.id, group: q.publicationId, text: q.text }));
  return { queries, positives, dataHash: nnsscDataHash({ corpusHash: corpus.hash, encoderId, queries, positives }), trainingData: benchmarkTrainingData(bench) };
}

/**
 * The NN-SSC of this benchmark's training split: the checkpoint in `dir` when it was trained on the current training
 * data (`benchmarkTrainingData`: datasets, publications, links, writer, split seed, test fraction, relations filter)
 * with the same config, encoder and corpus; otherwise trained on the training split and saved there (or, in `load`
 * mode, an EoError naming both hashes and the command that rebuilds it). The notebooks, the CLI and the service all
 * get NN-SSC from here. Same seed, data and backend → bit-for-bit the same weights.
 */
export async function loadOrTrainNnssc(opts: LoadOrTrainNnsscOptions): Promise<NnsscArtefact> {
  const { corpus, bench, encoder } = opts;
  const mode = opts.mode ?? 'load-or-train';
  const config: NnsscTrainConfig = { ...DEFAULT_NNSSC_CONFIG, ...(opts.config ?? {}) };
  const selfSupervised = nnsscSelfSupervisedIdentity(opts.selfSupervised, config.seed);
  // user-style queries: every test label of both benchmarks is left out (`nnsscStyleExcludedRows`); the identity names
  // the title training data (checked below) and the style topics, so other test halves make another checkpoint
  const styleExclusion = selfSupervised?.styles ? nnsscStyleExcludedRows(corpus, bench) : null;
  if (selfSupervised?.styles && styleExclusion) selfSupervised.styles.excluded = { titleTestSplit: bench.name, styleTestHalf: `eo-styles topics ${styleExclusion.styleTopicsHash}`, asNegatives: true };
  // corpus pairs leave the same test labels out; the identity says so, so a checkpoint trained before is not reused
  const pairExclusion = selfSupervised && !selfSupervised.styles ? nnsscStyleExcludedRows(corpus, bench) : null;
  if (selfSupervised && pairExclusion) selfSupervised.pairsExcluded = `test labels of ${bench.name} and eo-styles topics ${pairExclusion.styleTopicsHash}`;
  const dir = opts.dir ?? defaultNnsscDir(nnsscCheckpointName(bench.name, selfSupervised?.schedule ?? null, selfSupervised?.styles ? 'styles' : 'corpus'));
  const rebuild = opts.rebuild ?? notebookRebuildCommand('04-nnssc', bench);
  const pairs = nnsscTrainingPairs(corpus, bench, encoder.id);
  const identity = { ...config, encoderId: encoder.id, corpusHash: corpus.hash, selfSupervised };
  const why = decide(dir, NNSSC_KIND, mode, pairs.trainingData, identity, rebuild);
  let trained: NnsscTrainResult | null = null;
  let corpusPairs: CorpusPairsResult | null = null;
  let styleQueries: NnsscArtefact['styleQueries'] = null;
  if (why !== null) {
    opts.log?.(`training NN-SSC${selfSupervised ? ` with ${selfSupervised.styles ? 'user-style queries' : 'corpus self-supervised pairs'} (${selfSupervised.schedule})` : ''} (${why})`);
    const corpusMatrix = opts.corpusMatrix ?? (await embedCorpusCached({ encoder, key: corpus.hash, texts: corpus.datasets.map((d) => datasetEncoderText(d)), workers: 2 }));
    const queryMatrix = await embedQueriesCached({ encoder, texts: pairs.queries.map((q) => q.text), cacheDir: opts.queryCacheDir });
    const data: NnsscTrainData = {
      corpusMatrix, dim: encoder.dim, datasetIds: corpus.datasets.map((d) => d.id), queries: pairs.queries, queryMatrix, positives: pairs.positives,
    };
    const training: NnsscTrainOptions = { ...(opts.training ?? {}) };
    let sslRecord: Record<string, unknown> = {};
    if (selfSupervised?.styles) {
      styleQueries = nnsscStyleTrainingQueries(corpus, selfSupervised.styles, styleExclusion!.rows);
      opts.log?.(`user-style queries: ${styleQueries.queries.length} (${Object.entries(styleQueries.counts).map(([k, c]) => `${k} ${c}`).join(', ')}), ${styleExclusion!.rows.size} test-label datasets left out, hash ${styleQueries.hash}`);
      if (styleQueries.queries.length === 0) throw new EoError('INVALID_ARGUMENT', 'selfSupervised.styles: the corpus yields no user-style query');
      const extraMatrix = await embedCorpusCached({
        encoder, key: `style-queries-${corpus.hash}`, texts: styleQueries.queries.map((q) => q.text), workers: 2, cacheDir: opts.queryCacheDir ?? defaultQueryCacheDir(),
      });
      const extraPositives = styleQueries.queries.map((q) => q.positives);
      // the left-out test labels are never the queries' negatives either: the user-style queries neither reward nor
      // punish a test answer (as positives only, they would teach NN-SSC that test answers are never right)
      const neverNegatives = [...styleExclusion!.rows].sort((a, b) => a - b);
      training.extra = {
        schedule: selfSupervised.schedule, queryMatrix: extraMatrix, positives: extraPositives, epochs: selfSupervised.epochs,
        ...(selfSupervised.perEpoch > 0 ? { perEpoch: selfSupervised.perEpoch } : {}),
        neverNegatives, // hard negatives mined by trainNnssc, outside these rows
      };
      sslRecord = { selfSupervised, selfSupervisedPairs: { hash: styleQueries.hash, pairs: styleQueries.queries.length, counts: styleQueries.counts, excludedRows: styleExclusion!.rows.size } };
    } else if (selfSupervised) {
      // no test label of either benchmark is a positive of a corpus pair (as for the user-style queries)
      corpusPairs = corpusSelfSupervisedPairs(corpus, selfSupervised.pairs!, pairExclusion!.rows);
      opts.log?.(`corpus self-supervised pairs: ${corpusPairs.pairs.length} (${Object.entries(corpusPairs.counts).map(([k, c]) => `${k} ${c.kept}`).join(', ')}), hash ${corpusPairs.hash}`);
      const extraMatrix = await embedCorpusCached({
        encoder, key: `corpus-pairs-${corpus.hash}`, texts: corpusPairs.pairs.map((p) => p.text), workers: 2, cacheDir: opts.queryCacheDir ?? defaultQueryCacheDir(),
      });
      const extraPositives = corpusPairs.pairs.map((p) => p.positives);
      training.extra = {
        schedule: selfSupervised.schedule, queryMatrix: extraMatrix, positives: extraPositives, epochs: selfSupervised.epochs,
        ...(selfSupervised.perEpoch > 0 ? { perEpoch: selfSupervised.perEpoch } : {}),
        hardNegatives: mineHardNegatives({ queryVecs: extraMatrix, corpusMatrix, dim: encoder.dim, positives: extraPositives, k: config.hardNegatives }),
      };
      sslRecord = { selfSupervised, selfSupervisedPairs: { hash: corpusPairs.hash, pairs: corpusPairs.pairs.length, counts: corpusPairs.counts } };
    }
    trained = await trainNnssc(data, config, training);
    saveNnsscCheckpoint(dir, trained, {
      encoderId: encoder.id, corpusHash: corpus.hash, dataHash: pairs.dataHash, trainingData: pairs.trainingData, benchmark: bench.name, writer: bench.writerLabel,
      ...sslRecord,
    });
  } else opts.log?.(`reusing NN-SSC checkpoint ${dir} (training data ${pairs.trainingData.hash})`);
  const { model, checkpoint } = loadNnsscCheckpoint(dir, { dataHash: pairs.dataHash, encoderId: encoder.id, corpusHash: corpus.hash });
  // The figures of the run: from the result when this call trained, else as the checkpoint recorded them.
  const m = (trained ?? checkpoint.metrics ?? {}) as Partial<NnsscTrainingSummary>;
  const summary: NnsscTrainingSummary = {
    curve: m.curve ?? [], bestEpoch: m.bestEpoch ?? 0, stoppedBecause: m.stoppedBecause ?? 'max epochs', backend: checkpoint.backend,
    wallSeconds: m.wallSeconds ?? 0, positivesPerSecond: m.positivesPerSecond ?? 0, trainQueries: m.trainQueries ?? 0,
    valQueries: m.valQueries ?? 0, trainableParams: m.trainableParams ?? 0, bestValScore: m.bestValScore ?? null, pretrainCurve: m.pretrainCurve ?? [],
  };
  return {
    model, checkpoint, dir, trainingData: pairs.trainingData, dataHash: pairs.dataHash, trained, why: why ?? 'reused', config, summary, selfSupervised, corpusPairs, styleQueries,
  };
}

// ------------------------------------------------------------------------------------- NN-SSC, cross-fitted

/**
 * The cross-fitting fold of each training query: whole groups (publications) per fold, so no fold's model has seen a
 * title of the publication it scores. The sorted distinct groups are shuffled with `seed` and dealt round-robin, so
 * the folds differ in size by at most one group. Needs k ≥ 2 and at least k groups.
 */
export function nnsscCrossFitFolds(groups: readonly string[], k: number, seed: number): number[] {
  if (!Number.isInteger(k) || k < 2) throw new EoError('INVALID_ARGUMENT', `cross-fitting needs k ≥ 2 folds (got ${k})`);
  const distinct = [...new Set(groups)].sort();
  if (distinct.length < k) throw new EoError('INVALID_ARGUMENT', `cross-fitting with k = ${k} needs at least ${k} publications in the training split (it has ${distinct.length})`);
  const foldOf = new Map<string, number>();
  shuffleInPlace(distinct, mulberry32(seed ^ 0xc0f0)).forEach((g, i) => foldOf.set(g, i % k));
  return groups.map((g) => foldOf.get(g)!);
}

/** Folder of fold `fold` of a k-fold cross-fitting of the NN-SSC saved in `dir`: `<dir>-cv<k>/fold-<fold>` (`*`: all of them, for display). */
export function nnsscFoldDir(dir: string, fold: number | '*', k: number): string {
  return `${dir}-cv${k}/fold-${fold}`;
}

export interface LoadOrTrainNnsscFoldsOptions {
  corpus: Corpus;
  /** The benchmark whose TRAINING split is cut into folds (no test query reaches any fold). */
  bench: Benchmark;
  /** The frozen encoder. */
  encoder: SentenceEncoder;
  /** The encoder's corpus embeddings (corpus order, unit norm). Default: `embedCorpusCached` (2 workers). */
  corpusMatrix?: Float32Array;
  /** Folds. Default 5. */
  k?: number;
  /** Training config, the same for every fold (its `seed` also deals the folds). Default `DEFAULT_NNSSC_CONFIG`. */
  config?: Partial<NnsscTrainConfig>;
  /**
   * The folder of the NN-SSC trained on the whole split (on this backbone), which the folds sit beside:
   * `<dir>-cv<k>/fold-<f>` (`nnsscFoldDir`). Default notebook 04's NN-SSC folder for this benchmark (USE-lite);
   * `staticNnsscDir(bench.name)` for the static backbone.
   */
  dir?: string;
  /** Default `load-or-train`; each fold is decided on its own, so an interrupted run resumes at its first missing fold. */
  mode?: ArtefactMode;
  /** Backend and callbacks (passed to `trainNnssc`). */
  training?: NnsscTrainOptions;
  queryCacheDir?: string;
  /** One line per fold (reuse or train, and why). Default none. */
  log?: (line: string) => void;
}

/** The k NN-SSC models of a cross-fitting, each trained without one fold of the training split. */
export interface NnsscFolds {
  k: number;
  /** The training queries (`nnsscTrainingPairs` order) and the fold each belongs to (the model that never saw it). */
  queries: { id: string; group: string; text: string }[];
  fold: number[];
  models: NnsscModel[];
  /** The folder of the NN-SSC the folds sit beside (`nnsscFoldDir(dir, f, k)` is fold f's). */
  dir: string;
  dirs: string[];
  /** Folds trained by this call (the others were reused). */
  trained: number[];
  /** Hash of the fold assignment and the folds' training data: names the out-of-fold scores made from them. */
  hash: string;
  /** Validation MAP (held-out publications of the fold's own training part) of each fold's kept weights. */
  valMAP: (number | null)[];
}

/**
 * NN-SSC cross-fitted on the training split (issue 39 step 1): the training queries are cut into k folds of whole
 * publications (`nnsscCrossFitFolds`) and fold f's model is trained, with the plain recipe and config, on the other
 * k − 1 folds only. Scoring each training query with the model of its own fold gives *out-of-fold* training scores:
 * what the scorer does on queries it never saw, so a π (Eq. 7) or grid α set on them is not fitted on memorised
 * scores. Each fold's checkpoint is reused when it was trained on the same data and config; same seed, data and
 * backend → the same weights.
 */
export async function loadOrTrainNnsscFolds(opts: LoadOrTrainNnsscFoldsOptions): Promise<NnsscFolds> {
  const { corpus, bench, encoder } = opts;
  const k = opts.k ?? 5;
  const mode = opts.mode ?? 'load-or-train';
  const config: NnsscTrainConfig = { ...DEFAULT_NNSSC_CONFIG, ...(opts.config ?? {}) };
  const pairs = nnsscTrainingPairs(corpus, bench, encoder.id);
  const fold = nnsscCrossFitFolds(pairs.queries.map((q) => q.group), k, config.seed);
  const base = opts.dir ?? defaultNnsscDir(nnsscCheckpointName(bench.name));
  const rebuild = notebookRebuildCommand('04-nnssc', bench);
  let matrices: { corpusMatrix: Float32Array; queryMatrix: Float32Array } | null = null;
  const out: NnsscFolds = { k, queries: pairs.queries, fold, models: [], dir: base, dirs: [], trained: [], hash: '', valMAP: [] };
  const dataHashes: string[] = [];
  for (let f = 0; f < k; f++) {
    const rows = fold.map((x, i) => (x === f ? -1 : i)).filter((i) => i >= 0);
    const queries = rows.map((i) => pairs.queries[i]);
    const positives = rows.map((i) => pairs.positives[i]);
    const dataHash = nnsscDataHash({ corpusHash: corpus.hash, encoderId: encoder.id, queries, positives });
    dataHashes.push(dataHash);
    const crossFit = { k, fold: f, heldOutQueries: pairs.queries.length - rows.length };
    const identity = { ...config, encoderId: encoder.id, corpusHash: corpus.hash, crossFit };
    const dir = nnsscFoldDir(base, f, k);
    const why = decide(dir, NNSSC_KIND, mode, pairs.trainingData, identity, rebuild);
    if (why !== null) {
      opts.log?.(`fold ${f + 1}/${k}: training NN-SSC on ${rows.length} of ${pairs.queries.length} training queries (${why})`);
      matrices ??= {
        corpusMatrix: opts.corpusMatrix ?? (await embedCorpusCached({ encoder, key: corpus.hash, texts: corpus.datasets.map((d) => datasetEncoderText(d)), workers: 2 })),
        queryMatrix: await embedQueriesCached({ encoder, texts: pairs.queries.map((q) => q.text), cacheDir: opts.queryCacheDir }),
      };
      const queryMatrix = new Float32Array(rows.length * encoder.dim);
      rows.forEach((r, j) => queryMatrix.set(matrices!.queryMatrix.subarray(r * encoder.dim, (r + 1) * encoder.dim), j * encoder.dim));
      const data: NnsscTrainData = { corpusMatrix: matrices.corpusMatrix, dim: encoder.dim, datasetIds: corpus.datasets.map((d) => d.id), queries, queryMatrix, positives };
      const trained = await trainNnssc(data, config, opts.training ?? {});
      saveNnsscCheckpoint(dir, trained, { encoderId: encoder.id, corpusHash: corpus.hash, dataHash, trainingData: pairs.trainingData, benchmark: bench.name, writer: bench.writerLabel, crossFit });
      out.trained.push(f);
    } else opts.log?.(`fold ${f + 1}/${k}: reusing ${repoRelativePath(dir)}`);
    const { model, checkpoint } = loadNnsscCheckpoint(dir, { dataHash, encoderId: encoder.id, corpusHash: corpus.hash });
    out.models.push(model);
    out.dirs.push(dir);
    out.valMAP.push(((checkpoint.metrics ?? {}) as { bestValScore?: number | null }).bestValScore ?? null);
  }
  out.hash = shortHash(JSON.stringify({ k, fold, dataHashes, config }), 16);
  return out;
}
