import type { RouterLlmClient } from '../router/types';

/**
 * `eo serve`'s NN-SSC scoring: two-stage over the union of the top M of BM25 and cosine. Exact NN-SSC (~1.3 GFLOP
 * per query) caps the hybrid service near 35–57 queries/s on 2 cores; M = 200 scores ~2–4% of the corpus. Chosen by
 * bench/serve-load.cjs (cost) and bench/hybrid-two-stage.cjs (the hybrid's quality vs exact, paired CIs);
 * `eo serve --nnssc-top-m exact` restores exact scoring.
 */
export const SERVICE_NNSSC_TWO_STAGE = { topM: 200 } as const;

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
  /** Answers kept in an LRU keyed by (normalised query, k, router, day). Default 1000; 0 turns the cache off. */
  resultCacheEntries?: number;
  /** Searches running at once. Default 32 (≥ the encoder's micro-batch, so batches can fill). */
  maxConcurrentSearches?: number;
  /** Searches waiting for a slot; beyond this the answer is 503 with `Retry-After: 1`. Default 256. */
  maxQueuedSearches?: number;
  /** Longest wait in that queue, ms; then 503 with `Retry-After: 1`. Default 10000. */
  queueTimeoutMs?: number;
}
