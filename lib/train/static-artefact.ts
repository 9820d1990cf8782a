/**
 * The static embedding encoder of a benchmark (issue 37): its checkpoint under `checkpoints/static/<benchmark>` when
 * it was trained on the current pairs with the current settings, otherwise trained (a few minutes on 2 cores) and saved
 * there. The notebooks, the CLI (`--semantic static`, `--retriever static`) and the service all get it from here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchmarkTrainingData } from '../bench/build';
import type { Benchmark } from '../bench/types';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { buildStaticVocabulary, loadStaticModel, saveStaticModel, staticDocumentText, staticModelExists, type StaticEmbeddingModel, type StaticVocabularyOptions } from '../encode/static';
import { readCheckpointManifest } from '../store/checkpoint';
import type { TuningLogEntry } from '../bench/tuning-log';
import { checkpointsDir } from '../util/paths';
import { writeJsonAtomic } from '../util/fs';
import { shortHash } from '../util/hash';
import { lockHolder, releaseLock, sleep, tryLock } from '../util/lock';
import { DEFAULT_STATIC_TRAIN_CONFIG, staticPairsHash, type StaticEpochLog, type StaticTrainConfig } from './static';
import { staticMemberSeed, trainStaticEnsemble } from './static-ensemble';
import { DEFAULT_STATIC_PAIRS_OPTIONS, STATIC_QUERY_SOURCES, staticTrainingPairs, type StaticPairsOptions } from './static-pairs';
import type { SentenceEncoder } from '../encode/types';
import { staticCorpusMatrix } from '../retrieve/static-scorer';
import { loadOrTrainNnssc, notebookRebuildCommand, type ArtefactMode, type NnsscArtefact } from './artefacts';
import { DEFAULT_NNSSC_CONFIG, type NnsscTrainConfig, type NnsscTrainOptions } from './nnssc';
import { defaultNnsscDir } from './nnssc-checkpoint';

/**
 * How the default static encoder's settings are read from the tuning log: the best nDCG@10 on the dev half, except that
 * a configuration within `nDCG` of it that trains in at most `timeRatio` of its time is preferred (batch 512 read .542
 * against .540 in 157 s against 83 s; a cold `npm start` has no minute to spare). `.005` is well inside the paired 95 %
 * CI's half-width on the 331 dev queries (about a fifth).
 */
export const STATIC_SETTINGS_TIE = Object.freeze({ nDCG: 0.005, timeRatio: 2 / 3 });

/**
 * The training a candidate of the static encoder's dev search may take (mean seconds of `bench/static-tune.cjs` on the
 * 2-core machine, the machine otherwise idle): more is not a candidate. Issue 37 asks that a cold `npm start` stay
 * within 12 minutes and that the encoder train within 5 minutes inside it; the last cold run with one model (77 s) took
 * 8.7 minutes. Three models stacked (254 s here) trained in 311 s inside `npm start` (beside notebook 04), notebook 03
 * took 10.4 minutes instead of 4.7, and NN-SSC on its 768-dimensional vectors 152 s instead of 69: about 14 minutes
 * in all. Every second of training costs more than a second of the run (both cores are busy), so the budget is about
 * twice the one model's time. (Later the same day one model's cold run took 12 m 4 s and three batch-1,024 models'
 * 12 m 21 s: the machine's speed that hour moved the run more than the 95 s of training did.)
 */
export const STATIC_SETTINGS_BUDGET = Object.freeze({ trainSeconds: 150 });

/**
 * The training seeds every candidate configuration of the static encoder's dev search is trained with: a candidate's
 * score is the mean over them. One seed's spread is as large as most settings' effects (batch 512 at lr 0.005: seeds
 * 42 / 43 / 44 read .5748 / .5494 / .5409 on the dev half), so a configuration logged with seed 42 alone is history,
 * not a candidate.
 */
export const STATIC_SETTINGS_SEEDS: readonly number[] = Object.freeze([42, 43, 44]);

