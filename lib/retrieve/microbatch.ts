import { createMicroBatcher, type MicroBatcherOptions } from '../util/batcher';
import type { CorpusScorer, StageTimes } from './scorers';

/**
 * A CorpusScorer whose one-query calls (a service: `scoreBatch([q])` per request) are gathered into one
 * `scoreBatch([q1..qN])` of the wrapped scorer (≤ `maxBatch` queries, default 16; a query arriving while the scorer
 * is idle goes at once, `maxWaitMs` default 0, and those arriving while it is busy go together when it is free), so a semantic scorer embeds and scores concurrent queries together (NN-SSC's layers then run as
 * matrix–matrix products). Calls of several queries (evaluation, a fusion weight set on the training split) run alone
 * between the batches, `maxBatch` queries per call of the wrapped scorer: a service's graphs then never see a larger
 * batch than a request's, so their memory arenas keep a request's peak, not that of 580 queries at once (measured:
 * `bench/serve-load.cjs` peak RSS 508.6 MB right after setting α in one call, 447 MB from a stored record). Same id,
 * label and fingerprint: the scores are the wrapped scorer's.
 *
 * Stages (`scoreBatch`'s `stages`): a one-query call gets its batch's stages (the whole batch's time per stage, as
 * the query waited for all of it), `queue` (ms waited before its batch started) and `batch` (the batch's size, a
 * count, not ms).
 */
export function microBatchingScorer<S extends CorpusScorer>(scorer: S, opts: MicroBatcherOptions = {}): S {
  const batcher = createMicroBatcher<string, { scores: Float32Array; stages: StageTimes; started: number; size: number }>(async (texts) => {
    const started = performance.now();
    const stages: StageTimes = {};
    const scores = await scorer.scoreBatch(texts, undefined, stages);
    return scores.map((s) => ({ scores: s, stages, started, size: texts.length }));
  }, opts);
  return {
    ...scorer,
    async scoreBatch(texts, onProgress, stages) {
      if (texts.length !== 1)
        return batcher.exclusive(async () => {
          const out: Float32Array[] = [];
          for (let i = 0; i < texts.length; i += batcher.maxBatch) {
            const part = await scorer.scoreBatch(texts.slice(i, i + batcher.maxBatch), undefined, stages);
            for (const v of part) out.push(v);
            onProgress?.(out.length, texts.length);
          }
          return out;
        });
      const t0 = performance.now();
      const r = await batcher.submit(texts[0]);
      if (stages) {
        for (const [k, v] of Object.entries(r.stages)) stages[k] = (stages[k] ?? 0) + v;
        stages.queue = (stages.queue ?? 0) + Math.max(0, r.started - t0);
        stages.batch = r.size;
      }
      onProgress?.(1, 1);
      return [r.scores];
    },
  };
}
