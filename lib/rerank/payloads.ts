/**
 * Reviewers' replay of released payloads: the paper releases one row per (query, model) with the request and the
 * response of its listwise rerank call. `importRerankPayloads` writes them into a record store under the key OUR
 * listwise reranker computes for the same (query, window), so notebooks 06/07 re-derive their tables from it in
 * replay mode, with no key and no network.
 *
 * Matching: the query by id, else by text (whitespace-normalised); the model by config id or snapshot id; the
 * candidates by dataset ids (a `candidates` list of ids or objects), else by the `<candidate id="n"><title>` items
 * of the request text matched to our candidates' titles. The answer's ids refer to the payload's numbering and are
 * mapped through dataset ids onto our window's numbering (the record keeps the original text when they differ).
 * A row whose query, model or candidate set does not match our benchmark is counted and reported, never used.
 */
import * as fs from 'node:fs';
import { EoError } from '../errors';
import { fromAnthropicResponse } from '../llm/providers/anthropic';
import { llmRecordKey, normalizeChatRequest } from '../llm/key';
import { callCostUsd } from '../llm/models';
import { fromOpenAIResponse } from '../llm/providers/openai';
import { openRecordStore } from '../llm/store';
import type { LlmRecord, ModelConfig, RecordStore, Usage } from '../llm/types';
import type { BackboneList } from './compose';
import type { RerankCandidate } from './types';
import { listwiseChatRequest, type ListwiseRerankerOptions } from './listwise';
import { parseRanking } from './parse';
import { candidateTitle, loadListwisePrompt } from './prompt';

/** Our field → the payload's field (a dotted path into the row). */
export interface PayloadFieldMap {
  /** Query id. Default `query_id`. */
  queryId: string;
  /** Query text (used when the id does not match). Default `query`. */
  queryText: string;
  /** Model (config id or snapshot). Default `model`. */
  model: string;
  /** Candidate dataset ids in the payload's numbering (ids, or objects with id / dataset_id / concept_id). Default `candidates`. */
  candidates: string;
  /** The request (messages list, or a body with `messages`/`system`), used when there is no candidates field. Default `request`. */
  request: string;
  /** The response: its text, or the provider's body (OpenAI chat.completion or Anthropic message). Default `response`. */
  response: string;
}

export const DEFAULT_PAYLOAD_FIELDS: PayloadFieldMap = {
  queryId: 'query_id',
  queryText: 'query',
  model: 'model',
  candidates: 'candidates',
  request: 'request',
  response: 'response',
};

/** Apply `ours=theirs` overrides (e.g. from `--field queryId=qid`); an unknown field of ours is INVALID_ARGUMENT. */
export function payloadFieldMap(overrides: readonly string[] = []): PayloadFieldMap {
  const map = { ...DEFAULT_PAYLOAD_FIELDS };
  for (const o of overrides) {
    const m = /^([A-Za-z]+)=(.+)$/.exec(o.trim());
    if (!m || !(m[1] in map)) throw new EoError('INVALID_ARGUMENT', `--field ${JSON.stringify(o)}: expected ours=theirs with ours one of ${Object.keys(map).join(', ')}`);
    (map as Record<string, string>)[m[1]] = m[2];
  }
  return map;
}

/** The mapping as lines `ours ← payload field`, to print before importing. */
export function describePayloadFields(map: PayloadFieldMap): string[] {
  return Object.entries(map).map(([ours, theirs]) => `${ours.padEnd(11)} ← ${theirs}`);
}

