/**
 * Batch mode: many independent chat requests submitted through a vendor's batch protocol (`LlmProvider.openBatch`
 * in lib/llm/providers: OpenAI Batch, Anthropic Message Batches). Every answer becomes an ordinary LlmRecord in the
 * same record store as a live call, under the same key, so replay does not change.
 *
 * Never twice: every submission is written to an append-only batch log BEFORE any remote call (an intent holding
 * the keys and the normalised requests), then its file id and batch id as soon as the API returns them. A key that
 * is recorded, or in a batch that has not been collected, is never submitted again. A run interrupted between the
 * API accepting a batch and the log line is resolved on resume: OpenAI batches carry the intent id in
 * `metadata.eo_sid` and are found by listing; Anthropic batches (no metadata) are adopted when exactly one batch
 * created after the intent has the intent's request count, and the run stops with LLM_BATCH_UNCERTAIN when that
 * is ambiguous (it never guesses by submitting). Items that fail or expire are retried in a new batch up to
 * `maxAttempts` submissions, then reported.
 *
 * Models without a batch API (`batchApi: none`: DeepSeek, a local vLLM judge) run live with their concurrency limit
 * through the same store (record mode), so a `--batch` stage still completes and resumes the same way.
 */
import * as fs from 'node:fs';
import * as crypto from 'node:crypto';
import { EoError } from '../errors';
import { appendLineWhole, writeFailure } from '../util/fs';
import { budgetContinueHint, budgetFromEnv, createLlmClient, LLM_BUDGET_ENV, noteRecordedUsd, storeRecordedUsd } from './client';
import { llmRecordKey, normalizeChatRequest } from './key';
import { apiKeyEnvOf, batchApiOf, batchCallCostUsd, callCostUsd, resolveBaseUrl } from './models';
import { wireOptions } from './params';
import { providerFor } from './providers';
import { redactSecrets } from './redact';
import { openRecordStore } from './store';
import { estimateCallTokens } from './plan';
import type { BatchApi, ChatRequest, LlmRecord, ModelConfig, RecordStore } from './types';

/** One line of the batch log. */
export type BatchLogEvent =
  | { type: 'intent'; sid: string; configId: string; api: BatchApi; attempt: number; at: string; keys: string[]; requests: LlmRecord['request'][]; stages: (string | null)[] }
  | { type: 'uploaded'; sid: string; fileId: string }
  | { type: 'submitted'; sid: string; batchId: string; adopted?: boolean }
  | { type: 'abandoned'; sid: string; reason: string }
  | { type: 'ended'; sid: string; status: string }
  | { type: 'collected'; sid: string; succeeded: number; failed: { key: string; reason: string }[] };

/** What the log says about one submission. */
export interface BatchSubmission {
  sid: string;
  configId: string;
  api: BatchApi;
  attempt: number;
  at: string;
  keys: string[];
  requests: LlmRecord['request'][];
  stages: (string | null)[];
  fileId: string | null;
  batchId: string | null;
  status: string | null;
  abandoned: string | null;
  collected: { succeeded: number; failed: { key: string; reason: string }[] } | null;
}

/** Default batch log beside a record store: `<store>.batches.jsonl`. */
export function defaultBatchLogPath(storePath: string): string {
  return `${storePath}.batches.jsonl`;
}

/**
 * Read the batch log. A torn last line (an interrupted write) and a corrupt line anywhere (not JSON, or an event of a
 * submission the log never opened) are skipped, each with one warning naming file, line and cause (`log`, default
 * console.warn), and returned in `skipped`: never a crash, never an event read wrong.
 */
