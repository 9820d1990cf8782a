// Every notebooks/NN-*.ipynb runs headless on the SAMPLE snapshot through the same driver as `npm start`
// (scripts/run-notebooks.cjs -> scripts/nbrun.py -> nbclient -> the project's tslab kernel, one kernel per notebook),
// into a temp reports root. Then, on each results.json (conventions only, not the notebooks' cells):
//   - it names its notebook and says it came from the sample;
//   - every metric value (keys R@k, P@k, nDCG@k, MAP, MRR, π...) lies in [0, 1];
//   - the tables the notebook is expected to report exist with their rows (EXPECTED below);
//   - every file in `runFiles` exists, and every TREC run re-evaluates (lib/metrics: readTrecRun, readTrecQrels,
//     evaluateRun against qrels.<split>.trec) to the numbers of a row of results.json;
//   - the paper's orderings that hold on the sample as on the full snapshot (ORDERINGS below);
//   - the claim check (lib/lessons/claims.ts): the generated sentences it showed agree with its tables, and every
//     falsified copy of a claim is caught.
// Finally the report site is built from the run and its index and one notebook page are checked in chromium
// (test-output/report-index-sample.png, test-output/report-notebook-sample.png), with the LaTeX of a lesson page
// typeset offline (test-output/report-notebook-math-sample.png).
// EO_TEST_NOTEBOOKS=02,05 runs only those notebooks (and the rest of the checks on them). They run as `npm start --
// --sample` runs them: up to EO_TEST_NOTEBOOK_JOBS (default 2) at a time, each after the notebooks it reads from.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { evaluateRun, METRIC_NAMES, readTrecQrels, readTrecRun, summarize } from '../lib/metrics';
import { buildReportSite } from '../lib/report';
import { datasetsByPublication, loadSnapshot } from '../lib/data';
import { loadLabelledQueries } from '../lib/router';
import { checkNotebookClaims, claimChecks, falsifiedClaims, markdownCells, notebookTextProblems, readPaperNotes, shownSentences } from '../lib/lessons';
import { checkPage, launchChromium, pageProblems } from './helpers/report-pages';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const { ensureSystem } = require('../scripts/ensure-system.cjs');
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { runNotebook, runScheduled, schedulePlan, failureLine, listNotebooks } = require('../scripts/run-notebooks.cjs');

type Json = Record<string, unknown>;
type Row = Record<string, unknown>;

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'test-output');
/** Keys whose numbers are retrieval metrics, hence in [0, 1]. */
const METRIC_KEY = /^(?:R@\d+|P@\d+|nDCG@\d+|MAP|MRR|π(?: \(train\))?|val (?:MRR|MAP|R@\d+)|toolCallRate|tool-call rate)$/;
/** Two evaluations of the same run agree to this much (the run files keep full double precision). */
const EPS = 1e-9;

/** What each notebook must report: tables (dotted keys of arrays) and, in `metrics`, a row per system label. */
const EXPECTED: Record<string, { tables?: string[]; systems?: RegExp[]; runFiles?: boolean }> = {
  '00': { tables: ['relevant'] },
  '01': { tables: ['stats.splitBalance', 'vsPaper', 'tryIt.splitBalance'] },
  '02': { tables: ['metrics', 'styles.rows'], systems: [/^BM25$/, /^Cosine \(base\)$/], runFiles: true },
  '03': { tables: ['metrics'], systems: [/^Cosine \(base\)$/, /^Cosine \(fine-tuned\)$/], runFiles: true },
  '04': { tables: ['metrics'], systems: [/^BM25$/, /^Cosine \(base\)$/, /^NN-SSC$/], runFiles: true },
  '05': { tables: ['metrics', 'table2', 'alpha', 'table2View', 'judge', 'perQueryGains', 'tryIt.rows', 'tryIt.curve', 'styles.table2', 'styles.ranking', 'styles.titleDefault'], systems: [/^BM25$/, /^NN-SSC$/, /^NN-SSC \+ BM25$/, /^Cosine \(fine-tuned\) \+ BM25$/], runFiles: true },
  '06': { tables: ['metrics', 'costPlans', 'judge.columns'], systems: [/^NN-SSC \+ BM25$/, /^Cosine \(base\) \+ BM25$/], runFiles: true },
  '07': { tables: ['metrics', 'costPlans', 'judge.columns', 'offlineRouting.sweep'], systems: [/^NN-SSC \+ BM25$/], runFiles: true },
  '08': { tables: ['perTool', 'walkthrough'] },
};

