import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isEoError, type SentenceEncoder } from '../lib';
import {
  loadOnnxEncoder, loadEncoder, parseEncoderName, inspectOnnxFolder, hashModelFolder, chooseOnnxDevice,
  poolingFromConfig, embedCorpusCached, dotProduct
} from '../lib/encode';

// The tiny BERT-shaped model is built by the project script (no download); its weights come back for the hand computation.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { buildTinyOnnx } = require('../scripts/build-tiny-onnx.cjs') as {
  buildTinyOnnx: (dir: string, o?: { pooling?: 'mean' | 'cls'; normalize?: boolean; seed?: number }) => Tiny;
};
interface Tiny {
  dir: string; vocab: string[]; hidden: number;
  weights: { word: number[]; pos: number[]; type: number[]; W: number[]; b: number[] };
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'eo-onnx-'));

/** The graph by hand: h_t = e_t + tanh(e_t·W + b), e_t = word[id] + pos[t] + type[0]; then pooling and optional L2. */
function handEmbed(m: Tiny, words: string[], pooling: 'mean' | 'cls', normalize: boolean): Float64Array {
  const H = m.hidden;
  const ids = [m.vocab.indexOf('[CLS]'), ...words.map((w) => m.vocab.indexOf(w)), m.vocab.indexOf('[SEP]')];
  assert.not.ok(ids.includes(-1), `test words must be in the vocabulary: ${words}`);
  const states = ids.map((id, t) => {
    const e = new Float64Array(H);
    for (let j = 0; j < H; j++) e[j] = m.weights.word[id * H + j] + m.weights.pos[t * H + j] + m.weights.type[j];
    const h = new Float64Array(H);
    for (let k = 0; k < H; k++) {
      let s = m.weights.b[k];
      for (let j = 0; j < H; j++) s += e[j] * m.weights.W[j * H + k];
      h[k] = e[k] + Math.tanh(s);
    }
    return h;
  });
  const out = new Float64Array(H);
  if (pooling === 'cls') out.set(states[0]);
  else for (const h of states) for (let j = 0; j < H; j++) out[j] += h[j] / states.length;
  if (normalize) {
    const n = Math.hypot(...out);
    for (let j = 0; j < H; j++) out[j] /= n;
  }
  return out;
}

