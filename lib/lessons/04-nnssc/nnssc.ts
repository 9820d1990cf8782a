/**
 * Views of notebook 04 (NN-SSC, the supervised scorer of Eq. 5): its configuration and data note, the hard negatives
 * of one training query, the epoch log and learning curves with the paragraph generated from them, which happened
 * to the checkpoint, the test verdict, the Try-it knob (the negatives mix), and its claim check.
 */
import { benchmarkSplit } from '../../bench/build';
import type { Benchmark } from '../../bench/types';
import type { Corpus } from '../../data/types';
import { EoError, isEoError } from '../../errors';
import type { SentenceEncoder } from '../../encode/types';
import type { MetricRow, PairedComparison, Run } from '../../metrics/types';
import { showFigure, showMarkdown, showTable } from '../../report/display';
import { scatterFigure } from '../../report/figures';
import { settingRows } from '../../report/frame';
import { pairedVerdict, resultVerdict, sampleNote, sourceCaption, trainingVerdict } from '../../report/lesson';
import { paperTable2Value, TABLE2_DIFFERENCES } from '../../report/paper';
import type { Figure, TableSource } from '../../report/types';
import { nnsscParamCount } from '../../retrieve/nnssc';
import { nnsscScorer } from '../../retrieve/nnssc-scorer';
import { STATIC_NNSSC_SCORER } from '../../retrieve/static-scorer';
import { evaluateSystems, pairedComparisons, pairedTable } from '../../metrics/systems';
import { scoreQueries } from '../../retrieve/scorers';
import { loadOrTrainNnssc, loadOrTrainNnsscFolds, nnsscFoldDir, type ArtefactMode, type NnsscArtefact, type NnsscFolds, type NnsscTrainingSummary } from '../../train/artefacts';
import type { BenchSplitView } from '../../bench/types';
import type { Qrels } from '../../metrics/types';
import { evaluateRun, summarize } from '../../metrics/metrics';
import { performanceIndex } from '../../fuse/alpha';
import { runFromScores } from '../../retrieve/scorers';
import type { NnsscModel } from '../../retrieve/nnssc';
import { crossFittedNnsscScores } from '../../search/cross-fit';
import { retrieveBatch } from '../../search/retrieve-batch';
import { f3 } from '../../report/numbers';
import { DEFAULT_NNSSC_CONFIG, type NnsscEpochLog, type NnsscTrainConfig } from '../../train/nnssc';
import { repoRelativePath } from '../../util/paths';
import { trainedRowClaimProblems } from '../03-encoder-finetune/encoder-finetune';
import { registerClaimCheck, shownWith, withShownSentence, type Json } from '../claims';
import { changePaperValue, changeTrainQueries, flipReusedCheckpoint, swapMetricWinner, trainingVerdictProblems } from '../verdict-claims';
import { checkKnobs, compareTried, knobSetting, tryItVerdict, type TryItResult, showTrainingTryIt, trainingScaleClause, type TrainingTryItContext } from '../try-it';

/**
 * Notebook 04's first output: where the numbers come from, the size of its training split against NASA-EO-Bench's
 * and the training configuration (`DEFAULT_NNSSC_CONFIG`, which it returns).
 */
export function showNnsscSetup(input: { sample: boolean; corpus: Pick<Corpus, 'datasets'>; bench: Benchmark }): NnsscTrainConfig {
  const { sample, bench } = input;
  const trainQueries = benchmarkSplit(bench, 'train').queries.length;
  const testQueries = benchmarkSplit(bench, 'test').queries.length;
  console.log(`${trainQueries} train / ${testQueries} test queries over ${input.corpus.datasets.length} datasets (${bench.writerLabel})`);
  showMarkdown(sampleNote(sample, { queries: testQueries, datasets: input.corpus.datasets.length, writerLabel: bench.writerLabel }));
  showMarkdown(`Training data: ${trainingScaleClause(trainQueries)}.`);
  showTable(settingRows(DEFAULT_NNSSC_CONFIG), { title: 'NN-SSC training configuration' });
  return DEFAULT_NNSSC_CONFIG;
}

