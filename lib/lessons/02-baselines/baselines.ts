/**
 * Views of notebook 02 (the untrained baselines, BM25 and Cosine (base)): the verdict of its metric table beside the
 * paper's, the label holes with what they change, the per-query scatter with its counts, the query-style benchmark,
 * the Try-it knob (BM25's k1 and b), and its claim check.
 */
import { labelHoles, labelHolesRows, type LabelHoles } from '../../bench/holes';
import { buildStyleBenchmark, styleBenchmarkReport } from '../../bench/styles/build';
import { readTuningLog, tuningLogSentence, tuningLogSummary } from '../../bench/tuning-log';
import type { BenchSplitView } from '../../bench/types';
import type { Corpus } from '../../data/types';
import { METRIC_NAMES, type MetricName, type MetricRow, type PerQueryMetrics } from '../../metrics/types';
import type { SystemRun } from '../../metrics/systems';
import { showFigure, showMarkdown, showTable } from '../../report/display';
import { perQueryScatterFigure } from '../../report/figures';
import { perQueryGain } from '../../report/fusion';
import { metricsVerdict, paperComparisonSentence, sampleNote, sourceCaption } from '../../report/lesson';
import { signed } from '../../report/numbers';
import { paperTable2Value } from '../../report/paper';
import { styleTableRows, styleVerdict } from '../../report/styles';
import type { TableSource } from '../../report/types';
import type { CorpusScorer } from '../../retrieve/scorers';
import { hybridStyleRuns, scoreStyleQueries, styleRows } from '../../study/style-eval';
import { comparisonsIn, registerClaimCheck, shownWith, styleVerdictProblems, type Json } from '../claims';
import { changePaperValue, metricsVerdictProblems, pairedVerdictProblems, paperSentenceProblems, replacedInShown, sameMetrics, sampleNoteProblems, swapMetricWinner } from '../verdict-claims';

/** The rows of Table 2 that notebook 02 reproduces, with the paper's value beside ours. */
export const BASELINE_ROWS = ['BM25', 'Cosine (base)'] as const;

/**
 * The block under notebook 02's metric table: who wins each metric, BM25's and Cosine (base)'s MAP beside the
 * paper's with why they may differ, and where the numbers come from. Markdown.
 */
export function baselinesVerdict(input: { rows: readonly MetricRow[]; sample: boolean; queries: number; datasets: number; writerLabel: string }): string {
  const paper = BASELINE_ROWS.map((label) => paperComparisonSentence({
    what: `${label} MAP`, ours: input.rows.find((r) => r.system === label)!.MAP, paper: paperTable2Value(label, 'MAP'), sample: input.sample,
    reasons: [`queries: ${input.writerLabel}`, "the corpus is this snapshot's CMR records, not NASA-EO-Bench's datasets"],
  }));
  return [metricsVerdict(input.rows), ...paper, sampleNote(input.sample, { queries: input.queries, datasets: input.datasets, writerLabel: input.writerLabel })].join('\n\n');
}

/**
 * What the label holes change, in words: how much of each top 10 is unlabelled, and whether the order of the systems
 * by MAP is the same under the strict and the holes-aware labels (naming both orders when it is not).
 */
export function labelHolesVerdict(h: LabelHoles): string {
  const unlabelled = h.rows.map((r) => `${r.system} ${(100 * r.unlabelled).toFixed(0)}%`).join(', ');
  const order = (labels: readonly string[]) => labels.map((l) => `**${l}**`).join(' > ');
  return `Unlabelled share of the top ${h.k}: ${unlabelled}. ` + (h.sameOrdering
    ? `Counting same-family datasets as relevant does **not change the order** of the systems by MAP: ${order(h.ordering.strict)}.`
    : `Counting same-family datasets as relevant **changes the order** of the systems by MAP: strict ${order(h.ordering.strict)}; holes-aware ${order(h.ordering.holesAware)}.`);
}

/** Notebook 02's label holes: the table and what it changes. Returns the table's rows (for results.json). */
export function showLabelHoles(input: { systems: readonly Pick<SystemRun, 'label' | 'run'>[]; split: Pick<BenchSplitView, 'queries' | 'qrels'>; corpus: Corpus; source: TableSource }): ReturnType<typeof labelHolesRows> {
  const holes = labelHoles(input.systems, input.split.qrels, input.corpus);
  const rows = labelHolesRows(holes);
  showTable(rows, { title: `Label holes in the top 10: test split, ${input.split.queries.length} queries`, digits: 3, source: input.source });
  showMarkdown(labelHolesVerdict(holes));
  return rows;
}

