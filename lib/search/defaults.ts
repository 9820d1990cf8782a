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
  /** Fusion of BM25 and the semantic scorer. */
  fusion: 'analytic' | 'grid' | 'rrf' | 'adaptive';
  /**
   * Two-stage NN-SSC: the MLP scores the union of the top M of BM25 and cosine (a service needs it for speed, and
   * it ranks at least as well as exact scoring on the title benchmark: `bench/hybrid-two-stage.cjs`).
   */
  nnsscTwoStage: { topM: number } | false;
  /** The named-identifier rule. */
  identifiers: IdentifierRule;
  /** Adaptive fusion: the α its model starts from (`analytic`, or a value) and its L2 pull towards it. */
  adaptive: { startAlpha: number | 'analytic'; l2: number };
}

export const DEFAULT_RANKING: Readonly<DefaultRanking> = Object.freeze({
  semantic: 'best',
  fusion: 'adaptive',
  nnsscTwoStage: Object.freeze({ topM: 400 }),
  identifiers: Object.freeze({ ...DEFAULT_IDENTIFIER_RULE }),
  adaptive: Object.freeze({ startAlpha: 'analytic' as const, l2: 0.002 }),
});
