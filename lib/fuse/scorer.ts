import { assertConvexAlpha } from './alpha';
import { EoError } from '../errors';
import type { CorpusScorer } from '../retrieve/scorers';
import { convexOfNormalized, fuseConvex, minMaxNormalize } from './minmax';
import { competitionRanks, RRF_K, rrfScores } from './rrf';

/** One query's fused scores with their parts (all aligned with corpus order). */
export interface FusedScores {
  /** α·ŝ_sem + (1 − α)·ŝ_lex */
  scores: Float32Array;
  /** α·ŝ_sem: the semantic contribution to each dataset's fused score. */
  semantic: Float32Array;
  /** (1 − α)·ŝ_lex: the lexical contribution. */
  lexical: Float32Array;
  /** The component scores before normalisation. */
  rawSemantic: Float32Array;
  rawLexical: Float32Array;
  alpha: number;
}

/** Why one dataset has its fused score. */
export interface FusedExplanation {
  score: number;
  /** α·ŝ_sem */
  semantic: number;
  /** (1 − α)·ŝ_lex */
  lexical: number;
  /** ŝ_sem, ŝ_lex: min-max-normalised component scores in [0, 1] (1 = that scorer's best dataset). */
  semanticNormalized: number;
  lexicalNormalized: number;
  rawSemantic: number;
  rawLexical: number;
  /** Share of the fused score that comes from the semantic part (0.5 when the score is 0). */
  semanticShare: number;
  alpha: number;
}

/**
 * Convex fusion that keeps its parts. The fused scores are `fuseConvex`'s (one formula, `convexOfNormalized`, so both
 * give bit-identical rankings); the parts are α·ŝ_sem and (1 − α)·ŝ_lex.
 */
export function fuseConvexParts(semantic: Float32Array, lexical: Float32Array, alpha: number): FusedScores {
  if (semantic.length !== lexical.length) throw new EoError('INVALID_ARGUMENT', `fuse: ${semantic.length} vs ${lexical.length} scores`);
  assertConvexAlpha(alpha, 'fuse');
  // each vector normalised once (a service fuses every request); the fused score is `fuseConvex`'s formula
  const sem = minMaxNormalize(semantic);
  const lex = minMaxNormalize(lexical);
  const scores = convexOfNormalized(sem, lex, alpha);
  for (let i = 0; i < sem.length; i++) {
    sem[i] = alpha * sem[i];
    lex[i] = (1 - alpha) * lex[i];
  }
  return { scores, semantic: sem, lexical: lex, rawSemantic: semantic, rawLexical: lexical, alpha };
}

/**
 * How two corpus-wide score vectors are fused: min-max + convex with weight α (paper Eq. 6), or reciprocal rank
 * fusion (no weight).
 */
export type FusionSpec = { method: 'convex'; alpha: number } | { method: 'rrf'; k: number };

/**
 * Reciprocal rank fusion that keeps its parts: the fused scores are `rrfScores`' own output (bit-identical
 * rankings); the parts are each scorer's 1 / (k + rank). `alpha` is reported as NaN (RRF has no weight).
 */
export function fuseRrfParts(semantic: Float32Array, lexical: Float32Array, k = RRF_K): FusedScores {
  if (semantic.length !== lexical.length) throw new EoError('INVALID_ARGUMENT', `fuse: ${semantic.length} vs ${lexical.length} scores`);
  const scores = rrfScores([semantic, lexical], k);
  const rs = competitionRanks(semantic);
  const rl = competitionRanks(lexical);
  const sem = new Float32Array(scores.length);
  const lex = new Float32Array(scores.length);
  for (let i = 0; i < scores.length; i++) {
    sem[i] = 1 / (k + rs[i]);
    lex[i] = 1 / (k + rl[i]);
  }
  return { scores, semantic: sem, lexical: lex, rawSemantic: semantic, rawLexical: lexical, alpha: NaN };
}

/** Fuse one query's two score vectors as `spec` says: `fuseConvex` or `rrfScores` (the fused scores only). */
export function fuseScoreVectors(spec: FusionSpec, semantic: Float32Array, lexical: Float32Array): Float32Array {
  return spec.method === 'convex' ? fuseConvex(semantic, lexical, spec.alpha) : rrfScores([semantic, lexical], spec.k);
}

/** Fuse one query's two score vectors as `spec` says, keeping the parts (`explainFused` reads them). */
export function fuseWithParts(spec: FusionSpec, semantic: Float32Array, lexical: Float32Array): FusedScores {
  return spec.method === 'convex' ? fuseConvexParts(semantic, lexical, spec.alpha) : fuseRrfParts(semantic, lexical, spec.k);
}

/** Explain one dataset (by corpus index) of a fused result. */
export function explainFused(f: FusedScores, index: number): FusedExplanation {
  const s = f.semantic[index];
  const l = f.lexical[index];
  const tot = s + l;
  return {
    score: f.scores[index],
    semantic: s,
    lexical: l,
    // RRF (α = NaN) has no normalised scores: its parts are already 1 / (k + rank)
    semanticNormalized: Number.isNaN(f.alpha) ? s : f.alpha > 0 ? s / f.alpha : 0,
    lexicalNormalized: Number.isNaN(f.alpha) ? l : f.alpha < 1 ? l / (1 - f.alpha) : 0,
    rawSemantic: f.rawSemantic[index],
    rawLexical: f.rawLexical[index],
    semanticShare: tot > 0 ? s / tot : 0.5,
    alpha: f.alpha,
  };
}

export interface FusedScorer extends CorpusScorer {
  alpha: number;
  semanticScorer: CorpusScorer;
  lexicalScorer: CorpusScorer;
  /** Fused scores with their semantic and lexical parts, one per text. */
  scoreBatchExplained(texts: string[]): Promise<FusedScores[]>;
}

/**
 * Hybrid scorer (paper Eq. 6): per query, min-max-normalise both scorers over the whole corpus, then
 * α·ŝ_sem + (1 − α)·ŝ_lex. `scoreBatchExplained` + `explainFused` say why each result is there.
 */
export function fusedScorer(semantic: CorpusScorer, lexical: CorpusScorer, alpha: number, opts: { id?: string; label?: string } = {}): FusedScorer {
  assertConvexAlpha(alpha, 'fusedScorer');
  const explained = async (texts: string[]) => {
    const sem = await semantic.scoreBatch(texts);
    const lex = await lexical.scoreBatch(texts);
    return texts.map((_, i) => fuseConvexParts(sem[i], lex[i], alpha));
  };
  return {
    id: opts.id ?? `${semantic.id}+${lexical.id}`,
    label: opts.label ?? `${semantic.label} + ${lexical.label} (α=${alpha.toFixed(3)})`,
    alpha,
    semanticScorer: semantic,
    lexicalScorer: lexical,
    scoreBatchExplained: explained,
    async scoreBatch(texts, onProgress) {
      const out = (await explained(texts)).map((f) => f.scores);
      onProgress?.(texts.length, texts.length);
      return out;
    },
  };
}
