import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isEoError } from '../lib';
import { getTf, initTfBackend, matMulModeFromEnv, wasmMatMulRoute, DEFAULT_MIN_MACS } from '../lib/tensor';
import { mulberry32 } from '../lib/util/random';

// tfjs-wasm's matMul and 1×1 Conv2D on onnxruntime's MLAS (lib/tensor/wasm-matmul.ts): products against a float64
// reference, every transpose flag and batch layout the wasm kernel accepts, small products left to XNNPACK, same
// bits on a repeat, and gradients through the routed kernels.

const rand = (n: number, seed: number) => {
  const r = mulberry32(seed);
  return Float32Array.from({ length: n }, () => r() * 2 - 1);
};

/** float64 reference of a [batch, m, k] × [batch, k, n] product (batch 1 broadcasts), after the transposes. */
function reference(a: Float32Array, aShape: number[], b: Float32Array, bShape: number[], ta: boolean, tb: boolean): Float64Array {
  const [ba, ra, ca] = aShape;
  const [bb, rb, cb] = bShape;
  const m = ta ? ca : ra;
  const k = ta ? ra : ca;
  const n = tb ? rb : cb;
  const batch = Math.max(ba, bb);
  const out = new Float64Array(batch * m * n);
  for (let p = 0; p < batch; p++) {
    const ao = (ba === 1 ? 0 : p) * ra * ca;
    const bo = (bb === 1 ? 0 : p) * rb * cb;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let t = 0; t < k; t++) s += a[ao + (ta ? t * ca + i : i * ca + t)] * b[bo + (tb ? j * cb + t : t * cb + j)];
        out[p * m * n + i * n + j] = s;
      }
  }
  return out;
}

const maxAbsDiff = (x: ArrayLike<number>, y: ArrayLike<number>) => {
  let d = 0;
  for (let i = 0; i < x.length; i++) d = Math.max(d, Math.abs(x[i] - y[i]));
  return d;
};

test('the wasm backend routes big matMuls to onnxruntime (default) and says so', async () => {
  const info = await initTfBackend({ backend: 'wasm', verbose: false });
  const route = wasmMatMulRoute();
  assert.ok(route, 'route installed with the wasm backend');
  assert.is(route!.active, true, route!.reason);
  assert.is(info.matMul, 'onnx');
  assert.match(info.reason, /onnxruntime MLAS/);
  assert.is(route!.minMacs, DEFAULT_MIN_MACS);
});

test('matMul on the route equals a float64 reference for every transpose flag and batch layout', async () => {
  const tf = getTf();
  const route = wasmMatMulRoute()!;
  const cases: { a: number[]; b: number[]; ta: boolean; tb: boolean }[] = [
    { a: [1, 96, 128], b: [1, 128, 160], ta: false, tb: false },
    { a: [1, 128, 96], b: [1, 128, 160], ta: true, tb: false },
    { a: [1, 96, 128], b: [1, 160, 128], ta: false, tb: true },
    { a: [1, 128, 96], b: [1, 160, 128], ta: true, tb: true },
    { a: [6, 48, 64], b: [6, 64, 80], ta: false, tb: false }, // batched, same batch
    { a: [6, 48, 64], b: [1, 64, 80], ta: false, tb: false }, // b broadcast over the batch
    { a: [1, 48, 64], b: [6, 80, 64], ta: false, tb: true }, // a broadcast
  ];
  let seed = 1;
  for (const c of cases) {
    const a = rand(c.a.reduce((p, x) => p * x, 1), seed++);
    const b = rand(c.b.reduce((p, x) => p * x, 1), seed++);
    const before = route.counts.onnx;
    // 2-D operands when unbatched, as most callers pass them; 3-D otherwise.
    const at = c.a[0] === 1 && c.b[0] === 1 ? tf.tensor2d(a, [c.a[1], c.a[2]]) : tf.tensor3d(a, c.a as [number, number, number]);
    const bt = c.a[0] === 1 && c.b[0] === 1 ? tf.tensor2d(b, [c.b[1], c.b[2]]) : tf.tensor3d(b, c.b as [number, number, number]);
    const y = tf.matMul(at, bt, c.ta, c.tb);
    const got = await y.data();
    assert.is(route.counts.onnx, before + 1, `routed: ${JSON.stringify(c)}`);
    const want = reference(a, c.a, b, c.b, c.ta, c.tb);
    assert.is(got.length, want.length, JSON.stringify(c));
    assert.ok(maxAbsDiff(got, want) < 1e-4, `${JSON.stringify(c)}: max |diff| ${maxAbsDiff(got, want)}`);
    const m = c.ta ? c.a[2] : c.a[1];
    const n = c.tb ? c.b[1] : c.b[2];
    assert.equal(y.shape.slice(-2), [m, n]);
    // A repeat gives the same bits (MLAS sums each element in a fixed order).
    const again = await tf.matMul(at, bt, c.ta, c.tb).data();
    assert.equal(Array.from(again), Array.from(got));
    tf.dispose([at, bt, y]);
  }
});

