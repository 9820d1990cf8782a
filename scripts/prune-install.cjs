#!/usr/bin/env node
// Removes from node_modules what Node never loads here, after `npm ci` / `npm install` (postinstall runs it):
//   * onnxruntime-node's native binaries for other platforms and CPU architectures (it loads
//     bin/napi-v*/<process.platform>/<process.arch>/ only): about 245 MB on linux-x64;
//   * source maps (*.map) and the browser bundles of @tensorflow/* (Node loads each package's `main`, e.g.
//     @tensorflow/tfjs/dist/tf.node.js; tf.min.js, tf.es2017.js, tf.fesm.js and the WeChat miniprogram build are for
//     browsers and bundlers): about 200 MB;
//   * when the opt-in `webgpu` package is installed (`npm run install-webgpu`), Dawn's dawn.node for other platforms
//     (it loads dist/<platform>-<arch>/ or dist/<platform>-universal/): about 110 MB on linux-x64.
// What stays, and why, is in docs/running.md ("A lighter install"). Safe to run again (it removes nothing twice);
// `--dry-run` only says what it would remove.
//
//   node scripts/prune-install.cjs [--dry-run] [--root DIR]
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** Bytes of a file or folder (not following links). */
function sizeOf(p) {
  const st = fs.lstatSync(p);
  if (!st.isDirectory()) return st.size;
  let n = 0;
  for (const e of fs.readdirSync(p)) n += sizeOf(path.join(p, e));
  return n;
}

/** Every path under `dir` (files and folders, not through links) for which `match(name, full)` holds; a matched folder is not entered. */
function findUnder(dir, match) {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (match(e, full)) out.push(full);
    else if (e.isDirectory() && !e.isSymbolicLink()) out.push(...findUnder(full, match));
  }
  return out;
}

/** The paths to remove under `nodeModules`, each with why. */
function pruneList(nodeModules, platform = process.platform, arch = process.arch) {
  const out = [];
  // onnxruntime-node: bin/napi-v*/<platform>/<arch>
  const ortBin = path.join(nodeModules, 'onnxruntime-node', 'bin');
  for (const napi of fs.existsSync(ortBin) ? fs.readdirSync(ortBin) : []) {
    const base = path.join(ortBin, napi);
    if (!fs.statSync(base).isDirectory()) continue;
    for (const p of fs.readdirSync(base)) {
      const pDir = path.join(base, p);
      if (p !== platform) out.push({ path: pDir, why: `onnxruntime-node binaries for ${p} (this is ${platform})` });
      else for (const a of fs.readdirSync(pDir)) if (a !== arch) out.push({ path: path.join(pDir, a), why: `onnxruntime-node binaries for ${p}-${a} (this is ${arch})` });
    }
  }
  // @tensorflow/*: source maps everywhere, the browser bundles of @tensorflow/tfjs
  const tf = path.join(nodeModules, '@tensorflow');
  for (const pkg of fs.existsSync(tf) ? fs.readdirSync(tf) : []) {
    const dir = path.join(tf, pkg);
    if (fs.lstatSync(dir).isSymbolicLink()) continue; // the project's own stand-ins (stubs/)
    for (const f of findUnder(dir, (e) => e.isFile() && e.name.endsWith('.map'))) out.push({ path: f, why: 'source map (Node does not read it)' });
  }
  const tfjsDist = path.join(tf, 'tfjs', 'dist');
  if (fs.existsSync(tfjsDist)) {
    for (const name of fs.readdirSync(tfjsDist)) {
      if (/^tf\.(?:min|es2017|es2017\.min|fesm|fesm\.min)\.js(?:\.html)?$/.test(name) || name === 'tf.js' || name === 'miniprogram')
        out.push({ path: path.join(tfjsDist, name), why: '@tensorflow/tfjs browser bundle (Node loads dist/tf.node.js)' });
    }
  }
  // webgpu (Dawn): dist/<platform>-<arch> or dist/<platform>-universal
  const dawn = path.join(nodeModules, 'webgpu', 'dist');
  for (const name of fs.existsSync(dawn) ? fs.readdirSync(dawn) : []) {
    const m = /^(darwin|linux|win32|freebsd)-(\w+)$/.exec(name);
    if (m && fs.statSync(path.join(dawn, name)).isDirectory() && !(m[1] === platform && (m[2] === arch || m[2] === 'universal')))
      out.push({ path: path.join(dawn, name), why: `webgpu's dawn.node for ${name} (this is ${platform}-${arch})` });
  }
  return out.filter((x) => fs.existsSync(x.path));
}

/** Remove what `pruneList` names; returns the bytes removed per reason. */
function prune(root, opts = {}) {
  const nodeModules = path.join(root, 'node_modules');
  const byWhy = new Map();
  let total = 0;
  for (const item of pruneList(nodeModules, opts.platform, opts.arch)) {
    const bytes = sizeOf(item.path);
    total += bytes;
    const key = item.why.replace(/ for \S+ \(this is \S+\)/, ' for other platforms');
    byWhy.set(key, (byWhy.get(key) ?? 0) + bytes);
    if (!opts.dryRun) fs.rmSync(item.path, { recursive: true, force: true });
  }
  return { total, byWhy };
}

module.exports = { prune, pruneList };

if (require.main === module) {
  const argv = process.argv.slice(2);
  const dryRun = argv.includes('--dry-run');
  const at = argv.indexOf('--root');
  const root = at >= 0 ? path.resolve(argv[at + 1]) : path.resolve(__dirname, '..');
  const unknown = argv.filter((a, i) => a !== '--dry-run' && a !== '--root' && !(at >= 0 && i === at + 1));
  if (unknown.length) {
    process.stderr.write(`prune-install: unknown argument ${unknown[0]} (flags: --dry-run, --root DIR)\n`);
    process.exit(2);
  }
  const r = prune(root, { dryRun });
  const mb = (b) => (b / 1048576).toFixed(0);
  process.stdout.write(`prune-install: ${dryRun ? 'would remove' : 'removed'} ${mb(r.total)} MB that Node never loads (docs/running.md)${r.total ? ':' : ''}\n`);
  for (const [why, b] of r.byWhy) process.stdout.write(`  ${mb(b).padStart(5)} MB  ${why}\n`);
}
