// The claim check of notebook 07: the N sentence, the cost plans and the offline rerankers' verdict (shared with 06),
// the tool-routing gain and the leakage guard's effect (CI, p, and whether the two tests disagree), the routing
// threshold line of the Try-it cell, and Table 6's verdict.
import { SIGNIFICANCE_LEVEL } from '../../metrics/significance';
import { f3, signed } from '../../report/numbers';
import { comparisonsIn, registerClaimCheck, shownSentences, withShownSentence, type Json, type NotebookClaimCheck } from '../claims';
import {
  clauseProblems, resultsCopy, costPlanProblems, falsifyCostPlans, falsifyQueriesSentence, falsifyRerankVerdict, gainsBySystem,
  pairedClauses, queriesSentenceProblems, rerankVerdictProblems,
} from '../06-llm-rerank/claims';

type Row = Record<string, unknown>;
const isRow = (x: unknown): x is Row => typeof x === 'object' && x !== null && !Array.isArray(x);
const rowsOf = (x: unknown): Row[] => (Array.isArray(x) ? x.filter(isRow) : []);
const num = (x: unknown): number => (typeof x === 'number' ? x : NaN);
const routingOf = (r: Json): Row => (isRow(r.offlineRouting) ? r.offlineRouting : {});

const GAIN_LINES = [
  { key: 'routedVsOffline', find: /^- \*\*Tool routing\*\* .*$/m },
  { key: 'guardEffect', find: /^- \*\*Leakage guard\*\* .*$/m },
] as const;

/** The routing-gain and guard-effect lines against their paired rows: Δ, CI, excludes/includes 0, p, and "the two tests disagree" exactly where they do. */
export function routingGainProblems(results: Json): string[] {
  const out: string[] = [];
  for (const { key, find } of GAIN_LINES) {
    const line = shownSentences(results).map((t) => find.exec(t)?.[0]).find((x) => x);
    if (!line) { out.push(`no shown sentence on ${key}`); continue; }
    const comparisons = comparisonsIn(routingOf(results)[key]);
    for (const metric of ['MAP', 'MRR']) {
      const c = pairedClauses(line).find((x) => x.metric === metric);
      const g = comparisons.find((r) => r.metric === metric);
      if (!c || !g) { out.push(`${key}: no Δ${metric} ${c ? 'row in results.json' : 'clause in the sentence'}`); continue; }
      out.push(...clauseProblems(key, c, g));
    }
  }
  return out;
}

export function falsifyRoutingGain(results: Json): Json[] {
  const out: Json[] = [];
  // the table's p moved to the other side of .05: the sentence's p, and whether the two tests disagree, no longer follow
  const changed = resultsCopy(results);
  const row = comparisonsIn(routingOf(changed).routedVsOffline).find((r) => r.metric === 'MAP');
  if (row) { row.pValue = row.pValue < SIGNIFICANCE_LEVEL ? 0.5 : 0.01; out.push(changed); }
  const flipped = withShownSentence(results, GAIN_LINES[0].find, (s) => s.replace(/ΔMAP ([+−])/, (_m, sign) => `ΔMAP ${sign === '+' ? '−' : '+'}`));
  if (flipped) out.push(flipped);
  return out;
}

const THRESHOLD = /^- Threshold τ = (\S+)( \(the trained one\))?: tool-call rate \*\*(\d+\.\d)%\*\*, MAP (\d+\.\d{3}) \(([+−]\d+\.\d{3}) vs never calling tools, ([+−]\d+\.\d{3}) vs always\), MRR (\d+\.\d{3})\.$/m;
const BEST = /^- Over the sweep, the best MAP is (\d+\.\d{3}) at a tool-call rate of (\d+\.\d)%\.$/m;

