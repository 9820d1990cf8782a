/**
 * Columns of the rerank tables that combine stages: the judge's P@K columns beside the citation metrics, the
 * judge-vs-citation comparison, and the paper's numbers beside ours. The notebooks' verdicts and display rows built
 * on them live in lib/lessons/06-llm-rerank.
 */
import type { DatasetRecord } from '../data/types';
import { judgeColumns, judgeFailureNote, judgeVsCitation, type JudgeColumns, type JudgeVsCitation } from '../judge';
import type { JudgeRunQuery, LlmJudge } from '../judge/types';
import { STAND_IN_LABEL } from '../llm/standin';
import type { PerQueryMetrics } from '../metrics/types';
import type { Backbone } from '../rerank/candidate-lists';
import type { RerankOutcome, RerankRowExtra, RerankTable } from '../rerank/evaluate';
import { rerankSystemRuns } from '../rerank/views';
import { paperRerankRow, type PaperRerankRow } from './paper';

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

