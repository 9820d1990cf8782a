#!/usr/bin/env node
// `npm test` (after `tsc -p .`): run every test/*.test.ts with uvu + tsx, each file in its own process,
// and finish with one line `N passed, N failed`. Exit 1 on any failure.
//
//   node scripts/run-tests.cjs [NAME...] [--jobs N] [--timeout SECONDS] [--no-system]
//
// NAME filters test files by substring (`npm test -- notebook`). --jobs runs files in parallel (default 1, or
// $EO_TEST_JOBS; output is then printed per file when it ends). --timeout kills a file after that many seconds
// (default 900, or $EO_TEST_TIMEOUT) and counts it failed. Before the tests, scripts/ensure-system.cjs checks
// (as root: installs) jupyter + chromium and registers the tslab kernel, which the notebook smoke test needs;
// --no-system skips that.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');
const TEST_DIR = process.env.EO_TEST_DIR ? path.resolve(process.env.EO_TEST_DIR) : path.join(ROOT, 'test');

function parseArgs(argv) {
  const o = { filters: [], jobs: Number(process.env.EO_TEST_JOBS) || 1, timeout: Number(process.env.EO_TEST_TIMEOUT) || 900, system: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--jobs' || a === '-j') o.jobs = Number(argv[++i]);
    else if (a.startsWith('--jobs=')) o.jobs = Number(a.slice(7));
    else if (a === '--timeout') o.timeout = Number(argv[++i]);
    else if (a.startsWith('--timeout=')) o.timeout = Number(a.slice(10));
    else if (a === '--no-system') o.system = false;
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else o.filters.push(a);
  }
  if (!(o.jobs >= 1)) o.jobs = 1;
  if (!(o.timeout > 0)) o.timeout = 900;
  return o;
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

async function main(argv = process.argv.slice(2)) {
  let o;
  try {
    o = parseArgs(argv);
  } catch (e) {
    console.error(`${e.message}\nusage: node scripts/run-tests.cjs [NAME...] [--jobs N] [--timeout SECONDS] [--no-system]`);
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
  const queue = [...files];
  const stream = o.jobs === 1;
  async function worker() {
    while (queue.length > 0) {
      const file = queue.shift();
      const rel = path.relative(ROOT, file);
      if (stream) console.log(`\n[run-tests] ${rel}`);
      const r = await runFile(file, { stream, timeout: o.timeout });
      if (!stream) process.stdout.write(`\n[run-tests] ${rel}\n${r.out}`);
      const s = score(r);
      console.log(`[run-tests] ${rel}: ${s.passed} passed, ${s.failed} failed (${r.seconds.toFixed(1)} s)`);
      results.push({ r, s });
    }
  }
  await Promise.all(Array.from({ length: Math.min(o.jobs, Math.max(1, files.length)) }, worker));

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

module.exports = { parseUvu, score, timingTable, main };

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
