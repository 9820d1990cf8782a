// Notebook 05's data and the cells that only load or assemble: the benchmark of query styles, the base encoder, the
// trained scorers (NN-SSC, fine-tuned cosine, corpus self-supervised), Table 2's row plan and the α section. Each
// returns what it made; none keeps state. The stage calls a reader learns (scorers, retrieveSplits, studyHybrid,
// analyticAlpha / fuseConvex, buildTable2) stay in the notebook's cells.
import { EoError, isEoError } from '../../errors';
import type { BenchSplitView, Benchmark } from '../../bench/types';
import { buildStyleBenchmark } from '../../bench/styles/build';
import type { Corpus } from '../../data/types';
import { datasetEncoderText } from '../../data/text';
import { embedCorpusCached, embedQueriesCached } from '../../encode/cache';
import { loadUseLite } from '../../encode/use-lite';
import type { SentenceEncoder } from '../../encode/types';
import { r2Encoder, r2Transform } from '../../fuse/r2';
import type { Qrels } from '../../metrics/types';
import type { CorpusScorer } from '../../retrieve/scorers';
import { denseScorer } from '../../retrieve/scorers';
import { STATIC_NNSSC_SCORER, staticCorpusMatrix } from '../../retrieve/static-scorer';
import { readCheckpointManifest, checkpointExists } from '../../store/checkpoint';
import { loadOrTrainNnsscFolds, nnsscFoldDir } from '../../train/artefacts';
import { finetuneCheckpointName } from '../../train/finetune-artefact';
import { defaultFinetuneDir, loadFinetunedEncoder } from '../../train/finetune';
import { loadOrTrainStaticModel, STATIC_NNSSC_CONFIG, staticNnsscDir } from '../../train/static-artefact';
import { loadNnsscScorer, nnsscCheckpointDir } from '../../search/nnssc';
import { DEFAULT_NNSSC_CONFIG, type NnsscTrainConfig } from '../../train/nnssc';
import { loadSelfSupervisedScorers, type SelfSupervisedScorerSpec } from '../../study/self-supervised';
import type { HybridStudy, SplitScores } from '../../study/study';
import { crossFittedNnsscScores, type CrossFittedScores } from '../../search/cross-fit';
import type { ScoredStyleQueries, StyledQuery } from '../../study/style-eval';
import { progressPrinter, showFigure, showMarkdown, showTable } from '../../report/display';
import { repoRelativePath, toDataFrame } from '../../report/frame';
import {
  alphaRows, selfSupervisedTable2Rows, table2Hybrids, table2Rows, table2Systems, trainingCost,
  type Table2RowSpec, type TrainingCost,
} from '../../report/fusion';
import { sampleNote, sourceCaption } from '../../report/lesson';
import type { Table2System } from '../../report/table2';
import type { TableRow, TableSource } from '../../report/types';
import { alphaVerdict } from './verdicts';
import { alphaCurveFigure } from './views';
import { FUSION_TEXT_KEYS } from './text-keys';

/** The base encoder and the corpus embeddings every cosine and NN-SSC scorer of the notebook shares. */
export interface BaseEncoder {
  encoder: SentenceEncoder;
  /** Corpus embeddings (N × dim), in corpus order. */
  matrix: Float32Array;
  /** The encoder text of every dataset (the fine-tuned encoder embeds the same texts). */
  texts: string[];
  /** Embeddings of the training queries (R2's mean direction uses them). */
  trainVecs: Float32Array;
}

/**
 * Notebook 05's data, fixed by its first cell: nothing later changes it. What the cells compute (scores, hybrids,
 * tables) they return, and the notebook keeps in named variables.
 */
export interface FusionLesson {
  readonly notebook: string;
  readonly sample: boolean;
  readonly corpus: Corpus;
  readonly bench: Benchmark;
  readonly train: BenchSplitView;
  readonly test: BenchSplitView;
  /** The style benchmark's TEST half (lib/bench/styles): only reported here, nothing is tuned on it. */
  readonly styles: { readonly queries: StyledQuery[]; readonly qrels: Qrels };
  /** Start of the notebook (for results.json's notebookSeconds). */
  readonly started: number;
}