/** One configuration of the static encoder's dev search, over `STATIC_SETTINGS_SEEDS`. */
export interface StaticSettingsCandidate {
  /** The settings less the seed (the same for every seed's entry). */
  settings: Record<string, unknown>;
  /** Mean over the seeds of nDCG@10 (all dev queries) and of the question-style queries' nDCG@10. */
  nDCG: number;
  question: number;
  /** Mean training seconds over the seeds. */
  trainSeconds: number;
  /** The seeds' entries, in `STATIC_SETTINGS_SEEDS` order. */
  entries: TuningLogEntry[];
}

/**
 * The candidates of the static encoder's dev search in a tuning log's entries: per configuration (an entry's settings
 * less its seed), the entries of every seed of `STATIC_SETTINGS_SEEDS` (the last logged of each), among the entries
 * scored with the dev labels left out of the pairs (`devLabelsOut`) and trained on the Matryoshka prefixes (each prefix
 * is to stay usable alone); the seeds' ensembles (`ensemble`) and the members merged into one table by the bench
 * (`merge`) are not configurations the library trains. Log order.
 */
export function staticSettingsCandidates(entries: readonly TuningLogEntry[]): StaticSettingsCandidate[] {
  const groups = new Map<string, { settings: Record<string, unknown>; bySeed: Map<number, TuningLogEntry> }>();
  for (const e of entries) {
    const st = e.settings;
    if (e.system !== 'static-encoder' || st.devLabelsOut !== true || st.ensemble !== undefined || st.merge !== undefined || !(Array.isArray(st.dims) && st.dims.length > 1)) continue;
    const { seed, ...settings } = st;
    const key = JSON.stringify(settings);
    if (!groups.has(key)) groups.set(key, { settings, bySeed: new Map() });
    groups.get(key)!.bySeed.set(typeof seed === 'number' ? seed : DEFAULT_STATIC_TRAIN_CONFIG.seed, e);
  }
  const out: StaticSettingsCandidate[] = [];
  for (const { settings, bySeed } of groups.values()) {
    if (!STATIC_SETTINGS_SEEDS.every((s) => bySeed.has(s))) continue;
    const list = STATIC_SETTINGS_SEEDS.map((s) => bySeed.get(s)!);
    const mean = (f: (e: TuningLogEntry) => number) => list.reduce((a, e) => a + f(e), 0) / list.length;
    out.push({ settings, nDCG: mean((e) => e.scores['nDCG@10']), question: mean((e) => e.scores['question/nDCG@10']), trainSeconds: mean((e) => e.scores.trainSeconds), entries: list });
  }
  return out;
}

/**
 * The static encoder's settings as its dev search chose them (`staticSettingsCandidates`): among the candidates that
 * train within `STATIC_SETTINGS_BUDGET`, the best mean nDCG@10, except that a candidate within `STATIC_SETTINGS_TIE.nDCG`
 * of it that trains in at most `timeRatio` of its time is preferred (the best of those). Ties go to the earlier
 * candidate. Null when there is none.
 */
export function chooseStaticSettings(all: readonly StaticSettingsCandidate[]): StaticSettingsCandidate | null {
  const candidates = all.filter((c) => !(c.trainSeconds > STATIC_SETTINGS_BUDGET.trainSeconds));
  if (!candidates.length) return null;
  const better = (b: StaticSettingsCandidate, c: StaticSettingsCandidate) => (c.nDCG > b.nDCG + 1e-12 ? c : b);
  const top = candidates.reduce(better);
  const cheaper = candidates.filter((c) => c.nDCG >= top.nDCG - STATIC_SETTINGS_TIE.nDCG && c.trainSeconds <= STATIC_SETTINGS_TIE.timeRatio * top.trainSeconds);
  return cheaper.length ? cheaper.reduce(better) : top;
}

export interface StaticEncoderSettings {
  vocab: StaticVocabularyOptions;
  pairs: Partial<StaticPairsOptions>;
  train: Partial<StaticTrainConfig>;
}

