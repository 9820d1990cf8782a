import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { repoReportsDir } from '../util/paths';
import { writeFileAtomic, writeJsonAtomic } from '../util/fs';
import { escapeHtml } from '../util/html';
import type { Figure } from './types';
import { shownText } from './shown-text';
import { EoError } from '../errors';

/** Environment variable naming the current notebook's reports folder (set by `npm start`). */
export const REPORTS_DIR_ENV = 'EO_REPORTS_DIR';

/** The notebook name used when none is given: basename of $EO_REPORTS_DIR, else $EO_NOTEBOOK, else 'scratch'. */
export function currentNotebook(): string {
  const dir = process.env[REPORTS_DIR_ENV];
  if (dir) return path.basename(path.resolve(dir));
  return process.env.EO_NOTEBOOK || 'scratch';
}

/**
 * The exports of tslab's `dist/jupyter.js` when this process is a tslab Jupyter kernel, else null: found among the
 * modules already loaded (nothing is loaded to find out; the kernel's own copy even when several are installed).
 */
export function tslabJupyterModule(): Record<string, unknown> | null {
  const cache = typeof require !== 'undefined' ? require.cache : undefined;
  if (!cache) return null;
  const key = Object.keys(cache).find((k) => /[\\/]tslab[\\/]dist[\\/]jupyter\.js$/.test(k));
  return key ? ((cache[key]?.exports as Record<string, unknown> | undefined) ?? null) : null;
}

/** Whether this process is a tslab Jupyter kernel. */
export function inTslabKernel(): boolean {
  return tslabJupyterModule() !== null;
}

/** A person's session: a tslab kernel the notebook runner does not drive (it sets $EO_NOTEBOOK and $EO_REPORTS_DIR). */
export function isLiveSession(env: NodeJS.ProcessEnv = process.env): boolean {
  return inTslabKernel() && !env.EO_NOTEBOOK && !env[REPORTS_DIR_ENV];
}

/** `<repo>/reports-live/<notebook>`: where a person's live session writes, never over a finished run's reports/. */
export function liveReportsDir(notebook: string): string {
  return path.join(repoReportsDir(), '..', 'reports-live', notebook);
}

let liveSaid = false;

/**
 * The reports folder of a notebook: $EO_REPORTS_DIR when set (the runner points it at reports/<notebook>); in a
 * person's live Jupyter session `<repo>/reports-live/<notebook>` (said once), so that re-running a notebook on the
 * sample never overwrites the full run's tables, run files and figures; else `<repo>/reports/<notebook>` (notebook
 * default: currentNotebook()). Created when missing.
 */
