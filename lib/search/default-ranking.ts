/**
 * THE default ranking, in one place: what `eo search`, `eo serve` (page and API), `eo eval --system best` and the
 * notebooks' "default ranking" rows use when nothing else is asked (`loadSearchEngine` reads it). Changing a value
 * here changes every one of them together; `test/search.test.ts` checks that the CLI and the API answer alike with
 * their defaults.
 */
import { DEFAULT_IDENTIFIER_RULE, type IdentifierRule } from './identifiers';

export interface DefaultRanking {
  /** Semantic scorer: NN-SSC when its checkpoint exists, else USE-lite cosine. */
  semantic: 'best';
  /**
   * Lexical scorer: BM25 (the paper's), or BM25 plus the domain vocabulary's expansion (`expand.ts`). The expansion
   * was chosen on the style benchmark's dev half; BM25 field weights in the spirit of CMR's relevancy (the `fieldBoosts`
   * option of `loadOrBuildBm25`) were tried there too and gained nothing, so BM25 stays one combined field.
   */
  lexical: 'bm25' | 'bm25+qe';
  /** Fusion of BM25 and the semantic scorer. */
  fusion: 'analytic' | 'grid' | 'rrf' | 'adaptive';
  /**
   * Two-stage NN-SSC: the MLP scores the union of the top M of BM25 and cosine (a service needs it for speed, and
   * it ranks at least as well as exact scoring on the title benchmark: `bench/hybrid-two-stage.cjs`).
   */
  nnsscTwoStage: { topM: number } | false;
  /** The named-identifier rule. */
  identifiers: IdentifierRule;
  /**
   * Adaptive fusion: the α its model starts from (`analytic`, or a value) and its L2 pull towards it. Both were
   * chosen on the DEV half of the benchmark of real query styles (lib/bench/styles; never its test half): start
   * α 0.15 and L2 0.02 among start {0.15, 0.3, analytic} × L2 {0.002, 0.02, 0.1}.
   */
  adaptive: { readonly startAlpha: number | 'analytic'; readonly l2: number };
}

export const DEFAULT_RANKING: Readonly<DefaultRanking> = Object.freeze({
  semantic: 'best',
  lexical: 'bm25+qe',
  fusion: 'adaptive',
  nnsscTwoStage: Object.freeze({ topM: 400 }),
  identifiers: Object.freeze({ ...DEFAULT_IDENTIFIER_RULE }),
  adaptive: Object.freeze({ startAlpha: 0.15, l2: 0.02 }),
});
