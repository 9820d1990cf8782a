import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type SentenceEncoder } from '../lib';
import { microBatchingEncoder } from '../lib/encode';
import { microBatchingScorer, type CorpusScorer } from '../lib/retrieve';
import { createLru, createMicroBatcher } from '../lib/util';

/** A deterministic encoder (vector from the text's characters) that records each call's texts. */
function recordingEncoder(gate?: () => Promise<void>): SentenceEncoder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    id: 'fake-8', dim: 8, calls,
    async embed(texts) {
      calls.push([...texts]);
      if (gate) await gate();
      return texts.map((t) => {
        const v = new Float32Array(8);
        for (let i = 0; i < t.length; i++) v[i % 8] += t.charCodeAt(i) * (1 + (i % 3));
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      });
    },
    dispose() {},
  };
}

/** A manual clock: timers fire only when the test advances time. */
function manualClock() {
  let now = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    timers: {
      setTimeout: (fn: () => void, ms: number) => {
        timers.set(++seq, { at: now + ms, fn });
        return seq;
      },
      clearTimeout: (h: unknown) => void timers.delete(h as number),
    },
    advance(ms: number) {
      now += ms;
      for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at)) if (t.at <= now) {
        timers.delete(id);
        t.fn();
      }
    },
    pending: () => timers.size,
  };
}

const flushMicrotasks = () => new Promise<void>((r) => setImmediate(r));

test('microbatch: 10 concurrent one-text calls become one encoder call with the 10 texts', async () => {
  const inner = recordingEncoder();
  const clock = manualClock();
  const enc = microBatchingEncoder(inner, { maxBatch: 16, maxWaitMs: 5, timers: clock.timers });
  const texts = Array.from({ length: 10 }, (_, i) => `query number ${i} about sea ice`);
  const all = Promise.all(texts.map((t) => enc.embed([t])));
  await flushMicrotasks();
  assert.is(inner.calls.length, 0, 'waits for more texts while under maxBatch');
  clock.advance(5);
  const got = await all;
  assert.equal(inner.calls, [texts]);
  assert.is(enc.stats.calls, 1);
  const direct = await recordingEncoder().embed(texts);
  got.forEach((v, i) => assert.equal([...v[0]], [...direct[i]], 'same vector as unbatched'));
});

test('microbatch: a full batch goes at once; the rest wait for the busy encoder, not for the timer', async () => {
  let open!: () => void;
  const inner = recordingEncoder(() => new Promise<void>((r) => (open = r)));
  const clock = manualClock();
  const enc = microBatchingEncoder(inner, { maxBatch: 4, maxWaitMs: 5, timers: clock.timers });
  const texts = Array.from({ length: 7 }, (_, i) => `t${i}`);
  const all = Promise.all(texts.map((t) => enc.embed([t])));
  await flushMicrotasks();
  assert.equal(inner.calls, [texts.slice(0, 4)], 'the first 4 went without waiting for the clock');
  open();
  await flushMicrotasks();
  assert.equal(inner.calls.length, 2, 'the 3 that waited during the busy call are sent when it ends');
  assert.equal(inner.calls[1], texts.slice(4));
  open();
  const got = await all;
  assert.is(got.length, 7);
  assert.is(enc.stats.largestBatch, 4);
});

test('microbatch: a lone request is sent after maxWaitMs, not later', async () => {
  const inner = recordingEncoder();
  const clock = manualClock();
  const enc = microBatchingEncoder(inner, { maxWaitMs: 5, timers: clock.timers });
  let done = false;
  const p = enc.embed(['alone']).then((v) => ((done = true), v));
  await flushMicrotasks();
  clock.advance(4);
  await flushMicrotasks();
  assert.is(inner.calls.length, 0);
  assert.is(done, false);
  clock.advance(1);
  await p;
  assert.equal(inner.calls, [['alone']], 'sent exactly at maxWaitMs');
  assert.is(clock.pending(), 0, 'no timer left behind');
});

