/**
 * Views of notebook 03 (encoder fine-tuning, the "Cosine (fine-tuned)" row of Table 2): its configuration beside the
 * paper's, the training log lines, the learning curve and validation table with the paragraph generated from them,
 * the test verdict, the per-query scatter, the Try-it knobs (learning rate, steps), and its claim check.
 */
import { benchmarkSplit } from '../../bench/build';
import type { TuningLog } from '../../bench/tuning-log';
import { NASA_EO_BENCH } from '../../bench/paper';
import type { Benchmark } from '../../bench/types';
import type { Corpus } from '../../data/types';
import { EoError } from '../../errors';
import type { SentenceEncoder } from '../../encode/types';
import type { PairedComparison, PerQueryMetrics, MetricRow, Run } from '../../metrics/types';
import { winsLossesTies } from '../../metrics/paired';
import { embedCorpusShowingProgress } from '../../report/corpus-embeddings';
import { showFigure, showMarkdown, showTable } from '../../report/display';
import { perQueryScatterFigure, scatterFigure } from '../../report/figures';
import { settingRows } from '../../report/frame';
import { pairedVerdict, resultVerdict, sampleNote, sourceCaption, trainingVerdict } from '../../report/lesson';
import { paperTable2Value, TABLE2_DIFFERENCES } from '../../report/paper';
import type { Figure, TableRow, TableSource } from '../../report/types';
import { denseScorer, scoreQueries } from '../../retrieve/scorers';
import { evaluateSystems, pairedComparisons, pairedTable } from '../../metrics/systems';
import { chooseStaticSettings, STATIC_SETTINGS_SEEDS, STATIC_SETTINGS_TIE, staticSettingsCandidates, type StaticArtefact } from '../../train/static-artefact';
import { DEFAULT_STATIC_TRAIN_CONFIG } from '../../train/static';
import { staticMemberSeed } from '../../train/static-ensemble';
import { staticCosineScorer } from '../../retrieve/static-scorer';
import { loadOrTrainFinetunedEncoder, type FinetunedEncoderArtefact, type FinetuneTrainingSummary } from '../../train/finetune-artefact';
import { CPU_FINETUNE_CONFIG, PAPER_FINETUNE_CONFIG, PAPER_FINETUNE_STATED, TINY_FINETUNE_CONFIG, defaultFinetuneDir, type FinetuneConfig, type FinetuneStep, type FinetuneValidation } from '../../train/finetune';
import { repoRelativePath } from '../../util/paths';
import { checkKnobs, compareTried, knobSetting, tryItVerdict, type TryItResult, showTrainingTryIt, trainingScaleClause, type TrainingTryItContext } from '../try-it';
import { registerClaimCheck, shownWith, type Json } from '../claims';
import {
  changePaperValue, changeTrainQueries, flipReusedCheckpoint, metricsVerdictProblems, paperSentenceProblems, pairedVerdictProblems,
  sampleNoteProblems, swapMetricWinner, trainingScaleProblems, trainingVerdictProblems, tryItDefaultProblems,
} from '../verdict-claims';


/** The configuration notebook 03 trains with: a few tiny steps on the sample, the CPU defaults on the full snapshot. */
export function finetuneConfigFor(sample: boolean): FinetuneConfig {
  return sample ? TINY_FINETUNE_CONFIG : CPU_FINETUNE_CONFIG;
}

/**
 * Notebook 03's first output: where the numbers come from (sample or full), the size of its training split against
 * NASA-EO-Bench's, and its fine-tuning configuration beside the paper's. Returns the configuration and its checkpoint
 * folder.
 */
export function showFinetuneSetup(input: { sample: boolean; corpus: Pick<Corpus, 'datasets'>; bench: Benchmark }): { config: FinetuneConfig; dir: string; trainQueries: number } {
  const { sample, bench } = input;
  const config = finetuneConfigFor(sample);
  const trainQueries = benchmarkSplit(bench, 'train').queries.length;
  const testQueries = benchmarkSplit(bench, 'test').queries.length;
  console.log(`${trainQueries} train / ${testQueries} test queries over ${input.corpus.datasets.length} datasets`);
  showMarkdown(sampleNote(sample, { queries: testQueries, datasets: input.corpus.datasets.length, writerLabel: bench.writerLabel }));
  showMarkdown(`Training data: ${trainingScaleClause(trainQueries)}.`);
  showTable(settingRows(config, { config: PAPER_FINETUNE_CONFIG, label: 'paper', stated: PAPER_FINETUNE_STATED }), { title: `Fine-tuning configuration (${sample ? 'sample: tiny' : 'CPU default'} vs the paper's)` });
  return { config, dir: defaultFinetuneDir(sample ? 'use-lite-mnrl-sample' : 'use-lite-mnrl'), trainQueries };
}

