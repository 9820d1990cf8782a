import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { escapeHtml } from '../util/html';
import { writeFileAtomic, writeJsonAtomic } from '../util/fs';
import { PLOTLY_FILE } from './export';
import { writeExplorerPage } from './explorer';
import { paperSummaryHtml, paperVsOurs, type PaperSummaryCell } from './paper-summary';
import type { ExplorerMeta, TableRow } from './types';

/** What `npm start` records about one notebook run in `<reports>/<name>/run.json` (scripts/nbrun.py + run-notebooks.cjs). */
export interface NotebookRunSummary {
  ok?: boolean;
  /** Wall seconds of the whole run, kernel start included. */
  seconds?: number;
  kernelStartSeconds?: number;
  /** ISO time the run started / finished. */
  startedAt?: string;
  finishedAt?: string;
  /** The repository's commit when it ran; `dirty` when the working tree had changes. */
  git?: { commit?: string; dirty?: boolean };
  sample?: boolean;
  cells?: { index: number; number: number; seconds: number }[];
  error?: { summary?: string; cellNumber?: number } | null;
}

/** One table found in a results.json: an array of row objects at `key` (a dotted path), exported as CSV and JSON. */
export interface SiteTable {
  key: string;
  rows: number;
  /** Paths relative to the reports root. */
  csv: string;
  json: string;
}

export interface SiteFigure {
  name: string;
  /** Paths relative to the reports root; null when that form was not written. */
  png: string | null;
  html: string | null;
}

/** Everything the index shows about one notebook folder. */
export interface SiteNotebook {
  name: string;
  /** The nbconvert page, relative to the reports root (null when there is no executed notebook or it failed to convert). */
  page: string | null;
  ipynb: string | null;
  results: string | null;
  run: NotebookRunSummary | null;
  /** Run date: run.json's finishedAt, else results.json's updatedAt. */
  date: string | null;
  sample: boolean | null;
  /** Every `seed`/`seeds` value in results.json by dotted path (e.g. `nnssc.config.seed`). */
  seeds: Record<string, unknown>;
  tables: SiteTable[];
  figures: SiteFigure[];
  /** TREC run and qrels files and other data files in the folder, relative to the reports root. */
  files: string[];
  /** Why the notebook page is missing, when it is. */
  pageError?: string;
  /** The run explorer page (lib/report/explorer.ts), relative to the reports root; null without run files. */
  explorer?: string | null;
}

export interface ReportSiteOptions {
  /** Query texts, styles, dataset titles/DAACs, score parts and judge labels for a notebook's run explorer. Default: none (ids only, strata from the qrels). */
  explorerMeta?: (notebook: string) => ExplorerMeta | null;
  /** Convert each `<name>/<name>.ipynb` to `<name>/<name>.html` with nbconvert. Default true. */
  nbconvert?: boolean;
  /** Python with nbconvert (Debian's jupyter-nbconvert). Default /usr/bin/python3. */
  python?: string;
  /** Seconds one nbconvert run may take. Default 300. */
  timeoutSeconds?: number;
  /** Page title. Default 'EO Workbench reports'. */
  title?: string;
  /** The commit the site is built from, shown in the header. Default: the reports' own commits only. */
  commit?: string | null;
  /** Time shown as "built at". Default now. */
  now?: Date;
  /**
   * MathJax 2 folder the pages' LaTeX is typeset with: what they need is copied to `<root>/assets/mathjax/` so that
   * the site works offline and moved elsewhere. Default Debian's libjs-mathjax, /usr/share/javascript/mathjax
   * (scripts/ensure-system.cjs installs it); when it is missing the pages show LaTeX as source. null: no MathJax.
   */
  mathjaxDir?: string | null;
}

export interface ReportSite {
  /** Absolute path of index.html. */
  index: string;
  notebooks: SiteNotebook[];
}

const NOTEBOOK_DIR_RE = /^\d\d-[A-Za-z0-9._-]+$/;
const DATA_FILE_RE = /\.(run|trec|tsv|csv|jsonl)$/;

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Arrays of row objects in a results.json, by dotted key path (at most `depth` levels down). */
export function findTables(results: unknown, depth = 3): { key: string; rows: TableRow[] }[] {
  const out: { key: string; rows: TableRow[] }[] = [];
  const walk = (v: unknown, key: string, level: number) => {
    if (Array.isArray(v)) {
      if (key && v.length > 0 && v.every((r) => isRecord(r) && Object.values(r).some((x) => x === null || typeof x !== 'object'))) out.push({ key, rows: v as TableRow[] });
      return;
    }
    if (!isRecord(v) || level >= depth) return;
    for (const [k, x] of Object.entries(v)) walk(x, key ? `${key}.${k}` : k, level + 1);
  };
  walk(results, '', 0);
  return out;
}

