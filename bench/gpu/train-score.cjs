#!/usr/bin/env node
// Device benchmark (issue 45, step 4): NN-SSC training, NN-SSC full-corpus scoring and the static encoder's training
// on each TensorFlow.js backend (each in its own child process: a fresh tfjs), same seeded data, and the ratios and
// the agreement of the losses measured in this one run.
//   node bench/gpu/train-score.cjs [--backends wasm,webgpu] [--size full|quick|tiny] [--out FILE]
// The data are synthetic and shaped as the project's (seeded, the same in every child): a corpus of 10,073 unit
// vectors of 512 dims in topics, training queries near one to three of their topic's datasets; NN-SSC as the project
// trains it (1024 → 256 → 256 → 1, 10 hard + 10 random negatives, validation on 15 % with full-corpus scoring);
// the static encoder on 24,000 tokens × 256 dims, Matryoshka 256/128/64, pairs of a 4–12-token query and a 30–64-token
// document. The CPU path is measured beside it: the typed-array static trainer, and tfjs-wasm for NN-SSC.
// On a GPU machine run it through bench/gpu/device-run.sh (what to carry: bench/gpu/README.md). --size quick shrinks
// every size to try the script on a CPU (with SwiftShader for webgpu: docs/encoders-and-gpu.md).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { benchArgs } = require('../lib/args.cjs');
const { printHeader } = require('../lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'NN-SSC training and full-corpus scoring, and the static encoder training, per tfjs backend (webgpu vs the CPU path), same seeded data',
  flags: {
    backends: { type: 'list', default: ['wasm', 'webgpu'], help: 'tfjs backends, each in its own child process (wasm, cpu, webgpu, node, node-gpu)' },
    size: { type: 'string', default: 'full', choices: ['full', 'quick', 'tiny'], help: "the data's sizes: full (the project's shapes), quick (a corpus of 2,000 × 128, 3,000 static pairs: to try the script on a CPU), tiny (seconds even on SwiftShader: bench/gpu/pack.cjs records the loaded files with it)" },
    epochs: { type: 'int', default: 2, min: 1, help: 'NN-SSC epochs per batch size (each followed by validation)' },
    'nnssc-batches': { type: 'int-list', default: [64, 1024], help: 'NN-SSC positives per step (64: the paper\'s)' },
    'static-batches': { type: 'int-list', default: [256, 2048], help: 'static encoder pairs per step (256: the default)' },
    'typed-batches': { type: 'int-list', default: null, defaultText: 'the static batches', help: 'batch sizes at which the typed-array trainer (the CPU path) runs beside tfjs-wasm (its batch of 2,048 takes 3 minutes on 2 cores)' },
    'score-queries': { type: 'int', default: 32, min: 1, help: 'queries timed for full-corpus scoring (after 2 warm-up queries)' },
    out: { type: 'string', default: 'bench/out/gpu-train-score.json', help: 'where the results are written as JSON (also under $OUT when set)' },
  },
});

const SIZES = {
  full: { corpus: 10073, dim: 512, topics: 400, queries: 1500, vocab: 24000, pairs: 30000, staticDim: 256, staticDims: [256, 128, 64] },
  quick: { corpus: 2000, dim: 128, topics: 40, queries: 300, vocab: 3000, pairs: 3000, staticDim: 64, staticDims: [64, 32] },
  tiny: { corpus: 200, dim: 16, topics: 8, queries: 40, vocab: 200, pairs: 200, staticDim: 16, staticDims: [16, 8] },
}[args.size];

