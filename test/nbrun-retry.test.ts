// scripts/nbrun.py starts a kernel that failed to start again (up to three times) and records the attempts: a
// kernel start that fails (seen in CI: tslab's ZeroMQ sockets answering EBUSY when two notebooks start side by side)
// no longer fails the run. A kernel name that does not exist fails every attempt, which shows the retries.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = path.resolve(__dirname, '..');
const PYTHON = '/usr/bin/python3';

test('a kernel that cannot start is tried three times, then the run fails saying so', () => {
  const probe = spawnSync(PYTHON, ['-c', 'import nbclient, nbformat'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    console.log(`  skipped: ${PYTHON} has no nbclient (scripts/ensure-system.cjs installs it)`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-nbrun-'));
  try {
    const nb = path.join(dir, 'tiny.ipynb');
    fs.writeFileSync(nb, JSON.stringify({ cells: [{ cell_type: 'code', metadata: {}, source: '1 + 1', outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 }));
    const status = path.join(dir, 'status.json');
    const r = spawnSync(PYTHON, [path.join(ROOT, 'scripts', 'nbrun.py'), nb, '--output', path.join(dir, 'out.ipynb'), '--kernel', 'eo-no-such-kernel', '--status', status, '--startup-timeout', '5'], { encoding: 'utf8', timeout: 120_000 });
    const s = JSON.parse(fs.readFileSync(status, 'utf8')) as { ok: boolean; kernelStartAttempts: number; error: { summary: string } };
    assert.is(s.ok, false);
    assert.is(s.kernelStartAttempts, 3);
    assert.match(s.error.summary, /eo-no-such-kernel/);
    assert.match(r.stdout, /kernel start failed .*starting it again \(2\/3\)/);
    assert.match(r.stdout, /starting it again \(3\/3\)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
