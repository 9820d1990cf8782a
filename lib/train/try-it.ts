/**
 * The "Try it" knobs of the training notebooks: the reader changes one setting and sees its effect on the test split
 * next to the reported row. At the default setting nothing trains: the reported run is evaluated again, so the
 * reported numbers come back exactly. Another setting trains once into its own checkpoint folder (`…-try-…`, reused
 * when the same setting is tried again), never over the reported checkpoint. The text under a Try-it result is
 * written by lib/report/try-it.ts (`tryItVerdict`, `knobVerdict`).
 */
import { benchmarkSplit } from '../bench/build';
import type { Benchmark } from '../bench/types';
import type { Corpus } from '../data/types';
import { datasetEncoderText } from '../data/text';
import { EoError } from '../errors';
import { embedCorpusCached } from '../encode/cache';
import type { SentenceEncoder } from '../encode/types';
import { evaluateRun, summarize } from '../metrics/metrics';
import { pairedRows } from '../metrics/systems';
import type { MetricRow, Run } from '../metrics/types';
import { nnsscScorer } from '../retrieve/nnssc-scorer';
import { denseScorer, scoreQueries } from '../retrieve/scorers';
import { loadOrTrainFinetunedEncoder, loadOrTrainNnssc, type FinetunedEncoderArtefact, type NnsscArtefact } from './artefacts';
import type { FinetuneConfig } from './finetune';
import type { NnsscTrainConfig } from './nnssc';

/** What a Try-it cell shows: the reported row and, when a knob changed, the tried row and the paired comparison. */
export interface TryItResult {
  /** False at the default setting (only the reported row, re-derived from its run). */
  changed: boolean;
  /** The reported row, then the tried one (when changed). */
  rows: MetricRow[];
  /** Tried − reported, paired over the test queries (pairedRows); empty when unchanged. */
  paired: ReturnType<typeof pairedRows>;
  /** The knobs as tried, e.g. `hardNegatives=5, randomNegatives=15`. */
  setting: string;
  /** Checkpoint folder of the tried model (null when unchanged). */
  dir: string | null;
}

const describe = (o: Readonly<Record<string, number>>) => Object.entries(o).map(([k, v]) => `${k}=${v}`).join(', ');

function checkKnobs(knobs: Readonly<Record<string, unknown>>, where: string, min: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(knobs)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < (min[k] ?? 0))
      throw new EoError('INVALID_ARGUMENT', `${where}: ${k} must be a number ≥ ${min[k] ?? 0}, got ${JSON.stringify(v)}`, { knob: k });
  }
}

function compare(reported: { label: string; run: Run }, tried: { label: string; run: Run } | null, qrels: ReturnType<typeof benchmarkSplit>['qrels'], setting: string, dir: string | null): TryItResult {
  const a = evaluateRun(reported.run, qrels);
  if (!tried) return { changed: false, rows: [summarize(reported.label, a)], paired: [], setting, dir: null };
  const b = evaluateRun(tried.run, qrels);
  return { changed: true, rows: [summarize(reported.label, a), summarize(tried.label, b)], paired: pairedRows(b, a, tried.label, reported.label), setting, dir };
}

/**
 * Notebook 04's knob, the negatives mix: `hardNegatives` KNN negatives per query and `randomNegatives` per positive.
 * At the reported mix, the reported NN-SSC run comes back; another mix trains NN-SSC on the same training split into
 * `checkpoints/nnssc/<reported folder>-try-h<H>-r<R>` and scores the test split.
 */
