// Notebook 05's claim check: every generated sentence that names a winner, a sign, a count or a ratio to the paper is
// re-derived from the tables of its results.json (Table 2's rows, its paired rows, α, gains, ablation, the α knob,
// the query styles, the seed table), and `falsify` makes copies with one claim false that the check must catch.
import { ciExcludesZero, isSignificant, significanceState, significantSide, SIGNIFICANCE_LEVEL } from '../../metrics/significance';
import type { MetricRow, PairedComparison } from '../../metrics/types';
import { metricsVerdict } from '../../report/lesson';
import { f3, signed } from '../../report/numbers';
import { VS_REFERENCE_HEAD } from '../../report/paired-text';
import { checkRatioClaim, paperTable2Value, PAPER_TABLE2_CLAIM } from '../../report/paper';
import { comparisonsIn, escapeRegExp, findShown, registerClaimCheck, shownSentences, styleVerdictProblems, withShownSentence, type Json } from '../claims';
import { paperContrastSentence } from './verdicts';

type Row = Record<string, unknown>;
const rowsOf = (r: Json, key: string): Row[] => (Array.isArray(r[key]) ? (r[key] as Row[]) : []);
/** The typed paired comparisons results.json records under `key` (PairedComparison as JSON). */
const comparisonsOf = (r: Json, key: string): PairedComparison[] => comparisonsIn(r[key]);
const TABLE2 = /^### What Table 2 shows/;
const DISCUSSION = /^## Discussion/;
const GAINS = /^\*\*What fusion adds\.\*\*/;
const ALPHA = /^\*\*α\.\*\* Set on the training split only/;
const TRY_IT = /^At (the default α|your α)/;
const SEEDS = /^### Table 2 over \d+ seeds/;
const VS_REFERENCE = new RegExp(`^${escapeRegExp(VS_REFERENCE_HEAD)}`);

/** The row of largest π (the best row Table 2 names), or null. */
function bestByPi(r: Json): string | null {
  const rows = rowsOf(r, 'table2').filter((x) => typeof x['π'] === 'number');
  if (rows.length === 0) return null;
  return String(rows.reduce((b, x) => ((x['π'] as number) > (b['π'] as number) ? x : b)).system);
}

/** Table 2's paragraph: best row, per-metric leads, rows below / tied with the best, test disagreements, the paper's claim, the contrast with the paper. */
function table2Problems(r: Json): string[] {
  const { text, problems } = findShown(r, TABLE2, "with Table 2's verdict");
  if (!text) return problems;
  const out: string[] = [];
  const metrics = rowsOf(r, 'metrics') as unknown as MetricRow[];
  const named = /\*\*Best row\*\* \([^)]*\): \*\*(.+?)\*\*\./.exec(text)?.[1];
  const best = bestByPi(r);
  if (named !== best) out.push(`Table 2's verdict names ${named} as the best row; the highest π is ${best}`);
  if (!text.includes(metricsVerdict(metrics))) out.push("Table 2's per-metric winners do not follow from its metrics");
  const map = comparisonsOf(r, 'comparisonsVsBest').filter((c) => c.metric === 'MAP');
  // significant as the verdict counts it (isSignificant: the CI excludes 0 and the Holm-corrected p is below the level)
  const below = map.filter((c) => significantSide(c) < 0).length;
  const saidBelow = /(\d+) row\(s\) are significantly below it/.exec(text)?.[1];
  if (Number(saidBelow) !== below) out.push(`Table 2's verdict says ${saidBelow} rows are significantly below the best; ${below} MAP rows have a CI below 0 and a Holm-corrected p below ${SIGNIFICANCE_LEVEL}`);
  const tied = map.filter((c) => !ciExcludesZero(c)).map((c) => String(c.systemA));
  const saidTied = /its CI includes 0 against: (.+?) — /.exec(text)?.[1]?.split('; ') ?? [];
  if (saidTied.join('|') !== tied.join('|')) out.push(`Table 2's verdict says the CI includes 0 against [${saidTied.join('; ')}]; the paired rows say [${tied.join('; ')}]`);
  const disagree = map.filter((c) => significanceState(c) === 'tests disagree').length;
  const saidDisagree = Number(/The two tests disagree\*\* on (\d+) of these rows/.exec(text)?.[1] ?? 0);
  if (saidDisagree !== disagree) out.push(`Table 2's verdict says the tests disagree on ${saidDisagree} rows; they disagree on ${disagree}`);
  const claim = checkRatioClaim(PAPER_TABLE2_CLAIM, metrics).holds;
  const saysHolds = /the claim \*\*holds\*\*/.test(text) ? true : /the claim does \*\*not\*\* hold/.test(text) ? false : null;
  if (saysHolds !== claim) out.push(`Table 2's verdict says the paper's claim ${saysHolds === null ? 'cannot be checked' : saysHolds ? 'holds' : 'does not hold'}; on the metrics it ${claim === null ? 'cannot be checked' : claim ? 'holds' : 'does not hold'}`);
  const contrast = paperContrastSentence(metrics, paperTable2Value, 'NN-SSC', 'BM25');
  if (contrast && !text.includes(contrast)) out.push("Table 2's contrast with the paper (who is ahead, the reversed order, BM25's MAP as a multiple of the paper's) does not follow from the metrics");
  return out;
}

