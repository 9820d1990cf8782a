/**
 * Views of notebook 01 (the benchmark) that only it needs: the size tables beside NASA-EO-Bench's, the figures of
 * positives, DAACs and the split, the "try it" split knob, the leakage view, the example queries, the paper-scale
 * section, their generated sentences, and the claim check of those sentences. The paper's numbers live in
 * lib/bench/paper.ts; the scale model's reader in lib/lessons/01-benchmark/paper-scale.ts.
 */
import { NASA_EO_BENCH } from '../../bench/paper';
import type { BenchmarkStats } from '../../bench/stats';
import type { LeakageAudit } from '../../bench/leakage';
import { leakageRows, leakageSummary } from '../../bench/leakage';
import type { Benchmark, Split } from '../../bench/types';
import { showFigure, showMarkdown, showTable } from '../../report/display';
import { barFigure, histogramFigure } from '../../report/figures';
import { toDataFrame } from '../../report/frame';
import { sourceCaption } from '../../report/lesson';
import { defaultPaperScaleFile, paperScaleMissing, paperScaleRows, paperScaleVerdict, readPaperScale } from './paper-scale';
import type { Figure, TableRow, TableSource } from '../../report/types';
import { findShown, registerClaimCheck, shownSentences, withShownSentence, type Json } from '../claims';

const n = (x: number) => x.toLocaleString('en-US');
const rel = (ours: number, paper: number) => (ours > paper ? 'more than' : ours < paper ? 'fewer than' : 'as many as');
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The benchmark's size as `{ what, value }` rows: publications, queries per split, labels, positives per query, labels per relation. */
export function benchmarkSizeRows(stats: BenchmarkStats): { what: string; value: number | string }[] {
  const p = stats.positivesSummary;
  return [
    { what: 'publications (with ≥1 linked dataset)', value: stats.publications },
    { what: 'queries', value: stats.queries.total },
    { what: 'train queries', value: stats.queries.train },
    { what: 'test queries', value: stats.queries.test },
    { what: 'test subset (rerank stages)', value: stats.queries.testSubset },
    { what: 'labels (query, dataset, relation)', value: stats.labels },
    { what: 'distinct labelled datasets', value: stats.distinctLabelledDatasets },
    { what: 'positives per query: median / mean / max', value: `${p.median} / ${p.mean.toFixed(2)} / ${p.max}` },
    ...Object.entries(stats.labelsByRelation).map(([r, c]) => ({ what: `labels with relation ${r}`, value: c })),
  ];
}

/** Histogram of positives per query, values above `cap` counted at `cap` (default 30). */
export function positivesPerQueryFigure(bench: Benchmark, cap = 30): Figure {
  return histogramFigure(bench.queries.map((q) => Math.min(q.positives, cap)), { title: `Positives per query (capped at ${cap})`, xTitle: 'linked datasets', bins: cap });
}

/** Datasets per DAAC, corpus vs labelled, DAACs by corpus size (log scale). */
export function datasetsPerDaacFigure(stats: BenchmarkStats): Figure {
  const daacs = Object.keys(stats.corpusDatasetsPerDaac).sort((a, b) => stats.corpusDatasetsPerDaac[b] - stats.corpusDatasetsPerDaac[a]);
  return barFigure(daacs, {
    'corpus datasets': daacs.map((d) => stats.corpusDatasetsPerDaac[d]),
    'labelled datasets': daacs.map((d) => stats.labelledDatasetsPerDaac[d] ?? 0),
  }, { title: 'Datasets per DAAC: corpus vs labelled', yTitle: 'datasets', layout: { yaxis: { type: 'log', title: { text: 'datasets (log)' } } } });
}

/** Split balance per stratum as table rows. */
export function splitBalanceRows(stats: BenchmarkStats) {
  return stats.splitBalance.map((r) => ({ 'linked datasets': r.stratum, train: r.train, test: r.test, 'test share': r.testShare }));
}

