import * as path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import type * as tfTypes from '@tensorflow/tfjs';
import { installWasmMatMul } from './wasm-matmul';
import { checkWebgpu } from './webgpu';
import { EoError } from '../errors';
import { TF_BACKEND_ENV, TRAINING_PROFILE_ENV, type InitTfBackendOptions, type NativeLoadFailure, type TfBackendInfo, type TfBackendName, type TrainingProfile } from './types';

const BACKEND_NAMES: readonly TfBackendName[] = ['node-gpu', 'node', 'wasm', 'cpu', 'webgpu'];

let tfModule: typeof tfTypes | null = null;

/**
 * The one TensorFlow.js module every part of the workbench uses (so tensors never cross two tfjs copies).
 * Required on first use, not at import: BM25 search, the benchmark and the CLI's start-up never need it.
 */
export function getTf(): typeof tfTypes {
  return (tfModule ??= require('@tensorflow/tfjs') as typeof tfTypes);
}

/**
 * A trainable variable holding `values`. `tf.variable(tf.tensor(…))` keeps the initial tensor alive beside the
 * variable (they share the data, counted twice), so its memory outlived the variable's `dispose()`; here the initial
 * tensor goes at once.
 */
export function variableOf<R extends tfTypes.Rank = tfTypes.Rank>(values: Float32Array | number[], shape: number[]): tfTypes.Variable<R> {
  const tf = getTf();
  return tf.tidy(() => tf.variable(tf.tensor(values, shape, 'float32'))) as unknown as tfTypes.Variable<R>;
}

let current: TfBackendInfo | null = null;
let pending: Promise<TfBackendInfo> | null = null;
let wasmPathsSet = false;

/** The backend chosen by the last `initTfBackend`, or null before the first one. */
export function tfBackendInfo(): TfBackendInfo | null {
  return current;
}

/** Parse a backend name (e.g. from $EO_TF_BACKEND); throws CONFIG on an unknown one. */
export function parseTfBackendName(value: string, source = 'backend'): TfBackendName {
  const v = value.trim().toLowerCase();
  if ((BACKEND_NAMES as readonly string[]).includes(v)) return v as TfBackendName;
  throw new EoError('CONFIG', `${source}: unknown TensorFlow.js backend "${value}" (expected one of ${BACKEND_NAMES.join(', ')})`, { value });
}

/** Folder of the installed @tensorflow/tfjs-backend-wasm `.wasm` binaries. */
export function defaultWasmDir(): string {
  return path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
}

/**
 * Sort a failed `require` of an optional native TensorFlow package into what the user must do about it:
 * - `not-installed`: the package itself is absent (`npm install` left the optional dependency out);
 * - `binary-missing`: the package is there but its native add-on (`tfjs_binding.node`, libtensorflow) is not: its
 *   install script could not download it (offline install, unsupported platform);
 * - `cuda-missing`: the add-on loads libtensorflow, which cannot find a CUDA/cuDNN library (tfjs-node-gpu 4.x wants
 *   CUDA 11.2 + cuDNN 8.1 on LD_LIBRARY_PATH);
 * - `load-error`: anything else (message kept).
 */
export function classifyNativeLoadError(pkg: string, err: unknown): { kind: NativeLoadFailure; reason: string } {
  const msg = ((err as Error)?.message ?? String(err)).split('\n')[0];
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'MODULE_NOT_FOUND' && (msg.includes(`'${pkg}'`) || msg.includes(`"${pkg}"`)))
    return { kind: 'not-installed', reason: `${pkg} is not installed` };
  const cuda = /(lib(?:cudart|cublas|cublasLt|cudnn|cufft|curand|cusolver|cusparse|cuda|nvinfer)[\w.-]*\.so[\w.]*)/.exec(msg);
  if (cuda) return { kind: 'cuda-missing', reason: `${pkg}: CUDA libraries missing (${cuda[1]} not found; tfjs-node-gpu 4.x needs CUDA 11.2 + cuDNN 8.1 on LD_LIBRARY_PATH)` };
  if (/tfjs_binding\.node|napi-v\d|libtensorflow[\w.]*\.so|Cannot find module .*\.node\b/.test(msg))
    return { kind: 'binary-missing', reason: `${pkg}: native binary missing (its install script could not download libtensorflow: ${msg})` };
  return { kind: 'load-error', reason: `${pkg} failed to load: ${msg}` };
}

