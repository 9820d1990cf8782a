// Notebook 05 (fusion, Table 2): its generated text — the verdict of Table 2 against the paper, α, per-query gains,
// the ablation, the α knob and the discussion. The general Table 2 builder and views stay in lib/report.
import { METRIC_NAMES, type MetricName, type MetricRow } from '../../metrics/types';
import type { SelfSupervisedScorerSpec } from '../../study/self-supervised';
import { selfSupervisedTrainCommand } from '../../study/self-supervised';
import type { HybridStudy } from '../../study/study';
import type { PerQueryGain } from '../../report/fusion';
import { metricsVerdict, pairedVerdict, sampleNote } from '../../report/lesson';
import { ciExcludesZero, isSignificant, significanceState, SIGNIFICANCE_LEVEL } from '../../metrics/significance';
import type { PairedComparison } from '../../metrics/types';
import { f3, pText, signed } from '../../report/numbers';
import { checkRatioClaim, type PaperRatioClaim } from '../../report/paper';
import type { Table2 } from '../../report/table2';
import type { TableRow } from '../../report/types';
import type { AlphaTryIt } from './try-it';


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

/** The rule the discussion's "(not) significantly different" follows, in words (`isSignificant` with Holm over Table 2's rows). */
export const DIFFERENT_RULE = `paired bootstrap CI excludes 0 and p Holm < ${SIGNIFICANCE_LEVEL}`;
export const NOT_DIFFERENT_RULE = `paired bootstrap CI includes 0 or p Holm ≥ ${SIGNIFICANCE_LEVEL}`;