test('microbatch: results equal the unbatched encoder, in order, for mixed calls, duplicates and repeats (LRU)', async () => {
  const inner = recordingEncoder();
  const enc = microBatchingEncoder(inner, { maxBatch: 3, maxWaitMs: 0, cacheEntries: 2 });
  const calls = [['a b', 'c'], ['d'], ['a b'], ['e', 'f', 'g', 'h'], ['c']];
  const got = await Promise.all(calls.map((c) => enc.embed(c)));
  const ref = recordingEncoder();
  for (let i = 0; i < calls.length; i++) {
    const want = await ref.embed(calls[i]);
    assert.equal(got[i].map((v) => [...v]), want.map((v) => [...v]), `call ${i}`);
  }
  const embedded = inner.calls.flat();
  assert.is(embedded.filter((t) => t === 'a b').length, 1, 'identical concurrent text embedded once');
  assert.ok(inner.calls.some((c) => c.length === 4), 'a call of ≥ maxBatch texts goes straight through');
  const before = inner.calls.length;
  await enc.embed(['d']);
  assert.is(inner.calls.length, before, 'a recent text comes from the LRU');
  got[0][0][0] = 99;
  assert.not.equal((await enc.embed(['a b']))[0][0], 99, 'callers get copies');
});

test('microbatch: an encoder failure rejects every caller of that batch, and later calls still work', async () => {
  let fail = true;
  const inner = recordingEncoder(async () => {
    if (fail) throw new Error('boom');
  });
  const enc = microBatchingEncoder(inner, { maxWaitMs: 0 });
  const r = await Promise.allSettled([enc.embed(['x']), enc.embed(['y'])]);
  assert.equal(r.map((x) => x.status), ['rejected', 'rejected']);
  fail = false;
  assert.is((await enc.embed(['x']))[0].length, 8);
});

test('microbatch: by default an idle batcher sends at the end of the event-loop turn (no timer wait); same-turn items share the call', async () => {
  const calls: string[][] = [];
  let release!: () => void;
  const b = createMicroBatcher<string, string>(async (items) => {
    calls.push([...items]);
    if (calls.length === 1) await new Promise<void>((r) => (release = r));
    return items.map((x) => x.toUpperCase());
  });
  const first = [b.submit('a'), b.submit('b')];
  await flushMicrotasks(); // one setImmediate turn: no millisecond timer had to fire
  assert.equal(calls, [['a', 'b']], 'sent within the same turn, together');
  // while busy, later items gather and go together as soon as it is free
  const later = [b.submit('c'), b.submit('d'), b.submit('e')];
  await flushMicrotasks();
  assert.is(calls.length, 1, 'nothing sent while the first call runs');
  release();
  assert.equal(await Promise.all([...first, ...later]), ['A', 'B', 'C', 'D', 'E']);
  assert.equal(calls, [['a', 'b'], ['c', 'd', 'e']]);
});

test('micro-batcher concurrency 2: a second batch starts while the first runs; a bulk call waits for both and runs alone', async () => {
  const gates: (() => void)[] = [];
  const log: string[] = [];
  let running = 0;
  let most = 0;
  const b = createMicroBatcher<number, number>(async (items) => {
    running++;
    most = Math.max(most, running);
    log.push(`start ${items.join(',')}`);
    await new Promise<void>((r) => gates.push(r));
    running--;
    return items.map((x) => 10 * x);
  }, { maxBatch: 2, concurrency: 2 });
  const first = [1, 2, 3, 4, 5].map((x) => b.submit(x));
  await new Promise((r) => setImmediate(r));
  // 1,2 and 3,4 are in flight at once; 5 waits for a free slot
  assert.equal(log, ['start 1,2', 'start 3,4']);
  let bulkRan = false;
  const bulk = b.exclusive(async () => {
    assert.is(running, 0, 'the bulk call runs alone');
    bulkRan = true;
    return 'bulk';
  });
  gates.shift()!();
  await first[1];
  await new Promise((r) => setImmediate(r));
  // a bulk call is waiting: no new batch starts until it has run
  assert.equal(log, ['start 1,2', 'start 3,4']);
  gates.shift()!();
  assert.is(await bulk, 'bulk');
  assert.ok(bulkRan);
  await new Promise((r) => setImmediate(r));
  assert.equal(log, ['start 1,2', 'start 3,4', 'start 5']);
  gates.shift()!();
  assert.equal(await Promise.all(first), [10, 20, 30, 40, 50]);
  assert.is(most, 2);
  assert.throws(() => createMicroBatcher(async (x: number[]) => x, { concurrency: 0 }), /concurrency must be an integer ≥ 1/);
});

