#!/usr/bin/env node
// Packs what a GPU machine without node and without a registry needs to run bench/gpu/train-score.cjs
// (bench/gpu/README.md): bench/gpu/carry/node.tar.xz (this machine's node binary) and bench/gpu/carry/payload.tar.xz
// (dist/, the node_modules files the benchmark loads — recorded by running it once here with --size tiny — plus the
// wasm binaries and Dawn's linux-x64 dawn.node, and Debian's Vulkan loader libvulkan.so.1). Both are xz, which the
// device unpacks with Python's tarfile (bench/gpu/device-run.sh). The device tool carries at most 64 MiB.
//   node bench/gpu/pack.cjs [--vulkan-deb FILE] [--skip-record]
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { benchArgs } = require('../lib/args.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'nothing: packs node, the loaded node_modules files, dist/ and the Vulkan loader for the GPU machine (bench/gpu/carry)',
  flags: {
    'vulkan-deb': { type: 'string', default: null, help: "Debian's libvulkan1 .deb (default: apt-get download libvulkan1 into a scratch folder)" },
    'skip-record': { type: 'boolean', help: 'reuse bench/gpu/carry/loaded.json instead of running the benchmark (--size tiny) to record the loaded files' },
  },
});

const ROOT = path.resolve(__dirname, '..', '..');
const CARRY = path.join(__dirname, 'carry');
const LIMIT = 64 * 1024 * 1024;
fs.mkdirSync(CARRY, { recursive: true });

const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

function need(cond, message) {
  if (!cond) {
    process.stderr.write(`pack: ${message}\n`);
    process.exit(2);
  }
}

need(fs.existsSync(path.join(ROOT, 'dist', 'lib', 'train', 'static-tf.js')), 'dist/ is not built: npm run build');
need(fs.existsSync(path.join(ROOT, 'node_modules', 'webgpu')) && fs.existsSync(path.join(ROOT, 'node_modules', '@tensorflow', 'tfjs-backend-webgpu')), 'the WebGPU packages are not installed: npm run install-webgpu');

// 1. the node_modules files the benchmark loads (every child included): a preload records require.cache at exit
const loadedFile = path.join(CARRY, 'loaded.json');
if (!args.skipRecord) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-gpu-pack-'));
  const preload = path.join(scratch, 'record.cjs');
  fs.writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(require('node:path').join(${JSON.stringify(scratch)}, 'loaded-' + process.pid + '.json'), JSON.stringify(Object.keys(require.cache))));\n`);
  const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim() };
  // webgpu on SwiftShader where there is one, so that Dawn's and tfjs-backend-webgpu's files are recorded
  const icd = '/usr/lib/chromium/vk_swiftshader_icd.json';
  if (!env.VK_DRIVER_FILES && fs.existsSync(icd)) Object.assign(env, { VK_DRIVER_FILES: icd, LD_LIBRARY_PATH: [path.dirname(icd), env.LD_LIBRARY_PATH].filter(Boolean).join(':') });
  const r = spawnSync(process.execPath, [path.join(__dirname, 'train-score.cjs'), '--size', 'tiny', '--epochs', '1', '--nnssc-batches', '64', '--static-batches', '256', '--score-queries', '2', '--out', path.join(scratch, 'out.json')], { cwd: ROOT, env, stdio: 'inherit' });
  need(r.status === 0, `the recording run failed (exit ${r.status})`);
  // and what bench/gpu/device-run.sh runs before it: the adapter check with the parity of the training path
  const check = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'lib', 'cli', 'eo.js'), 'gpu', 'check', '--parity'], { cwd: ROOT, env, stdio: 'inherit' });
  need(check.status === 0, `eo gpu check --parity failed in the recording run (exit ${check.status})`);
  const files = new Set();
  for (const f of fs.readdirSync(scratch).filter((f) => f.startsWith('loaded-'))) for (const m of JSON.parse(fs.readFileSync(path.join(scratch, f), 'utf8'))) files.add(m);
  fs.writeFileSync(loadedFile, JSON.stringify([...files].sort(), null, 1) + '\n');
  fs.rmSync(scratch, { recursive: true, force: true });
}
const loaded = JSON.parse(fs.readFileSync(loadedFile, 'utf8')).filter((f) => f.startsWith(path.join(ROOT, 'node_modules') + path.sep));
const rel = new Set(loaded.map((f) => path.relative(ROOT, f)));
// each loaded package's package.json (require reads them to resolve `main`), and files read without require
for (const f of [...rel]) {
  const parts = f.split(path.sep);
  const pkg = parts[1].startsWith('@') ? parts.slice(0, 3) : parts.slice(0, 2);
  const pj = path.join(...pkg, 'package.json');
  if (fs.existsSync(path.join(ROOT, pj))) rel.add(pj);
}
for (const f of fs.readdirSync(path.join(ROOT, 'node_modules/@tensorflow/tfjs-backend-wasm/dist')).filter((f) => f.endsWith('.wasm'))) rel.add(path.join('node_modules/@tensorflow/tfjs-backend-wasm/dist', f));
need([...rel].some((f) => f.endsWith('dawn.node')), "the recording run did not load Dawn's dawn.node (no SwiftShader here?): cannot know the webgpu package's files");

// 2. the Vulkan loader from Debian's libvulkan1
const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-gpu-stage-'));
let deb = args.vulkanDeb;
if (!deb) {
  execFileSync('apt-get', ['download', 'libvulkan1'], { cwd: stage, stdio: 'inherit' });
  deb = path.join(stage, fs.readdirSync(stage).find((f) => f.startsWith('libvulkan1_') && f.endsWith('.deb')));
}
execFileSync('dpkg', ['-x', deb, path.join(stage, 'deb')]);
const vk = execFileSync('find', [path.join(stage, 'deb'), '-name', 'libvulkan.so.1*', '-type', 'f'], { encoding: 'utf8' }).trim().split('\n')[0];
need(vk, `no libvulkan.so.1 in ${deb}`);
fs.mkdirSync(path.join(ROOT, 'bench', 'gpu', 'carry', 'vulkan'), { recursive: true });
fs.copyFileSync(vk, path.join(CARRY, 'vulkan', 'libvulkan.so.1'));

// 3. the archives
const list = path.join(stage, 'files.txt');
fs.writeFileSync(list, ['dist', 'bench/gpu/carry/vulkan/libvulkan.so.1', ...[...rel].sort()].join('\n') + '\n');
execFileSync('tar', ['-cJf', path.join(CARRY, 'payload.tar.xz'), '-C', ROOT, '-T', list]);
const nodeDir = path.join(stage, 'node', 'bin');
fs.mkdirSync(nodeDir, { recursive: true });
fs.copyFileSync(process.execPath, path.join(nodeDir, 'node'));
execFileSync('tar', ['-cf', path.join(CARRY, 'node.tar.xz'), '--use-compress-program=xz -9 -T2', '-C', path.join(stage, 'node'), 'bin']);
fs.rmSync(stage, { recursive: true, force: true });
const sizes = ['node.tar.xz', 'payload.tar.xz'].map((f) => [f, fs.statSync(path.join(CARRY, f)).size]);
const total = sizes.reduce((s, [, n]) => s + n, 0) + fs.statSync(path.join(CARRY, 'vulkan', 'libvulkan.so.1')).size + fs.statSync(loadedFile).size;
for (const [f, n] of sizes) console.log(`${f.padEnd(16)} ${mb(n)}`);
console.log(`bench/gpu/carry  ${mb(total)} of the device's ${mb(LIMIT)} (node ${process.version}, ${rel.size} node_modules files)`);
need(total < LIMIT, 'over the device limit');
