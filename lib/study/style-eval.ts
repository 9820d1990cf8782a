/**
 * Systems compared per query style (the real-style benchmark, `lib/bench/styles/`): each system's run on the same
 * queries, graded metrics per style and overall, and each system's paired difference from a reference system
 * (bootstrap 95% CI and randomization p), so "the default ranking beats BM25 on every style" can be read off a table.
 */
import type { Qrels, Run } from '../metrics/types';
import { evaluateGraded, gradedMeans, gradedPaired, GRADED_METRIC_NAMES, type GradedMetricName, type GradedPerQuery } from '../metrics/graded';
import type { PairedOptions } from '../metrics/paired';
import type { Corpus } from '../data/types';
import type { CorpusScorer } from '../retrieve/scorers';
import { fuseBatch, retrieveBatch, searchBatch } from '../search/retrieve-batch';
import type { SearchEngine } from '../search/types';

/** One system: an engine, whether it ranks with the user's query rules and repairs queries (`searchBatch`'s options). */
export interface StyleSystem {
  label: string;
  engine: SearchEngine;
  rules: boolean;
  /** Repair each query as `search` does (spelling, abbreviations). Default: as `rules`. */
  repair?: boolean;
}

/** A query with its style. */
export interface StyledQuery {
  id: string;
  text: string;
  style: string;
}

/** Runs of every system on the queries (depth 100). `now`: the day open periods are read against. */
export async function styleRuns(systems: readonly StyleSystem[], queries: readonly StyledQuery[], now = new Date()): Promise<Map<string, Run>> {
  const out = new Map<string, Run>();
  for (const s of systems) out.set(s.label, (await searchBatch(s.engine, queries, { rules: s.rules, repair: s.repair ?? s.rules, now })).run);
  return out;
}

/** One row: a system on one style (or `all`), its means, and its paired difference from the reference. */
export interface StyleRow {
  system: string;
  style: string;
  n: number;
  metrics: Record<GradedMetricName, number>;
  /** A − reference per metric: mean difference, 95% CI, p (absent on the reference's own rows). */
  vsReference?: Record<GradedMetricName, { diff: number; low: number; high: number; p: number }>;
}

/** Per-style (and `all`) rows of every system, each compared with `reference` (a system label). */
export function styleRows(runs: ReadonlyMap<string, Run>, queries: readonly StyledQuery[], qrels: Qrels, reference: string, opts: PairedOptions = {}): StyleRow[] {
  return styleRowsAgainst(runs, queries, qrels, [reference], opts).map(({ vs, ...r }) => (vs[reference] ? { ...r, vsReference: vs[reference] } : r));
}

/** A style row with its paired difference from each of several references (`vs[label]`; absent for the row's own system). */
export type StyleRowVs = Omit<StyleRow, 'vsReference'> & { vs: Record<string, NonNullable<StyleRow['vsReference']>> };

/**
 * Per-style (and `all`) rows of every system, each compared with every reference present in `runs` (e.g. BM25 and
 * BM25-stop): every run is evaluated once, whatever the number of references.
 */
export function styleRowsAgainst(runs: ReadonlyMap<string, Run>, queries: readonly StyledQuery[], qrels: Qrels, references: readonly string[], opts: PairedOptions = {}): StyleRowVs[] {
  const per = new Map<string, GradedPerQuery>();
  for (const [label, run] of runs) per.set(label, evaluateGraded(run, qrels));
  const styles = [...new Set(queries.map((q) => q.style))];
  const groups: [string, Set<string>][] = [...styles.map((s) => [s, new Set(queries.filter((q) => q.style === s).map((q) => q.id))] as [string, Set<string>]), ['all', new Set(queries.map((q) => q.id))]];
  const rows: StyleRowVs[] = [];
  for (const [label, pq] of per) {
    for (const [style, keep] of groups) {
      const m = gradedMeans(pq, keep);
      const vs: StyleRowVs['vs'] = {};
      for (const reference of references) {
        const ref = per.get(reference);
        if (!ref || label === reference) continue;
        vs[reference] = Object.fromEntries(GRADED_METRIC_NAMES.map((k) => {
          const c = gradedPaired(pq, ref, k, keep, opts);
          return [k, { diff: c.meanDiff, low: c.ciLow, high: c.ciHigh, p: c.pValue }];
        })) as NonNullable<StyleRow['vsReference']>;
      }
      rows.push({ system: label, style, n: m.n, metrics: Object.fromEntries(GRADED_METRIC_NAMES.map((k) => [k, m[k]])) as Record<GradedMetricName, number>, vs });
    }
  }
  return rows;
}

/** A fused system of two scorers at a fixed α (a Table 2 hybrid), for `scorerStyleRuns`. */
export interface StyleHybrid {
  label: string;
  semantic: string;
  lexical: string;
  alpha: number;
}

/** One scorer's scores of the style queries (`retrieveBatch`'s), under its display label. */
export interface ScoredStyleQueries {
  label: string;
  run: Run;
  scores: Float32Array[];
}

/**
 * Runs of plain scorers and their convex hybrids on the style queries (the paper's path: one α per hybrid, no query
 * rules): Table 2's systems on the questions users type. `scored`: each scorer's scores of `queries` (scorer id →).
 */
export function hybridStyleRuns(corpus: Corpus, scored: Readonly<Record<string, ScoredStyleQueries>>, hybrids: readonly StyleHybrid[], queries: readonly StyledQuery[]): Map<string, Run> {
  const out = new Map<string, Run>();
  for (const s of Object.values(scored)) out.set(s.label, s.run);
  for (const h of hybrids) {
    if (!scored[h.semantic] || !scored[h.lexical]) continue;
    out.set(h.label, fuseBatch({ method: 'convex', alpha: h.alpha }, queries, scored[h.semantic].scores, scored[h.lexical].scores, corpus).run);
  }
  return out;
}

/** Score the style queries with one scorer (for `hybridStyleRuns`). */
export async function scoreStyleQueries(scorer: CorpusScorer, queries: readonly StyledQuery[], corpus: Corpus): Promise<ScoredStyleQueries> {
  const r = await retrieveBatch(scorer, queries, corpus);
  return { label: scorer.label, run: r.run, scores: r.scores };
}
