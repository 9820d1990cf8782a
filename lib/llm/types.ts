/**
 * LLM client layer: one chat interface over the official OpenAI and Anthropic SDKs, with every call recorded to
 * an append-only JSONL store (live / record / replay). See README.md beside this file.
 */

/** A tool the model may call (native tool calling: OpenAI `tools`, Anthropic `tools`). */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** One tool call the model made, normalised over providers. */
export interface ToolCall {
  /** Provider id of the call (OpenAI `call_…`, Anthropic `toolu_…`); echoed back in the `tool` message. */
  id: string;
  name: string;
  /** Parsed arguments. `{}` when the provider's argument string was not a JSON object (see `argumentsError`). */
  arguments: Record<string, unknown>;
  /** Set when the arguments could not be parsed (OpenAI sends them as a JSON string): why. */
  argumentsError?: string;
  /** The unparsed argument string, kept only when parsing failed. */
  rawArguments?: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ChatRequest {
  messages: ChatMessage[];
  /** Tools offered to the model. Default: none. */
  tools?: ToolSpec[];
  /** Sampling temperature. Default 0. */
  temperature?: number;
  /** Output token limit. Default: `ModelConfig.maxTokens`, else the provider's default (Anthropic: 4096). */
  maxTokens?: number;
  /** Distinguishes independent samples of the same request; part of the record key. Default 0. */
  sample?: number;
  /**
   * Reasoning effort for OpenAI reasoning models (`reasoning_effort`: e.g. `low`, `medium`, `high`). Default: the
   * entry's `reasoningEffort`, else not sent. A model whose entry does not accept it gets none (noted in the record).
   */
  reasoningEffort?: string;
  /** Anthropic extended thinking with this token budget. Default: off (no `thinking` field is sent). */
  thinking?: { budgetTokens: number };
  /** Pipeline stage that made the call (`writer`, `listwise`, `agentic`, `judge`…): stored on the record, not part of its key. */
  stage?: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ChatResponse {
  /** Concatenated text content ('' when the model only called tools). */
  text: string;
  toolCalls: ToolCall[];
  /** Provider stop reason as reported (`stop`, `tool_calls`, `length`, `end_turn`, `tool_use`, `max_tokens`…). */
  stopReason: string;
  /** Snapshot id the API reports for the answer. */
  model: string;
  usage: Usage;
  /** usage × the config's prices (USD). */
  costUsd: number;
  /** Wall time of the live call, SDK retries included (for a recording: the recorded call's). */
  latencyMs: number;
  /** Hash of the request (see `llmRecordKey`). */
  recordKey: string;
  /** True when served from the record store instead of the API. */
  fromRecording: boolean;
}

/**
 * The `provider` of a models.json entry: a vendor registered in lib/llm/providers (`providerFor`). Built in:
 * `openai`, `anthropic`, `openai-compatible`; `registerProvider` adds others.
 */
export type LlmProviderName = 'openai' | 'anthropic' | 'openai-compatible' | (string & {});

/**
 * How a model treats `temperature`: `any` value is sent; `default-only` (o-series reasoning models) never sends
 * one; `effort-none-only` (GPT-5.1 and later) sends it only when the request's reasoning effort is `none`.
 */
export type TemperatureSupport = 'any' | 'default-only' | 'effort-none-only';

/** Which field carries the output token limit on the wire. */
export type TokenLimitField = 'max_completion_tokens' | 'max_tokens';

/** The wire options of one request after adaptation to the model's accepted parameters (`wireOptions`). */
export interface WireOptions {
  /** Temperature to send (undefined: none sent). */
  temperature?: number;
  /** Token-limit field and value (undefined: none sent; Anthropic then uses its required default). */
  tokenLimit?: { field: TokenLimitField; value: number };
  /** `reasoning_effort` to send (undefined: none). */
  reasoningEffort?: string;
  /** Anthropic `thinking` budget (undefined: thinking off, no field sent). */
  thinkingBudget?: number;
  /** Whether tools may be sent. */
  tools: boolean;
  /** One line per option dropped or mapped (empty when the request was sent as asked). */
  notes: string[];
}

/** Which batch protocol a model can be submitted through: a vendor with a batch protocol (`LlmProvider.openBatch`), or `none`. */
export type BatchApi = 'openai' | 'anthropic' | 'none' | (string & {});

/**
 * The request parameters a model entry accepts (validated when the models file is read). A request option the
 * model does not accept is dropped or mapped before sending, with a note in the record; it is never sent.
 */
export interface ModelParams {
  /** Default `any`. OpenAI reasoning models (o-series, GPT-5.x): `default-only`. */
  temperature?: TemperatureSupport;
  /** Default: `max_completion_tokens` for provider openai, `max_tokens` otherwise (Anthropic always `max_tokens`). */
  tokenLimit?: TokenLimitField;
  /** Accepted `reasoning_effort` values (OpenAI reasoning models). Default: none (the field is never sent). */
  reasoningEffort?: string[];
  /** Whether Anthropic extended thinking may be requested. Default false. */
  thinking?: boolean;
  /** Whether native tool calling is accepted. Default true. */
  tools?: boolean;
}

export interface ModelConfig {
  /** Our name, e.g. `gpt-4o-mini`; part of the record key. */
  id: string;
  provider: LlmProviderName;
  /** Snapshot id sent to the API, e.g. `gpt-4o-mini-2024-07-18`. */
  model: string;
  /** API base URL. Default: the SDK's (OpenAI `https://api.openai.com/v1`, Anthropic `https://api.anthropic.com`). */
  baseUrl?: string;
  /** Env var that, when set, overrides `baseUrl` (e.g. `EO_JUDGE_BASE_URL` for a vLLM host). Default: none. */
  baseUrlEnv?: string;
  /**
   * Env var holding the API key. Default: `OPENAI_API_KEY` (openai), `ANTHROPIC_API_KEY` (anthropic), none
   * (openai-compatible: local servers such as vLLM/Ollama get the placeholder key `EMPTY`).
   */
  apiKeyEnv?: string;
  /** USD per million input tokens. */
  inputPricePerMTok: number;
  /** USD per million output tokens. */
  outputPricePerMTok: number;
  /** Most live calls in flight at once for this model config id (shared by all its clients in a process). Default 4. */
  maxConcurrency?: number;
  /** Default output token limit for this model. Default: none (provider default; Anthropic 4096). */
  maxTokens?: number;
  /** Free text shown in tables (e.g. where the price comes from). */
  note?: string;
  /** The model's role in the paper (`reranker`, `writer`, `judge`), for tables. Default: none. */
  paperRole?: string;
  /** Request parameters the model accepts. Default: every field's default (see ModelParams). */
  params?: ModelParams;
  /** `reasoning_effort` sent when a request sets none (must be one of `params.reasoningEffort`). Default: none sent. */
  reasoningEffort?: string;
  /** Temperature used when a request sets none (e.g. the paper's writer: 0.2). Default 0. */
  defaultTemperature?: number;
  /** Batch protocol. Default: the vendor's (`LlmProvider.defaultBatchApi`: `openai` for openai, `anthropic` for anthropic, `none` otherwise). */
  batchApi?: BatchApi;
  /** Batch USD per million input tokens. Default: none (batch cost shown as n/a). */
  batchInputPricePerMTok?: number;
  /** Batch USD per million output tokens. Default: none. */
  batchOutputPricePerMTok?: number;
  /** True while the prices have not been checked against the provider's page (shown in every cost table). Default false. */
  pricesToBeChecked?: boolean;
  /**
   * Output tokens a call typically spends before its visible answer (reasoning tokens, billed as output), for cost
   * estimates only. Default 0.
   */
  estimatedReasoningTokens?: number;
}

export type LlmMode = 'live' | 'record' | 'replay';

/** One line of the JSONL record store. */
export interface LlmRecord {
  /** Record format version. */
  v: 1;
  /** `llmRecordKey` of the request. */
  key: string;
  configId: string;
  provider: LlmProviderName;
  /** Snapshot id requested. */
  requestedModel: string;
  request: {
    messages: ChatMessage[];
    tools: ToolSpec[];
    temperature: number;
    maxTokens: number | null;
    sample: number;
    /** Requested reasoning effort (absent: none; absent members keep older record keys unchanged). */
    reasoningEffort?: string;
    /** Requested Anthropic extended thinking (absent: off). */
    thinking?: { budgetTokens: number };
  };
  response: {
    text: string;
    toolCalls: ToolCall[];
    stopReason: string;
    /** Snapshot id the API reported. */
    model: string;
    usage: Usage;
    /** The provider's response body as received (no headers, no credentials). */
    raw: unknown;
  };
  costUsd: number;
  latencyMs: number;
  /** ISO 8601 time the answer arrived. */
  timestamp: string;
  /** Request options that were dropped or mapped before sending (e.g. `temperature 0 not sent: …`). Absent: none. */
  notes?: string[];
  /** Pipeline stage of the call (see ChatRequest.stage). Absent: not given. */
  stage?: string;
  /** Set when the answer came through a batch API: provider, batch id, custom id. */
  batch?: { api: BatchApi; batchId: string; customId: string };
  /** Set when the record was imported from a released payload file (`eo llm import`). */
  imported?: { file: string; line: number; remapped: boolean; originalText?: string };
}

/** An append-only store of LLM records, keyed by request hash. */
export interface RecordStore {
  /** JSONL file backing the store; null for an in-memory store. */
  path: string | null;
  get(key: string): LlmRecord | undefined;
  has(key: string): boolean;
  /** Append one record (one line, fsynced). A key already present is not written again. */
  append(record: LlmRecord): void;
  /** Number of distinct keys. */
  size(): number;
  /** All records, in file order (first occurrence of each key). */
  records(): LlmRecord[];
}

/** Running totals of one client (mutated by each call). */
export interface LlmClientStats {
  /** chat() calls answered (live + from recordings). */
  calls: number;
  /** Calls that went to the API. */
  liveCalls: number;
  /** Calls served from the record store. */
  recordedCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Sum of costUsd over all answered calls (recorded ones included: what the results cost to produce). */
  costUsd: number;
  /** Cost of the live calls only (what this session paid). */
  liveCostUsd: number;
}

export interface LlmClient {
  config: ModelConfig;
  mode: LlmMode;
  chat(req: ChatRequest): Promise<ChatResponse>;
  /** Running totals. */
  stats: LlmClientStats;
  /** The record store in use (null in live mode without one). */
  store: RecordStore | null;
}

export interface CreateLlmClientOptions {
  /** `live` (API only), `record` (store hits served from the store; misses go live and are appended), `replay` (store only). */
  mode: LlmMode;
  /** Record store or the path of its JSONL file. Required in `record` and `replay`; optional in `live` (then every call is appended). */
  store?: RecordStore | string | null;
  /** SDK per-attempt timeout in ms. Default 120000. */
  timeoutMs?: number;
  /**
   * Retries of a live call on 408/409/429/5xx/connection errors/timeouts, for every vendor (`lib/llm/retry.ts`:
   * Retry-After honoured up to 60 s, else 0.5 s doubling to 8 s). Default 3.
   */
  maxRetries?: number;
  /** How a retry waits. Default setTimeout (tests pass a recorder). */
  sleep?: (ms: number) => Promise<void>;
  /** fetch implementation handed to the SDK. Default: the global fetch. */
  fetch?: typeof fetch;
  /** Environment to read the key and base-URL override from. Default process.env. */
  env?: Record<string, string | undefined>;
  /** Warnings (store repair, SDK warnings), already redacted. Default console.warn. */
  log?: (line: string) => void;
  /**
   * USD budget of the live calls of this process (all clients together): a call whose estimated cost would exceed
   * it fails with LLM_BUDGET before it is sent. Default `$EO_LLM_BUDGET_USD`, else none (null).
   */
  budgetUsd?: number | null;
}

/** A models file: data, not code (lib/llm/models.json). */
export interface ModelsFile {
  /** Free text: where the prices come from and that they must be checked. */
  note?: string;
  models: ModelConfig[];
}

/** Whether a model can be called from this environment (for "not configured" notebook sections). */
export interface ModelAvailability {
  id: string;
  provider: LlmProviderName;
  model: string;
  /** Env var that must hold the key (null: none needed). */
  apiKeyEnv: string | null;
  /** Whether the key variable is set (true when none is needed). */
  keySet: boolean;
  /** Base URL that would be used (null: the SDK default). */
  baseUrl: string | null;
  /** Records of this model config in the given store. */
  recordedCalls: number;
}

/** A chat-completion function (`toLlmComplete` adapts an `LlmClient` to it; lib/bench's LLM query writer takes one): one request in, the text of one answer out. */
export type LlmComplete = (req: {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  temperature: number;
  /** Distinguishes independent samples of the same prompt (and keys recordings). */
  sample?: number;
}) => Promise<{ text: string; model: string }>;
