import type { ConstraintRule, QueryConstraints } from './constraints';
import type { IdentifierKind, IdentifierRule } from './identifiers';
import type { AdaptiveAlphaModel } from '../fuse/adaptive';
import type { FacetCounts } from './facets';
import type { FilterEffect, IgnoreParsed, SearchFilters } from './filters';
import type { Corpus } from '../data/types';
import type { AlphaMethod, FusionSpec } from '../fuse';
import type { CorpusScorer } from '../retrieve/scorers';
import type { ShortNameResolver } from '../router/decide';
import type { VariableIndex } from '../router/variables';
import type { RouteResult, RouterAction, RouterLlmClient, ToolDecision } from '../router/types';
import type { Reranker, RerankTrace, WindowOptions } from '../rerank/types';
import type { QueryRepair } from './repair';

/** How the engine combines its scorers, and why. */
export interface EngineFusion {
  /**
   * `convex` (min-max + α, paper Eq. 6), `rrf`, `lexical` (BM25 alone) or `semantic` (the semantic scorer alone).
   */
  mode: 'convex' | 'rrf' | 'lexical' | 'semantic';
  /** The fusion of the two scorers (convex or rrf); null for a single scorer. */
  spec: FusionSpec | null;
  /** Where α comes from, in words (a stored fusion record, `given`, or why RRF stands in). Shown with every answer. */
  source: string;
  /** The fusion record α was read from (or written to), when there is one. */
  recordFile?: string;
  /**
   * Adaptive fusion: α per query from this model (`lib/fuse/adaptive.ts`); `spec.alpha` is then the analytic α it
   * started from (shown when a query's features cannot be read).
   */
  adaptive?: { model: AdaptiveAlphaModel; recordFile?: string };
}

/**
 * A loaded search engine: the corpus, its scorers and how they are fused, loaded once (`loadSearchEngine`) and used
 * by every query path (`search`, `searchBatch`): the CLI, the service, the notebooks and the rerank backbones.
 */
export interface SearchEngine {
  corpus: Corpus;
  /** BM25 (null: semantic scorer alone). */
  lexical: CorpusScorer | null;
  /** The semantic scorer (null: BM25 alone). */
  semantic: CorpusScorer | null;
  fusion: EngineFusion;
  /** Human label, e.g. `BM25 + NN-SSC, α = 0.412 (analytic)`. */
  label: string;
  /** ShortName → dataset of this corpus (the router's Harmony collections). */
  resolveShortName: ShortNameResolver;
  /** The named-identifier rule of this engine's ranking (`identifiers.ts`). Default: `DEFAULT_IDENTIFIER_RULE`. */
  identifierRule?: IdentifierRule;
  /** The router's variable vocabulary (GCMD keywords of the run's data folder); absent: the process-wide default. */
  variables?: VariableIndex;
  /** Free encoders and backend memory the engine owns. */
  dispose(): void;
}

/** One part of a dataset's score. */
export interface ScoreComponent {
  /** Scorer id (`bm25`, `nnssc`, `cosine-base`…). */
  scorer: string;
  /** The scorer's own score. */
  raw: number;
  /** Convex: min-max normalised over the corpus for this query; RRF: 1 / (k + rank); alone: the raw score. */
  normalized: number;
  /** Its share of the final score: α·ŝ (convex), 1 / (k + rank) (RRF), the score itself (alone). */
  contribution: number;
}

/** One ranked dataset with the explanation of its score. */
export interface RankedDataset {
  rank: number;
  id: string;
  shortName: string | null;
  longName: string;
  daac: string;
  temporal: { start: string | null; end: string | null };
  /**
   * Its platforms and instruments: CMR's fields, or, for a dataset without them, the GCMD names inferred from its
   * title and short name (`DatasetRecord.inferred`; then named in `inferred`).
   */
  platforms: string[];
  instruments: string[];
  /** Which of `platforms` / `instruments` are inferred from the title, not CMR's metadata (empty when none). */
  inferred: ('platforms' | 'instruments')[];
  /** The final retrieval score (fused, or the single scorer's). */
  score: number;
  components: { lexical: ScoreComponent | null; semantic: ScoreComponent | null };
  /** Which part produced most of the score: `bm25`, `semantic`, or `both` (neither above 2/3 of it). */
  stage: 'bm25' | 'semantic' | 'both';
  /** One line: why the dataset is here. */
  why: string;
  /** Why the question's period or place moved this dataset (only when it did), e.g. `ends 2010-12-31, before … (×0.5)`. */
  constraint?: string;
  /** Which identifiers named in the query it lacks (only when it lacks one), e.g. `lacks VIIRS (named in the query) (×0.01)`. */
  identifier?: string;
  /**
   * The GCMD instrument or platform types named in the query that it carries (only when it carries one), e.g.
   * `"lidar" named: its instrument GEDI is of the GCMD type lidar (inferred from its title)`.
   */
  type?: string;
  /** Rank before reranking (only when a reranker reordered the list). */
  retrievalRank?: number;
  links: { detail: string; landingPage: string; earthdataSearch: string; cmr: string };
}

