import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { isEoError, type SentenceEncoder } from '../lib';
import {
  loadUseLite, loadUseLiteModel, runUseLite, defaultUseLiteDir, loadUseTokenizer, tokenizeUse, useTokenPieces,
  normalizeForUse, embedCorpusCached, embedQueriesCached, embeddingCachePaths, hashTexts, readEmbeddingCache,
  findEmbeddingCache, writeEmbeddingCache, dotProduct, USE_LITE_DIM, workerEncoder, type EmbeddingCacheMeta
} from '../lib/encode';
import { initTfBackend, parseTfBackendName, tfBackendInfo } from '../lib/tensor';

// This file tests USE-lite on TensorFlow.js (test/use-lite-onnx.test.ts the onnx runtime, now the default).
process.env.EO_USE_LITE_RUNTIME = 'tfjs';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'eo-enc-'));
const norm = (v: Float32Array) => Math.sqrt(dotProduct(v, v));
/** Vectors agree to float32 noise (batch composition changes the last bits, ~1e-7). */
function near(a: Float32Array, b: Float32Array, eps = 1e-5, what = '') {
  assert.is(a.length, b.length, `${what} length`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  assert.ok(worst < eps, `${what} differs by ${worst}`);
}

// ---------------------------------------------------------------- tokenizer (no model needed)

const tok = loadUseTokenizer(path.join(defaultUseLiteDir(), 'vocab.json'));

test('tokenizer: known ids and pieces', () => {
  // ids cross-checked against a literal port of tfjs-models' USE tokenizer on 11.5k snapshot texts
  assert.equal(tokenizeUse(tok, 'Hello world'), [341, 4125, 311]);
  assert.equal(useTokenPieces(tok, [341, 4125, 311]), ['▁H', 'ello', '▁world']);
  assert.equal(tokenizeUse(tok, 'sea surface temperature'), [2720, 3675, 3796]);
  assert.equal(
    useTokenPieces(tok, tokenizeUse(tok, 'MODIS/Terra Aerosol')),
    ['▁MO', 'D', 'IS', '/', 'T', 'er', 'ra', '▁A', 'ero', 's', 'ol'],
  );
  assert.equal(tokenizeUse(tok, 'naïve café'), [1216, 0, 105, 976, 209, 1133]); // 'ï' is unknown (id 0)
});

test('tokenizer: normalisation, unknown merging, empty input', () => {
  assert.is(normalizeForUse('a b'), '▁a▁b');
  assert.is(normalizeForUse(''), '');
  // NFKC folds the 'ﬁ' ligature
  assert.equal(tokenizeUse(tok, 'ﬁne'), tokenizeUse(tok, 'fine'));
  // consecutive unknown characters become one unknown id
  assert.equal(tokenizeUse(tok, '日本語 テスト'), [30, 0, 30, 0]);
  assert.equal(tokenizeUse(tok, ''), []);
  // two spaces give two word-start markers
  assert.ok(tokenizeUse(tok, 'a  b').length > tokenizeUse(tok, 'a b').length);
});

// ---------------------------------------------------------------- the encoder (loaded once)

let enc: SentenceEncoder;
let loadMs = 0;

test('USE-lite loads offline from the installed package on the wasm backend', async () => {
  const t0 = Date.now();
  enc = await loadUseLite();
  loadMs = Date.now() - t0;
  assert.is(enc.dim, 512);
  assert.is(USE_LITE_DIM, 512);
  assert.is(enc.id, 'use-lite-512@energetic-ai-0.2.0');
  const info = tfBackendInfo();
  assert.ok(info);
  if (!process.env.EO_TF_BACKEND) assert.is(info!.name, 'wasm');
  assert.is(enc.backend, info!.name);
  assert.equal(enc.spec, { kind: 'use-lite', options: { warmup: false } });
});

test('embeddings: 512-d, unit norm, deterministic, semantically sensible', async () => {
  const texts = [
    'Sea surface temperature from satellite observations',
    'Ocean temperature measured by satellites',
    'Corn yield per county in Iowa',
    'Sea surface temperature from satellite observations',
  ];
  const v = await enc.embed(texts);
  assert.is(v.length, 4);
  for (const x of v) {
    assert.is(x.length, 512);
    assert.ok(Math.abs(norm(x) - 1) < 1e-5, `norm ${norm(x)}`);
  }
  assert.equal(Array.from(v[0]), Array.from(v[3]));
  const again = await enc.embed(texts); // same input, same batch → bit-identical
  for (let i = 0; i < 4; i++) assert.equal(Array.from(again[i]), Array.from(v[i]));
  near((await enc.embed([texts[0]]))[0], v[0], 1e-5, 'alone vs in a batch');
  const close = dotProduct(v[0], v[1]);
  const far = dotProduct(v[0], v[2]);
  assert.ok(close > far + 0.2, `close ${close} vs far ${far}`);
});

test('empty texts keep their row; batching does not change vectors', async () => {
  const small = await loadUseLite({ batchSize: 2, warmup: false });
  const texts = ['aerosol optical depth', '', 'precipitation', '   ', 'snow cover', ''];
  const a = await enc.embed(texts);
  const b = await small.embed(texts);
  small.dispose();
  assert.is(a.length, 6);
  assert.is(b.length, 6);
  for (let i = 0; i < 6; i++) {
    assert.ok(Math.abs(norm(a[i]) - 1) < 1e-5);
    near(a[i], b[i], 1e-5, `row ${i}`);
  }
  try {
    await small.embed(['x']);
    assert.unreachable('disposed');
  } catch (e) {
    assert.ok(isEoError(e, 'ENCODER'));
  }
});

test('the graph clips at 128 tokens', async () => {
  const m = await loadUseLiteModel();
  const ids = Array.from({ length: 200 }, (_, i) => 6 + (i % 50));
  const [long, clipped, shorter] = await runUseLite(m, [ids, ids.slice(0, 128), ids.slice(0, 127)]);
  m.model.dispose();
  assert.equal(Array.from(long), Array.from(clipped));
  assert.not.equal(Array.from(shorter), Array.from(clipped));
});

// ---------------------------------------------------------------- cache

/** Wraps an encoder and counts the texts it embeds; can fail after `failAfter` calls. */
function spy(inner: SentenceEncoder, failAfter = Infinity) {
  const s = { calls: 0, texts: 0 };
  const e: SentenceEncoder = {
    id: inner.id,
    dim: inner.dim,
    backend: inner.backend,
    embed: async (texts) => {
      if (s.calls >= failAfter) throw new Error('simulated crash');
      s.calls++;
      s.texts += texts.length;
      return inner.embed(texts);
    },
    dispose: () => {},
  };
  return { e, s };
}

const cacheTexts = Array.from({ length: 10 }, (_, i) => `dataset number ${i} about ${['ozone', 'snow', 'fires', 'soil moisture', 'sea ice'][i % 5]}`);

test('cache: round trip, files and metadata', async () => {
  const dir = tmp();
  const { e, s } = spy(enc);
  const progress: number[] = [];
  const m1 = await embedCorpusCached({ encoder: e, texts: cacheTexts, key: 'abc123', cacheDir: dir, chunkSize: 4, onProgress: (d) => progress.push(d) });
  assert.is(m1.length, 10 * 512);
  assert.is(s.calls, 3);
  assert.equal(progress, [0, 4, 8, 10]);
  const direct = await enc.embed([cacheTexts[9]]);
  near(m1.subarray(9 * 512), direct[0]);
  const p = embeddingCachePaths(dir, enc.id, 'abc123', hashTexts(cacheTexts));
  assert.ok(fs.existsSync(p.data));
  assert.ok(!fs.existsSync(p.partial));
  assert.is(fs.statSync(p.data).size, 10 * 512 * 4);
  const meta: EmbeddingCacheMeta = JSON.parse(fs.readFileSync(p.meta, 'utf8'));
  assert.is(meta.encoderId, enc.id);
  assert.is(meta.count, 10);
  assert.is(meta.dim, 512);
  assert.is(meta.key, 'abc123');
  assert.is(meta.textHash, hashTexts(cacheTexts));
  assert.is(meta.backend, enc.backend);
  // second call: no embedding at all
  const m2 = await embedCorpusCached({ encoder: e, texts: cacheTexts, key: 'abc123', cacheDir: dir });
  assert.is(s.calls, 3);
  assert.equal(Array.from(m2), Array.from(m1));
  // usable without an encoder
  const found = findEmbeddingCache({ encoderId: enc.id, dim: 512, texts: cacheTexts, key: 'abc123', cacheDir: dir });
  assert.equal(Array.from(found!.matrix), Array.from(m1));
  assert.is(findEmbeddingCache({ encoderId: enc.id, dim: 512, texts: cacheTexts.slice(1), key: 'abc123', cacheDir: dir }), null);
  // other texts → other file
  assert.is.not(hashTexts(cacheTexts), hashTexts([...cacheTexts.slice(0, 9), 'changed']));
  assert.is.not(hashTexts(['ab', 'c']), hashTexts(['a', 'bc']));
});

test('cache: a crash loses at most one chunk and a rerun resumes', async () => {
  const dir = tmp();
  const crashing = spy(enc, 2); // two chunks succeed, the third throws
  try {
    await embedCorpusCached({ encoder: crashing.e, texts: cacheTexts, key: 'k', cacheDir: dir, chunkSize: 3 });
    assert.unreachable('should crash');
  } catch (e) {
    assert.match((e as Error).message, /simulated crash/);
  }
  const p = embeddingCachePaths(dir, enc.id, 'k', hashTexts(cacheTexts));
  assert.ok(!fs.existsSync(p.meta));
  assert.is(fs.readdirSync(p.partial).filter((f) => f.endsWith('.f32')).length, 2);
  // rerun with another chunk size: the partial's chunk size (3) wins, so only 4 texts remain
  const resumed = spy(enc);
  const seen: Array<[number, number]> = [];
  const m = await embedCorpusCached({ encoder: resumed.e, texts: cacheTexts, key: 'k', cacheDir: dir, chunkSize: 5, onProgress: (d, t) => seen.push([d, t]) });
  assert.is(resumed.s.texts, 4);
  assert.equal(seen[0], [6, 10]);
  assert.equal(seen[seen.length - 1], [10, 10]);
  const full = await embedCorpusCached({ encoder: enc, texts: cacheTexts, key: 'k', noCache: true, chunkSize: 3 });
  assert.equal(Array.from(m), Array.from(full)); // same chunks, same batches: bit-identical
  assert.ok(!fs.existsSync(p.partial));
});

test('cache: mismatched size or key is refused with CACHE_MISMATCH', async () => {
  const dir = tmp();
  const texts = cacheTexts.slice(0, 3);
  await embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir: dir });
  const p = embeddingCachePaths(dir, enc.id, 'corp', hashTexts(texts));
  // truncated data file
  fs.writeFileSync(p.data, fs.readFileSync(p.data).subarray(0, 100));
  try {
    await embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir: dir });
    assert.unreachable('should refuse');
  } catch (e) {
    assert.ok(isEoError(e, 'CACHE_MISMATCH'));
    assert.match((e as Error).message, /byte size is 100, expected 6144/);
  }
  // rebuild on request
  const m = await embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir: dir, onMismatch: 'rebuild' });
  assert.is(m.length, 3 * 512);
  assert.is(fs.statSync(p.data).size, 3 * 512 * 4);
  // metadata from another key / encoder
  const meta = JSON.parse(fs.readFileSync(p.meta, 'utf8'));
  fs.writeFileSync(p.meta, JSON.stringify({ ...meta, key: 'other' }));
  assert.throws(
    () => readEmbeddingCache(p, { encoderId: enc.id, dim: 512, count: 3, key: 'corp', textHash: hashTexts(texts) }),
    (e: unknown) => isEoError(e, 'CACHE_MISMATCH') && /key is "other", expected "corp"/.test((e as Error).message),
  );
  fs.writeFileSync(p.meta, JSON.stringify({ ...meta, encoderId: 'some-other-encoder' }));
  try {
    await embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir: dir });
    assert.unreachable('should refuse');
  } catch (e) {
    assert.ok(isEoError(e, 'CACHE_MISMATCH'));
    assert.match((e as Error).message, /encoderId is "some-other-encoder"/);
  }
  // a bad key is an argument error
  try {
    await embedCorpusCached({ encoder: enc, texts, key: '../x', cacheDir: dir });
    assert.unreachable('bad key');
  } catch (e) {
    assert.ok(isEoError(e, 'INVALID_ARGUMENT'));
  }
});