/** One scorer and what it scored: both splits of Table 2's benchmark and the style test half; its training cost where it trained. */
export interface ScoredScorer {
  scorer: CorpusScorer;
  scores: SplitScores;
  styles: ScoredStyleQueries;
  cost?: TrainingCost;
}

/** Scorer id → what it scored (`scoredById`), in the order the notebook lists its scorers. */
export type FusionScores = Readonly<Record<string, ScoredScorer>>;

/** Corpus self-supervised checkpoints found and missing (`loadTrainedScorers('self-supervised', …)`). */
export interface SelfSupervisedCheckpoints {
  found: { spec: SelfSupervisedScorerSpec; dir: string }[];
  missing: { spec: SelfSupervisedScorerSpec; dir: string; why: string }[];
}

/** What `loadTrainedScorers` scored; `selfSupervised` only for the self-supervised kind. */
export interface TrainedScorers {
  scored: ScoredScorer[];
  selfSupervised?: SelfSupervisedCheckpoints;
}

/** Notebook 05's data; prints the split sizes and the sample note, and builds the style test half. */
export function fusionLesson(o: { notebook: string; sample: boolean; corpus: Corpus; bench: Benchmark; train: BenchSplitView; test: BenchSplitView; started?: number }): FusionLesson {
  const { corpus, train, test, bench } = o;
  console.log(`${train.queries.length} train / ${test.queries.length} test queries over ${corpus.datasets.length} datasets (${bench.writerLabel})`);
  showMarkdown(sampleNote(o.sample, { queries: test.queries.length, datasets: corpus.datasets.length, writerLabel: bench.writerLabel }), { key: FUSION_TEXT_KEYS.sampleNote });
  const styleBench = buildStyleBenchmark(corpus);
  const queries = styleBench.queries.filter((q) => q.split === 'test').map((q) => ({ id: q.id, text: q.text, style: q.style }));
  const qrels: Qrels = new Map(queries.map((q) => [q.id, styleBench.qrels.get(q.id)!]));
  console.log(`style benchmark: ${queries.length} test queries of ${styleBench.topics.filter((t) => t.split === 'test').length} topics (${styleBench.droppedTopics.length} topics dropped on this corpus)`);
  return { notebook: o.notebook, sample: o.sample, corpus, bench, train, test, styles: { queries, qrels }, started: o.started ?? Date.now() };
}

/**
 * The scored scorers by id, in the order given (scorers and lists of them, e.g. a `loadTrainedScorers` result's
 * `scored`): that order, not the order the cells ran in, is the order of every table's rows. Two with one id fail.
 */
export function scoredById(list: readonly (ScoredScorer | readonly ScoredScorer[])[]): FusionScores {
  const out: Record<string, ScoredScorer> = {};
  for (const s of list.flat()) {
    if (out[s.scorer.id]) throw new EoError('INVALID_ARGUMENT', `scoredById: two scorers with id ${s.scorer.id}`, { field: 'scorer.id' });
    out[s.scorer.id] = s;
  }
  return out;
}

/** Training cost per scorer id, for the scorers that trained (results.json `training`). */
export function trainingCosts(scored: FusionScores): Record<string, TrainingCost> {
  return Object.fromEntries(Object.values(scored).filter((s) => s.cost).map((s) => [s.scorer.id, s.cost!]));
}

/** USE-lite (base) with the corpus embeddings (cached, shown as progress) and the training queries' embeddings. */
export async function loadBaseEncoder(lesson: FusionLesson): Promise<BaseEncoder> {
  const encoder = await loadUseLite();
  console.log(`encoder ${encoder.id} on ${encoder.backend}`);
  const bar = progressPrinter('base corpus embeddings', lesson.corpus.datasets.length);
  const texts = lesson.corpus.datasets.map((d) => datasetEncoderText(d));
  // waitForOther: another notebook embedding the same texts in another process is waited for, not raced
  const matrix = await embedCorpusCached({ encoder, key: lesson.corpus.hash, texts, workers: 2, waitForOther: true, onProgress: (d) => bar.update(d) });
  bar.done();
  const trainVecs = await embedQueriesCached({ encoder, texts: lesson.train.queries.map((q) => q.text) });
  return { encoder, matrix, texts, trainVecs };
}

