/**
 * The generated text of the teaching notebooks: after a result, a markdown block computed from the numbers (never
 * typed by hand) says what it shows — which row wins and by how much, whether a paired 95% CI excludes zero, how it
 * compares with the paper and why it may differ, and whether the numbers come from the sample snapshot.
 */
import { METRIC_NAMES, type MetricName, type MetricRow } from '../metrics/types';
import { sourceLines } from './frame';
import type { PairedComparison } from '../metrics/types';
import { significantSide, SIGNIFICANCE_LEVEL } from '../metrics/significance';
import { f3, signed } from './numbers';
import { pairedText } from './paired-text';
import type { TableSource } from './types';

/**
 * Where the numbers come from, as one sentence: the 200-dataset sample (a teaching run: small, noisy, orderings
 * may flip) or the full snapshot. `queries` is the number of evaluated queries.
 */
export function sampleNote(sample: boolean, opts: { queries: number; datasets: number; writerLabel?: string }): string {
  const who = opts.writerLabel ? `; ${opts.writerLabel}` : '';
  return sample
    ? `*These numbers come from the **sample snapshot** (${opts.datasets} datasets, ${opts.queries} test queries${who}): a quick teaching run. ` +
        'With so few queries the confidence intervals are wide and small differences can flip; the full snapshot (`npm start` without `--sample`) gives the reported numbers.*'
    : `*These numbers come from the **full snapshot** (${opts.datasets} datasets, ${opts.queries} test queries${who}).*`;
}

/** `sampleNote`'s short form, appended to a verdict that names no counts: empty for the full snapshot. */
export function sampleSuffix(sample: boolean | undefined): string {
  return sample
    ? '\n\n_These numbers come from the 200-dataset **sample** snapshot (teacher mode): they show the method, not the paper\'s values; run without `--sample` for the full snapshot._'
    : '';
}

/**
 * What a metric table shows, per metric: the winning row, its value and its lead over the runner-up (ties named).
 * Markdown list.
 */
export function metricsVerdict(rows: readonly MetricRow[], metrics: readonly MetricName[] = METRIC_NAMES): string {
  if (rows.length === 0) return 'No rows to compare.';
  if (rows.length === 1) return `Only one row: ${rows[0].system}.`;
  const lines: string[] = [];
  for (const m of metrics) {
    const sorted = [...rows].sort((a, b) => b[m] - a[m]);
    const top = sorted.filter((r) => Math.abs(r[m] - sorted[0][m]) <= 1e-12);
    if (top.length === rows.length) {
      lines.push(`- **${m}**: every row ties at ${f3(sorted[0][m])}.`);
      continue;
    }
    const next = sorted[top.length];
    const lead = sorted[0][m] - next[m];
    const rel = next[m] > 0 ? ` (${(sorted[0][m] / next[m]).toFixed(2)}× the runner-up)` : '';
    lines.push(`- **${m}**: ${top.map((r) => `**${r.system}**`).join(' and ')} ${top.length > 1 ? 'tie' : 'wins'} with ${f3(sorted[0][m])}, ` +
      `${f3(lead)} ahead of ${next.system} (${f3(next[m])})${rel}.`);
  }
  return lines.join('\n');
}

/** One paired comparison in words (`pairedText`'s sentence): mean difference, 95% CI, whether it excludes 0, p, effect sizes. */
export function pairedSentence(c: PairedComparison, labelA: string, labelB: string): string {
  return pairedText(c, { form: 'sentence', labelA, labelB });
}

/**
 * The same paired comparison as a clause inside a longer line (the rerank verdicts; `pairedText`'s clause):
 * `ΔMAP +0.031 (95% CI [+0.004, +0.060], **excludes 0**; p = 0.021)`; `ΔMAP: n/a` without one.
 */
export function gainSentence(metric: string, c: PairedComparison | undefined): string {
  return c === undefined ? `Δ${metric}: n/a` : pairedText(c, { form: 'clause' });
}