test('cache: another live process holding the lock is waited for; a dead one is taken over', async () => {
  const dir = tmp();
  const texts = cacheTexts.slice(0, 2);
  const textHash = hashTexts(texts);
  const p = embeddingCachePaths(dir, enc.id, 'lk', textHash);
  fs.mkdirSync(dir, { recursive: true });
  const holdBy = (pid: number) => fs.writeFileSync(p.lock, JSON.stringify({ pid, host: os.hostname(), started: new Date().toISOString() }));
  // a live other process (our parent) holds it
  holdBy(process.ppid);
  try {
    await embedCorpusCached({ encoder: enc, texts, key: 'lk', cacheDir: dir, waitForOther: false });
    assert.unreachable('locked');
  } catch (e) {
    assert.ok(isEoError(e, 'CONFIG'));
    assert.match((e as Error).message, /already embedding these texts/);
  }
  // waiting: the "other process" finishes with a known matrix, which the waiter then returns
  const { e, s } = spy(enc);
  const waiting = embedCorpusCached({ encoder: e, texts, key: 'lk', cacheDir: dir });
  const marker = new Float32Array(2 * 512).fill(0.5);
  setTimeout(() => {
    writeEmbeddingCache(p, marker, { format: 'eo-embeddings/1', encoderId: enc.id, dim: 512, count: 2, key: 'lk', textHash, created: new Date().toISOString(), backend: null, dtype: 'float32-le' });
    fs.rmSync(p.lock);
  }, 300);
  const got = await waiting;
  assert.is(s.calls, 0);
  assert.equal(Array.from(got), Array.from(marker));
  // a lock left by a dead process is taken over
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  const dir2 = tmp();
  const p2 = embeddingCachePaths(dir2, enc.id, 'lk', textHash);
  fs.mkdirSync(dir2, { recursive: true });
  fs.writeFileSync(p2.lock, JSON.stringify({ pid: Number(dead), host: os.hostname(), started: '' }));
  const m = await embedCorpusCached({ encoder: enc, texts, key: 'lk', cacheDir: dir2, waitForOther: false });
  assert.is(m.length, 2 * 512);
  assert.ok(!fs.existsSync(p2.lock));
});

