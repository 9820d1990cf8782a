/**
 * Views of the rerank notebooks (06, 07) that combine stages: the judge's P@K columns beside the citation metrics,
 * the judge-vs-citation comparison, the paper's numbers beside ours, and the generated text that says what each
 * table shows (computed from the numbers, never typed).
 */
import type { DatasetRecord } from '../data/types';
import { judgeColumns, judgeFailureNote, judgeVsCitation, type JudgeColumns, type JudgeVsCitation } from '../judge';
import type { JudgeRunQuery, LlmJudge } from '../judge/types';
import { STAND_IN_LABEL } from '../llm/standin';
import type { PerQueryMetrics } from '../metrics/types';
import type { Backbone } from '../rerank/candidate-lists';
import type { RerankOutcome, RerankRowExtra, RerankTable } from '../rerank/evaluate';
import { rerankSystemRuns } from '../rerank/views';
import { scatterFigure } from './figures';
import { f3, signed } from './numbers';
import { gainSentence, sampleSuffix } from './lesson';
import type { Figure } from './types';
import { paperRerankRow, type PaperRerankRow } from './paper';
import { winsLossesTies } from '../metrics/paired';

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

/** A horizontal line at y = 0 for gain figures (plotly layout shapes). */
export const ZERO_LINE = { shapes: [{ type: 'line', xref: 'paper', x0: 0, x1: 1, y0: 0, y1: 0, line: { color: '#999' } }] };

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

/** Wins, losses and ties of each outcome against its backbone, per query, on one metric. */
export function winLossRows(outcomes: readonly RerankOutcome[], backbone: { label: string; perQuery: PerQueryMetrics }, metric: 'MAP' | 'MRR' = 'MRR'): Record<string, unknown>[] {
  return outcomes.map((o) => {
    const w = winsLossesTies(o.perQuery.values[metric], backbone.perQuery.values[metric]);
    return { reranker: o.label.startsWith(`${backbone.label} + `) ? o.label.slice(backbone.label.length + 3) : o.label, [`better (${metric})`]: w.wins, worse: w.losses, same: w.ties };
  });
}

/** Columns whose best value a rerank table marks: R@10, MAP and MRR (the footnote promises every column), and the judge's P@K when it ran. */
export function rerankBestColumns(j: RerankJudge | null): string[] {
  return ['R@10', 'MAP', 'MRR', ...(j && j.byLabel.size > 0 ? (j.comparison?.picks.filter((p) => p.family === 'judge').map((p) => p.metric) ?? ['P@5', 'P@10', 'P@20']) : [])];
}