/** α lines: π of both scorers, analytic and grid α, as in the α table; the analytic α is Eq. 7 of the two π. */
function alphaProblems(r: Json): string[] {
  const { text } = findShown(r, ALPHA, '');
  if (!text) return rowsOf(r, 'alpha').length > 0 ? ['no α verdict although the α table has rows'] : [];
  const out: string[] = [];
  for (const a of rowsOf(r, 'alpha')) {
    const piS = Number(a['π semantic (train)']);
    const piL = Number(a['π BM25 (train)']);
    const line = `- ${a.hybrid}: π_sem ${f3(piS)}, π_BM25 ${f3(piL)} → analytic α ${f3(Number(a['α analytic (Eq. 7)']))}; grid α ${f3(Number(a['α grid (train)']))}`;
    if (!text.includes(line)) out.push(`α verdict has no line "${line}"`);
    if (Math.abs(Number(a['α analytic (Eq. 7)']) - piS / (piS + piL)) > 1e-9) out.push(`${a.hybrid}: analytic α is not π_sem / (π_sem + π_BM25)`);
  }
  return out;
}

/** Per-query gains: better / worse / tied counts and the mean ΔAP of each comparison, in the verdict and the discussion. */
function gainsProblems(r: Json): string[] {
  const gains = rowsOf(r, 'perQueryGains');
  const out: string[] = [];
  for (const find of [GAINS, DISCUSSION]) {
    const text = shownSentences(r).find((t) => find.test(t));
    if (!text || gains.length === 0) continue;
    for (const g of gains) {
      const line = `- ${g.comparison}: better on ${g['queries better']}, worse on ${g.worse}, tied on ${g.tied} queries; mean ΔAP ${signed(Number(g['mean ΔAP']))}.`;
      if (!text.includes(line)) out.push(`gains${find === DISCUSSION ? ' (discussion)' : ''}: no line "${line}"`);
    }
  }
  return out;
}

