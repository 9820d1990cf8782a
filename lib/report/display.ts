import { inspect } from 'node:util';
import { EoError } from '../errors';
import { escapeHtml } from '../util/html';
import { canRenderPng, chromiumExecutable, ensureLivePlotlyAsset, tslabJupyterModule, figureFragmentHtml, LIVE_PLOTLY_ASSET, renderFigurePng, reportsDir, warnNoChromium, writeFigureFiles } from './export';
import { withLegendLayout } from './figures';
import { bestCells, isDataFrame, repoRelativePath, rowColumns, sourceLines, tableRows } from './frame';
import { recordShownText } from './shown-text';
import type { Figure, FigureDisplayMode, Progress, ProgressOptions, ShowFigureOptions, ShownFigure, ShowTableOptions, TableInput } from './types';

type WriteDisplayData = (content: { data: Record<string, unknown>; metadata: Record<string, unknown>; transient: Record<string, unknown> }, update: boolean) => void;

/** The display hook of the tslab kernel this process runs in (it holds the current cell's callback once a cell runs), or null. */
function tslabDisplayHook(): WriteDisplayData | null {
  const hook = tslabJupyterModule()?.lastWriteDisplayData;
  return typeof hook === 'function' ? (hook as WriteDisplayData) : null;
}

/** True when running inside a tslab Jupyter kernel (rich display available). */
export function inTslab(): boolean {
  return tslabDisplayHook() !== null;
}

/**
 * Display a MIME bundle (e.g. `{ 'image/png': bytes, 'text/plain': '...' }`) in the notebook; returns false
 * (and does nothing) outside tslab. Binary values are base64-encoded, as Jupyter expects.
 */
export function displayBundle(bundle: Record<string, string | Uint8Array>): boolean {
  const hook = tslabDisplayHook();
  if (!hook) return false;
  const data: Record<string, string> = {};
  for (const [mime, v] of Object.entries(bundle)) data[mime] = typeof v === 'string' ? v : Buffer.from(v).toString('base64');
  hook({ data, metadata: {}, transient: {} }, false);
  return true;
}

/** Display HTML inline in tslab (with a plain-text fallback); prints the text outside tslab. */
export function displayHtml(html: string, text = '[html]'): void {
  if (!displayBundle({ 'text/html': html, 'text/plain': text })) console.log(text);
}

/** Display PNG bytes inline in tslab; prints `text` outside tslab. */
export function displayPng(png: Uint8Array, text = '[png]'): void {
  if (!displayBundle({ 'image/png': png, 'text/plain': text })) console.log(text);
}

/**
 * How showFigure displays a figure: 'live' (an interactive plotly figure) in a Jupyter kernel a person drives,
 * 'static' (the PNG) outside tslab and in a headless run by the notebook runner, which sets $EO_NOTEBOOK; the
 * saved pages keep their PNG plus the interactive HTML file either way.
 */
export function figureDisplayMode(inKernel: boolean, env: NodeJS.ProcessEnv = process.env): FigureDisplayMode {
  return inKernel && !env.EO_NOTEBOOK ? 'live' : 'static';
}

/** Whether this kernel has already received the plotly bundle (it is inlined once per notebook). */
let plotlyInlined = false;

/**
 * The MIME bundle showFigure displays: in 'live' mode the figure as HTML (plotly bundle inlined when
 * `inlinePlotly`) with the label as text; in 'static' mode the PNG when there is one, else the label only.
 */
