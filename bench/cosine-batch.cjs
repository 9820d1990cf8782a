#!/usr/bin/env node
// Benchmark: exact full-corpus cosine for a micro-batch of Q queries, three kernels in ONE run over the cached base
// USE-lite corpus matrix: per-query JS (`denseScores`, the reference), blocked JS (`denseScoresBatch`: one pass over
// the matrix for all Q), and one onnxruntime-node MatMul (`DenseOnnxIndex`). Prints ms per batch, ms per query,
// the speed-up over the per-query path, and the largest difference from its scores (must be < 1e-5).
//   node bench/cosine-batch.cjs [--sample] [--batches 1,4,16,32] [--reps 20]   (--help lists the flags)
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'exact full-corpus cosine for a micro-batch of queries: per-query JS vs blocked JS vs one onnxruntime MatMul',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    batches: { type: 'int-list', default: [1, 4, 16, 32], min: 1, help: 'queries per batch, one row each' },
    reps: { type: 'int', default: 20, min: 1, help: 'timed repetitions per cell (after one warm-up)' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/encode'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/util') };
const { cachedUseLiteCorpus } = require('./lib/common.cjs');

const { sample, batches, reps } = args;

(async () => {
  const corpus = eo.loadSnapshot({ sample });
  const { matrix, dim } = cachedUseLiteCorpus(eo, corpus);
  const n = matrix.length / dim;
  const rng = eo.mulberry32(11);
  const maxQ = Math.max(...batches);
  // queries: corpus rows perturbed and renormalised (deterministic, no encoder needed)
  const queries = new Float32Array(maxQ * dim);
  for (let q = 0; q < maxQ; q++) {
    const r = Math.floor(rng() * n);
    const v = Float32Array.from(matrix.subarray(r * dim, (r + 1) * dim), (x) => x + (rng() - 0.5) * 0.05);
    queries.set(eo.l2NormalizeInPlace(v), q * dim);
  }
  const onnx = await eo.DenseOnnxIndex.create(matrix, dim);
  const now = () => Number(process.hrtime.bigint()) / 1e6;
  const time = async (fn) => {
    await fn(); // warm-up
    const t = now();
    for (let i = 0; i < reps; i++) await fn();
    return (now() - t) / reps;
  };
  const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, ...v.map((x, j) => Math.abs(x - b[i][j]))), 0);
  console.log(`cosine over ${n} × ${dim}, ${reps} reps per cell; onnxruntime: ${onnx ? 'yes' : 'not available'}`);
  console.log('batch  kernel            ms/batch  ms/query  ×ref    max |Δ|');
  const rows = [];
  for (const Q of batches) {
    const qs = queries.subarray(0, Q * dim);
    const perQuery = () => Array.from({ length: Q }, (_, i) => eo.denseScores(matrix, dim, qs.subarray(i * dim, (i + 1) * dim)));
    const ref = perQuery();
    const kernels = [['js per query', async () => perQuery()], ['js blocked', async () => eo.denseScoresBatch(matrix, dim, qs)]];
    if (onnx) kernels.push(['onnx matmul', () => onnx.scores(qs)]);
    let base = 0;
    for (const [name, fn] of kernels) {
      const ms = await time(fn);
      if (!base) base = ms;
      const d = maxDiff(await fn(), ref);
      rows.push({ batch: Q, kernel: name, msPerBatch: ms, msPerQuery: ms / Q, speedup: base / ms, maxDiff: d });
      console.log(`${String(Q).padStart(5)}  ${name.padEnd(16)}  ${ms.toFixed(2).padStart(8)}  ${(ms / Q).toFixed(2).padStart(8)}  ${(base / ms).toFixed(2).padStart(6)}  ${d.toExponential(1)}`);
    }
  }
  onnx?.dispose();
  const bad = rows.filter((r) => !(r.maxDiff < 1e-5));
  if (bad.length) {
    console.error(`FAILED: ${bad.length} cell(s) differ from the per-query reference scores by ≥ 1e-5`);
    process.exit(1);
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