/** One line per fine-tuning step. */
export function finetuneStepLine(s: FinetuneStep): string {
  return `step ${s.step} (epoch ${s.epoch}): loss ${s.loss.toFixed(4)}  lr ${s.lr.toExponential(2)}  ${s.seconds.toFixed(1)} s`;
}

/** One line per fine-tuning validation. */
export function finetuneValidationLine(v: FinetuneValidation): string {
  return `  validation after step ${v.step}: MRR ${v.mrr.toFixed(4)}, R@10 ${v.recall10.toFixed(4)} (${v.queries} queries, pool ${v.pool})`;
}

/** `loadOrTrainFinetunedEncoder`'s progress callbacks: a line per step and per validation. */
export const finetuneLog = {
  onStep: (s: FinetuneStep) => console.log(finetuneStepLine(s)),
  onValidation: (v: FinetuneValidation) => console.log(finetuneValidationLine(v)),
};

/** What `loadOrTrainFinetunedEncoder` did, in one line. */
export function finetuneTrainingLine(ft: FinetunedEncoderArtefact): string {
  const s = ft.summary;
  return ft.trained
    ? `trained ${s.trainableParams.toLocaleString()} parameters (${ft.trained.trainableWeights.length} weight tensors, scope "${ft.trained.scope}") on "${s.backend}" (${ft.why}): ` +
        `${s.steps.length} steps, ${s.pairsSeen} pairs, ${s.wallSeconds.toFixed(0)} s (stopped by ${s.stoppedBy}); encoder ${ft.encoder.id}`
    : `reusing ${repoRelativePath(ft.dir)} (trained on "${s.backend}" in ${s.wallSeconds.toFixed(0)} s on training data ${ft.trainingData.hash}); encoder ${ft.encoder.id}`;
}

/** Fine-tuning learning curve: MNRL loss per step. */
export function finetuneLearningCurveFigure(s: FinetuneTrainingSummary): Figure {
  return scatterFigure([{ x: s.steps.map((x) => x.step), y: s.steps.map((x) => x.loss), name: 'train loss (MNRL)', mode: 'lines+markers' }],
    { title: `Learning curve (backend ${s.backend})`, xTitle: 'step', yTitle: 'loss' });
}

/** Fine-tuning validation rows (held-out training publications). */
export function finetuneValidationRows(s: FinetuneTrainingSummary) {
  return s.validation.map((v) => ({ step: v.step, 'val MRR': v.mrr, 'val R@10': v.recall10, queries: v.queries, pool: v.pool }));
}

/** `trainingVerdict` of a fine-tuning run (loss per step, validation MRR before and after). */
export function finetuneVerdict(summary: Pick<FinetuneTrainingSummary, 'steps' | 'validation'>, reused: boolean): string {
  return trainingVerdict({
    what: 'Fine-tuning (MNRL)', losses: summary.steps.map((s) => s.loss), unit: 'step', metric: 'MRR', reused,
    validation: summary.validation.map((v) => ({ at: v.step, value: v.mrr })),
  });
}

/** Notebook 03's training outputs: the line saying what happened, the learning curve, the validation table and the paragraph generated from them. */
export async function showFinetuneTraining(ft: FinetunedEncoderArtefact, notebook: string): Promise<void> {
  const c = ft.config;
  console.log(finetuneTrainingLine(ft));
  await showFigure(finetuneLearningCurveFigure(ft.summary), { name: 'learning-curve', notebook });
  showMarkdown(sourceCaption('Figure: MNRL loss per step (training split).', { settings: { checkpoint: ft.dir, lr: c.lr, steps: c.maxSteps, batchSize: c.batchSize, scope: c.scope, seed: c.seed } }));
  showTable(finetuneValidationRows(ft.summary), { title: 'Validation (held-out training publications)', digits: 4, source: { settings: { checkpoint: ft.dir, valQueries: c.valQueries } } });
  showMarkdown(finetuneVerdict(ft.summary, !ft.trained));
}