export function figureDisplayBundle(
  fig: Figure,
  opts: { mode: FigureDisplayMode; png: Uint8Array | null; label: string; name: string; inlinePlotly: boolean; assetPath?: string },
): Record<string, string | Uint8Array> {
  if (opts.mode === 'live') {
    const divId = `eo-fig-${opts.name.replace(/[^A-Za-z0-9_-]/g, '-')}-${Date.now().toString(36)}`;
    return { 'text/html': figureFragmentHtml(fig, divId, { inlinePlotly: opts.inlinePlotly, assetPath: opts.assetPath }), 'text/plain': opts.label };
  }
  return opts.png ? { 'image/png': opts.png, 'text/plain': opts.label } : { 'text/plain': opts.label };
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Save a figure under `<reportsDir>/figures/<name>.html` (self-contained) and `.png` (headless chromium),
 * and display the PNG inline when running in tslab (else print the paths).
 * Without chromium, writes the HTML only and says so once.
 */
export async function showFigure(fig: Figure, opts: ShowFigureOptions): Promise<ShownFigure> {
  if (!opts || !NAME_RE.test(opts.name ?? ''))
    throw new EoError('INVALID_ARGUMENT', `showFigure: name must match ${NAME_RE} (got ${JSON.stringify(opts?.name)})`, { name: opts?.name });
  const dir = reportsDir(opts.notebook);
  fig = withLegendLayout(fig);
  let png: Buffer | null = null;
  let renderMs = 0;
  if (opts.png !== false) {
    if (canRenderPng()) {
      const t0 = Date.now();
      try {
        png = await renderFigurePng(fig, opts);
        renderMs = Date.now() - t0;
      } catch (e) {
        // A broken browser must not kill a long notebook run: keep the HTML, report the PNG failure.
        console.log(`[report] could not render ${opts.name}.png with ${chromiumExecutable()}: ${(e as Error).message.split('\n')[0]}`);
      }
    } else warnNoChromium();
  }
  const files = writeFigureFiles(dir, opts.name, fig, png);
  const stem = repoRelativePath(files.html).replace(/\.html$/, '');
  const label = `figure ${opts.name}: ${stem}.${files.png ? '{html,png}' : 'html (no png)'}`;
  if (opts.display !== false) {
    const mode = figureDisplayMode(inTslab());
    // live: a copy of plotly.js beside the notebook too, for a page that lacks it later (a reopened notebook re-running one cell)
    const assetPath = mode === 'live' && ensureLivePlotlyAsset() ? LIVE_PLOTLY_ASSET : undefined;
    const bundle = figureDisplayBundle(fig, { mode, png, label, name: opts.name, inlinePlotly: mode === 'live' && !plotlyInlined, assetPath });
    const shown = displayBundle(bundle);
    if (shown && mode === 'live') plotlyInlined = true;
    if (!shown) console.log(label);
  }
  const shown: ShownFigure = { ...files, renderMs };
  // tslab prints a cell's last expression value: keep `await showFigure(...)` down to one line.
  Object.defineProperty(shown, inspect.custom, { value: () => `[${label}]`, enumerable: false });
  return shown;
}

function formatCell(v: unknown, digits: number): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : Number.isFinite(v) ? v.toFixed(digits) : String(v);
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}


/** Rows (or a DataFrame) as an aligned plain-text table (numbers right-aligned, best values starred, source footer). */
export function formatTable(input: TableInput, opts: ShowTableOptions = {}): string {
  const { columns, cells, numeric, omitted, marked, footer } = tableCells(input, opts);
  const text = cells.map((r, i) => r.map((v, j) => (marked.get(columns[j])?.has(i) ? `${v}*` : v)));
  const widths = columns.map((c, j) => Math.max(c.length, ...text.map((r) => r[j].length)));
  const line = (vals: string[]) => vals.map((v, j) => (numeric[j] ? v.padStart(widths[j]) : v.padEnd(widths[j]))).join('  ').trimEnd();
  const out: string[] = [];
  if (opts.title) out.push(opts.title);
  out.push(line(columns), widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of text) out.push(line(r));
  if (omitted > 0) out.push(`... ${omitted} more rows`);
  out.push(...footer);
  return out.join('\n');
}

function tableCells(input: TableInput, opts: ShowTableOptions) {
  const rows = tableRows(input);
  const digits = opts.digits ?? 3;
  const maxRows = opts.maxRows ?? 200;
  const columns = isDataFrame(input) && !opts.columns ? [...input.columns] : rowColumns(rows, opts.columns);
  const shown = rows.slice(0, maxRows);
  const cells = shown.map((r) => columns.map((c) => formatCell(r[c], digits)));
  const numeric = columns.map((c) => shown.length > 0 && shown.every((r) => r[c] === undefined || r[c] === null || typeof r[c] === 'number'));
  const marked = bestCells(shown, columns, opts.best, digits);
  return { columns, cells, numeric, omitted: rows.length - shown.length, marked, footer: sourceLines(opts.source, columns.filter((c) => marked.has(c))) };
}

