// The fault suite (issue 22): writes on a full disk and into read-only folders are whole or absent, every cache kind
// refuses a flipped byte, truncated or non-gzip inputs name their file, and append-only logs survive torn and corrupt
// lines. Each case asserts the error code, that the message names the file, and that no partial or temp file remains.
// A small disk is a real size-limited tmpfs where this process may mount one (root with CAP_SYS_ADMIN), else the
// writer's fault hook; a read-only folder is a read-only tmpfs mount, else the hook (root ignores chmod 0o555).
// EO_FAULTS_NO_MOUNT=1 takes the hook path where mounting works, to test it too.
// run-tests: not beside notebook.test.ts (it damages the repository's sample BM25 cache on purpose and rebuilds it,
// while a notebook may be loading it)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import * as net from 'node:net';
import { createSearchServer, isEoError, loadSnapshot, type EoError } from '../lib';
import { createSearchEngine } from '../lib/search';
import { benchmarkSettings, benchmarkSplit, buildBenchmark, titleQueryWriter } from '../lib/bench';
import { embedCorpusCached, embeddingCachePaths, hashTexts } from '../lib/encode';
import { describeFusionRecord, fusionAlpha } from '../lib/search';
import { loadCheckpoint, saveCheckpoint } from '../lib/store';
import { repoRoot, writeFileAtomic } from '../lib/util';
import { loadBenchmark, saveBenchmark } from '../lib/bench/export';
import { formatCacheCheck, rebuildBm25Cache, rebuildEmbeddingCache, verifyCaches } from '../lib/cli/cache';
import { datasetEncoderText } from '../lib/data/text';
import { readBatchLogChecked } from '../lib/llm/batch-log';
import { openKeyedJsonlLog, openRecordStore } from '../lib/llm/store';
import type { LlmRecord } from '../lib/llm/types';
import { bm25CacheKey, bm25CachePaths, loadOrBuildBm25 } from '../lib/retrieve/bm25';
import { appendLineWhole, setWriteFaultForTests } from '../lib/util/fs';
import { loadNnsscScorer } from '../lib/search/nnssc';
import { fakeEncoder } from './helpers/encoder';
import { toyCorpus, toySemantic, toySplits } from './helpers/toy-study';
import { bm25Scorer, buildBm25, hnswCached, type CorpusScorer } from '../lib/retrieve';
import { adaptiveFusion } from '../lib/search/adaptive-fusion';
import { loadRepairVocabulary } from '../lib/search/repair-vocabulary';
import { parsePeriodChecked } from '../lib/router/time';
import { checkQuery } from '../lib/serve/validate';

const made: string[] = [];
const tmp = (tag = 'x') => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `eo-faults-${tag}-`));
  made.push(d);
  return d;
};
const sample = loadSnapshot({ sample: true });

/** Every file under `dir` (recursively), relative. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

function assertNoTemp(dir: string): void {
  const left = filesUnder(dir).filter((f) => f.endsWith('.tmp'));
  assert.equal(left, [], `temp files left in ${dir}`);
}

/** Run `fn`, expecting an EoError with `code` whose message names `file` (a path or a pattern); returns it. */
async function rejects(fn: () => unknown, code: string, file: string | RegExp): Promise<EoError> {
  try {
    await fn();
  } catch (e) {
    assert.ok(isEoError(e), `not an EoError: ${(e as Error)?.stack ?? e}`);
    assert.is((e as EoError).code, code, (e as Error).message);
    const msg = (e as Error).message;
    assert.ok(typeof file === 'string' ? msg.includes(file) : file.test(msg), `message does not name ${file}: ${msg}`);
    return e as EoError;
  }
  assert.unreachable(`did not throw ${code}`);
  throw new Error('unreachable');
}

function flipByte(file: string, at = 0.5): void {
  const b = fs.readFileSync(file);
  const i = Math.min(b.length - 1, Math.floor(b.length * at));
  b[i] ^= 0x01;
  fs.writeFileSync(file, b);
}

// ------------------------------------------------------------------------------------------------ small disks

let canMount: boolean | null = process.env.EO_FAULTS_NO_MOUNT === '1' ? false : null;
function mountTmpfs(dir: string, options: string): boolean {
  if (canMount === false || process.getuid?.() !== 0) return (canMount = false);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
    return (canMount = true);
  } catch {
    return (canMount = false);
  }
}
function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'ignore' });
  } catch {
    /* not mounted */
  }
}

/**
 * A folder with `free` bytes left: a 4 MiB tmpfs filled up to that (real ENOSPC from the kernel), or, where no tmpfs can
 * be mounted, the writer's fault hook after `free` bytes. `grow()` gives the space back.
 */
function smallDisk(free: number): { dir: string; how: 'tmpfs' | 'hook'; grow: () => void; dispose: () => void } {
  const dir = tmp('disk');
  if (mountTmpfs(dir, 'size=4m')) {
    const filler = path.join(dir, '.filler');
    const avail = () => {
      const s = fs.statfsSync(dir);
      return s.bavail * s.bsize;
    };
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, avail() - free)));
    return { dir, how: 'tmpfs', grow: () => fs.rmSync(filler, { force: true }), dispose: () => unmount(dir) };
  }
  setWriteFaultForTests({ failAfterBytes: free, code: 'ENOSPC' });
  return { dir, how: 'hook', grow: () => setWriteFaultForTests(null), dispose: () => setWriteFaultForTests(null) };
}

test('small disk: a whole-file write fails with DISK_FULL naming the file; the old file stays, no temp file', async () => {
  const disk = smallDisk(64 * 1024);
  try {
    const target = path.join(disk.dir, 'big.bin');
    fs.writeFileSync(target, Buffer.alloc(1000, 7)); // the old version, written before the disk filled
    const e = await rejects(() => writeFileAtomic(target, Buffer.alloc(400 * 1024, 1)), 'DISK_FULL', target);
    assert.match(e.message, /ENOSPC/);
    assert.equal(fs.readFileSync(target), Buffer.alloc(1000, 7), `old file intact (${disk.how})`);
    assertNoTemp(disk.dir);
  } finally {
    disk.dispose();
  }
});

test('small disk: embedding the corpus stops with DISK_FULL naming the chunk or matrix; whole chunks only, no matrix; it resumes once there is room', async () => {
  const enc = fakeEncoder(512);
  const texts = Array.from({ length: 600 }, (_, i) => `text number ${i} about ${['ozone', 'sea ice', 'aerosol', 'rain'][i % 4]}`);
  const disk = smallDisk(700 * 1024); // 600 × 512 floats = 1.2 MB in chunks of 200 KB, then the 1.2 MB matrix
  try {
    const cacheDir = path.join(disk.dir, 'embeddings');
    const p = embeddingCachePaths(cacheDir, enc.id, 'corp', hashTexts(texts));
    await rejects(() => embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir, chunkSize: 100 }), 'DISK_FULL', new RegExp(`${cacheDir}/\\S+(chunk-\\d+\\.f32|\\.f32)`));
    assertNoTemp(disk.dir);
    assert.not.ok(fs.existsSync(p.data), 'no matrix in place');
    assert.not.ok(fs.existsSync(p.meta), 'no metadata in place');
    const chunks = fs.existsSync(p.partial) ? fs.readdirSync(p.partial).filter((f) => f.endsWith('.f32')) : [];
    for (const c of chunks) assert.is(fs.statSync(path.join(p.partial, c)).size, 100 * 512 * 4, `chunk ${c} is whole`);
    disk.grow();
    const m = await embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir, chunkSize: 100 });
    const direct = await embedCorpusCached({ encoder: enc, texts, key: 'corp', noCache: true, chunkSize: 100 });
    assert.equal(Array.from(m), Array.from(direct), 'the resumed matrix equals one embedded in one go');
    assertNoTemp(disk.dir);
  } finally {
    disk.dispose();
  }
});

