import type { DatasetRecord } from '../data/types';
import type { PromptTemplate } from '../util/types';
import type { LlmClient } from '../llm/types';

/** How a judge answer was read. `exact`: the answer was just YES/NO; the others are counted repairs. */
export type JudgeParseKind = 'exact' | 'prefix' | 'json' | 'marker' | 'sole-word' | 'failed';

export interface ParsedJudgeAnswer {
  /** true = YES, false = NO, null = could not be read (a counted failure; scored as not relevant). */
  relevant: boolean | null;
  kind: JudgeParseKind;
  /** Whether `<think>…</think>` reasoning was removed first. */
  thinkStripped: boolean;
}

/** One cached (query, dataset) judgement. */
export interface JudgeCacheEntry {
  /** Hash of judge id + query text + dataset id. */
  key: string;
  /** `<model config id>@<snapshot>#<prompt hash>`. */
  judgeId: string;
  query: string;
  datasetId: string;
  relevant: boolean | null;
  kind: JudgeParseKind;
  thinkStripped: boolean;
  /** The model's answer text. */
  text: string;
  /** Model id the API reported. */
  model: string;
  costUsd: number;
  /** LLM record key of the call. */
  recordKey: string;
  timestamp: string;
}

export interface JudgeVerdict extends ParsedJudgeAnswer {
  datasetId: string;
  text: string;
  model: string;
  /** Cost of the call that produced it (0 when it came from the judge cache in this process). */
  costUsd: number;
  /** Served from the judge cache (no LLM call, not even a replayed one). */
  fromCache: boolean;
}

export interface JudgeStats {
  /** judge() calls answered. */
  judgements: number;
  cacheHits: number;
  /** LLM calls made (live or replayed). */
  llmCalls: number;
  /** Answers that needed a repair (kind other than exact/failed). */
  repaired: number;
  /** Answers that could not be read. */
  failed: number;
  /** Cost of the LLM calls made through this judge (recorded cost for replayed calls). */
  costUsd: number;
  byKind: Record<JudgeParseKind, number>;
}

/** A P@K relevance judge. */
export interface LlmJudge {
  /** `<model config id>@<snapshot>#<prompt hash>`: keys the cache; shown with every P@K number. */
  id: string;
  judge(query: string, dataset: DatasetRecord): Promise<JudgeVerdict>;
  stats: JudgeStats;
}

/** The judge's prompt: the shared prompt-file format (lib/util/prompt.ts). */
export type JudgePromptTemplate = PromptTemplate;

export interface LlmJudgeOptions {
  /** The judge model (the paper: Qwen3.6-35B-A3B over vLLM; entry `qwen3.6-35b-a3b-judge` in lib/llm/models.json). */
  client: LlmClient;
  /** Prompt template. Default loadJudgePrompt() (lib/judge/prompts/judge.md, written from the paper's description). */
  prompt?: JudgePromptTemplate;
  /** Judgement cache: a JSONL path (append-only, shared by runs) or null for in-memory only. Default null. */
  cache?: string | null;
  /** The dataset summary is cut to this many characters. Default 1200. */
  summaryChars?: number;
  /** Output token limit per judgement. Default 32 (room for "YES." and a little preamble). */
  maxTokens?: number;
  /** Cache warnings. Default console.warn. */
  log?: (line: string) => void;
}

export interface JudgeRunQuery {
  id: string;
  text: string;
}

export interface JudgeRunOptions {
  /** Query id → ranked datasets (any order; sorted with the metrics' tie rule). */
  run: Map<string, { docId: string; score: number }[]>;
  /** Query texts: a list of {id, text} (e.g. BenchQuery[]) or a map id → text. Their order is the table order. */
  queries: readonly JudgeRunQuery[] | ReadonlyMap<string, string>;
  /** Dataset lookup: a map id → record or a function. */
  datasets: ReadonlyMap<string, DatasetRecord> | ((id: string) => DatasetRecord | undefined);
  judge: LlmJudge;
  /** Cut-offs. Default [5, 10, 20]. */
  ks?: readonly number[];
  /** Judgements in flight at once (the client's own limit also applies). Default 8. */
  concurrency?: number;
  /** Called after each judged (query, dataset) pair. Default: none. */
  onProgress?: (done: number, total: number) => void;
}

export interface JudgeRunQueryResult {
  queryId: string;
  /** `P@5` → value, for every k. */
  values: Record<string, number>;
  /** Judgements of this query's top-K that could not be read (scored not relevant). */
  failures: number;
}

export interface JudgeRunResult {
  judgeId: string;
  ks: number[];
  perQuery: JudgeRunQueryResult[];
  /** Macro average over queries: `P@5` → mean. */
  macro: Record<string, number>;
  /** Queries with no entry in the run (scored 0). */
  missingFromRun: string[];
  /** Distinct (query, dataset) pairs judged. */
  pairs: number;
  cacheHits: number;
  llmCalls: number;
  /** Answers that could not be read as YES/NO (scored not relevant), each with its text. */
  failures: { queryId: string; datasetId: string; text: string }[];
  /** Of `failures`, the answers that refuse to judge ("I'm sorry, I can't…", an empty answer: `isJudgeRefusal`). */
  refused: number;
  /** Repairs by kind over this run's pairs. */
  byKind: Record<JudgeParseKind, number>;
  costUsd: number;
}