/** The notebook's scoring step: one scorer over both splits and the style test half (`retrieveSplits`, `scoreStyleQueries`). */
export type ScoreStep = (scorer: CorpusScorer) => Promise<ScoredScorer>;

/**
 * Load the trained scorers of one kind, score each with `score` (the notebook's scoring step), attach its training
 * cost and free it: `nnssc` (notebook 04's checkpoint for this benchmark over `base`, its training data checked),
 * `nnssc-static` (NN-SSC on the static encoder, 04 section 8), `cosine-ft` (notebook 03's checkpoint and cached
 * embeddings, and its "+ R2" variant), `self-supervised` (the corpus self-supervised checkpoints of
 * `bench/self-supervised.cjs`, with the list of those found and missing). A missing one is printed as "not available"
 * with why. Reads checkpoints only: nothing trains here.
 */
export async function loadTrainedScorers(kind: 'nnssc' | 'nnssc-static' | 'cosine-ft' | 'self-supervised', lesson: FusionLesson, base: BaseEncoder, score: ScoreStep): Promise<TrainedScorers> {
  const { corpus, bench, sample } = lesson;
  if (kind === 'nnssc-static') {
    // the static encoder (03) and NN-SSC trained on it (04, section 8): both read, never trained here
    let backbone: { encoder: SentenceEncoder; matrix: Float32Array };
    try {
      backbone = await staticCorpusMatrix((await loadOrTrainStaticModel({ corpus, bench, mode: 'load' })).model, corpus);
    } catch (e) {
      console.log(`${STATIC_NNSSC_SCORER.label} not available: ${(e as Error).message}`);
      return { scored: [] };
    }
    return scoreNnsscCheckpoint(lesson, score, { ...backbone, dir: staticNnsscDir(bench.name), ...STATIC_NNSSC_SCORER });
  }
  if (kind === 'nnssc') return scoreNnsscCheckpoint(lesson, score, { encoder: base.encoder, matrix: base.matrix, dir: nnsscCheckpointDir(bench.name), id: 'nnssc', label: 'NN-SSC' });
  if (kind === 'cosine-ft') {
    const ftDir = defaultFinetuneDir(finetuneCheckpointName(sample));
    if (!checkpointExists(ftDir)) {
      console.log(`Cosine (fine-tuned) not available: no checkpoint at ${repoRelativePath(ftDir)} (run 03-encoder-finetune)`);
      return { scored: [] };
    }
    try {
      const ft = await loadFinetunedEncoder(ftDir);
      const bar = progressPrinter('fine-tuned corpus embeddings', corpus.datasets.length);
      // waitForOther: if 03 is still embedding these texts in another process, wait for it instead of failing
      const ftMatrix = await embedCorpusCached({ encoder: ft, key: corpus.hash, texts: base.texts, workers: 2, waitForOther: true, onProgress: (d) => bar.update(d) });
      bar.done();
      const cost = trainingCost(readCheckpointManifest(ftDir));
      const plain = { ...(await score(denseScorer(ft, ftMatrix, { id: 'cosine-ft', label: 'Cosine (fine-tuned)' }))), cost };
      const ftTrainVecs = await embedQueriesCached({ encoder: ft, texts: lesson.train.queries.map((q) => q.text) });
      const r2 = r2Transform(ftMatrix, ftTrainVecs, ft.dim);
      const withR2 = await score(denseScorer(r2Encoder(ft, r2.direction), r2.datasets, { id: 'cosine-ft-r2', label: 'Cosine (fine-tuned) + R2' }));
      console.log(`Cosine (fine-tuned): ${ft.id} from ${repoRelativePath(ftDir)} (trained on ${cost.backend}, ${cost.trainingSeconds?.toFixed(0)} s)`);
      ft.dispose();
      return { scored: [plain, withR2] };
    } catch (e) {
      console.log(`Cosine (fine-tuned) not available: ${(e as Error).message}`);
      return { scored: [] };
    }
  }
  const ssl = await loadSelfSupervisedScorers({ corpus, bench, encoder: base.encoder, baseMatrix: base.matrix, texts: base.texts, sample });
  const scored: ScoredScorer[] = [];
  for (const f of ssl.found) {
    scored.push({ ...(await score(f.scorer)), cost: trainingCost(f.manifest) });
    f.dispose();
    console.log(`${f.spec.label}: checkpoint ${f.dir}`);
  }
  for (const m of ssl.missing) console.log(`${m.spec.label} not available: ${m.why}`);
  return {
    scored,
    selfSupervised: { found: ssl.found.map((f) => ({ spec: f.spec, dir: f.dir })), missing: ssl.missing.map((m) => ({ spec: m.spec, dir: m.dir, why: m.why })) },
  };
}

