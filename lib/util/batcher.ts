import { EoError } from '../errors';

/** Options of `createMicroBatcher` (and of the encoder and scorer wrappers built on it). Every field has a default. */
export interface MicroBatcherOptions {
  /** Most items in one call of the batch function; a full batch is sent at once. Default 16. */
  maxBatch?: number;
  /**
   * Longest wait, in ms, for more items to join a batch while the batch function is idle: a lone item is sent after
   * at most this long. While it is busy, items wait for it (no extra wait) and go together when it is free. 0
   * (default) sends at once when idle: at the end of the current event-loop turn (`setImmediate`), so requests that
   * arrived in the same turn still share the call, and low load pays no wait bound; batches form by themselves
   * under load, while the function is busy.
   */
  maxWaitMs?: number;
  /**
   * Calls of the batch function that may run at once. Default 1. 2 lets a service overlap one batch's work on the
   * event loop (first-stage candidates, fusion, answers) with the next batch's inference on the onnx worker thread;
   * a second call starts with whatever is waiting when a slot frees.
   */
  concurrency?: number;
  /** Timer functions (tests pass a manual clock). Default the global setTimeout/clearTimeout. */
  timers?: { setTimeout: (fn: () => void, ms: number) => unknown; clearTimeout: (handle: unknown) => void };
}

/** Counters of a micro-batcher (tests, benchmarks). */
export interface MicroBatchStats {
  /** Calls of the batch function (bulk calls through `exclusive` included). */
  calls: number;
  /** Items sent to it. */
  items: number;
  /** Largest batch sent. */
  largestBatch: number;
}

export interface MicroBatcher<T, R> {
  /** One item's result, computed in a batch with whatever else is waiting. */
  submit(item: T): Promise<R>;
  /** Run `fn` alone (a bulk call), after the batch in flight and before the next one. */
  exclusive<X>(fn: () => Promise<X>): Promise<X>;
  /** Reject everything waiting; later submits still work. */
  cancel(why: Error): void;
  readonly stats: MicroBatchStats;
  /** The most items in one call (`maxBatch`, default filled in): what a bulk caller splits its work by. */
  readonly maxBatch: number;
}

interface Waiter<T, R> {
  item: T;
  resolve: (v: R) => void;
  reject: (e: unknown) => void;
}

/**
 * Gathers items submitted by concurrent callers into calls of `run(items)` (which returns one result per item, in
 * order): at most `maxBatch` items per call, at most `concurrency` calls at a time, a lone item waiting at most `maxWaitMs`.
 * A failed call rejects every caller of that batch.
 * Long because it is one small state machine (waiting items, calls in flight, queued bulk calls, the wait timer)
 * whose steps (next, flush, done) are closures over that state and call each other.
 */
export function createMicroBatcher<T, R>(run: (items: T[]) => Promise<R[]>, opts: MicroBatcherOptions = {}): MicroBatcher<T, R> {
  const maxBatch = opts.maxBatch ?? 16;
  const maxWaitMs = opts.maxWaitMs ?? 0;
  const concurrency = opts.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new EoError('INVALID_ARGUMENT', `micro-batching: concurrency must be an integer ≥ 1, got ${concurrency}`);
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new EoError('INVALID_ARGUMENT', `micro-batching: maxBatch must be an integer ≥ 1, got ${maxBatch}`);
  if (!(maxWaitMs >= 0)) throw new EoError('INVALID_ARGUMENT', `micro-batching: maxWaitMs must be ≥ 0, got ${maxWaitMs}`);
  // no wait bound: the end of this event-loop turn (setImmediate), not a ≥ 1 ms timer
  const timers = opts.timers ?? {
    setTimeout: (fn: () => void, ms: number) => (ms === 0 ? { immediate: setImmediate(fn) } : setTimeout(fn, ms)),
    clearTimeout: (h: unknown) => {
      if (h && typeof h === 'object' && 'immediate' in h) clearImmediate((h as { immediate: NodeJS.Immediate }).immediate);
      else clearTimeout(h as NodeJS.Timeout);
    },
  };
  const stats: MicroBatchStats = { calls: 0, items: 0, largestBatch: 0 };
  let pending: Waiter<T, R>[] = [];
  const bulk: (() => void)[] = [];
  let timer: unknown = null;
  let inFlight = 0;
  // a bulk call (`exclusive`) runs alone: it waits for the calls in flight and no batch starts while it runs
  let exclusiveRunning = false;
  const free = () => !exclusiveRunning && bulk.length === 0 && inFlight < concurrency;

  const stopTimer = () => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
  };
  const next = () => {
    if (exclusiveRunning) return;
    if (bulk.length > 0) {
      if (inFlight === 0) bulk.shift()!();
      return;
    }
    while (inFlight < concurrency && pending.length >= maxBatch) flush();
    if (inFlight < concurrency && pending.length > 0 && timer === null) timer = timers.setTimeout(onTimer, maxWaitMs);
  };
  const onTimer = () => {
    timer = null;
    if (free() && pending.length > 0) flush();
  };
  const done = (waited: boolean) => {
    if (waited) inFlight--;
    else exclusiveRunning = false;
    // items that arrived during the call have waited already: send them now
    if (waited && pending.length > 0 && free()) while (pending.length > 0 && free()) flush();
    else next();
  };
  const flush = () => {
    stopTimer();
    const batch = pending.slice(0, maxBatch);
    pending = pending.slice(maxBatch);
    inFlight++;
    stats.calls++;
    stats.items += batch.length;
    stats.largestBatch = Math.max(stats.largestBatch, batch.length);
    let out: Promise<R[]>;
    try {
      out = run(batch.map((w) => w.item));
    } catch (e) {
      out = Promise.reject(e);
    }
    out.then(
      (rs) => batch.forEach((w, i) => w.resolve(rs[i])),
      (e) => batch.forEach((w) => w.reject(e)),
    ).finally(() => done(true));
  };

  return {
    stats,
    maxBatch,
    submit(item) {
      const p = new Promise<R>((resolve, reject) => pending.push({ item, resolve, reject }));
      next();
      return p;
    },
    async exclusive(fn) {
      await new Promise<void>((resolve) => {
        bulk.push(() => {
          exclusiveRunning = true;
          resolve();
        });
        next();
      });
      stats.calls++;
      try {
        return await fn();
      } finally {
        done(false);
      }
    },
    cancel(why) {
      stopTimer();
      const left = pending;
      pending = [];
      left.forEach((w) => w.reject(why));
    },
  };
}