/** Rows of a query's positives and hard negatives (first `positives` and `negatives` of each), for a display. */
export function hardNegativeRows(corpus: Corpus, positives: readonly number[], negatives: readonly number[], shown = { positives: 3, negatives: 5 }) {
  const row = (role: string, i: number) => ({ role, shortName: corpus.datasets[i].shortName, title: corpus.datasets[i].longName.slice(0, 90) });
  return [...positives.slice(0, shown.positives).map((i) => row('positive', i)), ...negatives.slice(0, shown.negatives).map((i) => row('hard negative', i))];
}

/** The positives and hard negatives of a training query as a table. */
export function showHardNegatives(input: { corpus: Corpus; query: string; positives: readonly number[]; negatives: readonly number[]; encoderId: string; hardNegatives: number }): void {
  showTable(hardNegativeRows(input.corpus, input.positives, input.negatives), { title: `Positives and hard negatives of "${input.query.slice(0, 100)}"`, source: { settings: { encoder: input.encoderId, hardNegatives: input.hardNegatives } } });
}

const fixed = (x: number | null | undefined, d = 4) => (x === null || x === undefined ? 'n/a' : x.toFixed(d));

/** One line per NN-SSC epoch: losses, validation MAP/MRR, seconds, and a star on the best epoch so far. */
export function nnsscEpochLine(l: NnsscEpochLog, maxEpochs?: number): string {
  return `epoch ${l.epoch}${maxEpochs ? `/${maxEpochs}` : ''}: train loss ${fixed(l.trainLoss)}  val loss ${fixed(l.valLoss)}  val MAP ${fixed(l.valMAP)}  MRR ${fixed(l.valMRR)}  ${l.seconds.toFixed(1)} s${l.best ? '  * best' : ''}`;
}

/** `loadOrTrainNnssc`'s epoch callback: one `nnsscEpochLine` per epoch. */
export function nnsscEpochLog(maxEpochs?: number): (l: NnsscEpochLog) => void {
  return (l) => console.log(nnsscEpochLine(l, maxEpochs));
}

/** What `loadOrTrainNnssc` did, in one line: trained (backend, time, epochs, stopping reason) or reused. */
export function nnsscTrainingLine(nn: NnsscArtefact): string {
  const s = nn.summary;
  const what = `${s.curve.length} epochs, best epoch ${s.bestEpoch} (${s.stoppedBecause}); ${s.trainQueries} training / ${s.valQueries} validation queries, ${s.positivesPerSecond.toFixed(0)} positives/s`;
  return nn.trained
    ? `trained on tfjs backend "${s.backend}" in ${s.wallSeconds.toFixed(0)} s (${nn.why}): ${what}; saved to ${repoRelativePath(nn.dir)}`
    : `reusing ${repoRelativePath(nn.dir)}, trained ${nn.checkpoint.created} on "${s.backend}" in ${s.wallSeconds.toFixed(0)} s on training data ${nn.trainingData.hash}: ${what}`;
}

/** NN-SSC learning curves: loss (train, validation) per epoch, and validation MAP/MRR with the best epoch marked (null without validation). */
export function nnsscLearningCurveFigures(s: NnsscTrainingSummary): { loss: Figure; validation: Figure | null } {
  const ep = s.curve.map((l) => l.epoch);
  const hasVal = s.curve.length > 0 && s.curve[0].valMAP !== null;
  const loss = scatterFigure([
    { x: ep, y: s.curve.map((l) => l.trainLoss), name: 'train loss (Eq. 5)', mode: 'lines+markers' },
    ...(hasVal ? [{ x: ep, y: s.curve.map((l) => l.valLoss ?? NaN), name: 'validation loss', mode: 'lines+markers' as const }] : []),
  ], { title: `NN-SSC learning curve (backend ${s.backend})`, xTitle: 'epoch', yTitle: 'loss' });
  const validation = hasVal
    ? scatterFigure([
        { x: ep, y: s.curve.map((l) => l.valMAP ?? NaN), name: 'validation MAP', mode: 'lines+markers' },
        { x: ep, y: s.curve.map((l) => l.valMRR ?? NaN), name: 'validation MRR', mode: 'lines+markers' },
      ], {
        title: `Validation (held-out training publications), best epoch ${s.bestEpoch}`, xTitle: 'epoch', yTitle: 'full-corpus metric',
        layout: { shapes: [{ type: 'line', x0: s.bestEpoch, x1: s.bestEpoch, yref: 'paper', y0: 0, y1: 1, line: { dash: 'dot', color: '#999' } }] },
      })
    : null;
  return { loss, validation };
}

