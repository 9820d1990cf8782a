import type { DatasetRecord } from '../data/types';

/** The query a reranker sees. `publicationId` (the benchmark's source publication) is used only by leakage guards. */
export interface RerankQuery {
  id: string;
  text: string;
  publicationId?: string;
}

/** One candidate of a rerank window: the dataset record plus the retrieval scores that put it there. */
export interface RerankCandidate {
  /** Dataset id. */
  id: string;
  record: DatasetRecord;
  /** The backbone's (fused) score that ordered the window. */
  retrievalScore: number;
  /** 1-based rank in the backbone run. */
  retrievalRank: number;
  /** Component scores, e.g. `{ bm25, semantic, fused }` (raw, as the scorers returned them). */
  scores: Record<string, number>;
}

/**
 * Counts of every repair the listwise parser made on one answer (all zero for a clean `{"ranked": [...]}`).
 * `failed` = 1 when nothing usable was found: the window then keeps its retrieval order.
 */
export interface RepairCounts {
  /** JSON taken from inside a ``` code fence. */
  codeFence: number;
  /** `<think>…</think>` (or an unterminated `<think>`) reasoning removed before parsing. */
  thinkRemoved: number;
  /** The JSON object was surrounded by other text (reasoning before it, prose after it). */
  surroundingText: number;
  /** No `{"ranked": …}` object, but a bare JSON array of ids was used. */
  bareArray: number;
  /**
   * No JSON ranking, but a plain list of ids that rank_llm accepts: RankGPT's `[3] > [1] > [2]`, `3 > 1 > 2`
   * anywhere, or `3, 1, 2` on a line of its own (after an optional `Ranking:` label).
   */
  idList: number;
  /** Ids given as numeric strings ("3") or as "[3]" and converted. */
  stringIds: number;
  /** Entries that are not integers (3.5, "abc", null, objects): dropped. */
  nonInteger: number;
  /** Integer ids outside 1..K: dropped. */
  outOfRange: number;
  /** Repeated ids: later occurrences dropped. */
  duplicates: number;
  /** Window items the answer did not mention (appended in retrieval order by Algorithm 1). */
  missing: number;
  /** Empty answer. */
  empty: number;
  /** No parseable JSON at all (or no valid id left): the window keeps retrieval order. */
  failed: number;
}

/** One tool call an agentic (or tool-routed) reranker made, as kept in its trace. */
export interface ToolCallTrace {
  name: string;
  arguments: Record<string, unknown>;
  /** sha256 prefix of the result text the model (or reranker) saw. */
  resultDigest: string;
  /** Number of result items after the leakage guard. */
  results: number;
  /** Items the leakage guard removed (they identified the query's source publication). */
  removedByGuard: number;
  latencyMs: number;
  /** Error message when the tool failed (the model sees it as the tool result). */
  error?: string;
}

/** Everything one reranker did for one window: calls, repairs, tools, tokens, cost and time. */
export interface RerankTrace {
  reranker: string;
  queryId: string;
  /** 0-based position of the window's first item in the list it reranked (sliding windows: several traces). */
  windowStart: number;
  windowSize: number;
  /** LLM calls (0 for offline rerankers). */
  calls: number;
  repairs: RepairCounts;
  toolCalls: ToolCallTrace[];
  /** Tool rounds (assistant turns that asked for tools). */
  toolRounds: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  latencyMs: number;
  /** Why the loop stopped (agent), e.g. `final`, `max-rounds`, `max-tokens`, `wall-time`. */
  stopReason?: string;
  /** The 1-based window ids in the reranker's order, after repairs (before Algorithm 1 filled the rest). */
  ranked: number[];
  /** Store keys of the recorded LLM calls (to look the payloads up). */
  recordKeys: string[];
  /** Free-form notes, e.g. `uncertain: margin 0.03 < 0.1`. */
  notes: string[];
}

/** What a reranker returns for one window. */
export interface RerankResult {
  /** 1-based window ids, best first; may be partial (Algorithm 1 appends the unmentioned items). */
  ranked: number[];
  trace: RerankTrace;
}

/**
 * A reranker: a query and a window of candidates in → an order (1-based window ids) plus a trace. Every
 * reranker's answer goes through the same Algorithm 1 composition (`composeWindowOrder`).
 */
export interface Reranker {
  /** One word, used as run tag. */
  id: string;
  /** Table label. LLM rerankers name their model; offline ones say "offline reranker". */
  label: string;
  kind: 'llm' | 'agent' | 'offline';
  rerank(query: RerankQuery, window: readonly RerankCandidate[]): Promise<RerankResult>;
}

/** Options of the window schedule. */
export interface WindowOptions {
  /** Window size K. Default 10 (the paper's). */
  window?: number;
  /** Stride of the sliding window; only used when `depth` > `window`. Default `window / 2`. */
  stride?: number;
  /** How deep to rerank: the top `depth` of the backbone list. Default = `window` (one window, the paper's). */
  depth?: number;
  /** Windows reranked in parallel across queries. Default 1. */
  concurrency?: number;
}
