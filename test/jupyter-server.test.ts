// The README's interactive route, end to end: Debian's Jupyter Notebook 6.4 server on loopback with the project's
// tslab kernel (JUPYTER_PATH=<repo>/.jupyter, as scripts/ensure-system.cjs registers it), notebook 00-tour in teacher
// mode (EO_SAMPLE=1), opened in headless Debian chromium through playwright-core (as test/serve-e2e.test.ts drives
// it), every cell run through the page's own JavaScript API, and no error output anywhere. The notebook runs from a
// copy under test-output/ (inside the repository, so that tslab resolves `eo-workbench` from node_modules, and so
// that the server's autosave never touches notebooks/). A second notebook on the same server, written by the test, shows
// a two-trace figure with showFigure: in a person's session it is a live plotly figure in the output area (SVG, a
// hover label, a legend click hides a trace); screenshot test-output/jupyter-live-figure.png. Skips, saying why, when
// jupyter-notebook or chromium is absent.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
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

/** The server both tests share: started once (before), stopped after; null when a system part is absent. */
interface Session {
  root: string;
  work: string;
  notebookDir: string;
  base: string;
  token: string;
  server: ChildProcess;
  log: () => string;
  browser: Browser;
}
let session: Session | null = null;
let skipWhy = '';

test.before(async () => {
  if (!fs.existsSync(NOTEBOOK_SERVER)) {
    skipWhy = `${NOTEBOOK_SERVER} is absent (Debian package jupyter-notebook; node scripts/ensure-system.cjs installs it as root)`;
    return;
  }
  if (!fs.existsSync(chromiumExecutable())) {
    skipWhy = `chromium is absent at ${chromiumExecutable()} (set CHROMIUM_PATH or run node scripts/ensure-system.cjs)`;
    return;
  }
  const root = repoRoot();
  registerKernel(root);
  fs.mkdirSync(path.join(root, 'test-output'), { recursive: true });
  const work = fs.mkdtempSync(path.join(root, 'test-output', 'jupyter-server-'));
  const notebookDir = path.join(work, 'notebooks');
  fs.mkdirSync(notebookDir, { recursive: true });
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
    // polling file watchers and teacher mode, as scripts/run-notebooks.cjs runs a kernel, and a reports folder of the
    // test's own; but no $EO_NOTEBOOK: that marks a headless run by the runner, and this is a person's session
    // (figures live, not PNG)
    TSC_WATCHFILE: 'DynamicPriorityPolling',
    TSC_WATCHDIRECTORY: 'RecursiveDirectoryUsingDynamicPriorityPolling',
    EO_SAMPLE: '1',
    EO_REPORTS_DIR: path.join(work, 'reports', NOTEBOOK),
  };
  for (const k of ['PYTHONHOME', 'PYTHONPATH', 'VIRTUAL_ENV', 'EO_NOTEBOOK']) delete env[k];
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
  try {
    await waitForServer(`${base}/api/status?token=${token}`, server, () => log);
    const { chromium } = require('playwright-core') as typeof import('playwright-core');
    const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: ARGS });
    session = { root, work, notebookDir, base, token, server, log: () => log, browser };
  } catch (e) {
    await stopServer(server);
    throw e;
  }
});

test.after(async () => {
  if (!session) return;
  await session.browser.close();
  await stopServer(session.server);
  if (!process.env.EO_KEEP_TEST_REPORTS) fs.rmSync(session.work, { recursive: true, force: true });
});

/** Open a notebook of the server in a new page and wait for its kernel to be connected and idle. */
async function openNotebook(s: Session, name: string, viewport = { width: 1200, height: 1000 }): Promise<Page> {
  const page = await s.browser.newPage({ viewport });
  page.on('dialog', (d) => void d.dismiss());
  // a loaded machine can take a while to serve the page's scripts
  await page.goto(`${s.base}/notebooks/${name}.ipynb?token=${s.token}`, { timeout: 120_000 });
  await page.waitForFunction(() => {
    const J = (window as any).Jupyter;
    return !!(J && J.notebook && J.notebook.kernel && J.notebook.kernel.is_connected() && !J.notebook.kernel_busy);
  }, undefined, { timeout: 120_000 });
  assert.is(await page.evaluate(() => (window as any).Jupyter.notebook.kernel.name as string), KERNEL_NAME);
  return page;
}

/**
 * Run all cells through the page's own API and wait until done: the kernel is idle and no cell is queued or running
 * ('*') any more; or an error output appeared (the kernel then aborts the queued cells, which never get a count, so
 * waiting for every count would only time out; tslab reports a thrown error as stderr text, which callers check).
 */
