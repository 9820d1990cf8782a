// Notebook 05's shared state and the cells that only load or assemble: the benchmark of query styles, the base
// encoder, the trained scorers (NN-SSC, fine-tuned cosine, corpus self-supervised), Table 2's row plan and the α
// section. The stage calls a reader learns (scorers, retrieveSplits, studyHybrid, buildTable2) stay in the notebook.
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
import { scoreStyleQueries, type ScoredStyleQueries, type StyledQuery } from '../../study/style-eval';
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

/** What notebook 05's cells share: the data, every scorer's split scores, the hybrids, training costs. */
export interface FusionLesson {
  notebook: string;
  sample: boolean;
  corpus: Corpus;
  bench: Benchmark;
  train: BenchSplitView;
  test: BenchSplitView;
  /** Scorer id → scores of both splits (the notebook fills it with `retrieveSplits`). */
  scored: Record<string, SplitScores>;
  scorers: Record<string, CorpusScorer>;
  /** Scorer id → what its checkpoint cost to train. */
  cost: Record<string, TrainingCost>;
  /** Semantic scorer id → its hybrid with BM25 (the notebook fills it with `studyHybrid`). */
  hybrids: Record<string, HybridStudy>;
  /** The style benchmark's TEST half (lib/bench/styles): only reported here, nothing is tuned on it. */
  styles: { queries: StyledQuery[]; qrels: Qrels; scored: Record<string, ScoredStyleQueries> };
  /** Score the style test half with a scorer (kept for section 10). */
  scoreStyles(scorer: CorpusScorer): Promise<void>;
  base?: BaseEncoder;
  /** The α table (`alphaSection`). */
  alphaRows?: TableRow[];
  /** Corpus self-supervised checkpoints found / missing (`loadTrainedScorers('self-supervised', …)`). */
  selfSupervised: { found: { spec: SelfSupervisedScorerSpec; dir: string }[]; missing: { spec: SelfSupervisedScorerSpec; dir: string; why: string }[] };
  /** Start of the notebook (for results.json's notebookSeconds). */
  started: number;
}

/** Notebook 05's state over its data; prints the split sizes and the sample note, and builds the style test half. */
export function fusionLesson(o: { notebook: string; sample: boolean; corpus: Corpus; bench: Benchmark; train: BenchSplitView; test: BenchSplitView; started?: number }): FusionLesson {
  const { corpus, train, test, bench } = o;
  console.log(`${train.queries.length} train / ${test.queries.length} test queries over ${corpus.datasets.length} datasets (${bench.writerLabel})`);
  showMarkdown(sampleNote(o.sample, { queries: test.queries.length, datasets: corpus.datasets.length, writerLabel: bench.writerLabel }), { key: FUSION_TEXT_KEYS.sampleNote });
  const styleBench = buildStyleBenchmark(corpus);
  const queries = styleBench.queries.filter((q) => q.split === 'test').map((q) => ({ id: q.id, text: q.text, style: q.style }));
  const qrels: Qrels = new Map(queries.map((q) => [q.id, styleBench.qrels.get(q.id)!]));
  console.log(`style benchmark: ${queries.length} test queries of ${styleBench.topics.filter((t) => t.split === 'test').length} topics (${styleBench.droppedTopics.length} topics dropped on this corpus)`);
  const styles = { queries, qrels, scored: {} as Record<string, ScoredStyleQueries> };
  return {
    notebook: o.notebook, sample: o.sample, corpus, bench, train, test, scored: {}, scorers: {}, cost: {}, hybrids: {}, styles,
    scoreStyles: async (scorer) => { styles.scored[scorer.id] = await scoreStyleQueries(scorer, queries, corpus); },
    selfSupervised: { found: [], missing: [] }, started: o.started ?? Date.now(),
  };
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
  lesson.base = { encoder, matrix, texts, trainVecs };
  return lesson.base;
}

/**
 * Load the trained scorers of one kind, score each with `score` (the notebook's retrieveSplits on both splits),
 * record its training cost and free it: `nnssc` (notebook 04's checkpoint for this benchmark, its training data
 * checked), `cosine-ft` (notebook 03's checkpoint and cached embeddings, and its "+ R2" variant),
 * `self-supervised` (the corpus self-supervised checkpoints of `bench/self-supervised.cjs`). A missing one is
 * printed as "not available" with why. Returns the labels scored.
 */