/**
 * The per-query scatter of reciprocal ranks, BM25 (x) vs Cosine (base) (y), its caption, and how many queries each
 * ranks the first right answer higher.
 */
export async function showReciprocalRanks(input: { bm25: PerQueryMetrics; cosine: PerQueryMetrics; queryText: ReadonlyMap<string, string>; source: TableSource; notebook: string }): Promise<void> {
  await showFigure(perQueryScatterFigure(input.bm25, input.cosine, { xTitle: 'BM25', yTitle: 'Cosine (base)', text: (q) => input.queryText.get(q)!.slice(0, 80) }),
    { name: 'rr-bm25-vs-cosine', notebook: input.notebook });
  const gain = perQueryGain(input.bm25, input.cosine, 'BM25 − Cosine (base)', 'MRR');
  showMarkdown(sourceCaption('Reciprocal rank per test query, BM25 vs Cosine (base) (figures/rr-bm25-vs-cosine.html)', input.source) +
    `\n\nBM25 ranks the first right answer higher on **${gain.better}** queries, cosine on **${gain.worse}**, tied on ${gain.tied} (mean ΔRR ${gain.mean.toFixed(3)}).`);
}

/**
 * The baselines on the test half of the benchmark of real query styles (`lib/bench/styles`): the benchmark's size,
 * the per-style table (Cosine (base) and, when given, BM25-stop paired with BM25) and what it shows, then where
 * BM25-stop's settings were chosen (the dev half's tuning log). Returns what results.json records.
 */
export async function showStyleBaselines(input: { corpus: Corpus; scorers: { bm25: CorpusScorer; 'cosine-base': CorpusScorer; 'bm25-stop'?: CorpusScorer } }): Promise<{ half: 'test'; queries: number; rows: ReturnType<typeof styleRows>; tuningLog: ReturnType<typeof tuningLogSummary> }> {
  const { corpus } = input;
  const styles = buildStyleBenchmark(corpus);
  showTable(styleBenchmarkReport(styles), { title: 'The benchmark of real query styles on this snapshot (queries and labels per style and half)', digits: 2 });
  const styleTest = styles.queries.filter((q) => q.split === 'test').map((q) => ({ id: q.id, text: q.text, style: q.style }));
  const styleQrels = new Map(styleTest.map((q) => [q.id, styles.qrels.get(q.id)!]));
  const scored: Record<string, Awaited<ReturnType<typeof scoreStyleQueries>>> = {};
  for (const [id, scorer] of Object.entries(input.scorers)) if (scorer) scored[id] = await scoreStyleQueries(scorer, styleTest, corpus);
  // the reference row is named BM25 whatever label the caller's scorer carries (lunr's k1/b label would match no row)
  scored.bm25 = { ...scored.bm25, label: 'BM25' };
  const rows = styleRows(hybridStyleRuns(corpus, scored, [], styleTest), styleTest, styleQrels, 'BM25');
  const withStop = scored['bm25-stop'] !== undefined;
  showTable(styleTableRows(rows, { reference: 'BM25' }), {
    title: `BM25${withStop ? ', BM25-stop' : ''} and Cosine (base) per query style (style benchmark, test half)`, digits: 4, maxRows: 100,
    source: { settings: { benchmark: 'eo-styles', half: 'test', queries: styleTest.length, bootstrap: 10000, permutations: 10000, seed: 42 } },
  });
  showMarkdown(styleVerdict(rows, { system: 'Cosine (base)', reference: 'BM25', split: 'test' }));
  if (withStop) showMarkdown(styleVerdict(rows, { system: scored['bm25-stop'].label, reference: 'BM25', split: 'test' }));
  const log = readTuningLog();
  showMarkdown(tuningLogSentence(log));
  return { half: 'test', queries: styleTest.length, rows, tuningLog: tuningLogSummary(log) };
}

