import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EoError } from '../errors';
import { loadOnnxRuntime } from './onnx';

type Ort = typeof import('onnxruntime-node');
type OrtSession = import('onnxruntime-node').InferenceSession;

/**
 * Where a session's graph executes. onnxruntime-node's `run` is asynchronous in name only: it runs the whole graph
 * synchronously on the calling thread (measured: 1.30 wraps it in `setImmediate`), so in a server every inference
 * blocks the event loop and, with one intra-op thread, the process uses one core.
 *   - `caller` (default): on the calling thread, as onnxruntime-node does (batch scripts, notebooks, embed workers
 *     that are already worker threads);
 *   - `worker`: on one worker thread shared by every `worker` session of the process, so the event loop keeps
 *     parsing, scoring BM25 and fusing on one core while the graphs run on the other. Same kernels, same numbers.
 */
export type OnnxThread = 'caller' | 'worker';

/** An input of `run`: element type, data and shape. */
export interface OnnxFeed {
  type: 'float32' | 'int64' | 'int32';
  data: Float32Array | BigInt64Array | Int32Array;
  dims: readonly number[];
}

/** An output of `run` (an onnxruntime `Tensor` has these fields too). */
export interface OnnxOutput {
  data: unknown;
  dims: readonly number[];
  type: string;
}

/** A session opened by `openOnnxSession`. */
export interface OnnxSession {
  readonly thread: OnnxThread;
  /** Run the graph on named inputs; named outputs (`fetches`: only these, and only what they need is computed; default all). */
  run(feeds: Readonly<Record<string, OnnxFeed>>, fetches?: readonly string[]): Promise<Record<string, OnnxOutput>>;
  /** Free the session (its initializers and arena). Later `run` calls reject. */
  release(): Promise<void>;
}

export interface OpenOnnxSessionOptions {
  /** onnxruntime intra-op threads. Default 1. */
  intraOpThreads?: number;
  /** Where the graph runs (`OnnxThread`). Default `caller`. */
  thread?: OnnxThread;
  /**
   * With `thread: 'worker'`: the worker lane. Sessions of one lane share one worker thread (their runs take turns);
   * each new lane gets its own thread (at most `MAX_ONNX_WORKERS`, then lanes share). A service puts its query
   * encoder on one lane and its scorers on another, so one micro-batch's embedding runs beside the previous one's
   * scoring. Default `default`.
   */
  lane?: string;
  /**
   * Keep onnxruntime's memory arena: intermediates are carved from a pool that grows to the largest run and is never
   * returned. Default true. false allocates each run's intermediates afresh and frees them after: a graph whose
   * intermediates scale with a varying input (NN-SSC's candidate rows of a micro-batch) then does not hold its
   * largest run's memory for the life of the process.
   */
  memArena?: boolean;
}

/** Most onnx worker threads a process starts (lanes beyond share them). */
export const MAX_ONNX_WORKERS = 2;