/** Every `seed`/`seeds` value in a results.json by dotted path. */
export function findSeeds(results: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (v: unknown, key: string, level: number) => {
    if (!isRecord(v) || level > 6) return;
    for (const [k, x] of Object.entries(v)) {
      const at = key ? `${key}.${k}` : k;
      if (/^seeds?$/i.test(k) && (typeof x === 'number' || typeof x === 'string' || Array.isArray(x))) out[at] = x;
      else walk(x, at, level + 1);
    }
  };
  walk(results, '', 0);
  return out;
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Rows as CSV (RFC 4180 quoting; columns in order of first appearance). */
export function rowsToCsv(rows: readonly TableRow[]): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return [cols.map(csvCell).join(','), ...rows.map((r) => cols.map((c) => csvCell(r[c])).join(','))].join('\n') + '\n';
}

function rel(root: string, p: string): string {
  return path.relative(root, p).split(path.sep).join('/');
}

/** Read one `<root>/<name>/` folder; writes its tables as `tables/<key>.csv|json`. */
function collectNotebook(root: string, name: string): SiteNotebook {
  const dir = path.join(root, name);
  const ipynb = path.join(dir, `${name}.ipynb`);
  const resultsFile = path.join(dir, 'results.json');
  const results = fs.existsSync(resultsFile) ? readJson(resultsFile) : null;
  const run = readJson(path.join(dir, 'run.json')) as NotebookRunSummary | null;
  const tables: SiteTable[] = [];
  if (results !== null) {
    const tableDir = path.join(dir, 'tables');
    for (const t of findTables(results)) {
      const stem = t.key.replace(/[^A-Za-z0-9._-]/g, '_');
      const csv = path.join(tableDir, `${stem}.csv`);
      const json = path.join(tableDir, `${stem}.json`);
      writeFileAtomic(csv, rowsToCsv(t.rows));
      writeJsonAtomic(json, t.rows);
      tables.push({ key: t.key, rows: t.rows.length, csv: rel(root, csv), json: rel(root, json) });
    }
  }
  const figDir = path.join(dir, 'figures');
  const figFiles = fs.existsSync(figDir) ? fs.readdirSync(figDir).sort() : [];
  const figNames = [...new Set(figFiles.filter((f) => /\.(png|html)$/.test(f)).map((f) => f.replace(/\.(png|html)$/, '')))];
  const figures = figNames.map((n) => ({
    name: n,
    png: figFiles.includes(`${n}.png`) ? rel(root, path.join(figDir, `${n}.png`)) : null,
    html: figFiles.includes(`${n}.html`) ? rel(root, path.join(figDir, `${n}.html`)) : null,
  }));
  const files = fs
    .readdirSync(dir)
    .filter((f) => DATA_FILE_RE.test(f) && fs.statSync(path.join(dir, f)).isFile())
    .sort()
    .map((f) => rel(root, path.join(dir, f)));
  const r = isRecord(results) ? results : {};
  return {
    name,
    page: null,
    ipynb: fs.existsSync(ipynb) ? rel(root, ipynb) : null,
    results: results !== null ? rel(root, resultsFile) : null,
    run,
    date: run?.finishedAt ?? (typeof r.updatedAt === 'string' ? r.updatedAt : null),
    sample: typeof r.sample === 'boolean' ? r.sample : typeof run?.sample === 'boolean' ? run.sample : null,
    seeds: findSeeds(results),
    tables,
    figures,
    files,
  };
}

/** The notebook folders of a reports root (`NN-name/`), sorted. */
export function listReportFolders(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .filter((d) => NOTEBOOK_DIR_RE.test(d) && fs.statSync(path.join(root, d)).isDirectory())
    .sort();
}

/** Debian's libjs-mathjax (MathJax 2.7), the default of `ReportSiteOptions.mathjaxDir`. */
export const DEFAULT_MATHJAX_DIR = '/usr/share/javascript/mathjax';
/** Where the site keeps its copy of MathJax, relative to the reports root. */
export const SITE_MATHJAX_DIR = 'assets/mathjax';
/** The MathJax configuration the pages load (nbconvert's own choice): TeX input, CommonHTML output, the Safe extension. */
const MATHJAX_CONFIG = 'TeX-AMS_CHTML-full,Safe';
/**
 * The parts of MathJax 2 that TeX-AMS_CHTML-full needs (~1.5 MB of its 54): the loader, the combined configuration,
 * the extensions it may load on demand (TeX packages, menus, accessibility), the TeX input and CommonHTML output jax
 * and the TeX web fonts.
 */