/** The closing line of `pairedVerdict` starts with one of these: the claim check reads the count after it. */
export const PAIRED_VERDICT_SIGNIFICANT = `Significant (bootstrap CI excludes 0 and p < ${SIGNIFICANCE_LEVEL})`;

/**
 * What a paired comparison A − B shows (typed comparisons, one per metric): one line per metric and a closing count
 * of the metrics on which the difference is significant by the one rule (`significantSide`: CI and p, Holm where
 * corrected). Markdown.
 */
export function pairedVerdict(comparisons: readonly PairedComparison[], labelA: string, labelB: string): string {
  const better = comparisons.filter((c) => significantSide(c) > 0).map((c) => c.metric);
  const worse = comparisons.filter((c) => significantSide(c) < 0).map((c) => c.metric);
  const sure = better.length + worse.length;
  const n = comparisons[0]?.n;
  const out = [`**${labelA} − ${labelB}**${n === undefined ? '' : ` over ${n} paired queries`} (bootstrap 95% CI, paired randomization p):`, ''];
  for (const c of comparisons) out.push(`- ${pairedSentence(c, labelA, labelB)}`);
  out.push('');
  out.push(sure === 0
    ? `No metric's difference is significant (bootstrap CI excludes 0 and p < ${SIGNIFICANCE_LEVEL}): on these queries ${labelA} and ${labelB} are not distinguishable.`
    : `${PAIRED_VERDICT_SIGNIFICANT} on ${sure} of ${comparisons.length} metrics` +
      (better.length ? `: ${labelA} is ahead on ${better.join(', ')}` : '') + (worse.length ? `${better.length ? ';' : ':'} ${labelB} is ahead on ${worse.join(', ')}` : '') + '.');
  return out.join('\n');
}

/**
 * Our number beside the paper's, with the usual reasons they differ (title queries instead of the paper's LLM-written
 * ones, the CPU configuration, the sample). `paper` null: the paper does not report this value (lib/bench/paper.ts holds
 * every number it does).
 */
export function paperComparisonSentence(opts: { what: string; ours: number; paper: number | null; sample: boolean; reasons?: readonly string[] }): string {
  const why = [...(opts.reasons ?? []), ...(opts.sample ? ['the sample snapshot has 200 datasets, so every metric is easier than on 10,073'] : [])];
  const head = opts.paper === null
    ? `${opts.what}: ours ${f3(opts.ours)}; the paper does not report this value.`
    : `${opts.what}: ours ${f3(opts.ours)} vs the paper's ${f3(opts.paper)} (${signed(opts.ours - opts.paper)}).`;
  return why.length ? `${head} Why they may differ: ${why.join('; ')}.` : head;
}

/**
 * A caption for a figure or table: its title, then the run/qrels files and settings it came from (the same lines as a
 * table footer, `sourceLines`). Markdown, one line per item.
 */
export function sourceCaption(title: string, source: TableSource): string {
  return [`*${title}*`, ...sourceLines(source).map((l) => `<br>\`${l}\``)].join('');
}

/**
 * What a training run shows: how the training loss moved from its first to its last logged value and how the
 * validation metric moved from before training (or the first epoch) to the kept model. Markdown, one paragraph.
 * `reused`: the checkpoint was reused, so the numbers are the ones it recorded.
 */
