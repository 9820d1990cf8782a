import { EoError } from '../errors';
import { getTf, initTfBackend } from '../tensor/backend';
import { loadCheckpoint, readCheckpointManifest } from '../store/checkpoint';
import type { FinetunedUseLiteOptions, SentenceEncoder, UseLiteOptions } from './types';
import { registerUseLiteGradients } from './use-gradients';
import * as path from 'node:path';
import { loadUseTokenizer } from './tokenizer';
import { USE_LITE_EMBEDDINGS } from './use-lite-onnx';
import {
  USE_LITE_DIM, defaultUseLiteDir, loadUseLiteModel, readUseLiteWeightMap, useLiteEncoder, useLiteId, useLiteOnnxEncoder, useLiteRuntimeOf,
  useLiteSparseInputs, type UseLiteModel,
} from './use-lite';
import type { UseLiteWeightMap } from './use-lite-onnx';

type Tf = ReturnType<typeof getTf>;
type Tensor = ReturnType<Tf['tensor']>;
type Tensor2D = ReturnType<Tf['tensor2d']>;
type Variable = ReturnType<Tf['variable']>;

/**
 * Which of USE-lite's 29 weight tensors (6,975,744 parameters) a fine-tuning run trains; the others stay frozen.
 * - `all`: everything, including the 8002×256 token embedding table (6,975,744);
 * - `encoder`: both transformer layers and the tanh head, embeddings frozen (4,927,232);
 * - `upper`: the second transformer layer (attention + FFN + layer norms) and the tanh head (2,890,240);
 * - `head`: only the final 512×512 tanh layer (262,656).
 */
export type UseTrainableScope = 'all' | 'encoder' | 'upper' | 'head';

const P = 'module_apply_default/Encoder_en/KonaTransformer/';
/** The graph's unit-norm 512-d output. */
const OUTPUT_NODE = 'module_apply_default/Encoder_en/hidden_layers/l2_normalize';
/**
 * The graph has two dynamic-shape `Where` ops (which `execute` refuses); they depend on the inputs only, never on
 * weights. Their three consumers are computed by the async prefix and fed instead (a `Where` output itself cannot be
 * fed: the executor expects its input's dtype).
 */
const WHERE_NODES = [
  `${P}ClipToMaxLength/Reshape`,
  `${P}Encode/TransformerStack/Layer_1/TransformerLayer/FFN/StoreMask/ToInt32`,
  `${P}Encode/TransformerStack/Layer_0/AddTimingSignal/strided_slice_2`,
];
/** Where the frozen part of each scope ends: its output is computed without the gradient tape and fed in. */
const FROZEN_BOUNDARY: Record<UseTrainableScope, string | null> = {
  all: null,
  encoder: `${P}Encode/embedding_lookup`,
  upper: `${P}Encode/TransformerStack/Layer_0/TransformerLayer/FFN/layer_postprocess/add`,
  head: `${P}div`,
};
/** A constant of the timing signal stored among the weights; not a learned parameter. */
const NOT_A_PARAMETER = /AddTimingSignal\/TimingSignal/;
/** Names of learned tensors (the graph also stores scalar constants such as layer-norm epsilons as weights). */
const LEARNED = /(kernel|\/bias\/|layer_norm_scale|layer_norm_bias|Tensordot\/Reshape_1$|tanh_layer_0\/(weights|bias)$|^module\/Embeddings_en$)/;

