import { EoError } from '../errors';
import { createLru } from '../util/lru';
import type { SentenceEncoder } from './types';

/** Options of `microBatchingEncoder`. Every field has a default. */
export interface MicroBatchOptions {
  /** Most texts in one call of the wrapped encoder; a full batch is sent at once. Default 16. */
  maxBatch?: number;
  /**
   * Longest wait, in ms, for more texts to join a batch while the wrapped encoder is idle: a lone request is sent
   * after at most this long. While the encoder is busy, texts wait for it (no extra wait) and go together when it
   * is free. 0 sends at the next turn of the event loop (still gathering calls made in the same turn). Default 5.
   */
  maxWaitMs?: number;
  /** Query embeddings kept in an LRU (by exact text). Default 1000 (2 MB at 512 dimensions); 0 keeps none. */
  cacheEntries?: number;
  /** Timer functions (tests pass a manual clock). Default the global setTimeout/clearTimeout. */
  timers?: { setTimeout: (fn: () => void, ms: number) => unknown; clearTimeout: (handle: unknown) => void };
}

/** Counters of a micro-batching encoder (for tests and benchmarks). */
export interface MicroBatchStats {
  /** Calls of the wrapped encoder's `embed`. */
  encoderCalls: number;
  /** Texts sent to the wrapped encoder. */
  textsEmbedded: number;
  /** Texts answered from the LRU or by an identical text already waiting or in flight. */
  cacheHits: number;
  /** Largest batch sent. */
  largestBatch: number;
}

export interface MicroBatchingEncoder extends SentenceEncoder {
  readonly stats: MicroBatchStats;
}

interface Waiter {
  text: string;
  resolve: (v: Float32Array) => void;
  reject: (e: unknown) => void;
}

/**
 * A SentenceEncoder that shares the wrapped encoder's calls between concurrent callers: N concurrent
 * `embed([q])` calls become one `embed([q1..qN])` (at most `maxBatch` texts, after at most `maxWaitMs` of waiting
 * when the encoder is idle), and recent query embeddings are kept in an LRU. Calls of `maxBatch` texts or more
 * (corpus embedding) go straight to the wrapped encoder (not through the LRU), one at a time with the batches. The vectors are those of
 * the wrapped encoder (each a fresh copy; same `id`, `dim`, `spec`). `dispose` disposes the wrapped encoder.
 */
export function microBatchingEncoder(encoder: SentenceEncoder, opts: MicroBatchOptions = {}): MicroBatchingEncoder {
  const maxBatch = opts.maxBatch ?? 16;
  const maxWaitMs = opts.maxWaitMs ?? 5;
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new EoError('INVALID_ARGUMENT', `microBatchingEncoder: maxBatch must be an integer ≥ 1, got ${maxBatch}`);
  if (!(maxWaitMs >= 0)) throw new EoError('INVALID_ARGUMENT', `microBatchingEncoder: maxWaitMs must be ≥ 0, got ${maxWaitMs}`);
  const timers = opts.timers ?? { setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };
  const cache = createLru<string, Float32Array>(opts.cacheEntries ?? 1000);
  const stats: MicroBatchStats = { encoderCalls: 0, textsEmbedded: 0, cacheHits: 0, largestBatch: 0 };
  let pending: Waiter[] = [];
  /** Texts waiting or in flight → their shared result (identical concurrent queries are embedded once). */
  const inFlight = new Map<string, Promise<Float32Array>>();
  let timer: unknown = null;
  let busy = false;
  /** Large calls waiting for the encoder. */
  const direct: (() => void)[] = [];
  let disposed = false;

  const call = async (texts: string[]): Promise<Float32Array[]> => {
    stats.encoderCalls++;
    stats.textsEmbedded += texts.length;
    stats.largestBatch = Math.max(stats.largestBatch, texts.length);
    return encoder.embed(texts);
  };

  const next = () => {
    if (busy) return;
    const d = direct.shift();
    if (d) return d();
    if (pending.length >= maxBatch) flush();
    else if (pending.length > 0 && timer === null) timer = timers.setTimeout(onTimer, maxWaitMs);
  };
  const onTimer = () => {
    timer = null;
    if (!busy && pending.length > 0) flush();
  };
  const flush = () => {
    if (timer !== null) {
      timers.clearTimeout(timer);
      timer = null;
    }
    const batch = pending.slice(0, maxBatch);
    pending = pending.slice(maxBatch);
    busy = true;
    call(batch.map((w) => w.text)).then(
      (vecs) => {
        batch.forEach((w, i) => {
          cache.set(w.text, vecs[i]);
          w.resolve(vecs[i]);
        });
      },
      (e) => batch.forEach((w) => w.reject(e)),
    ).finally(() => {
      busy = false;
      // texts that arrived while the encoder was busy have waited already: send them now
      if (pending.length > 0 && direct.length === 0) flush();
      else next();
    });
  };

  const one = (text: string): Promise<Float32Array> => {
    const hit = cache.get(text);
    if (hit) {
      stats.cacheHits++;
      return Promise.resolve(hit);
    }
    const shared = inFlight.get(text);
    if (shared) {
      stats.cacheHits++;
      return shared;
    }
    const p = new Promise<Float32Array>((resolve, reject) => pending.push({ text, resolve, reject }));
    inFlight.set(text, p);
    const clear = () => inFlight.delete(text);
    p.then(clear, clear);
    if (pending.length >= maxBatch && !busy) flush();
    else next();
    return p;
  };

  return {
    id: encoder.id, dim: encoder.dim, backend: encoder.backend, spec: encoder.spec, stats,
    async embed(texts) {
      if (disposed) throw new EoError('INVALID_ARGUMENT', 'microBatchingEncoder: embed after dispose');
      if (texts.length >= maxBatch) {
        // a bulk call: one turn of the encoder, serialised with the batches
        await new Promise<void>((resolve) => {
          direct.push(() => {
            busy = true;
            resolve();
          });
          next();
        });
        try {
          return await call(texts);
        } finally {
          busy = false;
          next();
        }
      }
      const vecs = await Promise.all(texts.map(one));
      return vecs.map((v) => v.slice());
    },
    dispose() {
      disposed = true;
      if (timer !== null) timers.clearTimeout(timer);
      const left = pending;
      pending = [];
      left.forEach((w) => w.reject(new EoError('INVALID_ARGUMENT', 'microBatchingEncoder: disposed while waiting')));
      encoder.dispose();
    },
  };
}
