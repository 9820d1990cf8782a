import type { Corpus } from '../data/types';
import { embedQueriesCached } from '../encode/cache';
import type { EmbedProgress, SentenceEncoder } from '../encode/types';
import type { Run } from '../metrics/types';
import { bm25Scores, type Bm25Index } from './bm25';
import { denseScores } from './dense';
import { topKHits } from './topk';

/**
 * A corpus-wide scorer: for each query text, one score per dataset, aligned with corpus order. BM25, dense
 * cosine, NN-SSC and fused hybrids all take this shape, so runs, fusion and evaluation are generic.
 */
export interface CorpusScorer {
  /** Short stable name, used as the TREC run tag (one word). */
  id: string;
  /** Human label for tables. */
  label: string;
  /**
   * What identifies this scorer's numbers beyond its id: method, model weights or encoder id, parameters. Stored
   * results (e.g. a fusion weight set on the training split) are keyed by it, so a retrained model or another
   * encoder never reuses them. Default: none (then `id` stands for it).
   */
  fingerprint?: string;
  scoreBatch(texts: string[], onProgress?: EmbedProgress): Promise<Float32Array[]>;
}

export function bm25Scorer(bm25: Bm25Index, id = 'bm25', label = `BM25 (lunr, k1=${bm25.config.k1}, b=${bm25.config.b})`): CorpusScorer {
  return {
    id,
    label,
    fingerprint: `bm25(k1=${bm25.config.k1},b=${bm25.config.b})`,
    async scoreBatch(texts, onProgress) {
      const out = texts.map((t, i) => {
        const s = bm25Scores(bm25, t);
        if (onProgress && (i + 1) % 100 === 0) onProgress(i + 1, texts.length);
        return s;
      });
      onProgress?.(texts.length, texts.length);
      return out;
    },
  };
}

export interface DenseScorerOptions {
  /** Run tag. Default `cosine`. */
  id?: string;
  label?: string;
  /** Query-embedding cache folder; default the encoder cache's `queries/` folder. */
  queryCacheDir?: string;
  /** Skip the query cache. Default false. */
  noCache?: boolean;
}

/** Cosine of the query embedding with every (L2-normalised) dataset embedding. */
export function denseScorer(encoder: SentenceEncoder, matrix: Float32Array, opts: DenseScorerOptions = {}): CorpusScorer {
  return {
    id: opts.id ?? 'cosine',
    label: opts.label ?? `Cosine (${encoder.id})`,
    fingerprint: `cosine:${encoder.id}`,
    async scoreBatch(texts, onProgress) {
      const q = await embedQueriesCached({ encoder, texts, cacheDir: opts.queryCacheDir, noCache: opts.noCache, onProgress });
      const dim = encoder.dim;
      return texts.map((_, i) => denseScores(matrix, dim, q.subarray(i * dim, (i + 1) * dim)));
    },
  };
}

/** Turn score vectors into a run: the top `depth` datasets per query (ties by id descending, as metrics). */
export function runFromScores(queryIds: readonly string[], scores: readonly Float32Array[], corpus: Corpus, depth = 100): Run {
  const ids = corpus.datasets.map((d) => d.id);
  const run: Run = new Map();
  queryIds.forEach((qid, i) => {
    run.set(qid, topKHits(scores[i], depth, ids).map((h) => ({ docId: ids[h.index], score: h.score })));
  });
  return run;
}

export interface ScoredRun {
  run: Run;
  /** Full score vectors (aligned with `queries`), kept for fusion and plots. */
  scores: Float32Array[];
}

/** Score every query with a scorer and keep both the run (top `depth`) and the full score vectors. */
export async function scoreQueries(
  scorer: CorpusScorer,
  queries: readonly { id: string; text: string }[],
  corpus: Corpus,
  opts: { depth?: number; onProgress?: EmbedProgress } = {},
): Promise<ScoredRun> {
  const scores = await scorer.scoreBatch(queries.map((q) => q.text), opts.onProgress);
  return { run: runFromScores(queries.map((q) => q.id), scores, corpus, opts.depth ?? 100), scores };
}
