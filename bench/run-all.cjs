#!/usr/bin/env node
// Runs every bench/*.cjs benchmark in turn (`npm run bench`), each with its defaults; --sample is passed to the
// scripts that have it (each script's flags are read from its declaration, $EO_BENCH_FLAGS_JSON=1, without running
// it). To set any other flag, run that script alone: `node bench/<name>.cjs --help` lists its flags.
//   node bench/run-all.cjs [--sample]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'every bench/*.cjs benchmark in turn, each with its defaults',
  flags: { sample: { type: 'boolean', help: 'pass --sample to the scripts that have it' } },
});
printHeader(args);

/** The flags a bench script declares, read from its declaration. */
function declaredFlags(file) {
  const r = spawnSync(process.execPath, [file], { env: { ...process.env, EO_BENCH_FLAGS_JSON: '1' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${path.basename(file)}: could not read its flags (exit ${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()).flags;
}

let failed = 0;
for (const f of fs.readdirSync(__dirname).filter((f) => f.endsWith('.cjs') && f !== 'run-all.cjs').sort()) {
  const file = path.join(__dirname, f);
  const pass = args.sample && 'sample' in declaredFlags(file) ? ['--sample'] : [];
  console.log(`\n== ${f}${args.sample && pass.length === 0 ? ' (has no --sample: full run)' : ''}`);
  const r = spawnSync(process.execPath, [file, ...pass], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