/**
 * Notebooks with a "Try it" cell: results.json records it as `tryIt: { changed, rows }`, and at its default setting
 * (`changed: false`, as the notebook ships) its first row re-derives a reported metrics row exactly.
 */
const TRY_IT: readonly string[] = ['02', '03', '04', '05', '06'];

/**
 * What notebooks without a metrics table produced, checked against what it is derived from (the sample snapshot, the
 * labelled router queries, the counts it is a sum of), so that 00, 01 and 08 are tested on their own output.
 */
const PRODUCED: Record<string, (results: Json) => void> = {
  '00': (r) => {
    const corpus = loadSnapshot({ sample: true });
    assert.equal(r.counts, { datasets: corpus.datasets.length, publications: corpus.publications.length, links: corpus.links.length, daacs: new Set(corpus.datasets.map((d) => d.daac)).size }, '00: counts are the sample snapshot\'s');
    const pub = corpus.publications.find((p) => r.query === p.title);
    assert.ok(pub, `00: the query "${r.query}" is a publication title of the sample`);
    assert.equal([...(r.relevant as string[])].sort(), [...(datasetsByPublication(corpus).get(pub!.id) ?? [])].sort(), '00: relevant = the datasets linked to that publication');
    assert.ok((r.relevant as string[]).length >= 2, '00: the tour publication has at least two right answers');
    for (const [k, v] of Object.entries(r.firstRelevantRank as Json)) assert.ok(v === null || (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= corpus.datasets.length), `00: firstRelevantRank.${k} = ${v}`);
  },
  '01': (r) => {
    const st = r.stats as { queries: { total: number; train: number; test: number; testSubset: number }; publications: number; splitBalance: { train: number; test: number; testShare: number }[] };
    assert.is(st.queries.train + st.queries.test, st.queries.total, '01: train + test queries = total');
    assert.ok(st.queries.testSubset <= st.queries.test && st.queries.test > 0 && st.queries.train > 0, '01: both splits non-empty, subset within test');
    assert.is(st.splitBalance.reduce((a, b) => a + b.train + b.test, 0), st.publications, '01: the strata partition the publications');
    for (const b of st.splitBalance) assert.ok(Math.abs(b.testShare - b.test / (b.train + b.test)) <= EPS, `01: stratum test share ${b.testShare}`);
    const test = st.splitBalance.reduce((a, b) => a + b.test, 0);
    assert.ok(Math.abs(test / st.publications - (r.testFraction as number)) < 0.1, `01: ${test} of ${st.publications} publications in test, fraction ${r.testFraction}`);
    const tryIt = r.tryIt as { seed: number; testFraction: number; splitBalance: unknown };
    if (tryIt.seed === r.seed && tryIt.testFraction === r.testFraction) assert.equal(tryIt.splitBalance, st.splitBalance, '01: the Try-it cell at its defaults rebuilds the reported split');
  },
  '08': (r) => {
    const labelled = loadLabelledQueries();
    assert.is(r.labelledQueries, labelled.length, '08: every labelled query evaluated');
    const bySplit = r.bySplit as Record<string, { queries: number }>;
    assert.is(bySplit.dev.queries, labelled.filter((q) => q.split === 'dev').length, '08: dev queries');
    assert.is(bySplit.heldout.queries, labelled.filter((q) => q.split === 'heldout').length, '08: held-out queries');
    const perTool = r.perTool as { tool: string; precision: number; recall: number; support: number; tp: number; fp: number; fn: number }[];
    for (const t of perTool) {
      assert.is(t.support, labelled.filter((q) => (q.tools as string[]).includes(t.tool)).length, `08: ${t.tool} support = labelled queries expecting it`);
      assert.is(t.tp + t.fn, t.support, `08: ${t.tool} TP + FN = support`);
      if (t.tp + t.fp > 0) assert.ok(Math.abs(t.precision - t.tp / (t.tp + t.fp)) <= EPS, `08: ${t.tool} precision`);
    }
    const tp = perTool.reduce((a, t) => a + t.tp, 0);
    const fp = perTool.reduce((a, t) => a + t.fp, 0);
    assert.ok(Math.abs((r.micro as { precision: number }).precision - tp / (tp + fp)) <= EPS, '08: micro precision pools the tools');
    assert.ok((r.errors as string[]).length === Math.round((1 - (r.exactMatch as number)) * labelled.length), '08: one listed error per query whose tool set differs');
  },
};

