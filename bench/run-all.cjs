#!/usr/bin/env node
// Runs every bench/*.cjs benchmark in turn (`npm run bench`), passing the arguments through.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
let failed = 0;
for (const f of fs.readdirSync(__dirname).filter((f) => f.endsWith('.cjs') && f !== 'run-all.cjs').sort()) {
  console.log(`\n== ${f}`);
  const r = spawnSync(process.execPath, [path.join(__dirname, f), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