test('small disk: a checkpoint that does not fit leaves the old checkpoint loadable and no temp file', async () => {
  const disk = smallDisk(256 * 1024);
  try {
    const dir = path.join(disk.dir, 'nnssc', 'x');
    const base = { kind: 'nnssc', config: {}, seed: 1, backend: 'js', dataHash: 'd' };
    saveCheckpoint(dir, { ...base, tensors: { w: { shape: [4], data: new Float32Array([1, 2, 3, 4]) } } });
    await rejects(() => saveCheckpoint(dir, { ...base, tensors: { w: { shape: [200_000], data: new Float32Array(200_000).fill(0.5) } } }), 'DISK_FULL', path.join(dir, 'weights.bin'));
    disk.grow();
    assertNoTemp(disk.dir);
    assert.equal(Array.from(loadCheckpoint(dir).tensors.w.data), [1, 2, 3, 4], `the old checkpoint is intact (${disk.how})`);
  } finally {
    disk.dispose();
  }
});

test('small disk: an LLM recording that does not fit is not appended (DISK_FULL naming the store); the log is unchanged and reads back whole', async () => {
  const rec = (key: string, text = key): LlmRecord => ({
    v: 1, key, configId: 'x', provider: 'openai', requestedModel: 'm',
    request: { messages: [{ role: 'user', content: key }], tools: [], temperature: 0, maxTokens: null, sample: 0 },
    response: { text, toolCalls: [], stopReason: 'stop', model: 'm', usage: { inputTokens: 1, outputTokens: 1 }, raw: null },
    costUsd: 0, latencyMs: 1, timestamp: '2026-01-01T00:00:00Z',
  } as LlmRecord);
  const disk = smallDisk(4096);
  try {
    const file = path.join(disk.dir, 'records.jsonl');
    const store = openRecordStore(file, { log: () => {} });
    store.append(rec('a'));
    const before = fs.readFileSync(file);
    await rejects(() => store.append(rec('b', 'x'.repeat(64 * 1024))), 'DISK_FULL', file);
    assert.equal(fs.readFileSync(file), before, `the log is as it was (${disk.how})`);
    disk.grow();
    const again = openRecordStore(file, { log: () => assert.unreachable('no torn line') });
    assert.equal(again.records().map((r) => r.key), ['a']);
    assert.equal(again.skipped(), []);
    assertNoTemp(disk.dir);
  } finally {
    disk.dispose();
  }
});

test('small disk: the hook cuts an append short and the writer undoes it (no half line), naming the file', async () => {
  const dir = tmp('append');
  const file = path.join(dir, 'log.jsonl');
  appendLineWhole(file, '{"n":1}');
  setWriteFaultForTests({ failAfterBytes: 3 });
  try {
    await rejects(() => appendLineWhole(file, '{"n":2,"pad":"' + 'y'.repeat(100) + '"}'), 'DISK_FULL', file);
  } finally {
    setWriteFaultForTests(null);
  }
  assert.is(fs.readFileSync(file, 'utf8'), '{"n":1}\n');
});

// -------------------------------------------------------------------------------------------- read-only folders

/** A read-only folder: a read-only tmpfs (EROFS from the kernel), else the fault hook raising EACCES on open. */
function readOnlyDir(): { dir: string; how: 'mount' | 'hook'; dispose: () => void } {
  const dir = tmp('ro');
  if (mountTmpfs(dir, 'ro,size=1m')) return { dir, how: 'mount', dispose: () => unmount(dir) };
  setWriteFaultForTests({ code: 'EACCES' });
  return { dir, how: 'hook', dispose: () => setWriteFaultForTests(null) };
}

test('read-only checkpoints/: the BM25 index cannot be stored: NOT_WRITABLE naming the file, nothing left behind', async () => {
  const ro = readOnlyDir();
  try {
    const e = await rejects(() => loadOrBuildBm25(sample, { cacheDir: path.join(ro.dir, 'bm25') }), 'NOT_WRITABLE', /bm25[/\\]bm25-[0-9a-f]+\.bin/);
    assert.match(e.message, ro.how === 'mount' ? /EROFS|read-only/ : /EACCES|permission/, e.message);
    setWriteFaultForTests(null);
    assert.equal(filesUnder(ro.dir), []);
  } finally {
    ro.dispose();
  }
});

test('read-only checkpoints/: embedding the corpus cannot store its matrix: NOT_WRITABLE naming the cache path, nothing left behind', async () => {
  const ro = readOnlyDir();
  try {
    const cacheDir = path.join(ro.dir, 'embeddings');
    const e = await rejects(() => embedCorpusCached({ encoder: fakeEncoder(16), texts: ['a b', 'c d'], key: 'corp', cacheDir }), 'NOT_WRITABLE', cacheDir);
    assert.match(e.message, ro.how === 'mount' ? /EROFS/ : /EACCES/);
    setWriteFaultForTests(null);
    assert.equal(filesUnder(ro.dir), []);
  } finally {
    ro.dispose();
  }
});