/** Session options every graph of this project is opened with (one place, so caller and worker agree). */
export function onnxSessionOptions(intraOpThreads: number, memArena = true): import('onnxruntime-node').InferenceSession.SessionOptions {
  return { intraOpNumThreads: intraOpThreads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all', ...(memArena ? {} : { enableCpuMemArena: false, enableMemPattern: false }) };
}

function checkThreads(n: number | undefined): number {
  const t = n ?? 1;
  if (!Number.isInteger(t) || t < 1) throw new EoError('INVALID_ARGUMENT', `onnx session: intraOpThreads must be a positive integer, got ${n}`);
  return t;
}

/**
 * Open a serialised ONNX model (`encodeOnnxModel`'s bytes) on onnxruntime-node's CPU kernels, on the calling thread
 * or on the process's shared onnx worker thread (`OnnxThread`). On a worker the model's buffer is transferred, not
 * copied (models hold the corpus matrices), when `bytes` is the whole of it: `bytes` is unusable after the call. Rejects with ENCODER when
 * onnxruntime-node cannot be loaded or the graph does not load (its message says why).
 */
export async function openOnnxSession(bytes: Uint8Array, opts: OpenOnnxSessionOptions = {}): Promise<OnnxSession> {
  const threads = checkThreads(opts.intraOpThreads);
  const thread = opts.thread ?? 'caller';
  if (thread !== 'caller' && thread !== 'worker') throw new EoError('INVALID_ARGUMENT', `onnx session: thread must be caller or worker, got ${JSON.stringify(thread)}`);
  const memArena = opts.memArena ?? true;
  if (thread === 'worker') return onnxWorker(opts.lane ?? 'default').open(bytes, threads, memArena);
  const ort = loadOnnxRuntime();
  if (!ort) throw new EoError('ENCODER', 'onnxruntime-node cannot be loaded (it ships with @huggingface/transformers; run npm install)');
  try {
    return callerSession(ort, await ort.InferenceSession.create(bytes, onnxSessionOptions(threads, memArena)));
  } catch (e) {
    throw new EoError('ENCODER', `onnx model did not load: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
  }
}

/** Feeds as onnxruntime tensors. */
export function ortFeeds(ort: Ort, feeds: Readonly<Record<string, OnnxFeed>>): Record<string, import('onnxruntime-node').Tensor> {
  const out: Record<string, import('onnxruntime-node').Tensor> = {};
  for (const [name, f] of Object.entries(feeds)) out[name] = new ort.Tensor(f.type, f.data, f.dims);
  return out;
}

function callerSession(ort: Ort, session: OrtSession): OnnxSession {
  let released = false;
  return {
    thread: 'caller',
    async run(feeds, fetches) {
      if (released) throw new EoError('INVALID_ARGUMENT', 'onnx session used after release()');
      const f = ortFeeds(ort, feeds);
      return (await (fetches ? session.run(f, [...fetches]) : session.run(f))) as unknown as Record<string, OnnxOutput>;
    },
    async release() {
      if (released) return;
      released = true;
      await session.release();
    },
  };
}

/** Messages to and from the onnx worker (lib/tensor/onnx-session-worker.ts). */
export type ToOnnxWorker =
  | { type: 'open'; id: number; bytes: Uint8Array; threads: number; memArena: boolean }
  | { type: 'run'; id: number; session: number; feeds: Record<string, OnnxFeed>; fetches?: string[] }
  | { type: 'release'; id: number; session: number }
  | { type: 'stop'; id: number };
export type FromOnnxWorker =
  | { type: 'opened'; id: number; session: number }
  | { type: 'ran'; id: number; outputs: Record<string, OnnxOutput> }
  | { type: 'released'; id: number }
  | { type: 'stopped'; id: number }
  | { type: 'failed'; id: number; message: string };

interface OnnxWorkerHandle {
  open(bytes: Uint8Array, threads: number, memArena: boolean): Promise<OnnxSession>;
  /** Release every session of the worker, then end it. */
  stop(): Promise<void>;
}

/**
 * Stop every onnx worker of the process: each releases its sessions (after the runs already queued) and ends. A
 * server calls it on shutdown: ending the process with sessions still open in a worker thread aborts it
 * (onnxruntime-node's finalizers throw while the thread's environment is torn down). Later `worker` sessions start
 * new workers.
 */
export async function stopOnnxWorkers(): Promise<void> {
  const live = workers.filter((w): w is OnnxWorkerHandle => !!w);
  workers.fill(null);
  laneSlots.clear();
  await Promise.all(live.map((w) => w.stop()));
}

/** Live workers by slot, and the slot of each lane seen (first come, first served, then round robin). */
const workers: (OnnxWorkerHandle | null)[] = [];
const laneSlots = new Map<string, number>();

function startOnnxWorker(): Worker {
  const base = path.join(__dirname, 'onnx-session-worker');
  const workerData = { __eoOnnxWorker: true };
  if (fs.existsSync(base + '.js')) return new Worker(base + '.js', { workerData });
  if (fs.existsSync(base + '.ts')) return new Worker(`require('tsx/cjs'); require(${JSON.stringify(base + '.ts')});`, { eval: true, workerData });
  throw new EoError('ENCODER', `onnx worker script not found next to ${__filename}`);
}

/**
 * The onnx worker of a lane, started on first use. Requests are answered in order (one graph at a time: a worker is
 * one thread). An idle worker does not keep the process alive; a pending request does. If a worker dies, every
 * waiting and later request on it rejects (ENCODER) and the next `openOnnxSession` of its lanes starts a new one.
 */
function onnxWorker(lane: string): OnnxWorkerHandle {
  let slot = laneSlots.get(lane);
  if (slot === undefined) {
    slot = laneSlots.size % MAX_ONNX_WORKERS;
    laneSlots.set(lane, slot);
  }
  const live = workers[slot];
  if (live) return live;
  const worker = startOnnxWorker();
  const waiting = new Map<number, { resolve: (m: FromOnnxWorker) => void; reject: (e: unknown) => void }>();
  let failure: EoError | null = null;
  let seq = 0;
  const fail = (e: EoError) => {
    failure ??= e;
    if (workers[slot!] === handle) workers[slot!] = null;
    for (const w of waiting.values()) w.reject(failure);
    waiting.clear();
  };
  worker.unref();
  worker.on('message', (msg: FromOnnxWorker) => {
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (waiting.size === 0) worker.unref();
    if (!w) return;
    if (msg.type === 'failed') w.reject(new EoError('ENCODER', `onnx worker: ${msg.message}`));
    else w.resolve(msg);
  });
  worker.on('error', (e) => fail(new EoError('ENCODER', `onnx worker crashed: ${e.message}`)));
  worker.on('exit', (code) => fail(new EoError('ENCODER', `onnx worker exited (code ${code})`)));
  const request = (msg: ToOnnxWorker, transfer: ArrayBuffer[] = []): Promise<FromOnnxWorker> => {
    if (failure) return Promise.reject(failure);
    worker.ref();
    return new Promise((resolve, reject) => {
      waiting.set(msg.id, { resolve, reject });
      worker.postMessage(msg, transfer);
    });
  };
  const handle: OnnxWorkerHandle = {
    async stop() {
      if (!failure) await request({ type: 'stop', id: seq++ }).catch(() => undefined);
      fail(new EoError('ENCODER', 'onnx worker stopped'));
      worker.removeAllListeners();
      worker.on('error', () => {});
      await worker.terminate();
    },
    async open(bytes, threads, memArena) {
      // transferred when the view owns its whole buffer (a view into a shared one, e.g. Node's Buffer pool, is copied)
      const owns = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const opened = await request({ type: 'open', id: seq++, bytes, threads, memArena }, owns ? [bytes.buffer as ArrayBuffer] : []);
      const session = (opened as Extract<FromOnnxWorker, { type: 'opened' }>).session;
      let released = false;
      return {
        thread: 'worker',
        async run(feeds, fetches) {
          if (released) throw new EoError('INVALID_ARGUMENT', 'onnx session used after release()');
          // copied, not transferred: the caller keeps its buffers
          const ran = await request({ type: 'run', id: seq++, session, feeds: feeds as Record<string, OnnxFeed>, ...(fetches ? { fetches: [...fetches] } : {}) });
          return (ran as Extract<FromOnnxWorker, { type: 'ran' }>).outputs;
        },
        async release() {
          if (released || failure) return;
          released = true;
          // never rejects: a worker that stopped or died has freed its sessions already
          await request({ type: 'release', id: seq++, session }).catch(() => undefined);
        },
      };
    },
  };
  workers[slot] = handle;
  return handle;
}
