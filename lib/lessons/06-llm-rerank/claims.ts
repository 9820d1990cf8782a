// The claim check of notebook 06, and the parts notebook 07 shares (the N sentence, the rerank verdicts, the cost
// plans): each re-derives from the tables of results.json what a generated sentence claims and reports where the
// sentence says otherwise; `falsify` makes one claim false at a time (see lib/lessons/claims.ts).
import { holmAdjust } from '../../metrics/multiple';
import { ciExcludesZero, isSignificant, significanceState } from '../../metrics/significance';
import type { PairedComparison } from '../../metrics/types';
import { NOT_AFTER_HOLM } from '../../report/paired-text';
import { f3, finiteOrNull, pText, signed, signedBound } from '../../report/numbers';
import { NASA_EO_BENCH } from '../../report/paper';
import { paperRowFor } from '../../report/rerank';
import { comparisonsIn, escapeRegExp, parseShownNumber, registerClaimCheck, shownSentences, withShownSentence, type Json, type NotebookClaimCheck } from '../claims';
import { costPlanTotals, thousands } from './text';

type Row = Record<string, unknown>;
const isRow = (x: unknown): x is Row => typeof x === 'object' && x !== null && !Array.isArray(x);
const rowsOf = (x: unknown): Row[] => (Array.isArray(x) ? x.filter(isRow) : []);
const num = (x: unknown): number => (typeof x === 'number' ? x : NaN);
/** A deep copy of results, to change one table value in. */
export const resultsCopy = (results: Json): Json => JSON.parse(JSON.stringify(results)) as Json;
const D3 = String.raw`\d+\.\d{3}`;
const S3 = String.raw`[+−-]\d+\.\d{3}`;
/** A CI bound as `signedBound` writes it: three decimals, or more where a bound near 0 needs them (`+0.0004`). */
const BOUND = String.raw`[+−-]\d+\.\d{3,8}`;

// ---- the N sentence ----

