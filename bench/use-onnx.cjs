#!/usr/bin/env node
// Benchmark: USE-lite on TensorFlow.js-wasm (runtime: 'tfjs', the runtime of the published run files) vs the same graph
// rewritten for onnxruntime-node's CPU kernels (runtime: 'onnx', the default where onnxruntime-node loads; 1 and 2
// intra-op threads), in ONE run with interleaved rounds so that load from other
// processes hits every path alike:
//  1. queries (corpus titles): single-query latency p50, queries/s at batch 1 and at batch 16;
//  2. corpus texts (a seeded random sample of dataset texts, shortName + longName + abstract[:512]), in blocks of
//     256 texts (the embedding cache's chunk) with the paths alternating per block: texts/s and CPU seconds;
//  3. max |onnx − tfjs| per component over every query and corpus text (goal ≤ 1e-5), and over the fine-tuned
//     checkpoint (--finetuned DIR, default checkpoints/finetune/use-lite-mnrl[-sample] when present) on --ft-texts texts;
//  4. an estimate of the full-corpus embedding time both ways (wall and CPU seconds, from part 2's rates);
//  5. with --cosine-row: Table 2's Cosine (base) row on the test split both ways — the corpus matrix from the default
//     embedding cache when tfjs wrote it (notebook 02 / `npm start` run with EO_USE_LITE_RUNTIME=tfjs; skipped when the
//     cache was written on onnx, the default runtime) vs the whole corpus embedded on onnx (cached in
//     checkpoints/embeddings-onnx: both runtimes share the encoder id, so they must not share a folder), queries
//     embedded fresh by each — with R@10/R@20/R@100/MAP/MRR and how many top-100 lists differ.
// Prints ratios onnx/tfjs; wall-clock numbers depend on machine load, CPU seconds and ratios much less.
//   node bench/use-onnx.cjs [--sample] [--queries 64] [--rounds 3] [--texts 2000] [--finetuned DIR | --no-finetuned] [--ft-texts 500] [--cosine-row]
//   node bench/use-onnx.cjs --only-cosine-row   (part 5 alone)   (--help lists the flags)
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'USE-lite on tfjs-wasm vs on onnxruntime-node (1 and 2 threads): query latency and throughput, corpus texts/s and CPU-s, max |onnx − tfjs|',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    queries: { type: 'int', default: 64, min: 1, help: 'title queries embedded per round' },
    rounds: { type: 'int', default: 3, min: 1, help: 'interleaved rounds of the query part (the median is printed)' },
    texts: { type: 'int', default: 2000, min: 1, help: 'corpus texts embedded (a seeded random sample)' },
    finetuned: { type: 'string', default: null, placeholder: 'DIR', defaultText: 'checkpoints/finetune/use-lite-mnrl[-sample] when present', help: 'the fine-tuned checkpoint compared in part 3' },
    'no-finetuned': { type: 'boolean', help: 'skip the fine-tuned comparison' },
    'ft-texts': { type: 'int', default: 500, min: 1, help: 'texts of the fine-tuned comparison' },
    'cosine-row': { type: 'boolean', help: "part 5: Table 2's Cosine (base) row on the test split, tfjs vs onnx embeddings" },
    'only-cosine-row': { type: 'boolean', help: 'part 5 alone' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/data'), ...require('../dist/lib/encode'), ...require('../dist/lib/metrics'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/tensor'), ...require('../dist/lib/util') };
const { sample, queries: nq, rounds, texts: nTexts, ftTexts } = args;
const now = () => Number(process.hrtime.bigint()) / 1e6;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const line = (k, v) => console.log(`${k.padEnd(46)} ${v}`);
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const maxAbs = (a, b) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) for (let j = 0; j < a[i].length; j++) m = Math.max(m, Math.abs(a[i][j] - b[i][j]));
  return m;
};

/** A seeded sample of k distinct indices of 0..n-1. */
function sampleIdx(n, k, seed) {
  const rng = eo.mulberry32(seed);
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx.slice(0, Math.min(k, n));
}

