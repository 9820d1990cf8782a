#!/usr/bin/env node
// Makes sure the system tools the notebooks need are present, and registers the project's tslab kernel.
//
//   node scripts/ensure-system.cjs [--no-chromium] [--no-jupyter] [--no-kernel] [--check] [--quiet]
//
// * Jupyter: /usr/bin/jupyter, with nbclient + nbconvert + nbformat + jupyter_client importable by /usr/bin/python3
//   (Debian's python; a pyenv `python3` on PATH is never used).
// * The Jupyter Notebook server (Debian's jupyter-notebook 6.4, /usr/bin/jupyter-notebook): checked and installed with jupyter.
// * Chromium: $CHROMIUM_PATH, else /usr/bin/chromium (renders figure PNGs through playwright-core; no browser download).
// * MathJax 2 (Debian's libjs-mathjax, /usr/share/javascript/mathjax): the report site copies what it needs into
//   <reports>/assets/mathjax/ so that the notebook pages typeset their LaTeX offline (nbconvert's default is a CDN).
//   Checked and installed with jupyter.
// * When something is missing and we run as root, installs it with apt-get (non-interactive); when not root,
//   prints the exact command to run and exits 1. `--check` only reports (exit 1 when something is missing).
// * Registers the tslab kernel in the project-local Jupyter data dir <repo>/.jupyter (git-ignored):
//   <repo>/.jupyter/kernels/tslab/kernel.json runs <node> <repo>/node_modules/tslab/bin/tslab kernel --config-path {connection_file},
//   which is what `tslab install` writes, with absolute paths. Runs use JUPYTER_PATH=<repo>/.jupyter (see kernelEnv()).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const PYTHON = '/usr/bin/python3';
const JUPYTER = '/usr/bin/jupyter';
const DEFAULT_CHROMIUM = '/usr/bin/chromium';
const KERNEL_NAME = 'tslab';
const JUPYTER_APT = ['jupyter-nbconvert', 'python3-nbclient', 'jupyter-client', 'python3-ipython'];
// The interactive Notebook 6.4 server (README "Open the notebooks interactively"; test/jupyter-server.test.ts).
const NOTEBOOK_SERVER = '/usr/bin/jupyter-notebook';
const NOTEBOOK_SERVER_APT = ['jupyter-notebook'];
const MATHJAX_DIR = '/usr/share/javascript/mathjax';
const MATHJAX_APT = ['libjs-mathjax'];
const CHROMIUM_APT = ['chromium'];
const ALL_APT = [...JUPYTER_APT, ...NOTEBOOK_SERVER_APT, ...MATHJAX_APT, ...CHROMIUM_APT];
const INSTALL_COMMAND = `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${ALL_APT.join(' ')}`;

/** The Chromium binary figures are rendered with: $CHROMIUM_PATH, else /usr/bin/chromium. */
function chromiumPath() {
  return process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
}

function jupyterDir(root = ROOT) {
  return path.join(root, '.jupyter');
}

/** Environment additions for anything that talks to Jupyter: the project-local kernel registry. */
function kernelEnv(root = ROOT) {
  const dir = jupyterDir(root);
  return { JUPYTER_PATH: dir, JUPYTER_RUNTIME_DIR: path.join(dir, 'runtime') };
}

function hasJupyter() {
  if (!fs.existsSync(JUPYTER) || !fs.existsSync(PYTHON)) return false;
  const r = spawnSync(PYTHON, ['-c', 'import nbclient, nbconvert, nbformat, jupyter_client'], { stdio: 'ignore' });
  return r.status === 0;
}

function hasMathJax() {
  return fs.existsSync(path.join(MATHJAX_DIR, 'MathJax.js'));
}

function hasChromium() {
  return fs.existsSync(chromiumPath());
}

/** What is missing, as apt package lists. */
function checkSystem({ jupyter = true, chromium = true } = {}) {
  const missing = [];
  const packages = [];
  if (jupyter && !hasJupyter()) {
    missing.push(`jupyter (${JUPYTER} with nbclient/nbconvert for ${PYTHON})`);
    packages.push(...JUPYTER_APT);
  }
  if (jupyter && !fs.existsSync(NOTEBOOK_SERVER)) {
    missing.push(`the Jupyter Notebook server (${NOTEBOOK_SERVER})`);
    packages.push(...NOTEBOOK_SERVER_APT);
  }
  if (jupyter && !hasMathJax()) {
    missing.push(`MathJax for the report pages (${MATHJAX_DIR})`);
    packages.push(...MATHJAX_APT);
  }
  if (chromium && !hasChromium()) {
    missing.push(`chromium (${chromiumPath()})`);
    packages.push(...CHROMIUM_APT);
  }
  return { missing, packages };
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.error) throw r.error;
  if (r.status !== 0) throw systemError(`\`${cmd} ${args.join(' ')}\` failed with exit code ${r.status}`);
}

