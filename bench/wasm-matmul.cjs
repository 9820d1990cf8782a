#!/usr/bin/env node
// Benchmark: tfjs-wasm with its big matMuls on XNNPACK ($EO_TF_MATMUL=wasm, the old path) vs on onnxruntime's MLAS
// ($EO_TF_MATMUL=onnx, the default; lib/tensor/wasm-matmul.ts) with 1 and 2 threads, each in its own child process
// (the route is chosen once per process), measured in this one run:
//   - matMul alone on USE-lite's fine-tuning shapes (GFLOP/s);
//   - one encoder fine-tuning step (CPU_FINETUNE_CONFIG: batch 32, real texts; median of the steps after the first);
//   - one NN-SSC epoch on the full corpus shape (DEFAULT_NNSSC_CONFIG, random unit vectors: the cost does not depend
//     on the values; training steps + full-corpus validation of 87 held-out queries; the second epoch).
// Prints wall and CPU seconds per mode and the ratios to XNNPACK, and the fine-tuning losses of each mode (the
// routes must train the same model: losses equal to ~1e-6).
//   node bench/wasm-matmul.cjs [--steps 4] [--modes wasm,onnx1,onnx2] [--json]   (--help lists the flags)
// With --json the result is printed as JSON on stdout and the header goes to stderr.
'use strict';
const os = require('node:os');
const { spawnSync } = require('node:child_process');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: "tfjs-wasm with its big matMuls on XNNPACK vs on onnxruntime's MLAS (1 and 2 threads): matMul GFLOP/s, a fine-tuning step, an NN-SSC epoch",
  flags: {
    steps: { type: 'int', default: 4, min: 2, help: 'fine-tuning steps per mode (the first is a warm-up)' },
    modes: { type: 'list', default: ['wasm', 'onnx1', 'onnx2'], choices: ['wasm', 'onnx1', 'onnx2'], help: 'matMul routes, each in its own child process' },
    json: { type: 'boolean', help: 'print the result as JSON (the header goes to stderr)' },
  },
});
const { steps, modes, json: asJson } = args;
const { finetuneBenchExamples, nnsscFullShapeData } = require('./lib/common.cjs');
const MODE_ENV = {
  wasm: { EO_TF_MATMUL: 'wasm' },
  onnx1: { EO_TF_MATMUL: 'onnx', EO_TF_MATMUL_THREADS: '1' },
  onnx2: { EO_TF_MATMUL: 'onnx', EO_TF_MATMUL_THREADS: '2' },
};

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