/** `trainingVerdict` of an NN-SSC run (mean loss per epoch, validation MAP per epoch, the kept best epoch). */
export function nnsscVerdict(summary: Pick<NnsscTrainingSummary, 'curve' | 'bestEpoch' | 'stoppedBecause'>, reused: boolean): string {
  const base = trainingVerdict({
    what: 'NN-SSC (Eq. 5 loss)', losses: summary.curve.map((c) => c.trainLoss), unit: 'epoch', metric: 'MAP', reused, kept: summary.bestEpoch,
    validation: summary.curve.filter((c) => c.valMAP !== null).map((c) => ({ at: c.epoch, value: c.valMAP as number })),
  });
  return `${base} Training stopped because: ${summary.stoppedBecause}.`;
}

/** Which happened to the checkpoint, in one sentence: trained in this run, or loaded after its training-data hash matched. */
export function nnsscCheckpointSentence(nn: Pick<NnsscArtefact, 'trained'>): string {
  return nn.trained
    ? 'The checkpoint was **trained in this run**, on this training split.'
    : 'The checkpoint was **loaded**: its recorded training-data hash matched this training split, so it was not retrained.';
}

/**
 * Notebook 04's training outputs: the epoch log of a reused checkpoint (a training run printed its own), what
 * happened in one line, the learning curves with their captions, the paragraph generated from them, and the
 * checkpoint sentence (trained in this run, or loaded) with the checkpoint's file, size, seed and backend.
 */
export async function showNnsscTraining(nn: NnsscArtefact, notebook: string): Promise<void> {
  if (!nn.trained) for (const l of nn.summary.curve) console.log(nnsscEpochLine(l));
  console.log(nnsscTrainingLine(nn));
  const curves = nnsscLearningCurveFigures(nn.summary);
  const source = { settings: { checkpoint: nn.dir, seed: nn.checkpoint.seed, backend: nn.checkpoint.backend, patience: nn.config.patience, maxEpochs: nn.config.maxEpochs } };
  await showFigure(curves.loss, { name: 'nnssc-loss', notebook });
  showMarkdown(sourceCaption('Figure: Eq. 5 loss per epoch, training and validation (held-out training publications).', source));
  if (curves.validation) {
    await showFigure(curves.validation, { name: 'nnssc-validation', notebook });
    showMarkdown(sourceCaption('Figure: validation MAP and MRR per epoch; the dotted line is the kept epoch.', source));
  }
  showMarkdown(nnsscVerdict(nn.summary, !nn.trained));
  showNnsscCheckpoint(nn);
}

/** The checkpoint sentence, then the checkpoint's file, size, seed, backend and date in a line. */
export function showNnsscCheckpoint(nn: NnsscArtefact): void {
  showMarkdown(nnsscCheckpointSentence(nn));
  console.log(`${repoRelativePath(nn.checkpoint.file)}: ${nnsscParamCount(nn.model).toLocaleString()} trainable parameters, seed ${nn.checkpoint.seed}, backend ${nn.checkpoint.backend}, created ${nn.checkpoint.created}`);
}

/** Why notebook 04's numbers may differ from the paper's. */
function nnsscReasons(trainQueries: number): string[] {
  return [TABLE2_DIFFERENCES.queries, TABLE2_DIFFERENCES.nnssc, trainingScaleClause(trainQueries)];
}

