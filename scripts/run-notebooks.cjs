#!/usr/bin/env node
// `npm start`: execute every notebooks/NN-*.ipynb, headless, with the project's tslab kernel; with --jobs 2 (the
// default on 2+ cores) two at a time, each notebook waiting only for the notebooks whose files it reads
// (NOTEBOOK_NEEDS), the longest chain first (START_ORDER), their console lines prefixed; --jobs 1 runs them one
// after the other in file order. The same plan serves the full snapshot and --sample (teacher mode).
//
//   npm start -- [--only 00-tour[,01-x]] [--sample] [--jobs 2] [--timeout 3600] [--keep-going] [--no-build] [--reports DIR] [--no-site] [--list]
//
// Each notebook runs through scripts/nbrun.py (Debian /usr/bin/python3 + nbclient) with cwd notebooks/,
// JUPYTER_PATH=<repo>/.jupyter, EO_REPORTS_DIR=<reports>/<name>, EO_NOTEBOOK=<name> (and EO_SAMPLE=1 with --sample);
// cell output streams to the console while it runs. The executed notebook goes to <reports>/<name>/<name>.ipynb and
// a run summary (wall time, per-cell seconds, error) to <reports>/<name>/run.json. At the end, prints wall time per
// notebook and the `metrics` arrays of every <reports>/*/results.json, and writes the report site: each executed
// notebook as <reports>/<name>/<name>.html (nbconvert) and <reports>/index.html (lib/report/site.ts). Exit 1 when a
// notebook fails.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { ensureSystem, kernelEnv, PYTHON, KERNEL_NAME } = require('./ensure-system.cjs');

const ROOT = path.resolve(__dirname, '..');
const NOTEBOOKS_DIR = path.join(ROOT, 'notebooks');
const DRIVER = path.join(__dirname, 'nbrun.py');
const NOTEBOOK_RE = /^\d\d-.+\.ipynb$/;

/** notebooks/NN-*.ipynb, sorted; as { name, file }. */
function listNotebooks(dir = NOTEBOOKS_DIR) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => NOTEBOOK_RE.test(f))
    .sort()
    .map((f) => ({ name: f.replace(/\.ipynb$/, ''), file: path.join(dir, f) }));
}

/** Keep notebooks matching one of the names (`00-tour`, `00-tour.ipynb` or the `00` prefix). */
function selectNotebooks(all, only) {
  if (!only || only.length === 0) return all;
  const picked = [];
  for (const want of only) {
    const w = want.replace(/\.ipynb$/, '');
    const hits = all.filter((n) => n.name === w || n.name.startsWith(`${w}-`));
    if (hits.length === 0) throw new Error(`--only ${want}: no such notebook in ${NOTEBOOKS_DIR} (have: ${all.map((n) => n.name).join(', ') || 'none'})`);
    for (const h of hits) if (!picked.includes(h)) picked.push(h);
  }
  return all.filter((n) => picked.includes(n));
}

/**
 * What each notebook reads that another notebook writes, for every notebook, so that any notebook may run beside any
 * other it does not read from (full snapshot and --sample alike). On the sample no single notebook fills the two cores
 * for long (kernel start, type-checking the first cell and short single-threaded steps leave one idle), so this is
 * what brings `npm start -- --sample` well inside 5 minutes; on the full snapshot it runs 04's corpus embedding and
 * NN-SSC training beside 03's static encoder and fine-tuning, 00, 01 and 02 in 03's tail, then 05, and 06, 07 and 08
 * beside 05's second part once it has stored the α records they read (NOTEBOOK_MILESTONES).
 * Results do not depend on the order: every stage is seeded, and the shared caches are written atomically under a
 * lock that a second writer waits for (lib/encode/cache.ts).
 *   05 ← 03 (the fine-tuned encoder's checkpoint and its corpus embeddings), 04 (the NN-SSC checkpoint)
 *   06, 07 ← 04 (NN-SSC: the strong backbone), 05 (the fusion records of Cosine (base) + BM25 and NN-SSC + BM25)
 *   08 ← 01 (the benchmark on disk: α is set on its training split; without it 08 falls back to RRF), 05 (fusion record)
 * 06/07/08 would set α themselves when no record exists; waiting for 05 keeps every α the one 05 stored, so the
 * numbers are those of a run one notebook at a time. They wait for 05 only until it has stored them
 * (NOTEBOOK_MILESTONES), and run beside the rest of 05 (its style tables and default ranking, which they do not read). 00–04 read only caches that the first notebook to need them
 * builds (BM25 index, benchmark, base corpus and query embeddings: written atomically, the embeddings under a lock
 * that a second writer waits for). The static encoder is such a cache too: 03 trains it in its set-up cell, while 04
 * embeds the corpus, and 04 (its NN-SSC backbone) finds it there or waits for 03's training to finish rather than
 * training it beside it.
 */
