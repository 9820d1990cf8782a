/**
 * Which TensorFlow.js backend runs the encoders.
 * - `node-gpu`: `@tensorflow/tfjs-node-gpu` (libtensorflow with CUDA), only if the user installed it;
 * - `node`: `@tensorflow/tfjs-node` (native libtensorflow on the CPU), only if the user installed it;
 * - `wasm`: `@tensorflow/tfjs-backend-wasm` (a dependency; the default here; SIMD, single-threaded in Node);
 * - `cpu`: the plain-JavaScript backend bundled with `@tensorflow/tfjs` (slow; for debugging);
 * - `webgpu`: `@tensorflow/tfjs-backend-webgpu` on Dawn (the `webgpu` package) over Vulkan — an opt-in install
 *   (`npm run install-webgpu`), only when forced, never chosen automatically (lib/tensor/webgpu.ts, issue 45).
 */
export type TfBackendName = 'node-gpu' | 'node' | 'wasm' | 'cpu' | 'webgpu';

/** Environment variable that forces a backend: `wasm`, `cpu`, `node`, `node-gpu` or `webgpu`. */
export const TF_BACKEND_ENV = 'EO_TF_BACKEND';

export interface InitTfBackendOptions {
  /**
   * Force one backend. Default: $EO_TF_BACKEND if set, else automatic: `node-gpu`, then `node` (each only if
   * its package can be required), else `wasm`. A forced backend that cannot start throws ENCODER; an automatic
   * choice falls through to the next one.
   */
  backend?: TfBackendName;
  /**
   * Folder holding `tfjs-backend-wasm*.wasm`. Default: the `dist/` folder of the installed
   * `@tensorflow/tfjs-backend-wasm` (read from disk, no network).
   */
  wasmDir?: string;
  /** Print one line naming the chosen backend and why (what was skipped and the reason) to stderr. Default: true on the main thread, false in worker threads. */
  verbose?: boolean;
  /**
   * The `require` used for the optional native packages (`@tensorflow/tfjs-node-gpu`, `@tensorflow/tfjs-node`).
   * Default: Node's. Tests inject one to simulate a GPU host, a missing native binary or missing CUDA libraries;
   * passing it always makes a fresh choice (the per-process choice is not reused).
   */
  requireFn?: (id: string) => unknown;
  /** `webgpu` only: options of the adapter check run before the backend starts (tests inject probes). Default: the real check. */
  webgpu?: import('./webgpu').WebgpuCheckOptions;
}

/** Why an optional native backend could not start (see `classifyNativeLoadError`). */
export type NativeLoadFailure = 'not-installed' | 'binary-missing' | 'cuda-missing' | 'no-gpu-device' | 'wrong-tfjs-core' | 'load-error';

/** What `initTfBackend` chose. */
export interface TfBackendInfo {
  /** Our name for it (`wasm`, `cpu`, `node`, `node-gpu`). */
  name: TfBackendName;
  /** TensorFlow.js' own backend name (`wasm`, `cpu`, `tensorflow`). */
  tfName: string;
  /** Version of @tensorflow/tfjs-core in use. */
  tfVersion: string;
  /** True when the backend was forced by option or $EO_TF_BACKEND. */
  forced: boolean;
  /** wasm only: whether the SIMD binary is used. */
  simd?: boolean;
  /** wasm only: where big matMuls run — `onnx` (onnxruntime's MLAS, see lib/tensor/wasm-matmul.ts) or `wasm` (XNNPACK). */
  matMul?: 'onnx' | 'wasm';
  /** Backends tried before this one and why they were skipped. */
  skipped: Array<{ name: TfBackendName; reason: string; kind?: NativeLoadFailure }>;
  /** True when TensorFlow runs on a GPU (node-gpu with a visible CUDA device; webgpu on a hardware adapter). */
  gpu: boolean;
  /** webgpu only: the adapter's device name (e.g. `nvidia-h200`, `swiftshader-device-subzero-`). */
  adapter?: string;
  /** One line saying what runs and why, e.g. `wasm (node-gpu: CUDA libraries missing: …; node: not installed)`. */
  reason: string;
}

/** Which training defaults suit a backend: the paper's schedule on a GPU, the small CPU one otherwise. */
export interface TrainingProfile {
  profile: 'paper' | 'cpu';
  /** Why (the backend, or the environment override). */
  reason: string;
}

/** Environment variable overriding the training profile: `paper` or `cpu`. */
export const TRAINING_PROFILE_ENV = 'EO_TRAINING_PROFILE';