export function readBatchLogChecked(file: string, opts: { log?: (line: string) => void } = {}): { submissions: BatchSubmission[]; skipped: { line: number; reason: string }[] } {
  const log = opts.log ?? ((l: string) => console.warn(l));
  const skipped: { line: number; reason: string }[] = [];
  if (!fs.existsSync(file)) return { submissions: [], skipped };
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const bySid = new Map<string, BatchSubmission>();
  const skip = (i: number, reason: string) => {
    skipped.push({ line: i + 1, reason });
    log(`batch log ${file}:${i + 1}: ${reason}; line skipped`);
  };
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    let e: BatchLogEvent;
    try {
      e = JSON.parse(raw);
    } catch (err) {
      // a torn last line: the event was never acted on
      skip(i, i === lines.length - 1 ? 'torn last line (interrupted write)' : `invalid JSON (${(err as Error).message})`);
      return;
    }
    if (e === null || typeof e !== 'object' || typeof e.sid !== 'string') return skip(i, 'not a batch log event');
    if (e.type === 'intent') {
      bySid.set(e.sid, { sid: e.sid, configId: e.configId, api: e.api, attempt: e.attempt, at: e.at, keys: e.keys, requests: e.requests, stages: e.stages ?? e.keys.map(() => null), fileId: null, batchId: null, status: null, abandoned: null, collected: null });
      return;
    }
    const s = bySid.get(e.sid);
    if (!s) return skip(i, `event ${e.type} for unknown submission ${e.sid}`);
    if (e.type === 'uploaded') s.fileId = e.fileId;
    else if (e.type === 'submitted') s.batchId = e.batchId;
    else if (e.type === 'abandoned') s.abandoned = e.reason;
    else if (e.type === 'ended') s.status = e.status;
    else if (e.type === 'collected') s.collected = { succeeded: e.succeeded, failed: e.failed };
  });
  return { submissions: [...bySid.values()], skipped };
}

/** The batch log's submissions (`readBatchLogChecked`, skipped lines warned about). */
export function readBatchLog(file: string, opts: { log?: (line: string) => void } = {}): BatchSubmission[] {
  return readBatchLogChecked(file, opts).submissions;
}

/**
 * Append one event (one line, one write call, fsynced: `appendLineWhole`). A torn last line (a write cut short by a
 * kill) is first moved to `<file>.torn`.
 */
function appendEvent(file: string, e: BatchLogEvent): void {
  if (fs.existsSync(file)) {
    const buf = fs.readFileSync(file);
    if (buf.length > 0 && buf[buf.length - 1] !== 0x0a) {
      const start = buf.lastIndexOf(0x0a) + 1;
      appendLineWhole(`${file}.torn`, buf.subarray(start));
      try {
        fs.truncateSync(file, start);
      } catch (err) {
        throw writeFailure(file, err, 'cut the torn last line from');
      }
    }
  }
  appendLineWhole(file, JSON.stringify(e) + '\n');
}

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

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Submit `requests` for one model through its batch API (see the module comment), wait, collect the answers into
 * the record store, retry failures, and return what happened. Rerunning with the same requests resumes: recorded
 * keys are skipped, open batches are polled and collected, nothing is submitted twice.
 */
