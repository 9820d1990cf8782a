import { EoError } from '../errors';
import { createMicroBatcher, type MicroBatcherOptions, type MicroBatchStats } from '../util/batcher';
import { createLru } from '../util/lru';
import type { SentenceEncoder } from './types';

/** Options of `microBatchingEncoder`: the batching (`maxBatch` default 16, `maxWaitMs` default 0: no wait when idle) and the LRU. */
export interface MicroBatchOptions extends MicroBatcherOptions {
  /** Query embeddings kept in an LRU (by exact text). Default 1000 (2 MB at 512 dimensions); 0 keeps none. */
  cacheEntries?: number;
}

export interface MicroBatchingEncoder extends SentenceEncoder {
  /** Calls and texts sent to the wrapped encoder, plus `cacheHits`: texts answered by the LRU or by an identical text already waiting. */
  readonly stats: MicroBatchStats & { cacheHits: number };
}

/**
 * A SentenceEncoder that shares the wrapped encoder's calls between concurrent callers: N concurrent
 * `embed([q])` calls become one `embed([q1..qN])` (at most `maxBatch` texts; sent at once when the encoder is idle,
 * or after at most `maxWaitMs` if one is set), and recent query embeddings are kept in an LRU. Calls of `maxBatch` texts or more
 * (corpus embedding) go straight to the wrapped encoder (not through the LRU), one at a time with the batches. The
 * vectors are those of the wrapped encoder (each a fresh copy; same `id`, `dim`, `spec`). `dispose` disposes the
 * wrapped encoder.
 */
export function microBatchingEncoder(encoder: SentenceEncoder, opts: MicroBatchOptions = {}): MicroBatchingEncoder {
  const cache = createLru<string, Float32Array>(opts.cacheEntries ?? 1000);
  const batcher = createMicroBatcher<string, Float32Array>(async (texts) => {
    const vecs = await encoder.embed(texts);
    texts.forEach((t, i) => cache.set(t, vecs[i]));
    return vecs;
  }, opts);
  const stats = Object.assign(batcher.stats, { cacheHits: 0 });
  /** Texts waiting or in flight → their shared result (identical concurrent queries are embedded once). */
  const inFlight = new Map<string, Promise<Float32Array>>();
  let disposed = false;

  const one = (text: string): Promise<Float32Array> => {
    const known = cache.get(text) ?? inFlight.get(text);
    if (known) {
      stats.cacheHits++;
      return Promise.resolve(known);
    }
    const p = batcher.submit(text);
    inFlight.set(text, p);
    const clear = () => inFlight.delete(text);
    p.then(clear, clear);
    return p;
  };

  return {
    id: encoder.id, dim: encoder.dim, backend: encoder.backend, spec: encoder.spec, stats,
    async embed(texts) {
      if (disposed) throw new EoError('INVALID_ARGUMENT', 'microBatchingEncoder: embed after dispose');
      if (texts.length >= batcher.maxBatch) {
        const vecs = await batcher.exclusive(() => encoder.embed(texts));
        stats.items += texts.length;
        stats.largestBatch = Math.max(stats.largestBatch, texts.length);
        return vecs;
      }
      const vecs = await Promise.all(texts.map(one));
      return vecs.map((v) => v.slice());
    },
    dispose() {
      disposed = true;
      batcher.cancel(new EoError('INVALID_ARGUMENT', 'microBatchingEncoder: disposed while waiting'));
      encoder.dispose();
    },
  };
}
