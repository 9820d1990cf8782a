import { EoError } from '../errors';
import { type NnsscModel, validateNnsscModel } from './nnssc';
import { type NnsscIndexOptions } from './nnssc-index';

function startNnsscWorker(data: Record<string, unknown>): import('node:worker_threads').Worker {
  // Lazy requires keep worker_threads out of the browser-facing import graph.
  const fs = require('node:fs') as typeof import('node:fs');
  const path = require('node:path') as typeof import('node:path');
  const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
  const base = path.join(__dirname, 'nnssc-worker');
  const workerData = { ...data, __eoNnsscWorker: true };
  if (fs.existsSync(base + '.js')) return new Worker(base + '.js', { workerData });
  if (fs.existsSync(base + '.ts')) return new Worker(`require('tsx/cjs'); require(${JSON.stringify(base + '.ts')});`, { eval: true, workerData });
  throw new EoError('INVALID_ARGUMENT', `NN-SSC worker script not found next to ${__filename}`);
}

/**
 * The decomposed scorer split over worker threads: each thread holds a contiguous shard of the corpus (its own
 * tfjs backend, so the wasm backend — single-threaded in Node — uses every core) and every query batch is scored
 * by all shards in parallel. Same numbers as `NnsscCorpusIndex` (row for row the same kernels).
 */
export class NnsscThreadedIndex {
  readonly size: number;
  readonly threads: number;
  backend = '';
  private workers: import('node:worker_threads').Worker[];
  private readonly bounds: number[];
  private readonly dim: number;
  private nextId = 1;
  private ready: Promise<void>;

  private constructor(model: NnsscModel, corpusMatrix: Float32Array, threads: number, opts: NnsscIndexOptions) {
    validateNnsscModel(model);
    this.dim = model.dim;
    this.size = corpusMatrix.length / model.dim;
    this.threads = Math.max(1, Math.min(threads, this.size));
    this.bounds = Array.from({ length: this.threads + 1 }, (_, i) => Math.round((i * this.size) / this.threads));
    this.workers = [];
    const readies: Promise<void>[] = [];
    for (let t = 0; t < this.threads; t++) {
      const shard = corpusMatrix.slice(this.bounds[t] * this.dim, this.bounds[t + 1] * this.dim);
      const w = startNnsscWorker({ model, shard, backend: opts.backend, queriesPerBatch: opts.queriesPerBatch ?? 1 });
      this.workers.push(w);
      readies.push(
        new Promise<void>((resolve, reject) => {
          const onMsg = (m: { type: string; backend?: string; message?: string; id?: number | null }) => {
            if (m.type === 'ready') {
              this.backend = m.backend ?? '';
              w.off('message', onMsg);
              resolve();
            } else if (m.type === 'error' && m.id === null) reject(new EoError('INVALID_ARGUMENT', `NN-SSC worker failed to start: ${m.message}`));
          };
          w.on('message', onMsg);
          w.once('error', reject);
        }),
      );
    }
    this.ready = Promise.all(readies).then(() => undefined);
  }

  /** Start `threads` workers (default: 2, or fewer cores) and wait until each holds its shard. */
  static async create(model: NnsscModel, corpusMatrix: Float32Array, opts: NnsscIndexOptions & { threads?: number } = {}): Promise<NnsscThreadedIndex> {
    const os = require('node:os') as typeof import('node:os');
    const idx = new NnsscThreadedIndex(model, corpusMatrix, opts.threads ?? Math.min(2, os.cpus().length), opts);
    try {
      await idx.ready;
    } catch (e) {
      idx.dispose();
      throw e;
    }
    return idx;
  }

  private scoreOn(t: number, queries: Float32Array): Promise<Float32Array> {
    const w = this.workers[t];
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onMsg = (m: { type: string; id?: number | null; data?: Float32Array; message?: string }) => {
        if (m.id !== id) return;
        w.off('message', onMsg);
        if (m.type === 'scores') resolve(m.data!);
        else reject(new EoError('INVALID_ARGUMENT', `NN-SSC worker ${t}: ${m.message}`));
      };
      w.on('message', onMsg);
      w.postMessage({ type: 'score', id, queries: queries.slice() });
    });
  }

  /** Logits of every dataset for each query row, aligned with the corpus. */
  async scoreVectors(queryVecs: Float32Array, opts: { onProgress?: (done: number, total: number) => void; chunk?: number } = {}): Promise<Float32Array[]> {
    if (this.workers.length === 0) throw new EoError('INVALID_ARGUMENT', 'NnsscThreadedIndex used after dispose()');
    const D = this.dim;
    const nq = queryVecs.length / D;
    const chunk = Math.max(1, opts.chunk ?? 16);
    const out: Float32Array[] = [];
    for (let s = 0; s < nq; s += chunk) {
      const b = Math.min(chunk, nq - s);
      const q = queryVecs.subarray(s * D, (s + b) * D);
      const parts = await Promise.all(this.workers.map((_, t) => this.scoreOn(t, q)));
      for (let r = 0; r < b; r++) {
        const v = new Float32Array(this.size);
        parts.forEach((p, t) => {
          const len = this.bounds[t + 1] - this.bounds[t];
          v.set(p.subarray(r * len, (r + 1) * len), this.bounds[t]);
        });
        out.push(v);
      }
      opts.onProgress?.(s + b, nq);
    }
    return out;
  }

  dispose(): void {
    for (const w of this.workers) {
      w.removeAllListeners();
      w.on('error', () => {});
      void w.terminate();
    }
    this.workers = [];
  }
}
