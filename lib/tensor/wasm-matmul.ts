import { isMainThread } from 'node:worker_threads';
import { EoError } from '../errors';
import { encodeOnnxModel, ONNX_FLOAT, type OnnxGraph, type OnnxNode } from './onnx';

/**
 * TensorFlow.js' wasm backend with its big matrix products on onnxruntime's MLAS kernels.
 *
 * Why: tfjs-wasm runs single-threaded in Node and its XNNPACK matMul reaches ~8.5 GFLOP/s here (USE-lite's
 * [2899,512]×[512,1536] in 534 ms), while MLAS reaches 34–48 GFLOP/s on one thread and 69–89 on two (measured by
 * bench/wasm-matmul.cjs). Fine-tuning USE-lite and training NN-SSC spend ~75% of their kernel time in matMul and
 * 1×1 convolutions, so routing those kernels is what shortens a cold run.
 *
 * How: the wasm backend's `BatchMatMul` and `Conv2D` kernels are re-registered with a kernel function that, for
 * float32 products of at least `minMacs` multiply-adds, runs an ONNX `MatMul` (with `Transpose` for tfjs'
 * transpose flags) synchronously through onnxruntime-node's native session — the same call its public
 * `session.run` makes inside a `setImmediate` — reading the operands straight from the wasm heap and copying the
 * product into the kernel's output. Smaller products, other dtypes, other convolutions and batch shapes MLAS
 * would broadcast differently go to the original kernels. Kernels stay synchronous and deterministic: the same inputs
 * and thread count give the same bits. MLAS blocks a product differently with more threads (fine-tuning losses then
 * differ at ~1e-7), so the default is ONE thread: the same numbers on any machine, and a cold run already keeps both
 * cores busy with two notebooks (measured: two fine-tunings side by side step in 2.0–2.6 s with 1 thread each, 2.4–2.9
 * s with 2; alone, 2.2 s with 1 and 1.75 s with 2). The bits differ from XNNPACK's (another summation order, ~1e-7
 * relative), so a training run with the route on is reproducible with it on, not bit-identical to one with it off.
 *
 * Switch: $EO_TF_MATMUL = `onnx` (default where onnxruntime-node loads) or `wasm` (XNNPACK only: the published
 * run files of earlier stops); worker threads keep XNNPACK unless $EO_TF_MATMUL is set (see below).
 * $EO_TF_MATMUL_THREADS: MLAS threads (default 1, see above).
 */

/** Environment variable choosing the route of tfjs-wasm's matMul: `onnx` or `wasm`. */
export const TF_MATMUL_ENV = 'EO_TF_MATMUL';
/** Environment variable with the MLAS thread count of the route. */
export const TF_MATMUL_THREADS_ENV = 'EO_TF_MATMUL_THREADS';

/** Products smaller than this many multiply-adds stay on XNNPACK (onnxruntime's per-call cost is ~20–50 µs). */
export const DEFAULT_MIN_MACS = 1 << 20;

export interface WasmMatMulRoute {
  /** True when matMul and 1×1 convolutions of at least `minMacs` run on onnxruntime. */
  active: boolean;
  /** MLAS threads (0 when inactive). */
  threads: number;
  minMacs: number;
  /** Why the route is (in)active, one line. */
  reason: string;
  /** Products run on onnxruntime / left to XNNPACK since installation (for tests and benches). */
  counts: { onnx: number; wasm: number };
}

interface NativeSession {
  run(feeds: Record<string, unknown>, fetches: Record<string, null>, options: Record<string, unknown>): Record<string, { data: Float32Array; dims: readonly number[] }>;
  dispose(): void;
}

type OrtModule = typeof import('onnxruntime-node');

interface Native {
  ort: OrtModule;
  newSession: (bytes: Uint8Array) => NativeSession;
}

/** onnxruntime-node's synchronous native session (its public `run` wraps this one in a promise). */
function loadNative(threads: number): Native | string {
  let ort: OrtModule;
  let bindingMod: { binding?: { InferenceSession?: new () => { loadModel: (...a: unknown[]) => void } & NativeSession }; initOrt?: () => void };
  try {
    ort = require('onnxruntime-node') as OrtModule;
    bindingMod = require('onnxruntime-node/dist/binding') as typeof bindingMod;
  } catch (e) {
    return `onnxruntime-node cannot be loaded: ${(e as Error).message.split('\n')[0]}`;
  }
  const Ctor = bindingMod.binding?.InferenceSession;
  if (typeof Ctor !== 'function' || typeof bindingMod.initOrt !== 'function' || typeof Ctor.prototype?.run !== 'function')
    return 'onnxruntime-node/dist/binding has no synchronous InferenceSession (another onnxruntime-node version?)';
  bindingMod.initOrt();
  const options = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // No spinning: the route runs beside other processes (two notebooks at a time) on 2 cores.
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  return {
    ort,
    newSession: (bytes) => {
      const s = new Ctor();
      s.loadModel(bytes.buffer, bytes.byteOffset, bytes.byteLength, options);
      return s;
    },
  };
}