function getPath(row: unknown, dotted: string): unknown {
  let v: unknown = row;
  for (const part of dotted.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** Rows of a payload file: JSONL (one object per line) or a JSON array. Bad lines → DATA_PARSE naming the line. */
export function readPayloadRows(file: string): { line: number; row: Record<string, unknown> }[] {
  if (!fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `payload file not found: ${file}`, { file });
  const text = fs.readFileSync(file, 'utf8');
  if (text.trimStart().startsWith('[')) {
    let arr: unknown;
    try {
      arr = JSON.parse(text);
    } catch (e) {
      throw new EoError('DATA_PARSE', `${file}: invalid JSON array (${(e as Error).message})`, { file });
    }
    return (arr as Record<string, unknown>[]).map((row, i) => ({ line: i + 1, row }));
  }
  const out: { line: number; row: Record<string, unknown> }[] = [];
  text.split('\n').forEach((l, i) => {
    if (l.trim() === '') return;
    try {
      out.push({ line: i + 1, row: JSON.parse(l) });
    } catch (e) {
      throw new EoError('DATA_PARSE', `${file}:${i + 1}: invalid JSON (${(e as Error).message})`, { file, line: i + 1 });
    }
  });
  return out;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Text of a request (messages list or a body), for finding `<candidate>` items. */
function requestText(req: unknown): string {
  if (typeof req === 'string') return req;
  const msgs = Array.isArray(req) ? req : (req as { messages?: unknown })?.messages;
  const parts: string[] = [];
  if (req && typeof req === 'object' && typeof (req as { system?: unknown }).system === 'string') parts.push((req as { system: string }).system);
  for (const m of Array.isArray(msgs) ? msgs : []) {
    const c = (m as { content?: unknown }).content;
    if (typeof c === 'string') parts.push(c);
    else if (Array.isArray(c)) for (const b of c) if (typeof (b as { text?: unknown }).text === 'string') parts.push((b as { text: string }).text);
  }
  return parts.join('\n');
}

function decodeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

/** The response's text and usage: a string, or an OpenAI / Anthropic body. */
function responseOf(v: unknown, model: string): { text: string; usage: Usage } | null {
  if (typeof v === 'string') return { text: v, usage: { inputTokens: 0, outputTokens: 0 } };
  if (v && typeof v === 'object') {
    try {
      if (Array.isArray((v as { choices?: unknown }).choices)) return fromOpenAIResponse(v, model);
      if (Array.isArray((v as { content?: unknown }).content)) return fromAnthropicResponse(v, model);
    } catch {
      return null;
    }
    if (typeof (v as { text?: unknown }).text === 'string') return { text: (v as { text: string }).text, usage: { inputTokens: 0, outputTokens: 0 } };
  }
  return null;
}

export type PayloadSkipReason = 'malformed' | 'unknown-query' | 'unknown-model' | 'candidates-differ' | 'unparseable-answer';

export interface ImportPayloadsOptions {
  /** Payload file (JSONL or JSON array). */
  file: string;
  /** Our lists for the queries the payloads should cover (the backbone the paper reranked: the strong one). */
  lists: readonly BackboneList[];
  /** Model configs the rows may name (by id or snapshot). */
  models: readonly ModelConfig[];
  /** Record store (or path) to write into. */
  store: RecordStore | string;
  /** Field mapping. Default DEFAULT_PAYLOAD_FIELDS. */
  fields?: PayloadFieldMap;
  /** Our reranker's options (prompt, maxTokens, temperature, summaryChars): the key is computed from them. Default: the reranker's defaults. */
  reranker?: ListwiseRerankerOptions;
  /** Window size. Default 10 (the paper's). */
  window?: number;
  /** Do not write, only count. Default false. */
  dryRun?: boolean;
}

export interface ImportPayloadsReport {
  rows: number;
  imported: number;
  /** Rows whose key was already in the store (nothing written). */
  alreadyRecorded: number;
  /** Of the imported: answers renumbered from the payload's candidate order to ours. */
  remapped: number;
  skipped: Record<PayloadSkipReason, number>;
  /** The first skipped rows with why (line numbers of the payload file). */
  examples: { line: number; reason: PayloadSkipReason; detail: string }[];
  /** Imported rows per model config id. */
  byModel: Record<string, number>;
}

/**
 * The payload row's candidates, in its numbering, as our dataset ids: from its candidate list (ids or objects with
 * an id), else from the <candidate> titles of its request text matched to our window's titles (null where a title
 * is not ours); null when the row has neither.
 */
function payloadCandidateIds(row: object, fields: PayloadFieldMap, window: readonly RerankCandidate[]): (string | null)[] | null {
  const cands = getPath(row, fields.candidates);
  if (Array.isArray(cands)) {
    return cands.map((c) => {
      if (typeof c === 'string' || typeof c === 'number') return String(c);
      const o = c as Record<string, unknown>;
      const id = o?.id ?? o?.dataset_id ?? o?.concept_id ?? o?.datasetId;
      return typeof id === 'string' ? id : null;
    });
  }
  const text = requestText(getPath(row, fields.request));
  const items = [...text.matchAll(/<candidate id="(\d+)">\s*<title>([\s\S]*?)<\/title>/g)];
  if (items.length === 0) return null;
  const byTitle = new Map(window.map((c) => [norm(candidateTitle(c)), c.id]));
  const theirs: (string | null)[] = [];
  for (const m of items) theirs[Number(m[1]) - 1] = byTitle.get(norm(decodeXml(m[2]))) ?? null;
  return theirs;
}

/**
 * The record an imported row becomes: our request and key, the payload's answer (`text`: renumbered to our order
 * unless `inOurOrder`), its usage and cost, marked `stopReason: 'imported'` with the file and line it came from.
 */
function importedRecord(r: {
  config: ModelConfig; request: LlmRecord['request']; key: string; model: string; text: string; resp: { text: string; usage: Usage };
  raw: unknown; file: string; line: number; inOurOrder: boolean;
}): LlmRecord {
  const { config, resp, inOurOrder } = r;
  return {
    v: 1, key: r.key, configId: config.id, provider: config.provider, requestedModel: config.model, request: r.request,
    response: { text: r.text, toolCalls: [], stopReason: 'imported', model: r.model === config.id ? config.model : r.model, usage: resp.usage, raw: r.raw },
    costUsd: callCostUsd(config, resp.usage),
    latencyMs: 0,
    timestamp: new Date().toISOString(),
    stage: 'listwise',
    imported: { file: r.file, line: r.line, remapped: !inOurOrder, ...(inOurOrder ? {} : { originalText: resp.text }) },
  };
}

/** Import released rerank payloads into a record store (see the module comment). */
export function importRerankPayloads(opts: ImportPayloadsOptions): ImportPayloadsReport {
  const fields = opts.fields ?? DEFAULT_PAYLOAD_FIELDS;
  // opening does not create the file (that happens on the first append, never in a dry run)
  const store: RecordStore = typeof opts.store === 'string' ? openRecordStore(opts.store) : opts.store;
  const tpl = opts.reranker?.prompt ?? loadListwisePrompt();
  const k = opts.window ?? 10;
  const byId = new Map(opts.lists.map((l) => [l.query.id, l]));
  const byText = new Map(opts.lists.map((l) => [norm(l.query.text), l]));
  const report: ImportPayloadsReport = {
    rows: 0, imported: 0, alreadyRecorded: 0, remapped: 0, byModel: {}, examples: [],
    skipped: { malformed: 0, 'unknown-query': 0, 'unknown-model': 0, 'candidates-differ': 0, 'unparseable-answer': 0 },
  };
  const skip = (line: number, reason: PayloadSkipReason, detail: string) => {
    report.skipped[reason]++;
    if (report.examples.length < 20) report.examples.push({ line, reason, detail });
  };
  for (const { line, row } of readPayloadRows(opts.file)) {
    report.rows++;
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      skip(line, 'malformed', 'row is not an object');
      continue;
    }
    const qid = getPath(row, fields.queryId);
    const qtext = getPath(row, fields.queryText);
    const list = (typeof qid === 'string' || typeof qid === 'number' ? byId.get(String(qid)) : undefined) ?? (typeof qtext === 'string' ? byText.get(norm(qtext)) : undefined);
    if (!list) {
      skip(line, 'unknown-query', `query ${JSON.stringify(qid ?? qtext ?? null)} is not in our benchmark's queries`);
      continue;
    }
    const modelName = getPath(row, fields.model);
    const config = opts.models.find((m) => m.id === modelName || m.model === modelName);
    if (!config) {
      skip(line, 'unknown-model', `model ${JSON.stringify(modelName ?? null)} is neither a config id nor a snapshot in the models file`);
      continue;
    }
    const window = list.candidates.slice(0, k);
    const theirs = payloadCandidateIds(row, fields, window);
    if (!theirs) {
      skip(line, 'malformed', `no candidates: neither "${fields.candidates}" nor <candidate> items in "${fields.request}"`);
      continue;
    }
    const ours = window.map((c) => c.id);
    const same = theirs.length === ours.length && theirs.every((id) => id !== null && ours.includes(id)) && new Set(theirs).size === ours.length;
    if (!same) {
      const missing = ours.filter((id) => !theirs!.includes(id)).length;
      skip(line, 'candidates-differ', `payload has ${theirs.length} candidates, ${missing} of our window of ${ours.length} missing (query ${list.query.id})`);
      continue;
    }
    const resp = responseOf(getPath(row, fields.response), config.model);
    if (!resp) {
      skip(line, 'malformed', `response field "${fields.response}" is neither text nor a provider body`);
      continue;
    }
    const parsed = parseRanking(resp.text, theirs.length);
    if (parsed.failed) {
      skip(line, 'unparseable-answer', `answer ${JSON.stringify(resp.text.slice(0, 80))} has no ranking`);
      continue;
    }
    const inOurOrder = theirs.every((id, i) => id === ours[i]);
    const ranked = parsed.ranked.map((n) => ours.indexOf(theirs![n - 1]!) + 1);
    const text = inOurOrder ? resp.text : JSON.stringify({ ranked });
    const request = normalizeChatRequest(config, listwiseChatRequest(tpl, list.query, window, opts.reranker ?? {}));
    const key = llmRecordKey(config, request);
    if (store.has(key)) {
      report.alreadyRecorded++;
      continue;
    }
    const model = typeof modelName === 'string' ? modelName : config.model;
    const rec = importedRecord({ config, request, key, model, text, resp, raw: getPath(row, fields.response) ?? null, file: opts.file, line, inOurOrder });
    if (!opts.dryRun) store.append(rec);
    report.imported++;
    if (!inOurOrder) report.remapped++;
    report.byModel[config.id] = (report.byModel[config.id] ?? 0) + 1;
  }
  return report;
}