const NOTEBOOK_NEEDS = {
  '00-tour': [],
  '01-benchmark': [],
  '02-baselines': [],
  '03-encoder-finetune': [],
  '04-nnssc': [],
  '05-fusion': ['03-encoder-finetune', '04-nnssc'],
  '06-llm-rerank': ['04-nnssc', '05-fusion'],
  '07-agentic': ['04-nnssc', '05-fusion'],
  '08-router': ['01-benchmark', '05-fusion'],
};

/**
 * Where a need is met before the notebook it names ends: notebook → { needed notebook → milestone }. The needed
 * notebook signals the milestone (`signalMilestone` in lib/report/export.ts writes <reports>/<needed>/milestones/<name>.json)
 * once it has written everything the waiting notebook reads; a notebook that ends (ok or not) meets every need on it.
 * 05 stores the α records of its hybrids (Table 2's fusion, the strong backbone 06 and 07 rerank) in its Table 2 cell,
 * about a third of the way through; 08 sets its own α (a lexical half with the vocabulary expansion) and waits with
 * 06 and 07 so that it never runs beside 03 or 04.
 */
const NOTEBOOK_MILESTONES = {
  '06-llm-rerank': { '05-fusion': 'fusion-records' },
  '07-agentic': { '05-fusion': 'fusion-records' },
  '08-router': { '05-fusion': 'fusion-records' },
};

/** The folder a notebook's milestones are signalled in, and the file of one (the layout `signalMilestone` writes). */
function milestonesDir(notebookReportsDir) {
  return path.join(notebookReportsDir, 'milestones');
}
function milestoneFile(reportsRoot, notebook, milestone) {
  return path.join(milestonesDir(path.join(reportsRoot, notebook)), `${milestone}.json`);
}

/**
 * Start order with more than one job (notebooks start in this order, each once its needs are met): the longest chain
 * first — 03 trains the static encoder in its set-up cell while 04 embeds the corpus with USE-lite (the embeddings 03
 * and 00 read next, under the cache's lock) and trains NN-SSC on it, then NN-SSC on the static encoder 03 has saved by
 * then; both gate 05. 00 (which finds the corpus embeddings made), 01 and 02 fill in once 03 is done. Notebooks not
 * listed go last, in file order.
 */
const START_ORDER = ['03-encoder-finetune', '04-nnssc', '00-tour', '01-benchmark', '02-baselines', '05-fusion', '06-llm-rerank', '07-agentic', '08-router'];

/** How `chosen` is scheduled: START_ORDER with more than one job, file order with one; NOTEBOOK_NEEDS either way. */
function schedulePlan(chosen, jobs = 2) {
  if (jobs <= 1) return { order: chosen, needs: NOTEBOOK_NEEDS };
  const rank = (n) => {
    const i = START_ORDER.indexOf(n.name);
    return i < 0 ? START_ORDER.length + chosen.indexOf(n) : i;
  };
  return { order: [...chosen].sort((a, b) => rank(a) - rank(b)), needs: NOTEBOOK_NEEDS };
}

