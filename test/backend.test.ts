import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { initTfBackend, getTf, classifyNativeLoadError, trainingProfileFor, type TfBackendInfo } from '../lib/tensor';
import {
  defaultTrainingConfig, PAPER_FINETUNE_CONFIG, CPU_FINETUNE_CONFIG, DEFAULT_NNSSC_CONFIG, PAPER_NNSSC_CONFIG
} from '../lib/train';

const tf = getTf();
const GPU_PKG = '@tensorflow/tfjs-node-gpu';
const NODE_PKG = '@tensorflow/tfjs-node';

function notFound(id: string): Error {
  return Object.assign(new Error(`Cannot find module '${id}'\nRequire stack:\n- x.js`), { code: 'MODULE_NOT_FOUND' });
}
/** A require that knows no native package (both optional packages absent). */
const nothingInstalled = (id: string): unknown => {
  throw notFound(id);
};
/** Pretend tfjs-node-gpu loaded: it registers a 'tensorflow' backend (a CPU backend standing in) on our tfjs-core. */
function fakeGpuPackage(usingGpu: boolean) {
  return (id: string): unknown => {
    if (id !== GPU_PKG) throw notFound(id);
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const { MathBackendCPU } = require('@tensorflow/tfjs-backend-cpu');
    tf.registerBackend('tensorflow', () => Object.assign(new MathBackendCPU(), { isUsingGpuDevice: usingGpu }));
    return {};
  };
}

test.after.each(async () => {
  if (tf.findBackendFactory('tensorflow')) tf.removeBackend('tensorflow');
  await initTfBackend({ backend: 'wasm', verbose: false });
});

test('no native package installed → wasm, each skip says "not installed"', async () => {
  const info = await initTfBackend({ requireFn: nothingInstalled, verbose: false });
  assert.is(info.name, 'wasm');
  assert.is(info.gpu, false);
  assert.equal(info.skipped.map((s) => [s.name, s.kind]), [['node-gpu', 'not-installed'], ['node', 'not-installed']]);
  assert.match(info.reason, /node-gpu skipped: @tensorflow\/tfjs-node-gpu is not installed/);
});

test('tfjs-node-gpu installed but its native binary was never downloaded → binary missing, fallback', async () => {
  const info = await initTfBackend({
    verbose: false,
    requireFn: (id) => {
      if (id === GPU_PKG) throw Object.assign(new Error(`Cannot find module '/app/node_modules/${GPU_PKG}/lib/napi-v8/tfjs_binding.node'`), { code: 'MODULE_NOT_FOUND' });
      throw notFound(id);
    },
  });
  assert.is(info.name, 'wasm');
  assert.is(info.skipped[0].kind, 'binary-missing');
  assert.match(info.reason, /native binary missing/);
});

test('tfjs-node-gpu binary present but CUDA libraries missing → cuda-missing, fallback', async () => {
  const info = await initTfBackend({
    verbose: false,
    requireFn: (id) => {
      if (id === GPU_PKG) throw new Error('libcudart.so.11.0: cannot open shared object file: No such file or directory');
      throw notFound(id);
    },
  });
  assert.is(info.name, 'wasm');
  assert.is(info.skipped[0].kind, 'cuda-missing');
  assert.match(info.reason, /CUDA libraries missing \(libcudart\.so\.11\.0 not found/);
});

test('GPU found → node-gpu, gpu=true, paper training defaults', async () => {
  const info = await initTfBackend({ requireFn: fakeGpuPackage(true), verbose: false });
  assert.is(info.name, 'node-gpu');
  assert.is(info.gpu, true);
  assert.match(info.reason, /GPU found/);
  const d = defaultTrainingConfig(info, {});
  assert.is(d.profile, 'paper');
  assert.is(d.finetune, PAPER_FINETUNE_CONFIG);
  assert.is(d.nnssc.maxEpochs, 1000);
  assert.is(d.nnssc, PAPER_NNSSC_CONFIG);
  // The override wins.
  assert.is(defaultTrainingConfig(info, { EO_TRAINING_PROFILE: 'cpu' }).finetune, CPU_FINETUNE_CONFIG);
});

test('tfjs-node-gpu loads but sees no CUDA device → runs, says so, CPU training defaults', async () => {
  const info = await initTfBackend({ requireFn: fakeGpuPackage(false), verbose: false });
  assert.is(info.name, 'node-gpu');
  assert.is(info.gpu, false);
  assert.match(info.reason, /sees no CUDA device/);
  assert.is(defaultTrainingConfig(info, {}).profile, 'cpu');
});

test('a package that loads without registering on our tfjs-core (the danfojs alias) is skipped with that reason', async () => {
  const info = await initTfBackend({ verbose: false, requireFn: (id) => (id === NODE_PKG ? {} : nothingInstalled(id)) });
  assert.is(info.name, 'wasm');
  assert.equal(info.skipped.map((s) => s.kind), ['not-installed', 'wrong-tfjs-core']);
});

test('classification and training profile', () => {
  assert.is(classifyNativeLoadError(GPU_PKG, new Error('libcudnn.so.8: cannot open shared object file')).kind, 'cuda-missing');
  assert.is(classifyNativeLoadError(GPU_PKG, new Error('something odd')).kind, 'load-error');
  const wasm: TfBackendInfo = { name: 'wasm', tfName: 'wasm', tfVersion: '4.22.0', forced: false, skipped: [], gpu: false, reason: 'wasm' };
  assert.is(trainingProfileFor(wasm, {}).profile, 'cpu');
  assert.is(defaultTrainingConfig(wasm, {}).nnssc, DEFAULT_NNSSC_CONFIG);
  assert.is(trainingProfileFor(wasm, { EO_TRAINING_PROFILE: 'paper' }).profile, 'paper');
  assert.throws(() => trainingProfileFor(wasm, { EO_TRAINING_PROFILE: 'fast' }), /paper or cpu/);
});

test.run();