test('read-only checkpoints/: a computed α is still used for the run, and the log and source line say it was not stored', async () => {
  const lexical = bm25Scorer(buildBm25(toyCorpus));
  const ok = await fusionAlpha({ corpus: toyCorpus, train: toySplits.train, semantic: toySemantic(), lexical, dir: tmp('fusion') });
  const ro = readOnlyDir();
  try {
    const logs: string[] = [];
    const r = await fusionAlpha({ corpus: toyCorpus, train: toySplits.train, semantic: toySemantic(), lexical, dir: path.join(ro.dir, 'fusion'), log: (l) => logs.push(l) });
    setWriteFaultForTests(null);
    assert.is(r.record.alpha, ok.record.alpha, 'the same α as a run that could store it');
    assert.is(r.reused, false);
    assert.ok(r.notStored && /NOT_WRITABLE/.test(r.notStored) && r.notStored.includes(path.basename(r.file)), String(r.notStored));
    assert.is(logs.length, 1);
    assert.match(logs[0], /used for this run but not stored \(NOT_WRITABLE: cannot write .*fusion.*\.json/);
    assert.match(describeFusionRecord(r.record, r.file, r.notStored), /set for this run only: not stored in/);
    assert.equal(filesUnder(ro.dir), []);
  } finally {
    ro.dispose();
  }
});

test('a file where the checkpoints folder should be: NOT_WRITABLE naming the file (real ENOTDIR/EEXIST, any user)', async () => {
  const dir = tmp('notdir');
  const blocker = path.join(dir, 'checkpoints');
  fs.writeFileSync(blocker, 'not a folder');
  const target = path.join(blocker, 'fusion', 'alpha.json');
  const e = await rejects(() => writeFileAtomic(target, '{}'), 'NOT_WRITABLE', target);
  assert.match(e.message, /a file stands where a folder is needed \((ENOTDIR|EEXIST)/);
  assert.equal(filesUnder(dir), ['checkpoints']);
});

// ------------------------------------------------------------------------------------------ byte flips in caches

test('byte flip in the BM25 .bin or .json: CACHE_MISMATCH naming the file, both hashes and eo cache rebuild bm25', async () => {
  for (const which of ['bin', 'meta'] as const) {
    const dir = tmp('bm25');
    loadOrBuildBm25(sample, { cacheDir: dir });
    const p = bm25CachePaths(dir, bm25CacheKey(sample));
    if (which === 'bin') flipByte(p.bin, 0.7);
    else {
      const meta = JSON.parse(fs.readFileSync(p.meta, 'utf8'));
      meta.terms[5] += 'x'; // one term's id moved: every score of it would land on another term
      fs.writeFileSync(p.meta, JSON.stringify(meta));
    }
    const e = await rejects(() => loadOrBuildBm25(sample, { cacheDir: dir }), 'CACHE_MISMATCH', p.bin);
    assert.match(e.message, /content hash [0-9a-f]{64} differs from [0-9a-f]{64}/);
    assert.match(e.message, /rebuild it: eo cache rebuild bm25 --sample$/);
    assertNoTemp(dir);
  }
});

test('byte flip in an embedding .f32 (same size): CACHE_MISMATCH naming the file, both hashes and the rebuild command', async () => {
  const dir = tmp('emb');
  const enc = fakeEncoder(16);
  const texts = sample.datasets.slice(0, 40).map((d) => d.longName);
  await embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir: dir });
  const p = embeddingCachePaths(dir, enc.id, 'corp', hashTexts(texts));
  flipByte(p.data, 0.3);
  const e = await rejects(() => embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir: dir, rebuild: 'eo cache rebuild embeddings --sample' }), 'CACHE_MISMATCH', p.data);
  assert.match(e.message, /content hash [0-9a-f]{64} differs from [0-9a-f]{64}.*rebuild it: eo cache rebuild embeddings --sample$/);
  // on request it is rebuilt, whole
  const m = await embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir: dir, onMismatch: 'rebuild' });
  assert.equal(Array.from(m), Array.from(await embedCorpusCached({ encoder: enc, texts, key: 'corp', noCache: true })));
  assertNoTemp(dir);
});

test('byte flip in an NN-SSC or fine-tuned checkpoint: CACHE_MISMATCH naming weights.bin, both hashes and the notebook', async () => {
  for (const [kind, notebook] of [['nnssc', '04-nnssc'], ['finetune-use-lite', '03-encoder-finetune']] as const) {
    const dir = path.join(tmp('ckpt'), kind);
    saveCheckpoint(dir, {
      kind, config: {}, seed: 1, backend: 'js', dataHash: 'd',
      trainingData: { hash: 'h', dataHash: 'd', benchmark: 'eo-title-sample', writer: 'title', seed: 42, testFraction: 0.2, relations: null, queries: 1 },
      tensors: { w: { shape: [64], data: new Float32Array(64).fill(0.25) } },
    });
    flipByte(path.join(dir, 'weights.bin'));
    const e = await rejects(() => loadCheckpoint(dir, { kind }), 'CACHE_MISMATCH', path.join(dir, 'weights.bin'));
    assert.match(e.message, new RegExp(`SHA-256 [0-9a-f]{64} differs from [0-9a-f]{64}.*rebuild it: npm start -- --only ${notebook} --sample$`));
  }
});

test('the search path refuses a corrupt NN-SSC checkpoint as CACHE_MISMATCH with the notebook command (was DATA_NOT_FOUND, "re-run the training")', async () => {
  const dir = path.join(tmp('nnssc-path'), 'use-lite-eo-title-sample');
  saveCheckpoint(dir, { kind: 'nnssc', config: {}, seed: 1, backend: 'js', dataHash: 'd', tensors: { w: { shape: [8], data: new Float32Array(8).fill(1) } } });
  flipByte(path.join(dir, 'weights.bin'));
  const enc = fakeEncoder(16);
  const nn = loadNnsscScorer(sample, enc, new Float32Array(sample.datasets.length * 16), { dir, benchmarkName: 'eo-title-sample' });
  assert.is(nn.scorer, null);
  assert.is(nn.code, 'CACHE_MISMATCH', 'the code the engine throws for --retriever nnssc');
  assert.match(nn.note, /weights\.bin: SHA-256 [0-9a-f]{64} differs from [0-9a-f]{64}.*rebuild it: npm start -- --only 04-nnssc/);
  const none = loadNnsscScorer(sample, enc, new Float32Array(0), { dir: path.join(dir, 'absent'), benchmarkName: 'eo-title-sample' });
  assert.is(none.code, 'DATA_NOT_FOUND');
  assert.match(none.note, /train it: npm start -- --only 04-nnssc --sample/);
});

test('byte flip in a benchmark JSON: CACHE_MISMATCH naming the file, both hashes and eo bench build', async () => {
  const dir = tmp('bench');
  const file = path.join(dir, 'benchmark.json');
  const bench = await buildBenchmark(sample, benchmarkSettings({ sample: true }));
  saveBenchmark(file, bench);
  assert.is(loadBenchmark(file, sample).queries.length, bench.queries.length);
  const text = fs.readFileSync(file, 'utf8');
  const q = bench.queries[3].text;
  fs.writeFileSync(file, text.replace(JSON.stringify(q), JSON.stringify(q.slice(0, -1) + (q.endsWith('x') ? 'y' : 'x'))));
  const e = await rejects(() => loadBenchmark(file, sample), 'CACHE_MISMATCH', file);
  assert.match(e.message, new RegExp(`content hash [0-9a-f]{64} differs from [0-9a-f]{64}.*rebuild it: eo bench build --out ${dir} --sample$`));
});

test('byte flip in an HNSW index: CACHE_MISMATCH naming the file and both hashes (or rebuilt, the default)', async () => {
  const dir = tmp('hnsw');
  const dim = 8;
  const matrix = new Float32Array(50 * dim).map((_, i) => Math.sin(i * 1.7));
  const idx = hnswCached({ matrix, dim, key: 'k', cacheDir: dir });
  const file = filesUnder(dir).find((f) => f.endsWith('.hnsw'))!;
  flipByte(path.join(dir, file), 0.6);
  const e = await rejects(() => hnswCached({ matrix, dim, key: 'k', cacheDir: dir, onMismatch: 'error' }), 'CACHE_MISMATCH', path.join(dir, file));
  assert.match(e.message, /content hash [0-9a-f]{64} differs from [0-9a-f]{64}/);
  const again = hnswCached({ matrix, dim, key: 'k', cacheDir: dir });
  assert.is(again.meta.sha256, idx.meta.sha256, 'rebuilt to the same bytes');
  assertNoTemp(dir);
});

test('a flipped digit of a stored α is never read: the record is recomputed to the true α', async () => {
  const dir = tmp('alpha');
  const lexical = bm25Scorer(buildBm25(toyCorpus));
  const first = await fusionAlpha({ corpus: toyCorpus, train: toySplits.train, semantic: toySemantic(), lexical, dir });
  const text = fs.readFileSync(first.file, 'utf8');
  const alphaText = JSON.stringify(first.record.alpha);
  const wrong = first.record.alpha > 0.5 ? first.record.alpha - 0.3 : first.record.alpha + 0.3;
  fs.writeFileSync(first.file, text.replace(`"alpha": ${alphaText}`, `"alpha": ${JSON.stringify(wrong)}`));
  assert.ok(fs.readFileSync(first.file, 'utf8').includes(JSON.stringify(wrong)), 'the record was changed');
  const again = await fusionAlpha({ corpus: toyCorpus, train: toySplits.train, semantic: toySemantic(), lexical, dir });
  assert.is(again.reused, false);
  assert.is(again.record.alpha, first.record.alpha);
});

