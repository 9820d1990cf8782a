/**
 * The one interface an LLM vendor implements (`LlmProvider`). Everything that differs between vendors lives behind
 * it: the wire request (with the reasoning parameters), the answer and its token usage, the default key variable,
 * which `params` an entry may declare, the live call, and the batch protocol. Prices are data (models.json) and the
 * shared code multiplies them by the usage the provider read, so a vendor file holds no pricing code.
 */
import type { LlmRecord, ModelConfig, ModelParams, TokenLimitField, ToolCall, Usage, WireOptions } from '../types';

/** What a provider answer maps to (a live answer or one batch result line). */
export interface ProviderAnswer {
  text: string;
  toolCalls: ToolCall[];
  stopReason: string;
  model: string;
  usage: Usage;
}

/** Options for a vendor's API client, resolved from the entry and the environment by the caller. */
export interface ProviderClientOptions {
  /** The key from the entry's key variable; undefined when the entry needs none (or, for batches, it was not set). */
  apiKey: string | undefined;
  /** The entry's base URL (`resolveBaseUrl`); undefined: the vendor's default host. */
  baseURL: string | undefined;
  /** Per-attempt timeout in ms. */
  timeout: number;
  /**
   * SDK retries: 0 for chat calls (the client retries, lib/llm/retry.ts, one policy for every vendor). A vendor
   * written with fetch throws `vendorHttpError` for a non-2xx answer so that the policy sees its status and headers.
   */
  maxRetries: number;
  /** Sink for the SDK's warnings (already redacted by the caller). Absent: the SDK's default. */
  logger?: { error: (...a: unknown[]) => void; warn: (...a: unknown[]) => void; info: (...a: unknown[]) => void; debug: (...a: unknown[]) => void };
  /** SDK log level. Absent: the SDK's default. */
  logLevel?: 'warn';
  /** fetch implementation. Absent: the global fetch. */
  fetch?: typeof fetch;
}

/** One live, non-streaming call: a request body from `toRequest` in, the response body as received out. */
export type ProviderChatCall = (body: Record<string, unknown>) => Promise<unknown>;

/** The part of a logged batch submission a provider needs to find a batch accepted without its id being logged. */
export interface BatchIntentRef {
  /** Our submission id (sent as metadata where the protocol has it). */
  sid: string;
  /** ISO time the intent was logged, before the create call. */
  at: string;
  /** Record keys submitted, one per request (the custom ids). */
  keys: readonly string[];
}

/** How a batch protocol waits for a batch (the runner's polling: `runBatch`'s sleep, interval and poll limit). */
export interface BatchPoll {
  sleep: (ms: number) => Promise<void>;
  intervalMs: number;
  maxPolls: number;
}

/** One batch result line: the answer body (parsed with `fromResponse` of the batch provider) or why it failed. */
export type BatchItemResult = { body: unknown } | { error: string };

/** A vendor's batch protocol, bound to one model entry and one API client. */
export interface ProviderBatch {
  /**
   * Submit the requests (custom id = record key; `wire`: each request adapted to the entry, see `toRequest`) and return the batch id. `onUploaded` is called with the input
   * file id for protocols that upload one first. Must not retry the create call itself: a retried create could
   * make a second batch; an unanswered create is resolved on resume by `find`.
   */
  submit(sid: string, items: { key: string; request: LlmRecord['request']; wire: WireOptions }[], onUploaded: (fileId: string) => void): Promise<string>;
  /** The batch's status as the vendor names it, and whether it has ended (results can be read). */
  status(batchId: string): Promise<{ status: string; ended: boolean }>;
  /** Record key → answer body or failure, for every item that has a result line; key `*` stands for every item. */
  results(batchId: string): Promise<Map<string, BatchItemResult>>;
  /**
   * The batch id of an intent that may have been accepted without its id being logged (ids in `known` are
   * already accounted for); null: it was not accepted. A batch is this intent's only when its request ids are the
   * intent's keys (`requestKeysHash`), never by count and time alone; where the protocol shows them only once a batch
   * has ended, `poll` says how to wait for that. Throws LLM_BATCH_UNCERTAIN when it cannot tell.
   */
  find(intent: BatchIntentRef, known: Set<string>, poll?: BatchPoll): Promise<string | null>;
}

/** One LLM vendor: a file under lib/llm/providers/, registered by name (`registerProvider`). */
export interface LlmProvider {
  /** The value of `provider` in models.json entries this vendor serves (e.g. `openai`); stored in every record. */
  readonly name: string;
  /** Key variable read when an entry sets no `apiKeyEnv`; null: none needed (local servers). */
  readonly defaultApiKeyEnv: string | null;
  /** Whether an entry must give `baseUrl` or `baseUrlEnv` (the vendor has no default host). */
  readonly requiresBaseUrl: boolean;
  /** Whether requests may ask for extended thinking (`ChatRequest.thinking`, entries' `params.thinking`). */
  readonly acceptsThinking: boolean;
  /**
   * What the vendor accepts of a thinking budget, checked before anything is sent: its minimum, and the output token
   * limit it must stay below (the limit sent, or `defaultMaxTokens` when the request gives none). Absent: no check.
   */
  readonly thinkingLimits?: { minBudget: number; belowMaxTokens: boolean; defaultMaxTokens: number };
  /** Batch protocol of an entry that sets no `batchApi`: a provider name with `openBatch`, or `none` (live calls). */
  readonly defaultBatchApi: string;
  /** Batch protocols (provider names) whose batches can carry this vendor's requests; an entry's `batchApi` must be one of them (or `none`). */
  readonly batchApis: readonly string[];
  /** The wire field of the output token limit for an entry with these accepted params. */
  tokenLimitField(params: ModelParams): TokenLimitField;
  /**
   * Why a `params` value of a models.json entry does not fit this vendor: the text after "expected" in the
   * CONFIG error (e.g. `"max_tokens" (the Anthropic API has no other limit field)`); null when it fits. Called
   * after the generic type check of each field. Absent: every well-typed value fits.
   */
  rejectParam?(name: keyof ModelParams, value: unknown): string | null;
  /**
   * The request body of a normalised request, formatted from `wire`: the request adapted to what the entry accepts
   * (`wireOptions` with the entry's vendor: temperature, token limit, reasoning effort or thinking, tools), which the
   * caller computes and also records the notes of. Used for live calls and batch lines alike.
   */
  toRequest(config: ModelConfig, req: LlmRecord['request'], wire: WireOptions): Record<string, unknown>;
  /** Our answer (text, tool calls, stop reason, model, token usage) from a response body; throws on a body of another shape. */
  fromResponse(body: unknown, requestedModel: string): ProviderAnswer;
  /** The live call: an API client made once per LlmClient, at its first live call (replay needs no key). */
  openChat(opts: ProviderClientOptions): ProviderChatCall;
  /** The vendor's batch protocol for one entry. Absent: the vendor has none (its entries run live in batch mode). */
  openBatch?(config: ModelConfig, opts: ProviderClientOptions): ProviderBatch;
}
