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
import * as crypto from 'node:crypto';
import { EoError } from '../errors';
import { LLM_BUDGET_ENV, budgetContinueHint, budgetFromEnv, createLlmClient, noteRecordedUsd, storeRecordedUsd } from './client';
import { llmRecordKey, normalizeChatRequest } from './key';
import { apiKeyEnvOf, batchApiOf, batchCallCostUsd, callCostUsd, resolveBaseUrl } from './models';
import { entryWireOptions, providerFor, type BatchPoll, type LlmProvider, type ProviderBatch } from './providers';
import { redactSecrets } from './redact';
import { openRecordStore } from './store';
import { sleep } from '../util/lock';
import { estimateCallTokens, worstCaseCallTokens } from './plan';
import { appendBatchEvent, defaultBatchLogPath, readBatchLog, type BatchSubmission } from './batch-log';
import type { BatchApi, LlmRecord, ModelConfig, RecordStore } from './types';
import type { RunBatchOptions, RunBatchResult } from './batch-types';

// the names of the parts this module was split into, as before
export { type BatchProgress, type RunBatchOptions, type RunBatchResult } from './batch-types';

/** The runner's polling (its sleep, interval and poll limit, with their defaults): open batches and `find` wait alike. */
function batchPoll(opts: Pick<RunBatchOptions, 'sleep' | 'pollIntervalMs' | 'maxPolls'>): BatchPoll {
  return { sleep: opts.sleep ?? sleep, intervalMs: opts.pollIntervalMs ?? 30_000, maxPolls: opts.maxPolls ?? 2880 };
}

type Pending = Map<string, { request: LlmRecord['request']; stage: string | null }>;

/** What every step of one `runBatch` call shares. */
interface BatchRun {
  opts: RunBatchOptions;
  config: ModelConfig;
  api: BatchApi;
  store: RecordStore;
  /** Distinct requests of this run by record key. */
  byKey: Pending;
  result: RunBatchResult;
  budget: number | null;
  redact: (s: string) => string;
  log: (l: string) => void;
  /** In flight and failed now (result.inFlight / result.failed are set only at the end); set per path. */
  liveCounts: () => { inFlight: number; failed: number };
}

function reportProgress(run: BatchRun, event: string): void {
  if (!run.opts.onProgress) return;
  const now = run.liveCounts();
  const { result, store } = run;
  run.opts.onProgress({
    configId: run.config.id, total: run.byKey.size, done: [...run.byKey.keys()].filter((k) => store.has(k)).length, inFlight: now.inFlight,
    failed: now.failed, inputTokens: result.inputTokens, outputTokens: result.outputTokens, costUsd: result.costUsd, event,
  });
}

/** Batch-price estimate of one request (output tokens: `estimatedOutputTokens`, else 64 + reasoning, capped). */
function estimateRequestUsd(run: BatchRun, req: LlmRecord['request']): number {
  const { config, opts } = run;
  const out = opts.estimatedOutputTokens ?? Math.min(req.maxTokens ?? Infinity, 64 + (config.estimatedReasoningTokens ?? 0));
  const t = estimateCallTokens(req, out);
  return batchCallCostUsd(config, t) ?? callCostUsd(config, t);
}

/** Batch-price worst case of one request (its whole token limit, `worstCaseOutputTokens`): what the budget counts. */
function worstCaseRequestUsd(run: BatchRun, req: LlmRecord['request']): number {
  const t = worstCaseCallTokens(run.config, req);
  return batchCallCostUsd(run.config, t) ?? callCostUsd(run.config, t);
}

/** No batch API: live calls with the model's concurrency, recorded in the same store. */
async function runLive(run: BatchRun): Promise<RunBatchResult> {
  const { opts, config, store, result } = run;
  const client = createLlmClient(config, { mode: 'record', store, env: opts.env ?? process.env, timeoutMs: opts.timeoutMs, maxRetries: opts.maxRetries, fetch: opts.fetch, log: opts.log, budgetUsd: run.budget });
  const todo = [...run.byKey.entries()].filter(([k]) => !store.has(k));
  run.liveCounts = () => ({ inFlight: todo.length - result.collected - result.failed.length - result.notSubmittedForBudget, failed: result.failed.length });
  await Promise.all(
    todo.map(async ([key, { request, stage }]) => {
      try {
        const r = await client.chat({ ...request, maxTokens: request.maxTokens ?? undefined, stage: stage ?? undefined });
        result.submittedRequests++;
        result.collected++;
        result.inputTokens += r.usage.inputTokens;
        result.outputTokens += r.usage.outputTokens;
        result.costUsd += r.costUsd;
        reportProgress(run, `live call ${key}`);
      } catch (e) {
        if ((e as EoError).code === 'LLM_BUDGET') result.notSubmittedForBudget++;
        else {
          result.failed.push({ key, reason: (e as Error).message, attempts: 1 });
          reportProgress(run, `live call ${key} failed`);
        }
      }
    }),
  );
  if (result.notSubmittedForBudget > 0) {
    // the client refused each of them before sending; say it once, with the spend so far (stderr by default)
    const spent = storeRecordedUsd(store);
    const rest = todo.filter(([k]) => !store.has(k)).reduce((a, [, { request }]) => a + callCostUsd(config, worstCaseCallTokens(config, request)), 0);
    run.log(`${config.id}: ${result.notSubmittedForBudget} request(s) not sent: each may cost up to its whole token limit, and the store has recorded ${spent.toFixed(4)} USD of ${LLM_BUDGET_ENV}=${run.budget} USD. Nothing is sent twice; ${budgetContinueHint(spent, rest, store.path)}`);
  }
  reportProgress(run, 'done');
  return result;
}

