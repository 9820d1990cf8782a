#!/usr/bin/env node
// Benchmark: competition ranks of one whole-corpus score vector (lib/fuse/rrf.ts, two per query of every RRF run), in
// ONE run: the binary search per dataset over the sorted values (the path of any array of numbers) and the keyed sort
// of a Float32Array (one native sort of (value, index) keys, one pass). Score vectors: sparse (70 % zeros, as BM25's)
// and dense. Prints ms per vector for each and the ratio, and fails unless the two give the same ranks.
//   node bench/rrf-ranks.cjs [--datasets 10073] [--reps 300]   (--help lists the flags)
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'competition ranks of a score vector: binary search per dataset vs the keyed sort of a Float32Array (same ranks)',
  flags: {
    datasets: { type: 'int', default: 10073, min: 1, help: 'length of a score vector (the full snapshot\'s datasets)' },
    reps: { type: 'int', default: 300, min: 1, help: 'timed vectors per cell (after one warm-up)' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib/fuse'), ...require('../dist/lib/util') };

const now = () => Number(process.hrtime.bigint()) / 1e6;
const rng = eo.mulberry32(5);
const rows = [];
for (const [kind, zeros] of [['sparse', 0.7], ['dense', 0]]) {
  const f32 = Float32Array.from({ length: args.datasets }, () => (rng() < zeros ? 0 : rng() * 12));
  const plain = Array.from(f32); // the same float32 values, as numbers: the binary-search path
  eo.competitionRanks(f32);
  eo.competitionRanks(plain);
  let t = now();
  for (let r = 0; r < args.reps; r++) eo.competitionRanks(plain);
  const search = (now() - t) / args.reps;
  t = now();
  for (let r = 0; r < args.reps; r++) eo.competitionRanks(f32);
  const keyed = (now() - t) / args.reps;
  const a = eo.competitionRanks(plain);
  const b = eo.competitionRanks(f32);
  const same = a.length === b.length && a.every((x, i) => x === b[i]);
  rows.push({ vector: kind, binarySearchMs: +search.toFixed(3), keyedSortMs: +keyed.toFixed(3), ratio: +(search / keyed).toFixed(2), same });
}
console.table(rows);
if (rows.some((r) => !r.same)) {
  console.error('the keyed sort gave other ranks than the binary search');
  process.exit(1);
}
