#!/usr/bin/env node
// Benchmark: NN-SSC full-corpus scoring over the cached USE-lite corpus matrix (~10k datasets).
//  1. Exact paths, side by side in one run (rounds interleaved so load from other processes hits every path alike):
//     the tfjs-wasm decomposed index (1 thread, and 2 worker shards; the path of the published runs) vs
//     onnxruntime-node's CPU kernels (1 intra-op thread, and 2; openNnsscIndex's default engine where it loads),
//     with the largest logit difference (goal: ≤ 1e-4) and the ratios onnx/tfjs.
//  2. The naive concatenation [q; d] through the whole network (the decomposition's own baseline).
//  3. Two-stage scoring: the MLP scores only the union of the top-M of BM25 and cosine, for M = 200, 500, 1000,
//     2000: its speed and its loss of R@100 and MAP against exact scoring on the benchmark's test split.
//  4. Training throughput (positives/s) on wasm vs cpu.
// Uses the trained checkpoint when there is one (speed does not depend on the weights; recall does).
// Needs the corpus embeddings cache (notebook 02 or `npm start`).
//   node bench/nnssc-scoring.cjs [--sample] [--synthetic] [--queries 48] [--rounds 3] [--no-naive] [--no-two-stage] [--no-train]
//   (--help lists the flags)
'use strict';
const os = require('node:os');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'NN-SSC full-corpus scoring: tfjs-wasm vs onnxruntime kernels, the naive concatenation, two-stage scoring (speed and recall), training throughput',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    synthetic: { type: 'boolean', help: "random unit vectors of the corpus' size instead of the cached embeddings (speed only; no two-stage part)" },
    queries: { type: 'int', default: 48, min: 1, help: 'query vectors scored per round (perturbed dataset vectors)' },
    rounds: { type: 'int', default: 3, min: 1, help: 'interleaved rounds of the exact paths (the median is printed)' },
    'no-naive': { type: 'boolean', help: 'skip part 2 (the naive concatenation)' },
    'no-two-stage': { type: 'boolean', help: 'skip part 3 (two-stage scoring on the test split)' },
    'no-train': { type: 'boolean', help: 'skip part 4 (training throughput)' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/encode'), ...require('../dist/lib/metrics'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/store'), ...require('../dist/lib/tensor'), ...require('../dist/lib/train'), ...require('../dist/lib/util') };
const { cachedUseLiteCorpus, nnsscAdamStep } = require('./lib/common.cjs');

const { queries: nq, sample, synthetic, rounds } = args;
const corpus = eo.loadSnapshot({ sample });
const { matrix, dim } = synthetic ? syntheticCorpus(corpus.datasets.length, 512) : cachedUseLiteCorpus(eo, corpus);
const N = corpus.datasets.length;