/** The ablation's paired sentences: each metric's difference, its sign word and the CI as in the ablation table. */
function ablationProblems(r: Json): string[] {
  const ablation = (r.ablation ?? {}) as Record<string, PairedComparison[]>;
  const out: string[] = [];
  for (const [k, rows] of Object.entries(ablation)) {
    const [a, b] = k.split(' vs ');
    const text = shownSentences(r).find((t) => t.includes(`**${a} − ${b}**`));
    if (!text) { out.push(`no ablation sentence for ${k}`); continue; }
    const block = text.slice(text.indexOf(`**${a} − ${b}**`)).split(/\n\n\*\*/)[0];
    for (const row of rows) {
      const d = row.meanDiff;
      const m = new RegExp(String.raw`- \*\*${escapeRegExp(String(row.metric))}\*\* (\S+) \[[^\]]+\]: (.+?) is (ahead|behind)`).exec(block);
      if (!m) continue; // a tie is worded otherwise
      if (m[1] !== signed(d)) out.push(`ablation ${k} ${row.metric}: says ${m[1]}, the table has ${signed(d)}`);
      const leader = m[3] === 'ahead' ? m[2] : m[2] === a ? b : a;
      const truth = d > 0 ? a : b;
      if (d !== 0 && leader !== truth) out.push(`ablation ${k} ${row.metric}: says ${m[2]} is ${m[3]}, the difference is ${signed(d)}`);
    }
  }
  return out;
}

/** The α knob: the MAP at the chosen, analytic and grid α, and the peak of the test curve. */
function tryItProblems(r: Json): string[] {
  const t = r.tryIt as { rows?: Row[]; curve?: { alpha: number; MAP: number }[] } | null | undefined;
  if (!t?.rows || !t.curve?.length) return [];
  const { text, problems } = findShown(r, TRY_IT, 'with the α knob');
  if (!text) return problems;
  const out: string[] = [];
  const grid = t.rows.find((x) => String(x['α from']).startsWith('grid'))!;
  if (!text.includes(`(${f3(Number(grid['α']))}) gives MAP ${f3(Number(grid.MAP))}`)) out.push('the α knob misstates the grid α or its MAP');
  const peak = t.curve.reduce((b, p) => (p.MAP > b.MAP ? p : b), t.curve[0]);
  if (!text.includes(`peaks at α = ${f3(peak.alpha)} (${f3(peak.MAP)})`)) out.push(`the α knob misstates the peak of the test curve (α ${f3(peak.alpha)}, MAP ${f3(peak.MAP)})`);
  const mine = t.rows.find((x) => String(x['α from']).startsWith('your'))!;
  if (!text.includes(`MAP ${f3(Number(mine.MAP))}`) && !text.includes(`MAP is ${f3(Number(mine.MAP))}`)) out.push('the α knob misstates the MAP at the chosen α');
  return out;
}

/** The query-style verdicts: who beats whom overall (sign of Δ nDCG@10 of the 'all' row) and whether its CI excludes 0. */
function styleProblems(r: Json): string[] {
  const styles = (r.styles as Json | null) ?? {};
  return [
    ...styleVerdictProblems(r, (styles.ranking ?? []) as Row[], 'Default ranking', 'BM25'),
    ...styleVerdictProblems(r, (styles.rankingVsBm25Stop ?? []) as Row[], 'Default ranking', 'BM25-stop'),
  ];
}

/** The sentence on every row against BM25-stop: the rows it names above and below, from results.json's `vsBm25Stop` MAP comparisons (`significantSide`: CI and p Holm). */
function vsBm25StopProblems(r: Json): string[] {
  const vs = r.vsBm25Stop as { comparisons?: PairedComparison[]; reference?: string } | null | undefined;
  const { text } = findShown(r, VS_REFERENCE, '');
  if (!vs?.comparisons) return text ? ['a sentence on the strong short baseline, but no vsBm25Stop comparisons in results.json'] : [];
  if (!text) return ['no sentence under the table of every row against BM25-stop'];
  const map = vs.comparisons.filter((c) => c.metric === 'MAP');
  const list = (xs: PairedComparison[]) => (xs.length ? xs.map((c) => `**${String(c.systemA)}**`).join(', ') : 'none');
  const above = list(map.filter((c) => significantSide(c) > 0));
  const below = list(map.filter((c) => significantSide(c) < 0));
  const out: string[] = [];
  const said = /significantly above it: (.+?); significantly below it: (.+?); not distinguishable from it \([^)]*\): (\d+) row/.exec(text);
  if (!said) return [`the sentence on BM25-stop is not in its usual form: "${text}"`];
  if (said[1] !== above) out.push(`the sentence names ${said[1]} above BM25-stop; the Holm-adjusted MAP comparisons say ${above}`);
  if (said[2] !== below) out.push(`the sentence names ${said[2]} below BM25-stop; the Holm-adjusted MAP comparisons say ${below}`);
  const rest = map.filter((c) => !isSignificant(c)).length;
  if (Number(said[3]) !== rest) out.push(`the sentence counts ${said[3]} rows not distinguishable from BM25-stop; the MAP comparisons have ${rest}`);
  return out;
}