async function runAllCells(page: Page, timeoutMs: number): Promise<void> {
  await page.evaluate(() => (window as any).Jupyter.notebook.execute_all_cells());
  await page.waitForFunction(() => {
    const nb = (window as any).Jupyter.notebook;
    if (document.querySelector('.output_error')) return true;
    const cells = nb.get_cells().filter((c: any) => c.cell_type === 'code' && c.get_text().trim() !== '');
    return !nb.kernel_busy && cells.every((c: any) => c.input_prompt_number !== '*');
  }, undefined, { timeout: timeoutMs, polling: 500 });
}

/** Shut every kernel down through the server, as the page's "Close and Halt" does. */
async function shutDownKernels(s: Session): Promise<void> {
  const kernels = await (await fetch(`${s.base}/api/kernels?token=${s.token}`)).json() as { id: string }[];
  for (const k of kernels) {
    const r = await fetch(`${s.base}/api/kernels/${k.id}?token=${s.token}`, { method: 'DELETE' });
    assert.is(r.status, 204, `kernel ${k.id} shut down`);
  }
}

test('jupyter-notebook 6.4 with the tslab kernel runs 00-tour through the page without error output', async () => {
  if (!session) return console.log(`skip: ${skipWhy}`);
  const s = session;
  fs.copyFileSync(path.join(s.root, 'notebooks', `${NOTEBOOK}.ipynb`), path.join(s.notebookDir, `${NOTEBOOK}.ipynb`));
  const meta = JSON.parse(fs.readFileSync(path.join(s.notebookDir, `${NOTEBOOK}.ipynb`), 'utf8')).metadata;
  assert.is(meta.kernelspec.name, KERNEL_NAME, `the notebook asks for the project's kernel`);
  // the token is required: without it the API refuses
  assert.is((await fetch(`${s.base}/api/kernelspecs`)).status, 403, 'the server refuses a request without the token');
  const specs = await (await fetch(`${s.base}/api/kernelspecs?token=${s.token}`)).json() as { kernelspecs: Record<string, unknown> };
  assert.ok(KERNEL_NAME in specs.kernelspecs, `kernel ${KERNEL_NAME} among ${Object.keys(specs.kernelspecs).join(', ')}`);

  const page = await openNotebook(s, NOTEBOOK);
  const codeCells = await page.evaluate(() => (window as any).Jupyter.notebook.get_cells()
    .filter((c: any) => c.cell_type === 'code' && c.get_text().trim() !== '').length as number);
  assert.ok(codeCells >= 3, `${codeCells} code cells`);
  await runAllCells(page, RUN_ALL_TIMEOUT_MS);

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
  await page.screenshot({ path: path.join(s.root, 'test-output', 'jupyter-server.png') });
  await page.close();
  await shutDownKernels(s);
});

/** A scratch notebook that shows one two-trace figure through the library, as a reader's cell would. */
/** The notebook name the live-figure notebook's figures are filed under (its own, removed after the test). */
const LIVE_NOTEBOOK = `zz-live-figure-test-${process.pid}`;

function liveFigureNotebook(): string {
  const cell = (source: string) => ({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source });
  return JSON.stringify({
    nbformat: 4, nbformat_minor: 5,
    metadata: { kernelspec: { display_name: 'TypeScript', language: 'typescript', name: KERNEL_NAME }, language_info: { file_extension: '.ts', mimetype: 'text/typescript', name: 'typescript' } },
    cells: [
      // a person's session started by hand: no reports folder of the runner's
      cell(`delete process.env.EO_REPORTS_DIR;\nimport { showFigure } from "eo-workbench/report";`),
      cell([
        'const fig = {',
        '  data: [',
        '    { type: "scatter", mode: "lines+markers", name: "BM25", x: [1, 2, 3, 4], y: [0.2, 0.5, 0.4, 0.7] },',
        '    { type: "scatter", mode: "lines+markers", name: "NN-SSC + BM25", x: [1, 2, 3, 4], y: [0.6, 0.3, 0.8, 0.5] },',
        '  ],',
        '  layout: { title: { text: "two traces" }, height: 420, hovermode: "closest" },',
        '};',
        `await showFigure(fig, { name: "live-figure", png: false, notebook: ${JSON.stringify(LIVE_NOTEBOOK)} });`,
      ].join('\n')),
      // a second figure: plotly.js is inlined once per kernel, so this one draws with the page's copy
      cell(`await showFigure({ data: [fig.data[1]], layout: { height: 300 } }, { name: "live-figure-2", png: false, notebook: ${JSON.stringify(LIVE_NOTEBOOK)} });`),
    ],
  }, null, 1);
}