function syntheticCorpus(n, d) {
  const rng = eo.mulberry32(3);
  const m = new Float32Array(n * d);
  for (let i = 0; i < m.length; i++) m[i] = rng() - 0.5;
  return { matrix: eo.l2NormalizeRows(m, d), dim: d };
}
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
  console.log(`NN-SSC scoring over ${N} datasets × ${dim}-d${synthetic ? ' (synthetic random unit vectors)' : ''}, MLP ${2 * dim}→256→256→1, ${nq} queries; model: ${source}`);
  console.log(`tfjs ${info.tfVersion} backend ${info.name}${info.simd ? ' (simd)' : ''}`);

  const threads = Math.min(2, os.cpus().length);
  // 1. exact paths, interleaved rounds; the median queries/s of each path
  let t = now();
  const paths = [
    { name: 'tfjs-wasm decomposed, 1 thread (published runs)', index: await eo.NnsscCorpusIndex.create(model, matrix, { queriesPerBatch: 1 }) },
    { name: 'onnxruntime CPU, 1 thread', index: await eo.NnsscOnnxIndex.create(model, matrix, { intraOpThreads: 1 }) },
    { name: `tfjs-wasm decomposed, ${threads} workers (published runs)`, index: await eo.NnsscThreadedIndex.create(model, matrix, { threads }) },
    { name: `onnxruntime CPU, ${threads} intra-op threads`, index: await eo.NnsscOnnxIndex.create(model, matrix, { intraOpThreads: threads }) },
    { name: 'onnxruntime CPU, 1 thread, 4 queries/run', index: await eo.NnsscOnnxIndex.create(model, matrix, { intraOpThreads: 1, queriesPerBatch: 4 }) },
  ].filter((p) => p.index);
  line(`open the ${paths.length} indexes`, `${(now() - t).toFixed(0)} ms`);
  const qps = paths.map(() => []);
  const scores = [];
  for (const [i, p] of paths.entries()) scores[i] = await p.index.scoreVectors(queries.subarray(0, 2 * dim)); // warm-up
  for (let r = 0; r < rounds; r++)
    for (const [i, p] of paths.entries()) {
      const t0 = now();
      scores[i] = await p.index.scoreVectors(queries);
      qps[i].push((nq * 1000) / (now() - t0));
    }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const q = qps.map(med);
  for (const [i, p] of paths.entries()) line(p.name, `${q[i].toFixed(1)} queries/s  (median of ${rounds}: ${qps[i].map((x) => x.toFixed(1)).join(', ')})`);
  const diff = (a, b) => {
    let m = 0;
    for (let k = 0; k < a.length; k++) for (let j = 0; j < N; j++) m = Math.max(m, Math.abs(a[k][j] - b[k][j]));
    return m;
  };
  let maxAbs = 0;
  for (const row of scores[0]) for (const v of row) maxAbs = Math.max(maxAbs, Math.abs(v));
  if (paths.length === 5) {
    const d1 = diff(scores[1], scores[0]);
    const d2 = diff(scores[3], scores[0]);
    line('max |onnx − tfjs| (logits, 1 thread)', `${d1.toExponential(2)} of max |logit| ${maxAbs.toFixed(2)}  (goal ≤ 1e-4: ${d1 <= 1e-4 ? 'met' : 'NOT met'})`);
    line(`max |onnx ${threads} threads − tfjs|`, `${d2.toExponential(2)}  (goal ≤ 1e-4: ${d2 <= 1e-4 ? 'met' : 'NOT met'})`);
    // ratios per round (paths measured back to back, so slow load swings cancel), then their median
    const perRound = (a, b) => med(qps[a].map((x, r) => x / qps[b][r]));
    line('ratio onnx/tfjs, 1 thread', `${(q[1] / q[0]).toFixed(2)}x  (median of per-round ratios ${perRound(1, 0).toFixed(2)}x)`);
    line(`ratio onnx ${threads} threads / tfjs ${threads} workers`, `${(q[3] / q[2]).toFixed(2)}x  (median of per-round ratios ${perRound(3, 2).toFixed(2)}x)`);
    line('ratio onnx 4 queries/run / 1 query/run', `${(q[4] / q[1]).toFixed(2)}x`);
    line(`best tfjs on ${threads} cores → best onnx`, `${Math.max(q[0], q[2]).toFixed(1)} → ${Math.max(q[1], q[3], q[4]).toFixed(1)} queries/s  (goal ≥ 50)`);
    line('ratio best onnx / best tfjs', `${(Math.max(q[1], q[3], q[4]) / Math.max(q[0], q[2])).toFixed(2)}x`);
  } else line('onnxruntime-node', 'not available here: only the tfjs paths were measured');
  for (const p of paths) p.index.dispose();

  // 2. naive: the concatenation through the whole network, 1 and 4 queries per graph call; the faster is the baseline
  if (!args.noNaive) {
    const nNaive = Math.min(nq, 12);
    const naive = {};
    let naiveScores;
    for (const per of [1, 4]) {
      await eo.nnsscNaiveScores(model, matrix, queries.subarray(0, dim), { queriesPerBatch: 1 }); // warm-up
      const t1 = now();
      const s = await eo.nnsscNaiveScores(model, matrix, queries.subarray(0, nNaive * dim), { queriesPerBatch: per });
      naive[per] = (nNaive * 1000) / (now() - t1);
      if (per === 1) naiveScores = s;
      line(`naive concatenation, ${per} query/call`, `${naive[per].toFixed(2)} queries/s`);
    }
    const naiveBest = Math.max(naive[1], naive[4]);
    line('max |decomposed − naive| (logits)', `${diff(scores[0].slice(0, nNaive), naiveScores).toExponential(2)} (float32 sums in another order)`);
    line('ratio tfjs decomposed/naive, 1 thread', `${(q[0] / naiveBest).toFixed(1)}x`);
    if (paths.length === 5) line('ratio onnx decomposed/naive, 1 thread', `${(q[1] / naiveBest).toFixed(1)}x`);
  }

  // 3. two-stage: exact vs the union of the top-M of BM25 and cosine, on the benchmark's test split
  if (!args.noTwoStage && !synthetic) await twoStage(model, matrix, dim, sample);

  if (args.noTrain) return;
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

