/**
 * The judge's columns of a results table (P@5/10/20 per system, or "not configured") and the judge-vs-citation
 * comparison the paper discusses: which system each metric family picks, and how often the two families agree
 * on the best system per query.
 */
import type { DatasetRecord } from '../data/types';
import { mean } from '../metrics/metrics';
import type { MetricName, PerQueryMetrics, Run } from '../metrics/types';
import { judgeFailureNote, judgeRun } from './judge';
import type { JudgeRunQuery, JudgeRunResult, LlmJudge } from './types';

export interface JudgeColumnsOptions {
  /** Systems in table order, each with its run. */
  systems: readonly { system: string; run: Run }[];
  queries: readonly JudgeRunQuery[];
  datasets: ReadonlyMap<string, DatasetRecord> | ((id: string) => DatasetRecord | undefined);
  /** The judge, or null when none is configured or recorded (rows then say why). */
  judge: LlmJudge | null;
  /** Why there is no judge (shown in the rows). Default 'not configured'. */
  notConfigured?: string;
  /** Default [5, 10, 20]. */
  ks?: readonly number[];
  concurrency?: number;
  onProgress?: (system: string, done: number, total: number) => void;
}

export interface JudgeColumns {
  /** One row per system: `P@5`… numbers and `judge calls` (`judgeFailureNote`), or `judge: 'not configured: …'`. */
  rows: ({ system: string; judge: string } & Record<string, number | string>)[];
  /** Per-system judge results (empty without a judge). */
  results: Map<string, JudgeRunResult>;
}

/**
 * Judge P@K columns for every system (one judgement per distinct (query, dataset) pair across systems, thanks to
 * the judge's cache). Without a judge every row carries `judge: 'not configured…'` and no numbers.
 */
export async function judgeColumns(opts: JudgeColumnsOptions): Promise<JudgeColumns> {
  const results = new Map<string, JudgeRunResult>();
  if (!opts.judge) return { rows: opts.systems.map((s) => ({ system: s.system, judge: opts.notConfigured ?? 'not configured' })), results };
  const rows: JudgeColumns['rows'] = [];
  for (const s of opts.systems) {
    const r = await judgeRun({ run: s.run, queries: opts.queries, datasets: opts.datasets, judge: opts.judge, ks: opts.ks, concurrency: opts.concurrency, onProgress: (d, t) => opts.onProgress?.(s.system, d, t) });
    results.set(s.system, r);
    // refusals and unreadable answers count as NO: every row says how many
    rows.push({ system: s.system, judge: r.judgeId, ...r.macro, 'judge calls': judgeFailureNote(r) });
  }
  return { rows, results };
}

export interface JudgeVsCitationSystem {
  system: string;
  /** Citation-grounded per-query metrics (evaluateRun). */
  citation: PerQueryMetrics;
  /** Judge results over the same queries (judgeRun). */
  judge: JudgeRunResult;
}

export interface JudgeVsCitation {
  /** The system each metric picks (highest macro value; ties list every system). */
  picks: { family: 'citation' | 'judge'; metric: string; systems: string[]; value: number }[];
  /** Queries scored by both families. */
  queries: number;
  /** Share of queries where the best systems by `citationMetric` and by `judgeMetric` overlap (ties count as agreement when they share a system). */
  agreement: number;
  /** Kendall's tau-b between the two system orderings (macro citationMetric vs macro judgeMetric); NaN with fewer than 2 systems. */
  kendallTau: number;
  perQuery: { queryId: string; citationBest: string[]; judgeBest: string[]; agree: boolean }[];
  citationMetric: MetricName;
  judgeMetric: string;
}

function argmaxAll(values: readonly { key: string; v: number }[]): string[] {
  const best = Math.max(...values.map((x) => x.v));
  return values.filter((x) => x.v === best).map((x) => x.key);
}

/** Kendall's tau-b of two score lists over the same items. */
export function kendallTauB(a: readonly number[], b: readonly number[]): number {
  let c = 0;
  let d = 0;
  let ta = 0;
  let tb = 0;
  for (let i = 0; i < a.length; i++)
    for (let j = i + 1; j < a.length; j++) {
      const x = Math.sign(a[i] - a[j]);
      const y = Math.sign(b[i] - b[j]);
      if (x === 0 && y === 0) continue;
      if (x === 0) ta++;
      else if (y === 0) tb++;
      else if (x === y) c++;
      else d++;
    }
  const denom = Math.sqrt((c + d + ta) * (c + d + tb));
  return denom === 0 ? NaN : (c - d) / denom;
}

/**
 * Compare the citation metrics and the judge (see the module comment). Per-query agreement uses the queries that
 * both families scored for every system (citation: queries with positives; judge: every judged query).
 */
export function judgeVsCitation(systems: readonly JudgeVsCitationSystem[], opts: { citationMetric?: MetricName; judgeMetric?: string } = {}): JudgeVsCitation {
  const cm = opts.citationMetric ?? 'MAP';
  const jm = opts.judgeMetric ?? 'P@10';
  const picks: JudgeVsCitation['picks'] = [];
  const citationMetrics = Object.keys(systems[0]?.citation.values ?? {}) as MetricName[];
  for (const m of citationMetrics) {
    const vals = systems.map((s) => ({ key: s.system, v: mean(s.citation.values[m]) }));
    picks.push({ family: 'citation', metric: m, systems: argmaxAll(vals), value: Math.max(...vals.map((x) => x.v)) });
  }
  for (const m of systems[0]?.judge.ks.map((k) => `P@${k}`) ?? []) {
    const vals = systems.map((s) => ({ key: s.system, v: s.judge.macro[m] }));
    picks.push({ family: 'judge', metric: m, systems: argmaxAll(vals), value: Math.max(...vals.map((x) => x.v)) });
  }
  const citeBy = systems.map((s) => new Map(s.citation.queryIds.map((q, i) => [q, s.citation.values[cm][i]])));
  const judgeBy = systems.map((s) => new Map(s.judge.perQuery.map((r) => [r.queryId, r.values[jm]])));
  const common = (systems[0]?.citation.queryIds ?? []).filter((q) => citeBy.every((m) => m.has(q)) && judgeBy.every((m) => m.get(q) !== undefined));
  const perQuery = common.map((q) => {
    const citationBest = argmaxAll(systems.map((s, i) => ({ key: s.system, v: citeBy[i].get(q)! })));
    const judgeBest = argmaxAll(systems.map((s, i) => ({ key: s.system, v: judgeBy[i].get(q)! })));
    return { queryId: q, citationBest, judgeBest, agree: citationBest.some((x) => judgeBest.includes(x)) };
  });
  return {
    picks,
    queries: perQuery.length,
    agreement: perQuery.length === 0 ? NaN : perQuery.filter((p) => p.agree).length / perQuery.length,
    kendallTau: systems.length < 2 ? NaN : kendallTauB(systems.map((s) => mean(s.citation.values[cm])), systems.map((s) => s.judge.macro[jm])),
    perQuery,
    citationMetric: cm,
    judgeMetric: jm,
  };
}
