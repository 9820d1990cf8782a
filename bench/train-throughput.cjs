#!/usr/bin/env node
// Benchmark: throughput of the encoder fine-tuning step (finetuneUseLite: USE-lite forward + backward + AdamW,
// MNRL loss) on the tfjs wasm backend vs the plain-JS `cpu` backend (and tfjs-node / tfjs-node-gpu when installed),
// same batches, each backend in its own child process (a fresh tfjs). Prints pairs/s per backend and the ratios
// measured in this one run.
//   node bench/train-throughput.cjs [--sample] [--batch 16] [--steps 3] [--scope upper] [--backends wasm,cpu,node,node-gpu]
// The first step of each backend is a warm-up and not counted; the median of the other steps is reported.
// (--help lists the flags)
'use strict';
const { spawnSync } = require('node:child_process');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'throughput of the encoder fine-tuning step (USE-lite forward + backward + AdamW, MNRL) per tfjs backend, same batches',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    batch: { type: 'int', default: 16, min: 1, help: 'pairs per step' },
    steps: { type: 'int', default: 3, min: 2, help: 'steps per backend (the first is a warm-up)' },
    scope: { type: 'string', default: 'upper', choices: ['all', 'encoder', 'upper', 'head'], help: "the weights trained (CPU_FINETUNE_CONFIG's scope is upper)" },
    backends: { type: 'list', default: ['wasm', 'cpu', 'node', 'node-gpu'], help: 'tfjs backends, each in its own child process' },
  },
});
const { sample, batch, steps, scope } = args;
const { finetuneBenchExamples } = require('./lib/common.cjs');

async function child(backend) {
  const eo = { ...require('../dist/lib'), ...require('../dist/lib/data'), ...require('../dist/lib/encode'), ...require('../dist/lib/tensor'), ...require('../dist/lib/train'), ...require('../dist/lib/util') };
  await eo.initTfBackend({ backend });
  const corpus = eo.loadSnapshot({ sample });
  // Real texts (bench/lib/common.cjs): publication titles, one linked dataset each, seeded random negatives.
  const examples = finetuneBenchExamples(eo, corpus, batch * steps * 2);
  if (examples.length < batch * steps) throw new Error(`only ${examples.length} examples`);
  const res = await eo.finetuneUseLite({
    examples,
    config: { ...eo.CPU_FINETUNE_CONFIG, scope, batchSize: batch, maxSteps: steps, timeBudgetSec: null, epochs: 1 },
  });
  const secs = res.steps.slice(1).map((s) => s.seconds).sort((a, b) => a - b);
  const median = secs[Math.floor(secs.length / 2)];
  process.stdout.write(JSON.stringify({ backend: res.backend, params: res.trainableParams, stepSeconds: median, firstStep: res.steps[0].seconds }) + '\n');
}

if (process.env.EO_TRAIN_BENCH_CHILD) {
  child(process.env.EO_TRAIN_BENCH_CHILD).catch((e) => {
    process.stderr.write(String(e && e.message ? e.message : e) + '\n');
    process.exit(2);
  });
} else {
  printHeader(args);
  const backends = args.backends;
  console.log(`Fine-tuning step (MNRL, scope "${scope}", batch ${batch} pairs + ${batch} negatives, ${steps} steps, first = warm-up)${sample ? ', sample snapshot' : ''}`);
  const results = {};
  for (const b of backends) {
    const r = spawnSync(process.execPath, [__filename, ...args.argv], { env: { ...process.env, EO_TRAIN_BENCH_CHILD: b, EO_TF_BACKEND: '' }, encoding: 'utf8' });
    const line = (r.stdout || '').trim().split('\n').pop();
    if (r.status !== 0 || !line) {
      const why = (r.stderr || '').trim().split('\n').pop() || `exit ${r.status}`;
      console.log(`${b.padEnd(9)} not measured: ${why.slice(0, 140)}`);
      continue;
    }
    const m = JSON.parse(line);
    results[b] = m;
    console.log(`${b.padEnd(9)} ${(batch / m.stepSeconds).toFixed(2).padStart(7)} pairs/s   ${(1 / m.stepSeconds).toFixed(3)} steps/s   (${m.stepSeconds.toFixed(2)} s/step, warm-up ${m.firstStep.toFixed(2)} s, ${m.params.toLocaleString()} trainable params)`);
  }
  if (results.wasm && results.cpu) console.log(`ratio wasm/cpu = ${(results.cpu.stepSeconds / results.wasm.stepSeconds).toFixed(1)}x (training throughput, same batches)`);
  for (const n of ['node', 'node-gpu']) if (results[n] && results.wasm) console.log(`ratio ${n}/wasm = ${(results.wasm.stepSeconds / results[n].stepSeconds).toFixed(1)}x`);
}