export async function loadTrainedScorers(kind: 'nnssc' | 'nnssc-static' | 'cosine-ft' | 'self-supervised', lesson: FusionLesson, score: (scorer: CorpusScorer) => Promise<void>): Promise<string[]> {
  const { corpus, bench, sample } = lesson;
  if (kind === 'nnssc-static') {
    // the static encoder (03) and NN-SSC trained on it (04, section 8): both read, never trained here
    let backbone: { encoder: SentenceEncoder; matrix: Float32Array };
    try {
      backbone = await staticCorpusMatrix((await loadOrTrainStaticModel({ corpus, bench, mode: 'load' })).model, corpus);
    } catch (e) {
      console.log(`${STATIC_NNSSC_SCORER.label} not available: ${(e as Error).message}`);
      return [];
    }
    return scoreNnsscCheckpoint(lesson, score, { ...backbone, dir: staticNnsscDir(bench.name), ...STATIC_NNSSC_SCORER });
  }
  const base = lesson.base;
  if (!base) throw new EoError('INVALID_ARGUMENT', 'loadTrainedScorers: call loadBaseEncoder first');
  if (kind === 'nnssc') return scoreNnsscCheckpoint(lesson, score, { encoder: base.encoder, matrix: base.matrix, dir: nnsscCheckpointDir(bench.name), id: 'nnssc', label: 'NN-SSC' });
  if (kind === 'cosine-ft') {
    const ftDir = defaultFinetuneDir(finetuneCheckpointName(sample));
    if (!checkpointExists(ftDir)) {
      console.log(`Cosine (fine-tuned) not available: no checkpoint at ${repoRelativePath(ftDir)} (run 03-encoder-finetune)`);
      return [];
    }
    try {
      const ft = await loadFinetunedEncoder(ftDir);
      const bar = progressPrinter('fine-tuned corpus embeddings', corpus.datasets.length);
      // waitForOther: if 03 is still embedding these texts in another process, wait for it instead of failing
      const ftMatrix = await embedCorpusCached({ encoder: ft, key: corpus.hash, texts: base.texts, workers: 2, waitForOther: true, onProgress: (d) => bar.update(d) });
      bar.done();
      await score(denseScorer(ft, ftMatrix, { id: 'cosine-ft', label: 'Cosine (fine-tuned)' }));
      const ftTrainVecs = await embedQueriesCached({ encoder: ft, texts: lesson.train.queries.map((q) => q.text) });
      const r2 = r2Transform(ftMatrix, ftTrainVecs, ft.dim);
      await score(denseScorer(r2Encoder(ft, r2.direction), r2.datasets, { id: 'cosine-ft-r2', label: 'Cosine (fine-tuned) + R2' }));
      const c = (lesson.cost['cosine-ft'] = trainingCost(readCheckpointManifest(ftDir)));
      console.log(`Cosine (fine-tuned): ${ft.id} from ${repoRelativePath(ftDir)} (trained on ${c.backend}, ${c.trainingSeconds?.toFixed(0)} s)`);
      ft.dispose();
      return ['Cosine (fine-tuned)', 'Cosine (fine-tuned) + R2'];
    } catch (e) {
      console.log(`Cosine (fine-tuned) not available: ${(e as Error).message}`);
      return [];
    }
  }
  const ssl = await loadSelfSupervisedScorers({ corpus, bench, encoder: base.encoder, baseMatrix: base.matrix, texts: base.texts, sample });
  for (const f of ssl.found) {
    await score(f.scorer);
    lesson.cost[f.spec.scorer] = trainingCost(f.manifest);
    f.dispose();
    console.log(`${f.spec.label}: checkpoint ${f.dir}`);
  }
  for (const m of ssl.missing) console.log(`${m.spec.label} not available: ${m.why}`);
  lesson.selfSupervised = { found: ssl.found.map((f) => ({ spec: f.spec, dir: f.dir })), missing: ssl.missing.map((m) => ({ spec: m.spec, dir: m.dir, why: m.why })) };
  return ssl.found.map((f) => f.spec.label);
}