test('4-D batched matMul (attention shapes) keeps its outer dims', async () => {
  const tf = getTf();
  const route = wasmMatMulRoute()!;
  const a = rand(4 * 3 * 64 * 64, 11);
  const b = rand(4 * 3 * 64 * 64, 12);
  const before = route.counts.onnx;
  const y = tf.matMul(tf.tensor4d(a, [4, 3, 64, 64]), tf.tensor4d(b, [4, 3, 64, 64]), false, true);
  assert.equal(y.shape, [4, 3, 64, 64]);
  assert.is(route.counts.onnx, before + 1);
  const want = reference(a, [12, 64, 64], b, [12, 64, 64], false, true);
  assert.ok(maxAbsDiff(await y.data(), want) < 1e-4);
});

test('small products stay on XNNPACK; 1×1 Conv2D is routed and equals the matMul', async () => {
  const tf = getTf();
  const route = wasmMatMulRoute()!;
  const w = route.counts.wasm;
  const o = route.counts.onnx;
  const small = tf.matMul(tf.tensor2d(rand(8 * 16, 3), [8, 16]), tf.tensor2d(rand(16 * 4, 4), [16, 4]));
  assert.equal(small.shape, [8, 4]);
  assert.is(route.counts.wasm, w + 1);
  assert.is(route.counts.onnx, o);
  const x = rand(2 * 32 * 1 * 256, 5);
  const f = rand(256 * 192, 6);
  const conv = tf.conv2d(tf.tensor4d(x, [2, 32, 1, 256]), tf.tensor4d(f, [1, 1, 256, 192]), 1, 'same');
  assert.equal(conv.shape, [2, 32, 1, 192]);
  assert.is(route.counts.onnx, o + 1, '1×1 conv routed');
  const want = reference(x, [1, 64, 256], f, [1, 256, 192], false, false);
  assert.ok(maxAbsDiff(await conv.data(), want) < 1e-4);
  // A 3×3 convolution is not a matMul: the original kernel runs it.
  const c3 = tf.conv2d(tf.tensor4d(rand(1 * 8 * 8 * 4, 7), [1, 8, 8, 4]), tf.tensor4d(rand(3 * 3 * 4 * 2, 8), [3, 3, 4, 2]), 1, 'same');
  assert.equal(c3.shape, [1, 8, 8, 2]);
  assert.is(route.counts.onnx, o + 1);
});

test('gradients flow through routed matMuls (tf.grads vs the analytic gradient)', async () => {
  const tf = getTf();
  const a = tf.tensor2d(rand(128 * 96, 21), [128, 96]);
  const b = tf.tensor2d(rand(96 * 112, 22), [96, 112]);
  // d/dA sum(A·B) = 1·Bᵀ: every row of the gradient is B's row sums.
  const [ga] = tf.grads((x: typeof a) => tf.sum(tf.matMul(x, b)))([a]);
  const rowSums = await tf.sum(b, 1).data();
  const g = await ga.data();
  let d = 0;
  for (let r = 0; r < 128; r++) for (let c = 0; c < 96; c++) d = Math.max(d, Math.abs(g[r * 96 + c] - rowSums[c]));
  assert.ok(d < 1e-4, `max |diff| ${d}`);
});

test('$EO_TF_MATMUL: onnx (default) or wasm; anything else is a CONFIG error naming the variable', () => {
  assert.is(matMulModeFromEnv({}), 'onnx');
  assert.is(matMulModeFromEnv({ EO_TF_MATMUL: 'WASM' }), 'wasm');
  assert.is(matMulModeFromEnv({ EO_TF_MATMUL: 'onnx' }), 'onnx');
  try {
    matMulModeFromEnv({ EO_TF_MATMUL: 'gpu' });
    assert.unreachable('bad value accepted');
  } catch (e) {
    assert.ok(isEoError(e) && e.code === 'CONFIG' && /\$EO_TF_MATMUL/.test(e.message), String(e));
  }
});

test('$EO_TF_MATMUL=wasm keeps every matMul on XNNPACK (a fresh process)', () => {
  const lib = path.join(__dirname, '..', 'dist', 'lib', 'tensor');
  const script = `const eo = require(${JSON.stringify(lib)});
    eo.initTfBackend({ backend: 'wasm', verbose: false }).then((info) => {
      const tf = eo.getTf();
      tf.matMul(tf.ones([256, 256]), tf.ones([256, 256])).dataSync();
      const r = eo.wasmMatMulRoute();
      console.log(JSON.stringify({ matMul: info.matMul, active: r.active, counts: r.counts }));
    });`;
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { env: { ...process.env, EO_TF_MATMUL: 'wasm' }, encoding: 'utf8' }).trim().split('\n').pop()!);
  assert.equal(out, { matMul: 'wasm', active: false, counts: { onnx: 0, wasm: 0 } });
});

test.run();