export async function tryNnsscNegatives(opts: {
  corpus: Corpus; bench: Benchmark; encoder: SentenceEncoder; corpusMatrix: Float32Array;
  /** The reported NN-SSC and its test run. */
  reported: Pick<NnsscArtefact, 'config' | 'dir'>; reportedRun: Run;
  mix: { hardNegatives: number; randomNegatives: number };
  onEpoch?: NonNullable<NonNullable<Parameters<typeof loadOrTrainNnssc>[0]['training']>['onEpoch']>;
}): Promise<TryItResult> {
  const { mix } = opts;
  checkKnobs(mix, 'tryNnsscNegatives', { hardNegatives: 0, randomNegatives: 0 });
  if (!Number.isInteger(mix.hardNegatives) || !Number.isInteger(mix.randomNegatives) || mix.hardNegatives + mix.randomNegatives < 1)
    throw new EoError('INVALID_ARGUMENT', `tryNnsscNegatives: whole numbers of negatives, at least one in all (got ${describe(mix)})`);
  const test = benchmarkSplit(opts.bench, 'test');
  const setting = describe(mix);
  const reported = { label: `NN-SSC (reported: ${describe({ hardNegatives: opts.reported.config.hardNegatives, randomNegatives: opts.reported.config.randomNegatives })})`, run: opts.reportedRun };
  if (mix.hardNegatives === opts.reported.config.hardNegatives && mix.randomNegatives === opts.reported.config.randomNegatives)
    return compare(reported, null, test.qrels, setting, null);
  const dir = `${opts.reported.dir.replace(/[\\/]+$/, '')}-try-h${mix.hardNegatives}-r${mix.randomNegatives}`;
  const config: NnsscTrainConfig = { ...opts.reported.config, ...mix };
  const nn = await loadOrTrainNnssc({
    corpus: opts.corpus, bench: opts.bench, encoder: opts.encoder, corpusMatrix: opts.corpusMatrix, config, dir,
    training: opts.onEpoch ? { onEpoch: opts.onEpoch } : {},
  });
  const scorer = nnsscScorer(opts.encoder, opts.corpusMatrix, nn.model, { id: 'nnssc-try', label: `NN-SSC (${setting})` });
  try {
    const run = (await scoreQueries(scorer, test.queries, opts.corpus)).run;
    return compare(reported, { label: `NN-SSC (${setting})`, run }, test.qrels, setting, dir);
  } finally {
    scorer.dispose();
  }
}

/** Where a tried fine-tuning setting is kept: `<reported folder>-try-lr<lr>-s<steps>`. */
export function finetuneTryDir(reportedDir: string, knobs: { lr: number; maxSteps: number }): string {
  return `${reportedDir.replace(/[\\/]+$/, '')}-try-lr${knobs.lr}-s${knobs.maxSteps}`;
}

/**
 * Notebook 03's knobs, the learning rate and the number of steps. At the reported setting, the reported fine-tuned
 * run comes back; another setting fine-tunes on the same training split into `finetuneTryDir`, re-embeds the corpus
 * with it (cached by its weights) and scores the test split. Seconds on the sample; on the full snapshot a changed
 * knob costs a fine-tuning run and a corpus re-embedding (minutes).
 */
export async function tryFinetuneSchedule(opts: {
  corpus: Corpus; bench: Benchmark; base: SentenceEncoder; baseMatrix: Float32Array;
  /** The reported fine-tuned encoder and its test run. */
  reported: Pick<FinetunedEncoderArtefact, 'config' | 'dir'>; reportedRun: Run;
  knobs: { lr: number; maxSteps: number };
  /** Default 2 worker threads for the re-embedding. */
  workers?: number;
}): Promise<TryItResult> {
  const { knobs } = opts;
  checkKnobs(knobs, 'tryFinetuneSchedule', { lr: 0, maxSteps: 1 });
  if (!Number.isInteger(knobs.maxSteps)) throw new EoError('INVALID_ARGUMENT', `tryFinetuneSchedule: maxSteps must be a whole number, got ${knobs.maxSteps}`);
  if (!(knobs.lr > 0)) throw new EoError('INVALID_ARGUMENT', `tryFinetuneSchedule: lr must be > 0, got ${knobs.lr}`);
  const test = benchmarkSplit(opts.bench, 'test');
  const setting = describe(knobs);
  const was = { lr: opts.reported.config.lr, maxSteps: opts.reported.config.maxSteps ?? NaN };
  const reported = { label: `Cosine (fine-tuned, reported: ${describe(was)})`, run: opts.reportedRun };
  if (knobs.lr === was.lr && knobs.maxSteps === was.maxSteps) return compare(reported, null, test.qrels, setting, null);
  const dir = finetuneTryDir(opts.reported.dir, knobs);
  const config: FinetuneConfig = { ...opts.reported.config, ...knobs };
  const ft = await loadOrTrainFinetunedEncoder({ corpus: opts.corpus, bench: opts.bench, base: opts.base, baseMatrix: opts.baseMatrix, config, dir });
  try {
    const matrix = await embedCorpusCached({ encoder: ft.encoder, key: opts.corpus.hash, texts: opts.corpus.datasets.map((d) => datasetEncoderText(d)), workers: opts.workers ?? 2 });
    const run = (await scoreQueries(denseScorer(ft.encoder, matrix, { id: 'cosine-ft-try', label: `Cosine (fine-tuned, ${setting})` }), test.queries, opts.corpus)).run;
    return compare(reported, { label: `Cosine (fine-tuned, ${setting})`, run }, test.qrels, setting, dir);
  } finally {
    ft.encoder.dispose();
  }
}
