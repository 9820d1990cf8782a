#!/usr/bin/env node
// The Adam learning rate of NN-SSC on the static encoder (notebook 04 section 8, `STATIC_NNSSC_CONFIG`), chosen on the
// VALIDATION publications of the training split (the 15% held out for early stopping), never on the test split.
// Why: with the paper's 1e-4 NN-SSC on the static backbone still improves at epoch 87 of 100 and trains all 100
// epochs (≈ 200 s of a cold `npm start`, on its critical path); USE-lite's NN-SSC stops at epoch 52. Each rate trains
// once per seed into its own folder (`checkpoints/nnssc/static-<benchmark>-lr<rate>[-seed<N>]`, reused when run
// again; the rate of notebook 04's checkpoint reads that checkpoint) and prints its best validation MAP, best epoch,
// epochs run and training seconds. The test split is not scored here.
//   node bench/static-nnssc-lr.cjs [--sample] [--lr 1e-4,3e-4,1e-3] [--seeds 42]
'use strict';
const os = require('node:os');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'NN-SSC on the static encoder at several Adam learning rates: validation MAP (training split), best epoch, training seconds',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    lr: { type: 'list', default: ['1e-4', '3e-4', '1e-3'], placeholder: 'A,B,…', help: 'learning rates tried' },
    seeds: { type: 'int-list', default: [42], help: 'training seeds' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/data'), ...require('../dist/lib/train') };

async function main() {
  const corpus = eo.loadSnapshot({ sample: args.sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample: args.sample }));
  console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores; notebook 04's rate ${eo.STATIC_NNSSC_CONFIG.learningRate}`);
  const rows = [];
  for (const seed of args.seeds)
    for (const lrText of args.lr) {
      const learningRate = Number(lrText);
      if (!(learningRate > 0)) throw new Error(`--lr: ${lrText} is not a positive number`);
      const config = { ...eo.STATIC_NNSSC_CONFIG, learningRate, seed };
      const isNotebooks = learningRate === eo.STATIC_NNSSC_CONFIG.learningRate && seed === eo.STATIC_NNSSC_CONFIG.seed;
      const base = eo.staticNnsscDir(bench.name);
      const dir = isNotebooks ? base : `${base}-lr${lrText}${seed === eo.STATIC_NNSSC_CONFIG.seed ? '' : `-seed${seed}`}`;
      const t = performance.now();
      const { nn } = await eo.loadOrTrainStaticNnssc({ corpus, bench, config, dir, log: (l) => console.log(`[lr ${lrText} seed ${seed}] ${l}`) });
      const s = nn.summary;
      const row = { lr: learningRate, seed, dir: path.relative(process.cwd(), dir), trained: !!nn.trained, bestEpoch: s.bestEpoch, epochs: s.curve.length, stoppedBecause: s.stoppedBecause, valMAP: s.bestValScore, trainingSeconds: s.wallSeconds };
      rows.push(row);
      console.log(`lr ${lrText} seed ${seed}: ${row.trained ? 'trained' : 'reused'} ${row.dir}: validation MAP ${row.valMAP?.toFixed(4)} at epoch ${row.bestEpoch} of ${row.epochs} (${row.stoppedBecause}), ${row.trainingSeconds.toFixed(0)} s training (${((performance.now() - t) / 1000).toFixed(0)} s with loading)`);
    }
  console.log('\nlr      seed  val MAP  best/epochs  training s');
  for (const r of rows) console.log(`${String(r.lr).padEnd(7)} ${String(r.seed).padEnd(5)} ${r.valMAP.toFixed(4)}   ${`${r.bestEpoch}/${r.epochs}`.padEnd(11)}  ${r.trainingSeconds.toFixed(0)}`);
}
main().catch((e) => { console.error(e); process.exit(1); });