/** A batch API's run: the vendor's protocol, the log, and the log's view of this model's submissions. */
interface BatchProtocolRun extends BatchRun {
  logFile: string;
  vendor: LlmProvider;
  protocol: ProviderBatch;
  /** A remote call; a non-EoError failure becomes a redacted LLM error naming the step. */
  wrap: <T>(what: string, f: () => Promise<T>) => Promise<T>;
  /** This model's submissions, read from the log again (so every step sees the latest events). */
  mine: () => BatchSubmission[];
}

/** Resolve submissions that may have reached the API without their batch id being logged. */
async function resolveInterrupted(run: BatchProtocolRun): Promise<void> {
  for (const s of run.mine()) {
    if (s.batchId || s.abandoned) continue;
    const known = new Set(run.mine().map((x) => x.batchId).filter((x): x is string => !!x));
    // a protocol that can tell a batch's requests only once it ends waits for it as the runner polls
    const id = await run.wrap('lookup', () => run.protocol.find(s, known, batchPoll(run.opts)));
    if (id) {
      appendBatchEvent(run.logFile, { type: 'submitted', sid: s.sid, batchId: id, adopted: true });
      run.log(`batch ${s.sid}: found batch ${id} accepted before the interruption; collecting it instead of submitting again`);
    } else appendBatchEvent(run.logFile, { type: 'abandoned', sid: s.sid, reason: 'not found at the provider after an interruption: never submitted' });
  }
}