function systemError(message) {
  const e = new Error(message);
  e.code = 'SYSTEM_MISSING';
  return e;
}

/** Write <root>/.jupyter/kernels/tslab/kernel.json (only when its content changes). Returns its path. */
function registerKernel(root = ROOT) {
  const tslabBin = path.join(root, 'node_modules', 'tslab', 'bin', 'tslab');
  if (!fs.existsSync(tslabBin)) throw systemError(`tslab is not installed (${tslabBin} missing): run \`npm ci\` first`);
  const spec = {
    argv: [process.execPath, tslabBin, 'kernel', '--config-path', '{connection_file}'],
    display_name: 'TypeScript (tslab, eo-workbench)',
    language: 'typescript',
  };
  const dir = path.join(jupyterDir(root), 'kernels', KERNEL_NAME);
  const file = path.join(dir, 'kernel.json');
  const text = JSON.stringify(spec, null, 1) + '\n';
  let old = null;
  try { old = fs.readFileSync(file, 'utf8'); } catch { /* first time */ }
  if (old !== text) {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  }
  fs.mkdirSync(kernelEnv(root).JUPYTER_RUNTIME_DIR, { recursive: true });
  return file;
}

/**
 * Check (and as root, install) jupyter + chromium, then register the kernel.
 * Throws an Error with code SYSTEM_MISSING when something is missing and cannot be installed.
 */
function ensureSystem({ root = ROOT, jupyter = true, chromium = true, kernel = true, install = true, quiet = false, log = console.log } = {}) {
  const say = quiet ? () => {} : log;
  let { missing, packages } = checkSystem({ jupyter, chromium });
  if (missing.length > 0) {
    const cmd = `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${packages.join(' ')}`;
    if (!install) throw systemError(`missing: ${missing.join(', ')}. Install with (as root):\n  ${cmd}`);
    if (!isRoot())
      throw systemError(`missing: ${missing.join(', ')}. Not root, so not installing. Run:\n  sudo sh -c '${cmd}'`);
    log(`[ensure-system] missing: ${missing.join(', ')}; installing: ${packages.join(' ')}`);
    const env = { DEBIAN_FRONTEND: 'noninteractive' };
    run('apt-get', ['update'], env);
    run('apt-get', ['install', '-y', ...packages], env);
    ({ missing } = checkSystem({ jupyter, chromium }));
    if (missing.length > 0) throw systemError(`still missing after apt-get install: ${missing.join(', ')}`);
  }
  const kernelJson = kernel ? registerKernel(root) : null;
  say(
    `[ensure-system] ok: ${[jupyter && 'jupyter', chromium && 'chromium', kernel && `kernel ${KERNEL_NAME} (JUPYTER_PATH=${jupyterDir(root)})`]
      .filter(Boolean)
      .join(', ')}`,
  );
  return { python: PYTHON, jupyter: JUPYTER, chromium: chromium ? chromiumPath() : null, kernelName: KERNEL_NAME, kernelJson, env: kernelEnv(root) };
}

module.exports = {
  ensureSystem,
  checkSystem,
  registerKernel,
  kernelEnv,
  chromiumPath,
  PYTHON,
  JUPYTER,
  KERNEL_NAME,
  MATHJAX_DIR,
  ALL_APT,
  INSTALL_COMMAND,
};

if (require.main === module) {
  const args = process.argv.slice(2);
  const known = new Set(['--no-chromium', '--no-jupyter', '--no-kernel', '--check', '--quiet', '--help', '-h']);
  const bad = args.filter((a) => !known.has(a));
  if (bad.length > 0 || args.includes('--help') || args.includes('-h')) {
    console.error('usage: node scripts/ensure-system.cjs [--no-chromium] [--no-jupyter] [--no-kernel] [--check] [--quiet]');
    process.exit(bad.length > 0 ? 2 : 0);
  }
  try {
    ensureSystem({
      jupyter: !args.includes('--no-jupyter'),
      chromium: !args.includes('--no-chromium'),
      kernel: !args.includes('--no-kernel'),
      install: !args.includes('--check'),
      quiet: args.includes('--quiet'),
    });
  } catch (e) {
    console.error(`[ensure-system] ${e.message}`);
    process.exit(1);
  }
}
