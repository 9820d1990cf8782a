/**
 * Batch mode's options, progress events and result (batch.ts runs it).
 */
import { storeRecordedUsd } from './client';
import { sleep } from '../util/lock';
import type { BatchApi, ChatRequest, ModelConfig, RecordStore } from './types';

export interface BatchProgress {
  configId: string;
  /** Requests asked for in this run. */
  total: number;
  /** Of them: answered (recorded before or collected now). */
  done: number;
  /** In a submitted batch that has not been collected. */
  inFlight: number;
  failed: number;
  inputTokens: number;
  outputTokens: number;
  /** Cost of the answers collected in this run (batch prices). */
  costUsd: number;
  /** Short description of what just happened. */
  event: string;
}

export interface RunBatchOptions {
  config: ModelConfig;
  requests: readonly ChatRequest[];
  /** Record store (or its path): answers land here, exactly as live calls do. */
  store: RecordStore | string;
  /** Batch log (append-only JSONL). Default `<store path>.batches.jsonl` (required with an in-memory store). */
  batchLog?: string;
  /** Wait for submitted batches to end and collect them. Default true; false: submit (or collect what has ended) and return. */
  wait?: boolean;
  /** Milliseconds between status polls. Default 30000. */
  pollIntervalMs?: number;
  /** Status polls per batch before returning with it still in flight (resume later). Default 2880 (a day at 30 s). */
  maxPolls?: number;
  /** Submissions per request before a failure is final (retries go in a new batch). Default 2. */
  maxAttempts?: number;
  /** Requests per batch. Default 10000. */
  maxBatchSize?: number;
  /**
   * Stop submitting before what the store has recorded (`storeRecordedUsd`, earlier runs included), plus the estimate of
   * its open batches and of this submission, would exceed this (USD). Default `$EO_LLM_BUDGET_USD`, else none.
   */
  budgetUsd?: number | null;
  /** Output tokens per call assumed for the budget estimate. Default: 64 + the entry's estimatedReasoningTokens, capped by maxTokens. */
  estimatedOutputTokens?: number;
  env?: Record<string, string | undefined>;
  /** SDK options. Defaults as for live calls (timeout 120 s, 3 retries). */
  timeoutMs?: number;
  maxRetries?: number;
  fetch?: typeof fetch;
  log?: (line: string) => void;
  onProgress?: (p: BatchProgress) => void;
  /** Wait function (tests pass a no-op). Default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** Test hook: called after the API accepted a batch and before its id is logged (throw to simulate a crash there). */
  afterCreate?: (batchId: string) => void;
}

export interface RunBatchResult {
  configId: string;
  api: BatchApi;
  /** Distinct requests asked for. */
  total: number;
  /** Recorded before this run. */
  alreadyRecorded: number;
  /** Submissions made in this run (batches, or live calls for `api: none`). */
  submittedBatches: string[];
  /** Requests sent in this run (each at most once per attempt). */
  submittedRequests: number;
  /** Answers written to the store in this run. */
  collected: number;
  /** Requests still in a batch that has not ended (run again to collect). */
  inFlight: number;
  /** Requests whose last attempt failed (after maxAttempts, or waiting for a retry when `wait` is false). */
  failed: { key: string; reason: string; attempts: number }[];
  /** Requests not submitted because the budget would have been exceeded. */
  notSubmittedForBudget: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Estimated cost of what this run submitted (batch prices). */
  estimatedCostUsd: number;
}