/** The block under notebook 04's test tables: who wins, NN-SSC − Cosine (base) against the paper, then NN-SSC − BM25. */
export function showNnsscVerdict(input: {
  rows: readonly MetricRow[]; vsCosine: readonly PairedComparison[]; vsBm25: readonly PairedComparison[];
  sample: boolean; queries: number; datasets: number; writerLabel?: string; trainQueries: number;
}): void {
  showMarkdown(resultVerdict({
    rows: input.rows, paired: input.vsCosine, a: 'NN-SSC', b: 'Cosine (base)', sample: input.sample, queries: input.queries,
    datasets: input.datasets, writerLabel: input.writerLabel, paperValue: paperTable2Value, reasons: nnsscReasons(input.trainQueries),
  }));
  showMarkdown(pairedVerdict(input.vsBm25, 'NN-SSC', 'BM25'));
}

/** Notebook 04's knob, the negatives mix: `hardNegatives` KNN negatives per query and `randomNegatives` per positive. */
export interface NnsscNegativesMix {
  hardNegatives: number;
  randomNegatives: number;
}

/**
 * The configuration the Try-it cell trains with (`trainNnssc`): the reported one with the tried negatives mix, or null
 * at the reported mix (nothing trains; the reported run comes back). Whole numbers of negatives, at least one in all;
 * `INVALID_ARGUMENT` otherwise.
 */
export function nnsscTryConfig(reported: NnsscTrainConfig, mix: NnsscNegativesMix): NnsscTrainConfig | null {
  checkKnobs({ ...mix }, 'nnsscTryConfig', { hardNegatives: 0, randomNegatives: 0 });
  if (!Number.isInteger(mix.hardNegatives) || !Number.isInteger(mix.randomNegatives) || mix.hardNegatives + mix.randomNegatives < 1)
    throw new EoError('INVALID_ARGUMENT', `nnsscTryConfig: whole numbers of negatives, at least one in all (got ${knobSetting({ ...mix })})`);
  if (mix.hardNegatives === reported.hardNegatives && mix.randomNegatives === reported.randomNegatives) return null;
  return { ...reported, hardNegatives: mix.hardNegatives, randomNegatives: mix.randomNegatives };
}

/** Where the tried NN-SSC's weights are, as its Try-it table says: nowhere (the cell trains it; nothing is saved). */
export const NNSSC_TRIED_CHECKPOINT = 'none: trained in the Try-it cell, not saved';

/** The Try-it rows: the reported NN-SSC's test run, and the tried mix's beside it with the paired comparison when one trained. */
export function nnsscTriedResult(o: { reported: NnsscTrainConfig; tried: NnsscTrainConfig | null; reportedRun: Run; triedRun: Run | null; qrels: Qrels }): TryItResult {
  const mix = (c: NnsscTrainConfig) => knobSetting({ hardNegatives: c.hardNegatives, randomNegatives: c.randomNegatives });
  const reported = { label: `NN-SSC (reported: ${mix(o.reported)})`, run: o.reportedRun };
  if (!o.tried || !o.triedRun) return compareTried(reported, null, o.qrels, mix(o.tried ?? o.reported), null);
  return compareTried(reported, { label: `NN-SSC (${mix(o.tried)})`, run: o.triedRun }, o.qrels, mix(o.tried), NNSSC_TRIED_CHECKPOINT);
}

/** Notebook 04's Try-it output: the reported (and tried) rows, then the paragraph under them. */
export function showNnsscTryIt(tried: TryItResult, ctx: TrainingTryItContext): void {
  showTrainingTryIt(tried, { ...ctx, knobs: '`tryHard` or `tryRandom`', reason: TABLE2_DIFFERENCES.nnssc });
}