/** Rows (or a DataFrame) as an HTML table: caption, best values in bold, source files and settings in the footer. */
export function tableHtml(input: TableInput, opts: ShowTableOptions = {}): string {
  const { columns, cells, numeric, omitted, marked, footer } = tableCells(input, opts);
  const cell = (v: string, j: number, tag: 'td' | 'th', best = false) =>
    `<${tag} style="text-align:${numeric[j] ? 'right' : 'left'};padding:2px 8px${best ? ';font-weight:bold' : ''}"${best ? ' class="eo-best"' : ''}>${escapeHtml(v)}</${tag}>`;
  const note = (text: string) => `<tr><td colspan="${columns.length}" style="text-align:left;padding:2px 8px;color:#555;font-size:12px">${escapeHtml(text)}</td></tr>`;
  const foot = [...(omitted > 0 ? [`... ${omitted} more rows`] : []), ...footer];
  return [
    '<table class="eo-table" style="border-collapse:collapse;font-family:sans-serif;font-size:13px">',
    opts.title ? `<caption style="text-align:left;font-weight:bold;padding:4px 0">${escapeHtml(opts.title)}</caption>` : '',
    `<thead><tr style="border-bottom:1px solid #888">${columns.map((c, j) => cell(c, j, 'th')).join('')}</tr></thead>`,
    '<tbody>',
    ...cells.map((r, i) => `<tr>${r.map((v, j) => cell(v, j, 'td', marked.get(columns[j])?.has(i) ?? false)).join('')}</tr>`),
    '</tbody>',
    foot.length > 0 ? `<tfoot style="border-top:1px solid #ccc">${foot.map(note).join('')}</tfoot>` : '',
    '</table>',
  ].join('');
}

/**
 * Show a table in tslab as HTML (with a plain-text fallback in the bundle); prints plain text elsewhere.
 * Takes rows or a danfojs DataFrame: a reader can `showTable(toDataFrame(rows).sortValues('MAP', { ascending: false }))`
 * or group a per-query table (`toDataFrame(perQuery).groupby(['daac']).mean()`). Returns nothing, so a cell ending
 * with it prints only the table.
 */
export function showTable(input: TableInput, opts: ShowTableOptions = {}): void {
  const text = formatTable(input, opts);
  if (!displayBundle({ 'text/html': tableHtml(input, opts), 'text/plain': text })) console.log(text);
}

function fmtDuration(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/**
 * A throttled progress printer: `progressPrinter('embedding', 10073)` then `p.tick()` per item and `p.done()`.
 * Prints lines like `embedding 1200/10073 (12%) 40 s elapsed, ETA 5 min` at most every intervalMs (default 5 s),
 * through process.stdout, so they appear in the notebook (tslab) and stream to the console (npm start).
 */
export function progressPrinter(label: string, total: number, opts: ProgressOptions = {}): Progress {
  const envMs = Number(process.env.EO_PROGRESS_MS);
  const interval = opts.intervalMs ?? (Number.isFinite(envMs) && envMs >= 0 && process.env.EO_PROGRESS_MS !== undefined ? envMs : 5000);
  const write = opts.write ?? ((line: string) => void process.stdout.write(line + '\n'));
  const t0 = Date.now();
  let last = t0;
  let count = 0;
  let finished = false;
  const line = () => {
    const el = (Date.now() - t0) / 1000;
    const pct = total > 0 ? ` (${Math.floor((100 * count) / total)}%)` : '';
    const eta = count > 0 && total > count ? `, ETA ${fmtDuration((el * (total - count)) / count)}` : '';
    return `${label} ${count}/${total}${pct} ${fmtDuration(el)} elapsed${eta}`;
  };
  const maybe = () => {
    if (finished) return;
    const now = Date.now();
    if (now - last >= interval) {
      last = now;
      write(line());
    }
  };
  return {
    tick(n = 1) {
      count += n;
      maybe();
    },
    update(done: number) {
      count = done;
      maybe();
    },
    done() {
      if (finished) return;
      finished = true;
      write(`${label} ${count}/${total} done in ${fmtDuration((Date.now() - t0) / 1000)}`);
    },
    elapsed() {
      return (Date.now() - t0) / 1000;
    },
  };
}

/**
 * Display Markdown in tslab (rendered as a cell output); prints it outside tslab. `key` names the sentence of one
 * notebook step (e.g. `05.07 gains`): shown again under the same key it replaces the earlier text in results.json's
 * `shownText` (see lib/report/shown-text.ts). A blank text shows nothing; under a key it withdraws the key's text (a
 * step that has nothing to say this time).
 */
export function showMarkdown(md: string, opts: { key?: string } = {}): void {
  recordShownText(md, opts.key);
  if (md.trim() === '') return;
  if (!displayBundle({ 'text/markdown': md, 'text/plain': md })) console.log(md);
}
