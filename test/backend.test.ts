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
  if (tf.findBackendFactory('webgpu')) tf.removeBackend('webgpu');
  await initTfBackend({ backend: 'wasm', verbose: false });
});

/** The WebGPU check's probes (lib/tensor/webgpu.ts) with both packages "installed", a loader file and a given adapter. */
function webgpuProbes(adapter: Record<string, string> | null) {
  const fs = require('node:fs') as typeof import('node:fs');
  const dir = fs.mkdtempSync(require('node:path').join(require('node:os').tmpdir(), 'eo-vk-'));
  fs.writeFileSync(`${dir}/libvulkan.so.1`, '');
  return { resolve: (n: string) => `/fake/${n}`, libraryDirs: [dir], createGpu: () => ({ requestAdapter: async () => (adapter ? { info: adapter } : null) }) };
}
/** Pretend @tensorflow/tfjs-backend-webgpu loaded: it registers a 'webgpu' backend (a CPU backend standing in). */
const fakeWebgpuPackage = (id: string): unknown => {
  if (id !== '@tensorflow/tfjs-backend-webgpu') throw notFound(id);
  const { MathBackendCPU } = require('@tensorflow/tfjs-backend-cpu');
  tf.registerBackend('webgpu', () => new MathBackendCPU());
  return {};
};

test('webgpu: only when forced; a missing link is named with what to do; a GPU adapter sets the paper profile, SwiftShader does not', async () => {
  const encoderError = async (opts: Parameters<typeof initTfBackend>[0]) => {
    try {
      await initTfBackend({ ...opts, verbose: false });
    } catch (e) {
      return e as Error & { code?: string };
    }
    throw new Error('expected the forced webgpu backend to fail');
  };
  const noPkg = await encoderError({ backend: 'webgpu', requireFn: nothingInstalled, webgpu: { resolve: (n) => { throw notFound(n); } } });
  assert.is(noPkg.code, 'ENCODER');
  assert.match(noPkg.message, /TensorFlow\.js backend "webgpu" was requested but cannot start: \[NO_PACKAGE\] .*npm run install-webgpu/);
  const noAdapter = await encoderError({ backend: 'webgpu', requireFn: fakeWebgpuPackage, webgpu: webgpuProbes(null) });
  assert.match(noAdapter.message, /\[NO_ADAPTER\] Dawn found no WebGPU adapter/);
  const gpu = await initTfBackend({ backend: 'webgpu', requireFn: fakeWebgpuPackage, webgpu: webgpuProbes({ vendor: 'nvidia', architecture: 'hopper', device: 'nvidia-h200', description: '' }), verbose: false });
  assert.equal([gpu.name, gpu.tfName, gpu.gpu, gpu.adapter, gpu.forced], ['webgpu', 'webgpu', true, 'nvidia-h200', true]);
  assert.is(tf.getBackend(), 'webgpu');
  assert.is(trainingProfileFor(gpu, {}).profile, 'paper');
  tf.removeBackend('webgpu');
  const sw = await initTfBackend({ backend: 'webgpu', requireFn: fakeWebgpuPackage, webgpu: webgpuProbes({ vendor: 'google', architecture: 'swiftshader', device: 'swiftshader-device-subzero-', description: 'SwiftShader driver 5.0.0' }), verbose: false });
  assert.equal([sw.gpu, trainingProfileFor(sw, {}).profile], [false, 'cpu']);
  assert.match(sw.reason, /a CPU implementation of Vulkan/);
  // fine-tuning USE-lite refuses it, saying why (tfjs-converter's synchronous reads), before loading anything
  const { finetuneUseLite } = require('../lib/train') as typeof import('../lib/train');
  await finetuneUseLite({ examples: [{ query: 'q', positive: 'p', negatives: [] }] } as unknown as Parameters<typeof finetuneUseLite>[0]).then(
    () => assert.unreachable('fine-tuning ran on webgpu'),
    (e: Error & { code?: string }) => {
      assert.is(e.code, 'ENCODER');
      assert.match(e.message, /cannot run on the WebGPU backend in Node: tfjs-converter's graph reads shape tensors synchronously/);
    },
  );
  // the automatic choice never tries it (an opt-in install, and SwiftShader would be slower than wasm)
  const auto = await initTfBackend({ requireFn: fakeWebgpuPackage, verbose: false });
  assert.ok(!auto.skipped.some((s) => s.name === 'webgpu') && auto.name !== 'webgpu', auto.reason);
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
