#!/usr/bin/env node
// `npm test` (after `tsc -p .`): run every test/*.test.ts with uvu + tsx, each file in its own process,
// and finish with a per-file timing table and one line `N passed, N failed`. Exit 1 on any failure.
//
//   node scripts/run-tests.cjs [NAME...] [--jobs N] [--timeout SECONDS] [--beside auto|on|off] [--no-system]
//
// NAME filters test files by substring (`npm test -- notebook`). --jobs runs files in parallel (default 1, or
// $EO_TEST_JOBS; output is then printed per file when it ends). --timeout kills a file after that many seconds
// (default 900, or $EO_TEST_TIMEOUT) and counts it failed. Before the tests, scripts/ensure-system.cjs checks
// (as root: installs) jupyter + chromium and registers the tslab kernel, which the notebook smoke test needs;
// --no-system skips that.
//
// --beside (default auto, or $EO_TEST_BESIDE): with --jobs 1, the files of BESIDE_FILES (the notebook test: ~200 s
// of a clean run, spent in Jupyter kernels of its own) run in a lane of their own, started first, beside the
// one-at-a-time lane of the others; their output is printed whole when they end. `auto` does so on a machine with
// at least BESIDE_MIN_CPUS cores. A test file whose header has the line `// run-tests: not beside notebook.test.ts
// (why)` (it reads or damages the repository's caches and checkpoints that the notebooks train and write) starts
// only after that file ended.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const TEST_DIR = process.env.EO_TEST_DIR ? path.resolve(process.env.EO_TEST_DIR) : path.join(ROOT, 'test');

/** Files that run in a lane of their own beside the others (see --beside in the header). */
const BESIDE_FILES = ['notebook.test.ts'];
/**
 * Cores `--beside auto` wants. Two: run alone, the other files leave a second core idle most of the time (each is one
 * process, and much of it waits on a browser, a server or a child process: the cpu column of the timing table), and
 * the notebook kernels take what is left; on one core the lanes would only take turns.
 */
const BESIDE_MIN_CPUS = 2;
const USAGE = 'usage: node scripts/run-tests.cjs [NAME...] [--jobs N] [--timeout SECONDS] [--beside auto|on|off] [--no-system]';

function parseArgs(argv) {
  const o = { filters: [], jobs: Number(process.env.EO_TEST_JOBS) || 1, timeout: Number(process.env.EO_TEST_TIMEOUT) || 900, system: true, beside: process.env.EO_TEST_BESIDE || 'auto' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--jobs' || a === '-j') o.jobs = Number(argv[++i]);
    else if (a.startsWith('--jobs=')) o.jobs = Number(a.slice(7));
    else if (a === '--timeout') o.timeout = Number(argv[++i]);
    else if (a.startsWith('--timeout=')) o.timeout = Number(a.slice(10));
    else if (a === '--beside') o.beside = argv[++i];
    else if (a.startsWith('--beside=')) o.beside = a.slice(9);
    else if (a === '--no-system') o.system = false;
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else o.filters.push(a);
  }
  if (!(o.jobs >= 1)) o.jobs = 1;
  if (!(o.timeout > 0)) o.timeout = 900;
  if (!['auto', 'on', 'off'].includes(o.beside)) throw new Error(`--beside must be auto, on or off (got ${JSON.stringify(o.beside)})`);
  return o;
}

/** Whether the BESIDE_FILES lane runs: only one file at a time otherwise (--jobs 1), and `auto` wants the cores. */
function besideLaneOn(o, cpus = os.availableParallelism ? os.availableParallelism() : os.cpus().length) {
  if (o.jobs !== 1 || o.beside === 'off') return false;
  return o.beside === 'on' || cpus >= BESIDE_MIN_CPUS;
}

/** The BESIDE_FILES a test file must not overlap, from its header lines `// run-tests: not beside NAME.test.ts (why)`. */
function notBeside(file) {
  let head;
  try {
    head = fs.readFileSync(file, 'utf8').slice(0, 4000);
  } catch {
    return [];
  }
  return [...head.matchAll(/^\/\/ run-tests: not beside ([\w.-]+\.test\.ts)\b/gm)].map((m) => m[1]);
}

