import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { batchScoreFile, withBatchScoreCache } from '../lib/retrieve/score-cache';
import type { CorpusScorer } from '../lib/retrieve/scorers';

/** A deterministic scorer over `rows` datasets that counts the texts it scored. */
function countingScorer(rows: number, fingerprint = 'toy:v1') {
  const calls: string[][] = [];
  const scorer: CorpusScorer & { calls: string[][] } = {
    id: 'toy', label: 'Toy', fingerprint, calls,
    async scoreBatch(texts) {
      calls.push([...texts]);
      return texts.map((t) => Float32Array.from({ length: rows }, (_, j) => Math.sin(t.length * 7.1 + j * 0.37 + fingerprint.length) / 3));
    },
  };
  return scorer;
}

const texts = (n: number, tag = 'q') => Array.from({ length: n }, (_, i) => `${tag} ${i} ${'x'.repeat(i % 5)}`);

test('a batch is scored once and read back: the same float32 vectors, fresh arrays each call; small batches are never kept', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-score-cache-'));
  try {
    const inner = countingScorer(50);
    const cached = withBatchScoreCache(inner, { dir, corpusKey: 'corpus-a', rows: 50, minBatch: 4 });
    assert.is(cached.fingerprint, inner.fingerprint);
    const first = await cached.scoreBatch(texts(6));
    const again = await cached.scoreBatch(texts(6));
    assert.is(inner.calls.length, 1, 'the second call read the kept batch');
    assert.equal(again.map((v) => Array.from(v)), first.map((v) => Array.from(v)));
    again[0][0] = 99;
    assert.is.not((await cached.scoreBatch(texts(6)))[0][0], 99, 'a caller writing into its vectors changes nothing kept');
    // another order, another corpus or another scorer is another batch
    await cached.scoreBatch(texts(6).reverse());
    await withBatchScoreCache(inner, { dir, corpusKey: 'corpus-b', rows: 50, minBatch: 4 }).scoreBatch(texts(6));
    assert.is(inner.calls.length, 3);
    // fewer than minBatch texts: scored every time, nothing written
    const files = fs.readdirSync(dir).length;
    await cached.scoreBatch(texts(3));
    await cached.scoreBatch(texts(3));
    assert.is(inner.calls.length, 5);
    assert.is(fs.readdirSync(dir).length, files);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a damaged or torn kept batch is scored again and replaced; a retrained scorer removes the batches of the old one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-score-cache-'));
  try {
    const inner = countingScorer(20);
    const opts = { dir, corpusKey: 'c', rows: 20, minBatch: 2 };
    const cached = withBatchScoreCache(inner, opts);
    const truth = (await cached.scoreBatch(texts(4))).map((v) => Array.from(v));
    const file = batchScoreFile(inner, texts(4), opts);
    const bytes = fs.readFileSync(file);
    bytes[5] ^= 0x40; // one flipped bit of the payload: the digest no longer matches
    fs.writeFileSync(file, bytes);
    assert.equal((await cached.scoreBatch(texts(4))).map((v) => Array.from(v)), truth);
    assert.is(inner.calls.length, 2, 'the damaged batch was scored again');
    fs.writeFileSync(file, fs.readFileSync(file).subarray(0, 100)); // torn
    assert.equal((await cached.scoreBatch(texts(4))).map((v) => Array.from(v)), truth);
    assert.is(inner.calls.length, 3);
    assert.equal((await cached.scoreBatch(texts(4))).map((v) => Array.from(v)), truth);
    assert.is(inner.calls.length, 3, 'the replaced batch is read');
    // the model retrained (another fingerprint): its first batch written, the old scorer's batches go
    const retrained = withBatchScoreCache(countingScorer(20, 'toy:v2'), opts);
    await retrained.scoreBatch(texts(4));
    assert.not.ok(fs.existsSync(file));
    assert.not.ok(fs.existsSync(file.replace(/\.f32$/, '.json')));
    assert.equal(fs.readdirSync(dir).map((f) => f.replace(/\.(f32|json)$/, '')).filter((f, i, a) => a.indexOf(f) === i).length, 1, 'one batch left: the retrained scorer\'s');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a key made by a function is asked once, and only when a batch is kept or read', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-score-cache-'));
  try {
    let asked = 0;
    const inner = countingScorer(8);
    const cached = withBatchScoreCache(inner, { dir, corpusKey: () => `matrix-${++asked}`, rows: 8, minBatch: 3 });
    await cached.scoreBatch(texts(2));
    assert.is(asked, 0, 'a small batch needs no key');
    await cached.scoreBatch(texts(5));
    await cached.scoreBatch(texts(5));
    assert.is(asked, 1);
    assert.is(inner.calls.length, 2, 'the second batch of five was read');
    assert.ok(fs.existsSync(batchScoreFile(inner, texts(5), { dir, corpusKey: 'matrix-1' })));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