/** Publications per stratum and split, stacked bars. */
export function splitBalanceFigure(stats: BenchmarkStats): Figure {
  const s = stats.splitBalance;
  return barFigure(s.map((r) => r.stratum), { train: s.map((r) => r.train), test: s.map((r) => r.test) },
    { title: 'Publications per stratum and split', xTitle: 'linked datasets', yTitle: 'publications', barmode: 'stack' });
}

/** The first `n` queries of a split as rows (query text, positives, publication). */
export function benchmarkQueryRows(bench: Benchmark, split: Split, count = 8) {
  return bench.queries.filter((q) => q.split === split).slice(0, count).map((q) => ({ query: q.text, positives: q.positives, publication: q.publicationId }));
}

/** Our benchmark's sizes beside NASA-EO-Bench's (the paper's §4), one row per quantity. */
export function benchmarkVsPaperRows(stats: BenchmarkStats, corpusDatasets: number): { what: string; ours: number; 'NASA-EO-Bench': number }[] {
  const p = NASA_EO_BENCH;
  return [
    { what: 'datasets (corpus)', ours: corpusDatasets, 'NASA-EO-Bench': p.datasets },
    { what: 'test queries', ours: stats.queries.test, 'NASA-EO-Bench': p.test },
    { what: 'rerank subset (test queries)', ours: stats.queries.testSubset, 'NASA-EO-Bench': p.rerankSubset },
  ];
}

/** The stratum whose test share is furthest from the target (publications in it only), or undefined. */
function furthestStratum(balance: BenchmarkStats['splitBalance'], testFraction: number) {
  return [...balance].filter((r) => r.train + r.test > 0)
    .sort((a, b) => Math.abs(b.testShare - testFraction) - Math.abs(a.testShare - testFraction))[0];
}

/**
 * What the benchmark's size and split tables show, in words: how many publications became how many queries, the
 * train/test shares against the target test fraction, the stratum furthest from it, and the positives per query. Markdown; says when the numbers come from the sample.
 */
export function benchmarkVerdict(stats: BenchmarkStats, opts: { testFraction: number; seed: number; sample: boolean }): string {
  const q = stats.queries;
  const testShare = q.total ? q.test / q.total : 0;
  const worst = furthestStratum(stats.splitBalance, opts.testFraction);
  const perQuery = stats.positivesSummary.mean;
  const lines = [
    `- **${stats.publications} publications** with at least one linked dataset became **${q.total} queries** (${(q.total / Math.max(1, stats.publications)).toFixed(2)} per publication, ${stats.writerLabel}).`,
    `- Split at publication level with seed ${opts.seed}: ${q.train} train and ${q.test} test queries, a test share of ${pct(testShare)} against the target ${pct(opts.testFraction)}.`,
    worst
      ? `- Stratification keeps every stratum near the target: the furthest is "${worst.stratum}" linked datasets at ${pct(worst.testShare)} test (${worst.test} of ${worst.train + worst.test} publications)` +
        (worst.train + worst.test < 10 ? ', a stratum too small to hit the target exactly.' : '.')
      : '- No stratum has publications.',
    `- Positives per query: median ${stats.positivesSummary.median}, mean ${perQuery.toFixed(2)}, max ${stats.positivesSummary.max} ` +
      "(ours are this snapshot's publication→dataset links; NASA-EO-Bench's are the knowledge graph's USES_DATASET edges, and the paper notes give no per-query count for them).",
    `- ${stats.distinctLabelledDatasets} distinct datasets are right answers somewhere; every other dataset of the corpus is a distractor only.`,
  ];
  lines.push(opts.sample ? '\n*Sample snapshot (`EO_SAMPLE=1` / `--sample`): a 200-dataset teaching corpus, so these counts are small.*' : '\n*Full snapshot.*');
  return lines.join('\n');
}

