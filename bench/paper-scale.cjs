#!/usr/bin/env node
// Scale model: what each stage of the workbench costs at NASA-EO-Bench size on THIS machine, one stage a row, with
// the process's peak RSS after each stage, and each stage extrapolated to the paper's schedule.
//
//   node bench/paper-scale.cjs [--quick] [--finetune] [--seed 42] [--no-finetune] [--datasets N] [--queries N] [--test N]
//                              [--out bench/out/paper-scale.json]   (--help lists the flags)
//
// Synthetic benchmark at the paper's scale: 8,058 datasets and 4,234 test queries (the paper notes' sizes; real snapshot
// records drawn at random, so field and text lengths are the real ones) and, where the notes give no size, the
// assumptions of PAPER_SCALE_ASSUMED (lib/bench/paper.ts): 21,272 queries (real publication titles drawn with
// replacement: query lengths are real), 2.24 positives per query on average (1 + Poisson(1.24)), 17,038 train. Semantic vectors
// are random unit vectors (speed does not depend on their values). Stages:
//   BM25 index build; BM25 scoring of the test queries (full score vectors); cosine full-corpus scoring at 512-d
//   and 768-d; NN-SSC full-corpus scoring at 512-d and 768-d (decomposed index, worker threads); min-max convex
//   fusion; metrics of two systems + paired bootstrap (10,000) and randomization (10,000) over 5 metrics; one
//   NN-SSC training epoch at the paper's batch (64 positives × (1 + 10 KNN + 10 random)) measured on a number of
//   steps and scaled, ×1000 epochs; one USE-lite fine-tuning step (paper scope `all`, 5 hard negatives, 128
//   tokens) at a measured smaller batch, scaled linearly in texts to batch 256, × 187 steps/epoch × 10 epochs;
//   LLM listwise rerank of N=200 and of all test queries: calls, tokens (prompt template + 10 real candidates,
//   ≈ 4 characters per token) and cost for every model in lib/llm/models.json.
// --quick runs every stage at a small size (for tests; the fine-tuning step only with --finetune); numbers are still
// scaled to the paper's sizes.
// Numbers depend on load: say what else was running when you quote them.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: "what each stage costs at NASA-EO-Bench size on this machine (time, peak RSS), extrapolated to the paper's schedule, and the LLM rerank cost per model",
  flags: {
    quick: { type: 'boolean', help: 'every stage at a small size (for tests); still scaled to the paper' },
    finetune: { type: 'boolean', help: 'with --quick: measure the fine-tuning step too' },
    'no-finetune': { type: 'boolean', help: 'skip the fine-tuning step' },
    seed: { type: 'int', default: 42, help: 'seed of the synthetic benchmark' },
    datasets: { type: 'int', default: null, min: 1, defaultText: "the paper's 8,058; 300 with --quick", help: 'datasets of the synthetic benchmark' },
    queries: { type: 'int', default: null, min: 1, defaultText: "21,272 (the scale model's assumption, PAPER_SCALE_ASSUMED: the paper notes give no total); 500 with --quick", help: 'queries of the synthetic benchmark' },
    test: { type: 'int', default: null, min: 1, defaultText: "the paper's 4,234; 60 with --quick", help: 'test queries (at most --queries)' },
    out: { type: 'string', default: null, placeholder: 'FILE', defaultText: 'bench/out/paper-scale[-quick].json', help: 'where the JSON result is written' },
  },
});
const header = printHeader(args);
// The public API plus the stage entry points whose full API the scale model needs (rerank prompt, LLM prices, runs).
const eo = { ...require('../dist/lib'), ...require('../dist/lib/rerank'), ...require('../dist/lib/llm'), ...require('../dist/lib/fuse'), ...require('../dist/lib/bench'), ...require('../dist/lib/encode'), ...require('../dist/lib/util'), ...require('../dist/lib/data'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/tensor'), ...require('../dist/lib/train'), ...require('../dist/lib/metrics') };
const { nnsscAdamStep } = require('./lib/common.cjs');

const quick = args.quick;
const seed = args.seed;
const outFile = path.resolve(args.out ?? path.join(__dirname, 'out', quick ? 'paper-scale-quick.json' : 'paper-scale.json'));

/** The paper's sizes (NASA-EO-Bench and the training schedules). */
const PAPER = {
  // datasets, test and rerankSubset are in the paper notes; queries, train, labels per query and pairs are the scale model's assumptions (PAPER_SCALE_ASSUMED)
  datasets: eo.NASA_EO_BENCH.datasets, queries: eo.PAPER_SCALE_ASSUMED.queries, train: eo.PAPER_SCALE_ASSUMED.train, test: eo.NASA_EO_BENCH.test,
  labelsPerQuery: eo.PAPER_SCALE_ASSUMED.labelsPerQuery, rerankSubset: eo.NASA_EO_BENCH.rerankSubset,
  nnsscEpochs: 1000, nnsscBatch: 64, nnsscNegatives: 20, finetunePairs: eo.PAPER_SCALE_ASSUMED.pairs, finetuneBatch: 256, finetuneEpochs: 10,
  finetuneNegatives: 5, rerankWindow: 10,
};
const SIZE = quick
  ? { datasets: 300, queries: 500, test: 60, nnsscSteps: 2, finetuneBatch: 2, finetuneSteps: 2 }
  : { datasets: PAPER.datasets, queries: PAPER.queries, test: PAPER.test, nnsscSteps: 12, finetuneBatch: 8, finetuneSteps: 3 };
// Size overrides (e.g. `--test 300` for a shorter run at full corpus size); every stage is still scaled to PAPER.
for (const k of ['datasets', 'queries', 'test']) if (args[k] !== null) SIZE[k] = args[k];
if (!(SIZE.test > 0 && SIZE.test <= SIZE.queries && SIZE.datasets > 0)) throw new Error(`bad sizes ${JSON.stringify(SIZE)}`);
const runFinetune = !args.noFinetune && (!quick || args.finetune);

const rows = [];
const now = () => Number(process.hrtime.bigint()) / 1e9;
const peakMB = () => Math.round(process.resourceUsage().maxRSS / 1024);
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
// CPU seconds of the process (all threads) since the last row: on a loaded machine wall time overstates what an idle
// machine needs, CPU time does not (for the single-threaded stages it is the idle wall time).
let cpuMark = cpuNow();
let wallMark = Number(process.hrtime.bigint()) / 1e9;
/**
 * One stage. `paper.seconds` scales the measured wall time; `paperSecondsIdle` scales the CPU time instead (÷ the
 * threads the stage uses), the estimate for an idle machine; the verdict uses it. `hint` is the verdict's note
 * (or the whole verdict for stages without a time).
 */
function row(stage, measured, paper, hint, extra = {}) {
  const cpu = cpuNow();
  const wall = now();
  const cpuSeconds = cpu - cpuMark;
  // Share of the stage's wall time this process was on a CPU (everything since the previous row, setup included).
  const onCpu = Math.min(1, cpuSeconds / (extra.threads ?? 1) / Math.max(1e-6, wall - wallMark));
  cpuMark = cpu;
  wallMark = wall;
  const idle = paper.seconds === null ? null : paper.seconds * onCpu;
  const v = paper.seconds === null ? hint : verdict(idle, hint);
  const r = { stage, ...measured, cpuSeconds: Number(cpuSeconds.toFixed(3)), paperSeconds: paper.seconds, paperSecondsIdle: idle, paperHow: paper.how, onCpuShare: Number(onCpu.toFixed(3)), verdict: v, peakRssMB: peakMB(), ...extra };
  rows.push(r);
  const fmt = (s) => (s === null || s === undefined ? '—' : s < 120 ? `${s.toFixed(1)} s` : s < 7200 ? `${(s / 60).toFixed(1)} min` : `${(s / 3600).toFixed(1)} h`);
  console.log(`${stage.padEnd(50)} ${`${measured.n} ${measured.unit}`.padStart(16)} ${fmt(measured.seconds).padStart(8)} (cpu ${fmt(r.cpuSeconds).padStart(8)})  paper scale ${fmt(paper.seconds).padStart(8)} (idle ${fmt(idle).padStart(8)})  RSS ${String(r.peakRssMB).padStart(5)} MB  ${v}`);
}
/** Verdict for a compute stage from its paper-scale time on this machine. */
const verdict = (secs, gpuHint) => (secs <= 600 ? 'fits 2 cores' : secs <= 4 * 3600 ? `fits 2 cores (slow: ${(secs / 3600).toFixed(1)} h)` : `needs a GPU${gpuHint ? ` (${gpuHint})` : ''}`);

function poisson(rng, lambda) {
  const L = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= rng();
  } while (p > L);
  return k - 1;
}
function randomUnitMatrix(rng, n, dim) {
  const m = new Float32Array(n * dim);
  for (let i = 0; i < m.length; i++) m[i] = rng() - 0.5;
  return eo.l2NormalizeRows(m, dim);
}

async function main() {
  const t0 = now();
  const rng = eo.mulberry32(seed);
  // ------------------------------------------------------------ synthetic benchmark
  const real = eo.loadSnapshot({ sample: quick });
  const datasets = [];
  for (let i = 0; i < SIZE.datasets; i++) {
    const d = real.datasets[Math.floor(rng() * real.datasets.length)];
    datasets.push({ ...d, id: `SYN${i}-${d.id}` });
  }
  const corpus = { datasets, publications: [], links: [], origin: `synthetic (paper-scale, seed ${seed})`, hash: `paperscale-${seed}-${SIZE.datasets}`, indexById: new Map(datasets.map((d, i) => [d.id, i])) };
  const titles = real.publications.map((p) => p.title).filter((t) => t && t.trim() !== '');
  const queries = [];
  const qrels = new Map();
  for (let q = 0; q < SIZE.queries; q++) {
    const id = `q${q}`;
    queries.push({ id, text: titles[Math.floor(rng() * titles.length)] });
    const rel = new Map();
    const k = 1 + poisson(rng, PAPER.labelsPerQuery - 1);
    while (rel.size < Math.min(k, SIZE.datasets)) rel.set(datasets[Math.floor(rng() * SIZE.datasets)].id, 1);
    qrels.set(id, rel);
  }
  const test = queries.slice(0, SIZE.test);
  const labels = [...qrels.values()].reduce((s, m) => s + m.size, 0) / qrels.size;
  const textChars = datasets.map((d) => eo.datasetEncoderText(d).length);
  const meanChars = textChars.reduce((a, b) => a + b, 0) / textChars.length;
  console.log(
    `paper-scale model${quick ? ' (--quick)' : ''}: ${datasets.length} datasets (real records from ${real.origin}, mean encoder text ${meanChars.toFixed(0)} chars), ` +
      `${queries.length} queries (${test.length} test), ${labels.toFixed(2)} labels/query; node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0].model}), load avg ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`,
  );
  const scale = (n, paperN) => paperN / n;

  // ------------------------------------------------------------ BM25
  cpuMark = cpuNow();
  wallMark = now();
  let t = now();
  const bm25 = eo.buildBm25(corpus);
  let s = now() - t;
  row('BM25 index build', { n: datasets.length, unit: 'datasets', seconds: s }, { seconds: s * scale(datasets.length, PAPER.datasets), how: 'linear in datasets' }, undefined);
  t = now();
  const bm25Scores = test.map((q) => eo.bm25Scores(bm25, q.text));
  s = now() - t;
  const bm25Paper = s * scale(test.length, PAPER.test) * (PAPER.datasets / datasets.length);
  row('BM25 scoring, test queries', { n: test.length, unit: 'queries', seconds: s }, { seconds: bm25Paper, how: '× test queries × datasets' }, undefined);

  // ------------------------------------------------------------ cosine + NN-SSC
  const semantic = {};
  await eo.initTfBackend({ backend: process.env.EO_TF_BACKEND || undefined, verbose: false });
  const backend = eo.tfBackendInfo();
  for (const dim of [512, 768]) {
    const matrix = randomUnitMatrix(rng, datasets.length, dim);
    const qv = randomUnitMatrix(rng, test.length, dim);
    t = now();
    const cos = [];
    for (let q = 0; q < test.length; q++) cos.push(eo.denseScores(matrix, dim, qv.subarray(q * dim, (q + 1) * dim)));
    s = now() - t;
    const cosPaper = s * scale(test.length, PAPER.test) * (PAPER.datasets / datasets.length);
    row(`cosine scoring ${dim}-d, test queries`, { n: test.length, unit: 'queries', seconds: s }, { seconds: cosPaper, how: '× test queries × datasets' }, undefined);
    if (dim === 512) semantic.cosine = cos;

    const model = eo.initNnsscModel(dim, 256, 256, seed);
    // Worker threads in the full run (as the service and notebooks score); one thread in --quick (no start-up).
    const threads = quick ? 1 : Math.min(2, os.cpus().length);
    t = now();
    const index = threads > 1 ? await eo.NnsscThreadedIndex.create(model, matrix, { threads }) : await eo.NnsscCorpusIndex.create(model, matrix);
    const setup = now() - t;
    t = now();
    const nn = await index.scoreVectors(qv);
    s = now() - t;
    index.dispose();
    // The corpus projection (+ thread start) is paid once; only scoring scales with queries.
    const nnPaper = setup * (PAPER.datasets / datasets.length) + s * scale(test.length, PAPER.test) * (PAPER.datasets / datasets.length);
    row(`NN-SSC scoring ${dim}-d (${threads} thread${threads > 1 ? 's' : ''}), test queries`, { n: test.length, unit: 'queries', seconds: setup + s }, { seconds: nnPaper, how: `setup ${setup.toFixed(1)} s (corpus projection${threads > 1 ? ', threads' : ''}) + scoring, × queries × datasets` }, undefined, { backend: backend.name, setupSeconds: setup, threads });
    if (dim === 512) semantic.nnssc = nn;
  }

  // ------------------------------------------------------------ fusion
  const datasetIds = datasets.map((d) => d.id);
  const ids = test.map((q) => q.id);
  t = now();
  const fused = test.map((_, q) => eo.fuseConvex(semantic.nnssc[q], bm25Scores[q], 0.5));
  const fusedRun = eo.runFromScoreVectors(ids, fused, datasetIds, 100);
  s = now() - t;
  const fusePaper = s * scale(test.length, PAPER.test) * (PAPER.datasets / datasets.length);
  row('min-max convex fusion + top-100 run', { n: test.length, unit: 'queries', seconds: s }, { seconds: fusePaper, how: '× queries × datasets' }, undefined);

  // ------------------------------------------------------------ metrics + paired tests
  t = now();
  const testQrels = new Map(ids.map((id) => [id, qrels.get(id)]));
  const pqA = eo.evaluateRun(fusedRun, testQrels);
  const pqB = eo.evaluateRun(eo.runFromScoreVectors(ids, bm25Scores, datasetIds, 100), testQrels);
  const cmp = eo.compareSystems(pqA, pqB, undefined, { permutations: 10000, bootstrapSamples: 10000, seed });
  s = now() - t;
  // The paired tests cost O(samples × queries): linear in queries.
  const metPaper = s * scale(test.length, PAPER.test);
  row('metrics 2 systems + 10k bootstrap + 10k randomization ×5', { n: test.length, unit: 'queries', seconds: s }, { seconds: metPaper, how: 'linear in test queries' }, undefined, { comparisons: cmp.length });
  delete semantic.cosine;
  bm25Scores.length = 0;

  // ------------------------------------------------------------ NN-SSC training epoch
  {
    const dim = 512;
    const tf = eo.getTf();
    const corpusM = randomUnitMatrix(rng, datasets.length, dim);
    const queryM = randomUnitMatrix(rng, 256, dim);
    const v = eo.nnsscVariables(eo.initNnsscModel(dim, 256, 256, seed));
    const adam = tf.train.adam(1e-4);
    const cands = 1 + PAPER.nnsscNegatives;
    const items = Array.from({ length: PAPER.nnsscBatch }, (_, i) => ({
      query: i % 256, positive: Math.floor(rng() * datasets.length), negatives: Array.from({ length: PAPER.nnsscNegatives }, () => Math.floor(rng() * datasets.length)),
    }));
    const batch = eo.makeNnsscBatch(items, queryM, corpusM, dim, cands);
    const step = () => nnsscAdamStep(eo, v, batch, adam);
    step(); // warm-up
    t = now();
    for (let k = 0; k < SIZE.nnsscSteps; k++) step();
    s = (now() - t) / SIZE.nnsscSteps;
    adam.dispose();
    eo.disposeNnsscVariables(v);
    const positivesPerEpoch = Math.round(PAPER.train * PAPER.labelsPerQuery);
    const stepsPerEpoch = Math.ceil(positivesPerEpoch / PAPER.nnsscBatch);
    const epoch = s * stepsPerEpoch;
    row(`NN-SSC epoch (batch ${PAPER.nnsscBatch}×${cands}, ${backend.name})`, { n: SIZE.nnsscSteps, unit: 'steps', seconds: s * SIZE.nnsscSteps }, { seconds: epoch * PAPER.nnsscEpochs, how: `${s.toFixed(3)} s/step × ${stepsPerEpoch} steps/epoch (${positivesPerEpoch} positives) = ${epoch.toFixed(0)} s/epoch × ${PAPER.nnsscEpochs} epochs` }, 'or the 60-epoch early-stopped CPU schedule', { secondsPerStep: s, secondsPerEpoch: epoch, epochs: PAPER.nnsscEpochs });
  }

  // ------------------------------------------------------------ encoder fine-tuning step
  const stepsPerEpochFt = Math.ceil(PAPER.finetunePairs / PAPER.finetuneBatch);
  if (runFinetune) {
    const B = SIZE.finetuneBatch;
    const text = (i) => eo.datasetEncoderText(datasets[i]);
    const examples = [];
    for (let i = 0; i < B * (SIZE.finetuneSteps + 1); i++) {
      const pos = Math.floor(rng() * datasets.length);
      const negs = Array.from({ length: PAPER.finetuneNegatives }, () => Math.floor(rng() * datasets.length));
      examples.push({ query: queries[i % queries.length].text, positive: text(pos), positiveKey: pos, negatives: negs.map(text), negativeKeys: negs, queryPositiveKeys: [pos] });
    }
    const res = await eo.finetuneUseLite({
      examples,
      config: { ...eo.PAPER_FINETUNE_CONFIG, batchSize: B, maxSteps: SIZE.finetuneSteps, epochs: 1, timeBudgetSec: null, ...(quick ? { maxQueryTokens: 32, maxDocTokens: 32 } : {}) },
    });
    const secs = res.steps.slice(1).map((x) => x.seconds).sort((a, b) => a - b);
    const stepS = secs.length ? secs[Math.floor(secs.length / 2)] : res.steps[0].seconds;
    res.trainable.dispose?.();
    // Texts per step = batch × (query + positive + 5 negatives); cost scales ~linearly in texts at fixed length.
    const step256 = stepS * (PAPER.finetuneBatch / B);
    const total = step256 * stepsPerEpochFt * PAPER.finetuneEpochs;
    row(`fine-tuning step (USE-lite all, batch ${B}, ${res.backend})`, { n: res.steps.length - 1 || 1, unit: 'steps', seconds: stepS }, { seconds: total, how: `${stepS.toFixed(1)} s × 256/${B} = ${step256.toFixed(0)} s/step (batch 256) × ${stepsPerEpochFt} steps × ${PAPER.finetuneEpochs} epochs` }, 'the paper used one B200', { secondsPerStep256: step256, measuredBatch: B, trainableParams: res.trainableParams });
  } else {
    rows.push({ stage: 'fine-tuning step', skipped: quick ? '--quick (add --finetune)' : '--no-finetune' });
    console.log(`${'fine-tuning step'.padEnd(46)} skipped (${quick ? '--quick; add --finetune' : '--no-finetune'})`);
  }

  // ------------------------------------------------------------ LLM rerank: calls, tokens, cost
  const tpl = eo.loadListwisePrompt();
  let chars = 0;
  const probe = Math.min(200, test.length);
  for (let q = 0; q < probe; q++) {
    const window = Array.from({ length: PAPER.rerankWindow }, (_, r) => {
      const d = datasets[Math.floor(rng() * datasets.length)];
      return { id: d.id, record: d, retrievalScore: 1 - r / 10, retrievalRank: r + 1, scores: {} };
    });
    const p = eo.fillRerankTemplate(tpl, test[q].text, window);
    chars += p.system.length + p.user.length;
  }
  const inTok = Math.round(chars / probe / 4);
  // The answer is a short JSON list; chars/4 undercounts digits and punctuation (each is a token), so count pieces.
  const outTok = JSON.stringify({ ranked: [3, 1, 2, 4, 5, 6, 7, 8, 9, 10] }).match(/\w+|[^\s\w]/g).length;
  const models = eo.loadModelsFile().models;
  const llm = [];
  for (const n of [PAPER.rerankSubset, PAPER.test]) {
    for (const m of models) {
      const cost = eo.callCostUsd(m, { inputTokens: inTok * n, outputTokens: outTok * n });
      llm.push({ queries: n, model: m.id, provider: m.provider, calls: n, inputTokens: inTok * n, outputTokens: outTok * n, costUsd: Number(cost.toFixed(4)), maxConcurrency: m.maxConcurrency ?? null });
    }
  }
  const costs = (n) => llm.filter((r) => r.queries === n).map((r) => r.costUsd);
  for (const n of [PAPER.rerankSubset, PAPER.test]) {
    const c = costs(n);
    row(`LLM listwise rerank, ${n} queries (${models.length} models)`, { n, unit: 'calls/model', seconds: null }, { seconds: null, how: `${inTok} input tokens per call (prompt template + 10 candidates, ≈4 chars/token) + ${outTok} output tokens (the JSON answer, one token per word or symbol)` },
      n > 1000 ? 'network-bound: use the provider batch API' : 'interactive API is fine', { costUsdMin: Math.min(...c), costUsdMax: Math.max(...c), inputTokensPerCall: inTok, outputTokensPerCall: outTok });
  }
  console.log('\nLLM rerank cost per model (USD; prices from lib/llm/models.json: check them before quoting):');
  console.log(`${'model'.padEnd(28)} ${'N=200'.padStart(10)} ${`N=${PAPER.test}`.padStart(10)}`);
  for (const m of models) {
    const a = llm.find((r) => r.model === m.id && r.queries === PAPER.rerankSubset);
    const b = llm.find((r) => r.model === m.id && r.queries === PAPER.test);
    console.log(`${m.id.padEnd(28)} ${a.costUsd.toFixed(2).padStart(10)} ${b.costUsd.toFixed(2).padStart(10)}`);
  }

  const out = {
    format: 'eo-paper-scale/1',
    created: new Date().toISOString(),
    header,
    quick, seed,
    machine: { node: process.version, cores: os.cpus().length, cpu: os.cpus()[0].model, loadavg: os.loadavg(), memoryGB: Math.round(os.totalmem() / 2 ** 30), tfBackend: backend.reason },
    sizes: { measured: { datasets: datasets.length, queries: queries.length, test: test.length, labelsPerQuery: labels }, paper: PAPER },
    stages: rows,
    llm,
    wallSeconds: now() - t0,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  eo.writeFileAtomic(outFile, JSON.stringify(out, null, 2) + '\n');
  console.log(`\nwrote ${path.relative(process.cwd(), outFile)} (${out.wallSeconds.toFixed(0)} s wall)`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