async function child() {
  const eo = { ...require('../dist/lib'), ...require('../dist/lib/tensor'), ...require('../dist/lib/train'), ...require('../dist/lib/util') };
  const info = await eo.initTfBackend({ backend: 'wasm', verbose: false });
  const tf = eo.getTf();
  const out = { mode: process.env.EO_WASM_MATMUL_BENCH_CHILD, route: info.reason, matMul: [], finetune: null, nnssc: null };
  // 1. matMul alone.
  const rng = eo.mulberry32(3);
  for (const [m, k, n] of [[2899, 512, 1536], [2899, 1536, 512], [512, 2899, 1536]]) {
    const a = tf.tensor2d(Float32Array.from({ length: m * k }, () => rng() - 0.5), [m, k]);
    const b = tf.tensor2d(Float32Array.from({ length: k * n }, () => rng() - 0.5), [k, n]);
    tf.matMul(a, b).dispose();
    const reps = 3;
    const t = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) tf.matMul(a, b).dataSync();
    const ms = Number(process.hrtime.bigint() - t) / 1e6 / reps;
    out.matMul.push({ shape: `[${m},${k}]×[${k},${n}]`, ms, gflops: (2 * m * k * n) / ms / 1e6 });
    tf.dispose([a, b]);
  }
  // 2. Fine-tuning steps.
  const corpus = eo.loadSnapshot({});
  const cfg = eo.CPU_FINETUNE_CONFIG;
  const examples = finetuneBenchExamples(eo, corpus, cfg.batchSize * (steps + 1) * 2, cfg.hardNegatives);
  const marks = [];
  const res = await eo.finetuneUseLite({ examples, config: { ...cfg, maxSteps: steps, timeBudgetSec: null, epochs: 1 }, onStep: () => marks.push(cpu()) });
  const walls = res.steps.slice(1).map((s) => s.seconds).sort((x, y) => x - y);
  out.finetune = {
    steps: res.steps.length,
    wallPerStep: walls[Math.floor(walls.length / 2)],
    cpuPerStep: (marks[marks.length - 1] - marks[0]) / (marks.length - 1),
    losses: res.steps.map((s) => s.loss),
  };
  // 3. One NN-SSC epoch on the full shape.
  const data = nnsscFullShapeData(eo, corpus);
  const cpuMarks = [];
  const nn = await eo.trainNnssc(data, { maxEpochs: 2, patience: 2 }, { backend: 'wasm', onEpoch: () => cpuMarks.push(cpu()) });
  out.nnssc = { wallPerEpoch: nn.curve[1].seconds, cpuPerEpoch: cpuMarks[1] - cpuMarks[0], valLoss: nn.curve.map((c) => c.valLoss) };
  process.stdout.write(JSON.stringify(out) + '\n');
}

if (process.env.EO_WASM_MATMUL_BENCH_CHILD) {
  child().catch((e) => {
    process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
    process.exit(2);
  });
} else {
  const header = printHeader(args, { stream: asJson ? process.stderr : process.stdout });
  const results = [];
  for (const mode of modes) {
    const r = spawnSync(process.execPath, [__filename, ...args.argv], { env: { ...process.env, ...MODE_ENV[mode], EO_WASM_MATMUL_BENCH_CHILD: mode }, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) {
      console.error(`${mode}: exit ${r.status}\n${r.stderr}`);
      process.exit(1);
    }
    results.push(JSON.parse(r.stdout.trim().split('\n').pop()));
  }
  const base = results.find((r) => r.mode === 'wasm') ?? results[0];
  const machine = { cores: os.cpus().length, cpu: os.cpus()[0]?.model, load: os.loadavg() };
  if (asJson) {
    console.log(JSON.stringify({ header, machine, steps, results }, null, 2));
  } else {
    console.log(`tfjs-wasm matMul route, one run (${machine.cores} cores, load ${machine.load.map((l) => l.toFixed(2)).join(' ')})`);
    console.log('| mode | matMul GFLOP/s (3 shapes) | fine-tune step wall / CPU s | × XNNPACK (wall) | NN-SSC epoch wall / CPU s | × XNNPACK (wall) |');
    console.log('|---|---|---|---|---|---|');
    for (const r of results) {
      console.log(
        `| ${r.mode} | ${r.matMul.map((m) => m.gflops.toFixed(1)).join(' / ')} | ${r.finetune.wallPerStep.toFixed(2)} / ${r.finetune.cpuPerStep.toFixed(2)} | ${(base.finetune.wallPerStep / r.finetune.wallPerStep).toFixed(2)} | ${r.nnssc.wallPerEpoch.toFixed(2)} / ${r.nnssc.cpuPerEpoch.toFixed(2)} | ${(base.nnssc.wallPerEpoch / r.nnssc.wallPerEpoch).toFixed(2)} |`,
      );
    }
    for (const r of results) {
      let d = 0;
      r.finetune.losses.forEach((l, i) => (d = Math.max(d, Math.abs(l - base.finetune.losses[i]))));
      console.log(`${r.mode}: route "${r.route}"; fine-tuning losses ${r.finetune.losses.map((l) => l.toFixed(5)).join(', ')} (max |Δ| vs ${base.mode} ${d.toExponential(1)})`);
    }
  }
}
