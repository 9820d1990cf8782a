// Two-stage NN-SSC as an option of the one query path (lib/search): the library and the service (micro-batched,
// queries embedded on a worker, batched cosine first stage) rank the same ids with the same scores; the candidates'
// logits are the exact ones; the service's Server-Timing names the stages; `--nnssc-top-m` is checked by the CLI.
// run-tests: not beside notebook.test.ts (it reads and writes the repository's sample embedding cache, which the
// notebooks write too)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { createSearchServer, loadSearchEngine, loadSnapshot, search, type SearchResponse } from '../lib';
import { loadEncoder } from '../lib/encode';
import { saveCheckpoint } from '../lib/store';
import { repoRoot } from '../lib/util';
import { nnsscTensors, NNSSC_KIND } from '../lib/retrieve/nnssc';
import { encoderRunsOffEventLoop, withOnnxThread } from '../lib/encode/registry';
import type { EncoderSpec } from '../lib/encode/types';
import { randomModel } from './nnssc-fixtures';

const run = promisify(execFile);
const EO = path.join(repoRoot(), 'dist', 'lib', 'cli', 'eo.js');

const QUERIES = [
  'time series of aerosol optical depth over India since 2015',
  'map of sea ice concentration in the Arctic',
  'ozone profiles in the stratosphere from Aura MLS',
  'precipitation for the Amazon basin from 2003 to 2010',
];