/** Read an ended batch's results into the store (records as live calls write them) and log what was collected. */
async function collectBatch(run: BatchProtocolRun, s: BatchSubmission): Promise<void> {
  const { config, api, store, result } = run;
  const res = await run.wrap('results', () => run.protocol.results(s.batchId!));
  const failed: { key: string; reason: string }[] = [];
  let ok = 0;
  s.keys.forEach((key, i) => {
    const r = res.get(key) ?? res.get('*');
    if (!r) return void failed.push({ key, reason: `no result line (batch ${s.status ?? 'ended'})` });
    if ('error' in r) return void failed.push({ key, reason: r.error });
    if (store.has(key)) return void ok++;
    let answer;
    try {
      answer = run.vendor.fromResponse(r.body, config.model);
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
    const notes = entryWireOptions(config, request).notes;
    if (notes.length > 0) rec.notes = notes;
    if (s.stages[i]) rec.stage = s.stages[i]!;
    store.append(JSON.parse(run.redact(JSON.stringify(rec))));
    noteRecordedUsd(store, rec.costUsd);
    ok++;
    if (run.byKey.has(key)) {
      result.collected++;
      result.inputTokens += answer.usage.inputTokens;
      result.outputTokens += answer.usage.outputTokens;
      result.costUsd += rec.costUsd;
    }
  });
  appendBatchEvent(run.logFile, { type: 'collected', sid: s.sid, succeeded: ok, failed });
  reportProgress(run, `collected batch ${s.batchId}: ${ok} answers, ${failed.length} failed`);
}

/** Poll open batches; collect those that ended. Returns how many are still open. */
async function pollOpen(run: BatchProtocolRun, wait: boolean): Promise<number> {
  const poll = batchPoll(run.opts);
  let open = run.mine().filter((s) => s.batchId && !s.collected);
  for (let round = 0; open.length > 0; round++) {
    for (const s of open) {
      const st = await run.wrap('status', () => run.protocol.status(s.batchId!));
      if (st.ended) {
        appendBatchEvent(run.logFile, { type: 'ended', sid: s.sid, status: st.status });
        s.status = st.status;
        await collectBatch(run, s);
      }
    }
    open = run.mine().filter((s) => s.batchId && !s.collected);
    if (open.length === 0 || !wait || round + 1 >= poll.maxPolls) break;
    reportProgress(run, `waiting for ${open.length} batch(es)`);
    await poll.sleep(poll.intervalMs);
  }
  return open.length;
}

/** Per key, from the log: in an uncollected batch, submissions so far, last failure. */
function keyStates(run: BatchProtocolRun): { inFlight: Set<string>; attempts: Map<string, number>; lastFailure: Map<string, string> } {
  const inFlight = new Set<string>();
  const attempts = new Map<string, number>();
  const lastFailure = new Map<string, string>();
  for (const s of run.mine()) {
    if (s.abandoned) continue;
    for (const k of s.keys) attempts.set(k, (attempts.get(k) ?? 0) + 1);
    if (!s.collected) s.keys.forEach((k) => inFlight.add(k));
    else for (const f of s.collected.failed) lastFailure.set(f.key, f.reason);
  }
  return { inFlight, attempts, lastFailure };
}

/** The worst case of this model's open batches' unanswered requests (the budget counts them as spent). */
function openBatchesUsd(run: BatchProtocolRun): number {
  const { inFlight } = keyStates(run);
  return run.mine()
    .filter((s) => s.batchId && !s.collected && !s.abandoned)
    .reduce((a, s) => a + s.keys.reduce((b, k, i) => b + (inFlight.has(k) && !run.store.has(k) ? worstCaseRequestUsd(run, s.requests[i]) : 0), 0), 0);
}

/**
 * How many of `chunk` (worst-case costs `costs`) fit the budget, which is cumulative per store: what it has recorded,
 * plus the worst case of the open batches. Sets and logs `notSubmittedForBudget` (counting the rest of `todo` from `from`) when not all fit.
 */
function fitBudget(run: BatchProtocolRun, budget: number, chunk: readonly string[], costs: readonly number[], todo: readonly string[], from: number): { n: number; add: number } {
  const { config, store, result } = run;
  const already = storeRecordedUsd(store) + openBatchesUsd(run);
  let add = 0;
  let n = 0;
  while (n < chunk.length && already + add + costs[n] <= budget) add += costs[n++];
  if (n < chunk.length) {
    result.notSubmittedForBudget = todo.length - from - n;
    const rest = todo.slice(from + n).reduce((a, k) => a + worstCaseRequestUsd(run, run.byKey.get(k)!.request), 0);
    run.log(`${config.id}: ${result.notSubmittedForBudget} request(s) not submitted: the store has recorded ${storeRecordedUsd(store).toFixed(4)} USD and open batches may cost up to ${(already - storeRecordedUsd(store)).toFixed(4)}; with the ${result.notSubmittedForBudget} (up to ${rest.toFixed(4)} USD at their whole token limits) that could exceed ${LLM_BUDGET_ENV}=${budget} USD. Nothing is submitted twice; ${budgetContinueHint(already + add, rest, store.path)}`);
  }
  return { n, add };
}

/** Log the intent, submit one batch, log its id. */
async function submitChunk(run: BatchProtocolRun, chunk: readonly string[], attempts: Map<string, number>): Promise<void> {
  const { config, api, byKey, logFile } = run;
  const sid = `${config.id.replace(/[^A-Za-z0-9_-]/g, '_')}-${crypto.randomBytes(6).toString('hex')}`;
  const attempt = Math.max(...chunk.map((k) => (attempts.get(k) ?? 0) + 1));
  appendBatchEvent(logFile, { type: 'intent', sid, configId: config.id, api, attempt, at: new Date().toISOString(), keys: [...chunk], requests: chunk.map((k) => byKey.get(k)!.request), stages: chunk.map((k) => byKey.get(k)!.stage) });
  const batchId = await run.wrap('submission', () => run.protocol.submit(sid, chunk.map((k) => ({ key: k, request: byKey.get(k)!.request, wire: entryWireOptions(config, byKey.get(k)!.request) })), (fileId) => appendBatchEvent(logFile, { type: 'uploaded', sid, fileId })));
  run.opts.afterCreate?.(batchId);
  appendBatchEvent(logFile, { type: 'submitted', sid, batchId });
  run.result.submittedBatches.push(batchId);
  run.result.submittedRequests += chunk.length;
  reportProgress(run, `submitted batch ${batchId} (${chunk.length} requests)`);
}

/** Poll, collect, then submit what is neither recorded nor in flight (within attempts and budget), until nothing is left to do. */
async function submitAndCollect(run: BatchProtocolRun): Promise<void> {
  const { opts, byKey, store, result } = run;
  const wait = opts.wait ?? true;
  const batchSize = opts.maxBatchSize ?? 10_000;
  const maxAttempts = opts.maxAttempts ?? 2;
  let submittedEstimate = 0;
  for (;;) {
    const stillOpen = await pollOpen(run, wait);
    const { inFlight, attempts } = keyStates(run);
    const todo = [...byKey.keys()].filter((k) => !store.has(k) && !inFlight.has(k) && (attempts.get(k) ?? 0) < maxAttempts);
    let submittedNow = 0;
    for (let i = 0; i < todo.length; i += batchSize) {
      let chunk = todo.slice(i, i + batchSize);
      const costs = chunk.map((k) => estimateRequestUsd(run, byKey.get(k)!.request));
      if (run.budget !== null) {
        // the budget stops on the worst case of what would be submitted; the estimate is what is reported
        const { n } = fitBudget(run, run.budget, chunk, chunk.map((k) => worstCaseRequestUsd(run, byKey.get(k)!.request)), todo, i);
        submittedEstimate += costs.slice(0, n).reduce((x, y) => x + y, 0);
        chunk = chunk.slice(0, n);
      } else submittedEstimate += costs.reduce((x, y) => x + y, 0);
      if (chunk.length > 0) {
        await submitChunk(run, chunk, attempts);
        submittedNow += chunk.length;
      }
      if (result.notSubmittedForBudget > 0) break;
    }
    result.estimatedCostUsd = submittedEstimate;
    if (!wait || stillOpen > 0 || submittedNow === 0 || result.notSubmittedForBudget > 0) {
      if (wait && submittedNow > 0 && stillOpen === 0) await pollOpen(run, true);
      break;
    }
  }
}

/** The batch API's path of `runBatch`: the vendor's protocol, resume, submit, collect, final counts. */
async function runBatchProtocol(base: BatchRun, logFile: string): Promise<RunBatchResult> {
  const { opts, config, api, byKey, store, result } = base;
  const env = opts.env ?? process.env;
  const keyEnv = apiKeyEnvOf(config);
  const apiKey = keyEnv ? env[keyEnv] : undefined;
  if (keyEnv && !apiKey) throw new EoError('CONFIG', `model ${config.id}: environment variable ${keyEnv} is not set (needed to submit batches)`, { env: keyEnv });
  const baseURL = resolveBaseUrl(config, env) ?? undefined;
  const common = { baseURL, timeout: opts.timeoutMs ?? 120_000, maxRetries: opts.maxRetries ?? 3, ...(opts.fetch ? { fetch: opts.fetch } : {}) };
  // the batch protocol's vendor submits and parses the answers (an openai-compatible entry may use OpenAI Batch)
  const vendor = providerFor(api);
  if (!vendor.openBatch) throw new EoError('CONFIG', `model ${config.id}: batchApi ${api} names provider ${api}, which has no batch protocol`, { configId: config.id });
  const protocol = vendor.openBatch(config, { apiKey, ...common });
  const warned = new Set<string>(); // the log is read again after each step: warn once per skipped line
  const warnOnce = (l: string) => void (warned.has(l) || (warned.add(l), (opts.log ?? console.warn)(l)));
  const run: BatchProtocolRun = Object.assign(base, {
    logFile, vendor, protocol,
    wrap: async <T>(what: string, f: () => Promise<T>): Promise<T> => {
      try {
        return await f();
      } catch (e) {
        if (e instanceof EoError) throw e;
        throw new EoError('LLM', base.redact(`${config.id} batch ${what} failed: ${(e as Error).message}`), { configId: config.id });
      }
    },
    mine: () => readBatchLog(logFile, { log: warnOnce }).filter((s) => s.configId === config.id),
  });
  run.liveCounts = () => {
    const { inFlight, lastFailure } = keyStates(run);
    let open = 0;
    let failed = 0;
    for (const k of byKey.keys()) {
      if (store.has(k)) continue;
      if (inFlight.has(k)) open++;
      else if (lastFailure.has(k)) failed++;
    }
    return { inFlight: open, failed };
  };
  await resolveInterrupted(run);
  await submitAndCollect(run);
  const { inFlight, attempts, lastFailure } = keyStates(run);
  result.inFlight = [...byKey.keys()].filter((k) => inFlight.has(k) && !store.has(k)).length;
  result.failed = [...byKey.keys()]
    .filter((k) => !store.has(k) && !inFlight.has(k) && lastFailure.has(k))
    .map((k) => ({ key: k, reason: lastFailure.get(k)!, attempts: attempts.get(k) ?? 0 }));
  reportProgress(run, 'done');
  return result;
}

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
  const byKey: Pending = new Map();
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
  const run: BatchRun = {
    opts, config, api, store, byKey, result,
    budget: opts.budgetUsd === undefined ? budgetFromEnv(env) : opts.budgetUsd,
    redact,
    log: (l: string) => (opts.log ?? ((x: string) => console.warn(x)))(redact(l)),
    liveCounts: () => ({ inFlight: 0, failed: 0 }),
  };
  return api === 'none' ? runLive(run) : runBatchProtocol(run, logFile);
}
