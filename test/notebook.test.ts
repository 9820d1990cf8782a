// Smoke test: notebooks/00-tour.ipynb runs headless on the sample snapshot through the same driver as `npm start`
// (scripts/run-notebooks.cjs -> scripts/nbrun.py -> nbclient -> the project's tslab kernel), into a temp reports dir.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const { ensureSystem } = require('../scripts/ensure-system.cjs');
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { runNotebook, failureLine } = require('../scripts/run-notebooks.cjs');

const ROOT = path.resolve(__dirname, '..');

test('00-tour executes headless on the sample snapshot and writes results.json', async () => {
  ensureSystem({ install: false, quiet: true }); // jupyter + chromium present, kernel registered in .jupyter/
  const reportsDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eo-nbtest-')), '00-tour');
  const r = await runNotebook({
    file: path.join(ROOT, 'notebooks', '00-tour.ipynb'),
    name: '00-tour',
    reportsDir,
    sample: true,
    timeout: 300,
    quiet: true, // cell output goes to <reportsDir>/run.log
  });
  if (!r.ok) {
    const log = r.logFile && fs.existsSync(r.logFile) ? fs.readFileSync(r.logFile, 'utf8') : '';
    assert.unreachable(`${failureLine(r)}\n--- run.log (tail) ---\n${log.slice(-4000)}`);
  }
  assert.ok(fs.existsSync(path.join(reportsDir, '00-tour.ipynb')), 'executed notebook written');
  const resultsFile = path.join(reportsDir, 'results.json');
  assert.ok(fs.existsSync(resultsFile), 'results.json written');
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  assert.type(results, 'object');
  assert.is(results.notebook, '00-tour');
  fs.rmSync(path.dirname(reportsDir), { recursive: true, force: true });
});

test.run();
