import * as path from 'node:path';
import { EoError } from '../errors';
import { ENCODER_ENV, type EncoderSpec, type SentenceEncoder } from './types';
import { loadUseLite, useLiteRuntimeOf } from './use-lite';
import { loadFinetunedUseLite } from './trainable-use';
import { loadOnnxEncoder } from './onnx';

/** Build an encoder from its serialisable spec (used by worker threads; also handy in configs). */
export async function createEncoder(spec: EncoderSpec): Promise<SentenceEncoder> {
  switch (spec?.kind) {
    case 'use-lite':
      return loadUseLite(spec.options ?? {});
    case 'use-lite-finetuned':
      return loadFinetunedUseLite(spec.options);
    case 'onnx':
      return loadOnnxEncoder(spec.options);
    default:
      throw new EoError('CONFIG', `unknown encoder kind ${JSON.stringify((spec as { kind?: unknown })?.kind)} (known: use-lite, use-lite-finetuned, onnx)`);
  }
}

/**
 * Parse an encoder name as given to `--encoder` or $EO_ENCODER: `use-lite` (the offline default, on TensorFlow.js),
 * `use-lite:onnx` (the same model on onnxruntime-node's CPU kernels: faster, within 1e-5; see
 * `UseLiteOptions.runtime`), `use-lite:tfjs`, or `onnx:<folder>` (a sentence-transformers model exported to ONNX;
 * relative folders resolve against the working directory). Throws CONFIG on anything else.
 */
export function parseEncoderName(name: string, source = 'encoder'): EncoderSpec {
  const v = name.trim();
  if (v === 'use-lite' || v === '') return { kind: 'use-lite' };
  if (v === 'use-lite:onnx' || v === 'use-lite:tfjs') return { kind: 'use-lite', options: { runtime: v.slice(9) as 'onnx' | 'tfjs' } };
  if (v.startsWith('onnx:')) {
    const folder = v.slice(5).trim();
    if (!folder) throw new EoError('CONFIG', `${source}: onnx: needs a folder, e.g. onnx:/models/nasa-smd-ibm-st-v2-onnx`);
    return { kind: 'onnx', options: { folder: path.resolve(folder) } };
  }
  throw new EoError('CONFIG', `${source}: unknown encoder ${JSON.stringify(name)} (expected use-lite, use-lite:onnx, use-lite:tfjs or onnx:<folder>)`, { value: name });
}

/**
 * The encoder the user chose: `name` (e.g. the CLI's `--encoder`), else $EO_ENCODER, else USE-lite. Every
 * notebook, the CLI and the service load their encoder through this, so one setting switches all of them.
 */
export async function loadEncoder(name?: string): Promise<SentenceEncoder> {
  return createEncoder(chosenEncoderSpec(name));
}

/**
 * The spec of the encoder `loadEncoder(name)` builds: `name`, else $EO_ENCODER, else `fallback` (default USE-lite on
 * the default runtime). Nothing is loaded.
 */
export function chosenEncoderSpec(name?: string, fallback: EncoderSpec = { kind: 'use-lite' }): EncoderSpec {
  const fromEnv = process.env[ENCODER_ENV];
  return name !== undefined
    ? parseEncoderName(name, '--encoder')
    : fromEnv !== undefined && fromEnv.trim() !== '' ? parseEncoderName(fromEnv, `$${ENCODER_ENV}`) : fallback;
}

/**
 * `spec` with its onnx graph run on `thread` (`UseLiteOptions.onnxThread`): USE-lite specs (base or fine-tuned) get the
 * option, which only matters on the onnx runtime; other kinds are returned unchanged. The encoder's id and vectors do
 * not depend on it.
 */
export function withOnnxThread(spec: EncoderSpec, thread: 'caller' | 'worker'): EncoderSpec {
  if (spec.kind === 'use-lite') return { kind: 'use-lite', options: { ...(spec.options ?? {}), onnxThread: thread } };
  if (spec.kind === 'use-lite-finetuned') return { kind: 'use-lite-finetuned', options: { ...spec.options, onnxThread: thread } };
  return spec;
}

/**
 * Whether an encoder built from `spec` embeds off the calling thread by itself: a USE-lite graph on the onnx runtime
 * (its option, else $EO_USE_LITE_RUNTIME) on the process's onnx worker thread. onnxruntime-node runs a graph
 * synchronously on the thread that calls it, so every other encoder (tfjs, or onnx on the `caller` thread, or an
 * `onnx` folder model) would block a server's event loop and is better put on a `workerEncoder`.
 */
export function encoderRunsOffEventLoop(spec: EncoderSpec | undefined): boolean {
  if (!spec || (spec.kind !== 'use-lite' && spec.kind !== 'use-lite-finetuned')) return false;
  const o = spec.options as { runtime?: unknown; onnxThread?: unknown } | undefined;
  return useLiteRuntimeOf(o?.runtime as never) === 'onnx' && o?.onnxThread === 'worker';
}
