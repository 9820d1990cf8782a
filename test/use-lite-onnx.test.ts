import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createEncoder, isEoError, type SentenceEncoder } from '../lib';
import { defaultUseLiteRuntime, parseEncoderName, loadUseLite, USE_LITE_ONNX_BACKEND } from '../lib/encode';
import { saveCheckpoint } from '../lib/store';
import { initTfBackend } from '../lib/tensor';
import { mulberry32 } from '../lib/util';
import { loadFinetunedUseLite, readUseLiteWeightMap, useLiteTimingTable, useLiteWeightPart, USE_LITE_FT_KIND } from '../lib/encode';
import { encodeOnnxModel, loadOnnxRuntime, ONNX_FLOAT } from '../lib/tensor';

/** Largest |a − b| over every component of every row. */
function maxAbsDiff(a: Float32Array[], b: Float32Array[]): number {
  assert.is(a.length, b.length);
  let worst = 0;
  a.forEach((row, i) => {
    assert.is(row.length, b[i].length);
    for (let j = 0; j < row.length; j++) worst = Math.max(worst, Math.abs(row[j] - b[i][j]));
  });
  return worst;
}

const word = 'precipitation radar';
/** Titles, a 1-token text, an empty text, abstracts, and texts past the graph's 128-token clip, mixed in one batch. */
const TEXTS = [
  'MODIS/Terra Aerosol 5-Min L2 Swath 10km',
  'a',
  '',
  'Monthly aerosol optical depth over India since 2015',
  'The Tropical Rainfall Measuring Mission (TRMM) is a joint space mission between NASA and JAXA designed to monitor and study tropical rainfall. ' +
    'This dataset provides gridded precipitation estimates at 0.25 degree resolution from the precipitation radar and microwave imager.',
  Array.from({ length: 90 }, () => word).join(' '), // ~180 tokens: clipped to 128
  'sea surface temperature',
  'GPM IMERG Final Precipitation L3 Half Hourly 0.1 degree x 0.1 degree V07 (GPM_3IMERGHH) at GES DISC',
];

let tfBase: SentenceEncoder;
let onnxBase: SentenceEncoder;

test.before(async () => {
  await initTfBackend({ backend: 'wasm' });
  tfBase = await loadUseLite({ backend: 'wasm', warmup: false });
  onnxBase = await loadUseLite({ runtime: 'onnx', warmup: false });
});

test.after(() => {
  tfBase?.dispose();
  onnxBase?.dispose();
});

test('ONNX writer: int, ints and float attributes reach the operators (Transpose perm, ReduceMean axes/keepdims, LeakyRelu alpha)', async () => {
  const ort = loadOnnxRuntime()!;
  const bytes = encodeOnnxModel({
    name: 'attrs',
    nodes: [
      { opType: 'Transpose', inputs: ['x'], outputs: ['xt'], attributes: { perm: [1, 0] } },
      { opType: 'ReduceMean', inputs: ['xt'], outputs: ['m'], attributes: { axes: [-1], keepdims: 0 } },
      { opType: 'LeakyRelu', inputs: ['m'], outputs: ['y'], attributes: { alpha: { f: 0.5 } } },
    ],
    initializers: [],
    inputs: [{ name: 'x', elemType: ONNX_FLOAT, shape: [2, 3] }],
    outputs: [{ name: 'y', elemType: ONNX_FLOAT, shape: [3] }],
  });
  const s = await ort.InferenceSession.create(bytes);
  const out = await s.run({ x: new ort.Tensor('float32', new Float32Array([1, -4, 3, 3, -2, -1]), [2, 3]) });
  assert.equal(Array.from(out.y.data as Float32Array), [2, -1.5, 1]); // means of the columns (2, −3, 1), negatives × 0.5
  await s.release();
  assert.throws(() => encodeOnnxModel({ name: 'bad', nodes: [{ opType: 'Softmax', inputs: ['x'], outputs: ['y'], attributes: { axis: 0.5 } }], initializers: [], inputs: [], outputs: [] }), /attribute axis must be/);
});

test('timing table: sin/cos of float32(position × inverse timescale), sin half first', () => {
  const inv = new Float32Array([1, 0.5]);
  const t = useLiteTimingTable(inv, 3);
  assert.is(t.length, 3 * 4);
  assert.equal(Array.from(t.subarray(0, 4)), [0, 0, 1, 1]);
  assert.is(t[2 * 4 + 0], Math.fround(Math.sin(2)));
  assert.is(t[2 * 4 + 3], Math.fround(Math.cos(1)));
});

test('USE-lite on onnxruntime: the same id, every component within 1e-5 of the tfjs graph on a mixed batch', async () => {
  assert.is(onnxBase.id, tfBase.id);
  assert.is(onnxBase.dim, 512);
  assert.is(onnxBase.backend, USE_LITE_ONNX_BACKEND);
  assert.equal(onnxBase.spec, { kind: 'use-lite', options: { runtime: 'onnx', warmup: false } });
  const ref = await tfBase.embed(TEXTS);
  const got = await onnxBase.embed(TEXTS);
  const diff = maxAbsDiff(ref, got);
  assert.ok(diff <= 1e-5, `onnx vs tfjs: max |Δ| ${diff}`);
  // the comparison can fail: rows out of place differ by far more than the tolerance
  assert.ok(maxAbsDiff(ref, [got[1], got[0], ...got.slice(2)]) > 1e-2);
  // one at a time (no padding) equals the padded, length-sorted batch to float noise
  const single = [];
  for (const t of TEXTS) single.push(...(await onnxBase.embed([t])));
  assert.ok(maxAbsDiff(single, got) <= 1e-6, `batched vs single: ${maxAbsDiff(single, got)}`);
  // the texts past 128 tokens embed as their first 128 tokens
  const long = TEXTS[5];
  const [a, b] = await onnxBase.embed([long, `${long} ${long}`]);
  assert.ok(maxAbsDiff([a], [b]) === 0);
});

