// Notebook 05 (fusion, Table 2): its generated verdict of Table 2 and the comparison with the paper's Table 2.
// The general Table 2 builder and views stay in lib/report (table2.ts, fusion.ts).
import { METRIC_NAMES, type MetricName, type MetricRow } from '../metrics/types';
import { metricsVerdict, sampleNote } from '../report/lesson';
import { f3, finiteOrNull as num, pText, signed } from '../report/numbers';
import { SIGNIFICANCE_LEVEL, ciExcludesZero, testsDisagreeText } from '../report/paired-text';
import { checkRatioClaim, type PaperRatioClaim } from '../report/paper';
import type { Table2 } from '../report/table2';

/**
 * Where a row and a reference row of Table 2 (e.g. NN-SSC and BM25) rank the other way round here than in the paper,
 * metric by metric, and the reference row's MAP here as a multiple of the paper's; null when either row has no
 * value here or in the paper. Markdown.
 */
export function paperContrastSentence(
  rows: readonly MetricRow[], paperValue: (label: string, metric: MetricName) => number | null, label: string, reference: string,
): string | null {
  const a = rows.find((r) => r.system === label);
  const b = rows.find((r) => r.system === reference);
  if (!a || !b) return null;
  const both = METRIC_NAMES.filter((m) => paperValue(label, m) !== null && paperValue(reference, m) !== null);
  if (both.length === 0) return null;
  const aheadHere = both.filter((m) => a[m] > b[m]);
  const aheadPaper = both.filter((m) => paperValue(label, m)! > paperValue(reference, m)!);
  const count = (ms: readonly MetricName[]) => (ms.length === both.length ? `all ${both.length} metrics` : ms.length === 0 ? 'none of the metrics' : `${ms.length} of ${both.length} metrics (${ms.join(', ')})`);
  const flipped = both.filter((m) => (a[m] > b[m]) !== (paperValue(label, m)! > paperValue(reference, m)!));
  const here = `Here **${label}** is ahead of **${reference}** on ${count(aheadHere)}; in the paper on ${count(aheadPaper)}`;
  const order = flipped.length === 0 ? ': the order agrees with the paper.'
    : `: **the order is reversed** on ${flipped.map((m) => `${m} (here ${f3(a[m])} vs ${f3(b[m])}, paper ${f3(paperValue(label, m)!)} vs ${f3(paperValue(reference, m)!)})`).join('; ')}.`;
  const pMap = paperValue(reference, 'MAP');
  const scale = pMap !== null && pMap > 0 ? ` Our ${reference} MAP is **${(b.MAP / pMap).toFixed(1)}×** the paper's (${f3(b.MAP)} vs ${f3(pMap)}).` : '';
  return here + order + scale;
}

export function table2Verdict(input: {
  table: Pick<Table2, 'rows' | 'paired' | 'best' | 'metrics'> & Partial<Pick<Table2, 'holmNote'>>;
  claim: PaperRatioClaim;
  paperValue: (label: string, metric: MetricName) => number | null;
  inPaper: (label: string) => boolean;
  reasons: readonly string[];
  sample: boolean; queries: number; datasets: number; writerLabel?: string;
}): string {
  const { table } = input;
  const out = ['### What Table 2 shows', ''];
  out.push(`**Best row** (highest π, the mean of R@10, R@20, R@100, MAP and MRR): **${table.best.label}**. Per metric:`, '', metricsVerdict(table.metrics), '');
  const vs = table.paired.filter((p) => p.metric === 'MAP');
  const tied = vs.filter((p) => Number(p['CI95 low']) <= 0 && Number(p['CI95 high']) >= 0).map((p) => String(p.system));
  const below = vs.filter((p) => Number(p['CI95 high']) < 0).map((p) => String(p.system));
  out.push(`**Against the best row (MAP, paired bootstrap 95% CI).** ${below.length} row(s) are significantly below it (CI excludes 0)` +
    (tied.length ? `; its CI includes 0 against: ${tied.join('; ')} — on these queries they are not distinguishable from the best.` : '.'), '');
  // Table 2's rows vs the best one carry 'mean diff', the CI and the raw randomization p
  const numbers = (p: (typeof vs)[number]) => ({ metric: 'MAP', meanDiff: Number(p['mean diff']), ciLow: Number(p['CI95 low']), ciHigh: Number(p['CI95 high']), pValue: num(p.p) ?? undefined });
  const disagree = vs.filter((p) => testsDisagreeText(numbers(p)) !== '');
  if (disagree.length > 0) out.push(`**The two tests disagree** on ${disagree.length} of these rows (bootstrap CI vs paired randomization p at ${SIGNIFICANCE_LEVEL}): ` +
    disagree.map((p) => `${p.system} (${ciExcludesZero(numbers(p)) ? 'CI excludes 0' : 'CI includes 0'}, p = ${pText(Number(p.p))})`).join('; ') + ' — read these as borderline, not as established.', '');
  if (table.holmNote) out.push(`**Multiple testing.** ${table.holmNote}`, '');
  const check = checkRatioClaim(input.claim, table.metrics);
  const ratios = Object.entries(check.ratios).map(([m, r]) => `${m} ${r === null ? 'n/a' : `${r.toFixed(2)}×`}`).join(', ');
  out.push(`**The paper's claim** (${input.claim.source}: ${input.claim.text}): ${input.claim.better} / ${input.claim.than} here is ${ratios}; ` +
    (check.holds === null ? 'not checkable (a row is missing).' : check.holds ? `the claim **holds** (≥ ${input.claim.atLeast}× on every metric).` : `the claim does **not** hold here (< ${input.claim.atLeast}× on some metric).`), '');
  const paperRows = table.metrics.filter((m) => input.inPaper(m.system));
  const recorded = paperRows.map((m) => ({ row: m, paper: METRIC_NAMES.map((k) => ({ k, v: input.paperValue(m.system, k) })).filter((x): x is { k: MetricName; v: number } => x.v !== null) })).filter((x) => x.paper.length > 0);
  if (recorded.length === 0) out.push(`**The paper's numbers.** ${paperRows.length === 0 ? "None of these rows is in the paper's Table 2." : `The paper's Table 2 gives no value for ${paperRows.length === 1 ? 'this row' : `these ${paperRows.length} rows`} (${paperRows.map((r) => r.system).join('; ')}).`}`);
  else {
    out.push("**Our numbers beside the paper's Table 2** (ours vs the paper's, difference):");
    for (const x of recorded) out.push(`- ${x.row.system}: ${x.paper.map(({ k, v }) => `${k} ${f3(x.row[k])} vs ${f3(v)} (${signed(x.row[k] - v)})`).join('; ')}.`);
    const contrast = paperContrastSentence(table.metrics, input.paperValue, 'NN-SSC', 'BM25');
    if (contrast) out.push('', contrast);
  }
  out.push('', `**Why they may differ:** ${[...input.reasons, ...(input.sample ? ['the sample snapshot has only 200 datasets, so every metric is easier than on 10,073'] : [])].join('; ')}.`, '');
  out.push(sampleNote(input.sample, { queries: input.queries, datasets: input.datasets, writerLabel: input.writerLabel }));
  return out.join('\n');
}
