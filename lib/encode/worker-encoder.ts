import { EoError } from '../errors';
import type { FromWorker, ToWorker } from './embed-worker';
import { startEmbedWorker, stopEmbedWorker } from './pool';
import type { SentenceEncoder } from './types';

/** Options of `workerEncoder`. */
export interface WorkerEncoderOptions {
  /** The id the worker's encoder must have (the caller's encoder id, so cached vectors match). Default: not checked. */
  expectId?: string;
  /** Longest wait for the worker to load its encoder, ms. Default 120000. */
  startTimeoutMs?: number;
}

/**
 * A SentenceEncoder whose `embed` runs on one persistent worker thread holding its own copy of the encoder (built
 * from `encoder.spec`), so a service embeds queries on the second core while the event loop parses requests,
 * scores BM25 and fuses. Calls are answered in order; the vectors are the encoder's own (the worker runs the same
 * code on the same weights). A crashed worker rejects every call waiting and every later one (ENCODER).
 * `dispose` stops the worker.
 */
export async function workerEncoder(spec: NonNullable<SentenceEncoder['spec']>, opts: WorkerEncoderOptions = {}): Promise<SentenceEncoder> {
  const worker = startEmbedWorker(spec);
  const waiting: Waiting = new Map();
  let failure: EoError | null = null;
  let seq = 0;
  const fail = (e: EoError) => {
    failure ??= e;
    for (const w of waiting.values()) w.reject(failure);
    waiting.clear();
  };
  const ready = answerWorkerMessages(worker, waiting, fail, opts.startTimeoutMs ?? 120_000);
  let info: Awaited<typeof ready>;
  try {
    info = await ready;
  } catch (e) {
    void worker.terminate();
    throw e;
  }
  if (opts.expectId && info.encoderId !== opts.expectId) {
    void worker.terminate();
    throw new EoError('ENCODER', `embed worker built encoder ${info.encoderId}, expected ${opts.expectId}`);
  }
  const dim = info.dim;
  // an idle worker does not keep the process alive (a server's lifetime is its socket's); a pending call does
  worker.unref();
  const settle = () => {
    if (waiting.size === 0) worker.unref();
  };
  return {
    id: info.encoderId, dim, backend: info.backend ?? undefined, spec,
    embed(texts) {
      if (failure) return Promise.reject(failure);
      if (texts.length === 0) return Promise.resolve([]);
      const chunk = seq++;
      worker.ref();
      return new Promise<Float32Array[]>((resolve, reject) => {
        waiting.set(chunk, {
          resolve: (m) => {
            settle();
            resolve(texts.map((_, i) => m.subarray(i * dim, (i + 1) * dim)));
          },
          reject: (e) => {
            settle();
            reject(e);
          },
        });
        worker.postMessage({ type: 'embed', chunk, texts } satisfies ToWorker);
      });
    },
    dispose() {
      fail(new EoError('ENCODER', 'workerEncoder used after dispose()'));
      void stopEmbedWorker(worker);
    },
  };
}

/** The calls waiting for the worker, by chunk number. */
type Waiting = Map<number, { resolve: (m: Float32Array) => void; reject: (e: unknown) => void }>;

/**
 * Wire the worker's messages: resolves with its encoder once it has loaded it (rejects when it fails to start, crashes,
 * exits or takes longer than `timeoutMs`); answers each waiting call with its vectors or error; a crash or exit also
 * fails every call waiting and every later one (`fail`).
 */
function answerWorkerMessages(
  worker: ReturnType<typeof startEmbedWorker>, waiting: Waiting, fail: (e: EoError) => void, timeoutMs: number,
): Promise<{ encoderId: string; dim: number; backend: string | null }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new EoError('ENCODER', `embed worker did not load its encoder within ${timeoutMs} ms`)), timeoutMs);
    worker.on('message', (msg: FromWorker) => {
      if (msg.type === 'ready') {
        clearTimeout(timer);
        resolve(msg);
      } else if (msg.type === 'done') {
        const w = waiting.get(msg.chunk);
        waiting.delete(msg.chunk);
        w?.resolve(msg.data);
      } else if (msg.chunk === null) {
        clearTimeout(timer);
        reject(new EoError('ENCODER', `embed worker failed to start: ${msg.message}`));
      } else {
        const w = waiting.get(msg.chunk);
        waiting.delete(msg.chunk);
        w?.reject(new EoError('ENCODER', `embed worker failed: ${msg.message}`, { code: msg.code }));
      }
    });
    worker.on('error', (e) => {
      clearTimeout(timer);
      const err = new EoError('ENCODER', `embed worker crashed: ${e.message}`);
      reject(err);
      fail(err);
    });
    worker.on('exit', (code) => {
      clearTimeout(timer);
      const err = new EoError('ENCODER', `embed worker exited (code ${code})`);
      reject(err);
      fail(err);
    });
  });
}