/** The seeded synthetic data, the same in every child. */
function syntheticData(eo) {
  const rng = eo.mulberry32(20261205);
  const gauss = () => Math.sqrt(-2 * Math.log(Math.max(rng(), 1e-12))) * Math.cos(2 * Math.PI * rng());
  const unit = (v) => { let n = 0; for (const x of v) n += x * x; n = Math.sqrt(n) || 1; for (let i = 0; i < v.length; i++) v[i] /= n; return v; };
  const { corpus: N, dim: D, topics: K, queries: Q } = SIZES;
  const centres = Array.from({ length: K }, () => unit(Float32Array.from({ length: D }, gauss)));
  const topicOf = Int32Array.from({ length: N }, () => Math.floor(rng() * K));
  const corpusMatrix = new Float32Array(N * D);
  for (let i = 0; i < N; i++) corpusMatrix.set(unit(Float32Array.from(centres[topicOf[i]], (c) => c + 0.08 * gauss())), i * D);
  const byTopic = Array.from({ length: K }, () => []);
  topicOf.forEach((t, i) => byTopic[t].push(i));
  const queryMatrix = new Float32Array(Q * D);
  const positives = [];
  const queries = [];
  for (let q = 0; q < Q; q++) {
    const t = Math.floor(rng() * K);
    const pool = byTopic[t].length ? byTopic[t] : [0];
    const pos = [...new Set(Array.from({ length: 1 + Math.floor(rng() * 3) }, () => pool[Math.floor(rng() * pool.length)]))];
    positives.push(pos);
    queries.push({ id: `q${q}`, group: `pub${Math.floor(q / 2)}` });
    queryMatrix.set(unit(Float32Array.from(corpusMatrix.subarray(pos[0] * D, (pos[0] + 1) * D), (c) => c + 0.05 * gauss())), q * D);
  }
  const nnssc = { corpusMatrix, dim: D, datasetIds: Array.from({ length: N }, (_, i) => `d${i}`), queries, queryMatrix, positives };
  // static pairs: Zipf-distributed background words and topic words shared by a query and its document
  const V = SIZES.vocab;
  const word = (i) => `w${i}`;
  const zipf = () => Math.min(V - 1, Math.floor(Math.exp(rng() * Math.log(V))) - 1);
  const topicWords = Array.from({ length: K }, () => Array.from({ length: 12 }, () => Math.floor(rng() * V)));
  const text = (t, len) => Array.from({ length: len }, () => word(rng() < 0.5 ? topicWords[t][Math.floor(rng() * 12)] : zipf())).join(' ');
  const pairs = [];
  for (let p = 0; p < SIZES.pairs; p++) {
    const t = Math.floor(rng() * K);
    pairs.push({ query: text(t, 4 + Math.floor(rng() * 9)), doc: text(t, 30 + Math.floor(rng() * 35)), source: 'synthetic' });
  }
  const vocab = eo.buildStaticVocabulary([...Array.from({ length: V }, (_, i) => word(i)), ...pairs.flatMap((p) => [p.query, p.doc])], { maxTokens: V, minCount: 1 });
  return { nnssc, pairs, vocab };
}