test('caches written before hashes were recorded are never trusted: BM25 and embeddings rebuilt, a benchmark refused with the command', async () => {
  const dir = tmp('legacy');
  const bm = loadOrBuildBm25(sample, { cacheDir: dir });
  const p = bm25CachePaths(dir, bm.key);
  const meta = JSON.parse(fs.readFileSync(p.meta, 'utf8'));
  delete meta.sha256;
  fs.writeFileSync(p.meta, JSON.stringify(meta));
  flipByte(p.bin); // a legacy cache could hold anything: it must not be read
  assert.ok(loadOrBuildBm25(sample, { cacheDir: dir }).lunrIndex, 'rebuilt, not read');
  assert.ok(JSON.parse(fs.readFileSync(p.meta, 'utf8')).sha256, 'and now records its hash');

  const enc = fakeEncoder(16);
  const texts = ['a b', 'c d', 'e f'];
  await embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir: dir });
  const ep = embeddingCachePaths(dir, enc.id, 'corp', hashTexts(texts));
  const em = JSON.parse(fs.readFileSync(ep.meta, 'utf8'));
  delete em.sha256;
  fs.writeFileSync(ep.meta, JSON.stringify(em));
  fs.writeFileSync(ep.data, Buffer.alloc(fs.statSync(ep.data).size, 0x7f)); // same size, other bytes
  const m = await embedCorpusCached({ encoder: enc, texts, key: 'corp', cacheDir: dir });
  assert.equal(Array.from(m), Array.from(await embedCorpusCached({ encoder: enc, texts, key: 'corp', noCache: true })), 're-embedded, not read');

  const file = path.join(dir, 'benchmark.json');
  const bench = await buildBenchmark(sample, benchmarkSettings({ sample: true }));
  fs.writeFileSync(file, JSON.stringify(bench, null, 2));
  const e = await rejects(() => loadBenchmark(file, sample), 'CACHE_MISMATCH', file);
  assert.match(e.message, /records no content hash .*rebuild it: eo bench build/);
});

test('eo cache verify: one line per cache file, ok / MISMATCH / STALE, naming the file', async () => {
  const ck = tmp('verify');
  const benchDir = path.join(ck, 'bench');
  loadOrBuildBm25(sample, { cacheDir: path.join(ck, 'bm25') });
  const enc = fakeEncoder(16);
  await embedCorpusCached({ encoder: enc, texts: ['a', 'b'], key: 'corp', cacheDir: path.join(ck, 'embeddings') });
  saveCheckpoint(path.join(ck, 'nnssc', 'x'), { kind: 'nnssc', config: {}, seed: 1, backend: 'js', dataHash: 'd', tensors: { w: { shape: [2], data: new Float32Array([1, 2]) } } });
  saveBenchmark(path.join(benchDir, 'b', 'benchmark.json'), await buildBenchmark(sample, benchmarkSettings({ sample: true })));
  const first = verifyCaches({ checkpointsDir: ck, benchDir });
  assert.equal(first.map((c) => [c.kind, c.status]), [['bm25', 'ok'], ['embeddings', 'ok'], ['checkpoint', 'ok'], ['benchmark', 'ok']]);
  flipByte(path.join(ck, 'nnssc', 'x', 'weights.bin'));
  const binFile = filesUnder(path.join(ck, 'bm25')).find((f) => f.endsWith('.bin'))!;
  flipByte(path.join(ck, 'bm25', binFile));
  const embMeta = path.join(ck, 'embeddings', filesUnder(path.join(ck, 'embeddings')).find((f) => f.endsWith('.json'))!);
  const m = JSON.parse(fs.readFileSync(embMeta, 'utf8'));
  delete m.sha256;
  fs.writeFileSync(embMeta, JSON.stringify(m));
  const second = verifyCaches({ checkpointsDir: ck, benchDir });
  assert.equal(second.map((c) => [c.kind, c.status]), [['bm25', 'mismatch'], ['embeddings', 'stale'], ['checkpoint', 'mismatch'], ['benchmark', 'ok']]);
  const lines = second.map(formatCacheCheck);
  assert.match(lines[0], /^MISMATCH\tbm25\t.*bm25-[0-9a-f]+\.json\t[\d.]+ ms\t\[CACHE_MISMATCH\] .*\.bin: content hash .* eo cache rebuild bm25/);
  assert.match(lines[1], /^STALE\tembeddings\t/);
  assert.match(lines[2], /^MISMATCH\tcheckpoint\t.*weights\.bin: SHA-256 .*npm start -- --only 04-nnssc/);
  assert.match(lines[3], /^ok\tbenchmark\t/);
});

test('an edited adaptive fusion model and a zeroed repair index are never used: fitted / rebuilt again, and eo cache verify reports both as MISMATCH', async () => {
  const ck = tmp('adaptive-repair');
  // the adaptive model: one coefficient edited in the stored record
  const bench = await buildBenchmark(sample, { writer: titleQueryWriter(), seed: 42, testFraction: 0.2, subsetSize: 20 });
  const semantic: CorpusScorer = { id: 'standin', label: 'stand-in', fingerprint: 'standin@1', async scoreBatch(texts) { return texts.map((t) => Float32Array.from(sample.datasets, (_, i) => ((i * 7 + t.length) % 13) / 13)); } };
  const logs: string[] = [];
  const opts = { corpus: sample, train: benchmarkSplit(bench, 'train'), lexical: bm25Scorer(loadOrBuildBm25(sample), 'bm25', 'BM25'), semantic, startAlpha: 0.3, l2: 0.02, training: { perStyle: 10 }, dir: path.join(ck, 'fusion'), log: (l: string) => logs.push(l) };
  const first = (await adaptiveFusion(opts))!;
  const text = fs.readFileSync(first.file, 'utf8');
  const bias = JSON.stringify(first.record.model.bias);
  assert.ok(text.includes(`"bias": ${bias}`));
  fs.writeFileSync(first.file, text.replace(`"bias": ${bias}`, `"bias": ${JSON.stringify(first.record.model.bias - 3)}`));
  // the repair vocabulary: its deletes index zeroed (same size)
  const repairDir = path.join(ck, 'repair');
  const built = loadRepairVocabulary(sample, { cacheDir: repairDir });
  const bin = path.join(repairDir, fs.readdirSync(repairDir).find((f) => f.endsWith('.bin'))!);
  fs.writeFileSync(bin, Buffer.alloc(fs.statSync(bin).size));
  const checks = verifyCaches({ checkpointsDir: ck, benchDir: path.join(ck, 'none') }).filter((c) => c.kind === 'fusion' || c.kind === 'repair');
  assert.equal(checks.map((c) => [c.kind, c.status]), [['fusion', 'mismatch'], ['repair', 'mismatch']]);
  assert.match(formatCacheCheck(checks[0]), /^MISMATCH\tfusion\t.*adaptive-standin-[0-9a-f]+\.json\t[\d.]+ ms\t\[CACHE_MISMATCH\] .*content hash [0-9a-f]+ differs from [0-9a-f]+/);
  assert.match(formatCacheCheck(checks[1]), /^MISMATCH\trepair\t.*repair-[0-9a-f]+\.json\t.*repair-[0-9a-f]+\.bin: content hash [0-9a-f]+ differs/);
  // used again: the model is fitted again to the same coefficients, the vocabulary rebuilt to the same index
  const again = (await adaptiveFusion(opts))!;
  assert.is(again.reused, false);
  assert.equal(again.record.model.weights, first.record.model.weights);
  assert.is(again.record.model.bias, first.record.model.bias);
  assert.ok(logs.some((l) => /does not match the content hash it recorded.*fitted again/.test(l)), logs.join('\n'));
  const reread = loadRepairVocabulary(loadSnapshot({ sample: true }), { cacheDir: repairDir });
  assert.is(reread.source, 'built', 'a zeroed index is rebuilt, not read');
  assert.equal(Array.from(reread.deletes), Array.from(built.deletes));
  assert.ok(reread.deletes.some((x) => x !== 0));
  assert.equal(verifyCaches({ checkpointsDir: ck, benchDir: path.join(ck, 'none') }).map((c) => c.status), ['ok', 'ok'], 'both whole again');
});