/**
 * A "try it" split (other seed or test fraction) against the reported one, in words: queries per split and the
 * largest change in any stratum's test share. Identical settings say so (the default restores the reported split).
 */
export function splitKnobVerdict(reported: BenchmarkStats, tried: BenchmarkStats, settings: { seed: number; testFraction: number; reportedSeed: number; reportedTestFraction: number }): string {
  const same = settings.seed === settings.reportedSeed && settings.testFraction === settings.reportedTestFraction;
  const share = (s: BenchmarkStats) => (s.queries.total ? s.queries.test / s.queries.total : 0);
  const byStratum = new Map(reported.splitBalance.map((r) => [r.stratum, r.testShare]));
  const moved = tried.splitBalance.map((r) => ({ stratum: r.stratum, d: r.testShare - (byStratum.get(r.stratum) ?? 0) }))
    .sort((a, b) => Math.abs(b.d) - Math.abs(a.d))[0];
  const head = same
    ? `Seed ${settings.seed} and test fraction ${settings.testFraction} are the reported settings: this is the reported split (${tried.queries.train} train / ${tried.queries.test} test queries).`
    : `Seed ${settings.seed}, test fraction ${settings.testFraction}: ${tried.queries.train} train / ${tried.queries.test} test queries ` +
      `(test share ${pct(share(tried))}, reported ${pct(share(reported))} with seed ${settings.reportedSeed} and fraction ${settings.reportedTestFraction}).`;
  const tail = !same && moved ? ` The stratum whose test share moved most is "${moved.stratum}" (${moved.d >= 0 ? '+' : '−'}${pct(Math.abs(moved.d))}); every later number changes with the split, which is why the seed is fixed.` : '';
  return head + tail;
}

/**
 * Our corpus and query counts beside NASA-EO-Bench's, in words: the corpus may be larger while the benchmark has
 * fewer queries, so the sentence says which is which instead of calling the snapshot "small".
 */
export function benchmarkScaleSentence(ours: { datasets: number; queries: number; test: number }, sample: boolean): string {
  const p = NASA_EO_BENCH;
  const which = sample ? 'The sample snapshot' : 'This snapshot';
  return `${which} has ${n(ours.datasets)} datasets, ${rel(ours.datasets, p.datasets)} NASA-EO-Bench's ${n(p.datasets)}, ` +
    `and ${n(ours.test)} test queries (${n(ours.queries)} in all), ${rel(ours.test, p.test)} its ${n(p.test)} test queries` +
    `${ours.test < p.test ? `: it is ${ours.datasets >= p.datasets ? 'not smaller in corpus but ' : ''}smaller in queries` : ''}.`;
}

/** What the notebook's cells share: its name (figures go to reports/<notebook>/) and where its numbers came from. */
export interface BenchmarkViewContext { notebook: string; source: TableSource }

/** The size section: the size table, ours beside NASA-EO-Bench's, and what they show. Returns the vs-paper rows it showed. */
export function showBenchmarkSize(stats: BenchmarkStats, corpusDatasets: number, opts: { testFraction: number; seed: number; sample: boolean; source: TableSource }) {
  const vsPaper = benchmarkVsPaperRows(stats, corpusDatasets);
  showTable(toDataFrame(benchmarkSizeRows(stats)), { title: 'Benchmark size', source: opts.source });
  showTable(toDataFrame(vsPaper), { title: 'Ours beside NASA-EO-Bench (paper §4)', digits: 2, source: opts.source });
  showMarkdown(benchmarkVerdict(stats, opts));
  return vsPaper;
}

/** One of the benchmark's figures with its source caption: positives per query, or datasets per DAAC (corpus vs labelled). */
export async function showBenchmarkFigure(which: 'positives-per-query' | 'datasets-per-daac', bench: Benchmark, stats: BenchmarkStats, ctx: BenchmarkViewContext): Promise<void> {
  if (which === 'positives-per-query') {
    await showFigure(positivesPerQueryFigure(bench), { name: which, notebook: ctx.notebook });
    showMarkdown(sourceCaption('Positives per query, all splits (figures/positives-per-query.html)', ctx.source));
  } else {
    await showFigure(datasetsPerDaacFigure(stats), { name: which, notebook: ctx.notebook });
    showMarkdown(sourceCaption('Datasets per DAAC: corpus vs labelled (figures/datasets-per-daac.html)', ctx.source));
  }
}

