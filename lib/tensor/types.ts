/**
 * Which TensorFlow.js backend runs the encoders.
 * - `node-gpu`: `@tensorflow/tfjs-node-gpu` (libtensorflow with CUDA), only if the user installed it;
 * - `node`: `@tensorflow/tfjs-node` (native libtensorflow on the CPU), only if the user installed it;
 * - `wasm`: `@tensorflow/tfjs-backend-wasm` (a dependency; the default here; SIMD, single-threaded in Node);
 * - `cpu`: the plain-JavaScript backend bundled with `@tensorflow/tfjs` (slow; for debugging).
 */
export type TfBackendName = 'node-gpu' | 'node' | 'wasm' | 'cpu';

/** Environment variable that forces a backend: `wasm`, `cpu`, `node` or `node-gpu`. */
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
  /** Print one line naming the chosen backend to stderr. Default false. */
  verbose?: boolean;
}

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
  /** Backends tried before this one and why they were skipped. */
  skipped: Array<{ name: TfBackendName; reason: string }>;
}
