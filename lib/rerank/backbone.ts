import type { BenchQuery, BenchSplitView } from '../bench/types';
import type { Corpus } from '../data/types';
import { analyticAlpha } from '../fuse/alpha';
import { fuseConvex } from '../fuse/minmax';
import { evaluateRun, summarize } from '../metrics/metrics';
import type { MetricRow } from '../metrics/types';
import { runFromScores, type CorpusScorer } from '../retrieve/scorers';
import { topKHits } from '../retrieve/topk';
import type { BackboneList } from './compose';

/** A retrieval backbone ready for reranking: per query, its top `depth` candidates with their scores. */
export interface Backbone {
  /** One word (run tag), e.g. `weak` / `strong`. */
  id: string;
  label: string;
  /** Fusion weight of the semantic scorer (analytic α from the training split). */
  alpha: number;
  /** Lists of the evaluated queries (e.g. the test subset). */
  lists: BackboneList[];
  /** Lists of the training queries (to train offline rerankers); empty when not requested. */
  trainLists: BackboneList[];
  /** Training-split metrics of the two scorers that gave α. */
  alphaFrom: { semantic: MetricRow; lexical: MetricRow };
}

/** Candidate lists of fused scores: the top `depth` per query, with bm25 / semantic / fused scores kept. */
export function hybridLists(corpus: Corpus, queries: readonly BenchQuery[], semantic: readonly Float32Array[], lexical: readonly Float32Array[], alpha: number, depth = 100): BackboneList[] {
  const ids = corpus.datasets.map((d) => d.id);
  return queries.map((q, i) => {
    const fused = fuseConvex(semantic[i], lexical[i], alpha);
    const hits = topKHits(fused, depth, ids);
    return {
      query: { id: q.id, text: q.text, publicationId: q.publicationId },
      candidates: hits.map((h, r) => ({
        id: ids[h.index], record: corpus.datasets[h.index], retrievalScore: h.score, retrievalRank: r + 1,
        scores: { bm25: lexical[i][h.index], semantic: semantic[i][h.index], fused: h.score },
      })),
    };
  });
}

export interface HybridBackboneOptions {
  id: string;
  label: string;
  corpus: Corpus;
  semantic: CorpusScorer;
  lexical: CorpusScorer;
  /** Training split: α is derived from it (analytic α, paper Eq. 7); its lists train offline rerankers. */
  train: BenchSplitView;
  /** The evaluated queries (the paper: the stratified N = 200 test subset). */
  evaluate: BenchSplitView;
  /** Candidate depth kept per query. Default 100. */
  depth?: number;
  /** Keep the training lists (for offline rerankers). Default true. */
  keepTrainLists?: boolean;
}

/**
 * A hybrid backbone: semantic + BM25, min-max normalised and fused convexly with the analytic α measured on the
 * training split only (`analyticAlpha`), as the paper's weak (Cosine base + BM25) and strong (NN-SSC + BM25) ones.
 */
export async function buildHybridBackbone(opts: HybridBackboneOptions): Promise<Backbone> {
  const depth = opts.depth ?? 100;
  const trainTexts = opts.train.queries.map((q) => q.text);
  const semTrain = await opts.semantic.scoreBatch(trainTexts);
  const lexTrain = await opts.lexical.scoreBatch(trainTexts);
  const trainIds = opts.train.queries.map((q) => q.id);
  const semantic = summarize(opts.semantic.label, evaluateRun(runFromScores(trainIds, semTrain, opts.corpus), opts.train.qrels));
  const lexical = summarize(opts.lexical.label, evaluateRun(runFromScores(trainIds, lexTrain, opts.corpus), opts.train.qrels));
  const alpha = analyticAlpha(semantic, lexical);
  const evalTexts = opts.evaluate.queries.map((q) => q.text);
  const lists = hybridLists(opts.corpus, opts.evaluate.queries, await opts.semantic.scoreBatch(evalTexts), await opts.lexical.scoreBatch(evalTexts), alpha, depth);
  const trainLists = opts.keepTrainLists === false ? [] : hybridLists(opts.corpus, opts.train.queries, semTrain, lexTrain, alpha, depth);
  return { id: opts.id, label: opts.label, alpha, lists, trainLists, alphaFrom: { semantic, lexical } };
}
