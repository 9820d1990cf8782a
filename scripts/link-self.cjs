// Links the package to itself: node_modules/eo-workbench -> repo root (so notebooks import it by name) and
// node_modules/.bin/eo -> the compiled CLI. `npm install <pkg>` removes links npm did not make, so the
// notebook runner calls this again when the link is gone.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function relink(linkPath, target) {
  fs.mkdirSync(path.dirname(linkPath), { recursive: true });
  fs.rmSync(linkPath, { force: true });
  fs.symlinkSync(path.relative(path.dirname(linkPath), target), linkPath);
}

function linkSelf() {
  const nm = path.join(root, 'node_modules');
  relink(path.join(nm, 'eo-workbench'), root);
  const bin = path.join(root, 'dist', 'lib', 'cli', 'eo.js');
  if (fs.existsSync(bin)) {
    fs.chmodSync(bin, 0o755);
    relink(path.join(nm, '.bin', 'eo'), bin);
  }
}

module.exports = { linkSelf };
if (require.main === module) linkSelf();