export function table2Verdict(input: {
  table: Pick<Table2, 'rows' | 'comparisons' | 'best' | 'metrics'> & Partial<Pick<Table2, 'holmNote'>>;
  claim: PaperRatioClaim;
  paperValue: (label: string, metric: MetricName) => number | null;
  inPaper: (label: string) => boolean;
  reasons: readonly string[];
  sample: boolean; queries: number; datasets: number; writerLabel?: string;
}): string {
  const { table } = input;
  const out = ['### What Table 2 shows', ''];
  out.push(`**Best row** (highest π, the mean of R@10, R@20, R@100, MAP and MRR): **${table.best.label}**. Per metric:`, '', metricsVerdict(table.metrics), '');
  const vs = table.comparisons.filter((c) => c.metric === 'MAP');
  const system = (c: PairedComparison) => c.systemA ?? '?';
  const tied = vs.filter((c) => !ciExcludesZero(c)).map(system);
  const below = vs.filter((c) => c.meanDiff < 0 && isSignificant(c)).map(system);
  // below by the CI alone, not after the Holm correction the caption applies: said, never counted as significant
  const notAfterHolm = vs.filter((c) => c.ciHigh < 0 && !isSignificant(c));
  out.push(`**Against the best row (MAP, paired bootstrap 95% CI and Holm-corrected p).** ${below.length} row(s) are significantly below it (CI excludes 0, p Holm < ${SIGNIFICANCE_LEVEL})` +
    (notAfterHolm.length ? `; below it by the CI but not after the Holm correction: ${notAfterHolm.map((c) => `${system(c)} (p Holm = ${c.pHolm === undefined ? 'n/a' : pText(c.pHolm)})`).join('; ')}` : '') +
    (tied.length ? `; its CI includes 0 against: ${tied.join('; ')} — on these queries they are not distinguishable from the best.` : '.'), '');
  const disagree = vs.filter((c) => significanceState(c) === 'tests disagree');
  if (disagree.length > 0) out.push(`**The two tests disagree** on ${disagree.length} of these rows (bootstrap CI vs paired randomization p at ${SIGNIFICANCE_LEVEL}): ` +
    disagree.map((c) => `${system(c)} (${ciExcludesZero(c) ? 'CI excludes 0' : 'CI includes 0'}, p = ${pText(c.pValue)})`).join('; ') + ' — read these as borderline, not as established.', '');
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

/**
 * The sentence under the self-supervised rows: which were scored (and from which checkpoint), which were not trained in
 * this run with the exact command that trains each, and what every one of them saw.
 */
export function selfSupervisedNote(o: {
  found: readonly { spec: SelfSupervisedScorerSpec; dir: string }[];
  missing: readonly { spec: SelfSupervisedScorerSpec; dir: string; why: string }[];
  /** The sample snapshot (the command gets `--sample`). */
  sample: boolean;
}): string {
  const seen = 'Each was trained on the training split\'s publications plus (query, dataset) pairs made from the corpus text alone (titles, short names, abstract sentences, keyword phrases); no test publication reached any of them.';
  const parts = ['**Beyond the paper: corpus self-supervised rows** (issue 11). ' + seen];
  if (o.found.length) parts.push(`Scored here from their checkpoints: ${o.found.map((f) => `*${f.spec.label}* (\`${f.dir}\`)`).join(', ')}; the table below pairs each with its plain row.`);
  if (o.missing.length)
    parts.push(`Not trained in this run, so not in Table 2: ${o.missing.map((m) => `*${m.spec.label}* (${m.why}; train it with \`${selfSupervisedTrainCommand(m.spec, o.sample)}\`)`).join('; ')}.`);
  return parts.join(' ');
}

/** What the per-query gains show: per comparison, queries better / worse / tied and the mean ΔAP. Markdown. */
export function gainsVerdict(gains: readonly PerQueryGain[]): string {
  const out = ['**What fusion adds.** Per test query (AP):'];
  for (const g of gains) out.push(`- ${g.comparison}: better on ${g.better}, worse on ${g.worse}, tied on ${g.tied} queries; mean ΔAP ${signed(g.mean)}.`);
  return out.join('\n');
}

/** How each hybrid's α was set on the training split: π of both scorers, analytic α (Eq. 7), grid α and π at both. Markdown. */
export function alphaVerdict(hybrids: readonly HybridStudy[]): string {
  const out = ['**α.** Set on the training split only:'];
  for (const h of hybrids) {
    const a = h.analyticRecord;
    const g = h.gridRecord;
    const piGrid = g.curve?.find((p) => p.alpha === g.alpha)?.value;
    const piAna = g.curve?.reduce((b, p) => (Math.abs(p.alpha - a.alpha) < Math.abs(b.alpha - a.alpha) ? p : b), g.curve[0]);
    out.push(`- ${h.semanticLabel} + BM25: π_sem ${f3(a.piSemantic)}, π_BM25 ${f3(a.piLexical)} → analytic α ${f3(a.alpha)}; grid α ${f3(g.alpha)}` +
      (piGrid !== undefined && piAna ? ` (π train ${f3(piGrid)} there vs ${f3(piAna.value)} at the grid point nearest the analytic α).` : '.'));
    const c = h.crossFitted;
    if (c)
      out.push(`  ${h.semanticLabel} was trained on these queries, so its π_sem above is in-sample; scored by fold models that never saw them ` +
        `(${c.source}) its π_sem is ${f3(c.analyticRecord.piSemantic)}, which gives analytic α ${f3(c.analyticRecord.alpha)} and grid α ${f3(c.gridRecord.alpha)} ` +
        '(the "out-of-fold" rows of Table 2).');
  }
  out.push('Every π above is measured on the training split: for a scorer trained on that split (NN-SSC, the fine-tuned and the static encoder) it is ' +
    'in-sample, memorised as much as learnt, unless out-of-fold scores are named for it.');
  return out.join('\n');
}

/**
 * The discussion at the end of the fusion notebook, written from the numbers: which row is best, what fusion adds
 * over each component (paired CIs), how the analytic α compares with the grid, RRF against convex fusion, R2, and
 * how far title queries are from the paper's setting. Markdown.
 */
export function fusionDiscussion(input: {
  table: Pick<Table2, 'rows' | 'comparisons' | 'best' | 'metrics'>;
  hybrids: readonly HybridStudy[];
  gains: readonly PerQueryGain[];
  queries: number;
  writerLabel: string;
}): string {
  const { table } = input;
  const metric = (label: string): MetricRow | undefined => table.metrics.find((m) => m.system === label);
  const vsBest = (label: string, m = 'MAP') => table.comparisons.find((c) => c.systemA === label && c.metric === m);
  const out: string[] = ['## Discussion', ''];
  const best = metric(table.best.label);
  if (best) {
    out.push(`**Best row.** On ${input.queries} test queries (${input.writerLabel}), the best row by π is **${table.best.label}** ` +
      `(MAP ${f3(best.MAP)}, MRR ${f3(best.MRR)}, R@10 ${f3(best['R@10'])}, R@100 ${f3(best['R@100'])}).`);
    const close = table.metrics.filter((m) => m.system !== table.best.label).map((m) => ({ m, c: vsBest(m.system) }))
      .filter((x) => x.c && !isSignificant(x.c)).map((x) => x.m.system);
    out.push(close.length
      ? `Its MAP is not significantly different (${NOT_DIFFERENT_RULE}) from: ${close.join('; ')}.`
      : `Every other row has a significantly lower MAP (${DIFFERENT_RULE}).`);
    out.push('');
  }
  if (input.gains.length) out.push(gainsVerdict(input.gains), '');
  if (input.hybrids.length) out.push(alphaVerdict(input.hybrids), '');
  const oof = input.hybrids.filter((h) => h.crossFitted).map((h) => {
    const pair = (inSample: string, outOfFold: string) => {
      const a = metric(inSample);
      const b = metric(outOfFold);
      return a && b ? `${outOfFold} MAP ${f3(b.MAP)} vs ${f3(a.MAP)} (${inSample})` : null;
    };
    return [pair(`${h.semanticLabel} + BM25`, `${h.semanticLabel} + BM25 (Eq. 7, out-of-fold π)`), pair(`${h.semanticLabel} + BM25 (grid α)`, `${h.semanticLabel} + BM25 (grid α, out-of-fold)`)];
  }).flat().filter((x): x is string => x !== null);
  if (oof.length)
    out.push(`**α on honest training scores.** ${oof.join('; ')}. Eq. 7 weighs a scorer by its share of π, and the out-of-fold π is the smaller, ` +
      'so its α is lower; whether that helps on the test split depends on where the test MAP peaks over α (section 5), which Eq. 7 does not look at. ' +
      'The grid α is set on the fused training run itself.', '');
  const rrfVsConvex = input.hybrids.map((h) => {
    const conv = metric(table.rows.find((r) => r.system === `${h.semanticLabel} + BM25`)?.system as string);
    const rrf = table.metrics.find((m) => m.system.startsWith(`${h.semanticLabel} + BM25 (RRF)`));
    return conv && rrf ? `${h.semanticLabel}: RRF MAP ${f3(rrf.MAP)} vs convex ${f3(conv.MAP)}` : null;
  }).filter((x): x is string => x !== null);
  if (rrfVsConvex.length) out.push(`**RRF vs convex fusion.** ${rrfVsConvex.join('; ')}. RRF needs no weight; convex fusion uses the score margins that RRF discards.`, '');
  const r2 = [['Cosine (base) + BM25', 'Cosine (base) + BM25 + R2'], ['Cosine (fine-tuned) + BM25', 'Cosine (fine-tuned) + BM25 + R2']]
    .map(([a, b]) => [metric(a), metric(b)] as const).filter(([a, b]) => a && b).map(([a, b]) => `${b!.system}: MAP ${f3(b!.MAP)} vs ${f3(a!.MAP)} without R2`);
  if (r2.length) out.push(`**R2.** ${r2.join('; ')}.`, '');
  out.push('**Against the paper.** These queries are publication titles written offline, not the paper\'s LLM-written "I want to …" queries: ' +
    'titles share many words with dataset metadata, which favours BM25 and lowers the analytic α. Absolute numbers and even the order of rows can ' +
    'therefore differ from the paper\'s Table 2; the protocol (α from the training split, paired tests against the best row) is the same.');
  return out.join('\n');
}

/** What the α knob showed: the chosen α's MAP against the analytic and grid α, and the best α of the test curve. Markdown. */
export function alphaTryItVerdict(t: AlphaTryIt, semanticLabel: string): string {
  const get = (what: string) => t.rows.find((r) => String(r['α from']).startsWith(what))!;
  const mine = get('your');
  const ana = get('analytic');
  const grid = get('grid');
  const peak = t.curve.reduce((b, p) => (p.MAP > b.MAP ? p : b), t.curve[0]);
  const head = t.isReported
    ? `At the default α (the analytic α of Eq. 7, ${f3(t.alpha)}) this is the reported **${semanticLabel} + BM25** row of Table 2: MAP ${f3(Number(mine.MAP))}.`
    : `At your α = ${f3(t.alpha)}, MAP is ${f3(Number(mine.MAP))}: ${signed(Number(mine['ΔMAP vs analytic']))} against the analytic α (${f3(Number(ana['α']))}, MAP ${f3(Number(ana.MAP))}).`;
  return `${head} The grid α set on the training split (${f3(Number(grid['α']))}) gives MAP ${f3(Number(grid.MAP))} on the test split. ` +
    `Over the α grid the test MAP peaks at α = ${f3(peak.alpha)} (${f3(peak.MAP)}); that α is seen only in hindsight — choosing it on the test split would overstate the hybrid, which is why the paper sets α on the training split.`;
}

/** `pairedVerdict` of every comparison of `ablationComparisons` (keys `<hybrid> vs <component>`). Markdown, one block each. */
export function ablationVerdict(ablation: Readonly<Record<string, readonly PairedComparison[]>>): string {
  return Object.entries(ablation).map(([k, cs]) => {
    const [a, b] = k.split(' vs ');
    return pairedVerdict(cs, a, b);
  }).join('\n\n');
}
