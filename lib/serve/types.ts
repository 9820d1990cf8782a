import type { Corpus } from '../data/types';
import type { CorpusScorer } from '../retrieve/scorers';
import type { RouteResult, RouterAction, RouterLlmClient, ToolDecision } from '../router/types';

/** The retrieval stage the service runs: a lexical scorer, optionally a semantic one, fused convexly. */
export interface SearchPipeline {
  corpus: Corpus;
  lexical: CorpusScorer;
  /** Null: BM25 only. */
  semantic: CorpusScorer | null;
  /** Weight of the semantic scorer in the convex fusion (paper Eq. 6); ignored without a semantic scorer. */
  alpha: number;
  /** Where alpha came from, e.g. `analytic (Eq. 7) on the training split of eo-title, cached …` or `default`. */
  alphaSource: string;
  /** Human label, e.g. `BM25 + Cosine (USE-lite), α = 0.21`. */
  label: string;
}

/** One component of a fused score. */
export interface ScoreComponent {
  scorer: string;
  /** The scorer's own score. */
  raw: number;
  /** After min-max normalisation over the corpus for this query. */
  normalized: number;
  /** Weight × normalised score: its share of the fused score. */
  contribution: number;
}

export interface RankedDataset {
  rank: number;
  id: string;
  shortName: string | null;
  longName: string;
  daac: string;
  temporal: { start: string | null; end: string | null };
  /** The fused score (or the lexical score when there is no semantic scorer). */
  score: number;
  components: { lexical: ScoreComponent; semantic: ScoreComponent | null };
  /** Which stage produced most of the score: `bm25`, `semantic`, or `both` (neither above 2/3 of it). */
  stage: 'bm25' | 'semantic' | 'both';
  /** One line: why the dataset is here. */
  why: string;
  links: { detail: string; landingPage: string; earthdataSearch: string; cmr: string };
}

export interface SearchTimings {
  routeMs: number;
  lexicalMs: number;
  semanticMs: number;
  fuseMs: number;
  totalMs: number;
}

export interface SearchResponse {
  query: string;
  k: number;
  /** The text that retrieval ranked: the query without its intent cues (see `retrievalText`). */
  retrievalQuery: string;
  router: {
    router: string;
    fallThrough: boolean;
    decisions: ToolDecision[];
    actions: RouterAction[];
    parsed: { period: RouteResult['parsed']['period']; places: { name: string; bbox: number[]; source: string; text: string }[]; variables: { gcmd: string; via: string; text: string }[]; intents: { intent: string; cue: string }[] };
    notes: string[];
  };
  retrieval: { label: string; lexical: string; semantic: string | null; alpha: number; alphaSource: string };
  results: RankedDataset[];
  timings: SearchTimings;
}

/** Options of `createSearchServer`. Every field has a default. */
export interface SearchServerOptions {
  /** Longest accepted query, in characters. Default 500. */
  maxQueryChars?: number;
  /** Largest `k`. Default 50; `k` defaults to 10. */
  maxK?: number;
  /** Requests per client (IP) per `rateLimitWindowMs`. Default 300. */
  rateLimitMax?: number;
  /** Rate-limit window in ms. Default 60000. */
  rateLimitWindowMs?: number;
  /** Datasets handed to the router as candidates (Harmony / Earthdata Search actions). Default 3. */
  routerCandidates?: number;
  /** Reference date for the router's open periods. Default: the current date at each request. */
  now?: () => Date;
  /** Fastify logger. Default false. */
  logger?: boolean;
  /**
   * LLM router client (lib/llm's LlmClient, which records every call); default none: the rule router. When the LLM
   * call fails the rule router answers and the response's router notes say so.
   */
  llmRouter?: RouterLlmClient;
}

