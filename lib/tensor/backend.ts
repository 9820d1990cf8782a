import * as path from 'node:path';
import type * as tfTypes from '@tensorflow/tfjs';
import { EoError } from '../errors';
import { TF_BACKEND_ENV, type InitTfBackendOptions, type TfBackendInfo, type TfBackendName } from './types';

const BACKEND_NAMES: readonly TfBackendName[] = ['node-gpu', 'node', 'wasm', 'cpu'];

let tfModule: typeof tfTypes | null = null;

/**
 * The one TensorFlow.js module every part of the workbench uses (so tensors never cross two tfjs copies).
 * Required on first use, not at import: BM25 search, the benchmark and the CLI's start-up never need it.
 */
export function getTf(): typeof tfTypes {
  return (tfModule ??= require('@tensorflow/tfjs') as typeof tfTypes);
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

/** Require a package that is not a dependency (the user may have installed it); null when absent. */
function optionalRequire(name: string): { ok: true; mod: unknown } | { ok: false; reason: string } {
  try {
    // A computed name keeps bundlers and tsc from trying to resolve it.
    const req: NodeRequire = require;
    return { ok: true, mod: req(name) };
  } catch (e) {
    const msg = (e as Error).message ?? String(e);
    const missing = (e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && msg.includes(name);
    return { ok: false, reason: missing ? `${name} is not installed` : `${name} failed to load: ${msg.split('\n')[0]}` };
  }
}

async function activate(name: TfBackendName, opts: InitTfBackendOptions): Promise<Omit<TfBackendInfo, 'forced' | 'skipped'>> {
  const tf = getTf();
  switch (name) {
    case 'node-gpu':
    case 'node': {
      const pkg = name === 'node-gpu' ? '@tensorflow/tfjs-node-gpu' : '@tensorflow/tfjs-node';
      const r = optionalRequire(pkg);
      if (!r.ok) throw new Error(r.reason);
      // The package registers the 'tensorflow' backend on the tfjs-core it resolves; that must be ours.
      if (!tf.findBackendFactory('tensorflow'))
        throw new Error(`${pkg} loaded but registered its backend on a different @tensorflow/tfjs-core copy (version mismatch with @tensorflow/tfjs ${tf.version_core}?)`);
      if (!(await tf.setBackend('tensorflow'))) throw new Error(`${pkg}: tf.setBackend('tensorflow') failed`);
      await tf.ready();
      return { name, tfName: 'tensorflow', tfVersion: tf.version_core };
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
      return { name, tfName: 'wasm', tfVersion: tf.version_core, simd };
    }
    case 'cpu': {
      if (!(await tf.setBackend('cpu'))) throw new Error(`tf.setBackend('cpu') failed`);
      await tf.ready();
      return { name, tfName: 'cpu', tfVersion: tf.version_core };
    }
  }
}

async function choose(opts: InitTfBackendOptions): Promise<TfBackendInfo> {
  const envValue = process.env[TF_BACKEND_ENV];
  const forcedName = opts.backend ?? (envValue && envValue.trim() !== '' ? parseTfBackendName(envValue, `$${TF_BACKEND_ENV}`) : undefined);
  const skipped: TfBackendInfo['skipped'] = [];
  if (forcedName) {
    try {
      const info: TfBackendInfo = { ...(await activate(forcedName, opts)), forced: true, skipped };
      return info;
    } catch (e) {
      throw new EoError('ENCODER', `TensorFlow.js backend "${forcedName}" was requested but cannot start: ${(e as Error).message}`, { backend: forcedName });
    }
  }
  for (const name of ['node-gpu', 'node', 'wasm'] as const) {
    try {
      return { ...(await activate(name, opts)), forced: false, skipped };
    } catch (e) {
      skipped.push({ name, reason: (e as Error).message });
    }
  }
  throw new EoError('ENCODER', `no TensorFlow.js backend could start: ${skipped.map((s) => `${s.name}: ${s.reason}`).join('; ')}`, { skipped });
}

/**
 * Choose and start the TensorFlow.js backend (once per process; later calls return the same choice unless they
 * force a different backend). Order: option `backend`, else $EO_TF_BACKEND, else node-gpu → node → wasm.
 */
export async function initTfBackend(opts: InitTfBackendOptions = {}): Promise<TfBackendInfo> {
  if (pending) {
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
  if (opts.verbose) {
    const extra = current.simd !== undefined ? ` simd=${current.simd}` : '';
    process.stderr.write(`[eo] TensorFlow.js ${current.tfVersion} backend: ${current.name}${extra}${current.forced ? ' (forced)' : ''}\n`);
  }
  return current;
}