test('a figure cell shows a live plotly figure in the page: SVG, hover label, legend toggle', async () => {
  if (!session) return console.log(`skip: ${skipWhy}`);
  const s = session;
  const name = 'live-figure';
  fs.writeFileSync(path.join(s.notebookDir, `${name}.ipynb`), liveFigureNotebook());
  const page = await openNotebook(s, name, { width: 1200, height: 800 });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await runAllCells(page, 120_000);
  assert.equal(await page.$$eval('.output_error, .output_stderr', (els) => els.map((e) => (e.textContent ?? '').slice(0, 500))), [], 'no error output');

  // the figure is drawn by plotly.js inside the cell's output area, not an <img>
  const plots = page.locator('.output_area .js-plotly-plot');
  await plots.nth(1).waitFor({ timeout: 30_000 });
  assert.is(await plots.count(), 2, 'two live figures, the second drawn with the plotly.js the first one brought');
  assert.is(await plots.nth(1).locator('.scatterlayer .trace').count(), 1);
  const plot = plots.first();
  assert.is(await page.locator('.output_area img').count(), 0, 'no PNG in a person\'s session');
  assert.ok(await plot.locator('svg.main-svg').count() >= 1, 'plotly drew its SVG');
  assert.is(await plot.locator('.scatterlayer .trace').count(), 2, 'both traces drawn');
  assert.equal(await plot.locator('.legend .traces .legendtext').allTextContents(), ['BM25', 'NN-SSC + BM25']);

  // hover: the mouse over trace 1's second point shows its hover label
  const at = await plot.evaluate((gd: any) => {
    const xa = gd._fullLayout.xaxis;
    const ya = gd._fullLayout.yaxis;
    const box = gd.getBoundingClientRect();
    return { x: box.left + xa._offset + xa.l2p(2), y: box.top + ya._offset + ya.l2p(0.3) };
  });
  await page.mouse.move(at.x - 20, at.y - 20);
  await page.mouse.move(at.x, at.y, { steps: 4 });
  await plot.locator('.hoverlayer .hovertext').first().waitFor({ timeout: 10_000 });
  const hover = (await plot.locator('.hoverlayer .hovertext').first().textContent()) ?? '';
  assert.match(hover, /0\.3/, `hover label of (2, 0.3): ${hover}`);
  await page.screenshot({ path: path.join(s.root, 'test-output', 'jupyter-live-figure.png'), fullPage: true });

  // a click on the second legend entry hides that trace (plotly's legend toggle), a second one shows it again
  await page.mouse.move(0, 0);
  await plot.locator('.legend .traces').nth(1).locator('.legendtoggle').click();
  await page.waitForFunction(() => (document.querySelector('.output_area .js-plotly-plot') as any)?._fullData?.[1]?.visible === 'legendonly', undefined, { timeout: 10_000 });
  assert.is(await plot.evaluate((gd: any) => gd._fullData[0].visible), true, 'the other trace stays');
  assert.is(await plot.locator('.scatterlayer .trace').count(), 1, 'one trace drawn after the toggle');
  await page.waitForTimeout(600); // plotly tells a second click from a double click by its delay (300 ms)
  await plot.locator('.legend .traces').nth(1).locator('.legendtoggle').click();
  await page.waitForFunction(() => (document.querySelector('.output_area .js-plotly-plot') as any)?._fullData?.[1]?.visible === true, undefined, { timeout: 10_000 });
  assert.equal(pageErrors, []);

  // a live session files its figures under reports-live/<notebook>/, never over a finished run's reports/<notebook>/
  const live = path.join(s.root, 'reports-live', LIVE_NOTEBOOK);
  try {
    assert.ok(fs.existsSync(path.join(live, 'figures', 'live-figure.html')), `no figure under ${live}`);
    assert.not.ok(fs.existsSync(path.join(s.root, 'reports', LIVE_NOTEBOOK)), 'a live session wrote into reports/');
    assert.ok((await page.textContent("#notebook"))?.includes(`reports-live/${LIVE_NOTEBOOK}/`), 'the session says where its files go');
  } finally {
    fs.rmSync(live, { recursive: true, force: true });
  }
  await page.close();

  // the notebook reopened (same kernel, which already sent plotly.js to the old page) and one figure cell run again:
  // the new page fetches the kernel's copy beside the notebook and draws the figure
  const again = await openNotebook(s, name, { width: 1200, height: 800 });
  const againErrors: string[] = [];
  again.on('pageerror', (e) => againErrors.push(e.message));
  await again.evaluate(() => (window as any).Jupyter.notebook.execute_cells([2]));
  await again.locator('.output_area .js-plotly-plot').first().waitFor({ timeout: 60_000 });
  assert.is(await again.locator('.output_area .js-plotly-plot .scatterlayer .trace').count(), 1);
  assert.not.match(await again.innerText('#notebook'), /plotly\.js is not loaded/, 'the text a reader sees (scripts aside)');
  assert.equal(againErrors, []);
  await again.close();
  await shutDownKernels(s);
});

test.run();
