#!/usr/bin/env node
// Build a tiny BERT-shaped sentence-transformers folder (ONNX weights + tokenizer + pooling config) with no
// download and no dependency: the ONNX protobuf is written by hand (wire format below, ~100 lines). Tests load it
// through `onnx:<folder>` exactly as a user's exported nasa-smd-ibm-st-v2 would be loaded.
//
//   node scripts/build-tiny-onnx.cjs OUT_DIR [--pooling mean|cls] [--no-normalize] [--hidden 8] [--seed 7]
//
// The graph (opset 14), named as transformers.js expects for a BertModel:
//   inputs  input_ids, attention_mask, token_type_ids   int64 [batch, seq]
//   e = word_emb[input_ids] + pos_emb[0..seq-1] + type_emb[token_type_ids]
//   last_hidden_state = e + tanh(e · W + b)            float32 [batch, seq, hidden]
// attention_mask is an input (transformers.js feeds it) but the block is attention-free, so it is unused: padding
// positions get hidden states too, and only pooling must ignore them, which is what the tests check.
// `buildTinyOnnx` returns the weights so a test can compute the same vectors by hand.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// ------------------------------------------------------------------ protobuf wire format
// Field key = (field_number << 3) | wire_type; wire types used: 0 varint, 2 length-delimited.
function varint(n) {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n; // int64 two's complement (10 bytes)
  const out = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return Buffer.from(out);
}
const key = (field, wire) => varint((field << 3) | wire);
const fInt = (field, n) => Buffer.concat([key(field, 0), varint(n)]);
const fBytes = (field, buf) => Buffer.concat([key(field, 2), varint(buf.length), buf]);
const fStr = (field, s) => fBytes(field, Buffer.from(s, 'utf8'));
const fMsg = (field, parts) => fBytes(field, Buffer.concat(parts));

const FLOAT = 1;
const INT64 = 7;

/** TensorProto: dims=1, data_type=2, name=8, raw_data=9 (little-endian). */
function tensorProto(name, dims, dataType, values) {
  let raw;
  if (dataType === FLOAT) {
    raw = Buffer.alloc(values.length * 4);
    values.forEach((v, i) => raw.writeFloatLE(v, i * 4));
  } else {
    raw = Buffer.alloc(values.length * 8);
    values.forEach((v, i) => raw.writeBigInt64LE(BigInt(v), i * 8));
  }
  return [...dims.map((d) => fInt(1, d)), fInt(2, dataType), fStr(8, name), fBytes(9, raw)];
}

/** ValueInfoProto name=1, type=2 → TypeProto.tensor_type=1 → elem_type=1, shape=2 → dim=1 (dim_value=1 | dim_param=2). */
function valueInfo(name, elemType, dims) {
  const dimMsgs = dims.map((d) => fMsg(1, [typeof d === 'number' ? fInt(1, d) : fStr(2, d)]));
  return [fStr(1, name), fMsg(2, [fMsg(1, [fInt(1, elemType), fMsg(2, dimMsgs)])])];
}

/** NodeProto input=1, output=2, name=3, op_type=4, attribute=5 (AttributeProto name=1, i=3, type=20 INT=2). */
function node(op, inputs, outputs, attrs = {}) {
  const parts = [...inputs.map((s) => fStr(1, s)), ...outputs.map((s) => fStr(2, s)), fStr(3, `${op}_${outputs[0]}`), fStr(4, op)];
  for (const [k, v] of Object.entries(attrs)) parts.push(fMsg(5, [fStr(1, k), fInt(3, v), fInt(20, 2)]));
  return parts;
}

// ------------------------------------------------------------------ tiny model
const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const WORDS = [
  'sea', 'ice', 'surface', 'temperature', 'ocean', 'land', 'cover', 'aerosol', 'optical', 'depth', 'soil', 'moisture',
  'precipitation', 'snow', 'cloud', 'fire', 'vegetation', 'index', 'daily', 'monthly', 'global', 'level', 'modis', 'the',
  'of', 'and', 'a', 'data', 'satellite', 'radar', '##s', '##ing', '##ed', 'wind', 'speed', 'height', '.', ',',
];

/** Deterministic uniform numbers in [-1, 1): the workbench's seeded PRNG (needs `npm run build`). */
function rng(seed) {
  let mulberry32;
  try {
    ({ mulberry32 } = require('../dist/lib/util/random.js'));
  } catch {
    throw new Error('build-tiny-onnx: run `npm run build` first (it uses dist/lib/util/random.js)');
  }
  const next = mulberry32(seed);
  return () => next() * 2 - 1;
}

/**
 * Write the folder and return what a hand computation needs.
 * @param {string} outDir created if missing
 * @param {{pooling?: 'mean'|'cls', normalize?: boolean, hidden?: number, maxPositions?: number, seed?: number}} [opts]
 *   defaults: mean pooling, a Normalize module, hidden 8, 32 positions, seed 7
 */
