#!/usr/bin/env node
// Benchmark: NN-SSC full-corpus scoring, decomposed first layer (W_d·d precomputed once; per query one mat-vec +
// ReLU + second layer + output) vs the naive batched concatenation [q; d] through the whole network, over the
// cached USE-lite corpus matrix (~10k datasets). Also: training throughput (positives/s) on wasm vs cpu.
// Every ratio below is measured in this one run. Needs the corpus embeddings cache (notebook 02 or `npm start`).
//   node bench/nnssc-scoring.cjs [--sample] [--queries 48] [--no-train]
'use strict';
const os = require('node:os');
const path = require('node:path');
const eo = require('../dist/lib');

const { benchArgs, cachedUseLiteCorpus, nnsscAdamStep } = require('./lib/common.cjs');

const { args, nq, sample } = benchArgs(48);
const corpus = eo.loadSnapshot({ sample });
const { matrix, dim } = cachedUseLiteCorpus(eo, corpus);
const N = corpus.datasets.length;
const now = () => Number(process.hrtime.bigint()) / 1e6;
const line = (k, v) => console.log(`${k.padEnd(44)} ${v}`);

async function main() {
  await eo.initTfBackend({ backend: process.env.EO_TF_BACKEND || 'wasm' });
  // the trained model when there is one (speed does not depend on the weights)
  let model = eo.initNnsscModel(dim, 256, 256, 42);
  let source = 'random init (seed 42)';
  const ckdir = eo.defaultNnsscDir(sample ? 'use-lite-eo-title-sample' : 'use-lite-eo-title');
  if (eo.checkpointExists(ckdir)) {
    try {
      model = eo.loadNnsscCheckpoint(ckdir).model;
      source = path.relative(process.cwd(), ckdir);
    } catch {}
  }
  const rng = eo.mulberry32(7);
  const queries = new Float32Array(nq * dim);
  for (let i = 0; i < nq; i++) {
    const r = Math.floor(rng() * N);
    for (let j = 0; j < dim; j++) queries[i * dim + j] = matrix[r * dim + j] + (rng() - 0.5) * 0.05;
  }
  eo.l2NormalizeRows(queries, dim);
  const info = eo.tfBackendInfo();
  console.log(`NN-SSC scoring over ${N} datasets × ${dim}-d, MLP ${2 * dim}→256→256→1, ${nq} queries; model: ${source}`);
  console.log(`node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0].model}), tfjs ${info.tfVersion} backend ${info.name}${info.simd ? ' (simd)' : ''}`);

  // naive: the concatenation through the whole network, 1 and 4 queries per graph call; the faster is the baseline
  const nNaive = Math.min(nq, 12);
  const naive = {};
  let naiveScores;
  for (const per of [1, 4]) {
    await eo.nnsscNaiveScores(model, matrix, queries.subarray(0, dim), { queriesPerBatch: 1 }); // warm-up
    const t = now();
    const s = await eo.nnsscNaiveScores(model, matrix, queries.subarray(0, nNaive * dim), { queriesPerBatch: per });
    naive[per] = (nNaive * 1000) / (now() - t);
    if (per === 1) naiveScores = s;
    line(`naive concatenation, ${per} query/call`, `${naive[per].toFixed(2)} queries/s`);
  }
  const naiveBest = Math.max(naive[1], naive[4]);

  let t = now();
  const index = await eo.NnsscCorpusIndex.create(model, matrix, { queriesPerBatch: 1 });
  const buildMs = now() - t;
  await index.scoreVectors(queries.subarray(0, dim));
  t = now();
  const dec = await index.scoreVectors(queries);
  const decQps = (nq * 1000) / (now() - t);
  index.dispose();
  let maxDiff = 0;
  let maxAbs = 0;
  for (let q = 0; q < nNaive; q++)
    for (let i = 0; i < N; i++) {
      maxDiff = Math.max(maxDiff, Math.abs(dec[q][i] - naiveScores[q][i]));
      maxAbs = Math.max(maxAbs, Math.abs(naiveScores[q][i]));
    }
  line('decomposed: corpus projection (once)', `${buildMs.toFixed(0)} ms`);
  line('decomposed, 1 thread', `${decQps.toFixed(1)} queries/s  (${(1000 / decQps).toFixed(1)} ms/query)`);

  const threads = Math.min(2, os.cpus().length);
  t = now();
  const th = await eo.NnsscThreadedIndex.create(model, matrix, { threads });
  const thStart = now() - t;
  await th.scoreVectors(queries.subarray(0, 2 * dim));
  t = now();
  const decT = await th.scoreVectors(queries);
  const thQps = (nq * 1000) / (now() - t);
  th.dispose();
  let maxDiffT = 0;
  for (let q = 0; q < nq; q++) for (let i = 0; i < N; i++) maxDiffT = Math.max(maxDiffT, Math.abs(decT[q][i] - dec[q][i]));
  line(`decomposed, ${threads} worker threads`, `${thQps.toFixed(1)} queries/s  (start ${thStart.toFixed(0)} ms)`);
  line('max |decomposed − naive| (logits)', `${maxDiff.toExponential(2)} of max |logit| ${maxAbs.toFixed(2)} (float32 sums in another order; threaded vs 1 thread: ${maxDiffT.toExponential(2)})`);
  line('ratio decomposed/naive, 1 thread', `${(decQps / naiveBest).toFixed(1)}x  (goal ≥ 5x)`);
  line(`ratio decomposed ${threads} threads/naive`, `${(thQps / naiveBest).toFixed(1)}x`);
  line(`best queries/s on ${threads} cores`, `${Math.max(decQps, thQps).toFixed(1)}  (goal ≥ 50)`);

  if (args.includes('--no-train')) return;
  // training throughput: the same step (64 positives × 21 candidates, forward + hand backward + Adam) per backend
  const steps = { wasm: 8, cpu: 2 };
  const pps = {};
  for (const be of ['wasm', 'cpu']) {
    await eo.initTfBackend({ backend: be });
    const tf = eo.getTf();
    const v = eo.nnsscVariables(eo.initNnsscModel(dim, 256, 256, 42));
    const opt = tf.train.adam(1e-4);
    const items = Array.from({ length: 64 }, (_, i) => ({ query: i % nq, positive: (i * 7) % N, negatives: Array.from({ length: 20 }, (_, k) => (i * 131 + k * 17) % N) }));
    const batch = eo.makeNnsscBatch(items, queries, matrix, dim, 21);
    const step = () => nnsscAdamStep(eo, v, batch, opt);
    step();
    const t0 = now();
    for (let s = 0; s < steps[be]; s++) step();
    pps[be] = (steps[be] * 64 * 1000) / (now() - t0);
    opt.dispose();
    eo.disposeNnsscVariables(v);
    line(`training, ${be} backend`, `${pps[be].toFixed(0)} positives/s (${((64 * 1000) / pps[be]).toFixed(0)} ms/step of 64)`);
  }
  line('ratio training wasm/cpu', `${(pps.wasm / pps.cpu).toFixed(1)}x`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
