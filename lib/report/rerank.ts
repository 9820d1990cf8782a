/**
 * Views of the rerank notebooks (06, 07) that combine stages: the judge's P@K columns beside the citation metrics,
 * the judge-vs-citation comparison, the paper's numbers beside ours, and the generated text that says what each
 * table shows (computed from the numbers, never typed).
 */
import type { DatasetRecord } from '../data/types';
import { judgeColumns, judgeFailureNote, judgeVsCitation, type JudgeColumns, type JudgeVsCitation } from '../judge';
import type { JudgeRunQuery, LlmJudge } from '../judge/types';
import { STAND_IN_LABEL } from '../llm/standin';
import { pairedRows } from '../metrics/systems';
import type { PerQueryMetrics } from '../metrics/types';
import type { AgenticPair } from '../agent/report';
import type { Backbone } from '../rerank/candidate-lists';
import type { RerankOutcome, RerankRowExtra, RerankTable } from '../rerank/evaluate';
import { rerankSystemRuns } from '../rerank/views';
import { barFigure, scatterFigure } from './figures';
import { f3, signed } from './numbers';
import { gainSentence, sampleSuffix } from './lesson';
import type { Figure } from './types';
import { PAPER_AGENTIC_COST_RATIO, PAPER_RERANK_ROWS, paperRerankRow, type PaperRerankRow } from './paper';
import { winsLossesTies } from '../metrics/paired';
import type { RoutingSweepRow } from '../agent/routed';

/** The model config id and mode of an LLM outcome (`llm-<id>` listwise, `agent-<id>` agentic); null for other rerankers. */
export function llmOutcomeModel(o: Pick<RerankOutcome, 'reranker'>): { model: string; mode: 'listwise' | 'agentic' } | null {
  const m = /^(llm|agent)-(.+)$/.exec(o.reranker);
  return m ? { model: m[2], mode: m[1] === 'agent' ? 'agentic' : 'listwise' } : null;
}

/** The paper's row matching a rerank-table row (backbone label; outcome null = the backbone itself), or null. */
export function paperRowFor(backboneLabel: string, outcome: Pick<RerankOutcome, 'reranker'> | null): PaperRerankRow | null {
  if (!outcome) return paperRerankRow(backboneLabel, null);
  const m = llmOutcomeModel(outcome);
  return m ? paperRerankRow(backboneLabel, m.model, m.mode) : null;
}

/** `rerankTableRows` extra columns: the paper's MAP and MRR for the rows the paper reports (empty otherwise). */
export const paperColumns: RerankRowExtra = ({ backbone, outcome }) => {
  const p = paperRowFor(backbone, outcome);
  return { 'paper MAP': p?.MAP ?? null, 'paper MRR': p?.MRR ?? null };
};

/** Judge columns and the judge-vs-citation comparison over the systems of rerank tables. */
export interface RerankJudge {
  /** The judge's id, or null when none ran. */
  judgeId: string | null;
  /** Why there are no judge numbers (null when there are). */
  notConfigured: string | null;
  columns: JudgeColumns;
  /** Judge P@K by system label (empty without a judge). */
  byLabel: Map<string, Record<string, number>>;
  /** Null without a judge or with fewer than two systems. */
  comparison: JudgeVsCitation | null;
  /** Whether the judge's answers came from the stand-in server. */
  standIn: boolean;
}

export interface RerankJudgeOptions {
  backbones: readonly Backbone[];
  tables: readonly RerankTable[];
  queries: readonly JudgeRunQuery[];
  datasets: ReadonlyMap<string, DatasetRecord> | ((id: string) => DatasetRecord | undefined);
  judge: LlmJudge | null;
  /** Shown in the rows without a judge. Default 'not configured'. */
  notConfigured?: string;
  /** The judge's records came from the stand-in server (its rows are labelled so). Default false. */
  standIn?: boolean;
}

/**
 * Judge every system of the tables (each backbone once, each reranker outcome once; one judgement per distinct
 * (query, dataset) pair thanks to the judge's cache) and compare the judge with the citation metrics (MAP vs P@10).
 */