/** The split per stratum: its table, the stacked bars and their caption. */
export async function showSplitBalance(stats: BenchmarkStats, ctx: BenchmarkViewContext): Promise<void> {
  showTable(toDataFrame(splitBalanceRows(stats)), { title: 'Split balance per stratum (publications)', source: ctx.source });
  await showFigure(splitBalanceFigure(stats), { name: 'split-balance', notebook: ctx.notebook });
  showMarkdown(sourceCaption('Publications per stratum and split (figures/split-balance.html)', ctx.source));
}

/** The "try it" split: its balance table (titled with its settings) and how it compares with the reported split. */
export function showSplitKnob(reported: BenchmarkStats, tried: BenchmarkStats, settings: { seed: number; testFraction: number; reportedSeed: number; reportedTestFraction: number }, source: TableSource): void {
  showTable(toDataFrame(splitBalanceRows(tried)), {
    title: `Split balance with seed ${settings.seed}, test fraction ${settings.testFraction}`,
    source: { ...source, settings: { ...source.settings, seed: settings.seed, testFraction: settings.testFraction } },
  });
  showMarkdown(splitKnobVerdict(reported, tried, settings));
}

/** The leakage audit in words (the count against the split sizes) and, when any test query is flagged, its closest training query. */
export function showLeakage(leak: LeakageAudit, source: TableSource): void {
  showMarkdown(leakageSummary(leak));
  if (leak.pairs.length > 0) showTable(toDataFrame(leakageRows(leak)), { title: 'Closest training query of each flagged test query', source });
}

/** A few test queries as a table. */
export function showExampleQueries(bench: Benchmark, source: TableSource, count = 8): void {
  showTable(toDataFrame(benchmarkQueryRows(bench, 'test', count)), { title: 'A few test queries', source });
}

/**
 * The paper-scale section: this snapshot's size beside NASA-EO-Bench's in words, then the scale model's table and
 * verdict when `bench/paper-scale.cjs` has written its output (else where it would be and how to make it). Returns
 * what the results file keeps of it (null without the output).
 */
export function showPaperScale(ours: { datasets: number; queries: number; test: number }, sample: boolean, file = defaultPaperScaleFile()) {
  showMarkdown(benchmarkScaleSentence(ours, sample));
  const scale = readPaperScale(file);
  showTable(toDataFrame(scale ? paperScaleRows(scale) : []), { title: 'Every stage at NASA-EO-Bench scale on this machine', source: { note: `from ${file.split('/').slice(-3).join('/')}` } });
  showMarkdown(scale ? paperScaleVerdict(scale) : paperScaleMissing(file));
  return scale ? { file: 'bench/out/paper-scale.json', created: scale.created, rows: paperScaleRows(scale) } : null;
}

// ---- the claim check of notebook 01 ----

const int = (s: string) => Number(s.replace(/,/g, ''));
const pctOf = (s: string) => Number(s) / 100;
const samePct = (shown: string, x: number) => pct(x) === `${shown}%`;

type VsPaperRow = { what: string; ours: number; 'NASA-EO-Bench': number };
interface BenchmarkResults {
  seed: number;
  testFraction: number;
  stats: BenchmarkStats;
  vsPaper: VsPaperRow[];
  tryIt: { seed: number; testFraction: number; splitBalance: BenchmarkStats['splitBalance']; queries: BenchmarkStats['queries'] };
  leakage: { count: number; testQueries: number; jaccardThreshold: number };
}