test('eo cache verify exits 3 on a damaged cache; eo cache rebuild bm25 --sample rebuilds the index a CACHE_MISMATCH names; eo cache verify then calls it ok; bad usage exits 2', () => {
  const EO = path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js');
  const eo = (...args: string[]) => spawnSync(process.execPath, [EO, ...args], { cwd: repoRoot(), encoding: 'utf8', timeout: 120_000 });
  const p = bm25CachePaths(path.join(repoRoot(), 'checkpoints', 'bm25'), bm25CacheKey(sample));
  loadOrBuildBm25(sample);
  flipByte(p.bin); // a damaged index: verify says so with the data status (3), the rebuild leaves a good one
  const damaged = eo('cache', 'verify');
  assert.is(damaged.status, 3, damaged.stderr);
  assert.match(damaged.stdout, new RegExp(`^MISMATCH\\tbm25\\tcheckpoints/bm25/${path.basename(p.meta).replace('.', '\\.')}\\t`, 'm'));
  const r = eo('cache', 'rebuild', 'bm25', '--sample');
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^rebuilt bm25 checkpoints/bm25/${path.basename(p.meta).replace('.', '\\.')} \\(200 datasets, [\\d.]+ s\\)$`, 'm'));
  loadOrBuildBm25(sample); // accepted by the loader
  const v = eo('cache', 'verify');
  assert.match(v.stdout, new RegExp(`^ok\\tbm25\\tcheckpoints/bm25/${path.basename(p.meta).replace('.', '\\.')}\\t`, 'm'));
  assert.match(v.stdout, /^\d+ cache files checked in \d+ ms: \d+ ok, \d+ stale, \d+ damaged$/m);
  const bad = eo('cache', 'rebuild', 'everything');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /\[INVALID_ARGUMENT\] eo cache rebuild needs bm25, embeddings or all \(got "everything"\)/);
  assert.is(eo('cache', 'verify', '--bogus').status, 2);
});

test('contradicting or repeated flags are refused before anything loads (exit 2, INVALID_ARGUMENT): --alpha with --fusion rrf (eo search, eo eval, eo serve), a repeated --bounding-box or --temporal', () => {
  const EO = path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js');
  const eo = (...args: string[]) => spawnSync(process.execPath, [EO, ...args], { cwd: repoRoot(), encoding: 'utf8', timeout: 60_000 });
  const refused = (args: string[], re: RegExp) => {
    const r = eo(...args);
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.is(r.stdout, '', 'no results');
  };
  const rrfAlpha = /\[INVALID_ARGUMENT\] --alpha sets the weight of a convex fusion; --fusion rrf has none/;
  refused(['search', 'sea ice', '--sample', '--alpha', '0.5', '--fusion', 'rrf'], rrfAlpha);
  refused(['eval', '--system', 'best', '--sample', '--alpha', '0.5', '--fusion', 'rrf'], rrfAlpha);
  refused(['serve', '--sample', '--alpha', '0.5', '--fusion', 'rrf'], rrfAlpha);
  // the API refuses a repeated bounding_box; the CLI kept the last one silently
  refused(['search', 'sea ice', '--sample', '--bounding-box=-10,40,10,60', '--bounding-box=0,0,1,1'], /\[INVALID_ARGUMENT\] --bounding-box: give it once/);
  refused(['search', 'sea ice', '--sample', '--temporal=2000-01-01,2001-01-01', '--temporal=2005-01-01,2006-01-01'], /\[INVALID_ARGUMENT\] --temporal: give it once/);
  // given once, each still works
  const ok = eo('search', 'sea ice', '--sample', '--bounding-box=-10,40,10,60', '--alpha', '0.5', '--k', '1');
  assert.is(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /filters: bounding_box -10,40,10,60/);
});

test('a reader that stops early (eo search … --k 200 | head -1): eo ends with 0, no EPIPE stack trace', () => {
  const EO = path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js');
  // a shell pipe, as users write it; PIPESTATUS gives eo's own status
  const r = spawnSync('bash', ['-c', `"${process.execPath}" "${EO}" search "sea ice" --sample --k 200 | head -1; echo "eo-status=\${PIPESTATUS[0]}" >&2`], { cwd: repoRoot(), encoding: 'utf8', timeout: 60_000 });
  assert.is(r.stdout.split('\n').filter(Boolean).length, 1);
  assert.match(r.stdout, /^ {2}1\. \S+ {2}- {2}score /);
  assert.match(r.stderr, /eo-status=0$/m);
  assert.not.match(r.stderr, /EPIPE|Error:|at .*\.js:\d+/);
});

test('an open period that starts after today ("sea ice since 2030") is left out with a note, never 2030-01-01..today', async () => {
  const now = new Date('2026-12-05T12:00:00Z');
  const r = parsePeriodChecked('sea ice since 2030', now);
  assert.is(r.period, null);
  assert.is(r.ignored, '"since 2030" starts after today (2026-12-05)');
  assert.equal(parsePeriodChecked('sea ice since 2015', now).period?.start, '2015-01-01'); // the past still reads
  const EO = path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js');
  const out = spawnSync(process.execPath, [EO, 'search', 'sea ice since 2030', '--sample', '--k', '1', '--json'], { cwd: repoRoot(), encoding: 'utf8', timeout: 60_000 });
  assert.is(out.status, 0, out.stderr);
  const res = JSON.parse(out.stdout);
  assert.ok(res.router.notes.some((n: string) => /^period ignored: "since 2030" starts after today/.test(n)), JSON.stringify(res.router.notes));
  assert.is(res.router.parsed.period, null);
});

test('errors never glued to a progress line, control characters never echoed raw, queries checked as the service checks them (BINARY_QUERY, MARKUP_QUERY: exit 2)', async () => {
  const EO = path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js');
  const eo = (...args: string[]) => spawnSync(process.execPath, [EO, ...args], { cwd: repoRoot(), encoding: 'utf8', timeout: 60_000 });
  // an error after a progress line starts on its own line
  const exitJs = path.join(repoRoot(), 'dist', 'lib', 'cli', 'exit.js');
  const errorsJs = path.join(repoRoot(), 'dist', 'lib', 'errors.js');
  const glued = spawnSync(process.execPath, ['-e', `const x = require(${JSON.stringify(exitJs)}); const { EoError } = require(${JSON.stringify(errorsJs)});
x.stderrLog('embedding corpus 100/200'); x.stderrLog('embedding corpus 200/200');
x.exitWithError('eo', new EoError('CACHE_MISMATCH', 'checkpoints/embeddings/x.f32: content hash differs'));`], { encoding: 'utf8' });
  assert.is(glued.status, 3);
  assert.is(glued.stderr, '\rembedding corpus 100/200\rembedding corpus 200/200\neo: [CACHE_MISMATCH] checkpoints/embeddings/x.f32: content hash differs\n');
  // control characters in a query: refused as the API refuses them, nothing raw on the terminal
  const ctl = eo('search', 'sea\x01ice\x1b[31m', '--sample');
  assert.is(ctl.status, 2, ctl.stderr);
  assert.match(ctl.stderr, /^eo: \[BINARY_QUERY\] the query contains control or non-text characters/);
  assert.not.match(ctl.stderr + ctl.stdout, /[\x00-\x08\x0b-\x1f\x7f]/);
  // echoed in an error message (a file name): written as escapes
  const file = eo('eval', '--run', '/nonexistent/run\x1b[31m.trec', '--qrels', '/nonexistent/q\x07');
  assert.is(file.status, 3, file.stderr);
  assert.match(file.stderr, /\\x1B\[31m/);
  assert.not.match(file.stderr, /[\x00-\x08\x0b-\x1f\x7f]/);
  // markup: the API's 400 MARKUP_QUERY for any tag, and eo search's exit 2; a comparison is not markup
  for (const q of ['<b>sea ice</b>', 'sea ice <div>', '<base href=//x>', '<img src=x', '<math><mi>x</mi></math>'])
    assert.is((checkQuery(q, 500) as { problem: { code: string } }).problem?.code, 'MARKUP_QUERY', q);
  for (const q of ['AOD < 0.5 and SST > 20', 'lat < a and b > c', 'MOD04_L2 <10km>']) assert.equal(checkQuery(q, 500), { query: q });
  const tag = eo('search', '<b>sea ice</b>', '--sample');
  assert.is(tag.status, 2, tag.stderr);
  assert.match(tag.stderr, /^eo: \[MARKUP_QUERY\] the query contains HTML or script markup/);
  assert.is(tag.stdout, '');
});

test('a rebuild never deletes the cache it replaces: on a full disk (DISK_FULL) the old BM25 index and embedding matrix stay usable, and the next rebuild resumes the chunks done', async () => {
  const ck = tmp('rebuild');
  const bm25Dir = path.join(ck, 'bm25');
  loadOrBuildBm25(sample, { cacheDir: bm25Dir });
  const bm25Before = filesUnder(bm25Dir).map((f) => [f, fs.readFileSync(path.join(bm25Dir, f)).toString('base64')]);
  setWriteFaultForTests({ failAfterBytes: 1000, code: 'ENOSPC' });
  try {
    await rejects(() => rebuildBm25Cache(sample, { cacheDir: bm25Dir }), 'DISK_FULL', bm25Dir);
  } finally {
    setWriteFaultForTests(null);
  }
  assert.equal(filesUnder(bm25Dir).map((f) => [f, fs.readFileSync(path.join(bm25Dir, f)).toString('base64')]), bm25Before, 'the old index, byte for byte');
  loadOrBuildBm25(sample, { cacheDir: bm25Dir }); // and it loads
  const embDir = path.join(ck, 'embeddings');
  const encoder = fakeEncoder(16);
  const meta = await rebuildEmbeddingCache(sample, { cacheDir: embDir, encoder, workers: 1 });
  const matrixFile = meta.replace(/\.json$/, '.f32');
  const old = fs.readFileSync(matrixFile);
  // room for the chunk (200 × 16 floats) and its state file, not for the matrix: the write of the matrix fails
  setWriteFaultForTests({ failAfterBytes: 200 * 16 * 4 + 700, code: 'ENOSPC' });
  try {
    await rejects(() => rebuildEmbeddingCache(sample, { cacheDir: embDir, encoder, workers: 1 }), 'DISK_FULL', embDir);
  } finally {
    setWriteFaultForTests(null);
  }
  assert.ok(fs.readFileSync(matrixFile).equals(old), 'the old matrix is in place');
  const texts = sample.datasets.map((d) => datasetEncoderText(d));
  const read = await embedCorpusCached({ encoder: { ...encoder, async embed() { throw new Error('must not embed: the old matrix is read'); } }, texts, key: sample.hash, cacheDir: embDir });
  assert.is(read.length, 200 * 16);
  assertNoTemp(embDir);
  const progress: number[] = [];
  await rebuildEmbeddingCache(sample, { cacheDir: embDir, encoder, workers: 1, log: (l) => progress.push(Number(/(\d+)\/200/.exec(l)?.[1])) });
  assert.is(progress[0], 200, 'the chunk written before the disk filled is resumed, not embedded again');
  assert.ok(fs.readFileSync(matrixFile).equals(old), 'the same matrix again');
  assert.equal(filesUnder(embDir).filter((f) => f.includes('.partial')), []);
});

test('a temp file left by a writer killed with SIGKILL mid-write (a BM25 build) is removed by the next write of that file; a live writer\'s is kept', async () => {
  const dir = path.join(tmp('killed'), 'bm25');
  fs.mkdirSync(dir, { recursive: true });
  const { bin } = bm25CachePaths(dir, bm25CacheKey(sample));
  // a real writer, stopped after its bytes are written (fsync never returns) and killed there
  const fsJs = path.join(repoRoot(), 'dist', 'lib', 'util', 'fs.js');
  const child = spawn(process.execPath, ['-e', `const fs = require('node:fs'); fs.fsyncSync = () => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); };