function near(a: Float32Array, b: Float64Array, what: string, eps = 1e-5) {
  assert.is(a.length, b.length, `${what}: length`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  assert.ok(worst < eps, `${what}: differs from the hand computation by ${worst}`);
}

// Texts of different lengths in one batch, so padding must be left out of mean pooling.
const TEXTS = [['sea', 'ice'], ['global', 'ocean', 'surface', 'temperature'], ['snow']];

test('mean pooling + Normalize module: equals the hand computation, padding ignored, unit norm', async () => {
  const m = buildTinyOnnx(path.join(tmp(), 'tiny-mean'), { pooling: 'mean', normalize: true });
  const enc = await loadOnnxEncoder({ folder: m.dir, verbose: false, batchSize: 3 });
  try {
    assert.is(enc.dim, m.hidden);
    assert.match(enc.id, /^onnx-tiny-mean-8@[0-9a-f]{16}$/);
    assert.is(enc.backend, 'onnxruntime-cpu');
    const vs = await enc.embed(TEXTS.map((w) => w.join(' ')));
    TEXTS.forEach((w, i) => near(vs[i], handEmbed(m, w, 'mean', true), `text ${i}`));
    for (const v of vs) assert.ok(Math.abs(Math.sqrt(dotProduct(v, v)) - 1) < 1e-6, 'unit norm');
    // Batching does not change vectors: one at a time equals the padded batch.
    const single = await enc.embed([TEXTS[0].join(' ')]);
    near(single[0], Float64Array.from(vs[0]), 'unbatched');
  } finally {
    enc.dispose();
  }
});

test('CLS pooling read from 1_Pooling/config.json; normalize:false returns the raw pooled vector', async () => {
  const m = buildTinyOnnx(path.join(tmp(), 'tiny-cls'), { pooling: 'cls', normalize: false });
  const layout = inspectOnnxFolder(m.dir);
  assert.is(layout.pooling, 'cls');
  assert.is(layout.normalize, false);
  const raw = await loadOnnxEncoder({ folder: m.dir, verbose: false, normalize: false });
  const unit = await loadOnnxEncoder({ folder: m.dir, verbose: false });
  try {
    const texts = TEXTS.map((w) => w.join(' '));
    const r = await raw.embed(texts);
    const u = await unit.embed(texts);
    TEXTS.forEach((w, i) => {
      near(r[i], handEmbed(m, w, 'cls', false), `raw ${i}`);
      near(u[i], handEmbed(m, w, 'cls', true), `normalised ${i}`);
    });
    // CLS differs from mean on the same weights (so the pooling choice really is applied).
    const mean = await loadOnnxEncoder({ folder: m.dir, verbose: false, pooling: 'mean', normalize: false });
    near((await mean.embed([texts[1]]))[0], handEmbed(m, TEXTS[1], 'mean', false), 'pooling option overrides config');
    mean.dispose();
  } finally {
    raw.dispose();
    unit.dispose();
  }
});

test('a missing file fails clearly, naming it', async () => {
  for (const f of ['tokenizer.json', 'config.json', 'onnx/model.onnx', '1_Pooling/config.json']) {
    const m = buildTinyOnnx(path.join(tmp(), 'tiny'), {});
    fs.rmSync(path.join(m.dir, f));
    try {
      await loadOnnxEncoder({ folder: m.dir, verbose: false });
      assert.unreachable(`loaded without ${f}`);
    } catch (e) {
      assert.ok(isEoError(e, 'ENCODER'), `ENCODER error for ${f}: ${(e as Error).message}`);
      assert.ok((e as Error).message.includes(path.basename(f)), `message names ${f}: ${(e as Error).message}`);
    }
  }
  await loadOnnxEncoder({ folder: path.join(tmp(), 'nope'), verbose: false }).then(
    () => assert.unreachable('loaded a missing folder'),
    (e) => assert.ok(isEoError(e, 'ENCODER') && /does not exist/.test(e.message), String(e)),
  );
});

test('model at the folder root (optimum-cli layout) loads too', async () => {
  const m = buildTinyOnnx(path.join(tmp(), 'root-layout'), {});
  fs.renameSync(path.join(m.dir, 'onnx', 'model.onnx'), path.join(m.dir, 'model.onnx'));
  fs.rmdirSync(path.join(m.dir, 'onnx'));
  const enc = await loadOnnxEncoder({ folder: m.dir, verbose: false });
  near((await enc.embed(['sea ice']))[0], handEmbed(m, ['sea', 'ice'], 'mean', true), 'root layout');
  enc.dispose();
});

test('cache key: the encoder id (which keys the embedding cache) changes when any model file changes', async () => {
  const dir = tmp();
  const m = buildTinyOnnx(path.join(dir, 'tiny'), { seed: 7 });
  const h0 = hashModelFolder(m.dir);
  assert.is(hashModelFolder(m.dir), h0, 'stable');
  const enc0 = await loadOnnxEncoder({ folder: m.dir, verbose: false });
  const cacheDir = path.join(dir, 'cache');
  const texts = ['sea ice', 'snow'];
  await embedCorpusCached({ encoder: enc0, texts, key: 'k', cacheDir });
  enc0.dispose();
  // Same files → same id → the cached matrix is found again.
  const enc1 = await loadOnnxEncoder({ folder: m.dir, verbose: false });
  assert.is(enc1.id, enc0.id);
  enc1.dispose();
  // New weights (another seed) → new hash, new id, a second cache file.
  buildTinyOnnx(m.dir, { seed: 8 });
  assert.is.not(hashModelFolder(m.dir), h0);
  const enc2 = await loadOnnxEncoder({ folder: m.dir, verbose: false });
  assert.is.not(enc2.id, enc0.id);
  await embedCorpusCached({ encoder: enc2, texts, key: 'k', cacheDir });
  enc2.dispose();
  assert.is(fs.readdirSync(cacheDir).filter((f) => f.endsWith('.f32')).length, 2);
  // A tokenizer-only change counts as well.
  const h1 = hashModelFolder(m.dir);
  fs.appendFileSync(path.join(m.dir, 'tokenizer_config.json'), ' ');
  assert.is.not(hashModelFolder(m.dir), h1);
});

test('encoder names: --encoder / $EO_ENCODER parse; onnx: goes through loadEncoder', async () => {
  assert.equal(parseEncoderName('use-lite'), { kind: 'use-lite' });
  assert.equal(parseEncoderName('onnx:/x/y'), { kind: 'onnx', options: { folder: path.resolve('/x/y') } });
  assert.throws(() => parseEncoderName('bert'), (e: unknown) => isEoError(e, 'CONFIG'));
  assert.throws(() => parseEncoderName('onnx:'), (e: unknown) => isEoError(e, 'CONFIG'));
  const m = buildTinyOnnx(path.join(tmp(), 'by-env'), {});
  const saved = process.env.EO_ENCODER;
  process.env.EO_ENCODER = `onnx:${m.dir}`;
  let enc: SentenceEncoder | null = null;
  try {
    enc = await loadEncoder();
    assert.match(enc.id, /^onnx-by-env-8@/);
    assert.equal(enc.spec, { kind: 'onnx', options: { folder: m.dir, verbose: false } });
  } finally {
    enc?.dispose();
    if (saved === undefined) delete process.env.EO_ENCODER;
    else process.env.EO_ENCODER = saved;
  }
});

test('device choice: CUDA only when the provider library exists on linux-x64; forced values pass through', () => {
  assert.equal(chooseOnnxDevice('auto', { platform: 'linux', arch: 'x64', providerFile: '/p/libcuda.so', exists: () => true }).device, 'cuda');
  const noLib = chooseOnnxDevice('auto', { platform: 'linux', arch: 'x64', providerFile: '/p/libcuda.so', exists: () => false });
  assert.is(noLib.device, 'cpu');
  assert.match(noLib.reason, /no CUDA execution provider/);
  assert.is(chooseOnnxDevice('auto', { platform: 'darwin', arch: 'arm64', exists: () => true }).device, 'cpu');
  assert.is(chooseOnnxDevice('cuda').device, 'cuda');
  assert.is(chooseOnnxDevice('cpu', { exists: () => true }).device, 'cpu');
});

test('pooling config: one mode required', () => {
  assert.is(poolingFromConfig({ pooling_mode_mean_tokens: true }), 'mean');
  assert.is(poolingFromConfig({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: false }), 'cls');
  assert.throws(() => poolingFromConfig({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: true }), /several pooling modes/);
  assert.throws(() => poolingFromConfig({}), /no pooling mode/);
});

test.run();