/** The discussion: the best row it names and the rows it calls not significantly different (`isSignificant`: CI and p Holm). */
function discussionProblems(r: Json): string[] {
  const { text, problems } = findShown(r, DISCUSSION, 'with the discussion');
  if (!text) return problems;
  const out: string[] = [];
  const best = (r.best as { label?: string } | undefined)?.label;
  const named = /the best row by π is \*\*(.+?)\*\*/.exec(text)?.[1];
  if (named !== bestByPi(r) || named !== best) out.push(`the discussion names ${named} as the best row; the highest π is ${bestByPi(r)}`);
  const close = comparisonsOf(r, 'comparisonsVsBest').filter((c) => c.metric === 'MAP' && !isSignificant(c)).map((c) => String(c.systemA));
  const said = /not significantly different \([^)]*\) from: (.+?)\.\n/.exec(text)?.[1]?.split('; ') ?? [];
  if (said.join('|') !== close.join('|')) out.push(`the discussion lists [${said.join('; ')}] as not different from the best; by the CI and p Holm [${close.join('; ')}] are`);
  return out;
}

/** The seed table (only when its run's output exists): best by mean MAP, rows below it, the claim on the means. */
function seedProblems(r: Json): string[] {
  const s = r.seedTable2 as { status?: string; means?: MetricRow[]; comparisons?: PairedComparison[]; best?: { label: string } } | null | undefined;
  const text = shownSentences(r).find((t) => SEEDS.test(t));
  if (s?.status !== 'done') return text ? ['a seed-averaged claim is shown without a seed-averaged table'] : [];
  if (!text) return ['the seed-averaged table has no verdict'];
  const means = s.means ?? [];
  const out: string[] = [];
  const top = means.reduce((b, m) => (m.MAP > b.MAP ? m : b), means[0]);
  const named = /\*\*Best row by mean MAP over the \d+ seeds\*\* \([^)]*\): \*\*(.+?)\*\*/.exec(text)?.[1];
  if (named !== top?.system) out.push(`the seed table names ${named} as best by mean MAP; the highest mean MAP is ${top?.system}`);
  // best − row: below the best is a positive difference; significant by the one rule (CI and p Holm)
  const map = (s.comparisons ?? []).filter((c) => c.metric === 'MAP');
  const below = map.filter((c) => c.meanDiff > 0 && isSignificant(c)).length;
  const saidBelow = /(\d+) row\(s\) are significantly below it/.exec(text)?.[1];
  if (Number(saidBelow) !== below) out.push(`the seed table says ${saidBelow} rows are significantly below the best; ${below} are (CI excludes 0 and p Holm < ${SIGNIFICANCE_LEVEL})`);
  const ciBelow = map.filter((c) => c.ciLow > 0).length;
  const saidCi = /the bootstrap CI excludes 0 for (\d+) row\(s\)/.exec(text)?.[1];
  if (Number(saidCi) !== ciBelow) out.push(`the seed table says ${saidCi} CIs exclude 0 below the best; ${ciBelow} do`);
  const pBelow = map.filter((c) => c.pValue < SIGNIFICANCE_LEVEL).length;
  const saidP = /randomization test gives p < [\d.]+ for (\d+) row\(s\)/.exec(text)?.[1];
  if (Number(saidP) !== pBelow) out.push(`the seed table says ${saidP} rows have randomization p < ${SIGNIFICANCE_LEVEL}; ${pBelow} do`);
  const claim = checkRatioClaim(PAPER_TABLE2_CLAIM, means).holds;
  const says = /the claim \*\*holds\*\* on the seed means/.test(text) ? true : /the claim does \*\*not\*\* hold on the seed means/.test(text) ? false : null;
  if (says !== claim) out.push(`the seed table says the paper's claim ${says ? 'holds' : 'does not hold'} on the means; it ${claim ? 'holds' : 'does not hold'}`);
  return out;
}

