// Notebooks 06 and 07 (LLM rerank, Tables 4–6): the sentences they show, generated from the run's own numbers.
import { judgeFailureNote } from '../../judge';
import type { CostPlanRow } from '../../llm/plan';
import { STAND_IN_LABEL } from '../../llm/standin';
import type { RerankOutcome, RerankTable } from '../../rerank/evaluate';
import { gainSentence, sampleSuffix } from '../../report/lesson';
import { f3, signed } from '../../report/numbers';
import { NASA_EO_BENCH } from '../../report/paper';
import { paperRowFor, type RerankJudge } from '../../report/rerank';
import type { PositionBias } from '../../study/position-bias';
import type { NamedCostPlan } from './views';

/** What the notebook's test queries are: their real count, and how it relates to the paper's stratified subset. */
export function rerankQueriesSentence(n: number, paperN: number = NASA_EO_BENCH.rerankSubset): string {
  const relation = n === paperN ? 'the same size as' : n < paperN ? 'fewer than' : 'more than';
  return `The rerank tables below score this run's test subset, **N = ${n}** queries (${relation} the paper's stratified N = ${paperN}).`;
}

/** The footer note of a table whose "paper" columns hold the paper's numbers: they are the paper's, on its own N. */
export function paperColumnsNote(table: string, paperN: number = NASA_EO_BENCH.rerankSubset): string {
  return `paper MAP/MRR: the paper's numbers (arXiv 2607.02387 ${table}, its corpus and its N = ${paperN} queries), not this run's`;
}

export interface VerdictOptions {
  /** The numbers come from the 200-dataset sample (said in the text). Default false. */
  sample?: boolean;
  /** The metric that picks the winning row. Default MAP. */
  metric?: 'MAP' | 'MRR';
}

/**
 * What a rerank table shows, as markdown computed from its numbers: per backbone, which row wins on `metric` and by
 * how much, each reranker's paired gain over its backbone (whether the CI excludes 0), whether R@10 stayed the same
 * (Algorithm 1 with one window of 10 implies it), and the paper's numbers beside ours where the paper reports the row.
 */
export function rerankVerdict(t: RerankTable, opts: VerdictOptions = {}): string {
  const metric = opts.metric ?? 'MAP';
  const out: string[] = [];
  for (const b of t.backbones) {
    const os = t.outcomes.filter((o) => o.backbone === b.id);
    if (os.length === 0) continue;
    const rows = [{ label: b.label, v: b.row[metric] }, ...os.map((o) => ({ label: o.label, v: o.row[metric] }))];
    const best = rows.reduce((a, r) => (r.v > a.v ? r : a), rows[0]);
    const second = rows.filter((r) => r !== best).reduce((a, r) => (r.v > a.v ? r : a), rows.find((r) => r !== best) ?? best);
    out.push(
      `**${b.label}** (${b.perQuery.queryIds.length} queries): the best row by ${metric} is **${best.label}** with ${f3(best.v)}` +
        (second !== best ? `, ${signed(best.v - second.v)} ahead of ${second.label} (${f3(second.v)}).` : '.'),
    );
    const bp = paperRowFor(b.label, null);
    for (const o of os) {
      const g = (m: string) => o.gain.find((r) => r.metric === m);
      const p = paperRowFor(b.label, o);
      const r10 = o.row['R@10'] === b.row['R@10'] ? 'R@10 unchanged' : `R@10 ${f3(b.row['R@10'])} → ${f3(o.row['R@10'])}`;
      const paper = p && bp ? ` Paper: ${bp.name} ${f3(bp.MAP)}/${f3(bp.MRR)} → ${p.name} ${f3(p.MAP)}/${f3(p.MRR)} (MAP/MRR, Δ ${signed(p.MAP - bp.MAP)}/${signed(p.MRR - bp.MRR)}).` : '';
      const stand = o.label.includes(STAND_IN_LABEL) ? ' (stand-in answers: this row tests the plumbing, its numbers are no model\'s)' : '';
      out.push(`- ${o.label.slice(b.label.length + 3) || o.label}${stand}: ${metric} ${f3(o.row[metric])} vs ${f3(b.row[metric])}; ${gainSentence('MAP', g('MAP'))}; ${gainSentence('MRR', g('MRR'))}; ${r10}.${paper}`);
    }
    if (bp) out.push(`- The paper's ${bp.name}: MAP ${f3(bp.MAP)}, MRR ${f3(bp.MRR)}; ours: MAP ${f3(b.row.MAP)}, MRR ${f3(b.row.MRR)}.`);
  }
  if (out.length === 0) return `_No reranker rows to compare._${sampleSuffix(opts.sample)}`;
  return out.join('\n') + sampleSuffix(opts.sample);
}