const MATHJAX_PARTS = ['MathJax.js', 'config/TeX-AMS_CHTML-full.js', 'config/Safe.js', 'extensions', 'jax/input/TeX', 'jax/element', 'jax/output/CommonHTML', 'fonts/HTML-CSS/TeX/woff'];

/**
 * Copy what the pages need of MathJax 2 from `srcDir` into `<root>/assets/mathjax/` (files are replaced, links
 * followed). Returns the copy's folder, or null when `srcDir` has no MathJax.js (the pages then show LaTeX as source).
 */
export function copyMathJax(root: string, srcDir: string = DEFAULT_MATHJAX_DIR): string | null {
  if (!fs.existsSync(path.join(srcDir, 'MathJax.js'))) return null;
  const dest = path.join(root, SITE_MATHJAX_DIR);
  for (const part of MATHJAX_PARTS) {
    const from = path.join(srcDir, part);
    if (!fs.existsSync(from)) throw new EoError('REPORT', `MathJax at ${srcDir} lacks ${part}: not a MathJax 2 folder (Debian's libjs-mathjax)`, { file: from });
    fs.cpSync(from, path.join(dest, part), { recursive: true, dereference: true, force: true });
  }
  return dest;
}

/** The MathJax URL a page at `<root>/<name>/<name>.html` loads from the site's copy. */
export function pageMathJaxUrl(): string {
  return `../${SITE_MATHJAX_DIR}/MathJax.js?config=${MATHJAX_CONFIG}`;
}

/**
 * Convert executed notebooks to HTML next to them (`<name>.ipynb` → `<name>.html`) in one nbconvert run (its
 * start-up is most of the cost). Figures displayed in the notebook (PNG, HTML tables) are inline in the page.
 * Returns the HTML paths; throws EoError REPORT naming nbconvert's error.
 */
export function convertNotebooks(ipynbs: readonly string[], opts: ReportSiteOptions & { mathjaxUrl?: string } = {}): string[] {
  if (ipynbs.length === 0) return [];
  const python = opts.python ?? '/usr/bin/python3';
  const mathjax = opts.mathjaxUrl ? [`--HTMLExporter.mathjax_url=${opts.mathjaxUrl}`] : [];
  const r = spawnSync(python, ['-m', 'nbconvert', '--to', 'html', '--log-level', 'WARN', ...mathjax, ...ipynbs], {
    encoding: 'utf8',
    timeout: (opts.timeoutSeconds ?? 300) * 1000,
    env: { ...process.env, PYTHONHOME: '', PYTHONPATH: '' },
  });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : (r.stderr || r.stdout || '').trim().split('\n').slice(-5).join('\n');
    throw new EoError('REPORT', `nbconvert (${python} -m nbconvert --to html) failed on ${ipynbs.length} notebook(s): ${why}`, { notebooks: ipynbs });
  }
  return ipynbs.map((f) => f.replace(/\.ipynb$/, '.html'));
}


