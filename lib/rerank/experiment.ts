import { benchmarkSplit } from '../bench/build';
import { benchmarkSettings, loadOrBuildBenchmark } from '../bench/export';
import type { Benchmark, BenchSplitView } from '../bench/types';
import { loadSnapshot } from '../data/snapshot';
import { datasetEncoderText } from '../data/text';
import type { Corpus } from '../data/types';
import { embedCorpusCached } from '../encode/cache';
import type { SentenceEncoder } from '../encode/types';
import { loadEncoder } from '../encode/registry';
import { loadOrBuildBm25, type Bm25Index } from '../retrieve/bm25';
import { bm25Scorer, denseScorer, type CorpusScorer } from '../retrieve/scorers';
import * as path from 'node:path';
import { repoRoot } from '../util/paths';
import { findNnsscCheckpoints } from '../fuse/best';
import { nnsscScorer, type NnsscScorer } from '../retrieve/nnssc';
import { loadNnsscCheckpoint } from '../retrieve/nnssc';
import { buildHybridBackbone, type Backbone } from './backbone';
import { trainingPriors, type TrainingPriors } from './features';
import { trainOfflineReranker, type OfflineRerankerModel, type OfflineTrainOptions } from './offline';

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
  /**
   * The strong backbone's semantic scorer (the paper: NN-SSC). Default: the newest NN-SSC checkpoint for this
   * corpus (`nnsscSemanticScorer`); when there is none, the weak backbone stands in and is labelled so.
   */
  strongSemantic?: CorpusScorer | null;
  offline?: OfflineTrainOptions;
  log?: (line: string) => void;
}

/**
 * The NN-SSC semantic scorer of the training stage (newest checkpoint for this corpus, `findNnsscCheckpoints`),
 * or null with the reason. Only the semantic part is taken: the backbone fuses it with BM25 itself (analytic α on
 * the training split), so the offline reranker can read both component scores.
 */
export function nnsscSemanticScorer(corpus: Corpus, encoder: SentenceEncoder, matrix: Float32Array): { scorer: NnsscScorer | null; note: string } {
  const dir = findNnsscCheckpoints(corpus)[0];
  if (!dir) return { scorer: null, note: 'no NN-SSC checkpoint for this corpus (notebook 04-nnssc makes one)' };
  try {
    const { model } = loadNnsscCheckpoint(dir, { encoderId: encoder.id, corpusHash: corpus.hash });
    return { scorer: nnsscScorer(encoder, matrix, model, { id: 'nnssc', label: 'NN-SSC' }), note: `checkpoint ${path.relative(repoRoot(), dir)}` };
  } catch (e) {
    return { scorer: null, note: `NN-SSC checkpoint ${path.relative(repoRoot(), dir)} not usable: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}` };
  }
}

/**
 * Build the shared rerank setup: snapshot, title benchmark (seed 42, 80/20, subset 200), BM25, USE-lite corpus
 * embeddings (cached), the weak backbone (Cosine base + BM25, analytic α) and the strong one (NN-SSC + BM25
 * when available), and the offline reranker trained on the TRAINING split of each backbone.
 */
export async function prepareRerankExperiment(opts: RerankExperimentOptions = {}): Promise<RerankExperiment> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const sample = !!opts.sample;
  const corpus = loadSnapshot({ sample });
  const bench = await loadOrBuildBenchmark(corpus, benchmarkSettings({ sample: sample }));
  const train = benchmarkSplit(bench, 'train');
  const subset = benchmarkSplit(bench, 'test-subset');
  const bm25 = loadOrBuildBm25(corpus);
  const encoder = await loadEncoder();
  const matrix = await embedCorpusCached({ encoder, key: corpus.hash, texts: corpus.datasets.map((d) => datasetEncoderText(d)), workers: 2 });
  const lexical = bm25Scorer(bm25);
  const weak = await buildHybridBackbone({
    id: 'weak', label: 'Cosine (base) + BM25', corpus, semantic: denseScorer(encoder, matrix, { id: 'cosine-base', label: 'Cosine (base)' }), lexical, train, evaluate: subset,
  });
  const found = opts.strongSemantic !== undefined ? { scorer: opts.strongSemantic, note: 'given' } : nnsscSemanticScorer(corpus, encoder, matrix);
  let strong: Backbone;
  let strongNote: string;
  if (found.scorer) {
    strong = await buildHybridBackbone({ id: 'strong', label: `${found.scorer.label} + BM25`, corpus, semantic: found.scorer, lexical, train, evaluate: subset });
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