/** Part of the model a weight node belongs to. */
export function useLiteWeightPart(name: string): 'embeddings' | 'layer0' | 'layer1' | 'head' | null {
  if (NOT_A_PARAMETER.test(name) || !LEARNED.test(name)) return null;
  if (name === USE_LITE_EMBEDDINGS) return 'embeddings';
  if (/hidden_layers\/tanh_layer_0/.test(name)) return 'head';
  if (/Layer_0\//.test(name)) return 'layer0';
  if (/Layer_1\//.test(name)) return 'layer1';
  return null;
}

const SCOPE_PARTS: Record<UseTrainableScope, ReadonlyArray<string>> = {
  all: ['embeddings', 'layer0', 'layer1', 'head'],
  encoder: ['layer0', 'layer1', 'head'],
  upper: ['layer1', 'head'],
  head: ['head'],
};

/** Parse a scope name (e.g. from a config); throws CONFIG on an unknown one. */
export function parseUseTrainableScope(v: string): UseTrainableScope {
  if (v in SCOPE_PARTS) return v as UseTrainableScope;
  throw new EoError('CONFIG', `unknown USE-lite trainable scope "${v}" (expected one of ${Object.keys(SCOPE_PARTS).join(', ')})`);
}

interface Executor {
  weightMap: Record<string, Tensor[]>;
}

function executorOf(m: UseLiteModel): Executor {
  const ex = (m.model as unknown as { executor?: Executor }).executor;
  if (!ex || typeof ex.weightMap !== 'object') throw new EoError('ENCODER', 'USE-lite: the tfjs GraphModel has no executor weight map (unsupported @tensorflow/tfjs-converter version?)');
  return ex;
}

/** Names and shapes of the model's learned weights (29 for USE-lite), in weight-map order. */
export function useLiteWeights(m: UseLiteModel): Array<{ name: string; shape: number[]; part: NonNullable<ReturnType<typeof useLiteWeightPart>> }> {
  const out: Array<{ name: string; shape: number[]; part: NonNullable<ReturnType<typeof useLiteWeightPart>> }> = [];
  for (const [name, ts] of Object.entries(executorOf(m).weightMap)) {
    const part = useLiteWeightPart(name);
    if (part && ts[0]?.dtype === 'float32') out.push({ name, shape: ts[0].shape.slice(), part });
  }
  return out;
}

let trainableInstances = 0;

/** USE-lite with some weights replaced by `tf.variable`s, ready for `forwardUseLite` under a gradient tape. */
export interface TrainableUseLite {
  model: UseLiteModel;
  scope: UseTrainableScope;
  /** Trainable variables by weight-node name. */
  variables: Map<string, Variable>;
  /** Number of trainable parameters. */
  params: number;
  /** Nodes computed by the (untaped) async prefix and fed to the synchronous, differentiable part. */
  feedNodes: string[];
}

/**
 * Make `scope`'s weights of a loaded USE-lite trainable: each is copied into a `tf.variable` and swapped into the
 * graph executor's weight map, so that `model.execute` reads the variables and gradients reach them. Also registers
 * the missing gradients (`registerUseLiteGradients`). The model keeps working with `runUseLite` (inference reads
 * the variables' current values).
 */
export function makeTrainableUseLite(m: UseLiteModel, scope: UseTrainableScope = 'upper'): TrainableUseLite {
  const tf = getTf();
  registerUseLiteGradients();
  const parts = SCOPE_PARTS[parseUseTrainableScope(scope)];
  const ex = executorOf(m);
  const map = { ...ex.weightMap };
  const variables = new Map<string, Variable>();
  const instance = ++trainableInstances; // tfjs variable names are global: one prefix per trainable copy
  let params = 0;
  for (const w of useLiteWeights(m)) {
    if (!parts.includes(w.part)) continue;
    const old = map[w.name][0];
    const v = tf.variable(old, true, `use_lite_ft${instance}/${w.name}`);
    variables.set(w.name, v);
    map[w.name] = [v];
    params += old.size;
    old.dispose();
  }
  ex.weightMap = map; // the setter also refreshes the executor's list of weight ids (kept across runs)
  const boundary = FROZEN_BOUNDARY[scope];
  return { model: m, scope, variables, params, feedNodes: boundary ? [...WHERE_NODES, boundary] : WHERE_NODES.slice() };
}

/** Tensors of one batch, computed once per step outside the gradient tape. */
export interface PreparedUseBatch {
  size: number;
  feeds: Record<string, Tensor>;
}

/**
 * Run the graph's dynamic prefix (the `Where` ops, and the frozen layers below the trainable scope) with
 * `executeAsync` on token-id lists (each non-empty, at most 128 ids). The result feeds `forwardUseLite`; dispose it
 * with `disposeUseBatch`.
 */
export async function prepareUseBatch(t: TrainableUseLite, tokenLists: number[][]): Promise<PreparedUseBatch> {
  const tf = getTf();
  if (tokenLists.length === 0 || tokenLists.some((l) => l.length === 0))
    throw new EoError('INVALID_ARGUMENT', 'prepareUseBatch: every text needs at least one token');
  const { indices, values } = useLiteSparseInputs(tokenLists);
  const tIdx = tf.tensor2d(indices, [values.length, 2], 'int32');
  const tVal = tf.tensor1d(values, 'int32');
  const outs = (await t.model.model.executeAsync({ indices: tIdx, values: tVal }, t.feedNodes)) as Tensor | Tensor[];
  const list = Array.isArray(outs) ? outs : [outs];
  const feeds: Record<string, Tensor> = { indices: tIdx, values: tVal };
  t.feedNodes.forEach((n, i) => (feeds[n] = list[i]));
  return { size: tokenLists.length, feeds };
}

export function disposeUseBatch(b: PreparedUseBatch): void {
  for (const t of Object.values(b.feeds)) t.dispose();
}

/**
 * The differentiable rest of the graph (synchronous `execute` fed with the prepared tensors): batch × 512 rows,
 * unit L2 norm. Call inside `tf.variableGrads` / `tf.grads` to get gradients for `t.variables`.
 */
export function forwardUseLite(t: TrainableUseLite, b: PreparedUseBatch): Tensor2D {
  const out = t.model.model.execute(b.feeds, OUTPUT_NODE) as Tensor;
  if (out.shape.length !== 2 || out.shape[0] !== b.size || out.shape[1] !== USE_LITE_DIM)
    throw new EoError('ENCODER', `USE-lite returned shape [${out.shape.join(',')}] for ${b.size} texts`);
  return out as Tensor2D;
}

/**
 * Current values of the trainable weights, keyed by weight-node name (for `saveCheckpoint`). Read with `await data()`:
 * WebGPU in Node cannot read synchronously.
 */
export async function trainableWeightValues(t: TrainableUseLite): Promise<Record<string, { shape: number[]; data: Float32Array }>> {
  const out: Record<string, { shape: number[]; data: Float32Array }> = {};
  for (const [name, v] of t.variables) out[name] = { shape: v.shape.slice(), data: (await v.data()) as Float32Array };
  return out;
}

/**
 * Replace weights of a loaded USE-lite by the given values (plain tensors; e.g. from a checkpoint). Throws ENCODER
 * naming the weight when a name is unknown or a shape differs.
 */
export function applyUseLiteWeights(m: UseLiteModel, tensors: Record<string, { shape: number[]; data: Float32Array }>, source = 'weights'): void {
  const tf = getTf();
  const ex = executorOf(m);
  const map = { ...ex.weightMap };
  for (const [name, t] of Object.entries(tensors)) {
    const old = map[name]?.[0];
    if (!old || !useLiteWeightPart(name)) throw new EoError('ENCODER', `${source}: "${name}" is not a USE-lite weight`, { name });
    if (old.shape.join(',') !== t.shape.join(','))
      throw new EoError('ENCODER', `${source}: weight "${name}" has shape [${t.shape}], the model's is [${old.shape}]`, { name });
    map[name] = [tf.tensor(t.data, t.shape, 'float32')];
    old.dispose();
  }
  ex.weightMap = map;
}

/** Token ids of one text for USE-lite: NFKC-normalised, an empty text becomes a space, at most `maxTokens` ids. */

/** Checkpoint kind written by `finetuneUseLite` and read by `loadFinetunedUseLite`. */
export const USE_LITE_FT_KIND = 'finetune-use-lite';

/** Options of `loadFinetunedUseLite` (serialisable: it is also the worker spec). */
export type { FinetunedUseLiteOptions } from './types';

/**
 * A USE-lite whose weights come partly from a fine-tuning checkpoint (`finetuneUseLite`): the base graph from the
 * installed package (the checkpoint's `config.baseEncoderId` must match), then the checkpoint's tensors swapped
 * in. Its id, `use-lite-ft@<first 12 hex of the weights' SHA-256>`, changes with the checkpoint, so embedding
 * caches are keyed by it. A corrupt or foreign checkpoint is refused (see `loadCheckpoint`).
 */
export async function loadFinetunedUseLite(opts: FinetunedUseLiteOptions): Promise<SentenceEncoder> {
  if (!opts || typeof opts.checkpointDir !== 'string') throw new EoError('INVALID_ARGUMENT', 'loadFinetunedUseLite: checkpointDir is required');
  const runtime = useLiteRuntimeOf(opts.runtime);
  const ckpt = loadCheckpoint(opts.checkpointDir, { kind: USE_LITE_FT_KIND });
  const modelDir = defaultUseLiteDir();
  const baseId = useLiteId(modelDir);
  if (ckpt.config.baseEncoderId !== undefined && ckpt.config.baseEncoderId !== baseId)
    throw new EoError('CACHE_MISMATCH', `${ckpt.file}: fine-tuned from ${String(ckpt.config.baseEncoderId)}, but the installed base model is ${baseId}; retrain it`, { file: ckpt.file });
  const id = `use-lite-ft@${readCheckpointManifest(opts.checkpointDir).weights.sha256.slice(0, 12)}`;
  const spec: SentenceEncoder['spec'] = { kind: 'use-lite-finetuned', options: { ...opts, warmup: false } };
  if (runtime === 'onnx') {
    const weights = await readUseLiteWeightMap(modelDir);
    applyUseLiteWeightMap(weights, ckpt.tensors, ckpt.file);
    return useLiteOnnxEncoder(loadUseTokenizer(path.join(modelDir, 'vocab.json')), weights, { ...opts, id, spec });
  }
  const backend = await initTfBackend({ ...(opts.backendOptions ?? {}), backend: opts.backend });
  const m = await loadUseLiteModel(modelDir);
  applyUseLiteWeights(m, ckpt.tensors, ckpt.file);
  return useLiteEncoder(m, { id, backend: backend.name, spec, batchSize: opts.batchSize, maxTokens: opts.maxTokens, warmup: opts.warmup });
}

/**
 * `applyUseLiteWeights` for a plain weight map (the ONNX runtime's): the same name and shape checks, the values
 * replaced in place.
 */
export function applyUseLiteWeightMap(map: UseLiteWeightMap, tensors: Record<string, { shape: number[]; data: Float32Array }>, source = 'weights'): void {
  for (const [name, t] of Object.entries(tensors)) {
    const old = map.get(name);
    if (!old || !useLiteWeightPart(name)) throw new EoError('ENCODER', `${source}: "${name}" is not a USE-lite weight`, { name });
    if (old.shape.join(',') !== t.shape.join(','))
      throw new EoError('ENCODER', `${source}: weight "${name}" has shape [${t.shape}], the model's is [${old.shape}]`, { name });
    map.set(name, { shape: t.shape.slice(), data: t.data });
  }
}