/** MatMul of rank-3 operands with tfjs' transpose flags as Transpose nodes. */
export function matMulGraph(transposeA: boolean, transposeB: boolean): OnnxGraph {
  const nodes: OnnxNode[] = [];
  let a = 'a';
  let b = 'b';
  if (transposeA) {
    nodes.push({ opType: 'Transpose', inputs: ['a'], outputs: ['at'], attributes: { perm: [0, 2, 1] } });
    a = 'at';
  }
  if (transposeB) {
    nodes.push({ opType: 'Transpose', inputs: ['b'], outputs: ['bt'], attributes: { perm: [0, 2, 1] } });
    b = 'bt';
  }
  nodes.push({ opType: 'MatMul', inputs: [a, b], outputs: ['c'] });
  return {
    name: `matmul${transposeA ? '_ta' : ''}${transposeB ? '_tb' : ''}`,
    nodes,
    initializers: [],
    inputs: [
      { name: 'a', elemType: ONNX_FLOAT, shape: ['ba', 'ra', 'ca'] },
      { name: 'b', elemType: ONNX_FLOAT, shape: ['bb', 'rb', 'cb'] },
    ],
    outputs: [{ name: 'c', elemType: ONNX_FLOAT, shape: ['bc', 'm', 'n'] }],
  };
}

interface TensorInfo {
  dataId: object;
  shape: number[];
  dtype: string;
}

interface WasmBackendLike {
  makeOutput(shape: number[], dtype: string): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): Float32Array;
}

interface KernelArgs {
  inputs: Record<string, TensorInfo>;
  backend: WasmBackendLike;
  attrs: Record<string, unknown>;
}

type KernelFunc = (args: KernelArgs) => TensorInfo;

interface KernelConfig {
  kernelName: string;
  backendName: string;
  setupFunc?: (backend: unknown) => void;
  kernelFunc: KernelFunc;
}

interface TfLike {
  getKernel(name: string, backend: string): KernelConfig | undefined;
  unregisterKernel(name: string, backend: string): void;
  registerKernel(config: KernelConfig): void;
}

let route: WasmMatMulRoute | null = null;

/** Numpy broadcast of two batch shapes (aligned on the right; a 1 takes the other side's size). */
function broadcastOuter(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    out.push(x === 1 ? y : x);
  }
  return out;
}

/** The route installed in this process (null before `installWasmMatMul`). */
export function wasmMatMulRoute(): WasmMatMulRoute | null {
  return route;
}

function threadsFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env[TF_MATMUL_THREADS_ENV]?.trim();
  if (raw) {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new EoError('CONFIG', `$${TF_MATMUL_THREADS_ENV} must be a positive integer (got ${JSON.stringify(raw)})`);
    return n;
  }
  return 1;
}

export interface InstallWasmMatMulOptions {
  /** `onnx` or `wasm`; default $EO_TF_MATMUL, else `onnx`. */
  mode?: 'onnx' | 'wasm';
  /** MLAS threads; default $EO_TF_MATMUL_THREADS, else 1 (the same bits on any machine). */
  threads?: number;
  /** Smallest product (multiply-adds) sent to onnxruntime. Default `DEFAULT_MIN_MACS`. */
  minMacs?: number;
}

/** Parse $EO_TF_MATMUL (a bad value is a CONFIG error naming the variable). */
export function matMulModeFromEnv(env: NodeJS.ProcessEnv = process.env): 'onnx' | 'wasm' {
  const raw = env[TF_MATMUL_ENV]?.trim().toLowerCase();
  if (!raw) return 'onnx';
  if (raw === 'onnx' || raw === 'wasm') return raw;
  throw new EoError('CONFIG', `$${TF_MATMUL_ENV} must be onnx or wasm (got ${JSON.stringify(env[TF_MATMUL_ENV])})`);
}

/**
 * Route the wasm backend's big matMuls and 1×1 convolutions to onnxruntime (see the module comment). Call after
 * the wasm backend is active; idempotent per process (the first call's options win). Returns what was installed;
 * when onnxruntime-node cannot be loaded the route stays inactive and the reason says why.
 */
