import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isEoError } from '../lib';
import { saveCheckpoint, loadCheckpoint, checkpointExists } from '../lib/store';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-ckpt-'));

function sample() {
  return {
    kind: 'nnssc',
    config: { hidden: 4, lr: 1e-4 },
    seed: 42,
    backend: 'wasm',
    dataHash: 'abc123',
    metrics: { epochs: 3, curve: [1, 0.5] },
    tensors: {
      w1: { shape: [2, 3], data: new Float32Array([1, 2, 3, 4, 5, 6]) },
      b1: { shape: [3], data: new Float32Array([-0.5, 0, 0.25]) },
      s: { shape: [], data: new Float32Array([Math.PI]) },
    },
  };
}

function throwsCode(fn: () => unknown, code: string, re?: RegExp) {
  try {
    fn();
  } catch (e) {
    assert.ok(isEoError(e), `not an EoError: ${e}`);
    assert.is((e as any).code, code, (e as Error).message);
    if (re) assert.match((e as Error).message, re);
    return;
  }
  assert.unreachable('did not throw');
}

test('round trip keeps tensors bit-for-bit and the metadata', () => {
  const dir = path.join(tmp, 'a');
  saveCheckpoint(dir, sample());
  assert.ok(checkpointExists(dir));
  const c = loadCheckpoint(dir, { kind: 'nnssc', dataHash: 'abc123' });
  assert.is(c.kind, 'nnssc');
  assert.is(c.seed, 42);
  assert.is(c.backend, 'wasm');
  assert.equal(c.config, { hidden: 4, lr: 1e-4 });
  assert.equal(c.metrics, { epochs: 3, curve: [1, 0.5] });
  assert.equal(c.tensors.w1.shape, [2, 3]);
  assert.equal(Array.from(c.tensors.w1.data), [1, 2, 3, 4, 5, 6]);
  assert.equal(Array.from(c.tensors.b1.data), [-0.5, 0, 0.25]);
  assert.is(c.tensors.s.data[0], Math.fround(Math.PI));
  assert.ok(c.tensors.w1.data instanceof Float32Array);
  assert.ok(!Number.isNaN(Date.parse(c.created)));
  assert.is(c.file, path.join(dir, 'checkpoint.json'));
  // no temp files left behind
  assert.equal(fs.readdirSync(dir).sort(), ['checkpoint.json', 'weights.bin']);
});

test('corruption is refused: flipped byte, truncated weights, bad JSON, missing weights', () => {
  const dir = path.join(tmp, 'b');
  saveCheckpoint(dir, sample());
  const w = path.join(dir, 'weights.bin');
  const orig = fs.readFileSync(w);
  const flipped = Buffer.from(orig);
  flipped[5] ^= 0xff;
  fs.writeFileSync(w, flipped);
  throwsCode(() => loadCheckpoint(dir), 'CACHE_MISMATCH', /weights\.bin: SHA-256 [0-9a-f]{64} differs from [0-9a-f]{64}.*rebuild it: npm start -- --only 04-nnssc$/);
  fs.writeFileSync(w, orig.subarray(0, orig.length - 4));
  throwsCode(() => loadCheckpoint(dir), 'CACHE_MISMATCH', /bytes.*rebuild it: npm start -- --only 04-nnssc$/);
  fs.unlinkSync(w);
  throwsCode(() => loadCheckpoint(dir), 'DATA_INVALID', /missing/);
  fs.writeFileSync(w, orig);
  loadCheckpoint(dir);
  const j = path.join(dir, 'checkpoint.json');
  const text = fs.readFileSync(j, 'utf8');
  fs.writeFileSync(j, text.slice(0, text.length / 2));
  throwsCode(() => loadCheckpoint(dir), 'DATA_INVALID', /checkpoint\.json.*invalid JSON/);
  throwsCode(() => loadCheckpoint(path.join(tmp, 'nothing')), 'DATA_NOT_FOUND');
});

test('mismatched kind or data hash is refused with CACHE_MISMATCH', () => {
  const dir = path.join(tmp, 'c');
  saveCheckpoint(dir, sample());
  throwsCode(() => loadCheckpoint(dir, { kind: 'finetune' }), 'CACHE_MISMATCH', /"nnssc".*"finetune"/);
  throwsCode(() => loadCheckpoint(dir, { dataHash: 'zzz' }), 'CACHE_MISMATCH', /data hash abc123.*rebuild it: npm start -- --only 04-nnssc$/);
});

test('shape/data mismatch is refused at save time', () => {
  const s = sample();
  s.tensors.w1.shape = [4, 4];
  throwsCode(() => saveCheckpoint(path.join(tmp, 'd'), s), 'INVALID_ARGUMENT');
});

test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
test.run();
