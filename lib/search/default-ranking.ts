/**
 * THE default ranking, in one place: what `eo search`, `eo serve` (page and API), `eo eval --system best` and the
 * notebooks' "default ranking" rows use when nothing else is asked (`loadSearchEngine` reads it). Changing a value
 * here changes every one of them together; `test/search.test.ts` checks that the CLI and the API answer alike with
 * their defaults.
 */
import type { DensePrf } from '../retrieve/prf';
import { DEFAULT_IDENTIFIER_RULE, type IdentifierRule } from './identifiers';

export interface DefaultRanking {
  /**
   * The semantic scorer `best` means: `static`, the corpus-trained static encoder (`lib/encode/static.ts`; its
   * checkpoint for the built benchmark, trained once on first use), or `nnssc`. When the static encoder cannot be had
   * (no built benchmark, or training switched off and no checkpoint) `best` falls back to NN-SSC when its checkpoint
   * exists, else USE-lite cosine, and says so. Chosen on the style benchmark's DEV half with the adaptive α refitted
   * on each (`bench/default-ranking-tune.cjs --only semantic`, issue 39 step 2): nDCG@10 .6665 with the static
   * encoder against .6488 with NN-SSC, each at its best start α and L2.
   */
  semantic: 'static' | 'nnssc';
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
   * chosen on the DEV half of the benchmark of real query styles (lib/bench/styles; never its test half) together
   * with the semantic half: L2 0.1 among start {0.15, 0.3, analytic} × L2 {0.002, 0.02, 0.1} with the static encoder
   * (NN-SSC's best was start 0.15, L2 0.02: .6488; at 0.3 / 0.1 it reads .6435), then start α 0.7 among
   * {0.3, 0.5, 0.7, 0.85} with the static half's feedback (`staticPrf`): seeded by BM25 it finds more, and earns more
   * weight (seeded by itself the best start stays 0.3).
   */
  adaptive: { readonly startAlpha: number | 'analytic'; readonly l2: number };
  /**
   * The static semantic half's query-time feedback (`DensePrf`, `lib/retrieve/prf.ts`): its query vector moved towards
   * the mean of the first `k` datasets of the LEXICAL half's ranking, then scored again. The static encoder alone
   * (no lexical half: `eo eval --system static`, Table 2's rows) keeps `DEFAULT_STATIC_PRF`, its own first 3.
   * Chosen on the style benchmark's DEV half with the adaptive model refitted on each and its start α searched with it
   * (`bench/default-ranking-tune.cjs --only prf`, nDCG@10 at the best start α): its own first 3 .6737 (start 0.3), the
   * lexical half's first 3 / 5 / 10 .6909 / .6968 / .6926 (start 0.7).
   */
  staticPrf: Readonly<DensePrf>;
}

export const DEFAULT_RANKING: Readonly<DefaultRanking> = Object.freeze({
  semantic: 'static',
  lexical: 'bm25+qe',
  fusion: 'adaptive',
  nnsscTwoStage: Object.freeze({ topM: 400 }),
  identifiers: Object.freeze({ ...DEFAULT_IDENTIFIER_RULE }),
  adaptive: Object.freeze({ startAlpha: 0.7, l2: 0.1 }),
  staticPrf: Object.freeze({ k: 5, beta: 1, seeds: 'lexical' as const }),
});