export function installWasmMatMul(tf: TfLike, opts: InstallWasmMatMulOptions = {}): WasmMatMulRoute {
  if (route) return route;
  const mode = opts.mode ?? matMulModeFromEnv();
  const minMacs = opts.minMacs ?? DEFAULT_MIN_MACS;
  const counts = { onnx: 0, wasm: 0 };
  if (mode === 'wasm') return (route = { active: false, threads: 0, minMacs, reason: `matMul on XNNPACK ($${TF_MATMUL_ENV}=wasm)`, counts });
  // Worker threads (embedding pools) are terminated, not stopped: a native session still open in a terminated worker
  // aborts the process (onnxruntime-node 1.30), so workers keep XNNPACK unless told otherwise.
  if (!isMainThread && opts.mode === undefined && !process.env[TF_MATMUL_ENV])
    return (route = { active: false, threads: 0, minMacs, reason: 'matMul on XNNPACK (worker thread)', counts });
  const threads = opts.threads ?? threadsFromEnv(process.env);
  const native = loadNative(threads);
  const mm = tf.getKernel('BatchMatMul', 'wasm');
  const conv = tf.getKernel('Conv2D', 'wasm');
  if (typeof native === 'string' || !mm || !conv)
    return (route = { active: false, threads: 0, minMacs, reason: `matMul on XNNPACK: ${typeof native === 'string' ? native : 'wasm kernels not registered'}`, counts });
  const runInto = onnxMatMulRunner(native, counts);
  const batchMatMul = routedBatchMatMul(mm, runInto, minMacs, counts);
  const conv2d = routedPointwiseConv2d(conv, runInto, minMacs, counts);

  // Re-register keeping each original setupFunc: it already ran when the backend started, and the original
  // kernel functions (our fallbacks) rely on what it set up.
  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({ ...mm, kernelFunc: batchMatMul });
  tf.unregisterKernel('Conv2D', 'wasm');
  tf.registerKernel({ ...conv, kernelFunc: conv2d });
  return (route = { active: true, threads, minMacs, reason: `matMul ≥ ${minMacs} MACs on onnxruntime MLAS (${threads} thread${threads === 1 ? '' : 's'})`, counts });
}

/**
 * A matrix product on onnxruntime's MLAS kernels for plain typed arrays (no tfjs): `a` [m, k] (or [k, m] with `ta`)
 * times `b` [k, n] (or [n, k] with `tb`) → a new [m, n] array, synchronous, row-major. What the static encoder's
 * trainer multiplies its batches with (lib/train/static.ts); one native session per transpose pair, made on first use.
 */
export type HostMatMul = (a: Float32Array, aShape: readonly [number, number], b: Float32Array, bShape: readonly [number, number], ta: boolean, tb: boolean) => Float32Array;

const hostMatMuls = new Map<number, HostMatMul | string>();

/**
 * `HostMatMul` on `threads` MLAS threads (default 1: the same bits on any machine, as the tfjs route), or why it is
 * unavailable (onnxruntime-node not loadable). One per thread count per process.
 */
export function hostMatMul(threads = 1): HostMatMul | string {
  const known = hostMatMuls.get(threads);
  if (known) return known;
  const native = loadNative(threads);
  if (typeof native === 'string') {
    hostMatMuls.set(threads, native);
    return native;
  }
  const { ort } = native;
  const sessionFor = matMulSessions(native);
  const mm: HostMatMul = (a, aShape, b, bShape, ta, tb) => {
    const s = sessionFor(ta, tb);
    if (a.length < aShape[0] * aShape[1] || b.length < bShape[0] * bShape[1]) throw new EoError('INVALID_ARGUMENT', `hostMatMul: operands shorter than their shapes [${aShape}], [${bShape}]`);
    const av = a.length === aShape[0] * aShape[1] ? a : a.subarray(0, aShape[0] * aShape[1]);
    const bv = b.length === bShape[0] * bShape[1] ? b : b.subarray(0, bShape[0] * bShape[1]);
    const res = s.run({ a: new ort.Tensor('float32', av, [1, ...aShape]), b: new ort.Tensor('float32', bv, [1, ...bShape]) }, { c: null }, {});
    return res.c.data;
  };
  hostMatMuls.set(threads, mm);
  return mm;
}

/** a3 [ba, ·, ·] × b3 [bb, ·, ·] → out (already allocated, shape [batch, m, n]), on onnxruntime. */
type RunInto = (backend: WasmBackendLike, a: TensorInfo, a3: number[], b: TensorInfo, b3: number[], ta: boolean, tb: boolean, out: TensorInfo) => void;