function buildTinyOnnx(outDir, opts = {}) {
  const pooling = opts.pooling ?? 'mean';
  const normalize = opts.normalize ?? true;
  const hidden = opts.hidden ?? 8;
  const maxPositions = opts.maxPositions ?? 32;
  const rand = rng(opts.seed ?? 7);
  const vocab = [...SPECIALS, ...WORDS];
  const V = vocab.length;
  const mat = (n) => Array.from({ length: n }, () => Math.fround(rand() * 0.5));
  const w = {
    word: mat(V * hidden), pos: mat(maxPositions * hidden), type: mat(2 * hidden), W: mat(hidden * hidden), b: mat(hidden),
  };

  const nodes = [
    node('Gather', ['word_emb', 'input_ids'], ['word'], { axis: 0 }),
    node('Gather', ['type_emb', 'token_type_ids'], ['type']),
    node('Shape', ['input_ids'], ['ids_shape']),
    node('Gather', ['ids_shape', 'one'], ['seq_len'], { axis: 0 }),
    node('Range', ['zero', 'seq_len', 'one'], ['positions']),
    node('Gather', ['pos_emb', 'positions'], ['pos'], { axis: 0 }),
    node('Add', ['word', 'type'], ['word_type']),
    node('Add', ['word_type', 'pos'], ['e']),
    node('MatMul', ['e', 'dense_w'], ['eW']),
    node('Add', ['eW', 'dense_b'], ['eWb']),
    node('Tanh', ['eWb'], ['t']),
    node('Add', ['e', 't'], ['last_hidden_state']),
  ];
  const inits = [
    tensorProto('word_emb', [V, hidden], FLOAT, w.word),
    tensorProto('pos_emb', [maxPositions, hidden], FLOAT, w.pos),
    tensorProto('type_emb', [2, hidden], FLOAT, w.type),
    tensorProto('dense_w', [hidden, hidden], FLOAT, w.W),
    tensorProto('dense_b', [hidden], FLOAT, w.b),
    tensorProto('zero', [], INT64, [0]),
    tensorProto('one', [], INT64, [1]),
  ];
  const graph = [
    ...nodes.map((n) => fMsg(1, n)),
    fStr(2, 'tiny_bert'),
    ...inits.map((t) => fMsg(5, t)),
    ...['input_ids', 'attention_mask', 'token_type_ids'].map((n) => fMsg(11, valueInfo(n, INT64, ['batch', 'sequence']))),
    fMsg(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', hidden])),
  ];
  // ModelProto: ir_version=1, producer_name=2, graph=7, opset_import=8 (domain=1, version=2).
  const model = Buffer.concat([fInt(1, 8), fStr(2, 'eo-workbench build-tiny-onnx'), fMsg(7, graph), fMsg(8, [fStr(1, ''), fInt(2, 14)])]);

  fs.mkdirSync(path.join(outDir, 'onnx'), { recursive: true });
  fs.mkdirSync(path.join(outDir, '1_Pooling'), { recursive: true });
  fs.writeFileSync(path.join(outDir, 'onnx', 'model.onnx'), model);
  const json = (file, obj) => fs.writeFileSync(path.join(outDir, file), JSON.stringify(obj, null, 2) + '\n');
  json('config.json', {
    architectures: ['BertModel'], model_type: 'bert', hidden_size: hidden, vocab_size: V, max_position_embeddings: maxPositions,
    type_vocab_size: 2, num_hidden_layers: 1, num_attention_heads: 1, intermediate_size: hidden, pad_token_id: 0,
  });
  const special = (content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  json('tokenizer.json', {
    version: '1.0', truncation: null, padding: null,
    added_tokens: SPECIALS.map((s, i) => special(s, i)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  });
  json('tokenizer_config.json', {
    tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: maxPositions,
    cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]',
  });
  const modules = [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
  ];
  if (normalize) modules.push({ idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' });
  json('modules.json', modules);
  json('1_Pooling/config.json', {
    word_embedding_dimension: hidden, pooling_mode_cls_token: pooling === 'cls', pooling_mode_mean_tokens: pooling === 'mean',
    pooling_mode_max_tokens: false, pooling_mode_mean_sqrt_len_tokens: false,
  });
  return { dir: outDir, vocab, hidden, maxPositions, weights: w, pooling, normalize };
}

module.exports = { buildTinyOnnx };

if (require.main === module) {
  const args = process.argv.slice(2);
  const out = args.find((a) => !a.startsWith('--'));
  if (!out) {
    process.stderr.write('usage: node scripts/build-tiny-onnx.cjs OUT_DIR [--pooling mean|cls] [--no-normalize] [--hidden N] [--seed N]\n');
    process.exit(2);
  }
  const val = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
  const r = buildTinyOnnx(path.resolve(out), {
    pooling: val('--pooling'), normalize: !args.includes('--no-normalize'),
    hidden: val('--hidden') ? Number(val('--hidden')) : undefined, seed: val('--seed') ? Number(val('--seed')) : undefined,
  });
  process.stdout.write(`wrote ${r.dir} (vocab ${r.vocab.length}, hidden ${r.hidden}, pooling ${r.pooling}, normalize ${r.normalize})\n`);
}
