/**
 * The score parts of a batch run's top results (lib/metrics/run-parts.ts): for a fusion each scorer's normalised
 * and raw score and α (or RRF's k), for a run under the query rules the rules that moved each dataset. Computed from
 * the same vectors the run was ranked from, with the fusion's own normalisation and ranks (`minMaxNormalizer`,
 * `competitionRankOf`), for the top results only: a batch costs one pass over each vector per query, not a second fusion.
 */
import type { Corpus } from '../data/types';
import { minMaxNormalizer } from '../fuse/minmax';
import { competitionRankOf } from '../fuse/rrf';
import type { FusionSpec } from '../fuse/scorer';
import { sortRunEntries } from '../metrics/rank';
import { RUN_PARTS_TOP_K, type RunPartsTable, type RunScoreParts } from '../metrics/run-parts';
import type { Run } from '../metrics/types';
import { describeConstraintEffect } from './constraints';
import { describeLackedIdentifiers } from './identifiers';
import type { RuledScores } from './rules';

/** What one query's run was ranked from. */
export interface QueryScoreSources {
  /** The fusion (null: one scorer only). */
  spec: FusionSpec | null;
  semantic: Float32Array | null;
  lexical: Float32Array | null;
  /** The query rules' result, when they ran. */
  ruled?: RuledScores | null;
}

// seven significant digits: what a Float32 score holds, and the sidecar stays small
const round = (x: number) => (Number.isFinite(x) && x !== 0 ? Number(x.toPrecision(7)) : x);

/** One query's fused parts of any dataset (by corpus index), read from the two score vectors without fusing them again. */
function fusedPartsOf(spec: FusionSpec, semantic: Float32Array, lexical: Float32Array): (i: number) => RunScoreParts {
  if (spec.method === 'convex') {
    const sem = minMaxNormalizer(semantic);
    const lex = minMaxNormalizer(lexical);
    return (i) => ({ bm25: round(lex(lexical[i])), semantic: round(sem(semantic[i])), bm25Raw: round(lexical[i]), semanticRaw: round(semantic[i]), alpha: spec.alpha });
  }
  // RRF: each scorer's term 1 / (k + competition rank), as rrfScores sums them
  return (i) => ({
    bm25: round(1 / (spec.k + competitionRankOf(lexical, lexical[i]))), semantic: round(1 / (spec.k + competitionRankOf(semantic, semantic[i]))),
    bm25Raw: round(lexical[i]), semanticRaw: round(semantic[i]), rrfK: spec.k,
  });
}

function ruleParts(r: RuledScores, corpus: Corpus, i: number): RunScoreParts {
  const e = r.constrained?.effectOf(i);
  const lacks = r.identified?.lackedBy(i) ?? [];
  if (!e && lacks.length === 0) return {};
  const idFactor = lacks.length ? r.identified!.factorOf(i) : 1;
  return {
    constraints: [...(e ? [describeConstraintEffect(corpus.datasets[i], e, r.asked)] : []), ...(lacks.length ? [describeLackedIdentifiers(lacks, idFactor)] : [])],
    factor: (e?.factor ?? 1) * idFactor,
  };
}

/**
 * The parts of the top `k` (default RUN_PARTS_TOP_K, in the metrics' order) of every query of `run`; `sources(i)`
 * gives what query `queryIds[i]` was ranked from.
 */
export function batchRunParts(run: Run, queryIds: readonly string[], corpus: Corpus, sources: (i: number) => QueryScoreSources, k = RUN_PARTS_TOP_K): RunPartsTable {
  const table: RunPartsTable = {};
  queryIds.forEach((qid, qi) => {
    const top = sortRunEntries(run.get(qid) ?? [], k);
    if (top.length === 0) return;
    const src = sources(qi);
    const fused = src.spec && src.semantic && src.lexical ? fusedPartsOf(src.spec, src.semantic, src.lexical) : null;
    const byDoc: Record<string, RunScoreParts> = {};
    for (const e of top) {
      const i = corpus.indexById.get(e.docId);
      if (i === undefined) continue;
      const parts: RunScoreParts = fused
        ? fused(i)
        : { ...(src.lexical ? { bm25Raw: round(src.lexical[i]) } : {}), ...(src.semantic ? { semanticRaw: round(src.semantic[i]) } : {}) };
      byDoc[e.docId] = src.ruled ? { ...parts, ...ruleParts(src.ruled, corpus, i) } : parts;
    }
    table[qid] = byDoc;
  });
  return table;
}