/**
 * The settings of the default static encoder, chosen on the style benchmark's DEV half by `bench/static-tune.cjs`
 * (`bench/tuning-log.json`, system `static-encoder`): of 18 configurations (epochs 1–3, learning rate 0.002–0.1, all
 * sources or without the GCMD keyword paths), one epoch at learning rate 0.005 over all sources scored best, nDCG@10
 * .503 of the encoder alone (more epochs or higher rates overfit the pairs: 2 epochs at 0.02, .449). Without the GCMD
 * keyword paths it trains in a third of the time for .503 as well.
 *
 * Those runs kept the dev labels in the pairs while the test labels were out of every source, so dev flattered the
 * model (dev .503, test half .384). With the dev labels left out as the test labels are (`bench/static-tune.cjs`'s default since), dev reads
 * .396 when every source leaves them out and .488 when only the query-side sources do (`exclusionScope:
 * 'generated-queries'`: short names, corpus-made queries and the training split leave test-labelled datasets out, the
 * pairs made of a record's own fields cover every dataset, as the vocabulary and BM25's index do; no test query or
 * label is read either way). That scope is the default; learning rate 0.002–0.02, 2 epochs and a smaller initial
 * table (σ .01) did not beat lr 0.005 under it (.462–.488), nor did a skip-gram initial table (.401–.415; USE-lite's
 * piece rows averaged per token, at the later defaults, .533 / .531 centred against random's .554) or S-stemming /
 * stop words (.479–.489). More of each abstract as queries did: the first 3 / 6 / 12 / 30 sentences of every abstract
 * (`sentencesPerRecord`, 1 before) read .502 / .509 / .523 / .522; 12 is the default. BM25-mined hard negatives
 * (`hardNegativeSources`) did not help: on the query-side sources .522 (3,609 pairs get one), with the abstract sentences
 * and keywords too .504, on every source .498 (question-style queries .329 / .299 / .286 against .334 without); passing
 * over BM25's first 5 or 20 non-answers (`hardNegativeSkip`, sentences and keywords) .509 / .514 — BM25's near misses
 * are often unlabelled answers of the topic. None is the default. Nor did more corpus-made queries (`stylePerStyle`,
 * 300 per style): all of them .523 (question .335), 3,000 per style .515.
 *
 * The plain mean over a text's tokens (`pooling: 'mean'`) beats the IDF-weighted mean: .540 against .523 (question-style
 * queries .397 against .334; learning rate 0.0025: .538 / .520, question .405 / .332). Trained so, the rows' lengths
 * are the weights, learned from the pairs: in the trained model "the", "of" and "data" have rows of length 0.6–1.0,
 * "NDVI", "SST" and "GEDI" 3.0–3.5 (median 1.9; "what" and "need" 2.1 / 1.8, so question words are not learned away). With it, batch 512 read .542 in twice the training time and stop
 * words dropped .524; neither is the default. (IDF weights reshaped at query time only, on the IDF-trained model:
 * √IDF .537, IDF + 1 .534, IDF² .474 — the weights a model is trained with are the ones it needs.)
 *
 * A softer MNRL softmax (`temperature` τ, cosine / τ; 0.05 until then, never tuned) helps every style, question-style
 * queries most: at learning rate 0.005, τ 0.02 / 0.05 / 0.1 / 0.15 / 0.2 / 0.3 read .517 / .540 / .548 / .530 / .512 /
 * .470 (question .362 / .397 / .427 / .401 / .381 / .339); at 0.0025, τ 0.07 / 0.1 .549 / .547 (question .433 / .435);
 * at 0.01 .543 / .539. At batch 256, τ 0.07 at 0.0025 read best (.549, question .433 against BM25's .407 on the same
 * dev queries); two epochs of it read .540 in twice the time. The loss summed over the full width only (no Matryoshka
 * prefixes, `--prefixes full`) read .548 in 52 s against 85 s: not a candidate, each prefix is to stay usable alone.
 * Batch 512 at τ 0.07 read .543 at 0.0025 and .5544 at 0.005 (question .430) in 152 s; batch 256's .5492 is .0052
 * below it, just outside `STATIC_SETTINGS_TIE`, so it is the default (lr 0.005, τ 0.07, batch 512).
 *
 * The vocabulary's floor (`minCount`, 2 until then, never tuned), with the query-time feedback the scorer uses: a token
 * in 1 / 2 / 3 corpus texts read .5748 / .5648 / .5627 (36,640 / 19,756 / 15,021 tokens; question-style .452 / .461 /
 * .469, identifier-style .757 / .715 / .703), more than `STATIC_SETTINGS_TIE` apart at the same training time: 1 is the
 * default (the default ranking on the dev half .6968 → .6961 with it). 256 tokens per training text read .5606.
 *
 * The batches are multiplied on MLAS (`kernel: 'mlas'`, 2026-12-06): the same training in float32 sums, about 5× faster
 * (docs/measurements-recorded.md, "The static encoder's batches on MLAS").
 *
 * Since then a configuration is chosen by its mean over three seeds (`STATIC_SETTINGS_SEEDS`, `chooseStaticSettings`):
 * seed 42 alone had read batch 512 at .5748 where seeds 43 and 44 read .5494 and .5409. Over the seeds, in-batch
 * negatives by the thousand (the recipe trains at 2,048) help every style, question-style queries most: batch 512 /
 * 1,024 / 2,048 / 4,096 / 8,192 at their best rate read .5550 / .5636 / .5678 / .5744 / .537 (question .412 / .445 /
 * .448 / .452 / .40; rates 0.005–0.04, 0.02 at 4,096; two epochs at 4,096 .566). Batch 4,096 at 0.02 is the default (one
 * epoch is 30 steps; it trains in about 65 s).
 *
 * At batch 4,096 (2026-12-06, afternoon), over the same seeds: 384 dimensions read .5723 (question .460) in 76 s; a
 * BM25-mined hard negative for each pair of the query-side sources (short names, corpus-made style queries, the training
 * split's titles: 3,609 of 121,416 pairs, mined in 2 s) .5745 (question .452) in 66 s against .5744 (.452) in 67 s
 * without. The two are equal within any noise; `chooseStaticSettings` (the best mean unless a cheaper one is within the
 * tie) picks the hard negatives, and the defaults follow its pick.
 *
 * Tried at those defaults (2026-12-06, evening), over the same seeds, against .5745 (question-style .452): adjacent-word
 * bigrams as tokens of their own (`StaticTokenizer.bigrams`, in at least 3 / 10 corpus texts: 66,196 / 46,244
 * tokens) .5647 / .5701 (question .455 / .468, identifier-style .714 / .725 against .753) in 80 s, the latter with
 * 256 tokens per training text (bigrams double a text's tokens) .5648 (question .466); the initial table's σ
 * 0.02 / 0.05 / 0.2 .4800 / .5657 / .5619 (a random row is what a rare token keeps: at σ 0.02 the words seen in few pairs
 * stop telling texts apart); bigrams at σ 0.2 .5621 (question .471); the queries without stop and request words
 * (`--query-words no-stop`, the documents whole) .5733 (question .453). Bigrams help question-style queries a little and
 * cost identifier-style ones more; none is the default.
 *
 * Three models per seed stacked as one (`members: 3`, `trainStaticEnsemble`: member i trains with seed
 * `staticMemberSeed(seed, i)` = seed + 1000·i, a text's vector is the three unit vectors side by side, so its cosine is
 * their mean; 2026-12-06, night): over the same seeds .5836 / .5848 / .5763 (mean .5816, question
 * .468) in 254 s against one model's .5745 (question .452) in 77 s. The seeds' models differ more than most
 * settings do (nine single seeds .5624–.5822) and their mean cosine reads above each (replicated over seeds 42–50 with
 * `--ensemble-size 3`: .5841 / .5881 / .5840). Beyond `STATIC_SETTINGS_TIE`, but not within `STATIC_SETTINGS_BUDGET`:
 * trained inside a cold `npm start` it took 311 s and the run about 14 minutes, past both of the issue's bars. Not the
 * default.
 *
 * Three cheaper models (2026-12-06, late night): batch 1,024 at learning rate 0.005 (one such model .5615, question .440, in 33 s),
 * three per seed, read .5844 / .5778 / .5821 (mean **.5814**, question .467) in 95 s: as much as the three default
 * models at 38 % of their time, within the budget and beyond the tie of one model, so `chooseStaticSettings` takes
 * them and they are the default. Merging the three into one table instead (each member's rows rotated onto member 0's
 * by orthogonal Procrustes, then averaged: one model's width and serving cost; `bench/static-tune.cjs --merge`) read
 * .5637 / .5335 / .5477, below one model: the members are not rotations of one another. A cold `npm start` with them
 * took 12 m 21 s against one model's 12 m 4 s the same hour (docs/measurements-recorded.md, "Three cheap static models
 * stacked as one").
 */