/** The Try-it line on the shown threshold and the best MAP of the sweep, against results.offlineRouting.sweep. */
export function routingThresholdProblems(results: Json): string[] {
  const text = shownSentences(results).find((t) => THRESHOLD.test(t));
  if (!text) return ['no shown sentence on the routing threshold'];
  const [, tau, trainedMark, rate, map, vsNever, vsAlways, mrr] = THRESHOLD.exec(text)!;
  const rt = routingOf(results);
  const sweep = rowsOf(rt.sweep);
  const value = (r: Row) => (typeof r.threshold === 'number' ? r.threshold : r.threshold === 'Infinity' ? Infinity : -Infinity);
  const shown = (t: number) => (Number.isFinite(t) ? t.toFixed(3) : t > 0 ? '+∞' : '−∞');
  const trained = num(rt.marginThreshold);
  const candidates = sweep.filter((r) => shown(value(r)) === tau);
  const at = candidates.find((r) => (value(r) === trained) === !!trainedMark) ?? candidates[0];
  const never = sweep.find((r) => value(r) === -Infinity);
  const always = sweep.find((r) => value(r) === Infinity);
  if (!at || !never || !always) return [`the sweep has no row for τ = ${tau} (or for never / always)`];
  const out: string[] = [];
  if (!!trainedMark !== (value(at) === trained)) out.push(`τ = ${tau} is ${value(at) === trained ? '' : 'not '}the trained threshold (${f3(trained)}) but the sentence says otherwise`);
  const pct = (x: unknown) => (num(x) * 100).toFixed(1);
  if (rate !== pct(at['tool-call rate'])) out.push(`says a tool-call rate of ${rate}% at τ = ${tau}, the sweep has ${pct(at['tool-call rate'])}%`);
  if (map !== f3(num(at.MAP)) || mrr !== f3(num(at.MRR))) out.push(`says MAP ${map}, MRR ${mrr} at τ = ${tau}; the sweep has ${f3(num(at.MAP))}, ${f3(num(at.MRR))}`);
  if (vsNever !== signed(num(at.MAP) - num(never.MAP)) || vsAlways !== signed(num(at.MAP) - num(always.MAP))) out.push(`says ${vsNever} vs never and ${vsAlways} vs always; the sweep gives ${signed(num(at.MAP) - num(never.MAP))} and ${signed(num(at.MAP) - num(always.MAP))}`);
  const best = BEST.exec(text);
  const max = Math.max(...sweep.map((r) => num(r.MAP)));
  if (!best) out.push('no sentence on the best MAP of the sweep');
  else if (best[1] !== f3(max) || !sweep.some((r) => num(r.MAP) === max && pct(r['tool-call rate']) === best[2])) out.push(`says the best MAP is ${best[1]} at ${best[2]}%; the sweep's best is ${f3(max)}`);
  return out;
}

export function falsifyRoutingThreshold(results: Json): Json[] {
  const changed = resultsCopy(results);
  const rt = routingOf(changed);
  const row = rowsOf(rt.sweep).find((r) => r.threshold === rt.marginThreshold);
  if (!row) return [];
  row['tool-call rate'] = num(row['tool-call rate']) < 0.5 ? 0.9 : 0.1;
  row.MAP = num(row.MAP) + 0.2;
  return [changed];
}

const MODEL_LINE = /^- \*\*(.+?)\*\*(?: \(stand-in[^)]*\))?: MRR single-shot (\d+\.\d{3}) vs agentic (\d+\.\d{3}) → (agentic|single-shot|neither \(tie\)) wins?;/gm;

/** Table 6's verdict: "no LLM rows" exactly when results.table6 is "not configured"; otherwise per model its MRRs and winner. */
export function table6Problems(results: Json): string[] {
  const texts = shownSentences(results);
  const none = texts.some((t) => t.startsWith('_Table 6 has no LLM rows here'));
  if (!Array.isArray(results.table6)) return none ? [] : ['Table 6 is "not configured" but no sentence says it has no LLM rows'];
  if (none) return ['says Table 6 has no LLM rows, but results.json has some'];
  const lines = texts.flatMap((t) => [...t.matchAll(MODEL_LINE)]);
  const out: string[] = [];
  for (const r of rowsOf(results.table6)) {
    const l = lines.find((x) => x[1] === r.model);
    if (!l) { out.push(`no Table 6 sentence for ${String(r.model)}`); continue; }
    const s = num(r['MRR single']);
    const a = num(r['MRR agentic']);
    const winner = a > s ? 'agentic' : a < s ? 'single-shot' : 'neither (tie)';
    if (l[2] !== f3(s) || l[3] !== f3(a)) out.push(`${String(r.model)}: says MRR ${l[2]} vs ${l[3]}, Table 6 has ${f3(s)} vs ${f3(a)}`);
    if (l[4] !== winner) out.push(`${String(r.model)}: says ${l[4]} wins, Table 6 says ${winner}`);
  }
  return out;
}

export function falsifyTable6(results: Json): Json[] {
  // LLM rows where the sentence says there are none, or none where it names them
  return [{ ...results, table6: Array.isArray(results.table6) ? 'not configured' : [{ model: 'x', 'MRR single': 0.5, 'MRR agentic': 0.6 }] }];
}

const gains07 = (r: Json) => gainsBySystem(routingOf(r).gainsOverBackbone);
const rowsOfMetrics = (r: Json) => rowsOf(r.metrics);

export const agenticClaimCheck: NotebookClaimCheck = {
  covers: '07 verdicts (N, cost plans, offline rerankers vs backbone with CI, p and Holm, tool-routing gain and guard effect, routing threshold, Table 6)',
  check: (r) => [
    ...queriesSentenceProblems(r),
    ...costPlanProblems(r),
    ...rerankVerdictProblems(r, rowsOfMetrics(r), gains07(r)),
    ...routingGainProblems(r),
    ...routingThresholdProblems(r),
    ...table6Problems(r),
  ],
  falsify: (r) => [
    ...falsifyQueriesSentence(r),
    ...falsifyCostPlans(r),
    ...falsifyRerankVerdict(r, rowsOfMetrics),
    ...falsifyRoutingGain(r),
    ...falsifyRoutingThreshold(r),
    ...falsifyTable6(r),
  ],
};

registerClaimCheck('07', agenticClaimCheck);