/** Names of the notebooks among `chosen` (ordered) that `name` waits for: NOTEBOOK_NEEDS, else all earlier ones. */
function notebookNeeds(chosen, name, needs = NOTEBOOK_NEEDS) {
  const earlier = chosen.slice(0, chosen.findIndex((n) => n.name === name)).map((n) => n.name);
  const declared = needs[name];
  return declared ? earlier.filter((n) => declared.includes(n)) : earlier;
}

/**
 * Index of the next notebook of `chosen` to start, or -1: notebooks start in order, at most `jobs` at a time, each
 * once all it needs are met (`finished`: names done, ok or not; `started`: names started, finished or not). A need
 * is met when that notebook has finished, or, where `milestones` names one for the pair, when it has started and
 * `reached(needed, milestone)` says it signalled the milestone (default: never, i.e. wait for the end).
 */
function nextNotebook(chosen, started, finished, jobs, needs = NOTEBOOK_NEEDS, milestones = NOTEBOOK_MILESTONES, reached = () => false) {
  const running = [...started].filter((n) => !finished.has(n)).length;
  if (running >= jobs) return -1;
  const i = chosen.findIndex((n) => !started.has(n.name));
  if (i < 0) return -1;
  const name = chosen[i].name;
  const met = (n) => finished.has(n) || (started.has(n) && milestones[name]?.[n] !== undefined && reached(n, milestones[name][n]));
  return notebookNeeds(chosen, name, needs).every(met) ? i : -1;
}

/** The repository's commit and whether tracked files differ from it (null outside git or without git). */
function gitInfo(cwd = ROOT) {
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8' });
  if (head.status !== 0) return null;
  const st = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8' });
  return { commit: head.stdout.trim(), dirty: st.status === 0 ? st.stdout.trim() !== '' : null };
}

/** Write JSON whole or not at all: the project's one writer (lib/util/fs.ts, built before the notebooks run). */
function writeJsonAtomic(file, value) {
  require(path.join(ROOT, 'dist', 'lib', 'util', 'fs.js')).writeJsonAtomic(file, value);
}

/**
 * How tslab's TypeScript watches the ~1,000 declaration files a notebook imports: by polling their mtimes (files
 * that do not change are polled less and less often), not with inotify. tslab's compiler host holds a single rebuild timer and kills the kernel ("Unexpected
 * pending rebuildTimer") when a watch event arrives while another is pending; inotify also reports attribute
 * changes (e.g. the link count of a hard-linked node_modules shared between checkouts changing as other copies
 * come and go), which killed long notebooks (03) mid-run. Polling sees only real content changes. Overridable.
 */
const KERNEL_WATCH_ENV = { TSC_WATCHFILE: 'DynamicPriorityPolling', TSC_WATCHDIRECTORY: 'RecursiveDirectoryUsingDynamicPriorityPolling' };

function driverEnv(extra) {
  const env = { ...KERNEL_WATCH_ENV, ...process.env, ...kernelEnv(ROOT), PYTHONUNBUFFERED: '1', ...extra };
  // Debian's python must not pick up a pyenv/virtualenv configuration.
  delete env.PYTHONHOME;
  delete env.PYTHONPATH;
  delete env.VIRTUAL_ENV;
  return env;
}

/**
 * Execute one notebook headless. Resolves (never rejects on a notebook failure) to
 * { name, ok, exitCode, seconds, output, reportsDir, status, logFile }, where status is the driver's run.json
 * ({ ok, seconds, kernelStartSeconds, cells, error: { cellNumber, cellIndex, summary, ... } }) plus startedAt,
 * finishedAt (ISO), git ({ commit, dirty }) and sample, written back to run.json for the report site.
 *
 * Options: file (the .ipynb), name (default: its stem), reportsDir (default <repo>/reports/<name>),
 * sample (sets EO_SAMPLE=1), timeout (per-cell seconds, default 3600), cwd (default notebooks/),
 * quiet (write output to <reportsDir>/run.log instead of the console), prefix (start every console line with it: set
 * when notebooks run side by side), env (extra variables).
 */