const N_SENTENCE = /\*\*N = (\d+)\*\* queries \((the same size as|fewer than|more than) the paper's stratified N = (\d+)\)/;

/** The "N = <test subset size>" sentence: this run's N (results.queries), the paper's N = 200, and the relation between them. */
export function queriesSentenceProblems(results: Json): string[] {
  const s = shownSentences(results).find((t) => N_SENTENCE.test(t));
  if (!s) return ['no shown sentence gives the test subset size N against the paper\'s'];
  const [, n, relation, paperN] = N_SENTENCE.exec(s)!;
  const out: string[] = [];
  if (Number(n) !== results.queries) out.push(`says N = ${n} but results.queries is ${String(results.queries)}`);
  if (Number(paperN) !== NASA_EO_BENCH.rerankSubset) out.push(`says the paper's N = ${paperN}, the paper's is ${NASA_EO_BENCH.rerankSubset}`);
  const q = Number(results.queries);
  const want = q === NASA_EO_BENCH.rerankSubset ? 'the same size as' : q < NASA_EO_BENCH.rerankSubset ? 'fewer than' : 'more than';
  if (relation !== want) out.push(`says N = ${q} is "${relation}" the paper's N = ${NASA_EO_BENCH.rerankSubset}; it is "${want}"`);
  return out;
}

export function falsifyQueriesSentence(results: Json): Json[] {
  return [
    withShownSentence(results, N_SENTENCE, (s) => s.replace(/\*\*N = (\d+)\*\*/, (_m, n) => `**N = ${Number(n) + 1}**`)),
    withShownSentence(results, N_SENTENCE, (s) => s.replace(/\((the same size as|fewer than|more than) the paper's/, (_m, r) => `(${r === 'fewer than' ? 'more than' : 'fewer than'} the paper's`)),
  ].filter((x): x is Json => x !== null);
}

// ---- the paired clauses `ΔMAP +0.015 (95% CI [−0.125, +0.169], includes 0; p = 1.000, Holm 1.000)` ----

const CLAUSE = new RegExp(String.raw`Δ(MAP|MRR) (${S3}) \(95% CI \[(${BOUND}), (${BOUND})\], (\*\*)?(excludes|includes) 0(?:\*\*)?(?:; p = ([0-9.e+-]+)(?:, Holm ([0-9.e+-]+))?)?\)(?: — \*\*(the two tests disagree|${NOT_AFTER_HOLM}))?`, 'g');

interface Clause { metric: string; diff: string; lo: string; hi: string; says: string; saysSignificant: boolean; p?: string; holm?: string; saysDisagree: boolean; saysNotAfterHolm: boolean }

export function pairedClauses(text: string): Clause[] {
  return [...text.matchAll(CLAUSE)].map((m) => ({
    metric: m[1], diff: m[2], lo: m[3], hi: m[4], saysSignificant: !!m[5], says: m[6], p: m[7], holm: m[8],
    saysDisagree: m[9] === 'the two tests disagree', saysNotAfterHolm: m[9] === NOT_AFTER_HOLM,
  }));
}

/** The problems of one shown clause against its typed comparison (results.json) and, where shown, its Holm p. */
export function clauseProblems(where: string, c: Clause, g: PairedComparison, holm?: number): string[] {
  const out: string[] = [];
  const diff = g.meanDiff;
  const lo = g.ciLow;
  const hi = g.ciHigh;
  const p = finiteOrNull(g.pValue);
  if (c.diff.replace('-', '−') !== signed(diff)) out.push(`${where}: says Δ${c.metric} ${c.diff}, the table has ${signed(diff)}`);
  const tableCi = `[${signedBound(lo)}, ${signedBound(hi)}]`;
  if (`[${c.lo}, ${c.hi}]`.replace(/-/g, '−') !== tableCi) out.push(`${where}: says the Δ${c.metric} CI is [${c.lo}, ${c.hi}], the table has ${tableCi}`);
  const excludes = ciExcludesZero({ ciLow: lo, ciHigh: hi });
  if ((c.says === 'excludes') !== excludes) out.push(`${where}: says the Δ${c.metric} CI ${c.says} 0; the table's ${tableCi} ${excludes ? 'excludes' : 'includes'} it`);
  if (p !== null && c.p !== pText(p)) out.push(`${where}: says p = ${c.p ?? '(none)'} for Δ${c.metric}, the table has ${pText(p)}`);
  if (holm !== undefined && c.holm !== undefined && c.holm !== pText(holm)) out.push(`${where}: says Holm ${c.holm} for Δ${c.metric}; Holm over the rows it lists gives ${pText(holm)}`);
  const numbers = { ciLow: lo, ciHigh: hi, pValue: p, pHolm: holm ?? null };
  const state = significanceState(numbers);
  const disagree = state === 'tests disagree';
  if (disagree !== c.saysDisagree) out.push(`${where}: the bootstrap CI and the randomization p of Δ${c.metric} ${disagree ? 'disagree' : 'agree'} but the sentence ${c.saysDisagree ? 'says they disagree' : 'does not say so'}`);
  const notAfter = state === 'not after correction';
  if (notAfter !== c.saysNotAfterHolm) out.push(`${where}: Δ${c.metric} is ${notAfter ? '' : 'not '}significant raw but not after Holm, and the sentence ${c.saysNotAfterHolm ? 'says it is' : 'does not say so'}`);
  if (c.saysSignificant !== isSignificant(numbers)) out.push(`${where}: Δ${c.metric} is ${c.saysSignificant ? 'called significant (bold "excludes 0")' : 'not called significant'}; by the CI and ${holm === undefined ? 'p' : 'the Holm p'} it is ${isSignificant(numbers) ? '' : 'not '}significant`);
  return out;
}

// ---- the rerank verdicts (`rerankVerdict`): per backbone, the best row, each reranker's gain, R@10, the paper's row ----

const HEAD = new RegExp(String.raw`^\*\*(.+?)\*\* \((\d+) queries\): the best row by (MAP|MRR) is \*\*(.+?)\*\* with (${D3})(?:, (${S3}) ahead of (.+) \((${D3})\))?\.$`);
const LINE = new RegExp(String.raw`^- (.+?)(?: \(stand-in answers: [^)]*\))?: (MAP|MRR) (${D3}) vs (${D3}); (.*)$`);
const OURS = new RegExp(String.raw`^- The paper's (.+?): MAP (${D3}), MRR (${D3}); ours: MAP (${D3}), MRR (${D3})\.$`);

interface Block { text: string; backbone: string; n: number; metric: 'MAP' | 'MRR'; best: string; bestValue: string; lead?: string; second?: string; secondValue?: string; lines: { label: string; a: string; b: string; rest: string }[]; ours: RegExpExecArray | null }

/** The rerank-verdict blocks of the shown text (one per backbone and table). */
export function rerankBlocks(results: Json): Block[] {
  const blocks: Block[] = [];
  for (const text of shownSentences(results)) {
    let cur: Block | null = null;
    for (const line of text.split('\n')) {
      const h = HEAD.exec(line);
      if (h) {
        cur = { text, backbone: h[1], n: Number(h[2]), metric: h[3] as 'MAP' | 'MRR', best: h[4], bestValue: h[5], lead: h[6], second: h[7], secondValue: h[8], lines: [], ours: null };
        blocks.push(cur);
        continue;
      }
      if (!cur) continue;
      const o = OURS.exec(line);
      if (o) { cur.ours = o; continue; }
      const l = LINE.exec(line);
      if (l) cur.lines.push({ label: l[1], a: l[3], b: l[4], rest: l[5] });
      else if (line.startsWith('- ')) cur.lines.push({ label: line, a: '', b: '', rest: '' }); // unparsed: reported below
    }
  }
  return blocks;
}

/**
 * Problems of every rerank verdict against the metric rows (`systems`: results.metrics and any other rows the
 * notebook shows, e.g. its Try-it rows) and the gain rows (`gains`: system label → its paired rows vs its backbone).
 * Holm is re-derived over the rows each block lists (the family the table adjusted when the sentence was written).
 */
export function rerankVerdictProblems(results: Json, systems: readonly Row[], gains: ReadonlyMap<string, PairedComparison[]>): string[] {
  const out: string[] = [];
  const blocks = rerankBlocks(results);
  if (blocks.length === 0) return ['no rerank verdict (best row per backbone) among the shown sentences'];
  const rowOf = (label: string) => systems.find((r) => r.system === label);
  for (const b of blocks) {
    const where = `verdict on ${b.backbone}`;
    if (b.n !== results.queries) out.push(`${where}: says ${b.n} queries, results.queries is ${String(results.queries)}`);
    const base = rowOf(b.backbone);
    if (!base) { out.push(`${where}: no metrics row for the backbone ${b.backbone}`); continue; }
    const m = b.metric;
    const rows: { label: string; row: Row; line: Block['lines'][number] | null }[] = [{ label: b.backbone, row: base, line: null }];
    for (const l of b.lines) {
      if (!l.a) { out.push(`${where}: a line the check cannot read: "${l.label.slice(0, 120)}"`); continue; }
      const label = `${b.backbone} + ${l.label}`;
      const row = rowOf(label) ?? rowOf(l.label);
      if (!row) { out.push(`${where}: no metrics row for ${label}`); continue; }
      rows.push({ label: String(row.system), row, line: l });
    }
    // the best row and its lead
    const values = rows.map((r) => num(r.row[m]));
    const max = Math.max(...values);
    const named = rows.find((r) => r.label === b.best || r.label === `${b.backbone} + ${b.best}`);
    if (!named) out.push(`${where}: names ${b.best} the best row, which is not one of its rows`);
    else if (num(named.row[m]) !== max) out.push(`${where}: names ${b.best} the best by ${m} (${f3(num(named.row[m]))}); the best is ${rows[values.indexOf(max)].label} (${f3(max)})`);
    if (b.bestValue !== f3(max)) out.push(`${where}: says the best ${m} is ${b.bestValue}, the table has ${f3(max)}`);
    if (named && rows.length > 1) {
      const others = rows.filter((r) => r !== named);
      const second = Math.max(...others.map((r) => num(r.row[m])));
      if (b.lead !== undefined && b.lead.replace('-', '−') !== signed(max - second)) out.push(`${where}: says the best leads by ${b.lead}, the table gives ${signed(max - second)}`);
      if (b.secondValue !== undefined && b.secondValue !== f3(second)) out.push(`${where}: says the runner-up has ${b.secondValue}, the table has ${f3(second)}`);
    }
    // each reranker's line: its value vs the backbone's, the paired gains, R@10
    const listed = rows.filter((r) => r.line !== null);
    const gainRows = listed.map((r) => gains.get(r.label) ?? null);
    const holmOf = (metric: string): number[] | undefined => {
      const ps = gainRows.map((g) => finiteOrNull(g?.find((x) => x.metric === metric)?.pValue));
      return ps.every((p): p is number => p !== null) && ps.length > 0 ? holmAdjust(ps) : undefined;
    };
    const holm = { MAP: holmOf('MAP'), MRR: holmOf('MRR') };
    listed.forEach((r, i) => {
      const l = r.line!;
      const at = `${where}, ${l.label}`;
      if (l.a !== f3(num(r.row[m])) || l.b !== f3(num(base[m]))) out.push(`${at}: says ${m} ${l.a} vs ${l.b}, the table has ${f3(num(r.row[m]))} vs ${f3(num(base[m]))}`);
      const clauses = pairedClauses(l.rest);
      for (const metric of ['MAP', 'MRR'] as const) {
        const c = clauses.find((x) => x.metric === metric);
        const g = gainRows[i]?.find((x) => x.metric === metric);
        if (!c) { if (!l.rest.includes(`Δ${metric}: n/a`)) out.push(`${at}: no Δ${metric} clause`); continue; }
        if (g) out.push(...clauseProblems(at, c, g, holm[metric]?.[i]));
        // without a gain row (e.g. the Try-it row): the difference of the two means
        else if (Math.abs(parseShownNumber(c.diff) - (num(r.row[metric]) - num(base[metric]))) > 0.0011) out.push(`${at}: says Δ${metric} ${c.diff}; the rows differ by ${signed(num(r.row[metric]) - num(base[metric]))}`);
      }
      const same = num(r.row['R@10']) === num(base['R@10']);
      const r10 = /R@10 unchanged/.test(l.rest) ? 'unchanged' : (new RegExp(String.raw`R@10 (${D3}) → (${D3})`).exec(l.rest) ?? null);
      if (r10 === null) out.push(`${at}: says nothing of R@10`);
      else if (r10 === 'unchanged' ? !same : same || r10[1] !== f3(num(base['R@10'])) || r10[2] !== f3(num(r.row['R@10']))) out.push(`${at}: its R@10 claim does not follow from ${f3(num(base['R@10']))} → ${f3(num(r.row['R@10']))}`);
    });
    if (b.ours) {
      const p = paperRowFor(b.backbone, null);
      if (!p) out.push(`${where}: quotes the paper's ${b.ours[1]}, which the paper's tables do not hold for ${b.backbone}`);
      else if (b.ours[2] !== f3(p.MAP) || b.ours[3] !== f3(p.MRR)) out.push(`${where}: quotes the paper's MAP/MRR ${b.ours[2]}/${b.ours[3]}, the paper has ${f3(p.MAP)}/${f3(p.MRR)}`);
      if (b.ours[4] !== f3(num(base.MAP)) || b.ours[5] !== f3(num(base.MRR))) out.push(`${where}: says ours are ${b.ours[4]}/${b.ours[5]}, the table has ${f3(num(base.MAP))}/${f3(num(base.MRR))}`);
    }
  }
  return out;
}

/** Falsified verdicts: the named winner swapped for another row of its block, and the winner's table value lowered. */
export function falsifyRerankVerdict(results: Json, systemsKey: (r: Json) => Row[]): Json[] {
  const b = rerankBlocks(results).find((x) => x.lines.length > 0);
  if (!b) return [];
  const out: Json[] = [];
  const other = b.best === b.backbone ? `${b.backbone} + ${b.lines[0].label}` : b.backbone;
  const swapped = withShownSentence(results, new RegExp(`^\\*\\*${escapeRegExp(b.backbone)}\\*\\*`, 'm'), (s) => s.replace(`is **${b.best}** with`, `is **${other}** with`));
  if (swapped) out.push(swapped);
  const lowered = resultsCopy(results);
  const winner = systemsKey(lowered).find((r) => r.system === b.best || r.system === `${b.backbone} + ${b.best}`);
  if (winner) { winner[b.metric] = num(winner[b.metric]) - 0.5; out.push(lowered); }
  return out;
}


/** `label → gain comparisons` (typed, as results.json records them) from a results list of `{ system, gain }`. */
export function gainsBySystem(list: unknown): Map<string, PairedComparison[]> {
  return new Map(rowsOf(list).map((g) => [String(g.system), comparisonsIn(g.gain)]));
}

// ---- the cost plans (`costPlanVerdict`): calls, recorded calls, tokens and dollars per plan ----

const COST = new RegExp(String.raw`^- \*\*(.+?)\*\*: ([\d,]+) LLM calls \((?:([\d,]+) already recorded|recorded calls unknown)\), about ([\d,]+) input and ([\d,]+) output tokens, \$(\d+\.\d{2}) at standard prices \(\$(\d+\.\d{2}) with the batch APIs where a model has one\)\.$`, 'gm');

export function costPlanProblems(results: Json): string[] {
  const plans = rowsOf(results.costPlans);
  const lines = shownSentences(results).flatMap((t) => [...t.matchAll(COST)]);
  const out: string[] = [];
  for (const p of plans) {
    const l = lines.find((x) => x[1] === p.title);
    if (!l) { out.push(`no cost sentence for the plan "${String(p.title)}"`); continue; }
    const t = costPlanTotals(rowsOf(p.rows) as never);
    const say = (what: string, shown: string | undefined, want: string) => { if (shown !== want) out.push(`cost plan "${String(p.title)}": says ${shown ?? '(unknown)'} ${what}, the table sums to ${want}`); };
    say('calls', l[2], thousands(t.calls));
    if (t.recorded === null ? l[3] !== undefined : l[3] !== thousands(t.recorded)) out.push(`cost plan "${String(p.title)}": says ${l[3] ?? 'unknown'} recorded calls, the table has ${t.recorded ?? 'unknown'}`);
    say('input tokens', l[4], thousands(t.inputTokens));
    say('output tokens', l[5], thousands(t.outputTokens));
    say('standard dollars', l[6], t.standardUsd.toFixed(2));
    say('batch dollars', l[7], t.batchUsd.toFixed(2));
  }
  if (plans.length === 0) out.push('results.json has no cost plans to check the cost sentences against');
  return out;
}

export function falsifyCostPlans(results: Json): Json[] {
  const changed = resultsCopy(results);
  const first = rowsOf(rowsOf(changed.costPlans)[0]?.rows)[0];
  const out: Json[] = [];
  if (first) { first.calls = num(first.calls) + 7; out.push(changed); }
  const s = withShownSentence(results, new RegExp(COST.source, 'm'), (t) => t.replace(/(\d) output tokens/, (_m, d) => `${(Number(d) + 1) % 10} output tokens`));
  if (s) out.push(s);
  return out;
}

// ---- notebook 06 only: position bias, the cost per query, the bold footnotes, the judge ----

const BIAS = new RegExp(String.raw`^- \*\*(.+?)\*\*: Kendall's τ between the orderings of (\d+) shuffles (\S+ ± \S+) \(min (${D3})\): (.+?); MAP (\S+ ± \S+) and MRR (\S+ ± \S+) over the shuffles; self-consistency \(the shuffles combined\) MAP (${D3}), MRR (${D3}), for ([\d,]+) LLM calls and ([\d,]+) tokens over all shuffles\.$`, 'gm');

export function positionBiasProblems(results: Json): string[] {
  const rows = rowsOf(results.positionBias);
  const lines = shownSentences(results).flatMap((t) => [...t.matchAll(BIAS)]);
  const out: string[] = [];
  if (rows.length === 0) out.push('results.json has no position-bias rows');
  for (const r of rows) {
    const l = lines.find((x) => x[1] === r.reranker);
    const at = `position bias of ${String(r.reranker)}`;
    if (!l) { out.push(`${at}: no shown sentence`); continue; }
    if (Number(l[2]) !== r.shuffles) out.push(`${at}: says ${l[2]} shuffles, the table has ${String(r.shuffles)}`);
    if (l[3] !== r['Kendall τ (mean ± sd)']) out.push(`${at}: says τ ${l[3]}, the table has ${String(r['Kendall τ (mean ± sd)'])}`);
    const min = num(r['τ min']);
    if (l[4] !== f3(min)) out.push(`${at}: says τ min ${l[4]}, the table has ${f3(min)}`);
    const saysBiased = /position-biased/.test(l[5]);
    const saysNone = /no position bias/.test(l[5]);
    if (saysBiased === saysNone || saysBiased !== min < 1) out.push(`${at}: says "${l[5]}" with τ min ${f3(min)} (biased means some pair of shuffles ordered the window differently, τ < 1)`);
    if (l[6] !== r['MAP (mean ± sd)'] || l[7] !== r['MRR (mean ± sd)']) out.push(`${at}: says MAP ${l[6]}, MRR ${l[7]}; the table has ${String(r['MAP (mean ± sd)'])}, ${String(r['MRR (mean ± sd)'])}`);
    // the table keeps 4 decimals of the self-consistency row; the sentence 3 of the unrounded value
    if (Math.abs(Number(l[8]) - num(r['self-consistency MAP'])) > 6e-4 || Math.abs(Number(l[9]) - num(r['self-consistency MRR'])) > 6e-4) out.push(`${at}: says self-consistency MAP/MRR ${l[8]}/${l[9]}, the table has ${String(r['self-consistency MAP'])}/${String(r['self-consistency MRR'])}`);
    if (l[10] !== thousands(num(r['calls (all shuffles)']))) out.push(`${at}: says ${l[10]} LLM calls, the table has ${String(r['calls (all shuffles)'])}`);
    if (l[11] !== thousands(num(r['tokens (all shuffles)']))) out.push(`${at}: says ${l[11]} tokens, the table has ${String(r['tokens (all shuffles)'])}`);
  }
  return out;
}

export function falsifyPositionBias(results: Json): Json[] {
  const out: Json[] = [];
  const changed = resultsCopy(results);
  const r = rowsOf(changed.positionBias)[0];
  if (r) { r['τ min'] = num(r['τ min']) < 1 ? 1 : 0.5; r['Kendall τ (mean ± sd)'] = '0.900 ± 0.100'; out.push(changed); }
  const s = withShownSentence(results, new RegExp(BIAS.source, 'm'), (t) => t.replace(/for ([\d,]+) LLM calls/, (_m, n) => `for ${thousands(Number(n.replace(/,/g, '')) + 5)} LLM calls`));
  if (s) out.push(s);
  return out;
}

const COST_NONE = /^No reranker here calls an LLM: 0 calls and \$0 per query for all (\d+)\.$/m;
const COST_SOME = /^(\d+) of (\d+) rerankers call an LLM; the most calls per query: (\d+\.\d{2}) \((.+)\); the highest cost per query: \$(\d+\.\d{5}) \((.+)\)\.$/m;

export function rerankCostProblems(results: Json): string[] {
  const rows = rowsOf(results.cost);
  const texts = shownSentences(results);
  const none = texts.map((t) => COST_NONE.exec(t)).find((x) => x);
  const some = texts.map((t) => COST_SOME.exec(t)).find((x) => x);
  const llm = rows.filter((r) => num(r.callsPerQuery) > 0);
  if (!none && !some) return ['no shown sentence on the LLM calls per query'];
  if (none) return llm.length > 0 ? [`says no reranker calls an LLM; ${llm.length} do (${llm.map((r) => String(r.system)).join('; ')})`] : Number(none[1]) !== rows.length ? [`says "all ${none[1]}", the cost table has ${rows.length}`] : [];
  const out: string[] = [];
  const [, k, n, most, mostLabel, dear] = some!;
  if (Number(k) !== llm.length || Number(n) !== rows.length) out.push(`says ${k} of ${n} rerankers call an LLM; the cost table has ${llm.length} of ${rows.length}`);
  const maxCalls = Math.max(...llm.map((r) => num(r.callsPerQuery)));
  if (most !== maxCalls.toFixed(2) || num(rows.find((r) => r.system === mostLabel)?.callsPerQuery) !== maxCalls) out.push(`says the most calls per query are ${most} (${mostLabel}); the table's most is ${maxCalls.toFixed(2)}`);
  if (dear !== Math.max(...llm.map((r) => num(r.costPerQueryUsd))).toFixed(5)) out.push(`says the highest cost per query is $${dear}; the table's is $${Math.max(...llm.map((r) => num(r.costPerQueryUsd))).toFixed(5)}`);
  return out;
}

export function falsifyRerankCost(results: Json): Json[] {
  const changed = resultsCopy(results);
  const rows = rowsOf(changed.cost);
  if (rows.length === 0) return [];
  // a reranker that calls an LLM where the sentence says none does, or none where it names some
  if (rows.some((r) => num(r.callsPerQuery) > 0)) for (const r of rows) r.callsPerQuery = 0;
  else rows[0].callsPerQuery = 2;
  return [changed];
}

const BOLD = /^bold \(text: \*\) = best value of (?:the column|each column) (.+)$/;

/**
 * The bold footnotes of Tables 4 and 5 (results.boldFootnotes): each names exactly the columns the table bolds, the
 * citation metrics R@10, MAP and MRR and the judge's P@K where the judge columns hold numbers.
 */
export function boldFootnoteProblems(results: Json): string[] {
  const notes = Array.isArray(results.boldFootnotes) ? results.boldFootnotes.filter((x): x is string => typeof x === 'string') : [];
  if (notes.length === 0) return ['results.json keeps no bold footnote of Tables 4 and 5 (boldFootnotes)'];
  const judgeRows = rowsOf(isRow(results.judge) ? results.judge.columns : undefined);
  const judged = ['P@5', 'P@10', 'P@20'].filter((k) => judgeRows.some((r) => typeof r[k] === 'number'));
  const want = ['R@10', 'MAP', 'MRR', ...judged];
  const out: string[] = [];
  for (const n of notes) {
    const m = BOLD.exec(n);
    if (!m) { out.push(`a bold footnote the check cannot read: "${n}"`); continue; }
    const named = m[1].split(', ');
    const missing = want.filter((c) => !named.includes(c));
    const extra = named.filter((c) => !want.includes(c));
    if (missing.length > 0 || extra.length > 0) out.push(`"${n}": the table bolds ${want.join(', ')}${missing.length ? `; not named: ${missing.join(', ')}` : ''}${extra.length ? `; named but not bolded: ${extra.join(', ')}` : ''}`);
  }
  return out;
}

export function falsifyBoldFootnotes(results: Json): Json[] {
  const notes = Array.isArray(results.boldFootnotes) ? (results.boldFootnotes as string[]) : [];
  if (notes.length === 0) return [];
  return [
    { ...results, boldFootnotes: [notes[0].replace('R@10, ', ''), ...notes.slice(1)] },
    { ...results, boldFootnotes: [`${notes[0]}, R@100`, ...notes.slice(1)] },
  ];
}

/** The judge sentence: "not configured" exactly when there is no comparison; otherwise the systems each family picks. */
export function judgeSentenceProblems(results: Json): string[] {
  const j = isRow(results.judge) ? results.judge : {};
  const texts = shownSentences(results);
  const none = texts.find((t) => t.startsWith('_Judge columns: '));
  const c = isRow(j.comparison) ? j.comparison : null;
  if (!c) return none ? [] : ['the judge has no comparison but no sentence says why'];
  if (none) return ['says the judge columns are missing, but results.json has a judge comparison'];
  const out: string[] = [];
  for (const p of rowsOf(c.picks)) {
    const fam = p.family === 'citation' ? `${String(p.metric)} \\(citations\\) picks` : `the judge's ${String(p.metric)} picks`;
    const m = texts.map((t) => new RegExp(`${fam} \\*\\*(.+?)\\*\\* \\((${D3}|n/a)\\)`).exec(t)).find((x) => x);
    if (m && (m[1] !== (p.systems as string[]).join(' | ') || m[2] !== f3(num(p.value)))) out.push(`says ${String(p.metric)} picks ${m[1]} (${m[2]}); the comparison picks ${(p.systems as string[]).join(' | ')} (${f3(num(p.value))})`);
  }
  return out;
}

export function falsifyJudgeSentence(results: Json): Json[] {
  const changed = resultsCopy(results);
  const j = isRow(changed.judge) ? changed.judge : null;
  if (!j) return [];
  // a comparison where the sentence says there is none, or none where the sentence names picks
  j.comparison = j.comparison ? null : { picks: [], agreement: 0, kendallTau: 0, queries: 0 };
  return [changed];
}

/** Notebook 06's systems: results.metrics and the Try-it rows. */
const systems06 = (r: Json): Row[] => [...rowsOf(r.metrics), ...rowsOf(isRow(r.tryIt) ? r.tryIt.rows : undefined)];

export const llmRerankClaimCheck: NotebookClaimCheck = {
  covers: '06 verdicts (N, Tables 4/5 winners and gains with CI, p and Holm, position bias, cost plans and cost per query, bold footnotes, judge)',
  check: (r) => [
    ...queriesSentenceProblems(r),
    ...rerankVerdictProblems(r, systems06(r), gainsBySystem(r.gains)),
    ...positionBiasProblems(r),
    ...costPlanProblems(r),
    ...rerankCostProblems(r),
    ...boldFootnoteProblems(r),
    ...judgeSentenceProblems(r),
  ],
  falsify: (r) => [
    ...falsifyQueriesSentence(r),
    ...falsifyRerankVerdict(r, (x) => rowsOf(x.metrics)),
    ...falsifyPositionBias(r),
    ...falsifyCostPlans(r),
    ...falsifyRerankCost(r),
    ...falsifyBoldFootnotes(r),
    ...falsifyJudgeSentence(r),
  ],
};

registerClaimCheck('06', llmRerankClaimCheck);
