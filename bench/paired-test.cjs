#!/usr/bin/env node
// Benchmark: the paired test (randomization p + bootstrap CI, lib/metrics/paired.ts) on n query pairs, in ONE run:
// drawing its random numbers as it uses them (`keepDraws: false`: every test before the draws were kept) and with the
// draws kept across tests (the default: the notebooks' case, dozens of systems × metrics × styles on the same queries,
// one seed). Prints ms per test for each and the ratio, and fails unless the two give the same p and CI.
//   node bench/paired-test.cjs [--n 86,145,338] [--tests 30]   (--help lists the flags)
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'the paired test per call: its random draws made as it goes vs kept across tests (same numbers)',
  flags: {
    n: { type: 'int-list', default: [86, 145, 338], min: 1, help: 'query pairs per test, one row each (the style benchmark\'s styles, Table 2\'s test split, the style test half)' },
    tests: { type: 'int', default: 30, min: 2, help: 'timed tests per cell (after one warm-up)' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib/metrics'), ...require('../dist/lib/util') };

const now = () => Number(process.hrtime.bigint()) / 1e6;
const rows = [];
for (const n of args.n) {
  const rng = eo.mulberry32(n);
  const a = Array.from({ length: n }, () => rng());
  const b = a.map((x) => Math.min(1, Math.max(0, x + (rng() - 0.45) * 0.3)));
  eo.pairedTest(a, b, 'MAP', { keepDraws: false, seed: 1 }); // warm-up (JIT)
  eo.pairedTest(a, b, 'MAP', { seed: 1 });
  let t = now();
  for (let i = 0; i < args.tests; i++) eo.pairedTest(a, b, 'MAP', { keepDraws: false });
  const drawn = (now() - t) / args.tests;
  const kept = eo.pairedTest(a, b, 'MAP'); // draws made here, then kept
  t = now();
  for (let i = 0; i < args.tests; i++) eo.pairedTest(a, b, 'MAP');
  const reused = (now() - t) / args.tests;
  const reference = eo.pairedTest(a, b, 'MAP', { keepDraws: false });
  const same = ['pValue', 'ciLow', 'ciHigh', 'effectSize'].every((k) => kept[k] === reference[k]) && kept.effectSizeCi95.every((x, i) => x === reference.effectSizeCi95[i]);
  rows.push({ n, drawnPerTestMs: +drawn.toFixed(2), keptMs: +reused.toFixed(2), ratio: +(drawn / reused).toFixed(1), same });
}
console.table(rows);
if (rows.some((r) => !r.same)) {
  console.error('kept draws gave other numbers than draws made per test');
  process.exit(1);
}