function runNotebook(opts) {
  const file = path.resolve(opts.file);
  const name = opts.name ?? path.basename(file).replace(/\.ipynb$/, '');
  const reportsDir = path.resolve(opts.reportsDir ?? path.join(ROOT, 'reports', name));
  const output = path.join(reportsDir, `${name}.ipynb`);
  const statusFile = path.join(reportsDir, 'run.json');
  fs.mkdirSync(reportsDir, { recursive: true });
  // A fresh run: no stale results, notebook, status or milestones from an earlier run.
  for (const f of [output, statusFile, path.join(reportsDir, 'results.json')]) fs.rmSync(f, { force: true });
  fs.rmSync(milestonesDir(reportsDir), { recursive: true, force: true });

  // Side by side, progress lines every 30 s instead of 5 s, so that two notebooks' lines stay readable.
  const quieter = opts.prefix && process.env.EO_PROGRESS_MS === undefined ? { EO_PROGRESS_MS: '30000' } : {};
  const env = driverEnv({ EO_REPORTS_DIR: reportsDir, EO_NOTEBOOK: name, ...(opts.sample ? { EO_SAMPLE: '1' } : {}), ...quieter, ...(opts.env ?? {}) });
  const args = [
    DRIVER, file,
    '--output', output,
    '--cwd', path.resolve(opts.cwd ?? NOTEBOOKS_DIR),
    '--timeout', String(opts.timeout ?? 3600),
    '--kernel', KERNEL_NAME,
    '--status', statusFile,
    '--label', name,
  ];
  let logFile = null;
  let stdio = 'inherit';
  if (opts.quiet) {
    logFile = path.join(reportsDir, 'run.log');
    const fd = fs.openSync(logFile, 'w');
    stdio = ['ignore', fd, fd];
  } else if (opts.prefix) stdio = ['ignore', 'pipe', 'pipe'];
  const t0 = Date.now();
  const git = gitInfo();
  return new Promise((resolve) => {
    const child = spawn(PYTHON, args, { cwd: ROOT, env, stdio });
    if (opts.quiet) fs.closeSync(stdio[1]);
    else if (opts.prefix) {
      prefixLines(child.stdout, process.stdout, opts.prefix);
      prefixLines(child.stderr, process.stderr, opts.prefix);
    }
    const finish = (exitCode, spawnError) => {
      let status = null;
      try {
        status = JSON.parse(fs.readFileSync(statusFile, 'utf8'));
      } catch {
        /* the driver died before writing it */
      }
      if (status) {
        // What the report site shows beside the driver's timings: when, from which commit, on which snapshot.
        // the files by their place in the project (run.json is published with the site; an absolute path names this machine)
        const inRepo = (f) => (typeof f === 'string' && path.isAbsolute(f) && !path.relative(ROOT, f).startsWith('..') ? path.relative(ROOT, f) : f);
        status = { ...status, notebook: inRepo(status.notebook), output: inRepo(status.output), startedAt: new Date(t0).toISOString(), finishedAt: new Date().toISOString(), git, sample: !!opts.sample };
        try {
          writeJsonAtomic(statusFile, status);
        } catch {
          /* the folder went away; the caller still gets the status */
        }
      }
      const ok = exitCode === 0 && status?.ok === true;
      if (!ok && !status) status = { ok: false, error: { summary: spawnError ? String(spawnError.message) : `driver exited with code ${exitCode}` } };
      resolve({ name, ok, exitCode, seconds: (Date.now() - t0) / 1000, output, reportsDir, status, logFile });
    };
    child.on('error', (e) => finish(-1, e));
    child.on('close', (code, signal) => finish(code ?? (signal ? 128 : -1)));
  });
}

/**
 * Copy a stream to `out` line by line, each line starting with `prefix`. Progress updates (lines ending in a
 * carriage return, redrawn in place on a terminal) become ordinary lines, at most one per `progressEveryMs`.
 */
