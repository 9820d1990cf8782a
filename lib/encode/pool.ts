import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EoError } from '../errors';
import type { FromWorker, ToWorker } from './embed-worker';
import type { EncoderSpec } from './types';

/** One unit of work for the pool. */
export interface EmbedJob {
  chunk: number;
  texts: string[];
}

/** A worker thread running `embed-worker` with its own encoder built from `spec` (compiled or TypeScript sources). */
export function startEmbedWorker(spec: EncoderSpec): Worker {
  const base = path.join(__dirname, 'embed-worker');
  const workerData = { spec, __eoEmbedWorker: true };
  if (fs.existsSync(base + '.js')) return new Worker(base + '.js', { workerData });
  if (fs.existsSync(base + '.ts')) {
    // Running from TypeScript sources (tests, tsx): let the worker compile them the same way.
    const code = `require('tsx/cjs'); require(${JSON.stringify(base + '.ts')});`;
    return new Worker(code, { eval: true, workerData });
  }
  throw new EoError('ENCODER', `embed worker script not found next to ${__filename}`);
}

/** How long a stopped embed worker may take to end before it is terminated. */
const STOP_GRACE_MS = 10_000;

/**
 * Stop an embed worker (`embed-worker` or a worker encoder's): it disposes its encoder and ends by itself; resolves
 * when it has exited. Stop, don't just terminate: a worker terminated with an onnxruntime session still open aborts
 * the whole process at exit (onnxruntime-node 1.30, `Napi::Error`). The worker is kept referenced until it ends, and
 * terminated only if it has not ended within `STOP_GRACE_MS` (e.g. stuck in a long embed call). Its listeners are
 * removed first: what it does while stopping is no longer anyone's result.
 */
export function stopEmbedWorker(w: Worker): Promise<void> {
  w.removeAllListeners();
  w.on('error', () => {});
  w.ref();
  return new Promise<void>((done) => {
    const timer = setTimeout(() => void w.terminate(), STOP_GRACE_MS);
    timer.unref();
    w.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    try {
      w.postMessage({ type: 'stop' } satisfies ToWorker);
    } catch {
      void w.terminate();
    }
  });
}

/**
 * Embed jobs on `n` worker threads, each with its own encoder rebuilt from `spec`; `onDone` receives every
 * chunk (row-major, texts × dim) as soon as it is ready, in completion order. Rejects on the first failure
 * (after stopping all workers); `expectId` guards against a worker building a different encoder.
 */
export function runEmbedPool(
  spec: EncoderSpec,
  jobs: EmbedJob[],
  n: number,
  onDone: (chunk: number, data: Float32Array) => void,
  expectId?: string,
): Promise<void> {
  if (jobs.length === 0) return Promise.resolve();
  const queue = jobs.slice();
  const count = Math.max(1, Math.min(n, jobs.length));
  return new Promise<void>((resolve, reject) => {
    const workers: Worker[] = [];
    let remaining = jobs.length;
    let finished = false;
    const finish = (err?: unknown) => {
      if (finished) return;
      finished = true;
      void Promise.all(workers.map(stopEmbedWorker)).then(() => (err ? reject(err) : resolve()));
    };
    const feed = (w: Worker) => {
      const job = queue.shift();
      if (job) w.postMessage({ type: 'embed', chunk: job.chunk, texts: job.texts } satisfies ToWorker);
    };
    for (let i = 0; i < count; i++) {
      const w = startEmbedWorker(spec);
      workers.push(w);
      w.on('message', (msg: FromWorker) => {
        if (finished) return;
        if (msg.type === 'ready') {
          if (expectId && msg.encoderId !== expectId)
            return finish(new EoError('ENCODER', `worker built encoder ${msg.encoderId}, expected ${expectId}`));
          feed(w);
        } else if (msg.type === 'done') {
          try {
            onDone(msg.chunk, msg.data);
          } catch (e) {
            return finish(e);
          }
          remaining--;
          if (remaining === 0) finish();
          else feed(w);
        } else {
          finish(new EoError('ENCODER', `embed worker failed${msg.chunk === null ? ' to start' : ` on chunk ${msg.chunk}`}: ${msg.message}`, { code: msg.code }));
        }
      });
      w.on('error', (e) => finish(new EoError('ENCODER', `embed worker crashed: ${e.message}`)));
      w.on('exit', (code) => {
        if (!finished) finish(new EoError('ENCODER', `embed worker exited early (code ${code})`));
      });
    }
  });
}