/** Why notebook 03's numbers may differ from the paper's. */
function finetuneReasons(trainQueries: number): string[] {
  return [TABLE2_DIFFERENCES.queries, TABLE2_DIFFERENCES.encoder, TABLE2_DIFFERENCES.finetune, trainingScaleClause(trainQueries)];
}

/** Shows the block under notebook 03's test table: who wins, Cosine (fine-tuned) − Cosine (base) paired, both rows beside the paper's. */
export function showFinetuneVerdict(input: { rows: readonly MetricRow[]; paired: readonly PairedComparison[]; sample: boolean; queries: number; datasets: number; writerLabel?: string; trainQueries: number }): void {
  showMarkdown(resultVerdict({
    rows: input.rows, paired: input.paired, a: 'Cosine (fine-tuned)', b: 'Cosine (base)', sample: input.sample, queries: input.queries,
    datasets: input.datasets, writerLabel: input.writerLabel, paperValue: paperTable2Value, reasons: finetuneReasons(input.trainQueries),
  }));
}

/** The per-query scatter of reciprocal ranks, base (x) vs fine-tuned (y), its caption, and the wins / losses / ties in a line. */
export async function showFinetuneScatter(input: { base: PerQueryMetrics; finetuned: PerQueryMetrics; queryText: ReadonlyMap<string, string>; source: TableSource; notebook: string }): Promise<void> {
  await showFigure(perQueryScatterFigure(input.base, input.finetuned, { xTitle: 'Cosine (base)', yTitle: 'Cosine (fine-tuned)', text: (q) => input.queryText.get(q)!.slice(0, 80) }),
    { name: 'rr-base-vs-finetuned', notebook: input.notebook });
  showMarkdown(sourceCaption('Figure: reciprocal rank per test query, base vs fine-tuned encoder.', input.source));
  const wlt = winsLossesTies(input.finetuned.values.MRR, input.base.values.MRR);
  console.log(`fine-tuned better on ${wlt.wins} queries, base better on ${wlt.losses}, tied on ${wlt.ties}`);
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
  const setting = knobSetting(knobs);
  const was = { lr: opts.reported.config.lr, maxSteps: opts.reported.config.maxSteps ?? NaN };
  const reported = { label: `Cosine (fine-tuned, reported: ${knobSetting(was)})`, run: opts.reportedRun };
  if (knobs.lr === was.lr && knobs.maxSteps === was.maxSteps) return compareTried(reported, null, test.qrels, setting, null);
  const dir = finetuneTryDir(opts.reported.dir, knobs);
  const config: FinetuneConfig = { ...opts.reported.config, ...knobs };
  const ft = await loadOrTrainFinetunedEncoder({ corpus: opts.corpus, bench: opts.bench, base: opts.base, baseMatrix: opts.baseMatrix, config, dir });
  try {
    const matrix = await embedCorpusShowingProgress(opts.corpus, ft.encoder, 'tried fine-tuned corpus embeddings', opts.workers ?? 2);
    const run = (await scoreQueries(denseScorer(ft.encoder, matrix, { id: 'cosine-ft-try', label: `Cosine (fine-tuned, ${setting})` }), test.queries, opts.corpus)).run;
    return compareTried(reported, { label: `Cosine (fine-tuned, ${setting})`, run }, test.qrels, setting, dir);
  } finally {
    ft.encoder.dispose();
  }
}

/** Notebook 03's Try-it output: the reported (and tried) rows, then the paragraph under them. */
export function showFinetuneTryIt(tried: TryItResult, ctx: TrainingTryItContext): void {
  showTrainingTryIt(tried, { ...ctx, knobs: '`tryLr` or `trySteps`', reason: TABLE2_DIFFERENCES.finetune });
}

/** What results.json records of the fine-tuning (`config`: the one it was asked to train with): the checkpoint folder and the training record. */
export function finetuneTrainingRecord(ft: FinetunedEncoderArtefact, config: FinetuneConfig) {
  const s = ft.summary;
  return {
    checkpoint: repoRelativePath(ft.dir),
    training: {
      config, trainableParams: s.trainableParams, steps: s.steps.length, pairsSeen: s.pairsSeen,
      wallSeconds: s.wallSeconds, stoppedBy: s.stoppedBy, reusedCheckpoint: !ft.trained,
      finalLoss: s.steps.length ? s.steps[s.steps.length - 1].loss : null, validation: s.validation,
      trainingData: ft.trainingData,
    },
  };
}

// ── notebook 03's claim check (lib/lessons/claims.ts)

const rows03 = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);