const ANSI = /\x1b\[[0-9;]*m/g;

/** uvu's closing block of one process: Total / Passed / Skipped (null when it never got there). */
function parseUvu(text) {
  const plain = text.replace(ANSI, '');
  const total = /^\s*Total:\s+(\d+)/m.exec(plain);
  const passed = /^\s*Passed:\s+(\d+)/m.exec(plain);
  const skipped = /^\s*Skipped:\s+(\d+)/m.exec(plain);
  if (!total || !passed) return null;
  return { total: Number(total[1]), passed: Number(passed[1]), skipped: skipped ? Number(skipped[1]) : 0 };
}

/** Run one test file: node -r tsx/cjs FILE (uvu runs the suites it defines). */
function runFile(file, { stream, timeout }) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const cpuFile = path.join(os.tmpdir(), `eo-test-cpu-${process.pid}-${path.basename(file)}.txt`);
    fs.rmSync(cpuFile, { force: true });
    const child = spawn(process.execPath, ['-r', path.join(__dirname, 'test-cpu-usage.cjs'), '-r', 'tsx/cjs', file], {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0', EO_TEST_CPU_FILE: cpuFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const take = (sink) => (chunk) => {
      const s = chunk.toString();
      out += s;
      if (stream) sink.write(s);
    };
    child.stdout.on('data', take(process.stdout));
    child.stderr.on('data', take(process.stderr));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeout * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ file, code: code ?? 1, signal, timedOut, out, seconds: (Date.now() - t0) / 1000, cpuSeconds: readCpuSeconds(cpuFile), counts: parseUvu(out) });
    });
  });
}