/** What results.json records of the NN-SSC training (`config`: the one it was asked to train with): the checkpoint folder and the training record. */
export function nnsscTrainingRecord(nn: NnsscArtefact, config: NnsscTrainConfig) {
  const s = nn.summary;
  return {
    checkpoint: repoRelativePath(nn.dir),
    training: {
      config, trainableParams: nnsscParamCount(nn.model), epochs: s.curve.length, bestEpoch: s.bestEpoch,
      stoppedBecause: s.stoppedBecause, wallSeconds: s.wallSeconds, positivesPerSecond: s.positivesPerSecond,
      trainQueries: s.trainQueries, valQueries: s.valQueries, reusedCheckpoint: !nn.trained, curve: s.curve,
      dataHash: nn.dataHash, trainingData: nn.trainingData,
    },
  };
}

// ── beyond the paper (issue 37): NN-SSC on the corpus-trained static encoder

/** What notebook 04 records of NN-SSC on the static backbone (results.json `staticBackbone`). */
export interface StaticNnsscRecord {
  backbone: { id: string; checkpoint: string; trainedHere: boolean };
  checkpoint: string;
  training: ReturnType<typeof nnsscTrainingRecord>['training'];
  metrics: MetricRow[];
  /** Static backbone − USE-lite, typed. */
  paired: PairedComparison[];
}

/**
 * Notebook 04's static-backbone section: how NN-SSC on the static encoder was trained (or reused), its test-split row
 * beside NN-SSC on USE-lite and BM25, and the paired test against NN-SSC on USE-lite with its verdict. Returns what
 * results.json records and its test run.
 */
export async function showStaticNnssc(input: {
  trained: { nn: NnsscArtefact; backbone: { model: { id: string }; dir: string; trained: boolean }; encoder: SentenceEncoder; matrix: Float32Array };
  corpus: Corpus; test: { queries: { id: string; text: string }[]; qrels: import('../../metrics/types').Qrels };
  /** The rows it is shown beside, the first being the one it is paired with (NN-SSC on USE-lite). */
  compared: { id: string; label: string; run: Run }[];
  source: TableSource;
}): Promise<{ record: StaticNnsscRecord; run: Run }> {
  const { nn, backbone, encoder, matrix } = input.trained;
  showMarkdown(`NN-SSC on the static backbone (${backbone.model.id}, ${backbone.trained ? 'trained in this run' : `loaded from ${repoRelativePath(backbone.dir)}`}): ${nnsscTrainingLine(nn)}.`);
  const scorer = nnsscScorer(encoder, matrix, nn.model, { ...STATIC_NNSSC_SCORER });
  try {
    const run = (await scoreQueries(scorer, input.test.queries, input.corpus)).run;
    const label = STATIC_NNSSC_SCORER.label;
    const evaluation = evaluateSystems([...input.compared, { id: STATIC_NNSSC_SCORER.id, label, run }], input.test.qrels);
    showTable(evaluation.rows, { title: `Test split, ${input.test.queries.length} queries: NN-SSC on the static backbone beside NN-SSC on USE-lite`, digits: 4, best: true, source: input.source });
    const ref = input.compared[0];
    const paired = pairedComparisons(evaluation.perQuery[STATIC_NNSSC_SCORER.id], evaluation.perQuery[ref.id], label, ref.label);
    showTable(pairedTable(paired), { title: `${label} − ${ref.label}: paired randomization p and bootstrap 95% CI`, digits: 4, source: input.source });
    showMarkdown(pairedVerdict(paired, label, ref.label));
    return {
      run,
      record: {
        backbone: { id: backbone.model.id, checkpoint: repoRelativePath(backbone.dir), trainedHere: backbone.trained },
        checkpoint: repoRelativePath(nn.dir), training: nnsscTrainingRecord(nn, nn.config).training,
        metrics: evaluation.rows, paired,
      },
    };
  } finally {
    scorer.dispose();
  }
}

/** What section 9 of notebook 04 measured (results.json `outOfFold`). */
export interface OutOfFoldRecord {
  k: number;
  /** `cross-fitted k=<k> <folds hash>`: the source named in notebook 05's fusion records. */
  source: string;
  foldDirs: string[];
  /** Folds trained in this run (the others were reused). */
  trainedHere: number[];
  foldValMAP: (number | null)[];
  rows: MetricRow[];
  /** π of NN-SSC alone: training split in-sample and out-of-fold, test split. */
  pi: { inSample: number; outOfFold: number; test: number };
}

