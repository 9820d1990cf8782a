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

/** How long a pool waits for a stopped worker to end before terminating it. */
const STOP_GRACE_MS = 10_000;

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
      // Stop, don't just terminate: a worker with an onnxruntime session still open when it is terminated aborts the
      // whole process at exit (onnxruntime-node 1.30, `Napi::Error`). `stop` disposes the encoder, then the worker
      // ends by itself; terminate() only if it has not within STOP_GRACE_MS (e.g. stuck in a long embed call).
      const exits = workers.map(
        (w) =>
          new Promise<void>((done) => {
            w.removeAllListeners();
            w.on('error', () => {});
            const timer = setTimeout(() => void w.terminate(), STOP_GRACE_MS);
            w.once('exit', () => {
              clearTimeout(timer);
              done();
            });
            try {
              w.postMessage({ type: 'stop' } satisfies ToWorker);
            } catch {
              void w.terminate();
            }
          }),
      );
      void Promise.all(exits).then(() => (err ? reject(err) : resolve()));
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