/** Part 3: two-stage NN-SSC (union of the top-M of BM25 and cosine) against exact scoring on the test split. */
async function twoStage(model, matrix, dim, sample) {
  const benchName = sample ? 'eo-title-sample' : 'eo-title';
  const bench = await eo.loadOrBuildBenchmark(corpus, { writer: eo.titleQueryWriter(), seed: 42, testFraction: 0.2, subsetSize: 200, dir: eo.defaultBenchmarkDir(benchName) });
  const test = eo.benchmarkSplit(bench, 'test');
  const texts = test.queries.map((q) => q.text);
  const encoder = await eo.loadUseLite();
  const qv = await eo.embedQueriesCached({ encoder, texts });
  encoder.dispose();
  const nq = texts.length;
  const bm25 = eo.loadOrBuildBm25(corpus);
  let t = now();
  const lexical = texts.map((x) => eo.bm25Scores(bm25, x));
  const bmMs = (now() - t) / nq;
  t = now();
  const cosine = texts.map((_, i) => eo.denseScores(matrix, dim, qv.subarray(i * dim, (i + 1) * dim)));
  const cosMs = (now() - t) / nq;
  console.log(`\ntwo-stage on the test split of ${bench.name}: ${nq} queries; first stage per query: BM25 ${bmMs.toFixed(1)} ms, cosine ${cosMs.toFixed(1)} ms (both needed by the hybrid anyway)`);
  const index = await eo.openNnsscIndex(model, matrix, { threads: 1 });
  await index.scoreVectors(qv.subarray(0, dim));
  t = now();
  const exact = await index.scoreVectors(qv);
  const exactQps = (nq * 1000) / (now() - t);
  const evalRun = (scores) => eo.evaluateRun(eo.runFromScores(test.queries.map((x) => x.id), scores, corpus, 100), test.qrels);
  const exactPq = evalRun(exact);
  const row = (label, pq, qpsv, cands) => {
    const s = eo.summarize(label, pq);
    line(label, `R@100 ${s['R@100'].toFixed(4)}  MAP ${s.MAP.toFixed(4)}  ${qpsv.toFixed(1)} queries/s${cands ? `  (${cands.toFixed(0)} candidates/query)` : ''}`);
  };
  line(`engine ${index.backend}, 1 thread`, '');
  row('exact (all datasets)', exactPq, exactQps);
  for (const m of [200, 500, 1000, 2000]) {
    await index.scoreRows(qv.subarray(0, dim), Int32Array.from({ length: Math.min(2 * m, corpus.datasets.length) }, (_, i) => i)); // warm-up of this size
    t = now();
    const { scores, candidates } = await eo.nnsscTwoStageScores(index, qv, dim, [lexical, cosine], m);
    const ms = now() - t;
    const pq = evalRun(scores);
    row(`two-stage M=${m}`, pq, (nq * 1000) / ms, candidates.reduce((a, b) => a + b, 0) / nq);
    for (const c of eo.compareSystems(pq, exactPq, ['R@100', 'MAP']))
      line(`  ${c.metric} two-stage − exact`, `${c.meanDiff >= 0 ? '+' : ''}${c.meanDiff.toFixed(4)}  95% CI [${c.ciLow.toFixed(4)}, ${c.ciHigh.toFixed(4)}]  p ${c.pValue.toFixed(3)}`);
  }
  index.dispose();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