/** Another row's label than `label` in Table 2 (for a falsified winner). */
function otherRow(r: Json, label: string | undefined): string | null {
  return rowsOf(r, 'metrics').map((m) => String(m.system)).find((s) => s !== label) ?? null;
}

registerClaimCheck('05', {
  covers: "notebook 05's verdicts (Table 2 vs the paper, α, gains, ablation, α knob, styles, every row vs BM25-stop, discussion, seed table)",
  check: (r) => [...table2Problems(r), ...alphaProblems(r), ...gainsProblems(r), ...ablationProblems(r), ...tryItProblems(r), ...styleProblems(r), ...vsBm25StopProblems(r), ...discussionProblems(r), ...seedProblems(r)],
  falsify: (r) => {
    const best = (r.best as { label?: string } | undefined)?.label;
    const other = otherRow(r, best);
    const copies: (Json | null)[] = [];
    // 1. Table 2's verdict names another row as the best
    if (best && other) copies.push(withShownSentence(r, TABLE2, (t) => t.replace(`(highest π, the mean of R@10, R@20, R@100, MAP and MRR): **${best}**`, `(highest π, the mean of R@10, R@20, R@100, MAP and MRR): **${other}**`)));
    // 2. the table changes under the sentence: BM25's MAP doubled (the contrast with the paper and the per-metric winners no longer follow)
    copies.push({ ...r, metrics: rowsOf(r, 'metrics').map((m) => (m.system === 'BM25' ? { ...m, MAP: Number(m.MAP) * 2 } : m)) });
    // 3. the discussion names another row as the best
    if (best && other) copies.push(withShownSentence(r, DISCUSSION, (t) => t.replace(`the best row by π is **${best}**`, `the best row by π is **${other}**`)));
    // 4. a gain count is off by one
    copies.push(withShownSentence(r, GAINS, (t) => t.replace(/better on (\d+)/, (_, n) => `better on ${Number(n) + 1}`)));
    // 5. the paper's claim said the other way round
    copies.push(withShownSentence(r, TABLE2, (t) => (t.includes('the claim **holds**') ? t.replace('the claim **holds**', 'the claim does **not** hold') : t.replace('the claim does **not** hold', 'the claim **holds**'))));
    // 6. the seed table (when present) names another best row
    const seed = r.seedTable2 as { status?: string; best?: { label: string } } | null | undefined;
    if (seed?.status === 'done' && seed.best) {
      const o = otherRow(r, seed.best.label);
      if (o) copies.push(withShownSentence(r, SEEDS, (t) => t.replace(`): **${seed.best!.label}**`, `): **${o}**`)));
    }
    // 7. the table against BM25-stop changes under its sentence: the first MAP row's Holm p crosses .05 the other way
    const vs = r.vsBm25Stop as { comparisons?: PairedComparison[] } | null | undefined;
    const first = vs?.comparisons?.findIndex((c) => c.metric === 'MAP' && c.meanDiff !== 0 && ciExcludesZero(c)) ?? -1;
    if (vs?.comparisons && first >= 0) {
      const flip = (c: PairedComparison) => ({ ...c, pHolm: isSignificant(c) ? 0.9 : 0.001 });
      copies.push({ ...r, vsBm25Stop: { ...vs, comparisons: vs.comparisons.map((c, i) => (i === first ? flip(c) : c)) } });
    }
    return copies.filter((c): c is Json => c !== null);
  },
});