export async function rerankJudge(opts: RerankJudgeOptions): Promise<RerankJudge> {
  const outcomes: RerankOutcome[] = [];
  for (const t of opts.tables) for (const o of t.outcomes) if (!outcomes.some((p) => p.label === o.label)) outcomes.push(o);
  const citation = new Map<string, PerQueryMetrics>();
  for (const t of opts.tables) for (const b of t.backbones) if (!citation.has(b.label)) citation.set(b.label, b.perQuery);
  for (const o of outcomes) citation.set(o.label, o.perQuery);
  const systems = rerankSystemRuns(opts.backbones, outcomes).filter((s) => citation.has(s.label));
  const notConfigured = opts.notConfigured ?? 'not configured';
  const columns = await judgeColumns({ systems: systems.map((s) => ({ system: s.label, run: s.run })), queries: opts.queries, datasets: opts.datasets, judge: opts.judge, notConfigured });
  const byLabel = new Map<string, Record<string, number>>();
  for (const [label, r] of columns.results) byLabel.set(label, r.macro);
  const comparison =
    opts.judge && systems.length >= 2 ? judgeVsCitation(systems.map((s) => ({ system: s.label, citation: citation.get(s.label)!, judge: columns.results.get(s.label)! }))) : null;
  return { judgeId: opts.judge?.id ?? null, notConfigured: opts.judge ? null : notConfigured, columns, byLabel, comparison, standIn: !!opts.standIn && !!opts.judge };
}

/** `rerankTableRows` extra columns: judge P@5/10/20 of the row's system, or `judge: not configured…`. */
export function judgeColumnsExtra(j: RerankJudge): RerankRowExtra {
  return ({ label }) => {
    const v = j.byLabel.get(label);
    if (!v) return { judge: j.notConfigured ?? 'not judged' };
    const r = j.columns.results.get(label);
    return { ...v, judge: j.standIn ? STAND_IN_LABEL : 'judge', ...(r ? { 'judge calls': judgeFailureNote(r) } : {}) };
  };
}

/** Both extras in one: the paper's numbers, then the judge's columns. */
export function rerankExtras(j: RerankJudge | null): RerankRowExtra {
  return (row) => ({ ...paperColumns(row), ...(j ? judgeColumnsExtra(j)(row) : {}) });
}

/** Which system each metric family picks (one row per metric), for display. */
export function judgePickRows(c: JudgeVsCitation): Record<string, unknown>[] {
  return c.picks.map((p) => ({ family: p.family, metric: p.metric, 'picks': p.systems.join(' | '), value: p.value }));
}

