#!/usr/bin/env node
// Runs after `npm ci` / `npm install`: compiles the library and links the package to itself, so that
// notebooks and `npx eo` import it by its package name, the way a user of the package would.
'use strict';
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { linkSelf } = require('./link-self.cjs');

const root = path.resolve(__dirname, '..');
execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root], { stdio: 'inherit' });
linkSelf();
