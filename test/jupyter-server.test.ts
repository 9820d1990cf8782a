// The README's interactive route, end to end: Debian's Jupyter Notebook 6.4 server on loopback with the project's
// tslab kernel (JUPYTER_PATH=<repo>/.jupyter, as scripts/ensure-system.cjs registers it), notebook 00-tour in teacher
// mode (EO_SAMPLE=1), opened in headless Debian chromium through playwright-core (as test/serve-e2e.test.ts drives
// it), every cell run through the page's own JavaScript API, and no error output anywhere. The notebook runs from a
// copy under test-output/ (inside the repository, so that tslab resolves `eo-workbench` from node_modules, and so
// that the server's autosave never touches notebooks/). Skips, saying why, when jupyter-notebook or chromium is absent.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { chromiumExecutable } from '../lib/report';
import { repoRoot } from '../lib/util';

const NOTEBOOK_SERVER = '/usr/bin/jupyter-notebook';
const NOTEBOOK = '00-tour';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Longest wait for all cells of the notebook (teacher mode takes well under this on 2 loaded cores). */
const RUN_ALL_TIMEOUT_MS = 8 * 60_000;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { registerKernel, kernelEnv, KERNEL_NAME } = require('../scripts/ensure-system.cjs') as {
  registerKernel: (root?: string) => string;
  kernelEnv: (root?: string) => Record<string, string>;
  KERNEL_NAME: string;
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitForServer(url: string, server: ChildProcess, log: () => string, timeoutMs = 90_000): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (server.exitCode !== null) throw new Error(`jupyter-notebook exited with ${server.exitCode}:\n${log()}`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`jupyter-notebook did not answer ${url.replace(/token=\w+/, 'token=…')} within ${timeoutMs / 1000} s:\n${log()}`);
}

/** SIGTERM to the server's process group, SIGKILL after 10 s; resolves once it has exited. */
function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => { try { process.kill(-server.pid!, 'SIGKILL'); } catch { /* gone */ } }, 10_000);
    server.once('exit', () => { clearTimeout(kill); resolve(); });
    try { process.kill(-server.pid!, 'SIGTERM'); } catch { clearTimeout(kill); resolve(); }
  });
}