/** An NN-SSC checkpoint over a frozen encoder's corpus matrix, scored when usable (its training cost kept), else "not available" and why. */
async function scoreNnsscCheckpoint(
  lesson: FusionLesson, score: (scorer: CorpusScorer) => Promise<void>,
  o: { encoder: SentenceEncoder; matrix: Float32Array; dir: string; id: string; label: string },
): Promise<string[]> {
  const nn = loadNnsscScorer(lesson.corpus, o.encoder, o.matrix, { dir: o.dir, threads: 2, bench: lesson.bench, id: o.id, label: o.label });
  if (!nn.scorer || !nn.checkpoint) {
    console.log(`${o.label} not available: ${nn.note}`);
    return [];
  }
  await score(nn.scorer);
  nn.scorer.dispose();
  const c = (lesson.cost[o.id] = trainingCost(nn.checkpoint));
  console.log(`${o.label}: ${nn.note} (${c.trainableParams?.toLocaleString()} parameters, trained in ${c.trainingSeconds?.toFixed(0)} s on ${c.backend})`);
  return [o.label];
}

/**
 * NN-SSC's out-of-fold training scores for the α of its hybrid (issue 39): the fold models notebook 04 trained
 * (`loadOrTrainNnsscFolds`, read here, never trained), each scoring the training queries it never saw. Undefined, with
 * a line saying why and what trains them, when they are missing or the scorer is not notebook 04's NN-SSC.
 */
export async function outOfFoldTrainScores(lesson: FusionLesson, semanticId: string): Promise<CrossFittedScores | undefined> {
  if (semanticId !== 'nnssc' && semanticId !== STATIC_NNSSC_SCORER.id) return undefined;
  const { corpus, bench } = lesson;
  const label = semanticId === 'nnssc' ? 'NN-SSC' : STATIC_NNSSC_SCORER.label;
  try {
    // the backbone NN-SSC was trained on: USE-lite (loadBaseEncoder), or the static encoder (read, never trained here)
    let backbone: { encoder: SentenceEncoder; matrix: Float32Array; dir: string; config: NnsscTrainConfig };
    if (semanticId === 'nnssc') {
      if (!lesson.base) throw new EoError('INVALID_ARGUMENT', 'outOfFoldTrainScores: call loadBaseEncoder first');
      backbone = { encoder: lesson.base.encoder, matrix: lesson.base.matrix, dir: nnsscCheckpointDir(bench.name), config: DEFAULT_NNSSC_CONFIG };
    } else backbone = { ...(await staticCorpusMatrix((await loadOrTrainStaticModel({ corpus, bench, mode: 'load' })).model, corpus)), dir: staticNnsscDir(bench.name), config: STATIC_NNSSC_CONFIG };
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

/** Table 2's row list and what follows from it: the hybrids to fuse, and the systems once they are fused. */
export interface Table2Plan {
  rows: Table2RowSpec[];
  /** Semantic scorer ids that some row fuses with BM25, in row order (those scored above). */
  hybrids: string[];
  /** Each row's test and training runs from the scores and hybrids (`table2Systems`). */
  systems(): Table2System[];
}

/** The paper's rows, then ours, then the self-supervised rows whose checkpoints were found (`table2Rows`). */
export function table2Plan(lesson: FusionLesson): Table2Plan {
  const rows = table2Rows(selfSupervisedTable2Rows(lesson.selfSupervised.found.map((f) => f.spec), lesson.sample));
  return {
    rows,
    hybrids: table2Hybrids(rows).filter((sem) => lesson.scored[sem] !== undefined),
    systems: () => table2Systems({ scores: lesson.scored, hybrids: lesson.hybrids, cost: lesson.cost, rows }),
  };
}

/** Source of the α table and figure. */
export function alphaSource(lesson: Pick<FusionLesson, 'sample'>): TableSource {
  return { settings: { split: 'train', grid: '0, 0.05, …, 1', records: 'checkpoints/fusion/', sample: lesson.sample } };
}

/** Section 3: the α table of every hybrid (set on the training split) and its verdict; `showCurve()` shows π vs α. */
export function alphaSection(lesson: FusionLesson): { rows: TableRow[]; showCurve(): Promise<void> } {
  const hybrids = Object.values(lesson.hybrids);
  const rows = alphaRows(hybrids);
  lesson.alphaRows = rows;
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