/** An NN-SSC checkpoint over a frozen encoder's corpus matrix, scored when usable (its training cost attached), else "not available" and why. */
async function scoreNnsscCheckpoint(
  lesson: FusionLesson, score: ScoreStep,
  o: { encoder: SentenceEncoder; matrix: Float32Array; dir: string; id: string; label: string },
): Promise<TrainedScorers> {
  const nn = loadNnsscScorer(lesson.corpus, o.encoder, o.matrix, { dir: o.dir, threads: 2, bench: lesson.bench, id: o.id, label: o.label });
  if (!nn.scorer || !nn.checkpoint) {
    console.log(`${o.label} not available: ${nn.note}`);
    return { scored: [] };
  }
  const cost = trainingCost(nn.checkpoint);
  const scored = { ...(await score(nn.scorer)), cost };
  nn.scorer.dispose();
  console.log(`${o.label}: ${nn.note} (${cost.trainableParams?.toLocaleString()} parameters, trained in ${cost.trainingSeconds?.toFixed(0)} s on ${cost.backend})`);
  return { scored: [scored] };
}

/**
 * NN-SSC's out-of-fold training scores for the α of its hybrid (issue 39): the fold models notebook 04 trained
 * (`loadOrTrainNnsscFolds`, read here, never trained), each scoring the training queries it never saw. Undefined, with
 * a line saying why and what trains them, when they are missing or the scorer is not notebook 04's NN-SSC.
 */
