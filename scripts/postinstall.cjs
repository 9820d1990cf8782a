#!/usr/bin/env node
// Runs after `npm ci` / `npm install`: removes what Node never loads (scripts/prune-install.cjs), compiles the library
// and links the package to itself, so that notebooks and `npx eo` import it by its package name, the way a user of
// the package would.
'use strict';
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { linkSelf } = require('./link-self.cjs');

const root = path.resolve(__dirname, '..');
// what Node never loads goes first (other platforms' binaries, source maps, browser bundles): docs/running.md
execFileSync(process.execPath, [path.join(__dirname, 'prune-install.cjs')], { stdio: 'inherit' });
execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root], { stdio: 'inherit' });
linkSelf();