export const DEFAULT_STATIC_ENCODER_SETTINGS: Readonly<StaticEncoderSettings> = Object.freeze({
  vocab: { minCount: 1, pooling: 'mean' as const },
  pairs: { exclusionScope: 'generated-queries' as const, sentencesPerRecord: 12, hardNegativeSources: [...STATIC_QUERY_SOURCES] },
  train: { epochs: 1, learningRate: 0.005, temperature: 0.07, batchSize: 1024, maxTokens: 128, kernel: 'mlas' as const, members: 3 },
});

/** `checkpoints/static/<benchmark>`. */
export function staticCheckpointDir(benchmarkName: string): string {
  return path.join(checkpointsDir('static'), benchmarkName);
}

/** The texts the vocabulary is built from: every dataset's document text in full, with its platforms and instruments. */
export function staticVocabularyTexts(corpus: Pick<Corpus, 'datasets'>): string[] {
  return corpus.datasets.map((d) => `${staticDocumentText(d, 1_000_000)} ${d.platforms.join(' ')} ${d.instruments.join(' ')}`);
}

export interface StaticArtefact {
  model: StaticEmbeddingModel;
  dir: string;
  /** True when this call trained it. */
  trained: boolean;
  /** Why it was (re)trained, or `reused`. */
  why: string;
  curve: StaticEpochLog[];
  trainingSeconds: number;
  pairs: { count: number; bySource: Record<string, number>; excludedRows: number; hash: string };
  settings: StaticEncoderSettings;
}

