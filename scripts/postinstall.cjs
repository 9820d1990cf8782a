#!/usr/bin/env node
// Runs after `npm ci` / `npm install`: compiles the library and links the package to itself, so that
// notebooks and `npx eo` import it by its package name, the way a user of the package would.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const nm = path.join(root, 'node_modules');

execFileSync(process.execPath, [path.join(nm, 'typescript', 'bin', 'tsc'), '-p', root], { stdio: 'inherit' });

function relink(linkPath, target) {
  fs.mkdirSync(path.dirname(linkPath), { recursive: true });
  try { fs.rmSync(linkPath, { force: true, recursive: false }); } catch { /* not there */ }
  fs.symlinkSync(path.relative(path.dirname(linkPath), target), linkPath);
}
relink(path.join(nm, 'eo-workbench'), root);
const bin = path.join(root, 'dist', 'lib', 'cli', 'eo.js');
if (fs.existsSync(bin)) {
  fs.chmodSync(bin, 0o755);
  relink(path.join(nm, '.bin', 'eo'), bin);
}