/**
 * Section 9 of notebook 04: NN-SSC on the training split scored by itself (in-sample: it was trained on these queries)
 * and by the fold models that never saw each query (out-of-fold, `crossFittedNnsscScores`), beside its test split
 * row: a table, π of each, and one sentence. Notebook 05 sets α on the out-of-fold scores too.
 */
export async function showOutOfFoldScores(input: {
  folds: NnsscFolds;
  corpus: Corpus;
  train: BenchSplitView;
  test: { qrels: Qrels };
  /** NN-SSC's test run (section 5). */
  testRun: Run;
  /** The NN-SSC trained on the whole training split (section 4) and its backbone. */
  model: NnsscModel;
  encoder: SentenceEncoder;
  matrix: Float32Array;
  /** The scorer's name in the table and text. Default `NN-SSC` (USE-lite); `NN-SSC (static backbone)` for section 8's. */
  label?: string;
}): Promise<OutOfFoldRecord> {
  const { folds, corpus, train } = input;
  const label = input.label ?? 'NN-SSC';
  const scorer = nnsscScorer(input.encoder, input.matrix, input.model, { id: 'nnssc', label, threads: 2 });
  let inSample: Run;
  try {
    inSample = (await retrieveBatch(scorer, train.queries, corpus)).run;
  } finally {
    scorer.dispose();
  }
  const cross = await crossFittedNnsscScores({ folds, train, corpus, encoder: input.encoder, corpusMatrix: input.matrix });
  const outOfFold = runFromScores(train.queries.map((q) => q.id), cross.scores, corpus, 100);
  const rows = [
    summarize('training split, in-sample (the model trained on it)', evaluateRun(inSample, train.qrels)),
    summarize(`training split, out-of-fold (${folds.k} fold models)`, evaluateRun(outOfFold, train.qrels)),
    summarize('test split', evaluateRun(input.testRun, input.test.qrels)),
  ];
  const pi = { inSample: performanceIndex(rows[0]), outOfFold: performanceIndex(rows[1]), test: performanceIndex(rows[2]) };
  const foldDirs = repoRelativePath(nnsscFoldDir(folds.dir, '*', folds.k));
  const source: TableSource = { settings: { splits: 'train (in-sample, out-of-fold), test', folds: folds.k, 'fold checkpoints': foldDirs, depth: 100 } };
  showTable(rows.map((r) => ({ ...r, π: performanceIndex(r) })), { title: `${label} alone: the training split scored in-sample and out-of-fold, and the test split`, digits: 4, source });
  showMarkdown(`Fold models: ${folds.trained.length ? `${folds.trained.length} of ${folds.k} trained in this run` : `all ${folds.k} reused`} ` +
    `(${foldDirs}; validation MAP ${folds.valMAP.map((v) => (v === null ? 'n/a' : f3(v))).join(', ')}). ` +
    `π of ${label} on the training split is ${f3(pi.inSample)} in-sample and ${f3(pi.outOfFold)} out-of-fold, against ${f3(pi.test)} on the test split: ` +
    `${Math.abs(pi.outOfFold - pi.test) < Math.abs(pi.inSample - pi.test) ? `the out-of-fold π is the nearer to what ${label} does on unseen queries` : 'here the in-sample π is the nearer to the test π'}, ` +
    'and notebook 05 sets the fusion weight on the out-of-fold scores as well as on the in-sample ones.');
  return { k: folds.k, source: cross.source, foldDirs: folds.dirs.map((d) => repoRelativePath(d)), trainedHere: folds.trained, foldValMAP: folds.valMAP, rows, pi };
}

/**
 * Section 9 of notebook 04 for one backbone: NN-SSC's fold models (`loadOrTrainNnsscFolds` beside `dir`, trained with
 * `config`; in `load` mode only read) and `showOutOfFoldScores`. In `load` mode with folds missing it says how to train
 * them (`npm start -- --cross-fit`: about 11 minutes per backbone on the full snapshot) and returns null.
 */