const SCALE_RE = /^(?:The sample snapshot|This snapshot) has ([\d,]+) datasets, (more than|fewer than|as many as) NASA-EO-Bench's ([\d,]+), and ([\d,]+) test queries \(([\d,]+) in all\), (more than|fewer than|as many as) its ([\d,]+) test queries/;
const SPLIT_RE = /Split at publication level with seed (\d+): (\d+) train and (\d+) test queries, a test share of ([\d.]+)% against the target ([\d.]+)%/;
const PUBS_RE = /\*\*(\d+) publications\*\* with at least one linked dataset became \*\*(\d+) queries\*\*/;
const STRATUM_RE = /the furthest is "([^"]+)" linked datasets at ([\d.]+)% test \((\d+) of (\d+) publications\)/;
const POSITIVES_RE = /Positives per query: median ([\d.]+), mean ([\d.]+), max (\d+) \(/;
const LEAK_RE = /^(\d+) of (\d+) test queries have a near-duplicate among (\d+) training queries \(token Jaccard ≥ ([\d.]+)/;
const KNOB_SAME_RE = /^Seed (\d+) and test fraction ([\d.]+) are the reported settings: this is the reported split \((\d+) train \/ (\d+) test queries\)/;
const KNOB_OTHER_RE = /^Seed (\d+), test fraction ([\d.]+): (\d+) train \/ (\d+) test queries/;

/** Problems of notebook 01's generated sentences against its results.json (see lib/lessons/claims.ts), one claim group at a time. */
export function benchmarkClaimProblems(results: Json): string[] {
  return [sizeClaimProblems, splitClaimProblems, positivesClaimProblems, tryItSplitClaimProblems, leakageClaimProblems].flatMap((check) => check(results));
}

/** Problems of 01's size beside NASA-EO-Bench's (the size of this snapshot beside NASA-EO-Bench's: counts, and "more / fewer / as many as" in both places). */
function sizeClaimProblems(results: Json): string[] {
  const r = results as unknown as BenchmarkResults;
  const out: string[] = [];
  const q = r.stats.queries;
  // the size of this snapshot beside NASA-EO-Bench's: counts, and "more / fewer / as many as" in both places
  const scale = findShown(results, SCALE_RE, 'comparing the snapshot with NASA-EO-Bench');
  out.push(...scale.problems);
  if (scale.text) {
    const m = SCALE_RE.exec(scale.text)!;
    const row = (what: string) => r.vsPaper.find((x) => x.what === what);
    const ds = row('datasets (corpus)');
    if (!ds) out.push('results.json vsPaper has no "datasets (corpus)" row');
    else {
      if (int(m[1]) !== ds.ours || int(m[3]) !== ds['NASA-EO-Bench']) out.push(`says ${m[1]} datasets vs NASA-EO-Bench's ${m[3]}; the table has ${ds.ours} vs ${ds['NASA-EO-Bench']}`);
      if (m[2] !== rel(ds.ours, ds['NASA-EO-Bench'])) out.push(`says the snapshot has ${m[2]} NASA-EO-Bench's datasets: ${ds.ours} vs ${ds['NASA-EO-Bench']}`);
    }
    if (int(m[4]) !== q.test || int(m[5]) !== q.total) out.push(`says ${m[4]} test queries (${m[5]} in all); results.json has ${q.test} (${q.total} in all)`);
    const ts = row('test queries');
    if (ts) {
      if (int(m[7]) !== ts['NASA-EO-Bench']) out.push(`says NASA-EO-Bench has ${m[7]} test queries; the table has ${ts['NASA-EO-Bench']}`);
      if (m[6] !== rel(q.test, ts['NASA-EO-Bench'])) out.push(`says the snapshot has ${m[6]} NASA-EO-Bench's test queries: ${q.test} vs ${ts['NASA-EO-Bench']}`);
    } else out.push('results.json vsPaper has no "test queries" row');
  }
  return out;
}

/** Problems of 01's split sentences (the split: publications → queries, train/test counts, the test share against the target, the furthest stratum). */
function splitClaimProblems(results: Json): string[] {
  const r = results as unknown as BenchmarkResults;
  const out: string[] = [];
  const q = r.stats.queries;
  // the split: publications → queries, train/test counts, the test share against the target, the furthest stratum
  const pubs = findShown(results, PUBS_RE, 'on publications and queries');
  out.push(...pubs.problems);
  if (pubs.text) {
    const m = PUBS_RE.exec(pubs.text)!;
    if (Number(m[1]) !== r.stats.publications || Number(m[2]) !== q.total) out.push(`says ${m[1]} publications became ${m[2]} queries; results.json has ${r.stats.publications} and ${q.total}`);
  }
  const split = findShown(results, SPLIT_RE, 'on the split');
  out.push(...split.problems);
  if (split.text) {
    const m = SPLIT_RE.exec(split.text)!;
    if (Number(m[1]) !== r.seed) out.push(`says seed ${m[1]}; results.json has ${r.seed}`);
    if (Number(m[2]) !== q.train || Number(m[3]) !== q.test) out.push(`says ${m[2]} train and ${m[3]} test queries; results.json has ${q.train} and ${q.test}`);
    if (!samePct(m[4], q.total ? q.test / q.total : 0)) out.push(`says a test share of ${m[4]}%; ${q.test} of ${q.total} is ${pct(q.test / q.total)}`);
    if (!samePct(m[5], r.testFraction)) out.push(`says a target of ${m[5]}%; results.json has test fraction ${r.testFraction}`);
    const worst = furthestStratum(r.stats.splitBalance, r.testFraction);
    const sm = STRATUM_RE.exec(split.text);
    if (worst && !sm) out.push('names no stratum furthest from the target');
    if (sm && worst) {
      const named = r.stats.splitBalance.find((s) => s.stratum === sm[1]);
      if (!named) out.push(`names stratum "${sm[1]}", which is not in the split table`);
      else {
        if (Math.abs(named.testShare - r.testFraction) !== Math.abs(worst.testShare - r.testFraction)) out.push(`names "${sm[1]}" as furthest from the target; "${worst.stratum}" is further (${pct(worst.testShare)} vs ${pct(named.testShare)})`);
        if (!samePct(sm[2], named.testShare) || Number(sm[3]) !== named.test || Number(sm[4]) !== named.train + named.test) out.push(`says "${sm[1]}" is at ${sm[2]}% (${sm[3]} of ${sm[4]}); the table has ${pct(named.testShare)} (${named.test} of ${named.train + named.test})`);
      }
    }
  }
  return out;
}

/** Problems of 01's positives-per-query sentence (median, mean and max against the stats; the paper notes give no per-query count to compare with). */
function positivesClaimProblems(results: Json): string[] {
  const r = results as unknown as BenchmarkResults;
  const out: string[] = [];
  // positives per query
  const pos = findShown(results, POSITIVES_RE, 'on positives per query');
  out.push(...pos.problems);
  if (pos.text) {
    const m = POSITIVES_RE.exec(pos.text)!;
    const p = r.stats.positivesSummary;
    if (Number(m[1]) !== p.median || m[2] !== p.mean.toFixed(2) || Number(m[3]) !== p.max) out.push(`says median ${m[1]}, mean ${m[2]}, max ${m[3]}; results.json has ${p.median}, ${p.mean.toFixed(2)}, ${p.max}`);
  }
  return out;
}

/** Problems of 01's try-it split sentence (the "try it" split against the reported one). */
function tryItSplitClaimProblems(results: Json): string[] {
  const r = results as unknown as BenchmarkResults;
  const out: string[] = [];
  // the "try it" split against the reported one
  const knob = shownSentences(results).find((t) => KNOB_SAME_RE.test(t) || KNOB_OTHER_RE.test(t));
  if (!knob) out.push('no shown sentence on the "try it" split');
  else {
    const same = KNOB_SAME_RE.exec(knob);
    const m = same ?? KNOB_OTHER_RE.exec(knob)!;
    const t = r.tryIt;
    const isReported = t.seed === r.seed && t.testFraction === r.testFraction;
    if (Boolean(same) !== isReported) out.push(`says the try-it split (seed ${t.seed}, fraction ${t.testFraction}) ${same ? 'is' : 'is not'} the reported one (seed ${r.seed}, fraction ${r.testFraction})`);
    if (Number(m[1]) !== t.seed || Number(m[2]) !== t.testFraction) out.push(`says seed ${m[1]} and fraction ${m[2]}; results.json tryIt has ${t.seed} and ${t.testFraction}`);
    if (Number(m[3]) !== t.queries.train || Number(m[4]) !== t.queries.test) out.push(`says the try-it split has ${m[3]} train / ${m[4]} test queries; results.json has ${t.queries.train} / ${t.queries.test}`);
  }
  return out;
}

/** Problems of 01's leakage count (the leakage count shown equals the one results.json keeps). */
function leakageClaimProblems(results: Json): string[] {
  const r = results as unknown as BenchmarkResults;
  const out: string[] = [];
  const q = r.stats.queries;
  // the leakage count shown equals the one results.json keeps
  const leak = findShown(results, LEAK_RE, 'with the leakage count');
  out.push(...leak.problems);
  if (leak.text) {
    const m = LEAK_RE.exec(leak.text)!;
    if (Number(m[1]) !== r.leakage.count) out.push(`says ${m[1]} leaked test queries; results.json leakage.count is ${r.leakage.count}`);
    if (Number(m[2]) !== r.leakage.testQueries || Number(m[2]) !== q.test) out.push(`says ${m[2]} test queries; results.json has ${r.leakage.testQueries} (stats ${q.test})`);
    if (Number(m[3]) !== q.train) out.push(`says ${m[3]} training queries; results.json has ${q.train}`);
    if (Number(m[4]) !== r.leakage.jaccardThreshold) out.push(`says Jaccard ≥ ${m[4]}; results.json has ${r.leakage.jaccardThreshold}`);
  }
  return out;
}

/** Copies of 01's results with one claim made false: the direction of the size comparison, the leakage count, the split counts, a stratum, the positives. */
export function falsifyBenchmarkClaims(results: Json): Json[] {
  const r = results as unknown as BenchmarkResults;
  const flipped = withShownSentence(results, SCALE_RE, (s) => s.replace(/(datasets, )(more than|fewer than|as many as)/, (_, a, w) => a + (w === 'fewer than' ? 'more than' : 'fewer than')));
  const leak = { ...results, leakage: { ...r.leakage, count: r.leakage.count + 1 } };
  const split = withShownSentence(results, SPLIT_RE, (s) => s.replace(SPLIT_RE, (all, seed, train, test) => all.replace(`${train} train and ${test} test`, `${test} train and ${train} test`)));
  // one more test publication in the stratum the sentence names (the one furthest from the target)
  const worst = furthestStratum(r.stats.splitBalance, r.testFraction);
  const stratum = worst ? { ...results, stats: { ...r.stats, splitBalance: r.stats.splitBalance.map((s) => (s === worst ? { ...s, test: s.test + 1 } : s)) } } : null;
  // a mean number of positives per query that no longer matches the stated mean
  const positives = { ...results, stats: { ...r.stats, positivesSummary: { ...r.stats.positivesSummary, mean: r.stats.positivesSummary.mean + 0.5 } } };
  return [flipped, leak, split, stratum, positives].filter((x): x is Json => x !== null);
}

registerClaimCheck('01', {
  covers: '01: snapshot vs NASA-EO-Bench, split and try-it sentences, positives per query, leakage count',
  check: benchmarkClaimProblems,
  falsify: falsifyBenchmarkClaims,
});