require(${JSON.stringify(fsJs)}).writeFileAtomic(${JSON.stringify(bin)}, Buffer.alloc(12 * 1024 * 1024, 7));`], { stdio: 'ignore' });
  const deadline = Date.now() + 30_000;
  const temps = () => fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'));
  while (!(temps().length === 1 && fs.statSync(path.join(dir, temps()[0])).size === 12 * 1024 * 1024) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  assert.is(temps().length, 1, 'the killed writer left its 12 MB temp file');
  assert.ok(temps()[0].startsWith(`${path.basename(bin)}.${child.pid}.`));
  // a temp file of a live writer (this process's parent) beside it
  const live = `${path.basename(bin)}.${process.ppid}.1.0.tmp`;
  fs.writeFileSync(path.join(dir, live), 'x');
  loadOrBuildBm25(sample, { cacheDir: dir });
  assert.equal(temps(), [live], 'the dead writer\'s temp file is gone, the live one kept');
  loadOrBuildBm25(sample, { cacheDir: dir }); // the index is whole
});

test('a folder where a file is read (eo eval --run /tmp, a datasets.jsonl.gz that is a folder): DATA_NOT_FOUND naming the flag or file, exit 3', () => {
  const EO = path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js');
  const eo = (...args: string[]) => spawnSync(process.execPath, [EO, ...args], { cwd: repoRoot(), encoding: 'utf8', timeout: 60_000 });
  const runDir = tmp('isdir');
  const r = eo('eval', '--run', runDir, '--qrels', runDir);
  assert.is(r.status, 3, r.stderr);
  assert.is(r.stderr, `eo: [DATA_NOT_FOUND] --run: ${runDir} is a folder, not a file\n`);
  const data = tmp('snapshot-dir');
  fs.mkdirSync(path.join(data, 'datasets.jsonl.gz'));
  for (const f of ['publications', 'links']) fs.writeFileSync(path.join(data, `${f}.jsonl.gz`), zlib.gzipSync(fs.readFileSync(path.join(sample.origin, `${f}.jsonl`))));
  const s = eo('search', 'sea ice', '--data', data);
  assert.is(s.status, 3, s.stderr);
  assert.match(s.stderr, new RegExp(`^eo: \\[DATA_NOT_FOUND\\] file ${data.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/datasets\\.jsonl\\.gz is a folder, not a file$`, 'm'));
  assert.not.match(s.stderr, /EISDIR: illegal operation/);
});

test('read-only checkpoints/: eo cache rebuild bm25 that must remove a damaged index says NOT_WRITABLE naming it, never a raw EROFS', async () => {
  const dir = tmp('ro-rebuild');
  const mounted = mountTmpfs(dir, 'size=4m');
  const bm25Dir = path.join(dir, 'bm25');
  loadOrBuildBm25(sample, { cacheDir: bm25Dir });
  const own = bm25CachePaths(bm25Dir, bm25CacheKey(sample));
  // another snapshot's index, damaged: the rebuild removes it
  const other = bm25CachePaths(bm25Dir, 'ffffffffffffffff');
  fs.copyFileSync(own.meta, other.meta);
  fs.copyFileSync(own.bin, other.bin);
  flipByte(other.bin);
  if (mounted) execFileSync('mount', ['-o', 'remount,ro', dir]);
  else setWriteFaultForTests({ code: 'EACCES' });
  try {
    const e = await rejects(() => rebuildBm25Cache(sample, { cacheDir: bm25Dir }), 'NOT_WRITABLE', other.meta);
    assert.match(e.message, mounted ? /cannot remove .*: read-only file system \(EROFS/ : /cannot remove .*: permission denied \(EACCES/);
  } finally {
    setWriteFaultForTests(null);
    if (mounted) unmount(dir);
  }
});

/** Send raw bytes to a server and read the whole answer (the server closes the connection). */
function rawExchange(port: number, bytes: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const s = net.connect(port, '127.0.0.1', () => s.write(bytes));
    s.on('data', (d) => chunks.push(d));
    s.on('error', reject);
    s.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    s.setTimeout(10_000, () => s.destroy(new Error('no answer in 10 s')));
  });
}

test('Node\'s own refusals (431 header too large, 400 not HTTP, a raw \\xff in the path, 408 stalled header) come in the service\'s shape with nosniff and no-referrer', async () => {
  const engine = createSearchEngine(toyCorpus, { lexical: bm25Scorer(buildBm25(toyCorpus)), semantic: null, source: 'given' });
  const app = await createSearchServer(engine);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as net.AddressInfo).port;
  try {
    const parse = (raw: string) => {
      const [head, body] = [raw.slice(0, raw.indexOf('\r\n\r\n')), raw.slice(raw.indexOf('\r\n\r\n') + 4)];
      return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), head: head.toLowerCase(), body };
    };
    const secured = (a: { head: string }) => {
      assert.match(a.head, /\r\nx-content-type-options: nosniff\r\n/);
      assert.match(a.head, /\r\nreferrer-policy: no-referrer\r\n/);
    };
    const big = parse(await rawExchange(port, `GET /api/search?q=ozone HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    assert.is(big.status, 431);
    secured(big);
    assert.equal(JSON.parse(big.body), { error: { code: 'HEADERS_TOO_LARGE', message: 'the request headers are too large' } });
    const garbage = parse(await rawExchange(port, 'GARBAGE\r\n\r\n'));
    assert.is(garbage.status, 400);
    secured(garbage);
    assert.match(garbage.head, /content-security-policy: default-src 'none'/);
    assert.match(garbage.body, /<!doctype html>/i);
    const ff = parse(await rawExchange(port, Buffer.concat([Buffer.from('GET /api/'), Buffer.from([0xff]), Buffer.from(' HTTP/1.1\r\nHost: a\r\n\r\n')])));
    assert.is(ff.status, 400);
    secured(ff);
    assert.is(JSON.parse(ff.body).error.code, 'BINARY_QUERY');
    // a stalled header: Node raises ERR_HTTP_REQUEST_TIMEOUT after headersTimeout (60 s); raised here on a real socket
    const serverSide = new Promise<net.Socket>((r) => app.server.once('connection', r));
    const answer = new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      const c = net.connect(port, '127.0.0.1', () => c.write('GET / HTTP/1.1\r\nHost: a\r\n'));
      c.on('data', (d) => chunks.push(d));
      c.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    });
    app.server.emit('clientError', Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), await serverSide);
    const stalled = parse(await answer);
    assert.is(stalled.status, 408);
    secured(stalled);
    assert.match(stalled.body, /the request did not arrive in time/);
  } finally {
    await app.close();
  }
});

