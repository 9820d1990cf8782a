// Training on a TensorFlow.js backend gives the numbers of the CPU path (issue 45, step 3): the static encoder's MNRL
// step (loss and gradient of the table rows) and two seeded epochs of its training against the typed-array trainer,
// and NN-SSC's loss and hand-written gradients against tfjs' cpu backend, within PARITY_TOLERANCE. On tfjs' cpu
// backend always; on WebGPU where the opt-in packages are installed and Dawn finds an adapter — a GPU, or on a machine
// without one Chromium's SwiftShader (a CPU Vulkan driver), which runs the same WGSL shaders, so a shader Dawn rejects
// or a NaN fails here as on a GPU. CI installs without the WebGPU packages: there the WebGPU case says why it is skipped.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { backendParity, parityProblems, type ParityReport } from '../lib/train/backend-parity';
import { checkWebgpu, SWIFTSHADER_ICD } from '../lib/tensor/webgpu';
import { getTf, initTfBackend } from '../lib/tensor/backend';
import { buildStaticVocabulary } from '../lib/encode/static';
import { trainStaticModelTf } from '../lib/train/static-tf';
import { disposeNnsscVariables, initNnsscModel, nnsscVariables } from '../lib/train/nnssc-loss';

const EO = path.join(__dirname, '..', 'dist', 'lib', 'cli', 'eo.js');

test("tfjs' cpu backend: the static step, its training and NN-SSC's gradients equal the references within the tolerance", async () => {
  const r = await backendParity('cpu');
  assert.equal(parityProblems(r), [], JSON.stringify(r));
  assert.ok(r.training.curve[1] < r.training.curve[0], 'the training lowers the loss');
  // the checks could fail: a table off by more than the tolerance is reported
  assert.ok(parityProblems({ ...r, training: { ...r.training, maxTableDiff: 1e-3 } }).some((p) => p.startsWith('trained table')));
  assert.ok(parityProblems({ ...r, static: { ...r.static, loss: NaN } }).some((p) => p.startsWith('static step loss')));
});

test('the tfjs static trainer and NN-SSC\'s variables leave no tensor behind (a step\'s hits, the variables\' initial values)', async () => {
  await initTfBackend({ backend: 'cpu', verbose: false });
  const tf = getTf();
  const pairs = Array.from({ length: 120 }, (_, i) => ({ query: `q${i % 17} t${i % 5}`, doc: `d${i % 17} t${i % 5} b${i % 11}`, source: 's' }));
  const vocab = buildStaticVocabulary(pairs.flatMap((p) => [p.query, p.doc]));
  const before = tf.memory();
  await trainStaticModelTf(vocab, pairs, { dim: 8, dims: [8, 4], epochs: 2, batchSize: 20 }, { backend: 'cpu' });
  disposeNnsscVariables(nnsscVariables(initNnsscModel(6, 5, 4, 1)));
  const after = tf.memory();
  assert.equal([after.numTensors, after.numBytes], [before.numTensors, before.numBytes]);
});

test('WebGPU (Dawn): the same numbers within the tolerance, where an adapter exists', async () => {
  const pre = await checkWebgpu({ createGpu: () => ({ requestAdapter: async () => ({ info: {} }) }) });
  if (!pre.ok && (pre.missing === 'NO_PACKAGE' || pre.missing === 'NO_TFJS_BACKEND')) {
    console.log(`  WebGPU parity skipped: ${pre.message}`);
    return;
  }
  // Dawn's Vulkan loader is found through LD_LIBRARY_PATH, read at process start: a child process with SwiftShader's
  // environment when no driver is named and Chromium's SwiftShader is there
  const env = { ...process.env };
  if (!env.VK_DRIVER_FILES && fs.existsSync(SWIFTSHADER_ICD)) {
    env.VK_DRIVER_FILES = SWIFTSHADER_ICD;
    env.LD_LIBRARY_PATH = [path.dirname(SWIFTSHADER_ICD), env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  }
  // `eo gpu check --parity` runs the same comparisons on the adapter it finds (lib/train/backend-parity.ts)
  const child = spawnSync(process.execPath, [EO, 'gpu', 'check', '--parity', '--json'], { env, encoding: 'utf8', timeout: 300_000 });
  if (child.status === 4 && /\[GPU_UNAVAILABLE\]/.test(child.stderr)) {
    console.log(`  WebGPU parity skipped: ${child.stderr.trim().split('\n').pop()}`);
    return;
  }
  assert.is(child.status, 0, child.stderr);
  // (Dawn writes its validation messages to stdout: the JSON is the block from the first line that opens it)
  const out = JSON.parse(child.stdout.slice(child.stdout.startsWith('{') ? 0 : child.stdout.indexOf('\n{') + 1)) as { ok: boolean; parity: ParityReport & { problems: string[] } };
  const r = out.parity;
  assert.is(r.backend, 'webgpu');
  assert.equal(r.problems, []);
  assert.equal(parityProblems(r), [], JSON.stringify(r));
  console.log(`  WebGPU parity on ${r.adapter}: static step loss Δ ${Math.abs(r.static.loss - r.static.lossRef).toExponential(1)}, gradient Δ ${r.static.maxGradDiff.toExponential(1)}, table after 2 epochs Δ ${r.training.maxTableDiff.toExponential(1)}, NN-SSC gradients Δ ${r.nnssc.maxGradDiff.toExponential(1)}`);
});

test.run();