/** One native MatMul session per transpose pair, made on first use. */
function matMulSessions(native: Native): (ta: boolean, tb: boolean) => NativeSession {
  const sessions = new Map<string, NativeSession>();
  return (ta, tb) => {
    const key = `${ta}${tb}`;
    let s = sessions.get(key);
    if (!s) sessions.set(key, (s = native.newSession(encodeOnnxModel(matMulGraph(ta, tb)))));
    return s;
  };
}

/** The onnxruntime matMul of `RunInto` (`matMulSessions`). */
function onnxMatMulRunner(native: Native, counts: WasmMatMulRoute['counts']): RunInto {
  const { ort } = native;
  const sessionFor = matMulSessions(native);
  return (backend, a, a3, b, b3, ta, tb, out) => {
    // Views last: makeOutput may grow the wasm memory, which detaches earlier views.
    const av = backend.typedArrayFromHeap(a);
    const bv = backend.typedArrayFromHeap(b);
    const res = sessionFor(ta, tb).run({ a: new ort.Tensor('float32', av, a3), b: new ort.Tensor('float32', bv, b3) }, { c: null }, {});
    backend.typedArrayFromHeap(out).set(res.c.data);
    counts.onnx++;
  };
}

/** BatchMatMul: float32 products of at least `minMacs` MACs whose batch shapes MatMul broadcasts alike go to `runInto`; the rest to `mm`. */
function routedBatchMatMul(mm: KernelConfig, runInto: RunInto, minMacs: number, counts: WasmMatMulRoute['counts']): KernelFunc {
  return (args) => {
    const { a, b } = args.inputs;
    const ta = Boolean(args.attrs.transposeA);
    const tb = Boolean(args.attrs.transposeB);
    if (a.dtype === 'float32' && b.dtype === 'float32' && a.shape.length >= 2 && b.shape.length >= 2) {
      const ra = a.shape.length;
      const rb = b.shape.length;
      const m = ta ? a.shape[ra - 1] : a.shape[ra - 2];
      const k = ta ? a.shape[ra - 2] : a.shape[ra - 1];
      const n = tb ? b.shape[rb - 2] : b.shape[rb - 1];
      const outerA = a.shape.slice(0, -2);
      const outerB = b.shape.slice(0, -2);
      const batchA = outerA.reduce((p, x) => p * x, 1);
      const batchB = outerB.reduce((p, x) => p * x, 1);
      const batch = Math.max(batchA, batchB);
      // Same batch shape, or one side unbatched: the broadcasts MatMul and tfjs agree on after flattening.
      const sameOuter = outerA.length === outerB.length && outerA.every((x, i) => x === outerB[i]);
      if ((sameOuter || batchA === 1 || batchB === 1) && batch * m * k * n >= minMacs && (k === (tb ? b.shape[rb - 1] : b.shape[rb - 2]))) {
        const outShape = broadcastOuter(outerA, outerB).concat([m, n]);
        const out = args.backend.makeOutput(outShape, 'float32');
        runInto(args.backend, a, [batchA, a.shape[ra - 2], a.shape[ra - 1]], b, [batchB, b.shape[rb - 2], b.shape[rb - 1]], ta, tb, out);
        return out;
      }
    }
    counts.wasm++;
    return mm.kernelFunc(args);
  };
}

/** Conv2D: float32 1×1, stride 1, NHWC, unpadded convolutions of at least `minMacs` MACs go to `runInto` as one matMul; the rest to `conv`. */
function routedPointwiseConv2d(conv: KernelConfig, runInto: RunInto, minMacs: number, counts: WasmMatMulRoute['counts']): KernelFunc {
  return (args) => {
    const { x, filter } = args.inputs;
    const at = args.attrs as { strides?: number | number[]; dilations?: number | number[]; dataFormat?: string; pad?: unknown };
    const ones = (v: number | number[] | undefined) => v === undefined || v === 1 || (Array.isArray(v) && v.every((e) => e === 1));
    const [fh, fw, cin, cout] = filter.shape;
    const pad = at.pad;
    const noPad = pad === 'same' || pad === 'valid' || pad === 0;
    if (x.dtype === 'float32' && filter.dtype === 'float32' && fh === 1 && fw === 1 && ones(at.strides) && ones(at.dilations) && (at.dataFormat ?? 'NHWC') === 'NHWC' && noPad && x.shape.length === 4 && x.shape[3] === cin) {
      const rows = x.shape[0] * x.shape[1] * x.shape[2];
      if (rows * cin * cout >= minMacs) {
        const out = args.backend.makeOutput([x.shape[0], x.shape[1], x.shape[2], cout], 'float32');
        runInto(args.backend, x, [1, rows, cin], filter, [1, cin, cout], false, false, out);
        return out;
      }
    }
    counts.wasm++;
    return conv.kernelFunc(args);
  };
}