export async function outOfFoldTrainScores(lesson: FusionLesson, base: BaseEncoder, semanticId: string): Promise<CrossFittedScores | undefined> {
  if (semanticId !== 'nnssc' && semanticId !== STATIC_NNSSC_SCORER.id) return undefined;
  const { corpus, bench } = lesson;
  const label = semanticId === 'nnssc' ? 'NN-SSC' : STATIC_NNSSC_SCORER.label;
  try {
    // the backbone NN-SSC was trained on: USE-lite (loadBaseEncoder), or the static encoder (read, never trained here)
    const backbone: { encoder: SentenceEncoder; matrix: Float32Array; dir: string; config: NnsscTrainConfig } = semanticId === 'nnssc'
      ? { encoder: base.encoder, matrix: base.matrix, dir: nnsscCheckpointDir(bench.name), config: DEFAULT_NNSSC_CONFIG }
      : { ...(await staticCorpusMatrix((await loadOrTrainStaticModel({ corpus, bench, mode: 'load' })).model, corpus)), dir: staticNnsscDir(bench.name), config: STATIC_NNSSC_CONFIG };
    const folds = await loadOrTrainNnsscFolds({ corpus, bench, encoder: backbone.encoder, corpusMatrix: backbone.matrix, dir: backbone.dir, config: backbone.config, mode: 'load' });
    const scores = await crossFittedNnsscScores({ folds, train: lesson.train, corpus, encoder: backbone.encoder, corpusMatrix: backbone.matrix });
    console.log(`${label} out-of-fold training scores: ${folds.k} fold models (${repoRelativePath(nnsscFoldDir(folds.dir, '*', folds.k))})`);
    return scores;
  } catch (e) {
    if (isEoError(e, 'INVALID_ARGUMENT')) throw e;
    console.log(`${label} out-of-fold training scores not available: ${(e as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/** Table 2's row list over what the notebook scored: the hybrids to fuse, and the systems once they are fused. */
export interface Table2Plan {
  rows: Table2RowSpec[];
  /** What the notebook scored, by scorer id. */
  scored: FusionScores;
  /** The corpus self-supervised checkpoints found (their rows are in `rows`) and missing. */
  selfSupervised: SelfSupervisedCheckpoints;
  /** Semantic scorer ids that some row fuses with BM25, in row order (those scored). */
  hybrids: string[];
}

/** The paper's rows, then ours, then the self-supervised rows whose checkpoints were found (`table2Rows`). */
export function table2Plan(lesson: FusionLesson, scored: FusionScores, selfSupervised: SelfSupervisedCheckpoints = { found: [], missing: [] }): Table2Plan {
  const rows = table2Rows(selfSupervisedTable2Rows(selfSupervised.found.map((f) => f.spec), lesson.sample));
  return { rows, scored, selfSupervised, hybrids: table2Hybrids(rows).filter((sem) => scored[sem] !== undefined) };
}

/** Each row's test and training runs from the plan's scores and the notebook's hybrids (`table2Systems`). */
export function planSystems(plan: Table2Plan, hybrids: Readonly<Record<string, HybridStudy>>): Table2System[] {
  const scores = Object.fromEntries(Object.entries(plan.scored).map(([id, s]) => [id, s.scores]));
  return table2Systems({ scores, hybrids, cost: trainingCosts(plan.scored), rows: plan.rows });
}

/**
 * What the cells of sections 1–3 made, as the later steps read them: Table 2's plan (rows and what was scored), the
 * hybrids, the base encoder and the systems (section 4 adds the table built from them).
 */
export interface Table2SectionInputs {
  lesson: FusionLesson;
  /** Table 2's rows and what the notebook scored (`table2Plan`). */
  plan: Table2Plan;
  /** Semantic scorer id → its hybrid with BM25 (the notebook's `studyHybrid` cell). */
  hybrids: Readonly<Record<string, HybridStudy>>;
  /** USE-lite and its corpus embeddings (the seed table scores NN-SSC over them); null where it was not loaded. */
  base: BaseEncoder | null;
  systems: Table2System[];
}

/** Source of the α table and figure. */
export function alphaSource(lesson: Pick<FusionLesson, 'sample'>): TableSource {
  return { settings: { split: 'train', grid: '0, 0.05, …, 1', records: 'checkpoints/fusion/', sample: lesson.sample } };
}

/** Section 3: the α table of every hybrid (set on the training split) and its verdict; `showCurve()` shows π vs α. */
export function alphaSection(lesson: FusionLesson, hybridsById: Readonly<Record<string, HybridStudy>>): { rows: TableRow[]; showCurve(): Promise<void> } {
  const hybrids = Object.values(hybridsById);
  const rows = alphaRows(hybrids);
  const source = alphaSource(lesson);
  showTable(toDataFrame(rows), { title: 'Fusion weight α per hybrid, set on the training split', digits: 3, source });
  showMarkdown(alphaVerdict(hybrids), { key: FUSION_TEXT_KEYS.alpha });
  return {
    rows,
    showCurve: async () => {
      await showFigure(alphaCurveFigure(hybrids), { name: 'alpha-grid', notebook: lesson.notebook });
      showMarkdown(sourceCaption('Figure: π (train) vs α per hybrid; fused runs of the training split, qrels of the training split.', source), { key: FUSION_TEXT_KEYS.alphaCurve });
    },
  };
}