export async function runBatch(opts: RunBatchOptions): Promise<RunBatchResult> {
  const config = opts.config;
  const env = opts.env ?? process.env;
  const api = batchApiOf(config);
  const store: RecordStore = typeof opts.store === 'string' ? openRecordStore(opts.store, { log: opts.log }) : opts.store;
  const logFile = opts.batchLog ?? (store.path ? defaultBatchLogPath(store.path) : null);
  if (!logFile) throw new EoError('CONFIG', 'runBatch: an in-memory record store needs the batchLog option');
  const keyEnv = apiKeyEnvOf(config);
  const apiKey = keyEnv ? env[keyEnv] : undefined;
  const redact = (s: string) => redactSecrets(s, apiKey ? [apiKey] : []);
  const log = (l: string) => (opts.log ?? ((x: string) => console.warn(x)))(redact(l));
  const sleep = opts.sleep ?? realSleep;
  const maxAttempts = opts.maxAttempts ?? 2;
  const budget = opts.budgetUsd === undefined ? budgetFromEnv(env) : opts.budgetUsd;

  // distinct requests by key
  const byKey = new Map<string, { request: LlmRecord['request']; stage: string | null }>();
  for (const r of opts.requests) {
    const n = normalizeChatRequest(config, r);
    const k = llmRecordKey(config, n);
    if (!byKey.has(k)) byKey.set(k, { request: n, stage: r.stage ?? null });
  }
  const alreadyRecorded = [...byKey.keys()].filter((k) => store.has(k)).length;
  const result: RunBatchResult = {
    configId: config.id, api, total: byKey.size, alreadyRecorded, submittedBatches: [], submittedRequests: 0, collected: 0, inFlight: 0, failed: [],
    notSubmittedForBudget: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, estimatedCostUsd: 0,
  };
  /** In flight and failed now (result.inFlight / result.failed are set only at the end): `liveCounts`, set per path below. */
  let liveCounts = (): { inFlight: number; failed: number } => ({ inFlight: 0, failed: 0 });
  const progress = (event: string) => {
    if (!opts.onProgress) return;
    const now = liveCounts();
    opts.onProgress({
      configId: config.id, total: byKey.size, done: [...byKey.keys()].filter((k) => store.has(k)).length, inFlight: now.inFlight,
      failed: now.failed, inputTokens: result.inputTokens, outputTokens: result.outputTokens, costUsd: result.costUsd, event,
    });
  };

  const outTokens = (req: LlmRecord['request']) => opts.estimatedOutputTokens ?? Math.min(req.maxTokens ?? Infinity, 64 + (config.estimatedReasoningTokens ?? 0));
  const estimate = (req: LlmRecord['request']) => {
    const t = estimateCallTokens(req, outTokens(req));
    return batchCallCostUsd(config, t) ?? callCostUsd(config, t);
  };

  if (api === 'none') {
    // no batch API: live calls with the model's concurrency, recorded in the same store
    const client = createLlmClient(config, { mode: 'record', store, env, timeoutMs: opts.timeoutMs, maxRetries: opts.maxRetries, fetch: opts.fetch, log: opts.log, budgetUsd: budget });
    const todo = [...byKey.entries()].filter(([k]) => !store.has(k));
    liveCounts = () => ({ inFlight: todo.length - result.collected - result.failed.length - result.notSubmittedForBudget, failed: result.failed.length });
    await Promise.all(
      todo.map(async ([key, { request, stage }]) => {
        try {
          const r = await client.chat({ ...request, maxTokens: request.maxTokens ?? undefined, stage: stage ?? undefined });
          result.submittedRequests++;
          result.collected++;
          result.inputTokens += r.usage.inputTokens;
          result.outputTokens += r.usage.outputTokens;
          result.costUsd += r.costUsd;
          progress(`live call ${key}`);
        } catch (e) {
          if ((e as EoError).code === 'LLM_BUDGET') result.notSubmittedForBudget++;
          else {
            result.failed.push({ key, reason: (e as Error).message, attempts: 1 });
            progress(`live call ${key} failed`);
          }
        }
      }),
    );
    progress('done');
    return result;
  }

  if (keyEnv && !apiKey) throw new EoError('CONFIG', `model ${config.id}: environment variable ${keyEnv} is not set (needed to submit batches)`, { env: keyEnv });
  const baseURL = resolveBaseUrl(config, env) ?? undefined;
  const common = { baseURL, timeout: opts.timeoutMs ?? 120_000, maxRetries: opts.maxRetries ?? 3, ...(opts.fetch ? { fetch: opts.fetch } : {}) };
  // the batch protocol's vendor submits and parses the answers (an openai-compatible entry may use OpenAI Batch)
  const batchVendor = providerFor(api);
  if (!batchVendor.openBatch) throw new EoError('CONFIG', `model ${config.id}: batchApi ${api} names provider ${api}, which has no batch protocol`, { configId: config.id });
  const protocol = batchVendor.openBatch(config, { apiKey, ...common });
  const wrap = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      if (e instanceof EoError) throw e;
      throw new EoError('LLM', redact(`${config.id} batch ${what} failed: ${(e as Error).message}`), { configId: config.id });
    }
  };

  const warned = new Set<string>(); // the log is read again after each step: warn once per skipped line
  const warnOnce = (l: string) => void (warned.has(l) || (warned.add(l), (opts.log ?? console.warn)(l)));
  const mine = () => readBatchLog(logFile, { log: warnOnce }).filter((s) => s.configId === config.id);

  // 1. resolve submissions that may have reached the API without their batch id being logged
  for (const s of mine()) {
    if (s.batchId || s.abandoned) continue;
    const known = new Set(mine().map((x) => x.batchId).filter((x): x is string => !!x));
    const id = await wrap('lookup', () => protocol.find(s, known));
    if (id) {
      appendEvent(logFile, { type: 'submitted', sid: s.sid, batchId: id, adopted: true });
      log(`batch ${s.sid}: found batch ${id} accepted before the interruption; collecting it instead of submitting again`);
    } else appendEvent(logFile, { type: 'abandoned', sid: s.sid, reason: 'not found at the provider after an interruption: never submitted' });
  }

  const collect = async (s: BatchSubmission): Promise<void> => {
    const res = await wrap('results', () => protocol.results(s.batchId!));
    const failed: { key: string; reason: string }[] = [];
    let ok = 0;
    s.keys.forEach((key, i) => {
      const r = res.get(key) ?? res.get('*');
      if (!r) return void failed.push({ key, reason: `no result line (batch ${s.status ?? 'ended'})` });
      if ('error' in r) return void failed.push({ key, reason: r.error });
      if (store.has(key)) return void ok++;
      let answer;
      try {
        answer = batchVendor.fromResponse(r.body, config.model);
      } catch (e) {
        return void failed.push({ key, reason: `unexpected answer shape: ${(e as Error).message}` });
      }
      const request = s.requests[i];
      const rec: LlmRecord = {
        v: 1, key, configId: config.id, provider: config.provider, requestedModel: config.model, request,
        response: { ...answer, raw: r.body },
        costUsd: batchCallCostUsd(config, answer.usage) ?? callCostUsd(config, answer.usage),
        latencyMs: 0,
        timestamp: new Date().toISOString(),
        batch: { api, batchId: s.batchId!, customId: key },
      };
      const notes = wireOptions(config, request).notes;
      if (notes.length > 0) rec.notes = notes;
      if (s.stages[i]) rec.stage = s.stages[i]!;
      store.append(JSON.parse(redact(JSON.stringify(rec))));
      noteRecordedUsd(store, rec.costUsd);
      ok++;
      if (byKey.has(key)) {
        result.collected++;
        result.inputTokens += answer.usage.inputTokens;
        result.outputTokens += answer.usage.outputTokens;
        result.costUsd += rec.costUsd;
      }
    });
    appendEvent(logFile, { type: 'collected', sid: s.sid, succeeded: ok, failed });
    progress(`collected batch ${s.batchId}: ${ok} answers, ${failed.length} failed`);
  };

  /** Poll open batches; collect those that ended. Returns how many are still open. */
  const pollOpen = async (wait: boolean): Promise<number> => {
    let open = mine().filter((s) => s.batchId && !s.collected);
    for (let poll = 0; open.length > 0; poll++) {
      for (const s of open) {
        const st = await wrap('status', () => protocol.status(s.batchId!));
        if (st.ended) {
          appendEvent(logFile, { type: 'ended', sid: s.sid, status: st.status });
          s.status = st.status;
          await collect(s);
        }
      }
      open = mine().filter((s) => s.batchId && !s.collected);
      if (open.length === 0 || !wait || poll + 1 >= (opts.maxPolls ?? 2880)) break;
      progress(`waiting for ${open.length} batch(es)`);
      await sleep(opts.pollIntervalMs ?? 30_000);
    }
    return open.length;
  };

  /** Per key, from the log: in an uncollected batch, submissions so far, last failure. */
  const keyStates = () => {
    const inFlight = new Set<string>();
    const attempts = new Map<string, number>();
    const lastFailure = new Map<string, string>();
    for (const s of mine()) {
      if (s.abandoned) continue;
      for (const k of s.keys) attempts.set(k, (attempts.get(k) ?? 0) + 1);
      if (!s.collected) s.keys.forEach((k) => inFlight.add(k));
      else for (const f of s.collected.failed) lastFailure.set(f.key, f.reason);
    }
    return { inFlight, attempts, lastFailure };
  };

  liveCounts = () => {
    const { inFlight, lastFailure } = keyStates();
    let open = 0;
    let failed = 0;
    for (const k of byKey.keys()) {
      if (store.has(k)) continue;
      if (inFlight.has(k)) open++;
      else if (lastFailure.has(k)) failed++;
    }
    return { inFlight: open, failed };
  };

  const wait = opts.wait ?? true;
  const batchSize = opts.maxBatchSize ?? 10_000;
  // the budget is cumulative per store: what it has recorded, plus the estimate of this config's open batches
  const openEstimate = () => {
    const { inFlight } = keyStates();
    return mine().filter((s) => s.batchId && !s.collected && !s.abandoned).reduce((a, s) => a + s.keys.reduce((b, k, i) => b + (inFlight.has(k) && !store.has(k) ? estimate(s.requests[i]) : 0), 0), 0);
  };
  let submittedEstimate = 0;
  for (;;) {
    const stillOpen = await pollOpen(wait);
    const { inFlight, attempts } = keyStates();
    const todo = [...byKey.keys()].filter((k) => !store.has(k) && !inFlight.has(k) && (attempts.get(k) ?? 0) < maxAttempts);
    let submittedNow = 0;
    for (let i = 0; i < todo.length; i += batchSize) {
      let chunk = todo.slice(i, i + batchSize);
      const costs = chunk.map((k) => estimate(byKey.get(k)!.request));
      let n = chunk.length;
      if (budget !== null) {
        const already = storeRecordedUsd(store) + openEstimate();
        let add = 0;
        n = 0;
        while (n < chunk.length && already + add + costs[n] <= budget) add += costs[n++];
        submittedEstimate += add;
        if (n < chunk.length) {
          result.notSubmittedForBudget = todo.length - i - n;
          const rest = todo.slice(i + n).reduce((a, k) => a + estimate(byKey.get(k)!.request), 0);
          log(`${config.id}: ${result.notSubmittedForBudget} request(s) not submitted: the store has recorded ${storeRecordedUsd(store).toFixed(4)} USD and open batches are estimated at ${(already - storeRecordedUsd(store)).toFixed(4)}; with the ${result.notSubmittedForBudget} (≈ ${rest.toFixed(4)} USD) that would exceed ${LLM_BUDGET_ENV}=${budget} USD. Nothing is submitted twice; ${budgetContinueHint(already + add, rest, store.path)}`);
          chunk = chunk.slice(0, n);
        }
      } else submittedEstimate += costs.reduce((x, y) => x + y, 0);
      if (chunk.length > 0) {
        const sid = `${config.id.replace(/[^A-Za-z0-9_-]/g, '_')}-${crypto.randomBytes(6).toString('hex')}`;
        const attempt = Math.max(...chunk.map((k) => (attempts.get(k) ?? 0) + 1));
        appendEvent(logFile, { type: 'intent', sid, configId: config.id, api, attempt, at: new Date().toISOString(), keys: chunk, requests: chunk.map((k) => byKey.get(k)!.request), stages: chunk.map((k) => byKey.get(k)!.stage) });
        const batchId = await wrap('submission', () => protocol.submit(sid, chunk.map((k) => ({ key: k, request: byKey.get(k)!.request })), (fileId) => appendEvent(logFile, { type: 'uploaded', sid, fileId })));
        opts.afterCreate?.(batchId);
        appendEvent(logFile, { type: 'submitted', sid, batchId });
        result.submittedBatches.push(batchId);
        result.submittedRequests += chunk.length;
        submittedNow += chunk.length;
        progress(`submitted batch ${batchId} (${chunk.length} requests)`);
      }
      if (result.notSubmittedForBudget > 0) break;
    }
    result.estimatedCostUsd = submittedEstimate;
    if (!wait || stillOpen > 0 || submittedNow === 0 || result.notSubmittedForBudget > 0) {
      if (wait && submittedNow > 0 && stillOpen === 0) await pollOpen(true);
      break;
    }
  }
  const { inFlight, attempts, lastFailure } = keyStates();
  result.inFlight = [...byKey.keys()].filter((k) => inFlight.has(k) && !store.has(k)).length;
  result.failed = [...byKey.keys()]
    .filter((k) => !store.has(k) && !inFlight.has(k) && lastFailure.has(k))
    .map((k) => ({ key: k, reason: lastFailure.get(k)!, attempts: attempts.get(k) ?? 0 }));
  progress('done');
  return result;
}