/** Orderings of the paper (full snapshot) that also hold on the 200-dataset sample: `a` beats `b` on `metric`. */
const ORDERINGS: Record<string, { a: RegExp; b: RegExp; metric: string; why: string }[]> = {
  '02': [{ a: /^BM25$/, b: /^Cosine \(base\)$/, metric: 'MAP', why: 'lexical beats the untuned encoder (Table 2)' }],
  '03': [{ a: /^Cosine \(fine-tuned\)$/, b: /^Cosine \(base\)$/, metric: 'MAP', why: 'fine-tuning helps (Table 2)' }],
  '05': [
    { a: /^NN-SSC \+ BM25$/, b: /^NN-SSC$/, metric: 'MAP', why: 'fusion beats its semantic part (Table 2)' },
    { a: /^NN-SSC \+ BM25$/, b: /^BM25$/, metric: 'MAP', why: 'the best hybrid beats BM25 (Table 2)' },
    { a: /^Cosine \(fine-tuned\) \+ BM25$/, b: /^Cosine \(fine-tuned\)$/, metric: 'MAP', why: 'fusion beats its semantic part (Table 2)' },
    { a: /^NN-SSC \+ BM25$/, b: /^NN-SSC \+ BM25 \(RRF\)$/, metric: 'MAP', why: 'convex fusion with analytic α beats RRF' },
  ],
  '06': [{ a: /^NN-SSC \+ BM25$/, b: /^Cosine \(base\) \+ BM25$/, metric: 'MAP', why: 'the strong backbone beats the weak one (Table 4)' }],
};

function isRecord(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Every (path, value) of a JSON value whose key is a metric name. */
function metricValues(v: unknown, at = ''): { at: string; value: unknown }[] {
  const out: { at: string; value: unknown }[] = [];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...metricValues(x, `${at}[${i}]`)));
  else if (isRecord(v))
    for (const [k, x] of Object.entries(v)) {
      if (METRIC_KEY.test(k) && (x === null || typeof x !== 'object')) out.push({ at: `${at}.${k}`, value: x });
      else out.push(...metricValues(x, `${at}.${k}`));
    }
  return out;
}

/** Every object anywhere in the JSON that carries all five metrics (a metric row of some table). */
function metricRows(v: unknown): Row[] {
  if (Array.isArray(v)) return v.flatMap(metricRows);
  if (!isRecord(v)) return [];
  const own = METRIC_NAMES.every((m) => typeof v[m] === 'number') ? [v] : [];
  return [...own, ...Object.values(v).flatMap(metricRows)];
}

function get(obj: unknown, dotted: string): unknown {
  // Keys may contain dots only at the top level in practice; try the whole key first.
  if (isRecord(obj) && dotted in obj) return obj[dotted];
  return dotted.split('.').reduce<unknown>((o, k) => (isRecord(o) ? o[k] : undefined), obj);
}

function findRow(rows: readonly Row[], label: RegExp): Row | undefined {
  return rows.find((r) => typeof r.system === 'string' && label.test(r.system));
}