/** Per-query agreement rows (best systems by the citation metric and by the judge metric). */
export function judgeAgreementRows(c: JudgeVsCitation): Record<string, unknown>[] {
  return c.perQuery.map((q) => ({ query: q.queryId, [`best by ${c.citationMetric}`]: q.citationBest.join(' | '), [`best by ${c.judgeMetric}`]: q.judgeBest.join(' | '), agree: q.agree ? 'yes' : 'no' }));
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

/**
 * Agentic vs single-shot per model, computed: Table 6's MAP/MRR of both, the paired ΔMRR with its CI, tool-call
 * rate, and the cost ratio (tokens ratio when the model is free, e.g. a local server), with the paper's numbers
 * beside ours where it reports the model.
 */
export function agenticVerdict(pairs: readonly AgenticPair[], opts: VerdictOptions = {}): string {
  if (pairs.length === 0) return `_Table 6 has no LLM rows here: no model is configured or recorded (see the plan above)._${sampleSuffix(opts.sample)}`;
  const lines = pairs.map(({ model, singleShot: s, agentic: a }) => {
    const g = pairedRows(a.perQuery, s.perQuery, 'agentic', 'single-shot', ['MRR']);
    const cost = s.summary.costPerQueryUsd > 0 ? `cost ratio agentic/single-shot ${(a.summary.costPerQueryUsd / s.summary.costPerQueryUsd).toFixed(1)}×` : `no price (free endpoint); token ratio ${((a.summary.inputTokens + a.summary.outputTokens) / Math.max(1, s.summary.inputTokens + s.summary.outputTokens)).toFixed(1)}×`;
    const pa = paperRerankRow('NN-SSC + BM25', model, 'agentic');
    const ps = paperRerankRow('NN-SSC + BM25', model, 'listwise');
    const paper = pa && ps ? ` Paper: single-shot ${f3(ps.MAP)}/${f3(ps.MRR)} → agentic ${f3(pa.MAP)}/${f3(pa.MRR)} (MAP/MRR), tool-call rate ${(pa.toolCallRate! * 100).toFixed(1)}%, cost ${PAPER_AGENTIC_COST_RATIO.low}–${PAPER_AGENTIC_COST_RATIO.high}×.` : '';
    const stand = a.label.includes(STAND_IN_LABEL) ? ' (stand-in server: plumbing, not a model\'s judgement)' : '';
    const winner = a.row.MRR > s.row.MRR ? 'agentic' : a.row.MRR < s.row.MRR ? 'single-shot' : 'neither (tie)';
    return `- **${model}**${stand}: MRR single-shot ${f3(s.row.MRR)} vs agentic ${f3(a.row.MRR)} → ${winner} wins; ${gainSentence('MRR', g.find((x) => x.metric === 'MRR'))}; tool-call rate ${(a.summary.toolCallRate * 100).toFixed(1)}% (${a.summary.toolCallsPerQuery.toFixed(2)} calls/query); ${cost}.${paper}`;
  });
  return lines.join('\n') + sampleSuffix(opts.sample);
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

const ZERO_LINE = { shapes: [{ type: 'line', xref: 'paper', x0: 0, x1: 1, y0: 0, y1: 0, line: { color: '#999' } }] };

/** Per-query gain (reranked − backbone) of each outcome on one backbone, sorted, one line per reranker; legend below. */
export function rerankGainFigure(outcomes: readonly RerankOutcome[], backbone: { label: string; perQuery: PerQueryMetrics }, metric: 'MAP' | 'MRR' = 'MRR'): Figure {
  const short = (o: RerankOutcome) => (o.label.startsWith(`${backbone.label} + `) ? o.label.slice(backbone.label.length + 3) : o.label);
  return scatterFigure(
    outcomes.map((o) => {
      const gain = o.perQuery.values[metric].map((v, i) => v - backbone.perQuery.values[metric][i]).sort((a, b) => b - a);
      return { x: gain.map((_, i) => i + 1), y: gain, name: short(o), mode: 'lines' as const };
    }),
    { title: `Per-query ${metric === 'MRR' ? 'RR' : 'AP'} gain over ${backbone.label} (sorted)`, xTitle: 'query (sorted by gain)', yTitle: metric === 'MRR' ? 'ΔRR' : 'ΔAP', legend: 'below', layout: ZERO_LINE },
  );
}

/** Per-query gain of agentic over single-shot (sorted), one line per model; legend below. */
export function agenticGainFigure(pairs: readonly AgenticPair[], metric: 'MAP' | 'MRR' = 'MRR'): Figure {
  return scatterFigure(
    pairs.map((p) => {
      const gain = p.agentic.perQuery.values[metric].map((v, i) => v - p.singleShot.perQuery.values[metric][i]).sort((a, b) => b - a);
      return { x: gain.map((_, i) => i + 1), y: gain, name: p.model, mode: 'lines' as const };
    }),
    { title: `Per-query ${metric === 'MRR' ? 'RR' : 'AP'} gain: agentic − single-shot (sorted)`, xTitle: 'query (sorted by gain)', yTitle: metric === 'MRR' ? 'ΔRR' : 'ΔAP', legend: 'below', layout: ZERO_LINE },
  );
}

/** Tool-call rate beside MAP and MRR for each tool-using system (model or routing policy): grouped bars, legend below. */
export function toolUseFigure(systems: readonly { name: string; outcome: RerankOutcome }[]): Figure {
  return barFigure(
    systems.map((s) => s.name),
    { 'tool-call rate': systems.map((s) => s.outcome.summary.toolCallRate), MAP: systems.map((s) => s.outcome.row.MAP), MRR: systems.map((s) => s.outcome.row.MRR) },
    { title: 'Tool-call rate and quality per model / policy', yTitle: 'share / metric', legend: 'below', layout: { yaxis: { range: [0, 1] } } },
  );
}

/** The routing sweep: MAP and MRR against the tool-call rate, one point per threshold; the trained threshold marked. */
export function routingSweepFigure(rows: readonly { threshold: number; 'tool-call rate': number; MAP: number; MRR: number }[], trained?: number): Figure {
  const pts = [...rows].sort((a, b) => a['tool-call rate'] - b['tool-call rate']);
  const series = (m: 'MAP' | 'MRR') => ({ x: pts.map((r) => r['tool-call rate']), y: pts.map((r) => r[m]), name: m, mode: 'lines+markers' as const });
  const mark = trained === undefined ? [] : rows.filter((r) => r.threshold === trained).map((r) => ({ x: [r['tool-call rate']], y: [r.MAP], name: 'trained threshold', mode: 'markers' as const }));
  return scatterFigure([series('MAP'), series('MRR'), ...mark], { title: 'Tool routing: quality vs tool-call rate (one point per margin threshold)', xTitle: 'tool-call rate', yTitle: 'metric', legend: 'below' });
}

/** Wins, losses and ties of each outcome against its backbone, per query, on one metric. */
export function winLossRows(outcomes: readonly RerankOutcome[], backbone: { label: string; perQuery: PerQueryMetrics }, metric: 'MAP' | 'MRR' = 'MRR'): Record<string, unknown>[] {
  return outcomes.map((o) => {
    const w = winsLossesTies(o.perQuery.values[metric], backbone.perQuery.values[metric]);
    return { reranker: o.label.startsWith(`${backbone.label} + `) ? o.label.slice(backbone.label.length + 3) : o.label, [`better (${metric})`]: w.wins, worse: w.losses, same: w.ties };
  });
}

/** Cost per query against the MRR gain over the backbone, one marker per system (offline systems at $0); legend below. */
export function costGainFigure(outcomes: readonly RerankOutcome[], name: (o: RerankOutcome) => string = (o) => o.label): Figure {
  return scatterFigure(
    outcomes.map((o) => ({ x: [o.summary.costPerQueryUsd], y: [o.gain.find((g) => g.metric === 'MRR')?.['mean diff (A−B)'] ?? NaN], name: name(o), mode: 'markers' as const })),
    { title: 'Cost per query vs MRR gain over the backbone', xTitle: '$ per query', yTitle: 'ΔMRR', legend: 'below' },
  );
}

/** Thresholds worth sweeping: every decile of the test margins, the trained threshold, and never/always (−∞/+∞). */
export function routingThresholds(margins: ReadonlyMap<string, number>, trained: number): number[] {
  const m = [...margins.values()].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const q = (p: number) => (m.length === 0 ? 0 : m[Math.min(m.length - 1, Math.floor(p * m.length))]);
  const out = new Set<number>([-Infinity, trained, Infinity]);
  for (let i = 1; i < 10; i++) out.add(q(i / 10));
  return [...out].sort((a, b) => a - b);
}

/** One generated line on a routing threshold: its tool-call rate and MAP/MRR against never and always calling tools. */
export function routingVerdict(rows: readonly RoutingSweepRow[], threshold: number, trained: number): string {
  const at = rows.find((r) => r.threshold === threshold);
  const never = rows.find((r) => r.threshold === -Infinity);
  const always = rows.find((r) => r.threshold === Infinity);
  if (!at || !never || !always) return '_threshold not in the sweep_';
  const best = rows.reduce((a, r) => (r.MAP > a.MAP ? r : a), rows[0]);
  return [
    `- Threshold τ = ${Number.isFinite(threshold) ? threshold.toFixed(3) : threshold > 0 ? '+∞' : '−∞'}${threshold === trained ? ' (the trained one)' : ''}: tool-call rate **${(at['tool-call rate'] * 100).toFixed(1)}%**, MAP ${f3(at.MAP)} (${signed(at.MAP - never.MAP)} vs never calling tools, ${signed(at.MAP - always.MAP)} vs always), MRR ${f3(at.MRR)}.`,
    `- Over the sweep, the best MAP is ${f3(best.MAP)} at a tool-call rate of ${(best['tool-call rate'] * 100).toFixed(1)}%.`,
    `- The paper reports tool-call rates of ${(PAPER_RERANK_ROWS.filter((r) => r.toolCallRate !== undefined).map((r) => `${(r.toolCallRate! * 100).toFixed(1)}% (${r.name})`).join(', '))} for its LLM agents, which decide by themselves.`,
  ].join('\n');
}

/** Columns whose best value a rerank table marks: MAP and MRR, and the judge's P@K when it ran. */
export function rerankBestColumns(j: RerankJudge | null): string[] {
  return ['MAP', 'MRR', ...(j && j.byLabel.size > 0 ? (j.comparison?.picks.filter((p) => p.family === 'judge').map((p) => p.metric) ?? ['P@5', 'P@10', 'P@20']) : [])];
}