function prefixLines(stream, out, prefix, progressEveryMs = 30000) {
  let rest = '';
  let lastProgress = 0;
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const parts = (rest + chunk).split(/(?<=[\n\r])/);
    rest = /[\n\r]$/.test(parts[parts.length - 1]) ? '' : parts.pop();
    for (const p of parts) {
      if (p.endsWith('\r')) {
        if (Date.now() - lastProgress < progressEveryMs || p.trim() === '') continue;
        lastProgress = Date.now();
      }
      out.write(`${prefix}${p.replace(/\r$/, '\n')}`);
    }
  });
  stream.on('end', () => {
    if (rest) out.write(`${prefix}${rest}\n`);
  });
}

/** One line naming a failed notebook and its failing cell. */
function failureLine(r) {
  const e = r.status?.error ?? {};
  const cell = e.cellNumber != null ? ` at code cell ${e.cellNumber} (cell index ${e.cellIndex})` : '';
  const first = (e.source ?? '').trim().split('\n')[0];
  return `${r.name} FAILED${cell}: ${e.summary ?? 'unknown error'}${first ? `\n    cell starts: ${first.slice(0, 100)}` : ''}${r.logFile ? `\n    log: ${r.logFile}` : ''}`;
}

function fmtSeconds(s) {
  if (s == null || !Number.isFinite(s)) return '-';
  if (s < 120) return `${s.toFixed(1)} s`;
  if (s < 7200) return `${(s / 60).toFixed(1)} min`;
  return `${(s / 3600).toFixed(2)} h`;
}