async function main() {
  const corpus = eo.loadSnapshot({ sample });
  const N = corpus.datasets.length;
  if (args.onlyCosineRow) return cosineRow(corpus);
  const queries = sampleIdx(N, nq, 1).map((i) => corpus.datasets[i].longName);
  const texts = sampleIdx(N, nTexts, 2).map((i) => eo.datasetEncoderText(corpus.datasets[i]));
  await eo.initTfBackend({ backend: process.env.EO_TF_BACKEND || 'wasm' });
  const info = eo.tfBackendInfo();
  console.log(`USE-lite: tfjs ${info.tfVersion} ${info.name}${info.simd ? ' (simd)' : ''} vs onnxruntime-node CPU; ${nq} title queries, ${texts.length} of ${N} corpus texts, ${rounds} rounds`);
  console.log(`node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0].model}), load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at start`);

  let t = now();
  const paths = [];
  paths.push({ name: 'tfjs-wasm', enc: await eo.loadUseLite({ runtime: 'tfjs', backend: info.name }) });
  line('load tfjs-wasm', `${(now() - t).toFixed(0)} ms`);
  for (const threads of [1, 2]) {
    t = now();
    paths.push({ name: `onnx, ${threads} intra-op thread${threads > 1 ? 's' : ''}`, enc: await eo.loadUseLite({ runtime: 'onnx', intraOpThreads: threads }) });
    line(`load onnx (${threads} thread${threads > 1 ? 's' : ''})`, `${(now() - t).toFixed(0)} ms`);
  }

  // 1. queries: interleaved rounds
  const lat = paths.map(() => []);
  const qps1 = paths.map(() => []);
  const qps16 = paths.map(() => []);
  const qOut = [];
  for (let r = 0; r < rounds; r++) {
    for (const [i, p] of paths.entries()) {
      const t0 = now();
      const rows = [];
      for (const q of queries) {
        const t1 = now();
        rows.push(...(await p.enc.embed([q])));
        lat[i].push(now() - t1);
      }
      qps1[i].push((queries.length * 1000) / (now() - t0));
      qOut[i] = rows;
      const t2 = now();
      for (let k = 0; k < queries.length; k += 16) await p.enc.embed(queries.slice(k, k + 16));
      qps16[i].push((queries.length * 1000) / (now() - t2));
    }
  }
  console.log('\n1. queries (corpus titles)');
  for (const [i, p] of paths.entries())
    line(p.name, `p50 ${med(lat[i]).toFixed(1)} ms; ${med(qps1[i]).toFixed(1)} q/s at batch 1; ${med(qps16[i]).toFixed(1)} q/s at batch 16`);
  const perRound = (xs, a, b) => med(xs[a].map((x, r) => x / xs[b][r]));
  for (const i of [1, 2]) {
    line(`ratio ${paths[i].name} / tfjs`, `latency p50 ${(med(lat[i]) / med(lat[0])).toFixed(2)}x; q/s batch 1 ${perRound(qps1, i, 0).toFixed(2)}x; batch 16 ${perRound(qps16, i, 0).toFixed(2)}x`);
  }

  // 2. corpus texts: blocks of 256, paths alternating per block; plus onnx without its length sort (what the
  //    runtime alone gains: the sort only cuts padding, and the tfjs path keeps input order)
  const block = 256;
  const cPaths = [...paths, { name: 'onnx, 1 thread, input order', enc: await eo.loadUseLite({ runtime: 'onnx', intraOpThreads: 1, sortByLength: false }) }];
  const wall = cPaths.map(() => 0);
  const cpu = cPaths.map(() => 0);
  const cOut = cPaths.map(() => []);
  for (let k = 0; k < texts.length; k += block) {
    const chunk = texts.slice(k, k + block);
    for (const [i, p] of cPaths.entries()) {
      const c0 = cpuMs();
      const t0 = now();
      cOut[i].push(...(await p.enc.embed(chunk)));
      wall[i] += now() - t0;
      cpu[i] += cpuMs() - c0;
    }
  }
  console.log(`\n2. corpus texts (${texts.length}, blocks of ${block})`);
  const rate = wall.map((w) => (texts.length * 1000) / w);
  const cpuPer1k = cpu.map((c) => c / texts.length); // ms per text = CPU-s per 1,000 texts
  for (const [i, p] of cPaths.entries()) line(p.name, `${rate[i].toFixed(1)} texts/s; ${cpuPer1k[i].toFixed(1)} CPU-s per 1,000 texts`);
  for (const i of [1, 2, 3]) line(`ratio ${cPaths[i].name} / tfjs`, `texts/s ${(rate[i] / rate[0]).toFixed(2)}x; CPU-s per text ${(cpuPer1k[i] / cpuPer1k[0]).toFixed(2)}x`);

  // 3. exactness
  console.log('\n3. max |onnx − tfjs| per component (goal ≤ 1e-5)');
  for (const i of [1, 2]) {
    const d = Math.max(maxAbs(qOut[i], qOut[0]), maxAbs(cOut[i], cOut[0]), i === 1 ? maxAbs(cOut[3], cOut[0]) : 0);
    line(`base, ${paths[i].name}`, `${d.toExponential(2)} over ${queries.length + texts.length} texts  (${d <= 1e-5 ? 'met' : 'NOT met'})`);
  }
  const ftDir = (() => {
    if (args.noFinetuned) return null;
    const dir = args.finetuned !== null ? path.resolve(args.finetuned) : path.join(eo.checkpointsDir(), 'finetune', sample ? 'use-lite-mnrl-sample' : 'use-lite-mnrl');
    return fs.existsSync(path.join(dir, 'checkpoint.json')) ? dir : null;
  })();
  if (ftDir) {
    const ftSet = [...texts.slice(0, Math.ceil(ftTexts / 2)), ...sampleIdx(N, Math.floor(ftTexts / 2), 3).map((i) => corpus.datasets[i].longName)];
    const tf = await eo.createEncoder({ kind: 'use-lite-finetuned', options: { checkpointDir: ftDir, runtime: 'tfjs', backend: info.name } });
    const ox = await eo.createEncoder({ kind: 'use-lite-finetuned', options: { checkpointDir: ftDir, runtime: 'onnx', intraOpThreads: 2 } });
    const d = maxAbs(await ox.embed(ftSet), await tf.embed(ftSet));
    line(`fine-tuned (${path.relative(process.cwd(), ftDir)})`, `${d.toExponential(2)} over ${ftSet.length} texts (titles + corpus texts)  (${d <= 1e-5 ? 'met' : 'NOT met'})`);
    tf.dispose();
    ox.dispose();
  } else line('fine-tuned', 'skipped (no checkpoint; pass --finetuned DIR)');

  // 4. full-corpus estimate from part 2's rates (the sample is random, so its length mix is the corpus')
  const full = sample ? eo.loadSnapshot({ sample: false }).datasets.length : N;
  console.log(`\n4. estimated time to embed all ${full} corpus texts once (×2 for base + fine-tuned in the cold run)`);
  for (const [i, p] of cPaths.entries()) line(p.name, `${(full / rate[i]).toFixed(0)} s wall here; ${((cpuPer1k[i] * full) / 1000).toFixed(0)} CPU-s`);
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at the end (the machine is shared: prefer ratios and CPU seconds)`);
  for (const p of cPaths) p.enc.dispose();
  if (args.cosineRow) await cosineRow(corpus);
}

/** Part 5: the Cosine (base) row of Table 2 with the corpus and queries embedded by each runtime. */
async function cosineRow(corpus) {
  console.log(`\n5. Cosine (base) on the test split, tfjs vs onnx embeddings (${sample ? 'sample' : 'full'} snapshot)`);
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample }));
  const test = eo.benchmarkSplit(bench, 'test');
  const texts = corpus.datasets.map((d) => eo.datasetEncoderText(d));
  const tf = await eo.loadUseLite({ runtime: 'tfjs', backend: process.env.EO_TF_BACKEND || 'wasm' });
  const hit = eo.findEmbeddingCache({ encoderId: tf.id, dim: 512, texts, key: corpus.hash });
  if (!hit || hit.meta.backend === eo.USE_LITE_ONNX_BACKEND) {
    console.log(`skipped: no tfjs-computed ${tf.id} corpus embeddings in the default cache (run notebook 02 with EO_USE_LITE_RUNTIME=tfjs first)`);
    tf.dispose();
    return;
  }
  const ox = await eo.loadUseLite({ runtime: 'onnx', intraOpThreads: 2 });
  const c0 = cpuMs();
  const t0 = now();
  const onnxMatrix = await eo.embedCorpusCached({ encoder: ox, texts, key: corpus.hash, cacheDir: path.join(eo.checkpointsDir(), 'embeddings-onnx') });
  line('onnx corpus matrix (cached after the first run)', `${((now() - t0) / 1000).toFixed(0)} s, ${((cpuMs() - c0) / 1000).toFixed(0)} CPU-s`);
  let d = 0;
  for (let i = 0; i < onnxMatrix.length; i++) d = Math.max(d, Math.abs(onnxMatrix[i] - hit.matrix[i]));
  line('max |onnx − tfjs| over the corpus matrix', `${d.toExponential(2)} (${texts.length} texts)`);
  const runs = [];
  for (const [label, enc, matrix] of [['Cosine (base), tfjs', tf, hit.matrix], ['Cosine (base), onnx', ox, onnxMatrix]]) {
    const scored = await eo.scoreQueries(eo.denseScorer(enc, matrix, { noCache: true }), test.queries, corpus);
    runs.push({ id: label, label, run: scored.run });
  }
  const evaluation = eo.evaluateSystems(runs, test.qrels);
  const metrics = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'];
  for (const r of evaluation.rows) line(r.system, metrics.map((m) => `${m} ${Number(r[m]).toFixed(6)}`).join('  '));
  line('onnx − tfjs', metrics.map((m) => `${m} ${(evaluation.rows[1][m] - evaluation.rows[0][m]).toExponential(1)}`).join('  '));
  let differ = 0;
  let firstRank = Infinity;
  for (const q of test.queries) {
    const a = runs[0].run.get(q.id).map((h) => h.docId);
    const b = runs[1].run.get(q.id).map((h) => h.docId);
    const k = a.findIndex((id, i) => id !== b[i]);
    if (k >= 0 || a.length !== b.length) {
      differ++;
      firstRank = Math.min(firstRank, (k >= 0 ? k : Math.min(a.length, b.length)) + 1);
    }
  }
  line('top-100 lists that differ', `${differ} of ${test.queries.length} queries${differ ? ` (highest rank where one differs: ${firstRank})` : ' (run files identical)'}`);
  tf.dispose();
  ox.dispose();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