test('fine-tuned checkpoint on onnxruntime: within 1e-5 of tfjs with the same checkpoint, and not the base model', async () => {
  // a checkpoint of perturbed layer-1 and head weights, as finetuneUseLite writes (scope "upper")
  const base = await readUseLiteWeightMap();
  const rng = mulberry32(11);
  const tensors: Record<string, { shape: number[]; data: Float32Array }> = {};
  for (const [name, w] of base) {
    const part = useLiteWeightPart(name);
    if (part !== 'layer1' && part !== 'head') continue;
    const data = Float32Array.from(w.data as Float32Array, (v) => v * (1 + 0.2 * (rng() - 0.5)) + 0.01 * (rng() - 0.5));
    tensors[name] = { shape: w.shape, data };
  }
  assert.ok(Object.keys(tensors).length >= 10);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-useonnx-'));
  saveCheckpoint(dir, { kind: USE_LITE_FT_KIND, config: { baseEncoderId: tfBase.id }, seed: 11, backend: 'test', dataHash: 'test', tensors });
  const tf = await loadFinetunedUseLite({ checkpointDir: dir, backend: 'wasm', warmup: false });
  const ox = await createEncoder({ kind: 'use-lite-finetuned', options: { checkpointDir: dir, runtime: 'onnx', intraOpThreads: 2, warmup: false } });
  try {
    assert.is(ox.id, tf.id);
    assert.is(ox.backend, USE_LITE_ONNX_BACKEND);
    const ref = await tf.embed(TEXTS);
    const got = await ox.embed(TEXTS);
    const diff = maxAbsDiff(ref, got);
    assert.ok(diff <= 1e-5, `fine-tuned onnx vs tfjs: max |Δ| ${diff}`);
    // the checkpoint's weights are in use: far from the base model's vectors
    assert.ok(maxAbsDiff(got, await onnxBase.embed(TEXTS)) > 1e-2);
  } finally {
    tf.dispose();
    ox.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('runtime option: --encoder / $EO_ENCODER names; an unknown runtime is a CONFIG error; bad thread counts are refused', async () => {
  assert.equal(parseEncoderName('use-lite:onnx'), { kind: 'use-lite', options: { runtime: 'onnx' } });
  assert.equal(parseEncoderName('use-lite:tfjs'), { kind: 'use-lite', options: { runtime: 'tfjs' } });
  assert.equal(parseEncoderName('use-lite'), { kind: 'use-lite' });
  assert.throws(() => parseEncoderName('use-lite:gpu'), /expected use-lite, use-lite:onnx/);
  for (const spec of [{ kind: 'use-lite', options: { runtime: 'gpu' } }, { kind: 'use-lite-finetuned', options: { checkpointDir: '/nope', runtime: 'torch' } }]) {
    try {
      await createEncoder(spec as never);
      assert.unreachable('unknown runtime accepted');
    } catch (e) {
      assert.ok(isEoError(e) && e.code === 'CONFIG' && /unknown USE-lite runtime/.test(e.message), String(e));
    }
  }
  try {
    await loadUseLite({ runtime: 'onnx', intraOpThreads: 0 });
    assert.unreachable('0 threads accepted');
  } catch (e) {
    assert.ok(isEoError(e) && /intraOpThreads must be a positive integer/.test(e.message), String(e));
  }
});

test('$EO_USE_LITE_RUNTIME sets the runtime when no option does; an option wins; a bad value is a CONFIG error naming the variable', async () => {
  const before = process.env.EO_USE_LITE_RUNTIME;
  try {
    delete process.env.EO_USE_LITE_RUNTIME;
    // onnxruntime-node is installed here, so it is the default.
    assert.is(defaultUseLiteRuntime(), 'onnx');
    process.env.EO_USE_LITE_RUNTIME = 'tfjs';
    assert.is(defaultUseLiteRuntime(), 'tfjs');
    process.env.EO_USE_LITE_RUNTIME = 'onnx';
    assert.is(defaultUseLiteRuntime(), 'onnx');
    const viaEnv = await loadUseLite({ warmup: false });
    assert.is(viaEnv.backend, USE_LITE_ONNX_BACKEND);
    const [a] = await viaEnv.embed([TEXTS[0]]);
    const [b] = await onnxBase.embed([TEXTS[0]]);
    assert.equal(Array.from(a), Array.from(b));
    viaEnv.dispose?.();
    const optionWins = await loadUseLite({ runtime: 'tfjs', backend: 'wasm', warmup: false });
    assert.is.not(optionWins.backend, USE_LITE_ONNX_BACKEND);
    optionWins.dispose?.();
    process.env.EO_USE_LITE_RUNTIME = 'cuda';
    try {
      await loadUseLite({ warmup: false });
      assert.unreachable('bad $EO_USE_LITE_RUNTIME accepted');
    } catch (e) {
      assert.ok(isEoError(e) && e.code === 'CONFIG' && /\$EO_USE_LITE_RUNTIME/.test(e.message), String(e));
    }
  } finally {
    if (before === undefined) delete process.env.EO_USE_LITE_RUNTIME;
    else process.env.EO_USE_LITE_RUNTIME = before;
  }
});

test.run();