/** `inputs.json` beside a static checkpoint: the inputs its training pairs were last verified for. */
interface VerifiedStaticInputs {
  inputsKey: string;
  dataHash: string;
  pairs: StaticArtefact['pairs'];
}

const inputsFile = (dir: string) => path.join(dir, 'inputs.json');

/** Record that the checkpoint in `dir` was verified for these inputs (best effort: a search that cannot write it verifies again next time). */
function recordVerifiedInputs(dir: string, v: VerifiedStaticInputs): void {
  try {
    writeJsonAtomic(inputsFile(dir), v);
  } catch {
    // read-only checkpoints: the pairs are made again on the next load
  }
}

/**
 * The checkpoints this process has read and verified, by folder and inputs: a notebook or a search engine loads the same
 * encoder several times (notebook 05: six engines, its Table 2 cells), and making its pairs again (~3 s) and reading and
 * hashing its table (~1 s) each time gave the same model. An entry holds while the folder's files are those it was read
 * from (`checkpointStamp`: another process retraining it rewrites them).
 */
const verifiedInProcess = new Map<string, { stamp: string; artefact: StaticArtefact }>();

/**
 * The names, sizes and modification times of a checkpoint folder's files (what tells a rewritten checkpoint, or a
 * rewritten record of the inputs it was verified for).
 */
