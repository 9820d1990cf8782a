import * as path from 'node:path';
import { recordingsDir } from '../util/paths';
import { EoError, isEoError } from '../errors';
import { errorStatus, withRetries } from './retry';
import type { LlmComplete } from './types';
import { describeChatRequest, llmRecordKey, normalizeChatRequest } from './key';
import { apiKeyEnvOf, callCostUsd, getModelConfig, loadModelsFile, resolveBaseUrl } from './models';
import { providerFor, type ProviderAnswer, type ProviderChatCall } from './providers';
import { estimateCallTokens, worstCaseCallTokens } from './plan';
import { wireOptions } from './params';
import { redactSecrets } from './redact';
import { openRecordStore } from './store';
import type { ChatRequest, ChatResponse, CreateLlmClientOptions, LlmClient, LlmClientStats, LlmMode, LlmRecord, ModelConfig, RecordStore } from './types';

/** Env var selecting the mode: `live`, `record` or `replay` (default `replay`: never spends money unless asked). */
export const LLM_MODE_ENV = 'EO_LLM_MODE';
/** Env var naming the JSONL record store. Default `<repo>/recordings/llm/records.jsonl`. */
export const LLM_STORE_ENV = 'EO_LLM_STORE';

/**
 * Env var: a USD budget for the live and batch calls recorded in one record store, cumulative over runs (what the store
 * has recorded so far counts: `storeRecordedUsd`); unset: no budget. Without a store, the calls of this process.
 */
export const LLM_BUDGET_ENV = 'EO_LLM_BUDGET_USD';

const MODES: readonly LlmMode[] = ['live', 'record', 'replay'];

/** The budget from `$EO_LLM_BUDGET_USD` (null when unset); a value that is not a number ≥ 0 → CONFIG. */
export function budgetFromEnv(env: Record<string, string | undefined> = process.env): number | null {
  const v = (env[LLM_BUDGET_ENV] ?? '').trim();
  if (v === '') return null;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new EoError('CONFIG', `${LLM_BUDGET_ENV}=${JSON.stringify(v)}: expected a number of USD ≥ 0`);
  return n;
}

/**
 * What live calls have cost in this process, shared by every client (so that a budget caps the whole run, all
 * models together). `reserved` is the estimate of calls in flight.
 */
export const llmSpend = { spentUsd: 0, reservedUsd: 0 };

/** USD of the calls recorded per store file (keyed by path; in-memory stores by object): read once, then kept up by every append of this layer. */
const recordedUsdByPath = new Map<string, number>();
const recordedUsdByStore = new WeakMap<RecordStore, number>();

function sumRecordedUsd(store: RecordStore): number {
  return store.records().reduce((a, r) => a + (Number.isFinite(r.costUsd) ? r.costUsd : 0), 0);
}

/**
 * What the calls recorded in `store` cost (USD), earlier runs' included: the sum of their `costUsd`, read from the
 * store the first time a store at that path is seen in this process and kept up by `noteRecordedUsd` after each append.
 */
export function storeRecordedUsd(store: RecordStore): number {
  const known = store.path ? recordedUsdByPath.get(store.path) : recordedUsdByStore.get(store);
  if (known !== undefined) return known;
  const usd = sumRecordedUsd(store);
  if (store.path) recordedUsdByPath.set(store.path, usd);
  else recordedUsdByStore.set(store, usd);
  return usd;
}

/** Count a record just appended to `store` (call after the append: a store seen the first time is summed, the record with it). */
export function noteRecordedUsd(store: RecordStore, usd: number): void {
  const known = store.path ? recordedUsdByPath.get(store.path) : recordedUsdByStore.get(store);
  if (known === undefined) return void storeRecordedUsd(store);
  if (store.path) recordedUsdByPath.set(store.path, known + usd);
  else recordedUsdByStore.set(store, known + usd);
}

