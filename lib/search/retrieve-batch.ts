import type { Corpus } from '../data/types';
import type { EmbedProgress } from '../encode/types';
import { fuseScoreVectors, type FusionSpec } from '../fuse/scorer';
import { setRunScoreParts } from '../metrics/run-parts';
import type { Run } from '../metrics/types';
import { runFromScores, type CorpusScorer, type ScoredRun } from '../retrieve/scorers';
import { parseQuery } from '../router/parse';
import { applyQueryRules, queryIdentifiers } from './rules';
import { queryFusionSpec } from './adaptive-fusion';
import { repairQuery, type RepairVocabulary } from './repair';
import { loadRepairVocabulary } from './repair-vocabulary';
import { retrievalTextOf } from '../router/parse';
import { batchRunParts, type QueryScoreSources } from './run-parts';
import type { SearchEngine } from './types';

export interface BatchQuery {
  id: string;
  text: string;
}

/**
 * Retrieve step for many queries with one scorer: every query goes through `retrievalTextOf` (the one rule),
 * then (with `repair`, default none) `repairQuery`; then the scorer scores the whole corpus. Returns the top-`depth` run
 * (default 100) and the full score vectors (aligned with `queries`), kept for fusion.
 */
export async function retrieveBatch(scorer: CorpusScorer, queries: readonly BatchQuery[], corpus: Corpus, opts: { depth?: number; onProgress?: EmbedProgress; repair?: RepairVocabulary | null } = {}): Promise<ScoredRun> {
  const text = (q: BatchQuery) => {
    const t = retrievalTextOf(q.text);
    return opts.repair ? (repairQuery(t, opts.repair)?.repaired ?? t) : t;
  };
  const scores = await scorer.scoreBatch(queries.map(text), opts.onProgress);
  return { run: runFromScores(queries.map((q) => q.id), scores, corpus, opts.depth ?? 100), scores };
}

/** Fuse step for many queries: per query, `fuseScoreVectors(spec, semantic[i], lexical[i])`; the run and the fused vectors. */
export function fuseBatch(spec: FusionSpec, queries: readonly BatchQuery[], semantic: readonly Float32Array[], lexical: readonly Float32Array[], corpus: Corpus, depth = 100): ScoredRun {
  const scores = queries.map((_, i) => fuseScoreVectors(spec, semantic[i], lexical[i]));
  const ids = queries.map((q) => q.id);
  const run = runFromScores(ids, scores, corpus, depth);
  // each top result's parts travel with the run (its run file gets a parts sidecar for the run explorer)
  setRunScoreParts(run, () => batchRunParts(run, ids, corpus, (i) => ({ spec, semantic: semantic[i], lexical: lexical[i] })));
  return { run, scores };
}

/** What `searchBatch` returns: the final run and score vectors, plus each scorer's own vectors (for features, plots). */
export interface BatchResult extends ScoredRun {
  lexical: Float32Array[] | null;
  semantic: Float32Array[] | null;
  /** With `rules`: each query's fusion, scorer vectors and rule results (aligned with the queries; features of a reranker). */
  sources?: QueryScoreSources[];
  /** With `rules`: the text each query's scorers read (the retrieval text, repaired with `repair`). */
  texts?: string[];
}

export interface SearchBatchOptions {
  /** Run depth. Default 100. */
  depth?: number;
  onProgress?: EmbedProgress;
  /**
   * Rank as `search` does for a user: adaptive α per query when the engine has it, then the query rules (period /
   * place and named identifiers, `rules.ts`) on each fused vector. Default false: the paper's path (one α, no
   * rules), which every published title-benchmark table uses.
   */
  rules?: boolean;
  /** With `rules`: the day open periods ("since 2015") are read against. Default: the current date. */
  now?: Date;
  /** Repair each query (spelling, abbreviations: `repair.ts`) as `search` does. Default false. */
  repair?: boolean;
}

/**
 * The search path for a batch of queries (evaluation runs, rerank backbones): retrieve with each of the engine's
 * scorers, fuse as the engine says. No routing (benchmark queries ask for datasets) and no zero-score filtering:
 * runs keep their full depth, as trec_eval expects. With `rules`, each query is ranked as `search` ranks it; `repair`
 * (default false, so published runs stay as they are) repairs each query as `search` does.
 */
export async function searchBatch(engine: SearchEngine, queries: readonly BatchQuery[], opts: SearchBatchOptions = {}): Promise<BatchResult> {
  const depth = opts.depth ?? 100;
  const repair = opts.repair ? loadRepairVocabulary(engine.corpus) : null;
  const lex = engine.lexical ? await retrieveBatch(engine.lexical, queries, engine.corpus, { depth, repair, onProgress: engine.semantic ? undefined : opts.onProgress }) : null;
  const sem = engine.semantic ? await retrieveBatch(engine.semantic, queries, engine.corpus, { depth, repair, onProgress: opts.onProgress }) : null;
  if (opts.rules) {
    const now = opts.now ?? new Date();
    const sources: QueryScoreSources[] = [];
    const texts: string[] = [];
    const scores = queries.map((q, i) => {
      const stripped = retrievalTextOf(q.text);
      const text = repair ? (repairQuery(stripped, repair)?.repaired ?? stripped) : stripped;
      texts.push(text);
      const named = queryIdentifiers(engine, text);
      const spec = lex && sem ? queryFusionSpec(engine, text, named, lex.scores[i], sem.scores[i], q.text) : null;
      const fused = spec ? fuseScoreVectors(spec, sem!.scores[i], lex!.scores[i]) : (lex ?? sem)!.scores[i];
      const ruled = applyQueryRules(engine, parseQuery(q.text, { now, variables: engine.variables }), fused, text, {}, named);
      sources.push({ spec, semantic: sem?.scores[i] ?? null, lexical: lex?.scores[i] ?? null, ruled });
      return ruled.scores;
    });
    const ids = queries.map((q) => q.id);
    const run = runFromScores(ids, scores, engine.corpus, depth);
    setRunScoreParts(run, () => batchRunParts(run, ids, engine.corpus, (i) => sources[i]));
    return { run, scores, lexical: lex?.scores ?? null, semantic: sem?.scores ?? null, sources, texts };
  }
  if (lex && sem) {
    const fused = fuseBatch(engine.fusion.spec!, queries, sem.scores, lex.scores, engine.corpus, depth);
    return { ...fused, lexical: lex.scores, semantic: sem.scores };
  }
  const only = (lex ?? sem)!;
  return { run: only.run, scores: only.scores, lexical: lex?.scores ?? null, semantic: sem?.scores ?? null };
}

/** Run of a batch result at another depth (no rescoring). */
export function batchRun(result: Pick<BatchResult, 'scores'>, queries: readonly BatchQuery[], corpus: Corpus, depth = 100): Run {
  return runFromScores(queries.map((q) => q.id), result.scores, corpus, depth);
}