/** Milliseconds per stage of one search (`performance.now()` differences). */
export interface SearchTimings {
  /** Router parser and the retrieval text. */
  parseMs: number;
  /** Query repair (spelling, abbreviations, language note) of the retrieval text. */
  repairMs: number;
  /** Tool decisions, and the actions built with the top results. */
  routeMs: number;
  /** BM25 over the corpus. */
  lexicalMs: number;
  /** The semantic scorer, all of it (its parts in `semanticStages`). */
  semanticMs: number;
  /** Min-max + convex (or RRF) fusion of the two vectors. */
  fuseMs: number;
  /** The question's period and places applied to the fused vector. */
  constraintsMs: number;
  /** Top-k and each result's explanation. */
  explainMs: number;
  rerankMs: number;
  totalMs: number;
  /**
   * Where `semanticMs` went, when the scorer reports it: `embed` (query embedding, worker hop included), `cosine`,
   * `nnssc`, `firstStage` (two-stage NN-SSC's BM25 + cosine candidates); with micro-batching, `queue` (waiting for
   * the batch in flight) and `batch` (how many queries shared this one's batch: a count, not ms). Batch stages are
   * the whole batch's time, which the query waited for.
   */
  semanticStages?: Record<string, number>;
}

/** Options of one `search` call. Every field has a default. */
export interface SearchOptions {
  /** Results returned. Default 10. */
  k?: number;
  /** Reference "today" for open periods. Default: the current date. */
  now?: Date;
  /** Route the query: `rules` (default), an LLM router client, or `false` (retrieval only, no routing). */
  router?: 'rules' | RouterLlmClient | false;
  /** Retrieved datasets handed to the router's actions (Harmony / Earthdata Search). Default 3. */
  routerCandidates?: number;
  /** Errors of an LLM router are logged here (then the rule router answers). Default: none. */
  log?: (e: unknown) => void;
  /**
   * Rerank the top `depth` (default: max(k, window)) with this reranker, each window's answer composed by
   * Algorithm 1 (`rerankList`). Default: no reranking.
   */
  rerank?: { reranker: Reranker } & WindowOptions;
  /**
   * The question's period and places shape the ranking (lib/search/constraints.ts): a dataset whose temporal or
   * spatial extent cannot cover them (CMR intersection semantics) is demoted (×0.5 per violated constraint, by
   * default) or filtered; `{ mode: 'off' }` ranks as retrieval alone. Default: demote ×0.5.
   */
  constraints?: ConstraintRule;
  /**
   * The identifiers the query names (missions, platforms, instruments, short names, archives, levels) demote the
   * datasets that lack them (lib/search/identifiers.ts). Default: the engine's rule (demote ×0.01 per lacking
   * identifier); `{ mode: 'off' }` ranks without it.
   */
  identifiers?: IdentifierRule;
  /**
   * Hard filters as CMR's collection search has them (lib/search/filters.ts): provider, platform, instrument,
   * processing level, temporal range, bounding box. A dataset that fails one is removed (after fusion and the
   * constraint rule, before top-k). Default: none.
   */
  filters?: SearchFilters;
  /** Compute facet counts of the result set (`SearchResponse.facets`, lib/search/facets.ts). Default false. */
  facets?: boolean;
  /** The result set the facets count: the top `facetDepth` datasets with a positive score. Default 100. */
  facetDepth?: number;
  /** The question's parsed period, places or named identifiers to leave out of the ranking. Default: none. */
  ignore?: IgnoreParsed;
  /**
   * Repair the retrieval text before scoring (lib/search/repair.ts): misspellings corrected against the corpus
   * vocabulary, abbreviations and acronyms expanded, a query in another language noted. Default true.
   */
  repair?: boolean;
}

/** The answer to one query: router decisions and actions, ranked datasets with explanations, timings. */
export interface SearchResponse {
  query: string;
  k: number;
  /** The text the retrievers scored (`retrievalTextOf`: the query without its leading action phrase; repaired). */
  retrievalQuery: string;
  /** What query repair changed in the retrieval text, and its note; null when nothing changed (or repair is off). */
  repair: QueryRepair | null;
  router: {
    router: string;
    fallThrough: boolean;
    decisions: ToolDecision[];
    actions: RouterAction[];
    parsed: { period: RouteResult['parsed']['period']; places: { name: string; bbox: number[]; source: string; text: string }[]; variables: { gcmd: string; via: string; text: string }[]; intents: { intent: string; cue: string }[] };
    notes: string[];
  } | null;
  retrieval: {
    label: string;
    lexical: string | null;
    semantic: string | null;
    fusion: EngineFusion['mode'];
    /** α of a convex fusion; null otherwise. */
    alpha: number | null;
    /** Where α comes from (or why there is none). */
    alphaSource: string;
    /** The question's period and places as applied to the ranking (null: none asked, or constraints off). */
    constraints?: (QueryConstraints & { mode: string; moved: number }) | null;
    /** The reranker that reordered the top results, when one did. */
    reranker?: string;
    /** The identifiers the query names and what the rule did with each (null: none named, or the rule off). */
    identifiers?: { named: { text: string; id: string; kind: IdentifierKind; applied: boolean; moved: number }[]; notes: string[] } | null;
    /** The filters applied and how many datasets they removed (null: none given). */
    filters?: FilterEffect | null;
    /** The parsed constraints left out at the caller's request (`SearchOptions.ignore`; null: none). */
    ignored?: IgnoreParsed | null;
  };
  results: RankedDataset[];
  /** A later page of the ranking (the service's `page_num` / `offset`): its size and the results skipped before it. */
  page?: { size: number; offset: number };
  /** Facet counts of the result set, when asked (`SearchOptions.facets`). */
  facets?: FacetCounts;
  /** The reranker's traces (calls, repairs, cost), when one ran. */
  rerankTraces?: RerankTrace[];
  timings: SearchTimings;
}

export type { AlphaMethod };