test('query cache: second call embeds nothing', async () => {
  const dir = tmp();
  const { e, s } = spy(enc);
  const qs = ['arctic sea ice extent', 'wildfire smoke aerosols'];
  const a = await embedQueriesCached({ encoder: e, texts: qs, cacheDir: dir });
  const b = await embedQueriesCached({ encoder: e, texts: qs, cacheDir: dir });
  assert.is(s.texts, 2);
  assert.equal(Array.from(a), Array.from(b));
  assert.is(a.length, 2 * 512);
});

test('two worker threads give the same matrix as one thread', async () => {
  const texts = cacheTexts.slice(0, 6);
  const one = await embedCorpusCached({ encoder: enc, texts, key: 'w', noCache: true });
  const two = await embedCorpusCached({ encoder: enc, texts, key: 'w', cacheDir: tmp(), chunkSize: 2, workers: 2 });
  near(one, two, 1e-5, 'workers');
});

test('workerEncoder: the same vectors as the encoder on the event loop; used after dispose it refuses', async () => {
  const texts = ['arctic sea ice extent', 'wildfire smoke aerosols over California', 'soil moisture'];
  const w = await workerEncoder(enc.spec!, { expectId: enc.id });
  assert.is(w.id, enc.id);
  assert.is(w.dim, enc.dim);
  const [fromWorker, here] = [await w.embed(texts), await enc.embed(texts)];
  const again = await Promise.all(texts.map((t) => w.embed([t]))); // several calls in flight, answered in order
  texts.forEach((_, i) => {
    near(fromWorker[i], here[i], 1e-6, `worker text ${i}`);
    near(again[i][0], here[i], 1e-5, `worker single text ${i}`);
  });
  w.dispose();
  await w.embed(['x']).then(() => assert.unreachable('embed after dispose'), (e) => assert.ok(isEoError(e) && e.code === 'ENCODER'));
});

