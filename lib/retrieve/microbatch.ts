import { createMicroBatcher, type MicroBatcherOptions } from '../util/batcher';
import type { CorpusScorer } from './scorers';

/**
 * A CorpusScorer whose one-query calls (a service: `scoreBatch([q])` per request) are gathered into one
 * `scoreBatch([q1..qN])` of the wrapped scorer (≤ `maxBatch` queries, default 16; a query arriving while the scorer
 * is idle goes at once, `maxWaitMs` default 0, and those arriving while it is busy go together when it is free), so a semantic scorer embeds and scores concurrent queries together (NN-SSC's layers then run as
 * matrix–matrix products). Calls of several queries (evaluation) go straight through, one at a time with the batches.
 * Same id, label and fingerprint: the scores are the wrapped scorer's.
 */
export function microBatchingScorer<S extends CorpusScorer>(scorer: S, opts: MicroBatcherOptions = {}): S {
  const batcher = createMicroBatcher<string, Float32Array>((texts) => scorer.scoreBatch(texts), opts);
  return {
    ...scorer,
    async scoreBatch(texts, onProgress) {
      if (texts.length !== 1) return batcher.exclusive(() => scorer.scoreBatch(texts, onProgress));
      const s = await batcher.submit(texts[0]);
      onProgress?.(1, 1);
      return [s];
    },
  };
}