function checkpointStamp(dir: string): string | null {
  try {
    return fs.readdirSync(dir).sort().map((f) => {
      const st = fs.statSync(path.join(dir, f));
      return `${f}:${st.size}:${st.mtimeMs}`;
    }).join('|');
  } catch {
    return null;
  }
}

/** The artefact this process verified for these inputs, while its folder is unchanged; else null. */
function verifiedBefore(key: string, dir: string): StaticArtefact | null {
  const hit = verifiedInProcess.get(key);
  if (!hit) return null;
  if (hit.stamp === checkpointStamp(dir)) return hit.artefact;
  verifiedInProcess.delete(key);
  return null;
}

/** Remember an artefact verified for these inputs (with the stamp of the folder it was read from). */
function rememberVerified(key: string, dir: string, artefact: StaticArtefact): StaticArtefact {
  const stamp = checkpointStamp(dir);
  if (stamp) verifiedInProcess.set(key, { stamp, artefact });
  return artefact;
}

/** The saved encoder in `dir`, trained on pairs of `dataHash`, as a reused artefact. */
function reusedStaticModel(dir: string, dataHash: string, pairs: StaticArtefact['pairs'], settings: StaticEncoderSettings): StaticArtefact {
  const model = loadStaticModel(dir, { dataHash });
  const metrics = (model.checkpoint.metrics ?? {}) as { curve?: StaticEpochLog[]; trainingSeconds?: number };
  return { model, dir, trained: false, why: 'reused', curve: metrics.curve ?? [], trainingSeconds: metrics.trainingSeconds ?? 0, pairs, settings };
}

/** The checkpoint in `dir` when its pairs were verified before for these inputs and it still holds those pairs; else null. */
function trustedStaticModel(dir: string, inputsKey: string, configKey: string, settings: StaticEncoderSettings): StaticArtefact | null {
  if (!staticModelExists(dir) || !fs.existsSync(inputsFile(dir))) return null;
  try {
    const v = JSON.parse(fs.readFileSync(inputsFile(dir), 'utf8')) as VerifiedStaticInputs;
    const m = readCheckpointManifest(dir);
    if (v.inputsKey !== inputsKey || m.dataHash !== v.dataHash || m.config.configKey !== configKey) return null;
    return reusedStaticModel(dir, v.dataHash, v.pairs, settings);
  } catch {
    return null; // unreadable: verified the long way
  }
}

/**
 * The benchmark's static encoder: read from `dir` (default `staticCheckpointDir(bench.name)`) when its recorded pairs
 * hash and settings match, else trained and saved. `mode: 'load'` refuses to train (an EoError naming the command).
 * Training holds `<dir>.lock`: a second process that needs the same encoder meanwhile (notebooks 03 and 04 side by
 * side in `npm start`, a CLI search) waits for the first and reads what it saved instead of training it again.
 */