// ---------------------------------------------------------------- backend selection

test('backend names, forcing and failures', async () => {
  assert.is(parseTfBackendName(' WASM '), 'wasm');
  assert.throws(() => parseTfBackendName('gpu'), (e: unknown) => isEoError(e, 'CONFIG'));
  // tfjs-node is not installed here: forcing it fails clearly
  let nodeInstalled = true;
  try {
    require.resolve('@tensorflow/tfjs-node');
  } catch {
    nodeInstalled = false;
  }
  if (!nodeInstalled) {
    try {
      await initTfBackend({ backend: 'node' });
      assert.unreachable('node backend is not installed');
    } catch (e) {
      assert.ok(isEoError(e, 'ENCODER'));
      assert.match((e as Error).message, /@tensorflow\/tfjs-node is not installed/);
    }
  }
  const cpu = await initTfBackend({ backend: 'cpu' });
  assert.is(cpu.name, 'cpu');
  assert.is(cpu.forced, true);
  const back = await initTfBackend({ backend: 'wasm' });
  assert.is(back.name, 'wasm');
  assert.is(back.simd, true);
});

test.after(() => {
  enc?.dispose();
  if (process.env.EO_TEST_VERBOSE) console.log(`USE-lite load ${loadMs} ms`);
});

test.run();
