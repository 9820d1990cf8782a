import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { l2NormalizeRows } from '../lib/encode';
import { mineHardNegatives, sampleRandomNegatives, batchesWithoutDuplicates } from '../lib/train';
import { mulberry32 } from '../lib/util';

function randomUnit(rows: number, dim: number, seed: number): Float32Array {
  const rng = mulberry32(seed);
  const m = new Float32Array(rows * dim);
  for (let i = 0; i < m.length; i++) m[i] = rng() * 2 - 1;
  return l2NormalizeRows(m, dim);
}

test('hard negatives: nearest first, positives excluded, ties by lower index', () => {
  // corpus rows on a 2-d unit circle; the query is (1, 0)
  const corpus = new Float32Array([1, 0, 0, 1, 1, 0, Math.SQRT1_2, Math.SQRT1_2, -1, 0]);
  const q = new Float32Array([1, 0]);
  // positives: row 0 (exact match). Row 2 ties with row 0 and must come first; then row 3, then row 1.
  const neg = mineHardNegatives({ queryVecs: q, corpusMatrix: corpus, dim: 2, positives: [[0]], k: 3 });
  assert.equal(neg, [[2, 3, 1]]);
  // ties between two non-positives: the lower index first
  const neg2 = mineHardNegatives({ queryVecs: q, corpusMatrix: corpus, dim: 2, positives: [[]], k: 2 });
  assert.equal(neg2, [[0, 2]]);
  // k larger than the available rows
  const neg3 = mineHardNegatives({ queryVecs: q, corpusMatrix: corpus, dim: 2, positives: [[0, 1]], k: 10 });
  assert.equal(neg3, [[2, 3, 4]]);
});

test('hard negatives never include positives and match a brute-force sort', () => {
  const dim = 8;
  const corpus = randomUnit(200, dim, 1);
  const queries = randomUnit(20, dim, 2);
  const rng = mulberry32(3);
  const positives = Array.from({ length: 20 }, () => Array.from({ length: 5 }, () => Math.floor(rng() * 200)));
  const neg = mineHardNegatives({ queryVecs: queries, corpusMatrix: corpus, dim, positives, k: 10 });
  neg.forEach((list, qi) => {
    assert.is(list.length, 10);
    const pos = new Set(positives[qi]);
    for (const j of list) assert.not.ok(pos.has(j), `positive ${j} returned as a negative of query ${qi}`);
    assert.is(new Set(list).size, list.length);
    const scored = Array.from({ length: 200 }, (_, j) => {
      let s = 0;
      for (let t = 0; t < dim; t++) s += queries[qi * dim + t] * corpus[j * dim + t];
      return { j, s };
    })
      .filter((x) => !pos.has(x.j))
      .sort((a, b) => b.s - a.s || a.j - b.j);
    assert.equal(list, scored.slice(0, 10).map((x) => x.j));
  });
});

test('random negatives: distinct, never excluded, deterministic, capped', () => {
  const exclude = new Set([0, 1, 2, 50]);
  const a = sampleRandomNegatives(10, 100, exclude, mulberry32(7));
  const b = sampleRandomNegatives(10, 100, exclude, mulberry32(7));
  assert.equal(a, b);
  assert.is(a.length, 10);
  assert.is(new Set(a).size, 10);
  for (const i of a) assert.ok(i >= 0 && i < 100 && !exclude.has(i));
  // dense case and capping
  const c = sampleRandomNegatives(10, 6, new Set([1, 3]), mulberry32(1));
  assert.equal([...c].sort(), [0, 2, 4, 5]);
  assert.equal(sampleRandomNegatives(3, 2, new Set([0, 1]), mulberry32(1)), []);
});

test('batches without duplicate keys: every item once, no key twice in a batch', () => {
  const rng = mulberry32(11);
  const items = Array.from({ length: 300 }, (_, i) => ({ i, key: Math.floor(rng() * 40) }));
  const batches = batchesWithoutDuplicates(items, 16, (t) => t.key, mulberry32(5));
  const seen = new Set<number>();
  for (const b of batches) {
    assert.ok(b.length >= 1 && b.length <= 16);
    const keys = new Set(b.map((t) => t.key));
    assert.is(keys.size, b.length, 'duplicate key in a batch');
    for (const t of b) {
      assert.not.ok(seen.has(t.i));
      seen.add(t.i);
    }
  }
  assert.is(seen.size, 300);
  // deterministic for a seed; different for another
  const again = batchesWithoutDuplicates(items, 16, (t) => t.key, mulberry32(5));
  assert.equal(again.map((b) => b.map((t) => t.i)), batches.map((b) => b.map((t) => t.i)));
  // one key only: batches of one
  const same = batchesWithoutDuplicates([1, 2, 3], 8, () => 'k', mulberry32(1));
  assert.equal(same.map((b) => b.length), [1, 1, 1]);
  assert.equal(batchesWithoutDuplicates([], 4, (x: number) => x, mulberry32(1)), []);
});

test.run();
