#!/usr/bin/env node
// Benchmark: where a cold `npm start` (no checkpoints/, full snapshot) spends its time, measured on slices of the
// big stages in this one run and projected to the full run on 2 cores:
//   - corpus embedding with USE-lite on its default runtime (onnx where onnxruntime-node loads, else tfjs-wasm;
//     $EO_USE_LITE_RUNTIME chooses, as in `npm start`): CPU-s per text on a slice of real dataset texts, × the corpus
//     size; paid twice in a cold run (base encoder in 00/02, fine-tuned encoder in 03; same graph, same cost). The same
//     slice is also embedded in length-sorted batches (less padding) and the two results compared (max abs diff);
//   - encoder fine-tuning (03): CPU-s per MNRL step (CPU_FINETUNE_CONFIG, real texts) × its maxSteps;
//   - NN-SSC training (04): CPU-s of one epoch plus its validation on the full corpus (random unit vectors of the full
//     shape: the MLP's cost does not depend on the values) × the epochs of a full run (--nnssc-epochs);
//   - everything else: the notebooks' CPU-s minus those stages, from a previous run's <reports>/*/run.json when
//     there is one (--reports; cached stages there count as "other" only when they were cached).
// Numbers are CPU seconds of this process (all its threads), so that load from other processes inflates them less
// than wall time; the projections assume 2 idle cores. Two schedules are projected: notebooks one after the other
// (`npm start -- --jobs 1`) and the default (`--jobs 2`: 04's NN-SSC training beside 03).
//   node bench/cold-run.cjs [--texts 48] [--steps 3] [--nnssc-epochs 47] [--reports DIR] [--json]
//                           [--embed-cpu-per-text X]   (project with this embedding cost instead of the measured one,
//                                                       e.g. another runtime's, measured separately)
// With --json the result is printed as JSON on stdout and the header goes to stderr.   (--help lists the flags)
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'where a cold `npm start` spends its time: corpus embedding, fine-tuning and NN-SSC training measured on slices, projected to the full run on 2 cores',
  flags: {
    texts: { type: 'int', default: 48, min: 1, help: 'corpus texts embedded to measure the CPU-s per text' },
    steps: { type: 'int', default: 3, min: 1, help: 'fine-tuning steps measured (the first is a warm-up)' },
    'nnssc-epochs': { type: 'int', default: 47, min: 1, help: 'NN-SSC epochs of a full run, for the projection' },
    reports: { type: 'string', default: null, defaultText: 'reports/ of the checkout', placeholder: 'DIR', help: "a previous run's notebook reports (<DIR>/*/run.json), for everything else" },
    json: { type: 'boolean', help: 'print the result as JSON (the header goes to stderr)' },
    'embed-cpu-per-text': { type: 'number', default: null, above: 0, help: 'project with this embedding cost (CPU-s per text) instead of the measured one' },
  },
});
const nTexts = args.texts;
const ftSteps = args.steps;
const nnsscEpochs = args.nnsscEpochs;
const reportsRoot = args.reports ?? path.join(__dirname, '..', 'reports');
const asJson = args.json;
const embedOverride = args.embedCpuPerText;
const header = printHeader(args, { stream: asJson ? process.stderr : process.stdout, extra: { '--reports': reportsRoot } });
const { finetuneBenchExamples, nnsscFullShapeData } = require('./lib/common.cjs');
const CORES = 2;

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const fmt = (s) => (s >= 120 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(1)} s`);

async function embedStage(eo, corpus) {
  const all = corpus.datasets.map((d) => eo.datasetEncoderText(d));
  // A deterministic spread over the corpus (not its first rows, which come from one DAAC).
  const step = Math.max(1, Math.floor(all.length / nTexts));
  const texts = [];
  for (let i = 0; texts.length < nTexts && i < all.length; i += step) texts.push(all[i]);
  const enc = await eo.loadUseLite({ backend: 'wasm' });
  const encoderBackend = enc.backend;
  const m = await eo.loadUseLiteModel();
  const lens = texts.map((t) => eo.useLiteTokens(m, t).length);
  const allLens = all.map((t) => eo.useLiteTokens(m, t).length);
  m.model.dispose();
  let c = cpu();
  const plain = await enc.embed(texts);
  const plainCpu = cpu() - c;
  const order = texts.map((_, i) => i).sort((a, b) => lens[a] - lens[b] || a - b);
  c = cpu();
  const sortedRows = await enc.embed(order.map((i) => texts[i]));
  const sortedCpu = cpu() - c;
  enc.dispose();
  let maxAbsDiff = 0;
  order.forEach((i, r) => {
    for (let j = 0; j < plain[i].length; j++) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(plain[i][j] - sortedRows[r][j]));
  });
  // Padded tokens of the whole corpus in batches of 32 within 256-text chunks (what embedCorpusCached does), as is
  // and sorted by length within each chunk.
  let real = 0;
  let padded = 0;
  let sortedPadded = 0;
  for (const l of allLens) real += l;
  for (let s = 0; s < allLens.length; s += 256) {
    const chunk = allLens.slice(s, s + 256);
    const sorted = chunk.slice().sort((a, b) => a - b);
    for (let i = 0; i < chunk.length; i += 32) {
      padded += Math.max(...chunk.slice(i, i + 32)) * chunk.slice(i, i + 32).length;
      sortedPadded += Math.max(...sorted.slice(i, i + 32)) * sorted.slice(i, i + 32).length;
    }
  }
  return {
    encoderBackend, texts: texts.length, corpusTexts: all.length, cpuPerText: plainCpu / texts.length, sortedCpuPerText: sortedCpu / texts.length, maxAbsDiff,
    atMaxTokens: allLens.filter((l) => l >= 128).length, realTokens: real, paddedTokens: padded, sortedPaddedTokens: sortedPadded,
  };
}

async function finetuneStage(eo, corpus) {
  const cfg = eo.CPU_FINETUNE_CONFIG;
  const examples = finetuneBenchExamples(eo, corpus, cfg.batchSize * (ftSteps + 1) * 2, cfg.hardNegatives);
  const marks = [];
  const c0 = cpu();
  const res = await eo.finetuneUseLite({
    examples,
    config: { ...cfg, maxSteps: ftSteps, timeBudgetSec: null, epochs: 1 },
    onStep: () => marks.push(cpu()),
  });
  // The first step is a warm-up (graph and kernels set up); count the others.
  const perStep = marks.length > 1 ? (marks[marks.length - 1] - marks[0]) / (marks.length - 1) : marks[0] - c0;
  return { steps: res.steps.length, cpuPerStep: perStep, fullSteps: cfg.maxSteps, batchSize: cfg.batchSize, scope: cfg.scope };
}

async function nnsscStage(eo, corpus) {
  // The full run's shape: 580 training queries (15% held out for validation), ~6 positives each.
  const data = nnsscFullShapeData(eo, corpus);
  const Q = data.queries.length;
  const marks = [];
  await eo.trainNnssc(data, { maxEpochs: 2, patience: 2 }, { backend: 'wasm', onEpoch: () => marks.push(cpu()) });
  return { cpuPerEpoch: marks[1] - marks[0], fullEpochs: nnsscEpochs, trainPositives: Math.round(Q * 0.85 * 6) };
}

/** CPU-s per notebook of a previous run (run.json), or null. */
function previousRun(root) {
  if (!fs.existsSync(root)) return null;
  const out = {};
  for (const d of fs.readdirSync(root).sort()) {
    const f = path.join(root, d, 'run.json');
    if (!fs.existsSync(f)) continue;
    try {
      const r = JSON.parse(fs.readFileSync(f, 'utf8'));
      out[d] = { cpu: r.kernelCpuSeconds ?? null, wall: r.seconds ?? null, cells: (r.cells ?? []).map((c) => ({ n: c.number, wall: c.seconds, cpu: c.cpuSeconds ?? null })) };
    } catch {
      /* skip unreadable */
    }
  }
  return Object.keys(out).length ? out : null;
}

(async () => {
  const eo = { ...require('../dist/lib'), ...require('../dist/lib/data'), ...require('../dist/lib/encode'), ...require('../dist/lib/tensor'), ...require('../dist/lib/train') };
  await eo.initTfBackend({ backend: 'wasm' });
  const corpus = eo.loadSnapshot({});
  const t0 = Date.now();
  const embed = await embedStage(eo, corpus);
  const ft = await finetuneStage(eo, corpus);
  const nn = await nnsscStage(eo, corpus);
  const prev = previousRun(reportsRoot);

  const embedCpu = (embedOverride ?? embed.cpuPerText) * embed.corpusTexts;
  const ftCpu = ft.cpuPerStep * ft.fullSteps;
  const nnCpu = nn.cpuPerEpoch * nn.fullEpochs;
  // Everything else, from the previous run: notebook CPU minus its big cells (03 cells 3–4, 04 cell 4), where those
  // ran; embedding there was cached (the run reused checkpoints/embeddings), so it is not in these numbers.
  let otherCpu = null;
  if (prev) {
    const big = { '03-encoder-finetune': [3, 4], '04-nnssc': [4] };
    otherCpu = 0;
    for (const [nb, r] of Object.entries(prev)) {
      const skip = big[nb] ?? [];
      otherCpu += (r.cpu ?? 0) - r.cells.filter((c) => skip.includes(c.n)).reduce((a, c) => a + (c.cpu ?? 0), 0);
    }
  }
  const other = otherCpu ?? 0;
  // Wall time on 2 idle cores: corpus embedding runs on 2 workers; fine-tuning and NN-SSC training use one thread.
  const serial = embedCpu / CORES + ftCpu + embedCpu / CORES + nnCpu + other;
  // --jobs 2: 04 (NN-SSC) beside 03 (fine-tune, then re-embed on 2 workers); the window is bounded by each lane and by
  // the total work of both on 2 cores.
  const window = Math.max(ftCpu + embedCpu / CORES, nnCpu, (ftCpu + embedCpu + nnCpu) / CORES);
  const parallel = embedCpu / CORES + window + other;

  const rows = [
    ['corpus embedding, base (00/02)', embedCpu, embedCpu / CORES, `${embed.corpusTexts} texts × ${(embedOverride ?? embed.cpuPerText).toFixed(3)} CPU-s (${embedOverride !== null ? `given; measured ${embed.cpuPerText.toFixed(3)}` : `slice of ${embed.texts}`}, ${embed.encoderBackend}), 2 workers`],
    ['fine-tuning (03)', ftCpu, ftCpu, `${ft.fullSteps} steps × ${ft.cpuPerStep.toFixed(2)} CPU-s (batch ${ft.batchSize}, scope ${ft.scope}), 1 thread`],
    ['corpus embedding, fine-tuned (03)', embedCpu, embedCpu / CORES, 'same graph and texts as the base embedding, 2 workers'],
    ['NN-SSC training (04)', nnCpu, nnCpu, `${nn.fullEpochs} epochs × ${nn.cpuPerEpoch.toFixed(1)} CPU-s (train + full-corpus validation), 1 thread`],
    ['everything else (00–08)', other, other, otherCpu === null ? `no ${reportsRoot}/*/run.json: not counted` : `previous run's notebook CPU-s minus the stages above (${reportsRoot})`],
  ];
  const result = {
    header,
    machine: `${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`, benchSeconds: (Date.now() - t0) / 1000,
    embed, finetune: ft, nnssc: nn, projection: { serialSeconds: serial, jobs2Seconds: parallel, goalSeconds: 25 * 60 }, stages: rows.map(([stage, cpuS, wallS, how]) => ({ stage, cpuS, wallS, how })),
  };
  if (asJson) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  console.log(`Cold run projection (CPU seconds measured on slices in this run; ${result.machine})`);
  console.log(`${'stage'.padEnd(36)} ${'CPU'.padStart(10)} ${'wall, 2 cores'.padStart(14)}  how`);
  for (const [stage, c, w, how] of rows) console.log(`${stage.padEnd(36)} ${fmt(c).padStart(10)} ${fmt(w).padStart(14)}  ${how}`);
  console.log(`projected cold run: ${fmt(serial)} one notebook at a time (--jobs 1), ${fmt(parallel)} with 04 beside 03 (--jobs 2, the default); goal 25 min`);
  console.log(
    `length-sorted batches: max abs diff ${embed.maxAbsDiff} on ${embed.texts} texts; CPU ratio sorted/plain = ${(embed.sortedCpuPerText / embed.cpuPerText).toFixed(2)} on this slice; ` +
      `corpus tokens: ${embed.realTokens} real, ${embed.paddedTokens} padded as batched (+${((100 * (embed.paddedTokens - embed.realTokens)) / embed.realTokens).toFixed(1)}%), ` +
      `${embed.sortedPaddedTokens} sorted within chunks (+${((100 * (embed.sortedPaddedTokens - embed.realTokens)) / embed.realTokens).toFixed(1)}%); ` +
      `${embed.atMaxTokens} of ${embed.corpusTexts} texts reach the ${128}-token cap`,
  );
})().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
