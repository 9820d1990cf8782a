import { benchmarkSplit } from '../bench/build';
import { benchmarkSettings, loadOrBuildBenchmark } from '../bench/export';
import type { Benchmark, BenchSplitView } from '../bench/types';
import { loadSnapshot } from '../data/snapshot';
import { datasetEncoderText } from '../data/text';
import type { Corpus, Publication } from '../data/types';
import { embedCorpusCached } from '../encode/cache';
import type { SentenceEncoder } from '../encode/types';
import { loadEncoder } from '../encode/registry';
import { loadOrBuildBm25, type Bm25Index } from '../retrieve/bm25';
import { bm25Scorer, denseScorer, type CorpusScorer } from '../retrieve/scorers';
import type { NnsscScorer } from '../retrieve/nnssc-scorer';
import type { Backbone } from '../rerank/candidate-lists';
import { trainingPriors, type TrainingPriors } from '../rerank/features';
import { trainOfflineReranker, type OfflineRerankerModel, type OfflineTrainOptions } from '../rerank/offline';
import { buildLocalPublicationIndex, localArxivTool } from '../agent/local';
import type { AgentTool } from '../agent/types';
import { buildHybridBackbone } from './hybrid-backbone';
import { loadNnsscScorer } from '../search/nnssc';

/** Everything the rerank notebooks share: data, splits, both backbones, the offline rerankers trained per backbone. */
export interface RerankExperiment {
  corpus: Corpus;
  bench: Benchmark;
  train: BenchSplitView;
  /** The stratified N = 200 test subset (all of the test split when smaller). */
  subset: BenchSplitView;
  bm25: Bm25Index;
  encoder: SentenceEncoder;
  weak: Backbone;
  strong: Backbone;
  /** Why the strong backbone is what it is (e.g. that NN-SSC is missing and the weak one stands in). */
  strongNote: string;
  priors: TrainingPriors;
  offline: Record<string, OfflineRerankerModel>;
}

export interface RerankExperimentOptions {
  /** Use the sample snapshot. Default false. */
  sample?: boolean;
  /** The snapshot folder (`eo llm … --data DIR`). Default: the default data folder ($EO_DATA_DIR, else ../shared/data/eo). */
  dataDir?: string;
  /**
   * The strong backbone's semantic scorer (the paper: NN-SSC). Default: the benchmark's NN-SSC checkpoint
   * (`loadNnsscScorer`); when there is none, the weak backbone stands in and is labelled so.
   */
  strongSemantic?: CorpusScorer | null;
  offline?: OfflineTrainOptions;
  log?: (line: string) => void;
}

/**
 * Build the shared rerank setup: snapshot, title benchmark (seed 42, 80/20, subset 200), BM25, USE-lite corpus
 * embeddings (cached), the weak backbone (Cosine base + BM25, analytic α) and the strong one (NN-SSC + BM25
 * when available), and the offline reranker trained on the TRAINING split of each backbone.
 */
export async function prepareRerankExperiment(opts: RerankExperimentOptions = {}): Promise<RerankExperiment> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const sample = !!opts.sample;
  const corpus = loadSnapshot({ dir: opts.dataDir, sample });
  const bench = await loadOrBuildBenchmark(corpus, benchmarkSettings({ sample: sample }));
  const train = benchmarkSplit(bench, 'train');
  const subset = benchmarkSplit(bench, 'test-subset');
  const bm25 = loadOrBuildBm25(corpus);
  const encoder = await loadEncoder();
  const matrix = await embedCorpusCached({ encoder, key: corpus.hash, texts: corpus.datasets.map((d) => datasetEncoderText(d)), workers: 2 });
  const lexical = bm25Scorer(bm25);
  const weak = await buildHybridBackbone({
    id: 'weak', label: 'Cosine (base) + BM25', corpus, semantic: denseScorer(encoder, matrix, { id: 'cosine-base', label: 'Cosine (base)' }), lexical, train, evaluate: subset, log,
  });
  const found = opts.strongSemantic !== undefined ? { scorer: opts.strongSemantic, note: 'given' } : loadNnsscScorer(corpus, encoder, matrix, { benchmarkName: bench.name, bench });
  let strong: Backbone;
  let strongNote: string;
  if (found.scorer) {
    strong = await buildHybridBackbone({ id: 'strong', label: `${found.scorer.label} + BM25`, corpus, semantic: found.scorer, lexical, train, evaluate: subset, log });
    strongNote = `strong backbone: ${found.scorer.label} + BM25 (analytic α = ${strong.alpha.toFixed(3)} from the training split; ${found.note})`;
    (found.scorer as Partial<NnsscScorer>).dispose?.();
  } else {
    strong = { ...weak, id: 'strong', label: 'Cosine (base) + BM25 [stand-in: no NN-SSC]' };
    strongNote = `strong backbone NOT available (${found.note}): the weak backbone stands in, labelled so`;
  }
  const daacCounts = new Map<string, number>();
  for (const d of corpus.datasets) daacCounts.set(d.daac, (daacCounts.get(d.daac) ?? 0) + 1);
  const priors = trainingPriors(train.qrels, (id) => corpus.datasets[corpus.indexById.get(id) ?? -1]?.daac, daacCounts);
  const offline: Record<string, OfflineRerankerModel> = {};
  for (const b of [weak, strong]) offline[b.id] = trainOfflineReranker(b.trainLists, train.qrels, priors, { seed: 42, ...(opts.offline ?? {}) });
  log(`${subset.queries.length} test-subset queries, ${train.queries.length} training queries, ${corpus.datasets.length} datasets; weak α = ${weak.alpha.toFixed(3)}; ${strongNote}`);
  return { corpus, bench, train, subset, bm25, encoder, weak, strong, strongNote, priors, offline };
}

/** Training-split publication → dataset links (for the local publication tool: never test labels). */
export function trainingLinks(exp: Pick<RerankExperiment, 'bench' | 'train'>): Map<string, string[]> {
  const pubOf = new Map(exp.bench.queries.map((q) => [q.id, q.publicationId]));
  const out = new Map<string, string[]>();
  for (const [qid, judged] of exp.train.qrels) {
    const p = pubOf.get(qid);
    if (!p) continue;
    const list = out.get(p) ?? [];
    for (const [d, r] of judged) if (r > 0 && !list.includes(d)) list.push(d);
    out.set(p, list);
  }
  return out;
}

/**
 * The publications behind the training split's queries, in corpus order: what a local publication tool may hold
 * while a reranker is TRAINED (`trainRoutedReranker`), so that no test publication's text shapes the model.
 */
export function trainingPublications(exp: Pick<RerankExperiment, 'bench' | 'corpus'>): Publication[] {
  const train = new Set(exp.bench.queries.filter((q) => q.split === 'train').map((q) => q.publicationId));
  return exp.corpus.publications.filter((p) => train.has(p.id));
}

/**
 * The local `arxiv_search` a reranker is TRAINED with (`trainRoutedReranker`): the training split's publications
 * only, each with its training-split dataset links, so that no test publication's text or label shapes a model.
 * At test time use an index of all publications (the leakage guard removes each query's own).
 */
export function trainingPublicationTool(exp: Pick<RerankExperiment, 'bench' | 'corpus' | 'train'>): AgentTool {
  return localArxivTool(buildLocalPublicationIndex(trainingPublications(exp), trainingLinks(exp)));
}