/** How to go on after the budget stopped a run: the budget that would let the next call (or batch) through. */
export function budgetContinueHint(spentUsd: number, nextUsd: number, storePath: string | null): string {
  const need = Math.ceil((spentUsd + nextUsd) * 100 + 1e-9) / 100;
  return `rerun with a higher budget to resume: ${LLM_BUDGET_ENV}=${need.toFixed(2)} or more lets the next call through${storePath ? ` (the budget counts every call recorded in ${storePath}, earlier runs' included; calls already recorded are replayed, not paid again)` : ''}`;
}

/** The mode from `$EO_LLM_MODE` (default `replay`); another value → CONFIG. */
export function llmModeFromEnv(env: Record<string, string | undefined> = process.env): LlmMode {
  const v = (env[LLM_MODE_ENV] ?? '').trim().toLowerCase();
  if (v === '') return 'replay';
  if (!MODES.includes(v as LlmMode)) throw new EoError('CONFIG', `${LLM_MODE_ENV}=${JSON.stringify(v)}: expected one of ${MODES.join(', ')}`);
  return v as LlmMode;
}

/** The record store path from `$EO_LLM_STORE`, else `<repo>/recordings/llm/records.jsonl`. */
export function defaultLlmStorePath(env: Record<string, string | undefined> = process.env): string {
  const v = env[LLM_STORE_ENV];
  return v && v.trim() !== '' ? path.resolve(v.trim()) : recordingsDir('llm', 'records.jsonl');
}

/** A counting semaphore: at most `limit` tasks run at once, the rest wait in FIFO order. */
export function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  if (!(Number.isInteger(limit) && limit >= 1)) throw new EoError('INVALID_ARGUMENT', `concurrency limit must be a positive integer, got ${limit}`);
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

const LIMITERS = new Map<string, <T>(task: () => Promise<T>) => Promise<T>>();

/**
 * The live-call limiter of a model config, shared by every client of the same config id (and limit) in this
 * process, so a rerank client and an agent client of one model together stay within `maxConcurrency` (default 4).
 */
function sharedLimiter(config: ModelConfig): <T>(task: () => Promise<T>) => Promise<T> {
  const n = config.maxConcurrency ?? 4;
  const key = `${config.id}\u0000${n}`;
  let l = LIMITERS.get(key);
  if (!l) {
    l = createLimiter(n);
    LIMITERS.set(key, l);
  }
  return l;
}

function emptyStats(): LlmClientStats {
  return { calls: 0, liveCalls: 0, recordedCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, liveCostUsd: 0 };
}

function responseFromRecord(rec: LlmRecord, fromRecording: boolean): ChatResponse {
  return {
    text: rec.response.text,
    toolCalls: rec.response.toolCalls,
    stopReason: rec.response.stopReason,
    model: rec.response.model,
    usage: rec.response.usage,
    costUsd: rec.costUsd,
    latencyMs: rec.latencyMs,
    recordKey: rec.key,
    fromRecording,
  };
}

/**
 * An LLM client for one model config. Calls go through the config's vendor (`providerFor(config.provider)`; the
 * built-in ones use the official SDKs: `openai` for OpenAI and OpenAI-compatible base URLs, `@anthropic-ai/sdk` for
 * Claude) with one retry policy for every vendor (`lib/llm/retry.ts`: 408/409/429/5xx, timeouts, Retry-After honoured;
 * `maxRetries`, `timeoutMs` per attempt) and at most
 * `config.maxConcurrency` live calls in flight per model config (shared by all clients of that config id in the
 * process).
 *
 * Modes: `live` calls the API (and appends to `store` when one is given); `record` serves keys already in the
 * store and calls + appends the rest (so a rerun after an interruption re-issues nothing already recorded);
 * `replay` serves from the store only, a miss is LLM_REPLAY_MISS naming the request. The SDK client is created
 * at the first live call, so replay needs no key. API keys come only from the environment and are scrubbed from
 * errors, logs and records.
 */
export function createLlmClient(config: ModelConfig, opts: CreateLlmClientOptions): LlmClient {
  const mode = opts.mode;
  if (!MODES.includes(mode)) throw new EoError('INVALID_ARGUMENT', `LLM mode must be one of ${MODES.join(', ')}, got ${JSON.stringify(mode)}`);
  const env = opts.env ?? process.env;
  const keyEnv = apiKeyEnvOf(config);
  const apiKey = keyEnv ? env[keyEnv] : undefined;
  const secrets = apiKey ? [apiKey] : [];
  const redact = (s: string) => redactSecrets(s, secrets);
  const rawLog = opts.log ?? ((l: string) => console.warn(l));
  const log = (l: string) => rawLog(redact(l));
  let store: RecordStore | null = null;
  if (typeof opts.store === 'string') store = openRecordStore(opts.store, { log });
  else if (opts.store) store = opts.store;
  if (mode !== 'live' && !store) throw new EoError('CONFIG', `LLM mode ${mode} needs a record store (option store, or $${LLM_STORE_ENV})`);
  const live: LiveCalls = {
    config, mode, env, keyEnv, apiKey, redact, log, store, fetch: opts.fetch, sdkCall: null,
    timeoutMs: opts.timeoutMs ?? 120_000,
    maxRetries: opts.maxRetries ?? 3,
    sleep: opts.sleep,
    budget: opts.budgetUsd === undefined ? budgetFromEnv(env) : opts.budgetUsd,
    stats: emptyStats(),
  };
  const limit = sharedLimiter(config);
  const { stats } = live;
  const inFlight = new Map<string, Promise<ChatResponse>>();

  async function chat(req: ChatRequest): Promise<ChatResponse> {
    if (!req || !Array.isArray(req.messages) || req.messages.length === 0) throw new EoError('INVALID_ARGUMENT', `${config.id}: chat request needs at least one message`);
    const normalized = normalizeChatRequest(config, req);
    const key = llmRecordKey(config, normalized);
    let res: ChatResponse;
    const recorded = mode !== 'live' ? store!.get(key) : undefined;
    if (recorded) {
      res = responseFromRecord(recorded, true);
      stats.recordedCalls++;
    } else if (mode === 'replay') {
      throw new EoError('LLM_REPLAY_MISS', `replay: no recording for ${describeChatRequest(config, req, key)} in ${store!.path ?? 'the in-memory store'} (run with ${LLM_MODE_ENV}=record and a key to record it)`, {
        key,
        configId: config.id,
        store: store!.path,
      });
    } else {
      let p = inFlight.get(key);
      if (!p) {
        p = limit(() => callLive(live, req, normalized, key)).finally(() => inFlight.delete(key));
        inFlight.set(key, p);
      }
      res = await p;
    }
    stats.calls++;
    stats.inputTokens += res.usage.inputTokens;
    stats.outputTokens += res.usage.outputTokens;
    stats.costUsd += res.costUsd;
    return res;
  }

  return { config, mode, chat, stats, store };
}

/** What the live calls of one client share (its entry, key, redaction, store, budget and counters). */
interface LiveCalls {
  config: ModelConfig;
  mode: LlmMode;
  env: Record<string, string | undefined>;
  keyEnv: string | null;
  apiKey: string | undefined;
  redact: (s: string) => string;
  log: (l: string) => void;
  store: RecordStore | null;
  fetch: typeof fetch | undefined;
  timeoutMs: number;
  maxRetries: number;
  /** How retries wait (tests pass a recorder). */
  sleep?: (ms: number) => Promise<void>;
  budget: number | null;
  stats: LlmClientStats;
  /** The vendor's API client, made at the first live call (replay needs no key). */
  sdkCall: ProviderChatCall | null;
}

function openSdk(c: LiveCalls): ProviderChatCall {
  if (c.sdkCall) return c.sdkCall;
  const { config } = c;
  if (c.keyEnv && !c.apiKey)
    throw new EoError('CONFIG', `model ${config.id}: environment variable ${c.keyEnv} is not set (needed for ${c.mode} calls; replay mode needs no key)`, { env: c.keyEnv });
  const baseURL = resolveBaseUrl(config, c.env) ?? undefined;
  const sdkLogger = {
    error: (...a: unknown[]) => c.log(`[${config.id}] ${a.map(String).join(' ')}`),
    warn: (...a: unknown[]) => c.log(`[${config.id}] ${a.map(String).join(' ')}`),
    info: () => {},
    debug: () => {},
  };
  // the client retries (lib/llm/retry.ts), the SDK does not: one policy for every vendor
  c.sdkCall = providerFor(config.provider).openChat({ apiKey: c.apiKey, baseURL, timeout: c.timeoutMs, maxRetries: 0, logger: sdkLogger, logLevel: 'warn', ...(c.fetch ? { fetch: c.fetch } : {}) });
  return c.sdkCall;
}

/** One live call within the budget: stop before a call whose estimated cost would take the run past it (recorded calls stay; rerun resumes). */
async function callLive(c: LiveCalls, req: ChatRequest, normalized: LlmRecord['request'], key: string): Promise<ChatResponse> {
  const { config, budget, store } = c;
  let reserved = 0;
  if (budget !== null) {
    // the worst case (the call's whole token limit), so that what is spent never passes the budget
    reserved = callCostUsd(config, worstCaseCallTokens(config, normalized));
    // cumulative per store: what it has recorded (earlier runs too), else what this process spent
    const spent = store ? storeRecordedUsd(store) : llmSpend.spentUsd;
    if (spent + llmSpend.reservedUsd + reserved > budget)
      throw new EoError(
        'LLM_BUDGET',
        `${config.id}: stopped before a call that may cost up to ${reserved.toFixed(4)} USD (its whole token limit): ${store ? `the record store ${store.path ?? '(in memory)'} has recorded ${spent.toFixed(4)} USD of calls` : `this run has spent ${spent.toFixed(4)} USD`} (+${llmSpend.reservedUsd.toFixed(4)} in flight) of ${LLM_BUDGET_ENV}=${budget}. Recorded calls are kept; ${budgetContinueHint(spent + llmSpend.reservedUsd, reserved, store?.path ?? null)}.`,
        { configId: config.id, budget, spent },
      );
    llmSpend.reservedUsd += reserved;
  }
  try {
    return await callLiveUnbudgeted(c, req, normalized, key);
  } finally {
    llmSpend.reservedUsd -= reserved;
  }
}

/** The vendor call, its answer read, recorded (scrubbed) and counted. */
async function callLiveUnbudgeted(c: LiveCalls, req: ChatRequest, normalized: LlmRecord['request'], key: string): Promise<ChatResponse> {
  const { config, redact, store, stats } = c;
  const vendor = providerFor(config.provider);
  const wire = wireOptions(config, normalized, vendor);
  const body = vendor.toRequest(config, normalized, wire);
  const t0 = Date.now();
  let raw: unknown;
  try {
    const call = openSdk(c);
    raw = await withRetries(() => call(body), {
      maxRetries: c.maxRetries, sleep: c.sleep,
      onRetry: (attempt, waitMs, e) => c.log(redact(`[${config.id}] attempt ${attempt} failed (${errorStatus(e) ?? (e as Error)?.name ?? 'error'}); retrying in ${(waitMs / 1000).toFixed(1)} s`)),
    });
  } catch (e) {
    if (isEoError(e)) throw e;
    const status = errorStatus(e);
    const err = e as Error & { attempts?: number };
    const attempts = err?.attempts ?? 1;
    throw new EoError(
      'LLM',
      redact(`${config.id} (${config.model}) call failed after ${attempts} attempt${attempts === 1 ? '' : 's'} (maxRetries ${c.maxRetries}): ${err?.name ?? 'Error'}${status ? ` ${status}` : ''}: ${err?.message ?? String(e)} [request ${describeChatRequest(config, req, key)}]`),
      { configId: config.id, status: status ?? null, key, attempts },
    );
  }
  const latencyMs = Date.now() - t0;
  let answer: ProviderAnswer;
  try {
    answer = vendor.fromResponse(raw, config.model);
  } catch (e) {
    throw new EoError('LLM', redact(`${config.id}: unexpected response shape (${(e as Error).message}) [request ${describeChatRequest(config, req, key)}]`), { configId: config.id, key });
  }
  const costUsd = callCostUsd(config, answer.usage);
  const rec: LlmRecord = {
    v: 1,
    key,
    configId: config.id,
    provider: config.provider,
    requestedModel: config.model,
    request: normalized,
    response: { ...answer, raw },
    costUsd,
    latencyMs,
    timestamp: new Date().toISOString(),
  };
  const notes = wire.notes;
  if (notes.length > 0) rec.notes = notes;
  if (req.stage !== undefined) rec.stage = req.stage;
  // the answer returned is the one recorded: scrubbed alike, so live and replay give the same text
  const scrubbed = scrubRecord(rec, redact);
  if (store) {
    store.append(scrubbed);
    noteRecordedUsd(store, costUsd);
  }
  stats.liveCalls++;
  stats.liveCostUsd += costUsd;
  llmSpend.spentUsd += costUsd;
  return responseFromRecord(scrubbed, false);
}

/** A record with every secret string removed (the raw body is the provider's answer; this is belt and braces). */
function scrubRecord(rec: LlmRecord, redact: (s: string) => string): LlmRecord {
  const s = JSON.stringify(rec);
  const r = redact(s);
  return r === s ? rec : (JSON.parse(r) as LlmRecord);
}

export interface LlmClientFromEnvOptions {
  /** Model configs to look the id up in. Default: loadModelsFile() ($LLM_MODELS_FILE or lib/llm/models.json). */
  models?: readonly ModelConfig[];
  /** Default: llmModeFromEnv(). */
  mode?: LlmMode;
  /** Default: defaultLlmStorePath(). */
  store?: RecordStore | string;
  /** Other client options (timeoutMs, maxRetries, fetch, log). */
  client?: Omit<CreateLlmClientOptions, 'mode' | 'store'>;
  env?: Record<string, string | undefined>;
}

/** A client for the model with this id, configured from the environment (mode, store, key) and the models file. */
export function createLlmClientFromEnv(id: string, opts: LlmClientFromEnvOptions = {}): LlmClient {
  const env = opts.env ?? process.env;
  const models = opts.models ?? loadModelsFile(undefined, env).models;
  const config = getModelConfig(id, models);
  return createLlmClient(config, { ...(opts.client ?? {}), env, mode: opts.mode ?? llmModeFromEnv(env), store: opts.store ?? defaultLlmStorePath(env) });
}

/** Adapter to `LlmComplete` (lib/llm/types.ts), so the LLM query writer runs through this layer. */
export function toLlmComplete(client: LlmClient): LlmComplete {
  return async (req) => {
    const r = await client.chat({ messages: req.messages, temperature: req.temperature, sample: req.sample });
    return { text: r.text, model: r.model };
  };
}