export async function loadOrTrainStaticModel(opts: {
  corpus: Corpus; bench: Benchmark; dir?: string; settings?: Partial<StaticEncoderSettings>; mode?: 'load' | 'load-or-train'; log?: (line: string) => void;
  /** How often a process waiting for another's training looks again, in ms. Default 2000. */
  pollMs?: number;
  /**
   * Trust a checkpoint whose pairs were verified before for the same corpus, training split and settings
   * (`inputs.json` beside it) without making its training pairs again (about 2 s on the full snapshot): what a search
   * needs. A change to how pairs are made is then seen only where this is false (notebooks 03 and 04, which verify the
   * pairs and retrain). Default false.
   */
  trustInputs?: boolean;
}): Promise<StaticArtefact> {
  const settings: StaticEncoderSettings = {
    vocab: { ...DEFAULT_STATIC_ENCODER_SETTINGS.vocab, ...(opts.settings?.vocab ?? {}) },
    pairs: { ...DEFAULT_STATIC_ENCODER_SETTINGS.pairs, ...(opts.settings?.pairs ?? {}) },
    train: { ...DEFAULT_STATIC_ENCODER_SETTINGS.train, ...(opts.settings?.train ?? {}) },
  };
  const { corpus, bench } = opts;
  const dir = opts.dir ?? staticCheckpointDir(bench.name);
  const config = { ...DEFAULT_STATIC_TRAIN_CONFIG, ...settings.train, pairs: { ...DEFAULT_STATIC_PAIRS_OPTIONS, ...settings.pairs }, vocab: settings.vocab };
  const configKey = shortHash(JSON.stringify(config));
  const inputsKey = shortHash(JSON.stringify({ corpus: corpus.hash, training: benchmarkTrainingData(bench).hash, configKey }));
  // verified in this process already (pairs made and compared, or trusted), from files that have not changed since
  // (a trusting load takes what a verifying one read; a verifying load only what was verified)
  const verifiedKey = `${path.resolve(dir)}\n${inputsKey}\nverified`;
  const trustedKey = `${path.resolve(dir)}\n${inputsKey}\ntrusted`;
  const known = verifiedBefore(verifiedKey, dir) ?? (opts.trustInputs ? verifiedBefore(trustedKey, dir) : null);
  if (known) return known;
  if (opts.trustInputs) {
    const trusted = trustedStaticModel(dir, inputsKey, configKey, settings);
    if (trusted) return rememberVerified(trustedKey, dir, trusted);
  }
  const vocab = buildStaticVocabulary(staticVocabularyTexts(corpus), settings.vocab);
  const made = staticTrainingPairs(corpus, bench, settings.pairs);
  const pairsHash = staticPairsHash(made.pairs, vocab);
  const pairs = { count: made.pairs.length, bySource: made.counts, excludedRows: made.excludedRows, hash: pairsHash };
  /** The saved encoder when it is this one, else why not. */
  const saved = (): StaticArtefact | string => {
    if (!staticModelExists(dir)) return 'no checkpoint';
    const m = readCheckpointManifest(dir);
    if (m.dataHash !== pairsHash) return `trained on other pairs (${m.dataHash} ≠ ${pairsHash})`;
    if (m.config.configKey !== configKey) return 'trained with other settings';
    const reused = reusedStaticModel(dir, pairsHash, pairs, settings);
    recordVerifiedInputs(dir, { inputsKey, dataHash: pairsHash, pairs });
    return rememberVerified(verifiedKey, dir, reused);
  };
  let found = saved();
  if (typeof found !== 'string') return found;
  if (opts.mode === 'load') throw new EoError('DATA_NOT_FOUND', `no usable static encoder at ${dir} (${found}); train it with "npm start -- --only 03-encoder-finetune" or "eo search --semantic static" once`, { file: dir });
  const lock = `${dir}.lock`;
  let waited = false;
  while (!tryLock(lock)) {
    if (!waited) opts.log?.(`waiting for process ${lockHolder(lock)?.pid ?? '?'}, which is training this static encoder…`);
    waited = true;
    await sleep(opts.pollMs ?? 2000);
  }
  try {
    // The process we waited for (or one that finished between our first look and the lock) may have saved it.
    found = saved();
    if (typeof found !== 'string') return found;
    const why = found;
    opts.log?.(`training the static encoder (${why}): ${made.pairs.length} pairs, ${vocab.tokens.length} tokens…`);
    const members = config.members ?? 1;
    const result = trainStaticEnsemble(vocab, made.pairs, config, {
      onEpoch: (l) => opts.log?.(`static encoder ${l.member ? `member ${l.member} of ${members} (seed ${staticMemberSeed(config.seed, l.member - 1)}), ` : ''}epoch ${l.epoch}: loss ${l.loss.toFixed(4)}, in-batch accuracy ${l.inBatchAccuracy.toFixed(3)} (${l.seconds.toFixed(0)} s)`),
    });
    saveStaticModel(dir, result.model, {
      dataHash: pairsHash, trainingData: benchmarkTrainingData(bench), seed: result.config.seed,
      config: { ...config, configKey, pairsBySource: made.counts, excludedRows: made.excludedRows },
      metrics: { curve: result.curve, trainingSeconds: result.seconds, kernel: result.kernel ?? 'js', ...(result.kernelNote ? { kernelNote: result.kernelNote } : {}) },
    });
    recordVerifiedInputs(dir, { inputsKey, dataHash: pairsHash, pairs });
    return { model: result.model, dir, trained: true, why, curve: result.curve, trainingSeconds: result.seconds, pairs, settings };
  } finally {
    releaseLock(lock);
  }
}

