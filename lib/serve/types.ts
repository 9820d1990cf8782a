import type { EncoderSpec } from '../encode/types';
import type { RouterLlmClient } from '../router/types';

/**
 * How `eo serve` starts its process: it re-runs itself once with these (marker `EO_SERVE_PROCESS=1`); settings the
 * user's environment or node flags give win. All are read only at process start. They exist because a long-running
 * service otherwise keeps the memory its requests freed and its RSS creeps up under steady load;
 * `bench/serve-load.cjs --soak` measures it (docs/measurements.md).
 */
export const SERVE_PROCESS = {
  env: {
    /**
     * glibc malloc arenas (Linux): glibc gives each thread that allocates its own arena (up to 8 per core) and the
     * service has several (the event loop, two onnx worker threads, onnxruntime's and libuv's threads), each keeping
     * the memory it freed; two arenas are enough for the service's few allocating threads and keep that reserve small.
     */
    MALLOC_ARENA_MAX: '2',
    /**
     * A fixed mmap threshold (128 KiB, glibc's default start): glibc otherwise raises it after each large free, so the
     * megabyte buffers of every request (NN-SSC's candidate rows, score vectors) end up in the arenas and stay.
     */
    MALLOC_MMAP_THRESHOLD_: '131072',
  },
  /**
   * V8's young generation at most 2 × 2 MB semi-spaces (default 16 MB each): a request's short-lived objects die
   * young either way (its score vectors are typed arrays outside the heap), so larger semi-spaces only grow the
   * heap's idle reserve.
   */
  nodeFlags: ['--max-semi-space-size=2'],
} as const;

/**
 * The query encoder of `eo serve` when neither `--encoder` nor $EO_ENCODER names one: USE-lite on onnxruntime's CPU
 * kernels: its embeddings agree with the tfjs graph's within the tolerance test/use-lite-onnx.test.ts checks, and it
 * embeds a query faster (bench/use-onnx.cjs measures by how much); in the service its graph runs on the onnx worker thread of the `encoder` lane (no
 * second tfjs runtime in memory; `LoadSearchEngineOptions.onnxThread`).
 * The corpus side is read from the same embedding cache, whichever runtime filled it. The library, the CLI's
 * `eo search`/`eo eval` and the notebooks keep tfjs by default (the published run files).
 */
export const SERVICE_ENCODER_SPEC: EncoderSpec = { kind: 'use-lite', options: { runtime: 'onnx' } };

/** Options of `createSearchServer`. Every field has a default. */
export interface SearchServerOptions {
  /** Longest accepted query, in characters. Default MAX_QUERY_CHARS (500, lib/serve/validate.ts; `eo search` has the same limit). */
  maxQueryChars?: number;
  /** Largest `k` (CMR's `page_size`). Default 50; `k` defaults to 10. */
  maxK?: number;
  /** Deepest result a page may reach (`page_num` / `offset` + `page_size`). Default 200. */
  maxResultDepth?: number;
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
  /**
   * Answers kept in an LRU keyed by (normalised query, k, router, day, filters, ignored constraints). Default 1000;
   * 0 turns the cache off.
   */
  resultCacheEntries?: number;
  /** Searches running at once. Default 32 (≥ the encoder's micro-batch, so batches can fill). */
  maxConcurrentSearches?: number;
  /** Searches waiting for a slot; beyond this the answer is 503 with `Retry-After: 1`. Default 256. */
  maxQueuedSearches?: number;
  /** Longest wait in that queue, ms; then 503 with `Retry-After: 1`. Default 10000. */
  queueTimeoutMs?: number;
}