/** The CPU seconds a test process wrote at exit (scripts/test-cpu-usage.cjs); null when it never got there. */
function readCpuSeconds(file) {
  try {
    const v = Number(fs.readFileSync(file, 'utf8'));
    return Number.isFinite(v) ? v : null;
  } catch {
    return null;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/**
 * The closing table: the slowest files first, wall seconds and the test process's own CPU seconds (a browser, a
 * server or a kernel it starts is not counted), so that one can see where `npm test`'s time goes and whether a
 * file computes or waits. `most` rows, then one line for the rest.
 */
function timingTable(rows, most = 15) {
  const sorted = [...rows].sort((a, b) => b.seconds - a.seconds);
  const total = sorted.reduce((s, r) => s + r.seconds, 0);
  const fmt = (v) => (v === null || v === undefined ? '     -' : v.toFixed(1).padStart(6));
  const lines = sorted.slice(0, most).map((r) => `  ${fmt(r.seconds)} s wall ${fmt(r.cpuSeconds)} s cpu  ${path.relative(ROOT, r.file)}`);
  const rest = sorted.slice(most);
  if (rest.length > 0) lines.push(`  ${fmt(rest.reduce((s, r) => s + r.seconds, 0))} s wall in the other ${rest.length} files (each under ${rest[0].seconds.toFixed(1)} s)`);
  return `[run-tests] slowest files (${total.toFixed(1)} s summed over ${sorted.length} files):\n${lines.join('\n')}`;
}

/** Passed / failed for one file's run; a crash, timeout or non-zero exit with all tests passing counts one failure. */
function score(r) {
  const rel = path.relative(ROOT, r.file);
  if (r.timedOut) return { passed: r.counts?.passed ?? 0, failed: Math.max(1, (r.counts?.total ?? 0) - (r.counts?.passed ?? 0)), why: `${rel}: killed after the ${r.seconds.toFixed(0)} s timeout` };
  if (!r.counts) return { passed: 0, failed: 1, why: `${rel}: crashed before uvu reported (exit ${r.code}${r.signal ? `, ${r.signal}` : ''})` };
  const failed = r.counts.total - r.counts.passed;
  if (failed > 0) return { passed: r.counts.passed, failed, why: `${rel}: ${failed} of ${r.counts.total} failed` };
  if (r.code !== 0) return { passed: r.counts.passed, failed: 1, why: `${rel}: all ${r.counts.total} passed but the process exited with code ${r.code}` };
  return { passed: r.counts.passed, failed: 0, why: null };
}

/**
 * --beside: each BESIDE_FILES file in a lane of its own (output kept, printed whole between two files of the other
 * lane or at the end) while the others run one at a time with their output streamed; a file that must not overlap
 * one of them (`notBeside`) waits for it, so those go last.
 */
async function runBeside(files, o, report) {
  const besideNames = new Set(BESIDE_FILES);
  const lanes = new Map();
  const finished = [];
  for (const file of files.filter((f) => besideNames.has(path.basename(f)))) {
    console.log(`[run-tests] ${path.relative(ROOT, file)}: started beside the other files (its output follows when it ends)`);
    lanes.set(path.basename(file), runFile(file, { stream: false, timeout: o.timeout }).then((r) => finished.push(r)));
  }
  const printFinished = () => {
    while (finished.length > 0) report(finished.shift(), true);
  };
  const others = files.filter((f) => !besideNames.has(path.basename(f)));
  const waits = new Map(others.map((f) => [f, notBeside(f).filter((n) => lanes.has(n))]));
  const ordered = [...others.filter((f) => waits.get(f).length === 0), ...others.filter((f) => waits.get(f).length > 0)];
  for (const file of ordered) {
    const rel = path.relative(ROOT, file);
    const held = waits.get(file);
    if (held.length > 0) {
      console.log(`\n[run-tests] ${rel} waits for ${held.join(', ')} (it must not run beside it)`);
      await Promise.all(held.map((n) => lanes.get(n)));
    }
    printFinished();
    console.log(`\n[run-tests] ${rel}`);
    report(await runFile(file, { stream: true, timeout: o.timeout }), false);
  }
  await Promise.all(lanes.values());
  printFinished();
}

async function main(argv = process.argv.slice(2)) {
  let o;
  try {
    o = parseArgs(argv);
  } catch (e) {
    console.error(`${e.message}\n${USAGE}`);
    return 2;
  }
  let passed = 0;
  let failed = 0;
  const problems = [];

  if (o.system) {
    try {
      require('./ensure-system.cjs').ensureSystem();
    } catch (e) {
      console.error(`[run-tests] system setup failed (the notebook test will fail): ${e.message}`);
      failed += 1;
      problems.push(`system setup: ${e.message.split('\n')[0]}`);
    }
  }

  const files = (fs.existsSync(TEST_DIR) ? fs.readdirSync(TEST_DIR) : [])
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => o.filters.length === 0 || o.filters.some((p) => f.includes(p)))
    .sort()
    .map((f) => path.join(TEST_DIR, f));
  if (files.length === 0) {
    console.error(`[run-tests] no test files${o.filters.length ? ` matching ${o.filters.join(', ')}` : ''} in ${TEST_DIR}`);
    failed += 1;
  }

  const t0 = Date.now();
  const results = [];
  const report = (r, out) => {
    const rel = path.relative(ROOT, r.file);
    if (out) process.stdout.write(`\n[run-tests] ${rel}\n${r.out}`);
    const s = score(r);
    console.log(`[run-tests] ${rel}: ${s.passed} passed, ${s.failed} failed (${r.seconds.toFixed(1)} s${r.cpuSeconds === null ? '' : `, ${r.cpuSeconds.toFixed(1)} s cpu`})`);
    results.push({ r, s });
  };
  if (besideLaneOn(o)) await runBeside(files, o, report);
  else {
    const queue = [...files];
    const stream = o.jobs === 1;
    async function worker() {
      while (queue.length > 0) {
        const file = queue.shift();
        if (stream) console.log(`\n[run-tests] ${path.relative(ROOT, file)}`);
        report(await runFile(file, { stream, timeout: o.timeout }), !stream);
      }
    }
    await Promise.all(Array.from({ length: Math.min(o.jobs, Math.max(1, files.length)) }, worker));
  }

  for (const { s } of results) {
    passed += s.passed;
    failed += s.failed;
    if (s.why) problems.push(s.why);
  }
  if (results.length > 1) console.log(`\n${timingTable(results.map(({ r }) => r))}`);
  console.log(`\n[run-tests] ${files.length} files in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (problems.length > 0) console.log(`[run-tests] failures:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

module.exports = { parseUvu, score, timingTable, besideLaneOn, notBeside, BESIDE_FILES, main };

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      console.log('0 passed, 1 failed');
      process.exit(1);
    },
  );
}