async function child(backend) {
  const dist = path.join(__dirname, '..', '..', 'dist', 'lib');
  const eo = { ...require(path.join(dist, 'tensor')), ...require(path.join(dist, 'train')), ...require(path.join(dist, 'retrieve')), ...require(path.join(dist, 'encode')), ...require(path.join(dist, 'util')) };
  const info = await eo.initTfBackend({ backend });
  const data = syntheticData(eo);
  const out = { backend: info.name, adapter: info.adapter ?? null, gpu: info.gpu, reason: info.reason, nnssc: [], scoring: null, static: [] };
  let model = null;
  for (const batchSize of args.nnsscBatches) {
    const r = await eo.trainNnssc(data.nnssc, { ...eo.DEFAULT_NNSSC_CONFIG, batchSize, maxEpochs: args.epochs, patience: 1e9, maxSeconds: 0 }, { backend });
    out.nnssc.push({ batchSize, positivesPerSecond: r.positivesPerSecond, wallSeconds: r.wallSeconds, firstEpochLoss: r.curve[0].trainLoss, lastValMAP: r.curve[r.curve.length - 1].valMAP });
    model ??= r.model;
  }
  const index = await eo.NnsscCorpusIndex.create(model, data.nnssc.corpusMatrix, { backend, queriesPerBatch: backend === 'webgpu' ? 16 : 4 });
  const qs = data.nnssc.queryMatrix.subarray(0, (2 + args.scoreQueries) * SIZES.dim);
  await index.scoreVectors(qs.subarray(0, 2 * SIZES.dim));
  const t0 = performance.now();
  await index.scoreVectors(qs.subarray(2 * SIZES.dim));
  out.scoring = { queries: args.scoreQueries, corpus: SIZES.corpus, msPerQuery: (performance.now() - t0) / args.scoreQueries };
  index.dispose();
  for (const batchSize of args.staticBatches) {
    const config = { dim: SIZES.staticDim, dims: SIZES.staticDims, epochs: 1, batchSize, seed: 42 };
    const r = await eo.trainStaticModelTf(data.vocab, data.pairs, config, { backend });
    out.static.push({ engine: `tfjs-${info.name}`, batchSize, seconds: r.seconds, pairsPerSecond: data.pairs.length / r.seconds, epochLoss: r.curve[0].loss });
    if (backend === 'wasm' && (args.typedBatches ?? args.staticBatches).includes(batchSize)) {
      // the CPU path: the typed-array trainer the default run uses
      const js = eo.trainStaticModel(data.vocab, data.pairs, config);
      out.static.push({ engine: 'typed arrays (CPU path)', batchSize, seconds: js.seconds, pairsPerSecond: data.pairs.length / js.seconds, epochLoss: js.curve[0].loss });
    }
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

function fmt(x, digits = 1) {
  return x === null || x === undefined || !Number.isFinite(x) ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(digits);
}

function main() {
  printHeader(args);
  console.log(`Sizes (--size ${args.size}): NN-SSC corpus ${SIZES.corpus} × ${SIZES.dim}, ${SIZES.queries} training queries, ${args.epochs} epochs per batch size; static ${SIZES.vocab} tokens × ${SIZES.staticDim}, ${SIZES.pairs} pairs, 1 epoch`);
  const results = [];
  for (const b of args.backends) {
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [__filename, ...args.argv], { env: { ...process.env, EO_GPU_BENCH_CHILD: b, EO_TF_BACKEND: '' }, encoding: 'utf8', maxBuffer: 1 << 26 });
    const line = (r.stdout || '').trim().split('\n').pop();
    if (r.status !== 0 || !line || !line.startsWith('{')) {
      const why = (r.stderr || '').trim().split('\n').filter((l) => !/^=+$|Hi, looks like/.test(l)).pop() || `exit ${r.status}`;
      console.log(`${b.padEnd(8)} not measured: ${why.slice(0, 300)}`);
      results.push({ backend: b, error: why });
      continue;
    }
    const res = JSON.parse(line);
    res.childSeconds = (Date.now() - t0) / 1000;
    results.push(res);
    console.log(`\n${b}: ${res.reason}`);
    for (const n of res.nnssc) console.log(`  NN-SSC batch ${String(n.batchSize).padStart(5)}: ${fmt(n.positivesPerSecond, 0).padStart(7)} positives/s, ${fmt(n.wallSeconds)} s for ${args.epochs} epochs with validation, epoch-1 loss ${n.firstEpochLoss.toFixed(5)}`);
    console.log(`  NN-SSC scoring: ${fmt(res.scoring.msPerQuery, 2)} ms per query over ${res.scoring.corpus} datasets`);
    for (const s of res.static) console.log(`  static ${s.engine.padEnd(24)} batch ${String(s.batchSize).padStart(5)}: ${fmt(s.pairsPerSecond, 0).padStart(7)} pairs/s (${fmt(s.seconds)} s), epoch loss ${s.epochLoss.toFixed(5)}`);
  }
  // ratios and agreement against the first measured backend (the CPU path)
  const ok = results.filter((r) => !r.error);
  const base = ok[0];
  const ratios = [];
  if (base) {
    for (const r of ok.slice(1)) {
      console.log(`\n${r.backend} vs ${base.backend} (same data, this run):`);
      r.nnssc.forEach((n, i) => {
        const b = base.nnssc[i];
        const rel = relativeDiff(n.firstEpochLoss, b.firstEpochLoss);
        console.log(`  NN-SSC batch ${n.batchSize}: ${fmt(ratio(n.positivesPerSecond, b.positivesPerSecond), 2)}× positives/s; epoch-1 loss relative Δ ${rel.toExponential(1)}`);
        ratios.push({ what: `nnssc-train-b${n.batchSize}`, ratio: ratio(n.positivesPerSecond, b.positivesPerSecond), lossRelDiff: rel });
      });
      console.log(`  NN-SSC scoring: ${fmt(ratio(base.scoring.msPerQuery, r.scoring.msPerQuery), 2)}× faster per query`);
      ratios.push({ what: 'nnssc-score', ratio: ratio(base.scoring.msPerQuery, r.scoring.msPerQuery) });
      const cpuPath = base.static.filter((s) => s.engine.startsWith('typed'));
      r.static.forEach((s) => {
        const ref = cpuPath.find((c) => c.batchSize === s.batchSize) ?? base.static.find((c) => c.batchSize === s.batchSize);
        if (!ref) return;
        const rel = relativeDiff(s.epochLoss, ref.epochLoss);
        console.log(`  static batch ${s.batchSize}: ${fmt(ratio(s.pairsPerSecond, ref.pairsPerSecond), 2)}× pairs/s of ${ref.engine}; epoch loss relative Δ ${rel.toExponential(1)}`);
        ratios.push({ what: `static-train-b${s.batchSize}`, against: ref.engine, ratio: ratio(s.pairsPerSecond, ref.pairsPerSecond), lossRelDiff: rel });
      });
    }
  }
  const report = { sizes: SIZES, args: { ...args, argv: undefined }, results, ratios, at: new Date().toISOString() };
  const outs = [...new Set([path.resolve(args.out), ...(process.env.OUT ? [path.resolve(process.env.OUT, path.basename(args.out))] : [])])];
  for (const f of outs) {
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f + '.tmp', JSON.stringify(report, null, 1) + '\n');
    fs.renameSync(f + '.tmp', f);
  }
  console.log(`\nwritten: ${outs.join(', ')}`);
}

/** a / b, NaN when b is not a positive number (a backend that measured nothing). */
function ratio(a, b) {
  return b > 0 ? a / b : NaN;
}

/** |a − b| relative to |b|. */
function relativeDiff(a, b) {
  return Math.abs(a - b) / Math.max(1e-12, Math.abs(b));
}

if (process.env.EO_GPU_BENCH_CHILD) {
  child(process.env.EO_GPU_BENCH_CHILD).catch((e) => {
    process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
    process.exit(2);
  });
} else main();