/** The test verdict (winners, ours vs the paper), the paired verdict, the sample note, the training split beside NASA-EO-Bench's and the Try-it sentence of a training notebook (03, 04). */
export function trainedRowClaimProblems(results: Json): string[] {
  const rows = rows03(results.metrics);
  const main = shownWith(results, /^### What this shows/);
  return [
    ...(main ? [...metricsVerdictProblems(main, rows), ...paperSentenceProblems(main, rows)] : ['no verdict under the test table']),
    ...pairedVerdictProblems(results, (results.paired ?? {}) as Record<string, unknown>),
    ...sampleNoteProblems(results), ...trainingScaleProblems(results), ...tryItDefaultProblems(results),
  ];
}

registerClaimCheck('03', {
  covers: '03: the winners, ours vs the paper, the paired verdict, the training paragraph, the training split vs NASA-EO-Bench\'s, the Try-it sentence',
  check: (results) => {
    const t = (results.training ?? {}) as { steps?: number; finalLoss?: number; validation?: { step: number; mrr: number }[]; reusedCheckpoint?: boolean };
    const text = shownWith(results, /Fine-tuning \(MNRL\)/);
    const validation = (t.validation ?? []).map((v) => ({ at: v.step, value: v.mrr }));
    return [
      ...trainedRowClaimProblems(results),
      ...(text === null ? ['no paragraph on the fine-tuning run'] : trainingVerdictProblems(text, {
        unit: 'step', losses: null, lastLoss: Number(t.finalLoss), count: Number(t.steps), validation, kept: validation.length ? validation[validation.length - 1].at : 0, reused: t.reusedCheckpoint === true,
      })),
    ];
  },
  falsify: (results) => [
    swapMetricWinner(results, rows03(results.metrics), 'MAP') ?? swapMetricWinner(results, rows03(results.metrics), 'MRR'),
    changePaperValue(results), changeTrainQueries(results), flipReusedCheckpoint(results),
  ].filter((x): x is Json => x !== null),
});

// ── the corpus-trained static encoder (issue 37): trained beside the fine-tuned one, compared on the same test split

/** The query-time Rocchio feedback a logged static-encoder entry was scored with (none: one cosine pass). */
const feedbackLabel = (prf: { k: number; beta: number } | undefined) => (prf ? `own first ${prf.k}, β ${prf.beta}` : 'none');

type LoggedVocabulary = { tokenizer?: { stem?: string; stopWords?: boolean; bigrams?: boolean }; bigramMinCount?: number; pooling?: string; minCount?: number };

/** A logged vocabulary's tokenizer in a word or two: `plain`, `stem+stop`, `bigrams (≥ 10 texts)`. */
const tokenizerLabel = (vocab: LoggedVocabulary | undefined) => {
  const tok = vocab?.tokenizer;
  if (!tok || (tok.stem !== 's' && !tok.stopWords && !tok.bigrams)) return 'plain';
  return [tok.stem === 's' ? 'stem' : '', tok.stopWords ? 'stop' : '', tok.bigrams ? `bigrams (≥ ${vocab?.bigramMinCount ?? '?'} texts)` : ''].filter(Boolean).join('+');
};

/** One row per static-encoder configuration of the tuning log tried with the dev labels left out of the pairs (`bench/static-tune.cjs`, unless `--keep-dev-labels`). */
export function staticTuningRows(log: TuningLog): TableRow[] {
  return log.entries
    .filter((e) => e.system === 'static-encoder' && e.settings.devLabelsOut === true)
    .map((e) => {
      const st = e.settings as { init?: string; vocab?: LoggedVocabulary; exclusionScope?: string; learningRate?: number; temperature?: number; epochs?: number; initScale?: number; batchSize?: number; dims?: number[]; contextNoise?: number; schedule?: string; prf?: { k: number; beta: number }; seed?: number; seeds?: number[]; ensemble?: string; queryWords?: string; members?: number };
      return {
        init: st.init ?? 'random', 'σ init': st.initScale ?? 0.1,
        tokenizer: tokenizerLabel(st.vocab),
        // entries logged before the pooling was a setting pooled by IDF
        pooling: st.vocab?.pooling ?? 'idf',
        'test labels left out of': st.exclusionScope === 'generated-queries' ? 'query-side sources' : 'every source',
        // entries logged before the temperature was a tuning flag trained at the trainer's default
        lr: st.learningRate ?? null, τ: st.temperature ?? DEFAULT_STATIC_TRAIN_CONFIG.temperature, epochs: st.epochs ?? null, batch: st.batchSize ?? null,
        // the widths the loss was summed over: the Matryoshka prefixes, or the full width only
        widths: st.dims ? st.dims.join('/') : null,
        // share of query-side pairs given a distractor (bench/static-tune.cjs --context-noise, an experiment)
        'context noise': st.contextNoise ?? 0,
        schedule: st.schedule ?? 'constant',
        // the training seed, or the seeds whose models were scored together (the mean of their cosines)
        seed: st.seeds ? `${st.seeds.join(' + ')} (${st.ensemble ?? 'ensemble'})` : String(st.seed ?? DEFAULT_STATIC_TRAIN_CONFIG.seed),
        // models trained per seed and stacked as one (StaticTrainConfig.members; 1 before it was a setting)
        models: st.members ?? 1,
        // query-time Rocchio feedback the model was scored with (none: one cosine pass)
        feedback: feedbackLabel(st.prf), 'query words': st.queryWords ?? 'all',
        'nDCG@10': e.scores['nDCG@10'], question: e.scores['question/nDCG@10'], keyword: e.scores['keyword/nDCG@10'],
        identifier: e.scores['identifier/nDCG@10'], misspelled: e.scores['misspelled/nDCG@10'],
      };
    });
}

/**
 * One row per candidate of the static encoder's dev search (`staticSettingsCandidates`: a configuration logged for every
 * seed of `STATIC_SETTINGS_SEEDS`), scored by the mean over the seeds; `chosen` marks the one the defaults are
 * (`chooseStaticSettings`, as the tuning-log test reads them).
 */
export function staticCandidateRows(log: TuningLog): TableRow[] {
  const candidates = staticSettingsCandidates(log.entries);
  const chosen = chooseStaticSettings(candidates);
  return candidates.map((c) => {
    const st = c.settings as { batchSize?: number; learningRate?: number; temperature?: number; epochs?: number; prf?: { k: number; beta: number }; initScale?: number; dim?: number; vocab?: LoggedVocabulary; queryWords?: string; members?: number };
    return {
      models: st.members ?? 1, batch: st.batchSize ?? null, lr: st.learningRate ?? null, τ: st.temperature ?? DEFAULT_STATIC_TRAIN_CONFIG.temperature, epochs: st.epochs ?? null,
      dims: st.dim ?? null, 'σ init': st.initScale ?? 0.1, tokenizer: tokenizerLabel(st.vocab),
      feedback: feedbackLabel(st.prf), 'query words': st.queryWords ?? 'all',
      [`nDCG@10 (mean of seeds ${STATIC_SETTINGS_SEEDS.join(', ')})`]: c.nDCG, 'question (mean)': c.question,
      'per seed': c.entries.map((e) => e.scores['nDCG@10'].toFixed(4)).join(' / '), 'training s (mean)': c.trainSeconds,
      chosen: c === chosen ? 'chosen' : '',
    };
  });
}

/**
 * The settings tried for the static encoder on the style benchmark's DEV half with the dev labels left out of its
 * pairs as the test labels are (initialisation, tokenizer, pooling, exclusion scope, learning rate, temperature, epochs), from the tuning
 * log; nothing is trained here.
 */
export function showStaticTuning(log: TuningLog): void {
  const rows = staticTuningRows(log);
  const all = log.entries.filter((e) => e.system === 'static-encoder').length;
  showTable(rows, { title: `Static encoder settings tried on the style benchmark's dev half, dev labels left out of the pairs (${rows.length} of the ${all} static-encoder entries of bench/tuning-log.json; nDCG@10 of the encoder alone)`, digits: 3, best: true });
  const candidates = staticCandidateRows(log);
  // the defaults are read from the configurations trained with every seed: one seed's spread is as large as a setting's effect
  if (candidates.length) showTable(candidates, { title: `The candidates: configurations trained with seeds ${STATIC_SETTINGS_SEEDS.join(', ')}, by their mean (a cheaper one within ${STATIC_SETTINGS_TIE.nDCG} nDCG@10 is preferred; the chosen one is the default)`, digits: 4 });
}

/** What notebook 03 records of the static encoder (results.json `staticEncoder`). */
export interface StaticEncoderRecord {
  id: string;
  checkpoint: string;
  trainedHere: boolean;
  trainingSeconds: number;
  epochs: { epoch: number; loss: number; inBatchAccuracy: number; seconds: number }[];
  pairs: { count: number; bySource: Record<string, number>; excludedRows: number };
  embedSeconds: number;
  textsPerSecond: number;
  metrics: MetricRow[];
  /** Static (corpus-trained) − Cosine (base), typed. */
  paired: PairedComparison[];
}

/**
 * The static encoder's section of notebook 03: its training (per-epoch table, pairs by source, time), the corpus
 * embedded with it (timed), its test-split row beside Cosine (base) and Cosine (fine-tuned), and the paired test
 * against Cosine (base) with its verdict. Returns what results.json records and the static scorer's run.
 */
export async function showStaticEncoder(input: {
  art: StaticArtefact; corpus: Corpus; test: { queries: { id: string; text: string }[]; qrels: import('../../metrics/types').Qrels };
  compared: { id: string; label: string; run: Run }[]; source: TableSource;
}): Promise<{ record: StaticEncoderRecord; run: Run }> {
  const { art, corpus, test } = input;
  const members = art.model.members ?? 1;
  const width = members > 1 ? `${members} models of ${art.model.dim / members} dims side by side (seeds ${Array.from({ length: members }, (_, i) => staticMemberSeed(art.settings.train.seed ?? DEFAULT_STATIC_TRAIN_CONFIG.seed, i)).join(', ')}), Matryoshka ${art.model.dims.map((d) => d / members).join('/')} each` : `${art.model.dim} dims, Matryoshka ${art.model.dims.join('/')}`;
  showTable(art.curve.map((l) => ({ ...(l.member ? { model: l.member } : {}), epoch: l.epoch, 'MNRL loss': l.loss, 'in-batch accuracy': l.inBatchAccuracy, seconds: l.seconds })), { title: `Static encoder training (${width}; ${art.pairs.count.toLocaleString('en-US')} pairs)`, digits: 4 });
  showTable(Object.entries(art.pairs.bySource).map(([source, pairs]) => ({ source, pairs })), { title: `Training pairs by source (corpus and training split only; ${art.pairs.excludedRows} test-labelled datasets left out of ${art.settings.pairs.exclusionScope === 'generated-queries' ? 'the query-side sources: short names, corpus-made queries, training split' : 'every source'})` });
  const t0 = performance.now();
  const scorer = await staticCosineScorer(art.model, corpus, { kernel: 'exact' });
  const embedSeconds = (performance.now() - t0) / 1000;
  const scored = await scoreQueries(scorer, test.queries, corpus);
  const systems = [...input.compared, { id: 'static', label: 'Static (corpus-trained)', run: scored.run }];
  const evaluation = evaluateSystems(systems, test.qrels);
  showTable(evaluation.rows, { title: `Test split, ${test.queries.length} queries: the static encoder beside the USE-lite rows`, digits: 4, best: true, source: input.source });
  const base = input.compared[0];
  const paired = pairedComparisons(evaluation.perQuery.static, evaluation.perQuery[base.id], 'Static (corpus-trained)', base.label);
  showTable(pairedTable(paired), { title: `Static (corpus-trained) − ${base.label}: paired randomization p and bootstrap 95% CI`, digits: 4, source: input.source });
  showMarkdown(pairedVerdict(paired, 'Static (corpus-trained)', base.label));
  const textsPerSecond = corpus.datasets.length / Math.max(embedSeconds, 1e-9);
  showMarkdown(`The static encoder ${art.trained ? `was **trained in this run** in ${art.trainingSeconds.toFixed(0)} s` : `was **loaded** (trained in ${art.trainingSeconds.toFixed(0)} s when its checkpoint was written)`} ` +
    `and embedded all ${corpus.datasets.length.toLocaleString('en-US')} datasets in ${embedSeconds.toFixed(1)} s (${textsPerSecond.toFixed(0)} texts/s). ` +
    'Its rows with BM25 are in notebook 05 (Table 2 and the style tables).');
  scorer.dispose();
  return {
    run: scored.run,
    record: {
      id: art.model.id, checkpoint: repoRelativePath(art.dir), trainedHere: art.trained, trainingSeconds: art.trainingSeconds, epochs: art.curve.map(({ epoch, loss, inBatchAccuracy, seconds }) => ({ epoch, loss, inBatchAccuracy, seconds })),
      pairs: { count: art.pairs.count, bySource: art.pairs.bySource, excludedRows: art.pairs.excludedRows }, embedSeconds, textsPerSecond,
      metrics: evaluation.rows, paired,
    },
  };
}