export function reportsDir(notebook?: string): string {
  const env = process.env[REPORTS_DIR_ENV];
  const name = notebook ?? currentNotebook();
  let dir: string;
  if (env) dir = path.resolve(env);
  else if (isLiveSession()) {
    dir = liveReportsDir(name);
    if (!liveSaid) {
      liveSaid = true;
      console.log(`[report] a live session: this notebook's tables, run files and figures go to reports-live/${name}/ (npm start writes reports/${name}/, which this session leaves as it is)`);
    }
  } else dir = repoReportsDir(name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Folder of a notebook's reports where `signalMilestone` writes (the runner clears it when the notebook starts). */
export const MILESTONES_DIR = 'milestones';

/**
 * Tell `npm start` that this notebook has written what later notebooks read (e.g. 05's stored α records, which 06–08
 * read), so that it can start them beside the rest of this one: writes `<$EO_REPORTS_DIR>/milestones/<name>.json`
 * atomically. Only under the runner ($EO_REPORTS_DIR set); elsewhere (a person's session, a test) it writes nothing
 * and returns null. Names: lower-case words joined by `-`.
 */
export function signalMilestone(name: string): string | null {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) throw new EoError('INVALID_ARGUMENT', `signalMilestone: "${name}" is not a milestone name (lower-case words joined by "-")`);
  const env = process.env[REPORTS_DIR_ENV];
  if (!env) return null;
  const file = path.join(path.resolve(env), MILESTONES_DIR, `${name}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeJsonAtomic(file, { milestone: name, notebook: currentNotebook(), at: new Date().toISOString() });
  return file;
}

/**
 * Write or merge `<reportsDir>/results.json` atomically: top-level keys of `results` replace the stored ones,
 * except `metrics` (an array of rows with a `system` field), whose rows are merged by `system`.
 * Returns the file path.
 */
export function writeResults(notebook: string | undefined, results: Record<string, unknown>): string {
  const file = path.join(reportsDir(notebook), 'results.json');
  let old: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) old = parsed;
  } catch {
    /* missing or unreadable: start afresh */
  }
  const merged: Record<string, unknown> = { ...old, ...results };
  if (Array.isArray(old.metrics) && Array.isArray(results.metrics)) {
    const rows = [...(old.metrics as unknown[])];
    for (const row of results.metrics as unknown[]) {
      const sys = (row as { system?: unknown })?.system;
      const at = sys === undefined ? -1 : rows.findIndex((r) => (r as { system?: unknown })?.system === sys);
      if (at >= 0) rows[at] = row;
      else rows.push(row);
    }
    merged.metrics = rows;
  }
  // the generated text this process has shown so far (never an earlier run's): the claim check tests it against the tables above
  merged.shownText = shownText();
  merged.notebook = notebook ?? currentNotebook();
  merged.updatedAt = new Date().toISOString();
  writeJsonAtomic(file, merged);
  return file;
}

/** Path of the plotly.js bundle the figures use (the design card's `plotly.js-dist`). */
export function plotlyJsPath(): string {
  return require.resolve('plotly.js-dist/plotly.js');
}

let plotlySource: string | null = null;

/** The plotly.js bundle (plotly.js-dist), read once. */
export function plotlyJs(): string {
  if (plotlySource === null) plotlySource = fs.readFileSync(plotlyJsPath(), 'utf8');
  return plotlySource;
}

/** File name of the plotly.js copy written once into each figures folder, which the figure pages load. */
export const PLOTLY_FILE = 'plotly.js';

/**
 * Copy plotly.js into `dir` as PLOTLY_FILE unless an identical-size copy is there (the bundle is ~10 MB: one copy
 * per figures folder instead of one inlined per figure). Returns the path.
 */
export function ensurePlotlyCopy(dir: string): string {
  const target = path.join(dir, PLOTLY_FILE);
  const src = plotlyJsPath();
  let same = false;
  try {
    same = fs.statSync(target).size === fs.statSync(src).size;
  } catch {
    /* missing */
  }
  if (!same) {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    fs.copyFileSync(src, tmp);
    fs.renameSync(tmp, target);
  }
  return target;
}

/** JSON safe inside a <script> element. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * An HTML page that draws the figure without network access. By default plotly.js is inlined (self-contained,
 * ~10 MB); with `plotlySrc` the page loads it from that relative URL instead (writeFigureFiles puts one copy
 * beside the pages).
 */
export function figureHtml(fig: Figure, title = 'figure', opts: { plotlySrc?: string } = {}): string {
  const config = { responsive: true, displaylogo: false, ...(fig.config ?? {}) };
  const plotly = opts.plotlySrc
    ? `<script src="${escapeHtml(opts.plotlySrc)}"></script>`
    : `<script>${plotlyJs().replace(/<\/script/gi, '<\\/script')}</script>`;
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>html,body{margin:0;background:#fff}#fig{width:100vw;height:100vh}</style>
${plotly}
</head><body><div id="fig"></div>
<script>Plotly.newPlot('fig', ${scriptJson(fig.data)}, ${scriptJson(fig.layout ?? {})}, ${scriptJson(config)});</script>
</body></html>
`;
}

/**
 * A figure as an HTML fragment for a live notebook output: a div drawn by plotly.js. With `inlinePlotly` the
 * bundle is inlined first (once per kernel is enough: later outputs reuse `window.Plotly`, so no network is
 * needed). The bundle is wrapped so that a page with an AMD loader (classic Notebook's requirejs) still gets
 * `window.Plotly` rather than an anonymous module.
 */
export function figureFragmentHtml(fig: Figure, divId: string, opts: { inlinePlotly: boolean; assetPath?: string }): string {
  const config = { responsive: true, displaylogo: false, ...(fig.config ?? {}) };
  const height = typeof fig.layout?.height === 'number' ? `${fig.layout.height}px` : '500px';
  const bundle = opts.inlinePlotly
    ? `<script>(function (define, exports, module) {\n${plotlyJs().replace(/<\/script/gi, '<\\/script')}\n})();</script>\n`
    : '';
  const id = scriptJson(divId);
  const asset = scriptJson(opts.assetPath ?? null);
  // a page without plotly.js (a reopened notebook whose kernel already sent it, an untrusted notebook) fetches the
  // copy the kernel wrote beside the notebook through the Jupyter server's /files/ route, once per page, and runs it
  // with AMD hidden (classic Notebook's requirejs would take it as an anonymous module)
  return `${bundle}<div id="${escapeHtml(divId)}" style="width:100%;height:${height}"></div>
<script>(function () {
  var el = document.getElementById(${id});
  var draw = function () { window.Plotly.newPlot(el, ${scriptJson(fig.data)}, ${scriptJson(fig.layout ?? {})}, ${scriptJson(config)}); };
  if (window.Plotly) return draw();
  var b = (document.body && document.body.dataset) || {}, asset = ${asset};
  var none = function () { el.textContent = 'plotly.js is not loaded in this page: run the notebook from its first figure cell'; };
  if (!asset || b.baseUrl === undefined || b.notebookPath === undefined) return none();
  var dir = b.notebookPath.split('/').slice(0, -1);
  var src = b.baseUrl + 'files/' + dir.concat(asset.split('/')).map(encodeURIComponent).join('/');
  window.__eoPlotly = window.__eoPlotly || fetch(src, { credentials: 'same-origin' })
    .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
    .then(function (js) { new Function('define', 'exports', 'module', js)(); });
  window.__eoPlotly.then(function () { window.Plotly ? draw() : none(); }, none);
})();</script>
`;
}

/** Folder, beside the notebook (the kernel's folder), of a live kernel's copy of plotly.js for reopened pages. */
const LIVE_ASSET_DIR = 'eo-assets';

/** Path of that copy relative to the notebook, as figure fragments fetch it. */
export const LIVE_PLOTLY_ASSET = `${LIVE_ASSET_DIR}/${PLOTLY_FILE}`;

/** Copy plotly.js into `<dir>/eo-assets/` (`ensurePlotlyCopy`); null when the folder cannot be written. */
export function ensureLivePlotlyAsset(dir = process.cwd()): string | null {
  try {
    return ensurePlotlyCopy(path.join(dir, LIVE_ASSET_DIR));
  } catch {
    return null; // a read-only folder: reopened pages fall back to the message
  }
}

/** Chromium used for PNGs: $CHROMIUM_PATH, else /usr/bin/chromium. Never downloaded. */
export function chromiumExecutable(): string {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Renderer {
  browser: Browser;
  page: Page;
}

let renderer: Promise<Renderer> | null = null;
let idleTimer: NodeJS.Timeout | null = null;
let warnedMissing = false;

/** True when the PNG renderer can run (the chromium binary exists). */
export function canRenderPng(): boolean {
  return fs.existsSync(chromiumExecutable());
}

/** Say once per process that PNGs are skipped. */
export function warnNoChromium(): void {
  if (warnedMissing) return;
  warnedMissing = true;
  console.log(`[report] chromium not found at ${chromiumExecutable()} (set CHROMIUM_PATH or run \`node scripts/ensure-system.cjs\`): writing figure HTML only, no PNG`);
}

async function launch(): Promise<Renderer> {
  // Lazy: playwright-core is only loaded when a PNG is wanted.
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { chromium } = require('playwright-core') as typeof import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: CHROMIUM_ARGS });
  const page = await browser.newPage();
  await page.setContent('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0;background:#fff"><div id="fig"></div></body></html>');
  await page.addScriptTag({ content: plotlyJs() });
  return { browser, page };
}

/**
 * Idle browsers are closed after this many ms so that a script that forgot closeFigureRenderer() still exits:
 * $EO_FIGURE_IDLE_MS, else 15 s — or 5 min in a notebook run by the driver ($EO_NOTEBOOK set), which ends with
 * closeFigureRenderer() and whose kernel is shut down afterwards: there a long cell between two figures (training,
 * embedding) must not cost a second browser start.
 */
export function figureIdleMs(env: Record<string, string | undefined> = process.env): number {
  const v = Number(env.EO_FIGURE_IDLE_MS);
  if (env.EO_FIGURE_IDLE_MS !== undefined && Number.isFinite(v) && v > 0) return v;
  return env.EO_NOTEBOOK ? 300000 : 15000;
}

/**
 * Render a figure to PNG bytes in headless chromium (one browser per process, started on first use).
 * Throws when chromium is missing; see canRenderPng().
 */
export async function renderFigurePng(fig: Figure, opts: { width?: number; height?: number; scale?: number } = {}): Promise<Buffer> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  if (!renderer) {
    renderer = launch();
    renderer.catch(() => (renderer = null));
  }
  const { page } = await renderer;
  const width = opts.width ?? (fig.layout?.width as number | undefined) ?? 900;
  const height = opts.height ?? (fig.layout?.height as number | undefined) ?? 500;
  try {
    const dataUrl = await page.evaluate(
      async ({ data, layout, width, height, scale }) => {
        const Plotly = (globalThis as any).Plotly;
        const el = (globalThis as any).document.getElementById('fig');
        await Plotly.react(el, data, { ...layout, width, height }, { staticPlot: true });
        return (await Plotly.toImage(el, { format: 'png', width, height, scale })) as string;
      },
      { data: fig.data, layout: fig.layout ?? {}, width, height, scale: opts.scale ?? 1 },
    );
    return Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
  } finally {
    idleTimer = setTimeout(() => void closeFigureRenderer(), figureIdleMs());
  }
}

/** Close the shared headless browser, if any (a later render starts a new one). */
export async function closeFigureRenderer(): Promise<void> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  const r = renderer;
  renderer = null;
  if (!r) return;
  try {
    await (await r).browser.close();
  } catch {
    /* already gone */
  }
}

/**
 * Write `<dir>/figures/<name>.html` (loading `figures/plotly.js`, copied there once) and the PNG bytes when given
 * as `<name>.png`; returns both paths.
 */
export function writeFigureFiles(dir: string, name: string, fig: Figure, png: Uint8Array | null): { html: string; png: string | null } {
  const figDir = path.join(dir, 'figures');
  ensurePlotlyCopy(figDir);
  const html = path.join(figDir, `${name}.html`);
  writeFileAtomic(html, figureHtml(fig, name, { plotlySrc: PLOTLY_FILE }));
  let pngFile: string | null = null;
  if (png) {
    pngFile = path.join(figDir, `${name}.png`);
    writeFileAtomic(pngFile, png);
  }
  return { html, png: pngFile };
}