const notebooks: { name: string; file: string }[] = (() => {
  const all = listNotebooks() as { name: string; file: string }[];
  const only = (process.env.EO_TEST_NOTEBOOKS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return only.length === 0 ? all : all.filter((n) => only.some((o) => n.name === o || n.name.startsWith(`${o}-`)));
})();
const reportsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-nbtest-'));
const timings: { name: string; seconds: number; cpu: number | null; ok: boolean }[] = [];
/** Notebooks run at a time, in dependency order, as `npm start -- --sample` does (EO_TEST_NOTEBOOK_JOBS, default 2). */
const JOBS = Number(process.env.EO_TEST_NOTEBOOK_JOBS ?? 2);
let allWallSeconds = 0;

type NotebookRun = { name: string; ok: boolean; seconds: number; logFile: string | null; status?: { kernelCpuSeconds?: number } };
let scheduled: Promise<Map<string, NotebookRun>> | null = null;
/** Every selected notebook, run once (the first test to ask starts them all); keeps going past a failure. */
function runAll(): Promise<Map<string, NotebookRun>> {
  scheduled ??= (async () => {
    const t0 = Date.now();
    const plan = schedulePlan(notebooks, JOBS);
    const runs: NotebookRun[] = await runScheduled(plan.order, { jobs: JOBS, keepGoing: true, quiet: true, reports: reportsRoot, sample: true, timeout: 900 }, plan.needs);
    allWallSeconds = (Date.now() - t0) / 1000;
    for (const r of runs) timings.push({ name: r.name, seconds: r.seconds, cpu: r.status?.kernelCpuSeconds ?? null, ok: r.ok });
    return new Map(runs.map((r) => [r.name, r]));
  })();
  return scheduled;
}

test.before(() => {
  ensureSystem({ install: false, quiet: true }); // jupyter + chromium present, kernel registered in .jupyter/
});

test('the notebooks folder has notebooks to run', () => {
  assert.ok(notebooks.length > 0, `no notebooks/NN-*.ipynb (EO_TEST_NOTEBOOKS=${process.env.EO_TEST_NOTEBOOKS ?? ''})`);
});

for (const nb of notebooks) {
  const prefix = nb.name.slice(0, 2);
  test(`${nb.name} runs on the sample; its results.json and run files hold`, async () => {
    const reportsDir = path.join(reportsRoot, nb.name);
    const r = (await runAll()).get(nb.name);
    if (!r) return assert.unreachable(`${nb.name} did not run: a notebook it depends on failed (scripts/run-notebooks.cjs SAMPLE_NOTEBOOK_NEEDS)`);
    if (!r.ok) {
      const log = r.logFile && fs.existsSync(r.logFile) ? fs.readFileSync(r.logFile, 'utf8') : '';
      assert.unreachable(`${failureLine(r)}\n--- run.log (tail) ---\n${log.slice(-4000)}`);
    }
    assert.ok(fs.existsSync(path.join(reportsDir, `${nb.name}.ipynb`)), 'executed notebook written');
    const resultsFile = path.join(reportsDir, 'results.json');
    assert.ok(fs.existsSync(resultsFile), 'results.json written');
    const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as Json;
    assert.is(results.notebook, nb.name);
    assert.is(results.sample, true, 'results.json says the numbers come from the sample');
    // files are named relative to the project (outputs meant for others carry no machine path)
    assert.not.ok(fs.readFileSync(resultsFile, 'utf8').includes(ROOT), `${resultsFile} names the clone's absolute path`);
    const executed = fs.readFileSync(path.join(reportsDir, `${nb.name}.ipynb`), 'utf8');
    assert.not.ok(executed.includes(ROOT), `the executed ${nb.name} notebook's outputs name the clone's absolute path`);

    // Metrics are fractions.
    const values = metricValues(results);
    const bad = values.filter(({ value }) => value !== null && !(typeof value === 'number' && value >= 0 && value <= 1));
    assert.equal(bad, [], `metric values outside [0, 1] in ${resultsFile}`);

    // Expected tables and rows.
    const want = EXPECTED[prefix] ?? {};
    for (const key of want.tables ?? []) {
      const t = get(results, key);
      assert.ok(Array.isArray(t) && t.length > 0, `results.json has a non-empty table "${key}"`);
    }
    const rows = Array.isArray(results.metrics) ? (results.metrics as Row[]) : [];
    for (const label of want.systems ?? []) assert.ok(findRow(rows, label), `metrics has a row ${label} (rows: ${rows.map((r) => r.system).join(' | ')})`);
    for (const row of rows) for (const m of METRIC_NAMES) assert.type(row[m], 'number', `metrics row ${row.system}: ${m}`);

    // Run files exist and re-evaluate to the reported numbers.
    const listed = Array.isArray(results.runFiles) ? (results.runFiles as string[]) : [];
    if (want.runFiles) assert.ok(listed.some((f) => f.endsWith('.run')), 'results.json lists its TREC run files');
    const reported = metricRows(results);
    for (const f of listed) {
      const file = path.resolve(reportsDir, f);
      assert.ok(fs.existsSync(file), `run file ${f} exists`);
      const m = /^(.+)\.([^.]+)\.run$/.exec(path.basename(f));
      if (!m) continue;
      const qrelsFile = path.join(path.dirname(file), `qrels.${m[2]}.trec`);
      assert.ok(fs.existsSync(qrelsFile), `${f}: qrels file qrels.${m[2]}.trec exists`);
      const again = summarize(m[1], evaluateRun(readTrecRun(file), readTrecQrels(qrelsFile)));
      const same = (r: Row) => METRIC_NAMES.every((k) => Math.abs((r[k] as number) - again[k]) <= EPS);
      if (reported.some(same)) continue;
      // A training-split run is reported only through π(train), the mean of its five metrics (Eq. 7's input).
      const pi = METRIC_NAMES.reduce((s, k) => s + again[k], 0) / METRIC_NAMES.length;
      const piKey = (k: string) => k.startsWith('π') && k.includes(m[2]);
      const piMatch = metricValues(results).some(({ at, value }) => piKey(at.slice(at.lastIndexOf('.') + 1)) && typeof value === 'number' && Math.abs(value - pi) <= EPS);
      assert.ok(piMatch, `${f} re-evaluates to ${JSON.stringify(again)}, which no row of results.json reports`);
    }

    for (const f of Array.isArray(results.traceFiles) ? (results.traceFiles as string[]) : []) assert.ok(fs.existsSync(path.resolve(reportsDir, f)), `trace file ${f} exists`);

    // The Try-it cell, at its default setting, gives back the reported numbers.
    if (TRY_IT.includes(prefix)) {
      const tryIt = results.tryIt;
      assert.ok(isRecord(tryIt) && Array.isArray(tryIt.rows) && tryIt.rows.length > 0, 'results.json records the Try-it cell (tryIt.rows)');
      assert.is(tryIt.changed, false, 'the notebook ships with the Try-it knob at its default');
      const first = (tryIt.rows as Row[])[0];
      const restores = rows.some((r) => METRIC_NAMES.every((k) => typeof first[k] === 'number' && Math.abs((first[k] as number) - (r[k] as number)) <= EPS));
      assert.ok(restores, `Try-it default row ${JSON.stringify(first)} equals a reported metrics row`);
    }

    // What a notebook without a metrics table produced.
    PRODUCED[prefix]?.(results);

    // The claim check: the sentences it showed agree with its tables, and the check catches each falsified claim.
    assert.ok(shownSentences(results).length > 0, `${nb.name}: results.json keeps the generated sentences it showed (shownText)`);
    assert.equal(checkNotebookClaims(nb.name, results), [], `${nb.name}: generated sentences that disagree with its tables`);
    // its prose: hand-written cells and shown sentences against the outputs and the paper notes (lib/lessons/text-claims.ts)
    const notes = readPaperNotes();
    if (notes === null) console.log(`${nb.name}: ../shared/notes absent, values given as the paper's are not checked`);
    const textProblems = notebookTextProblems(results, markdownCells(JSON.parse(executed)), notes);
    assert.equal(textProblems, [], `${nb.name}: prose the outputs or the paper notes do not back`);
    const falsified = falsifiedClaims(nb.name, results);
    assert.ok(claimChecks(nb.name).length > 1, `${nb.name}: has a claim check of its own (lib/lessons, registerClaimCheck)`);
    assert.ok(falsified.length > 0, `${nb.name}: its claim check has falsified claims to catch`);
    for (const f of falsified) assert.ok(checkNotebookClaims(nb.name, f.results).length > 0, `${nb.name}: the claim check (${f.covers}) misses a falsified claim`);

    // The paper's orderings that the sample keeps.
    for (const o of ORDERINGS[prefix] ?? []) {
      const a = findRow(rows, o.a);
      const b = findRow(rows, o.b);
      assert.ok(a && b, `rows ${o.a} and ${o.b} present for the ordering check`);
      assert.ok((a![o.metric] as number) > (b![o.metric] as number), `${a!.system} > ${b!.system} on ${o.metric} (${o.why}): ${a![o.metric]} vs ${b![o.metric]}`);
    }
  });
}

/**
 * Notebook 05 with its cells in another order and four cells run twice: its cells are steps that take values and
 * return values (lib/lessons/05-fusion), the scorers are listed by id in Table 2's order whatever order their cells
 * ran in (`scoredById`), so the results.json it writes is the one the notebook as shipped wrote, but for wall times
 * and the folder the run files are in.
 */
const FUSION_REORDERED: readonly { move: string; before?: string; after?: string; copy?: boolean }[] = [
  // the trained scorers' cells in another order (the cells that only load and score: nothing else reads them)
  { move: 'loadTrainedScorers("cosine-ft"', before: 'loadTrainedScorers("nnssc",' },
  { move: 'loadTrainedScorers("self-supervised"', before: 'loadTrainedScorers("cosine-ft"' },
  { move: 'loadTrainedScorers("nnssc",', after: 'loadTrainedScorers("nnssc",', copy: true },
  { move: 'seedSpreadSection(t2)', before: 'showMultipleTesting(t2)' },
  { move: 'ablationSection(t2)', before: 'showMultipleTesting(t2)' },
  { move: 'gainsSection(t2)', after: 'scoreGeometrySection(t2', copy: true },
  { move: 'tryAlphaSection(t2', after: 'gainsSection(t2)', copy: true },
  { move: 'table2StyleSection(t2)', before: 'seedTable2Section(t2' },
  { move: 'alpha.showCurve()', after: 'ablationSection(t2)', copy: true },
];

/** `cells` with FUSION_REORDERED applied: each step found by the one code cell that contains its text. */
function reorderedCells<T extends { cell_type: string; source: string | string[] }>(cells: readonly T[]): T[] {
  const out = [...cells];
  const at = (text: string, from = 0) => {
    const hits = out.map((c, i) => (i >= from && c.cell_type === 'code' && [].concat(c.source as never).join('').includes(text) ? i : -1)).filter((i) => i >= 0);
    assert.ok(hits.length >= 1, `notebook 05 has a code cell with ${text}`);
    return hits[hits.length - 1];
  };
  for (const r of FUSION_REORDERED) {
    const i = at(r.move);
    const cell = out[i];
    if (!r.copy) out.splice(i, 1);
    const j = r.before ? at(r.before) : at(r.after!) + 1;
    out.splice(j, 0, cell);
  }
  return out;
}

test('05 with its cells reordered and four of them re-run writes the same results.json', async () => {
  const first = (await runAll()).get('05-fusion');
  if (!first?.ok) return; // not selected, or failed: its own test says why
  const nb = notebooks.find((n) => n.name === '05-fusion')!;
  const src = JSON.parse(fs.readFileSync(nb.file, 'utf8'));
  const cells = reorderedCells(src.cells);
  assert.ok(cells.length === src.cells.length + FUSION_REORDERED.filter((r) => r.copy).length, 'the copied cells run twice');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-nbtest-order-'));
  try {
    const file = path.join(root, '05-fusion-reordered.ipynb');
    fs.writeFileSync(file, JSON.stringify({ ...src, cells }));
    const dir = path.join(root, '05-fusion');
    const r = await runNotebook({ file, name: '05-fusion', reportsDir: dir, sample: true, quiet: true, timeout: 900 });
    if (!r.ok) assert.unreachable(`the reordered 05 failed: ${failureLine(r)}\n${fs.readFileSync(path.join(dir, 'run.log'), 'utf8').slice(-3000)}`);
    // what may differ: wall times, and the folder of the run files (named in captions as it is, or under $TMPDIR)
    const comparable = (d: string) => {
      const forms = [d, d.replace(os.tmpdir(), '$TMPDIR')];
      let text = fs.readFileSync(path.join(d, 'results.json'), 'utf8');
      for (const f of forms) text = text.split(f).join('<reports>');
      const j = JSON.parse(text) as Json;
      delete j.notebookSeconds;
      delete j.updatedAt;
      if (j.seedTable2) delete (j.seedTable2 as Json).seconds;
      return j;
    };
    const shipped = comparable(path.join(reportsRoot, '05-fusion'));
    assert.ok(Array.isArray(shipped.shownText) && (shipped.shownText as string[]).length > 5, 'the shipped run showed its sentences');
    assert.equal(comparable(dir), shipped);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the report site of the sample run opens cleanly in chromium', async () => {
  const ran = timings.filter((t) => t.ok).map((t) => t.name);
  assert.ok(ran.length > 0, 'at least one notebook ran');
  const site = buildReportSite(reportsRoot);
  for (const nb of site.notebooks.filter((n) => ran.includes(n.name))) assert.ok(nb.page, `${nb.name}: page written (${nb.pageError ?? ''})`);
  const withFigure = site.notebooks.find((n) => n.page && n.figures.some((f) => f.png)) ?? site.notebooks.find((n) => n.page)!;
  const browser = await launchChromium();
  try {
    // a lesson page with display equations (02's BM25, MAP/MRR): MathJax, from the site's own copy, typesets them offline
    const withMath = site.notebooks.find((n) => n.page && n.name.startsWith('02-')) ?? site.notebooks.find((n) => n.page)!;
    const checks = [
      await checkPage(browser, site.index, path.join(OUT, 'report-index-sample.png')),
      await checkPage(browser, path.join(reportsRoot, withFigure.page!), path.join(OUT, 'report-notebook-sample.png')),
      await checkPage(browser, path.join(reportsRoot, withMath.page!), undefined, { math: true, mathScreenshot: path.join(OUT, 'report-notebook-math-sample.png') }),
    ];
    assert.equal(checks.flatMap(pageProblems), []);
    assert.ok(checks[2].math && checks[2].math.typeset > 0, `${withMath.name}: equations typeset (${JSON.stringify(checks[2].math)})`);
  } finally {
    await browser.close();
  }
});

test.after(() => {
  const sum = timings.reduce((s, t) => s + t.seconds, 0);
  const cpu = timings.reduce((s, t) => s + (t.cpu ?? 0), 0);
  console.log(
    `\nnotebooks on the sample (wall / kernel CPU seconds):\n${timings.map((t) => `  ${t.name.padEnd(24)} ${t.seconds.toFixed(1).padStart(7)} s ${t.cpu === null ? '' : `${t.cpu.toFixed(1).padStart(7)} s cpu`}${t.ok ? '' : '  FAILED'}`).join('\n')}\n  total ${allWallSeconds.toFixed(1)} s wall (${JOBS} at a time; ${sum.toFixed(1)} s summed over notebooks), ${cpu.toFixed(1)} s kernel CPU`,
  );
  if (process.env.EO_KEEP_TEST_REPORTS) console.log(`reports kept in ${reportsRoot}`);
  else fs.rmSync(reportsRoot, { recursive: true, force: true });
});

test.run();
