import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isEoError } from '../lib';
import { encodeOnnxModel, ONNX_FLOAT, openOnnxSession } from '../lib/tensor';

// y = x·W + b and z = relu(y): two outputs, so a run can fetch one of them
const W = new Float32Array([1, -2, 0.5, 3, -1, 4]); // 3×2
const B = new Float32Array([0.25, -0.5]);
const model = () => encodeOnnxModel({
  name: 'affine_relu',
  nodes: [
    { opType: 'MatMul', inputs: ['x', 'w'], outputs: ['xw'] },
    { opType: 'Add', inputs: ['xw', 'b'], outputs: ['y'] },
    { opType: 'Relu', inputs: ['y'], outputs: ['z'] },
  ],
  initializers: [{ name: 'w', dims: [3, 2], data: W }, { name: 'b', dims: [2], data: B }],
  inputs: [{ name: 'x', elemType: ONNX_FLOAT, shape: ['n', 3] }],
  outputs: [{ name: 'y', elemType: ONNX_FLOAT, shape: ['n', 2] }, { name: 'z', elemType: ONNX_FLOAT, shape: ['n', 2] }],
});
const affine = (x: Float32Array) => {
  const out: number[] = [];
  for (let r = 0; r < x.length / 3; r++) for (let c = 0; c < 2; c++) out.push(Math.fround(x[3 * r] * W[c] + x[3 * r + 1] * W[2 + c] + x[3 * r + 2] * W[4 + c] + B[c]));
  return out;
};
const x = new Float32Array([1, 2, 3, -1, 0.5, 2, 0, 0, -4]);
const feeds = { x: { type: 'float32' as const, data: x, dims: [3, 3] } };

test('openOnnxSession: the same outputs on the calling thread and on the onnx worker thread, with fetches', async () => {
  const want = affine(x);
  const caller = await openOnnxSession(model());
  const worker = await openOnnxSession(model(), { thread: 'worker', lane: 'test-a' });
  assert.is(caller.thread, 'caller');
  assert.is(worker.thread, 'worker');
  for (const s of [caller, worker]) {
    const out = await s.run(feeds);
    assert.equal(out.y.dims, [3, 2]);
    Array.from(out.y.data as Float32Array).forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-6, `${s.thread} y[${i}] ${v} vs ${want[i]}`));
    assert.equal(Array.from(out.z.data as Float32Array), Array.from(out.y.data as Float32Array).map((v) => Math.max(0, v)));
    const onlyZ = await s.run(feeds, ['z']);
    assert.equal(Object.keys(onlyZ), ['z'], `${s.thread}: only the fetched output`);
  }
  // the caller's feed buffer is untouched (copied to the worker, not transferred)
  assert.is(x.length, 9);
  assert.is(x[1], 2);
  await caller.release();
  await worker.release();
  for (const s of [caller, worker]) await s.run(feeds).then(() => assert.unreachable('run after release'), (e) => assert.ok(isEoError(e) && e.code === 'INVALID_ARGUMENT'));
});

test('onnx worker: concurrent runs of several sessions and lanes each get their own answer; errors name the cause', async () => {
  const sessions = await Promise.all([
    openOnnxSession(model(), { thread: 'worker', lane: 'test-a' }),
    openOnnxSession(model(), { thread: 'worker', lane: 'test-b' }),
    openOnnxSession(model(), { thread: 'worker', lane: 'test-a' }),
  ]);
  const inputs = Array.from({ length: 24 }, (_, i) => new Float32Array([i, -i, 0.5 * i]));
  const outs = await Promise.all(inputs.map((v, i) => sessions[i % 3].run({ x: { type: 'float32', data: v, dims: [1, 3] } })));
  outs.forEach((o, i) => {
    const want = affine(inputs[i]);
    Array.from(o.y.data as Float32Array).forEach((v, j) => assert.ok(Math.abs(v - want[j]) < 1e-5, `run ${i}`));
  });
  // a bad feed (wrong width) rejects that run with the runtime's reason; the worker keeps serving
  await sessions[0].run({ x: { type: 'float32', data: new Float32Array(4), dims: [1, 4] } }).then(
    () => assert.unreachable('a 4-wide input must fail'),
    (e) => assert.ok(isEoError(e) && e.code === 'ENCODER' && /onnx worker/.test(e.message), String(e)),
  );
  assert.ok((await sessions[0].run(feeds)).y);
  // a model that does not load is refused at open
  await openOnnxSession(new Uint8Array([1, 2, 3]), { thread: 'worker' }).then(() => assert.unreachable('garbage bytes'), (e) => assert.ok(isEoError(e) && e.code === 'ENCODER'));
  await Promise.all(sessions.map((s) => s.release()));
  await openOnnxSession(model(), { intraOpThreads: 0 }).then(() => assert.unreachable('0 threads'), (e) => assert.match(String(e), /intraOpThreads must be a positive integer/));
  await openOnnxSession(new Uint8Array([1, 2, 3])).then(() => assert.unreachable('garbage bytes on the caller'), (e) => assert.ok(isEoError(e) && e.code === 'ENCODER'));
});

test.run();
