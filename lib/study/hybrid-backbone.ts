import { datasetIds } from '../data/corpus';
import type { BenchQuery, BenchSplitView } from '../bench/types';
import type { Corpus } from '../data/types';
import { evaluateRun, summarize } from '../metrics/metrics';
import type { Backbone } from '../rerank/candidate-lists';
import type { BackboneList } from '../rerank/compose';
import type { CorpusScorer } from '../retrieve/scorers';
import { topKScoredHits } from '../retrieve/topk';
import { fuseBatch, retrieveBatch, searchBatch, type BatchResult } from '../search/retrieve-batch';
import { createSearchEngine } from '../search/engine';
import { describeFusionRecord, fusionAlpha } from '../search/fusion-record';

/** Candidate lists of a batch search: the top `depth` per query, with bm25 / semantic / fused scores kept. */
export function backboneLists(corpus: Corpus, queries: readonly BenchQuery[], batch: Pick<BatchResult, 'scores' | 'lexical' | 'semantic'>, depth = 100): BackboneList[] {
  const ids = datasetIds(corpus);
  return queries.map((q, i) => ({
    query: { id: q.id, text: q.text, publicationId: q.publicationId },
    candidates: topKScoredHits(batch.scores[i], depth, ids).map((h, r) => ({
      id: ids[h.index], record: corpus.datasets[h.index], retrievalScore: h.score, retrievalRank: r + 1,
      scores: { bm25: batch.lexical ? batch.lexical[i][h.index] : 0, semantic: batch.semantic ? batch.semantic[i][h.index] : 0, fused: h.score },
    })),
  }));
}

export interface HybridBackboneOptions {
  id: string;
  label: string;
  corpus: Corpus;
  semantic: CorpusScorer;
  lexical: CorpusScorer;
  /** Training split: α is set on it (`fusionAlpha`, analytic, Eq. 7); its lists train offline rerankers. */
  train: BenchSplitView;
  /** The evaluated queries (the paper: the stratified N = 200 test subset). */
  evaluate: BenchSplitView;
  /** Candidate depth kept per query. Default 100. */
  depth?: number;
  /** Keep the training lists (for offline rerankers). Default true. */
  keepTrainLists?: boolean;
  /** Folder of fusion records. Default `checkpoints/fusion`. */
  fusionDir?: string;
  /** A line when α is computed and stored. Default: none. */
  log?: (line: string) => void;
}

/**
 * A hybrid backbone through the search path: semantic + BM25 on the cue-stripped query text, min-max + convex with
 * the analytic α of the stored fusion record (set on the training split once), as the paper's weak (Cosine base +
 * BM25) and strong (NN-SSC + BM25) ones.
 */
export async function buildHybridBackbone(opts: HybridBackboneOptions): Promise<Backbone> {
  const depth = opts.depth ?? 100;
  const { corpus, train } = opts;
  const semTrain = await retrieveBatch(opts.semantic, train.queries, corpus);
  const lexTrain = await retrieveBatch(opts.lexical, train.queries, corpus);
  const semantic = summarize(opts.semantic.label, evaluateRun(semTrain.run, train.qrels));
  const lexical = summarize(opts.lexical.label, evaluateRun(lexTrain.run, train.qrels));
  const { record, file, notStored } = await fusionAlpha({
    corpus, train, semantic: opts.semantic, lexical: opts.lexical, method: 'analytic', dir: opts.fusionDir, log: opts.log,
    trainScores: { semantic: semTrain.scores, lexical: lexTrain.scores },
  });
  const engine = createSearchEngine(corpus, { lexical: opts.lexical, semantic: opts.semantic, fusion: { method: 'convex', alpha: record.alpha }, source: describeFusionRecord(record, file, notStored) });
  const lists = backboneLists(corpus, opts.evaluate.queries, await searchBatch(engine, opts.evaluate.queries, { depth }), depth);
  const trainLists = opts.keepTrainLists === false ? [] : backboneLists(corpus, train.queries, {
    scores: fuseBatch(engine.fusion.spec!, train.queries, semTrain.scores, lexTrain.scores, corpus, depth).scores, lexical: lexTrain.scores, semantic: semTrain.scores,
  }, depth);
  return { id: opts.id, label: opts.label, alpha: record.alpha, lists, trainLists, alphaFrom: { semantic, lexical }, alphaSource: engine.fusion.source };
}
