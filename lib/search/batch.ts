import type { Corpus } from '../data/types';
import type { EmbedProgress } from '../encode/types';
import { fuseScoreVectors, type FusionSpec } from '../fuse/scorer';
import type { Run } from '../metrics/types';
import { runFromScores, type CorpusScorer, type ScoredRun } from '../retrieve/scorers';
import { loadRepairVocabulary, repairQuery, type RepairVocabulary } from './repair';
import { retrievalQueryText } from './text';
import type { SearchEngine } from './types';

export interface BatchQuery {
  id: string;
  text: string;
}

/**
 * Retrieve step for many queries with one scorer: every query goes through `retrievalQueryText` (the one rule),
 * then (with `repair`, default none) `repairQuery`; then the scorer scores the whole corpus. Returns the top-`depth` run
 * (default 100) and the full score vectors (aligned with `queries`), kept for fusion.
 */
export async function retrieveBatch(scorer: CorpusScorer, queries: readonly BatchQuery[], corpus: Corpus, opts: { depth?: number; onProgress?: EmbedProgress; repair?: RepairVocabulary | null } = {}): Promise<ScoredRun> {
  const text = (q: BatchQuery) => {
    const t = retrievalQueryText(q.text);
    return opts.repair ? (repairQuery(t, opts.repair)?.repaired ?? t) : t;
  };
  const scores = await scorer.scoreBatch(queries.map(text), opts.onProgress);
  return { run: runFromScores(queries.map((q) => q.id), scores, corpus, opts.depth ?? 100), scores };
}

/** Fuse step for many queries: per query, `fuseScoreVectors(spec, semantic[i], lexical[i])`; the run and the fused vectors. */
export function fuseBatch(spec: FusionSpec, queries: readonly BatchQuery[], semantic: readonly Float32Array[], lexical: readonly Float32Array[], corpus: Corpus, depth = 100): ScoredRun {
  const scores = queries.map((_, i) => fuseScoreVectors(spec, semantic[i], lexical[i]));
  return { run: runFromScores(queries.map((q) => q.id), scores, corpus, depth), scores };
}

/** What `searchBatch` returns: the final run and score vectors, plus each scorer's own vectors (for features, plots). */
export interface BatchResult extends ScoredRun {
  lexical: Float32Array[] | null;
  semantic: Float32Array[] | null;
}

/**
 * The search path for a batch of queries (evaluation runs, rerank backbones): retrieve with each of the engine's
 * scorers, fuse as the engine says. No routing (benchmark queries ask for datasets) and no zero-score filtering:
 * runs keep their full depth, as trec_eval expects. `repair` (default false, so published runs stay as they are)
 * repairs each query as `search` does.
 */
export async function searchBatch(engine: SearchEngine, queries: readonly BatchQuery[], opts: { depth?: number; onProgress?: EmbedProgress; repair?: boolean } = {}): Promise<BatchResult> {
  const depth = opts.depth ?? 100;
  const repair = opts.repair ? loadRepairVocabulary(engine.corpus) : null;
  const lex = engine.lexical ? await retrieveBatch(engine.lexical, queries, engine.corpus, { depth, repair, onProgress: engine.semantic ? undefined : opts.onProgress }) : null;
  const sem = engine.semantic ? await retrieveBatch(engine.semantic, queries, engine.corpus, { depth, repair, onProgress: opts.onProgress }) : null;
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