/** A relative link to a file of the site (path segments URL-encoded). */
function href(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

/**
 * Make an nbconvert page work offline and link back: drop scripts and stylesheets loaded by absolute URL (require.js
 * from a CDN; MathJax when the site has no copy of its own, see `copyMathJax`: from a CDN or file:// they only fail,
 * with console errors, and LaTeX then shows as source; the site's copy is loaded by a relative URL and stays),
 * and add a bar linking the index, results, tables and each figure's interactive page.
 */
export function finishNotebookPage(html: string, nb: SiteNotebook): string {
  let out = html
    .replace(/<script\b[^>]*\bsrc\s*=\s*["']?(?:https?:|file:)?\/\/[^>]*>\s*<\/script>/gi, '')
    .replace(/<link\b[^>]*\bhref\s*=\s*["']?(?:https?:|file:)?\/\/[^>]*>/gi, '');
  const up = (p: string) => href(p.slice(nb.name.length + 1)); // links from inside <name>/
  const links = [
    '<a href="../index.html">← all notebooks</a>',
    ...(nb.results ? [`<a href="${up(nb.results)}">results.json</a>`] : []),
    ...nb.tables.map((t) => `<a href="${up(t.csv)}">${escapeHtml(t.key)}.csv</a>`),
    ...nb.figures.map((f) => `<a href="${up(f.html ?? f.png!)}">${escapeHtml(f.name)}</a>`),
  ];
  const bar = `<nav class="eo-report-nav" style="font:13px sans-serif;padding:6px 12px;background:#f3f5f8;border-bottom:1px solid #ccd">${links.join(' · ')}</nav>`;
  out = /<body[^>]*>/i.test(out) ? out.replace(/<body[^>]*>/i, (m) => `${m}\n${bar}`) : bar + out;
  return out;
}

function fmtSeconds(s: number | undefined): string {
  if (s === undefined || !Number.isFinite(s)) return '';
  if (s < 120) return `${s.toFixed(1)} s`;
  if (s < 7200) return `${(s / 60).toFixed(1)} min`;
  return `${(s / 3600).toFixed(2)} h`;
}

function seedText(seeds: Record<string, unknown>): string {
  const entries = Object.entries(seeds);
  if (entries.length === 0) return '';
  const values = new Set(entries.map(([, v]) => JSON.stringify(v)));
  // One seed everywhere: print it once.
  if (values.size === 1) return JSON.parse([...values][0]) + (entries.length > 1 ? ` (${entries.map(([k]) => k).join(', ')})` : '');
  return entries.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
}

/** The index page: one section per notebook with its run facts and links to its page, tables, figures and files. */
export function reportIndexHtml(notebooks: readonly SiteNotebook[], opts: ReportSiteOptions = {}, paperSummary: readonly PaperSummaryCell[] = []): string {
  const title = opts.title ?? 'EO Workbench reports';
  const now = (opts.now ?? new Date()).toISOString();
  const a = (p: string, text: string) => `<a href="${href(p)}">${escapeHtml(text)}</a>`;
  const summary = notebooks.map((nb) => {
    const status = nb.run ? (nb.run.ok ? 'ok' : `failed${nb.run.error?.summary ? `: ${nb.run.error.summary}` : ''}`) : 'no run.json';
    const commit = nb.run?.git?.commit ? `${nb.run.git.commit.slice(0, 10)}${nb.run.git.dirty ? ' (modified)' : ''}` : '';
    return `<tr data-notebook="${escapeHtml(nb.name)}">
<td>${nb.page ? a(nb.page, nb.name) : escapeHtml(nb.name)}</td>
<td class="${nb.run?.ok ? 'ok' : 'bad'}">${escapeHtml(status)}</td>
<td>${escapeHtml(nb.date ?? '')}</td>
<td><code>${escapeHtml(commit)}</code></td>
<td>${escapeHtml(seedText(nb.seeds))}</td>
<td style="text-align:right">${escapeHtml(fmtSeconds(nb.run?.seconds))}</td>
<td>${nb.sample === null ? '' : nb.sample ? 'sample' : 'full'}</td>
</tr>`;
  });
  const sections = notebooks.map((nb) => {
    const parts: string[] = [];
    const main = [
      ...(nb.page ? [a(nb.page, 'notebook page')] : nb.pageError ? [`<span class="bad">no page: ${escapeHtml(nb.pageError)}</span>`] : []),
      ...(nb.ipynb ? [a(nb.ipynb, `${nb.name}.ipynb`)] : []),
      ...(nb.results ? [a(nb.results, 'results.json')] : []),
      ...(nb.run ? [a(`${nb.name}/run.json`, 'run.json')] : []),
      ...(nb.explorer ? [a(nb.explorer, 'run explorer')] : []),
    ];
    parts.push(`<p>${main.join(' · ')}</p>`);
    if (nb.tables.length > 0)
      parts.push(`<p>Tables: ${nb.tables.map((t) => `${escapeHtml(t.key)} (${t.rows} rows: ${a(t.csv, 'CSV')}, ${a(t.json, 'JSON')})`).join('; ')}</p>`);
    if (nb.files.length > 0) parts.push(`<p>Run and qrels files: ${nb.files.map((f) => a(f, f.slice(nb.name.length + 1))).join(', ')}</p>`);
    if (nb.figures.length > 0)
      parts.push(
        `<div class="figs">${nb.figures
          .map(
            (f) => `<figure>${f.png ? `<a href="${href(f.html ?? f.png)}"><img src="${href(f.png)}" alt="${escapeHtml(f.name)}" loading="lazy"></a>` : ''}
<figcaption>${escapeHtml(f.name)}: ${[f.html ? a(f.html, 'interactive') : '', f.png ? a(f.png, 'PNG') : ''].filter(Boolean).join(' · ')}</figcaption></figure>`,
          )
          .join('\n')}</div>`,
      );
    return `<section id="${escapeHtml(nb.name)}"><h2>${escapeHtml(nb.name)}</h2>\n${parts.join('\n')}\n</section>`;
  });
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 DejaVu Sans,Liberation Sans,Arial,sans-serif;margin:24px;color:#222;max-width:1200px}
table{border-collapse:collapse}th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
th{border-bottom:2px solid #888}.ok{color:#176117}.bad{color:#a31515}code{font-size:12px}
.num{text-align:right}.figs{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0;width:280px}figure img{width:280px;border:1px solid #ddd}
figcaption{font-size:12px}section{margin-top:28px;border-top:1px solid #ccc}
</style></head><body>
<h1>${escapeHtml(title)}</h1>
<p>Built ${escapeHtml(now)}${opts.commit ? ` from commit <code>${escapeHtml(opts.commit)}</code>` : ''}. Each notebook page is the executed notebook (nbconvert); interactive figures load <code>figures/${PLOTLY_FILE}</code> beside them.</p>
${paperSummary.length > 0 ? `${paperSummaryHtml(paperSummary)}\n<h2>Notebooks</h2>` : ''}
<table id="notebooks"><thead><tr><th>notebook</th><th>status</th><th>run date</th><th>git commit</th><th>seeds</th><th>wall time</th><th>snapshot</th></tr></thead>
<tbody>
${summary.join('\n')}
</tbody></table>
${sections.join('\n')}
</body></html>
`;
}

/**
 * Build the report site of a reports root (as `npm start` leaves it): for every `NN-name/` folder, the executed
 * notebook as `NN-name/NN-name.html` (nbconvert, figures inline, a bar linking results, tables and interactive
 * figures), its results.json tables as `tables/*.csv|json`, and `index.html` linking every notebook page, table,
 * figure and run file with the run date, git commit, seeds and wall time of each notebook.
 * A notebook whose conversion fails keeps its row, with the reason.
 */
export function buildReportSite(root: string, opts: ReportSiteOptions = {}): ReportSite {
  const abs = path.resolve(root);
  if (!fs.existsSync(abs)) throw new EoError('DATA_NOT_FOUND', `report site: no reports folder ${abs}`, { root: abs });
  const notebooks = listReportFolders(abs).map((name) => collectNotebook(abs, name));
  if (opts.nbconvert !== false) {
    const todo = notebooks.filter((nb) => nb.ipynb !== null);
    const mathjax = opts.mathjaxDir === null || todo.length === 0 ? null : copyMathJax(abs, opts.mathjaxDir ?? DEFAULT_MATHJAX_DIR);
    const convertOpts = { ...opts, mathjaxUrl: mathjax ? pageMathJaxUrl() : undefined };
    try {
      convertNotebooks(todo.map((nb) => path.join(abs, nb.ipynb!)), convertOpts);
    } catch {
      // One bad notebook must not cost the others their pages: convert one at a time, noting each failure.
      for (const nb of todo) {
        try {
          convertNotebooks([path.join(abs, nb.ipynb!)], convertOpts);
        } catch (err) {
          nb.pageError = (err as Error).message.slice(-300);
        }
      }
    }
    for (const nb of todo) {
      if (nb.pageError) continue;
      const page = path.join(abs, nb.name, `${nb.name}.html`);
      if (!fs.existsSync(page)) {
        nb.pageError = 'nbconvert wrote no page';
        continue;
      }
      writeFileAtomic(page, finishNotebookPage(fs.readFileSync(page, 'utf8'), nb));
      nb.page = rel(abs, page);
    }
  } else {
    for (const nb of notebooks) {
      const page = path.join(abs, nb.name, `${nb.name}.html`);
      if (fs.existsSync(page)) nb.page = rel(abs, page);
    }
  }
  for (const nb of notebooks) {
    const page = writeExplorerPage(path.join(abs, nb.name), opts.explorerMeta?.(nb.name) ?? {});
    nb.explorer = page ? rel(abs, page) : null;
  }
  const index = path.join(abs, 'index.html');
  const results = notebooks.map((nb) => ({ name: nb.name, results: nb.results ? readJson(path.join(abs, nb.results)) : null }));
  writeFileAtomic(index, reportIndexHtml(notebooks, opts, paperVsOurs(results)));
  return { index, notebooks };
}
