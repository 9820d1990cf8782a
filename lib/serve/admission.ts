import { EoError } from '../errors';

/** Options of `createAdmission`. Every field has a default. */
export interface AdmissionOptions {
  /** Searches running at once (awaiting the encoder counts as running, so batches can fill). Default 32. */
  maxConcurrent?: number;
  /** Searches waiting for a slot; one more is refused at once (the service answers 503). Default 256. */
  maxQueued?: number;
  /** Longest wait in the queue, ms; a search still waiting then is refused (503), so no request hangs. Default 10000. */
  queueTimeoutMs?: number;
}

/** Why a search was not admitted. */
export type AdmissionRefusal = 'queue-full' | 'queue-timeout';

/** A counting gate in front of the searches: at most `maxConcurrent` run, at most `maxQueued` wait (FIFO). */
export interface Admission {
  /** A slot (call `release` exactly once when done), or the reason none will come. */
  acquire(): Promise<{ release: () => void } | { refused: AdmissionRefusal }>;
  /** Running and waiting now. */
  readonly running: number;
  readonly queued: number;
}

export function createAdmission(opts: AdmissionOptions = {}): Admission {
  const maxConcurrent = opts.maxConcurrent ?? 32;
  const maxQueued = opts.maxQueued ?? 256;
  const queueTimeoutMs = opts.queueTimeoutMs ?? 10_000;
  if (!(maxConcurrent >= 1)) throw new EoError('INVALID_ARGUMENT', `maxConcurrentSearches must be ≥ 1, got ${maxConcurrent}`);
  if (!(maxQueued >= 0)) throw new EoError('INVALID_ARGUMENT', `maxQueuedSearches must be ≥ 0, got ${maxQueued}`);
  if (!(queueTimeoutMs > 0)) throw new EoError('INVALID_ARGUMENT', `queueTimeoutMs must be > 0, got ${queueTimeoutMs}`);
  let running = 0;
  const queue: { grant: () => void }[] = [];
  const slot = () => {
    let done = false;
    return {
      release: () => {
        if (done) return;
        done = true;
        running--;
        const next = queue.shift();
        if (next) next.grant();
      },
    };
  };
  return {
    get running() {
      return running;
    },
    get queued() {
      return queue.length;
    },
    acquire() {
      if (running < maxConcurrent) {
        running++;
        return Promise.resolve(slot());
      }
      if (queue.length >= maxQueued) return Promise.resolve({ refused: 'queue-full' as const });
      return new Promise((resolve) => {
        const entry = {
          grant: () => {
            clearTimeout(timer);
            running++;
            resolve(slot());
          },
        };
        const timer = setTimeout(() => {
          const i = queue.indexOf(entry);
          if (i >= 0) queue.splice(i, 1);
          resolve({ refused: 'queue-timeout' });
        }, queueTimeoutMs);
        queue.push(entry);
      });
    },
  };
}