export function trainingVerdict(opts: {
  what: string; losses: readonly number[]; unit: 'step' | 'epoch';
  validation: readonly { at: number; value: number }[]; metric: string; reused: boolean; kept?: number;
}): string {
  const out: string[] = [];
  const { losses } = opts;
  if (opts.reused) out.push(`The checkpoint was reused (trained earlier on this training split with this config); these are the numbers it recorded.`);
  if (losses.length >= 2) {
    const first = losses[0];
    const last = losses[losses.length - 1];
    const minL = Math.min(...losses);
    out.push(`${opts.what}: the training loss went from ${f3(first)} to ${f3(last)} over ${losses.length} ${opts.unit}s` +
      (last > minL + 1e-9 ? ` (lowest ${f3(minL)})` : '') + (last < first ? ', so the model fits its training pairs better.' : ', so it did not fall: this run learned little.'));
  } else out.push(`${opts.what}: ${losses.length} ${opts.unit} logged.`);
  const v = opts.validation;
  if (v.length >= 2) {
    const a = v[0];
    const keptAt = opts.kept ?? v[v.length - 1].at;
    const b = v.find((x) => x.at === keptAt) ?? v[v.length - 1];
    const best = v.reduce((m, x) => (x.value > m.value ? x : m), v[0]);
    out.push(`On held-out training queries, validation ${opts.metric} went from ${f3(a.value)} (${opts.unit} ${a.at}) to ${f3(b.value)} (${opts.unit} ${b.at}, the kept model; ` +
      `${signed(b.value - a.value)})` + (best.at !== b.at ? `; its best, ${f3(best.value)}, was at ${opts.unit} ${best.at}.` : '.'));
  }
  return out.join(' ');
}

/**
 * The block after a result table of two systems: who wins each metric, the paired comparison (does the CI exclude
 * 0?), our number beside the paper's on `paperMetric` for both rows, why they may differ, and where the numbers come
 * from. Markdown.
 */
export function resultVerdict(opts: {
  rows: readonly MetricRow[];
  paired: readonly PairedComparison[];
  a: string;
  b: string;
  sample: boolean;
  queries: number;
  datasets: number;
  writerLabel?: string;
  /** The paper's value of a row on `paperMetric` (null: not recorded). */
  paperValue: (label: string, metric: MetricName) => number | null;
  /** Default 'MAP'. */
  paperMetric?: MetricName;
  reasons: readonly string[];
}): string {
  const m = opts.paperMetric ?? 'MAP';
  const paperLines = [opts.a, opts.b].map((label) => {
    const r = opts.rows.find((x) => x.system === label);
    return r ? `- ${paperComparisonSentence({ what: `${label}, ${m}`, ours: r[m], paper: opts.paperValue(label, m), sample: false })}` : null;
  }).filter((x): x is string => x !== null);
  return [
    '### What this shows', '',
    metricsVerdict(opts.rows), '',
    pairedVerdict(opts.paired, opts.a, opts.b), '',
    '**Against the paper.**', ...paperLines,
    `- Why the numbers may differ: ${[...opts.reasons, ...(opts.sample ? ['the sample snapshot has only 200 datasets, so every metric is easier than on 10,073'] : [])].join('; ')}.`, '',
    sampleNote(opts.sample, { queries: opts.queries, datasets: opts.datasets, writerLabel: opts.writerLabel }),
  ].join('\n');
}

/**
 * A table/figure source from the files `writeRunFiles` returned (`<dir>/<id>.<split>.run`, `<dir>/qrels.<split>.trec`):
 * `.run` files as runs, the rest as qrels. `only.split` keeps one split's files; `only.ids` keeps the runs of those
 * system ids. Default: every file.
 */
export function runFilesSource(files: readonly string[], settings: Readonly<Record<string, unknown>> = {}, only: { split?: string; ids?: readonly string[] } = {}): TableSource {
  const base = (f: string) => f.slice(Math.max(f.lastIndexOf('/'), f.lastIndexOf('\\')) + 1);
  const inSplit = (f: string) => only.split === undefined || base(f).endsWith(`.${only.split}.run`) || base(f) === `qrels.${only.split}.trec`;
  const runs = files.filter((f) => f.endsWith('.run') && inSplit(f) && (only.ids === undefined || only.ids.some((id) => base(f).startsWith(`${id}.`))));
  return { runFiles: runs, qrels: files.filter((f) => !f.endsWith('.run') && inSplit(f)), settings };
}