test('eo serve: kill -9 of the launcher stops the service (the port is free again); kill -9 of the service makes the launcher say so and exit 4; a --host that is not this machine\'s is a usage error (exit 2)', async () => {
  const EO = path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js');
  const started: number[] = [];
  const start = async () => {
    const p = spawn(process.execPath, [EO, 'serve', '--sample', '--port', '0'], { cwd: repoRoot(), stdio: ['ignore', 'ignore', 'pipe'] });
    started.push(p.pid!);
    let err = '';
    p.stderr!.on('data', (d) => (err += d));
    const deadline = Date.now() + 90_000;
    while (!/listening on http:\/\/127\.0\.0\.1:(\d+)/.test(err) && p.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err)?.[1]);
    assert.ok(port > 0, err);
    const children = fs.readFileSync(`/proc/${p.pid}/task/${p.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    assert.is(children.length, 1, 'one service process');
    started.push(children[0]);
    return { p, port, service: children[0], stderr: () => err };
  };
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    } catch {
      return false;
    }
  };
  const waitFor = async (cond: () => boolean, ms: number) => {
    const deadline = Date.now() + ms;
    while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return cond();
  };
  try {
    // the launcher killed: the service ends with it, and the port takes connections no more
    const a = await start();
    a.p.kill('SIGKILL');
    assert.ok(await waitFor(() => !alive(a.service), 15_000), 'the service process outlived its launcher');
    const refused = await rawExchange(a.port, 'GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n').then(() => false, (e: NodeJS.ErrnoException) => e.code === 'ECONNREFUSED');
    assert.ok(refused, 'the port still takes connections');
    // the service killed: the launcher reports it with a code and status 4
    const b = await start();
    const exited = new Promise<number | null>((r) => b.p.once('exit', (code) => r(code)));
    process.kill(b.service, 'SIGKILL');
    assert.is(await exited, 4);
    assert.match(b.stderr(), new RegExp(`eo: \\[SERVE_PROCESS\\] the service process \\(pid ${b.service}\\) was ended by SIGKILL`));
  } finally {
    for (const pid of started) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  // --host: checked before anything loads
  for (const host of ['999.1.1.1', 'no-such-host.invalid']) {
    const r = spawnSync(process.execPath, [EO, 'serve', '--sample', '--host', host, '--port', '0'], { cwd: repoRoot(), encoding: 'utf8', timeout: 60_000 });
    assert.is(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^eo: \\[INVALID_ARGUMENT\\] --host ${host.replace(/\./g, '\\.')}: not an IP address, and the name does not resolve`, 'm'));
    assert.not.match(r.stderr, /loaded \d+ datasets|getaddrinfo/);
  }
});