test('jupyter-notebook 6.4 with the tslab kernel runs 00-tour through the page without error output', async () => {
  if (!fs.existsSync(NOTEBOOK_SERVER)) {
    console.log(`skip: ${NOTEBOOK_SERVER} is absent (Debian package jupyter-notebook; node scripts/ensure-system.cjs installs it as root)`);
    return;
  }
  if (!fs.existsSync(chromiumExecutable())) {
    console.log(`skip: chromium is absent at ${chromiumExecutable()} (set CHROMIUM_PATH or run node scripts/ensure-system.cjs)`);
    return;
  }
  const root = repoRoot();
  registerKernel(root);
  fs.mkdirSync(path.join(root, 'test-output'), { recursive: true });
  const work = fs.mkdtempSync(path.join(root, 'test-output', 'jupyter-server-'));
  const notebookDir = path.join(work, 'notebooks');
  fs.mkdirSync(notebookDir, { recursive: true });
  fs.copyFileSync(path.join(root, 'notebooks', `${NOTEBOOK}.ipynb`), path.join(notebookDir, `${NOTEBOOK}.ipynb`));
  const meta = JSON.parse(fs.readFileSync(path.join(notebookDir, `${NOTEBOOK}.ipynb`), 'utf8')).metadata;
  assert.is(meta.kernelspec.name, KERNEL_NAME, `the notebook asks for the project's kernel`);

  const port = await freePort();
  const token = crypto.randomBytes(24).toString('hex');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...kernelEnv(root),
    // the kernel's own runtime and config folders, so that nothing of the user's Jupyter setup is read or written
    JUPYTER_RUNTIME_DIR: path.join(work, 'runtime'),
    JUPYTER_CONFIG_DIR: path.join(work, 'config'),
    JUPYTER_DATA_DIR: path.join(work, 'data'),
    IPYTHONDIR: path.join(work, 'ipython'),
    // as scripts/run-notebooks.cjs runs a kernel: polling file watchers, teacher mode, a reports folder of its own
    TSC_WATCHFILE: 'DynamicPriorityPolling',
    TSC_WATCHDIRECTORY: 'RecursiveDirectoryUsingDynamicPriorityPolling',
    EO_SAMPLE: '1',
    EO_NOTEBOOK: NOTEBOOK,
    EO_REPORTS_DIR: path.join(work, 'reports', NOTEBOOK),
  };
  for (const k of ['PYTHONHOME', 'PYTHONPATH', 'VIRTUAL_ENV']) delete env[k];
  let log = '';
  const server = spawn(NOTEBOOK_SERVER, [
    '--no-browser', '--ip=127.0.0.1', `--port=${port}`, '--port-retries=0', `--notebook-dir=${notebookDir}`,
    `--NotebookApp.token=${token}`, '--NotebookApp.password=', '--NotebookApp.open_browser=False',
    // CI runs as root (it installs the apt packages); the server refuses root without this
    ...(process.getuid?.() === 0 ? ['--allow-root'] : []),
  ], { cwd: notebookDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (b) => { log += b.toString(); });
  server.stderr!.on('data', (b) => { log += b.toString(); });
  const base = `http://127.0.0.1:${port}`;
  let browser: Browser | null = null;
  try {
    await waitForServer(`${base}/api/status?token=${token}`, server, () => log);
    // the token is required: without it the API refuses
    assert.is((await fetch(`${base}/api/kernelspecs`)).status, 403, 'the server refuses a request without the token');
    const specs = await (await fetch(`${base}/api/kernelspecs?token=${token}`)).json() as { kernelspecs: Record<string, unknown> };
    assert.ok(KERNEL_NAME in specs.kernelspecs, `kernel ${KERNEL_NAME} among ${Object.keys(specs.kernelspecs).join(', ')}`);

    const { chromium } = require('playwright-core') as typeof import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: ARGS });
    const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    page.on('dialog', (d) => void d.dismiss());
    await page.goto(`${base}/notebooks/${NOTEBOOK}.ipynb?token=${token}`);
    // the page's notebook object, its kernel started and idle
    await page.waitForFunction(() => {
      const J = (window as any).Jupyter;
      return !!(J && J.notebook && J.notebook.kernel && J.notebook.kernel.is_connected() && !J.notebook.kernel_busy);
    }, undefined, { timeout: 120_000 });
    const kernelName = await page.evaluate(() => (window as any).Jupyter.notebook.kernel.name as string);
    assert.is(kernelName, KERNEL_NAME);

    const codeCells = await page.evaluate(() => (window as any).Jupyter.notebook.get_cells()
      .filter((c: any) => c.cell_type === 'code' && c.get_text().trim() !== '').length as number);
    assert.ok(codeCells >= 3, `${codeCells} code cells`);
    await page.evaluate(() => (window as any).Jupyter.notebook.execute_all_cells());
    // done: the kernel is idle and no cell is queued or running ('*') any more; or an error output appeared (the
    // kernel then aborts the queued cells, which never get a count, so waiting for every count would only time out;
    // tslab reports a thrown error as stderr text, which the checks below catch)
    await page.waitForFunction(() => {
      const nb = (window as any).Jupyter.notebook;
      if (document.querySelector('.output_error')) return true;
      const cells = nb.get_cells().filter((c: any) => c.cell_type === 'code' && c.get_text().trim() !== '');
      return !nb.kernel_busy && cells.every((c: any) => c.input_prompt_number !== '*');
    }, undefined, { timeout: RUN_ALL_TIMEOUT_MS, polling: 1000 });

    const counts = await page.evaluate(() => (window as any).Jupyter.notebook.get_cells()
      .filter((c: any) => c.cell_type === 'code' && c.get_text().trim() !== '').map((c: any) => c.input_prompt_number as number));
    const errors = await page.$$eval('.output_error', (els) => els.map((e) => (e.textContent ?? '').slice(0, 500)));
    assert.equal(errors, [], 'no error output');
    const stderr = await page.$$eval('.output_stderr', (els) => els.map((e) => e.textContent ?? ''));
    const stderrErrors = stderr.filter((t) => /Error/.test(t));
    assert.equal(stderrErrors, [], 'no stderr output naming an Error');
    assert.ok(counts.every((n) => typeof n === 'number'), `every code cell ran: ${counts.join(', ')}`);
    assert.equal([...counts].sort((a, b) => a - b), counts, `cells ran in order: ${counts.join(', ')}`);
    const outputs = await page.$$eval('.output_area', (els) => els.length);
    assert.ok(outputs >= codeCells, `${outputs} output areas for ${codeCells} code cells`);
    fs.mkdirSync(path.join(root, 'test-output'), { recursive: true });
    await page.screenshot({ path: path.join(root, 'test-output', 'jupyter-server.png') });

    // shut the kernel down through the server, as the page's "Close and Halt" does
    const kernels = await (await fetch(`${base}/api/kernels?token=${token}`)).json() as { id: string }[];
    for (const k of kernels) {
      const r = await fetch(`${base}/api/kernels/${k.id}?token=${token}`, { method: 'DELETE' });
      assert.is(r.status, 204, `kernel ${k.id} shut down`);
    }
  } finally {
    if (browser) await browser.close();
    await stopServer(server);
    if (!process.env.EO_KEEP_TEST_REPORTS) fs.rmSync(work, { recursive: true, force: true });
  }
});

test.run();