function textTable(rows, columns) {
  const cells = rows.map((r) => columns.map((c) => {
    const v = r[c];
    if (v == null) return '';
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(4);
    return typeof v === 'string' ? v : JSON.stringify(v);
  }));
  const numeric = columns.map((c) => rows.every((r) => r[c] == null || typeof r[c] === 'number'));
  const widths = columns.map((c, j) => Math.max(c.length, ...cells.map((r) => r[j].length)));
  const line = (vals) => vals.map((v, j) => (numeric[j] ? v.padStart(widths[j]) : v.padEnd(widths[j]))).join('  ').trimEnd();
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

const METRIC_ORDER = ['system', 'R@10', 'R@20', 'R@100', 'MAP', 'MRR'];

/** The `metrics` tables of every <reportsRoot>/*\/results.json, as text. */
function metricsSummary(reportsRoot) {
  if (!fs.existsSync(reportsRoot)) return '';
  const out = [];
  for (const dir of fs.readdirSync(reportsRoot).sort()) {
    const file = path.join(reportsRoot, dir, 'results.json');
    if (!fs.existsSync(file)) continue;
    let res;
    try {
      res = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      out.push(`${dir}: unreadable results.json (${e.message})`);
      continue;
    }
    const rows = Array.isArray(res?.metrics) ? res.metrics.filter((r) => r && typeof r === 'object') : [];
    if (rows.length === 0) continue;
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    const columns = [...METRIC_ORDER.filter((k) => keys.includes(k)), ...keys.filter((k) => !METRIC_ORDER.includes(k))];
    const when = res.updatedAt ? ` (updated ${res.updatedAt}${res.sample ? ', sample' : ''})` : '';
    out.push(`${dir}${when}\n${textTable(rows, columns)}`);
  }
  return out.join('\n\n');
}

/**
 * Build the report site of a reports root (lib/report/site.ts, from dist/): each executed notebook as HTML
 * (nbconvert) and index.html. Returns the index path, or null (after saying why) when it could not be built.
 */
function buildSite(reportsRoot) {
  const siteModule = path.join(ROOT, 'dist', 'lib', 'report', 'site.js');
  if (!fs.existsSync(siteModule)) {
    console.error(`[run-notebooks] no report site: ${path.relative(ROOT, siteModule)} is missing (run without --no-build)`);
    return null;
  }
  const t = Date.now();
  try {
    const git = gitInfo();
    const explorerModule = path.join(ROOT, 'dist', 'lib', 'report', 'explorer.js');
    const explorerMeta = fs.existsSync(explorerModule) ? require(explorerModule).snapshotExplorerMeta(reportsRoot) : undefined;
    const site = require(siteModule).buildReportSite(reportsRoot, { commit: git ? `${git.commit}${git.dirty ? ' (modified)' : ''}` : null, explorerMeta });
    const missing = site.notebooks.filter((n) => n.pageError).map((n) => `${n.name}: ${n.pageError}`);
    console.log(`[run-notebooks] report site: ${path.relative(ROOT, site.index) || site.index} (${site.notebooks.length} notebooks, ${fmtSeconds((Date.now() - t) / 1000)})`);
    for (const m of missing) console.error(`[run-notebooks] no page for ${m}`);
    return site.index;
  } catch (e) {
    console.error(`[run-notebooks] report site failed: ${e.message}`);
    return null;
  }
}

function parseArgs(argv) {
  const o = { only: [], sample: false, seeds: 1, crossFit: false, jobs: DEFAULT_JOBS, timeout: 3600, keepGoing: false, build: true, reports: path.join(ROOT, 'reports'), list: false, quiet: false, site: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--only' || a.startsWith('--only=')) o.only.push(...val().split(',').filter(Boolean));
    else if (a === '--sample') o.sample = true;
    else if (a === '--seeds' || a.startsWith('--seeds=')) o.seeds = Number(val());
    else if (a === '--cross-fit') o.crossFit = true;
    else if (a === '--timeout' || a.startsWith('--timeout=')) o.timeout = Number(val());
    else if (a === '--jobs' || a.startsWith('--jobs=')) o.jobs = Number(val());
    else if (a === '--keep-going') o.keepGoing = true;
    else if (a === '--no-build') o.build = false;
    else if (a === '--reports' || a.startsWith('--reports=')) o.reports = path.resolve(val());
    else if (a === '--list') o.list = true;
    else if (a === '--quiet') o.quiet = true;
    else if (a === '--no-site') o.site = false;
    else if (a === '--help' || a === '-h') o.help = true;
    else if (/^\d\d(-|$)/.test(a)) o.only.push(a); // `npm start -- 00-tour`
    else throw new Error(`unknown option ${a}`);
  }
  if (!Number.isFinite(o.timeout) || o.timeout <= 0) throw new Error('--timeout must be a positive number of seconds');
  if (!Number.isInteger(o.jobs) || o.jobs < 1) throw new Error('--jobs must be a positive integer');
  if (!Number.isInteger(o.seeds) || o.seeds < 1) throw new Error('--seeds must be a positive integer');
  return o;
}

/** Notebooks run at once by default: 2 (two notebooks whose files do not depend on each other), 1 on a 1-core machine. */
const DEFAULT_JOBS = Math.min(2, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);

const USAGE = `usage: npm start -- [--only NAME[,NAME]] [--sample] [--seeds N] [--cross-fit] [--jobs N] [--timeout SECONDS] [--keep-going] [--no-build] [--reports DIR] [--quiet] [--list]
  --only NAME    run only these notebooks (00-tour, 00-tour.ipynb or the 00 prefix; repeatable)
  --sample       EO_SAMPLE=1: notebooks load the 200-dataset sample snapshot
  --seeds N      N > 1: first trains NN-SSC with N seeds (42, 43, …) through bench/nnssc-seeds.cjs, whose output
                 05-fusion's section 9 reads (mean ± sd per row, seed-averaged paired tests); notebooks get
                 EO_SEEDS=N (default 1: one seed, the cold run's)
  --cross-fit    EO_CROSS_FIT=1: 04-nnssc trains NN-SSC's five fold models per backbone (about 22 minutes on 2
                 cores on the full snapshot; always on the sample, seconds), whose out-of-fold training scores
                 05-fusion sets α on (the "out-of-fold" rows of Table 2); without it they are read when present
  --jobs N       notebooks run side by side where NOTEBOOK_NEEDS allows (default ${DEFAULT_JOBS}: any two whose files do
                 not depend on each other, the longest chain first; 1 = one after the other in file order);
                 their console lines start with [name]
  --timeout S    per-cell timeout in seconds (default 3600)
  --keep-going   run the remaining notebooks after a failure (default: stop)
  --no-build     skip \`tsc -p .\` before running
  --reports DIR  reports root (default <repo>/reports)
  --quiet        write cell output to <reports>/<name>/run.log instead of the console
  --no-site      do not write the report site (<reports>/index.html and <reports>/<name>/<name>.html via nbconvert)`;

/**
 * Run `chosen` in order, up to `o.jobs` at a time where `needs` allows (default NOTEBOOK_NEEDS; see `schedulePlan`
 * for the order; a need named in NOTEBOOK_MILESTONES is met once its milestone file appears, looked for every second);
 * after a failure start nothing more (unless `o.keepGoing`) but let running notebooks finish. Resolves to the results
 * in completion order.
 */
function runScheduled(chosen, o, needs = NOTEBOOK_NEEDS, milestones = NOTEBOOK_MILESTONES) {
  const started = new Set();
  const finished = new Set();
  const results = [];
  let stop = false;
  const reached = (notebook, milestone) => fs.existsSync(milestoneFile(o.reports, notebook, milestone));
  let poll = null;
  return new Promise((resolve) => {
    const pump = () => {
      for (;;) {
        const i = stop ? -1 : nextNotebook(chosen, started, finished, o.jobs, needs, milestones, reached);
        if (i < 0) break;
        const nb = chosen[i];
        started.add(nb.name);
        const side = o.jobs > 1 && !o.quiet;
        console.log(`\n[run-notebooks] ==== ${nb.name}${o.sample ? ' (sample)' : ''} ====${started.size - finished.size > 1 ? ' (beside ' + [...started].filter((n) => !finished.has(n) && n !== nb.name).join(', ') + ')' : ''}`);
        void runNotebook({
          file: nb.file, name: nb.name, reportsDir: path.join(o.reports, nb.name), sample: o.sample, timeout: o.timeout, quiet: o.quiet,
          ...(o.seeds > 1 || o.crossFit ? { env: { ...(o.seeds > 1 ? { EO_SEEDS: String(o.seeds) } : {}), ...(o.crossFit ? { EO_CROSS_FIT: '1' } : {}) } } : {}),
          prefix: side ? `[${nb.name}] ` : undefined,
        }).then((r) => {
          results.push(r);
          finished.add(nb.name);
          console.log(r.ok ? `[run-notebooks] ${nb.name} ok in ${fmtSeconds(r.seconds)} -> ${path.relative(ROOT, r.output)}` : `[run-notebooks] ${failureLine(r)}`);
          if (!r.ok && !o.keepGoing) stop = true;
          pump();
        });
        const early = notebookNeeds(chosen, nb.name, needs).filter((n) => !finished.has(n));
        if (early.length) console.log(`[run-notebooks] ${nb.name} starts before ${early.map((n) => `${n} ends (its milestone "${milestones[nb.name][n]}" is reached)`).join(', ')}`);
      }
      if (finished.size === started.size && (stop || started.size === chosen.length)) {
        if (poll) clearInterval(poll);
        resolve(results);
      }
    };
    // milestones are files a running notebook writes: look for them every second (a start waits at most that long)
    if (o.jobs > 1) poll = setInterval(pump, 1000);
    pump();
  });
}

async function main(argv = process.argv.slice(2)) {
  let o;
  try {
    o = parseArgs(argv);
  } catch (e) {
    console.error(`${e.message}\n${USAGE}`);
    return 2;
  }
  if (o.help) {
    console.log(USAGE);
    return 0;
  }
  const all = listNotebooks();
  let chosen;
  try {
    chosen = selectNotebooks(all, o.only);
  } catch (e) {
    console.error(e.message);
    return 2;
  }
  if (o.list) {
    for (const n of chosen) console.log(n.name);
    return 0;
  }
  if (chosen.length === 0) {
    console.error(`no notebooks (notebooks/NN-*.ipynb) in ${NOTEBOOKS_DIR}`);
    return 1;
  }
  try {
    ensureSystem();
  } catch (e) {
    console.error(`[run-notebooks] ${e.message}`);
    return 1;
  }
  if (!fs.existsSync(path.join(ROOT, 'node_modules', 'eo-workbench', 'package.json'))) {
    // `npm install <pkg>` drops links npm did not make; restore the one postinstall made.
    console.log('[run-notebooks] node_modules/eo-workbench was missing: linking it again');
    require('./link-self.cjs').linkSelf();
  }
  if (o.build) {
    const t = Date.now();
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', ROOT], { stdio: 'inherit' });
    if (r.status !== 0) {
      console.error('[run-notebooks] tsc failed; not running notebooks');
      return 1;
    }
    console.log(`[run-notebooks] built dist/ in ${fmtSeconds((Date.now() - t) / 1000)}`);
  }

  if (o.seeds > 1 && chosen.some((n) => n.name === '05-fusion')) {
    // one training run is one draw: the seed bench trains and scores the other seeds before 05 reads its output
    const seeds = Array.from({ length: o.seeds }, (_, i) => 42 + i).join(',');
    const t = Date.now();
    console.log(`[run-notebooks] NN-SSC over seeds ${seeds} (bench/nnssc-seeds.cjs), read by 05-fusion section 9`);
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bench', 'nnssc-seeds.cjs'), ...(o.sample ? ['--sample'] : []), '--seeds', seeds, '--variants', 'plain'], { stdio: 'inherit', cwd: ROOT });
    if (r.status !== 0) {
      console.error('[run-notebooks] the seed bench failed; not running notebooks');
      return 1;
    }
    console.log(`[run-notebooks] seeds trained in ${fmtSeconds((Date.now() - t) / 1000)}`);
  }

  const t0 = Date.now();
  const plan = schedulePlan(chosen, o.jobs);
  const results = await runScheduled(plan.order, o, plan.needs);
  results.sort((a, b) => chosen.findIndex((n) => n.name === a.name) - chosen.findIndex((n) => n.name === b.name));
  const skipped = chosen.filter((n) => !results.some((r) => r.name === n.name)).map((n) => n.name);

  console.log('\n[run-notebooks] ==== summary ====');
  console.log(
    textTable(
      [
        ...results.map((r) => ({
          notebook: r.name,
          status: r.ok ? 'ok' : 'FAILED',
          wall: fmtSeconds(r.seconds),
          'kernel cpu': fmtSeconds(r.status?.kernelCpuSeconds),
          'kernel start': fmtSeconds(r.status?.kernelStartSeconds),
          cells: r.status?.cells?.length ?? 0,
        })),
        ...skipped.map((s) => ({ notebook: s, status: 'skipped', wall: '-', 'kernel cpu': '-', 'kernel start': '-', cells: 0 })),
      ],
      ['notebook', 'status', 'wall', 'kernel cpu', 'kernel start', 'cells'],
    ),
  );
  console.log(`total ${fmtSeconds((Date.now() - t0) / 1000)}`);
  const metrics = metricsSummary(o.reports);
  if (metrics) console.log(`\nmetrics (${path.relative(ROOT, o.reports) || o.reports}/*/results.json):\n\n${metrics}`);
  if (o.site) buildSite(o.reports);
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) {
    console.error(`\n${failed.length} notebook(s) failed:\n${failed.map((r) => `  ${failureLine(r)}`).join('\n')}`);
    if (skipped.length > 0) console.error(`not run (use --keep-going): ${skipped.join(', ')}`);
    return 1;
  }
  return 0;
}

module.exports = { parseArgs, runNotebook, runScheduled, listNotebooks, selectNotebooks, notebookNeeds, nextNotebook, schedulePlan, milestoneFile, NOTEBOOK_NEEDS, NOTEBOOK_MILESTONES, START_ORDER, metricsSummary, failureLine, buildSite, gitInfo, main, ROOT, NOTEBOOKS_DIR };

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