test('two-stage NN-SSC: library and service rank the same ids; candidates keep their exact logits; Server-Timing names the stages', async () => {
  const corpus = loadSnapshot({ sample: true });
  const encoder = await loadEncoder();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-two-stage-'));
  try {
    // a seeded random NN-SSC over the real encoder's dimension, for this corpus and encoder
    const model = randomModel(encoder.dim, 16, 8, 7);
    saveCheckpoint(dir, { kind: NNSSC_KIND, config: { dim: model.dim, hidden1: 16, hidden2: 8, encoderId: encoder.id, corpusHash: corpus.hash }, seed: 7, backend: 'js', dataHash: 'test', tensors: nnsscTensors(model) });
    const common = { semantic: 'nnssc' as const, nnsscDir: dir, alpha: 0.4, sample: true, benchmarkDir: path.join(dir, 'no-benchmark') };
    const exact = await loadSearchEngine(corpus, { ...common, encoder });
    const lib = await loadSearchEngine(corpus, { ...common, encoder, nnsscTwoStage: { topM: 20 } });
    const served = await loadSearchEngine(corpus, { ...common, nnsscTwoStage: { topM: 20 }, queryBatching: {} });
    const app = await createSearchServer(served, { rateLimitMax: 1e6 });
    try {
      assert.match(lib.label, /NN-SSC \(two-stage, M=20\)/);
      assert.is(served.label, lib.label);
      const libRes = await Promise.all(QUERIES.map((q) => search(lib, q, { k: 10 })));
      const exactRes = await Promise.all(QUERIES.map((q) => search(exact, q, { k: 50 })));
      const api = await Promise.all(QUERIES.map((q) => app.inject({ method: 'GET', url: `/api/search?k=10&q=${encodeURIComponent(q)}`, remoteAddress: '127.0.0.1' })));
      api.forEach((r, i) => {
        assert.is(r.statusCode, 200);
        const body = r.json() as SearchResponse;
        assert.equal(body.results.map((x) => x.id), libRes[i].results.map((x) => x.id), QUERIES[i]);
        body.results.forEach((x, j) => assert.ok(Math.abs(x.score - libRes[i].results[j].score) < 1e-5, `${QUERIES[i]} rank ${j + 1}`));
        const timing = String(r.headers['server-timing']);
        for (const stage of ['parse', 'bm25', 'embed', 'firstStage', 'nnssc', 'fuse', 'constraints', 'explain', 'json']) assert.match(timing, new RegExp(`(^|, )${stage};dur=\\d`), `${stage} in ${timing}`);
        assert.match(timing, /batch;desc=\d+/);
      });
      // a scored candidate's logit is the exact one (the raw semantic score); others share the lowest candidate logit
      let compared = 0;
      libRes.forEach((res, i) => {
        const exactRaw = new Map(exactRes[i].results.map((x) => [x.id, x.components.semantic!.raw]));
        const low = Math.min(...res.results.map((x) => x.components.semantic!.raw));
        for (const x of res.results) {
          const e = exactRaw.get(x.id);
          if (e !== undefined && x.components.semantic!.raw > low) {
            assert.ok(Math.abs(x.components.semantic!.raw - e) < 1e-4, `${QUERIES[i]} ${x.id}: ${x.components.semantic!.raw} vs exact ${e}`);
            compared++;
          }
        }
      });
      assert.ok(compared >= 5, `compared ${compared} candidate logits`);
    } finally {
      await app.close();
      served.dispose();
      lib.dispose();
      exact.dispose();
    }
  } finally {
    encoder.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the query encoder needs a worker encoder unless its graph runs on the onnx worker thread', () => {
  assert.is(encoderRunsOffEventLoop({ kind: 'use-lite' }), false);
  assert.is(encoderRunsOffEventLoop(undefined), false);
  // onnxruntime-node runs a graph on the thread that calls it: an onnx folder model or USE-lite onnx on the caller blocks
  assert.is(encoderRunsOffEventLoop({ kind: 'onnx', options: { folder: 'x' } }), false);
  assert.is(encoderRunsOffEventLoop({ kind: 'use-lite', options: { runtime: 'onnx' } }), false);
  assert.is(encoderRunsOffEventLoop({ kind: 'use-lite', options: { runtime: 'onnx', onnxThread: 'worker' } }), true);
  assert.is(encoderRunsOffEventLoop(withOnnxThread({ kind: 'use-lite', options: { runtime: 'onnx' } }, 'worker')), true);
  assert.is(encoderRunsOffEventLoop(withOnnxThread({ kind: 'use-lite', options: { runtime: 'tfjs' } }, 'worker')), false);
  // other kinds are left as they are
  const folder: EncoderSpec = { kind: 'onnx', options: { folder: 'x' } };
  assert.is(withOnnxThread(folder, 'worker'), folder);
});

test('eo serve: re-runs itself with SERVE_PROCESS (glibc arenas, V8 young generation) and stops cleanly on SIGTERM, onnx workers included', async () => {
  if (process.platform !== 'linux') return;
  const { spawn } = await import('node:child_process');
  const env = { ...process.env };
  delete env.MALLOC_ARENA_MAX;
  delete env.MALLOC_MMAP_THRESHOLD_;
  delete env.EO_SERVE_PROCESS;
  const proc = spawn(process.execPath, [EO, 'serve', '--sample', '--port', '0', '--semantic', 'use-lite', '--alpha', '0.5'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line in 120 s:\n${stderr}`)), 120_000);
    proc.stderr.on('data', () => {
      const m = stderr.match(/listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.once('exit', (code) => reject(new Error(`eo serve exited (${code}):\n${stderr}`)));
  });
  // the service answers (its query embedding and cosine run on the onnx worker threads)
  const res = await fetch(`${url}/api/search?q=${encodeURIComponent('sea ice in the Arctic')}`);
  assert.is(res.status, 200);
  assert.ok(((await res.json()) as SearchResponse).results.length > 0);
  // the process that serves is a child started with the arena cap
  const children = fs.readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  assert.is(children.length, 1, 'eo serve re-ran itself once');
  const childEnv = fs.readFileSync(`/proc/${children[0]}/environ`, 'utf8').split('\0');
  assert.ok(childEnv.includes('MALLOC_ARENA_MAX=2') && childEnv.includes('MALLOC_MMAP_THRESHOLD_=131072') && childEnv.includes('EO_SERVE_PROCESS=1'));
  assert.ok(fs.readFileSync(`/proc/${children[0]}/cmdline`, 'utf8').split('\0').includes('--max-semi-space-size=2'));
  proc.kill('SIGTERM');
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
  assert.is(code, 0, stderr);
  assert.not.match(stderr, /terminate called|Napi::Error/);
});

test('eo search --nnssc-top-m: a bad value fails with a clear message', async () => {
  const err = await run(process.execPath, [EO, 'search', 'sea ice', '--sample', '--nnssc-top-m', 'zero']).then(() => null, (e: { stderr: string }) => e);
  assert.ok(err, 'the command failed');
  assert.match(err!.stderr, /--nnssc-top-m must be a positive integer or "exact"/);
});

test.run();