test('LRU: evicts the least recently used; get refreshes recency; 0 keeps nothing', () => {
  const lru = createLru<string, number>(3);
  lru.set('a', 1);
  lru.set('b', 2);
  lru.set('c', 3);
  assert.is(lru.get('a'), 1);
  lru.set('d', 4);
  assert.equal(lru.keys(), ['c', 'a', 'd'], 'b was least recent');
  lru.set('c', 30);
  lru.set('e', 5);
  assert.equal(lru.keys(), ['d', 'c', 'e']);
  assert.is(lru.get('a'), undefined);
  assert.is(lru.size, 3);
  const none = createLru<string, number>(0);
  none.set('x', 1);
  assert.is(none.get('x'), undefined);
  assert.throws(() => createLru(-1), /maxEntries/);
});

test('microbatch scorer: concurrent one-query calls become one scoreBatch with identical scores; multi-query calls go through', async () => {
  const calls: string[][] = [];
  const inner: CorpusScorer = {
    id: 'len', label: 'length scorer', fingerprint: 'len-v1',
    async scoreBatch(texts) {
      calls.push([...texts]);
      return texts.map((t) => Float32Array.from([t.length, t.charCodeAt(0), 1 / t.length]));
    },
  };
  const clock = manualClock();
  const s = microBatchingScorer(inner, { maxWaitMs: 5, timers: clock.timers });
  assert.is(s.fingerprint, 'len-v1');
  const qs = ['ozone', 'sea ice', 'rain over Kenya', 'ozone'];
  const all = Promise.all(qs.map((q) => s.scoreBatch([q])));
  await flushMicrotasks();
  assert.is(calls.length, 0);
  clock.advance(5);
  const got = await all;
  assert.equal(calls, [qs]);
  const want = await inner.scoreBatch(qs);
  got.forEach((g, i) => assert.equal([...g[0]], [...want[i]]));
  calls.length = 0;
  await s.scoreBatch(['a', 'bb']);
  assert.equal(calls, [['a', 'bb']]);
});

test('microbatch scorer: a bulk call reaches the wrapped scorer maxBatch queries at a time, in order, with its progress', async () => {
  const calls: string[][] = [];
  const inner: CorpusScorer = {
    id: 'len', label: 'length scorer',
    async scoreBatch(texts) {
      calls.push([...texts]);
      return texts.map((t) => Float32Array.from([t.length, t.charCodeAt(t.length - 1)]));
    },
  };
  const s = microBatchingScorer(inner, { maxBatch: 4 });
  const texts = Array.from({ length: 11 }, (_, i) => `query ${i}`);
  const progress: number[] = [];
  const got = await s.scoreBatch(texts, (done, total) => {
    assert.is(total, 11);
    progress.push(done);
  });
  assert.equal(calls.map((c) => c.length), [4, 4, 3]);
  assert.equal(calls.flat(), texts);
  assert.equal(progress, [4, 8, 11]);
  assert.is(got.length, 11);
  got.forEach((g, i) => assert.equal([...g], [texts[i].length, texts[i].charCodeAt(texts[i].length - 1)]));
});

test.run();