export async function outOfFoldSection(input: Omit<Parameters<typeof showOutOfFoldScores>[0], 'folds'> & {
  bench: Benchmark; config: NnsscTrainConfig; mode: ArtefactMode; dir: string; k?: number;
}): Promise<OutOfFoldRecord | null> {
  const label = input.label ?? 'NN-SSC';
  let folds: NnsscFolds;
  try {
    folds = await loadOrTrainNnsscFolds({
      corpus: input.corpus, bench: input.bench, encoder: input.encoder, corpusMatrix: input.matrix, dir: input.dir, config: input.config, k: input.k ?? 5,
      mode: input.mode, log: (l) => console.log(l),
    });
  } catch (e) {
    if (input.mode !== 'load' || !(isEoError(e, 'DATA_NOT_FOUND') || isEoError(e, 'CACHE_MISMATCH'))) throw e;
    showMarkdown(`*${label}: its fold models are not trained for this training split and config (${(e as Error).message.split('\n')[0].replace(/; (train|rebuild) it: .*$/, '')}). ` +
      '`npm start -- --cross-fit --only 04-nnssc` trains them (about 11 minutes per backbone on 2 cores on the full snapshot); until then notebook 05 sets α on the in-sample scores only.*');
    return null;
  }
  return showOutOfFoldScores({ ...input, folds });
}

// ── notebook 04's claim check (lib/lessons/claims.ts)

registerClaimCheck('04', {
  covers: '04: the winners, ours vs the paper, the paired verdicts, the training paragraph, the checkpoint sentence, the training split vs NASA-EO-Bench\'s, the Try-it sentence',
  check: (results) => {
    const t = (results.training ?? {}) as { curve?: NnsscEpochLog[]; bestEpoch?: number; stoppedBecause?: string; reusedCheckpoint?: boolean };
    const curve = t.curve ?? [];
    const out = trainedRowClaimProblems(results);
    const text = shownWith(results, /NN-SSC \(Eq\. 5 loss\)/);
    if (text === null) out.push('no paragraph on the NN-SSC training run');
    else {
      out.push(...trainingVerdictProblems(text, {
        unit: 'epoch', losses: curve.map((c) => c.trainLoss), lastLoss: curve.length ? curve[curve.length - 1].trainLoss : NaN, count: curve.length,
        validation: curve.filter((c) => c.valMAP !== null).map((c) => ({ at: c.epoch, value: c.valMAP as number })), kept: Number(t.bestEpoch), reused: t.reusedCheckpoint === true,
      }));
      const stopped = /Training stopped because: (.*)\.$/.exec(text);
      if (!stopped || stopped[1] !== t.stoppedBecause) out.push(`says training stopped because "${stopped?.[1]}", results.json has "${String(t.stoppedBecause)}"`);
    }
    const checkpoint = shownWith(results, /^The checkpoint was \*\*(trained in this run|loaded)\*\*/);
    if (checkpoint === null) out.push('no shown sentence says whether the checkpoint was trained in this run or loaded');
    else if (/trained in this run/.test(checkpoint) === (t.reusedCheckpoint === true))
      out.push(`says the checkpoint was ${/trained in this run/.test(checkpoint) ? 'trained in this run' : 'loaded'}, results.json has reusedCheckpoint = ${String(t.reusedCheckpoint)}`);
    return out;
  },
  falsify: (results) => [
    flipReusedCheckpoint(results),
    withShownSentence(results, /^The checkpoint was \*\*(trained in this run|loaded)\*\*/, (s) => (/trained in this run/.test(s) ? nnsscCheckpointSentence({ trained: null }) : nnsscCheckpointSentence({ trained: {} as NonNullable<NnsscArtefact['trained']> }))),
    swapMetricWinner(results, Array.isArray(results.metrics) ? (results.metrics as Record<string, unknown>[]) : [], 'MAP'),
    changePaperValue(results), changeTrainQueries(results),
  ].filter((x): x is Json => x !== null),
});
