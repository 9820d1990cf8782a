// scripts/run-tests.cjs, the runner of `npm test`: the closing line and exit code, the per-file timing table, and the
// --beside lane (the notebook test beside the others; a file marked `not beside` waits for it). Runs the runner on
// small test files in a temp folder (EO_TEST_DIR) that signal each other through files, so the order is proved by
// what each file saw, not by timing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const ROOT = path.resolve(__dirname, '..');
const RUNNER = path.join(ROOT, 'scripts', 'run-tests.cjs');
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { besideLaneOn, notBeside, timingTable } = require('../scripts/run-tests.cjs');

const UVU = JSON.stringify(path.join(ROOT, 'node_modules', 'uvu'));
const ASSERT = JSON.stringify(path.join(ROOT, 'node_modules', 'uvu', 'assert'));

/** A test file that runs `body` (TypeScript, with fs, path, assert and DIR = the signal folder in scope). */
function testFile(dir: string, name: string, body: string, header = ''): void {
  fs.writeFileSync(path.join(dir, name), `${header}const { test } = require(${UVU});\nconst assert = require(${ASSERT});\nconst fs = require('node:fs');\nconst path = require('node:path');\nconst DIR = ${JSON.stringify(dir)};\n` +
    `test('${name}', async () => {\n${body}\n});\ntest.run();\n`);
}

function runner(dir: string, ...args: string[]) {
  return spawnSync(process.execPath, [RUNNER, '--no-system', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, EO_TEST_DIR: dir, EO_TEST_BESIDE: '' }, timeout: 240_000 });
}

// the stand-in notebook test ends only once another file has run (it waits for its signal): proof that it ran beside
const WAIT_FOR_OTHER = `
  const t0 = Date.now();
  while (!fs.existsSync(path.join(DIR, 'other.done'))) {
    if (Date.now() - t0 > 120_000) throw new Error('no other file ran while the notebook test was running');
    await new Promise((r) => setTimeout(r, 50));
  }
  fs.writeFileSync(path.join(DIR, 'notebook.done'), '');`;

test('--beside on: the notebook test runs beside the others, a file marked not beside waits for it; one closing line', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-run-tests-'));
  try {
    testFile(dir, 'notebook.test.ts', WAIT_FOR_OTHER);
    testFile(dir, 'a-other.test.ts', `fs.writeFileSync(path.join(DIR, 'other.done'), '');`);
    testFile(dir, 'b-cache.test.ts', `assert.ok(fs.existsSync(path.join(DIR, 'notebook.done')), 'started before the notebook test ended');`,
      '// run-tests: not beside notebook.test.ts (reads what the notebooks write)\n');
    const r = runner(dir, '--beside', 'on');
    assert.is(r.status, 0, r.stdout + r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.is(lines[lines.length - 1], '3 passed, 0 failed');
    assert.match(r.stdout, /b-cache\.test\.ts waits for notebook\.test\.ts/);
    assert.match(r.stdout, /slowest files \([\d.]+ s summed over 3 files\)/);
    // each file's line names its wall and CPU seconds
    assert.match(r.stdout, /notebook\.test\.ts: 1 passed, 0 failed \([\d.]+ s, [\d.]+ s cpu\)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('--beside off: one file at a time, so the stand-in notebook test that needs a file beside it fails, and the exit code says so', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-run-tests-'));
  try {
    // with nothing beside it, the notebook test never sees the signal: it must fail (here quickly: the signal file is
    // written by a file sorted after it, which runs only once it ended)
    testFile(dir, 'notebook.test.ts', WAIT_FOR_OTHER.replace('120_000', '2_000'));
    testFile(dir, 'z-other.test.ts', `fs.writeFileSync(path.join(DIR, 'other.done'), '');`);
    const r = runner(dir, '--beside', 'off');
    assert.is(r.status, 1, r.stdout + r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.is(lines[lines.length - 1], '1 passed, 1 failed');
    assert.match(r.stdout, /notebook\.test\.ts: 1 of 1 failed/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('besideLaneOn: auto wants 2 cores and one file at a time; on and off decide; a bad --beside is refused', () => {
  assert.is(besideLaneOn({ jobs: 1, beside: 'auto' }, 1), false);
  assert.is(besideLaneOn({ jobs: 1, beside: 'auto' }, 2), true);
  assert.is(besideLaneOn({ jobs: 1, beside: 'on' }, 1), true);
  assert.is(besideLaneOn({ jobs: 1, beside: 'off' }, 16), false);
  assert.is(besideLaneOn({ jobs: 2, beside: 'on' }, 16), false);
  const r = spawnSync(process.execPath, [RUNNER, '--no-system', '--beside', 'sometimes'], { cwd: ROOT, encoding: 'utf8' });
  assert.is(r.status, 2);
  assert.match(r.stderr, /--beside must be auto, on or off/);
});

test('notBeside: the marked repository files wait for the notebook test; others do not', () => {
  for (const f of ['search', 'serve-e2e', 'serve-two-stage', 'faults']) assert.equal(notBeside(path.join(__dirname, `${f}.test.ts`)), ['notebook.test.ts'], f);
  assert.equal(notBeside(__filename), []);
});

test('timingTable: slowest first, wall and CPU seconds, the rest summed in one line', () => {
  const rows = [{ file: path.join(ROOT, 'test/a.test.ts'), seconds: 1, cpuSeconds: 0.5 }, { file: path.join(ROOT, 'test/b.test.ts'), seconds: 3, cpuSeconds: null }, { file: path.join(ROOT, 'test/c.test.ts'), seconds: 2, cpuSeconds: 2 }];
  assert.equal(timingTable(rows, 2).split('\n'), [
    '[run-tests] slowest files (6.0 s summed over 3 files):',
    '     3.0 s wall      - s cpu  test/b.test.ts',
    '     2.0 s wall    2.0 s cpu  test/c.test.ts',
    '     1.0 s wall in the other 1 files (each under 1.0 s)',
  ]);
});

test.run();