// ------------------------------------------------------------------------------------------ truncated gzip inputs

/** The sample snapshot gzipped into a temp folder, with `damage` applied to one file's bytes. */
function gzSnapshot(stem: 'datasets' | 'links' | 'publications', damage: (gz: Buffer) => Buffer): string {
  const dir = tmp('gz');
  for (const s of ['datasets', 'publications', 'links']) {
    const gz = zlib.gzipSync(fs.readFileSync(path.join(sample.origin, `${s}.jsonl`)));
    fs.writeFileSync(path.join(dir, `${s}.jsonl.gz`), s === stem ? damage(gz) : gz);
  }
  return dir;
}

test('truncated, non-gzip or corrupt .jsonl.gz inputs: DATA_PARSE naming the file and the cause', async () => {
  const whole = gzSnapshot('datasets', (gz) => gz);
  assert.is(loadSnapshot({ dir: whole }).datasets.length, sample.datasets.length, 'an undamaged copy loads');
  const cases: ['datasets' | 'links' | 'publications', (gz: Buffer) => Buffer, RegExp][] = [
    ['datasets', (gz) => gz.subarray(0, Math.floor(gz.length / 2)), /cannot read \(unexpected end of file\): the gzip file is truncated; replace it/],
    ['links', () => Buffer.from('{"publicationId":"p","datasetId":"d"}\n'), /cannot read \(incorrect header check\): not a gzip file/],
    ['publications', (gz) => gz.subarray(0, gz.length - 6), /truncated/],
    ['datasets', (gz) => {
      const b = Buffer.from(gz);
      for (let i = 40; i < 60; i++) b[i] ^= 0xff;
      return b;
    }, /the gzip (data is corrupt|file is truncated)/],
  ];
  for (const [stem, damage, cause] of cases) {
    const dir = gzSnapshot(stem, damage);
    const file = path.join(dir, `${stem}.jsonl.gz`);
    const e = await rejects(() => loadSnapshot({ dir }), 'DATA_PARSE', `${file}: cannot read (`);
    assert.match(e.message, cause);
  }
});

// ---------------------------------------------------------------------------------------- torn append-only logs

test('a log written by a process killed with SIGKILL mid-append keeps whole lines; at most the last is torn, skipped and repaired', async () => {
  const dir = tmp('kill');
  const file = path.join(dir, 'log.jsonl');
  const fsJs = path.join(repoRoot(), 'dist', 'lib', 'util', 'fs.js');
  const child = spawn(process.execPath, ['-e', `
    const { appendLineWhole } = require(${JSON.stringify(fsJs)});
    const pad = 'z'.repeat(256 * 1024);
    // bounded, and ending with its parent: an orphan of a killed test run must not fill the disk
    for (let i = 0; i < 4000 && process.ppid === ${process.pid}; i++) { appendLineWhole(${JSON.stringify(file)}, JSON.stringify({ key: 'k' + i, pad })); if (i === 3) process.stdout.write('go\\n'); }
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  await new Promise((r) => setTimeout(r, 150));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const warnings: string[] = [];
  const log = openKeyedJsonlLog<{ key: string }>(file, {
    validate: (v) => v as { key: string }, keyOf: (v) => v.key, log: (l) => warnings.push(l),
  });
  assert.ok(log.size() >= 4, `${log.size()} whole lines`);
  const keys = log.records().map((r) => r.key);
  assert.equal(keys, keys.map((_, i) => `k${i}`), 'every line before the last is whole and in order');
  assert.ok(log.skipped().length <= 1 && log.skipped().every((s) => s.reason === 'torn last line'), JSON.stringify(log.skipped()));
  log.append({ key: 'after' });
  const again = openKeyedJsonlLog<{ key: string }>(file, { validate: (v) => v as { key: string }, keyOf: (v) => v.key, log: () => assert.unreachable('repaired') });
  assert.is(again.records().at(-1)!.key, 'after');
  assertNoTemp(dir);
});

test('batch log with a corrupt line, an event of an unknown submission and a torn last line: all skipped and reported, the rest read', () => {
  const dir = tmp('batch');
  const file = path.join(dir, 'records.jsonl.batches.jsonl');
  const intent = { type: 'intent', sid: 's1', configId: 'c', api: 'openai', attempt: 1, at: '2026-01-01T00:00:00Z', keys: ['k1'], requests: [{}], stages: [null] };
  fs.writeFileSync(file, [
    JSON.stringify(intent),
    '{"type":"submitted","sid":"s1","batchId":"b-1"',
    JSON.stringify({ type: 'uploaded', sid: 's1', fileId: 'f-1' }),
    JSON.stringify({ type: 'ended', sid: 'zz', status: 'completed' }),
    '{"type":"ended","sid":"s1","sta',
  ].join('\n'));
  const warnings: string[] = [];
  const r = readBatchLogChecked(file, { log: (l) => warnings.push(l) });
  assert.is(r.submissions.length, 1);
  assert.is(r.submissions[0].fileId, 'f-1');
  assert.is(r.submissions[0].batchId, null, 'the corrupt event is not read as one');
  assert.equal(r.skipped.map((s) => s.line), [2, 4, 5]);
  assert.match(r.skipped[1].reason, /unknown submission zz/);
  assert.match(r.skipped[2].reason, /torn last line/);
  assert.is(warnings.length, 3);
  assert.ok(warnings.every((w) => w.includes(file)), warnings.join('\n'));
});

test('record store: a corrupt line in the middle and a torn last line are skipped and listed, never a crash', () => {
  const dir = tmp('store');
  const file = path.join(dir, 'records.jsonl');
  const rec = (key: string) => JSON.stringify({
    v: 1, key, configId: 'x', provider: 'openai', requestedModel: 'm',
    request: { messages: [{ role: 'user', content: key }], tools: [], temperature: 0, maxTokens: null, sample: 0 },
    response: { text: key, toolCalls: [], stopReason: 'stop', model: 'm', usage: { inputTokens: 1, outputTokens: 1 }, raw: null },
    costUsd: 0, latencyMs: 1, timestamp: '2026-01-01T00:00:00Z',
  });
  const flipped = rec('b').replace('"key":"b"', '"key":"b"\u0000').replace('{', '{{');
  fs.writeFileSync(file, [rec('a'), flipped, rec('c'), rec('d').slice(0, 40)].join('\n'));
  const warnings: string[] = [];
  const s = openRecordStore(file, { log: (l) => warnings.push(l) });
  assert.equal(s.records().map((r) => r.key), ['a', 'c']);
  assert.equal(s.skipped().map((x) => x.line), [2, 4]);
  assert.ok(warnings.length === 2 && warnings.every((w) => w.includes(file)), warnings.join('\n'));
});

test.after(() => {
  setWriteFaultForTests(null);
  for (const d of made) {
    unmount(d);
    fs.rmSync(d, { recursive: true, force: true });
  }
});

test.run();