/** Require a package that is not a dependency (the user may have installed it). */
function optionalRequire(name: string, requireFn: (id: string) => unknown): { ok: true; mod: unknown } | { ok: false; kind: NativeLoadFailure; reason: string } {
  try {
    return { ok: true, mod: requireFn(name) };
  } catch (e) {
    return { ok: false, ...classifyNativeLoadError(name, e) };
  }
}

/** A failure that carries its kind through `activate` to the skipped list. */
class BackendUnavailable extends Error {
  constructor(readonly kind: NativeLoadFailure, message: string) {
    super(message);
  }
}

type Activated = Omit<TfBackendInfo, 'forced' | 'skipped' | 'reason'> & { note?: string };

async function activate(name: TfBackendName, opts: InitTfBackendOptions): Promise<Activated> {
  const tf = getTf();
  switch (name) {
    case 'node-gpu':
    case 'node': {
      const pkg = name === 'node-gpu' ? '@tensorflow/tfjs-node-gpu' : '@tensorflow/tfjs-node';
      const r = optionalRequire(pkg, opts.requireFn ?? require);
      if (!r.ok) throw new BackendUnavailable(r.kind, r.reason);
      // The package registers the 'tensorflow' backend on the tfjs-core it resolves; that must be ours.
      if (!tf.findBackendFactory('tensorflow'))
        throw new BackendUnavailable('wrong-tfjs-core', `${pkg} loaded but registered no 'tensorflow' backend on our @tensorflow/tfjs-core ${tf.version_core} (a plain-tfjs alias or another tfjs-core copy)`);
      if (!(await tf.setBackend('tensorflow'))) throw new BackendUnavailable('load-error', `${pkg}: tf.setBackend('tensorflow') failed`);
      await tf.ready();
      // tfjs-node's backend says whether libtensorflow found a CUDA device (false: no driver/device visible).
      const gpu = name === 'node-gpu' && Boolean((tf.backend() as { isUsingGpuDevice?: boolean }).isUsingGpuDevice);
      const note = name === 'node-gpu' ? (gpu ? 'GPU found' : 'tfjs-node-gpu loaded but TensorFlow sees no CUDA device: runs on the CPU') : 'native libtensorflow on the CPU';
      return { name, tfName: 'tensorflow', tfVersion: tf.version_core, gpu, note };
    }
    case 'wasm': {
      const wasm = require('@tensorflow/tfjs-backend-wasm') as typeof import('@tensorflow/tfjs-backend-wasm');
      if (!wasmPathsSet) {
        const dir = opts.wasmDir ?? defaultWasmDir();
        wasm.setWasmPaths(dir.endsWith(path.sep) ? dir : dir + path.sep);
        wasmPathsSet = true;
      }
      if (!(await tf.setBackend('wasm'))) throw new Error(`tf.setBackend('wasm') failed`);
      await tf.ready();
      const simd = Boolean(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'));
      // Big matMuls on onnxruntime's MLAS (lib/tensor/wasm-matmul.ts; $EO_TF_MATMUL=wasm keeps XNNPACK).
      const matMul = installWasmMatMul(tf as unknown as Parameters<typeof installWasmMatMul>[0]);
      return { name, tfName: 'wasm', tfVersion: tf.version_core, simd, gpu: false, matMul: matMul.active ? 'onnx' : 'wasm', note: matMul.reason };
    }
    case 'webgpu': {
      // Only when asked for (never in the automatic order): the packages are an opt-in install, and a software
      // adapter (SwiftShader) is far slower than the wasm backend.
      const check = await checkWebgpu(opts.webgpu ?? {});
      if (!check.ok) throw new BackendUnavailable(check.missing === 'NO_PACKAGE' || check.missing === 'NO_TFJS_BACKEND' ? 'not-installed' : 'no-gpu-device', `[${check.missing}] ${check.message}`);
      (opts.requireFn ?? require)('@tensorflow/tfjs-backend-webgpu');
      if (!tf.findBackendFactory('webgpu'))
        throw new BackendUnavailable('wrong-tfjs-core', `@tensorflow/tfjs-backend-webgpu loaded but registered no 'webgpu' backend on our @tensorflow/tfjs-core ${tf.version_core} (another tfjs-core copy)`);
      if (!(await tf.setBackend('webgpu'))) throw new BackendUnavailable('load-error', `tf.setBackend('webgpu') failed on ${check.message}`);
      await tf.ready();
      const a = check.adapter;
      return { name, tfName: 'webgpu', tfVersion: tf.version_core, gpu: !a.software, adapter: a.device || a.description || a.architecture, note: check.message };
    }
    case 'cpu': {
      if (!(await tf.setBackend('cpu'))) throw new Error(`tf.setBackend('cpu') failed`);
      await tf.ready();
      return { name, tfName: 'cpu', tfVersion: tf.version_core, gpu: false };
    }
  }
}

function finish(a: Activated, forced: boolean, skipped: TfBackendInfo['skipped']): TfBackendInfo {
  const { note, ...rest } = a;
  const why = [forced ? 'forced' : null, note ?? null, ...skipped.map((s) => `${s.name} skipped: ${s.reason}`)].filter(Boolean);
  return { ...rest, forced, skipped, reason: `${a.name}${a.simd ? ' (simd)' : ''}${why.length ? ` — ${why.join('; ')}` : ''}` };
}

async function choose(opts: InitTfBackendOptions): Promise<TfBackendInfo> {
  const envValue = process.env[TF_BACKEND_ENV];
  const forcedName = opts.backend ?? (envValue && envValue.trim() !== '' ? parseTfBackendName(envValue, `$${TF_BACKEND_ENV}`) : undefined);
  const skipped: TfBackendInfo['skipped'] = [];
  if (forcedName) {
    try {
      return finish(await activate(forcedName, opts), true, skipped);
    } catch (e) {
      throw new EoError('ENCODER', `TensorFlow.js backend "${forcedName}" was requested but cannot start: ${(e as Error).message}`, { backend: forcedName });
    }
  }
  for (const name of ['node-gpu', 'node', 'wasm'] as const) {
    try {
      return finish(await activate(name, opts), false, skipped);
    } catch (e) {
      skipped.push({ name, reason: (e as Error).message, ...(e instanceof BackendUnavailable ? { kind: e.kind } : {}) });
    }
  }
  throw new EoError('ENCODER', `no TensorFlow.js backend could start: ${skipped.map((s) => `${s.name}: ${s.reason}`).join('; ')}`, { skipped });
}

/**
 * Choose and start the TensorFlow.js backend (once per process; later calls return the same choice unless they
 * force a different backend). Order: option `backend`, else $EO_TF_BACKEND, else node-gpu → node → wasm. Prints
 * what runs and why (GPU found; binary missing; CUDA libraries missing → fallback) unless `verbose: false`.
 */
export async function initTfBackend(opts: InitTfBackendOptions = {}): Promise<TfBackendInfo> {
  if (pending && !opts.requireFn) {
    const info = await pending.catch(() => null);
    if (info && (opts.backend === undefined || opts.backend === info.name)) return info;
  }
  pending = choose(opts);
  try {
    current = await pending;
  } catch (e) {
    pending = null;
    throw e;
  }
  // Worker threads (embedding pool, NN-SSC scoring threads) start their own backend: only the main thread prints.
  if (opts.verbose ?? isMainThread) process.stderr.write(`[eo] TensorFlow.js ${current.tfVersion} backend: ${current.reason}\n`);
  return current;
}

/**
 * Training defaults for a backend: the paper's schedule (`PAPER_FINETUNE_CONFIG`, NN-SSC 1000 epochs) when
 * TensorFlow runs on a GPU, the small CPU schedule otherwise. $EO_TRAINING_PROFILE (`paper` or `cpu`) overrides
 * the choice. lib/train maps the profile to its configs (`defaultTrainingConfig`).
 */
export function trainingProfileFor(info: TfBackendInfo | null, env: NodeJS.ProcessEnv = process.env): TrainingProfile {
  const forced = env[TRAINING_PROFILE_ENV]?.trim().toLowerCase();
  if (forced === 'paper' || forced === 'cpu') return { profile: forced, reason: `$${TRAINING_PROFILE_ENV}=${forced}` };
  if (forced) throw new EoError('CONFIG', `$${TRAINING_PROFILE_ENV} must be paper or cpu (got ${JSON.stringify(env[TRAINING_PROFILE_ENV])})`);
  if (info?.gpu) return { profile: 'paper', reason: `GPU backend ${info.name}: the paper's schedule` };
  return { profile: 'cpu', reason: `${info ? `backend ${info.name}` : 'no backend started yet'} has no GPU: the small CPU schedule` };
}