/** What the judge-vs-citation comparison shows, computed (or why there is none). */
export function judgeVerdict(j: RerankJudge, opts: VerdictOptions = {}): string {
  if (!j.comparison) return `_Judge columns: ${j.notConfigured ?? 'fewer than two systems'}. Record or configure a judge (EO_JUDGE_MODEL) to fill P@5/10/20._`;
  const c = j.comparison;
  const pick = (family: string, metric: string) => c.picks.find((p) => p.family === family && p.metric === metric);
  const cm = pick('citation', c.citationMetric);
  const jm = pick('judge', c.judgeMetric);
  const same = cm && jm && cm.systems.some((s) => jm.systems.includes(s));
  return [
    j.standIn ? `_Judge answers from the **${STAND_IN_LABEL}**: these P@K columns test the plumbing._\n` : '',
    `- ${c.citationMetric} (citations) picks **${cm?.systems.join(' | ')}** (${cm ? f3(cm.value) : 'n/a'}); the judge's ${c.judgeMetric} picks **${jm?.systems.join(' | ')}** (${jm ? f3(jm.value) : 'n/a'}): the two families ${same ? 'agree on the best system' : '**disagree** on the best system'}.`,
    `- Per query, the best systems by ${c.citationMetric} and by ${c.judgeMetric} overlap on ${(c.agreement * 100).toFixed(1)}% of ${c.queries} queries; Kendall's τ-b between the two system orderings: ${Number.isNaN(c.kendallTau) ? 'n/a' : c.kendallTau.toFixed(2)}.`,
    `- Why they can differ: the judge says YES to any dataset that measures the variable the query asks for; a citation label marks only the datasets the source publication used.`,
    judgeFailureLine(j),
  ].filter((x) => x !== '').join('\n') + sampleSuffix(opts.sample);
}

/** The verdict's line on refused or unreadable judge answers (scored NO, which lowers P@K); empty when there are none. */
function judgeFailureLine(j: RerankJudge): string {
  const failing = [...j.columns.results].filter(([, r]) => r.failures.length > 0);
  if (failing.length === 0) return '';
  const [system, r] = failing[0];
  return `- Judge answers refused or unreadable, scored NO: ${failing.length} of ${j.columns.results.size} systems have some (column "judge calls"; ${system}: ${judgeFailureNote(r)}).`;
}


/** A count with thousands separators (`6,800`). */
export const thousands = (n: number): string => Math.round(n).toLocaleString('en-US');

/** The totals of one cost plan: calls, recorded calls (null when unknown), tokens and dollars, as the table's total row sums them. */
export function costPlanTotals(rows: readonly Pick<CostPlanRow, 'calls' | 'recorded' | 'inputTokens' | 'outputTokens' | 'standardUsd' | 'batchUsd'>[]) {
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((a, r) => a + f(r), 0);
  return {
    calls: sum((r) => r.calls), recorded: rows.every((r) => r.recorded === null) ? null : sum((r) => r.recorded ?? 0),
    inputTokens: sum((r) => r.inputTokens), outputTokens: sum((r) => r.outputTokens), standardUsd: sum((r) => r.standardUsd), batchUsd: sum((r) => r.batchUsd ?? r.standardUsd),
  };
}

/** What each cost plan would take, in one line per plan: calls (and how many are recorded), tokens, dollars. */
export function costPlanVerdict(plans: readonly Pick<NamedCostPlan, 'title' | 'rows'>[]): string {
  return plans.map((p) => {
    const t = costPlanTotals(p.rows);
    const recorded = t.recorded === null ? 'recorded calls unknown' : `${thousands(t.recorded)} already recorded`;
    return `- **${p.title}**: ${thousands(t.calls)} LLM calls (${recorded}), about ${thousands(t.inputTokens)} input and ${thousands(t.outputTokens)} output tokens, $${t.standardUsd.toFixed(2)} at standard prices ($${t.batchUsd.toFixed(2)} with the batch APIs where a model has one).`;
  }).join('\n');
}

/** `mean ± sd` with three decimals, as the position-bias table prints it. */
export const meanSdText = (s: { mean: number; sd: number }): string => `${s.mean.toFixed(3)} ± ${s.sd.toFixed(3)}`;

/**
 * What the shuffles show per reranker: Kendall's τ between the orderings of every pair of shuffles (τ = 1 in every
 * pair: the order of presentation does not move the ranking), the spread of MAP and MRR over the shuffles, and the
 * self-consistency row with its calls and tokens.
 */
export function positionBiasVerdict(results: readonly PositionBias[]): string {
  if (results.length === 0) return '_No reranker was shuffled._';
  return results.map((r) => {
    const biased = r.tau.min < 1;
    return `- **${r.reranker}**: Kendall's τ between the orderings of ${r.shuffles} shuffles ${meanSdText(r.tau)} (min ${r.tau.min.toFixed(3)}): ` +
      (biased ? '**position-biased**: the order of presentation moves its ranking' : 'the same order in every shuffle, **no position bias**') +
      `; MAP ${meanSdText(r.map)} and MRR ${meanSdText(r.mrr)} over the shuffles; self-consistency (the shuffles combined) MAP ${f3(r.aggregated.row.MAP)}, MRR ${f3(r.aggregated.row.MRR)}, for ${thousands(r.cost.calls)} LLM calls and ${thousands(r.cost.inputTokens + r.cost.outputTokens)} tokens over all shuffles.`;
  }).join('\n');
}

/** What the rerankers cost per query: which call an LLM, the most calls and dollars per query. */
export function rerankCostVerdict(outcomes: readonly Pick<RerankOutcome, 'label' | 'summary'>[]): string {
  const llm = outcomes.filter((o) => o.summary.callsPerQuery > 0);
  if (llm.length === 0) return `No reranker here calls an LLM: 0 calls and $0 per query for all ${outcomes.length}.`;
  const most = llm.reduce((a, o) => (o.summary.callsPerQuery > a.summary.callsPerQuery ? o : a), llm[0]);
  const dearest = llm.reduce((a, o) => (o.summary.costPerQueryUsd > a.summary.costPerQueryUsd ? o : a), llm[0]);
  return `${llm.length} of ${outcomes.length} rerankers call an LLM; the most calls per query: ${most.summary.callsPerQuery.toFixed(2)} (${most.label}); the highest cost per query: $${dearest.summary.costPerQueryUsd.toFixed(5)} (${dearest.label}).`;
}