/**
 * NN-SSC's training config on the static encoder (notebook 04 section 8): the paper's network, negatives, batch and
 * stopping rule, with Adam at 1e-3 instead of 1e-4. Chosen on the validation publications of the training split
 * (`node bench/static-nnssc-lr.cjs`, the test split not scored): at 1e-4 it still improved at epoch 87 and ran all 100
 * epochs (seed 42: validation MAP .283, 195 s; seed 43: .239 at epoch 69 of 84, 142 s), at 3e-4 .316 at epoch 83 of
 * 98 (158 s), at 1e-3 .318 at epoch 18 of 33 (55 s; seed 43: .283 at epoch 22 of 37, 66 s). USE-lite's NN-SSC keeps
 * the paper's rate (its validation MAP peaks at epoch 37 and it stops at 52).
 */
export const STATIC_NNSSC_CONFIG: Readonly<NnsscTrainConfig> = Object.freeze({ ...DEFAULT_NNSSC_CONFIG, learningRate: 1e-3 });

/** `checkpoints/nnssc/static-<benchmark>`: NN-SSC on the static encoder. */
export function staticNnsscDir(benchmarkName: string): string {
  return defaultNnsscDir(`static-${benchmarkName}`);
}

/**
 * NN-SSC with the corpus-trained static encoder as its frozen backbone (issue 37 step 3): the paper's recipe (Eq. 5
 * on the training split) with its own Adam rate (`STATIC_NNSSC_CONFIG`; `config` overrides fields of it), with the static encoder's vectors of the training
 * queries and of every dataset (`staticDocumentText`) in place of USE-lite's. The static encoder is this benchmark's
 * (`loadOrTrainStaticModel`: loaded, or trained once when notebook 03 has not run); NN-SSC is trained once and saved
 * under `staticNnsscDir`, and reused while its training data, config and backbone (the static model's id) match.
 */
export async function loadOrTrainStaticNnssc(opts: {
  corpus: Corpus; bench: Benchmark; config?: Partial<NnsscTrainConfig>; mode?: ArtefactMode; dir?: string;
  /** Folder of the static encoder's checkpoint. Default `staticCheckpointDir(bench.name)`. */
  staticDir?: string;
  training?: NnsscTrainOptions; log?: (line: string) => void;
}): Promise<{ nn: NnsscArtefact; backbone: StaticArtefact; encoder: SentenceEncoder; matrix: Float32Array }> {
  const backbone = await loadOrTrainStaticModel({ corpus: opts.corpus, bench: opts.bench, dir: opts.staticDir, mode: opts.mode === 'load' ? 'load' : 'load-or-train', log: opts.log });
  const { encoder, matrix } = await staticCorpusMatrix(backbone.model, opts.corpus);
  const nn = await loadOrTrainNnssc({
    corpus: opts.corpus, bench: opts.bench, encoder, corpusMatrix: matrix, config: { ...STATIC_NNSSC_CONFIG, ...(opts.config ?? {}) }, mode: opts.mode, training: opts.training, log: opts.log,
    dir: opts.dir ?? staticNnsscDir(opts.bench.name), rebuild: notebookRebuildCommand('04-nnssc', opts.bench),
  });
  return { nn, backbone, encoder, matrix };
}