/** The settings as `k1 = 0.9, b = 0.4`. */
export function knobText(settings: Readonly<Record<string, unknown>>): string {
  return Object.entries(settings).map(([k, v]) => `${k} = ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
}

/**
 * The tried row against the reported one: the change of each metric, which metrics rose and fell, and a note when
 * the knob is at its default (then the numbers must equal the reported ones, and the text says whether they do).
 * Markdown.
 */
export function knobVerdict(input: {
  reported: MetricRow;
  tried: MetricRow;
  settings: Readonly<Record<string, unknown>>;
  defaults: Readonly<Record<string, unknown>>;
  metrics?: readonly MetricName[];
  /** Differences below this count as none. Default 1e-9. */
  tolerance?: number;
}): string {
  const metrics = input.metrics ?? METRIC_NAMES;
  const tol = input.tolerance ?? 1e-9;
  const atDefault = Object.keys(input.defaults).every((k) => input.settings[k] === input.defaults[k]);
  const diffs = metrics.map((m) => ({ m, d: input.tried[m] - input.reported[m] }));
  const up = diffs.filter((x) => x.d > tol);
  const down = diffs.filter((x) => x.d < -tol);
  const out: string[] = [];
  if (atDefault) {
    out.push(up.length + down.length === 0
      ? `With the defaults (${knobText(input.settings)}) the tried row equals the reported **${input.reported.system}** row on every metric: change a value above and re-run this cell.`
      : `The knobs are at their defaults (${knobText(input.settings)}) but the tried row differs from the reported one on ${[...up, ...down].map((x) => x.m).join(', ')}: the reported row was made with other settings.`);
    return out.join('\n');
  }
  out.push(`With ${knobText(input.settings)} (defaults: ${knobText(input.defaults)}), against the reported **${input.reported.system}**:`);
  out.push(diffs.map((x) => `${x.m} ${input.tried[x.m].toFixed(3)} (${Math.abs(x.d) <= tol ? 'unchanged' : signed(x.d)})`).join(' · '));
  out.push(up.length === 0 && down.length === 0
    ? 'No metric moved: on these queries the rankings\' relevant positions did not change.'
    : `${up.length ? `Up on ${up.map((x) => x.m).join(', ')}` : 'Nothing rose'}; ${down.length ? `down on ${down.map((x) => x.m).join(', ')}` : 'nothing fell'}. ` +
      'One knob setting on the test split is an illustration, not tuning: choosing it here would fit the test queries.');
  return out.join('\n\n');
}

// ── notebook 02's claim check (lib/lessons/claims.ts)

const NUM02 = String.raw`[+−-]?\d+(?:\.\d+)?`;
const rows02 = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);

/** The label-holes sentence against results.json's `labelHoles` rows: "does not change the order" exactly when every rank agrees, and the order it names. */
function labelHolesProblems(results: Json): string[] {
  const rows = rows02(results.labelHoles);
  const text = shownWith(results, /the order\*\* of the systems by MAP/);
  if (!text) return ['no shown sentence says whether the label holes change the order of the systems'];
  const same = rows.every((r) => r['rank strict'] === r['rank holes-aware']);
  const saysSame = /does \*\*not change the order\*\*/.test(text);
  const out = saysSame !== same ? [`says the holes-aware order ${saysSame ? 'is unchanged' : 'changes'}, the table's ranks say it ${same ? 'is unchanged' : 'changes'}`] : [];
  const strict = [...rows].sort((a, b) => Number(a['rank strict']) - Number(b['rank strict'])).map((r) => `**${String(r.system)}**`).join(' > ');
  if (!text.includes(strict)) out.push(`does not name the strict order ${strict}: "${text}"`);
  return out;
}

/** The reciprocal-rank counts against the paired MRR row of BM25 vs Cosine (base) (improved, worse, tied, mean difference). */
function reciprocalRankProblems(results: Json): string[] {
  const text = shownWith(results, /ranks the first right answer higher on/);
  if (!text) return ['no shown sentence counts the queries each baseline answers earlier'];
  const m = new RegExp(String.raw`higher on \*\*(\d+)\*\* queries, cosine on \*\*(\d+)\*\*, tied on (\d+) \(mean ΔRR (${NUM02})\)`).exec(text);
  const row = comparisonsIn((results.paired as Record<string, unknown> | undefined)?.['BM25 vs Cosine (base)']).find((r) => r.metric === 'MRR');
  if (!m || !row) return [`cannot read the reciprocal-rank counts or the paired MRR row: "${text.slice(-200)}"`];
  if (typeof row.meanDiff !== 'number') return ['results.json\'s paired MRR row of BM25 vs Cosine (base) is not a typed comparison (written before 2026-12-05?): run the notebook again'];
  const want = [row.improved, row.worse, row.tied].map(Number);
  const said = [m[1], m[2], m[3]].map(Number);
  const out = said.join() !== want.join() ? [`says BM25 earlier on ${said[0]}, cosine on ${said[1]}, tied on ${said[2]}; the paired MRR row has ${want.join(', ')}`] : [];
  if (m[4] !== row.meanDiff.toFixed(3)) out.push(`quotes mean ΔRR ${m[4]}, the paired MRR row has ${row.meanDiff.toFixed(3)}`);
  return out;
}

/** The Try-it sentence: "With the defaults … equals the reported BM25 row" exactly when the knobs are at their defaults and the tried row equals the reported one. */
function bm25KnobProblems(results: Json): string[] {
  const tryIt = (results.tryIt ?? {}) as Record<string, unknown>;
  const text = shownWith(results, /the tried row|against the reported \*\*/);
  if (!text) return ['no shown sentence under the Try-it table'];
  const equal = sameMetrics(rows02(tryIt.rows)[0], rows02(results.metrics).find((r) => r.system === 'BM25'));
  const saysEqual = /the tried row equals the reported \*\*BM25\*\* row on every metric/.test(text);
  const saysDefault = /^(With the defaults|The knobs are at their defaults)/.test(text);
  const out: string[] = [];
  if (saysDefault === (tryIt.changed === true)) out.push(`${saysDefault ? 'says' : 'does not say'} the knobs are at their defaults, results.json has tryIt.changed = ${String(tryIt.changed)}`);
  if (saysDefault && saysEqual !== equal) out.push(`says the tried row ${saysEqual ? 'equals' : 'differs from'} the reported BM25 row, the tables say it ${equal ? 'equals' : 'differs from'} it`);
  return out;
}

/** The style verdicts under the style table: Cosine (base) and BM25-stop against BM25, from results.json's style rows. */
function styleBaselineProblems(results: Json): string[] {
  const rows = rows02((results.styles as Json | undefined)?.rows);
  return [...styleVerdictProblems(results, rows, 'Cosine (base)', 'BM25'), ...styleVerdictProblems(results, rows, 'BM25-stop', 'BM25')];
}

/** A copy whose Cosine (base) style row (all styles) has the other sign: its verdict no longer follows. */
function flippedStyleDiff(results: Json): Json | null {
  const styles = results.styles as Json | undefined;
  const rows = rows02(styles?.rows);
  const i = rows.findIndex((r) => r.system === 'Cosine (base)' && r.style === 'all' && r.vsReference);
  if (i < 0) return null;
  const v = rows[i].vsReference as Record<string, { diff: number }>;
  const flipped = { ...rows[i], vsReference: { ...v, 'nDCG@10': { ...v['nDCG@10'], diff: -v['nDCG@10'].diff - 0.01 } } };
  return { ...results, styles: { ...styles, rows: rows.map((r, j) => (j === i ? flipped : r)) } };
}

registerClaimCheck('02', {
  covers: '02: the winners, ours vs the paper, the paired verdicts, the label-holes order, the reciprocal-rank counts, the Try-it sentence, the style verdicts',
  check: (results) => {
    const rows = rows02(results.metrics);
    const main = shownWith(results, /MAP: ours/);
    return [
      ...(main ? [...metricsVerdictProblems(main, rows), ...paperSentenceProblems(main, rows)] : ['no verdict under the metric table']),
      ...sampleNoteProblems(results), ...pairedVerdictProblems(results, (results.paired ?? {}) as Record<string, unknown>),
      ...labelHolesProblems(results), ...reciprocalRankProblems(results), ...bm25KnobProblems(results), ...styleBaselineProblems(results),
    ];
  },
  falsify: (results) => {
    const holes = rows02(results.labelHoles);
    // swap the first two systems' holes-aware ranks: where the order was unchanged it now changes, the sentence stays
    const swapped = holes.length >= 2 ? { ...results, labelHoles: holes.map((r, i) => (i < 2 ? { ...r, 'rank holes-aware': holes[1 - i]['rank holes-aware'] } : r)) } : null;
    return [
      swapMetricWinner(results, rows02(results.metrics), 'MAP') ?? swapMetricWinner(results, rows02(results.metrics), 'MRR'),
      changePaperValue(results),
      swapped,
      replacedInShown(results, /higher on \*\*(\d+)\*\* queries/, (m) => `higher on **${Number(m[1]) + 1}** queries`),
      flippedStyleDiff(results),
    ].filter((x): x is Json => x !== null);
  },
});
