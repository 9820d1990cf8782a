/**
 * NASA CMR collection search client (UMM-JSON): URL building, HTTP with retries, search-after paging.
 *
 * Protocol (CMR Search API):
 * - `GET {baseUrl}/search/collections.umm_json?page_size=…&provider=…&keyword=…` with
 *   `Accept: application/vnd.nasa.cmr.umm_results+json`; the body is `{hits, took, items: [{meta, umm}]}`.
 * - Paging uses search-after: every response carries a `CMR-Search-After` header; sending it back as a request
 *   header returns the next page (no `page_num`). The total number of matches is in the `CMR-Hits` header.
 * - Throttling answers 429 with a `Retry-After` header; 5xx and network errors are transient.
 *
 * An Earthdata Login bearer token (`$EARTHDATA_TOKEN`, or the `token` option) is sent as
 * `Authorization: Bearer …`; it is never logged and is scrubbed from every error message.
 * Items are mapped by cmr-record.ts; cmr-download.ts writes a search to a snapshot folder.
 */
import { EoError } from '../errors';
import { CMR_DEFAULT_BASE_URL, cmrItemToDataset } from './cmr-record';
import type { DatasetRecord } from './types';
import { isPlainObject as isObj } from './validate';

/** Media type of CMR UMM-JSON search results. */
export const CMR_UMM_JSON_ACCEPT = 'application/vnd.nasa.cmr.umm_results+json';
/** Environment variable holding an optional Earthdata Login bearer token. */
export const EARTHDATA_TOKEN_ENV = 'EARTHDATA_TOKEN';
/** CMR's largest allowed page size. */
export const CMR_MAX_PAGE_SIZE = 2000;

type ParamValue = string | number | boolean | readonly (string | number)[];

/** Collection search parameters; each maps to the CMR query parameter named in its comment. All are optional. */
export interface CmrSearchParams {
  /** `keyword`: free-text search over the collection metadata (CMR supports `*` and `?` wildcards). */
  keyword?: string;
  /** `provider`: CMR provider id(s), e.g. `GES_DISC`. */
  provider?: string | readonly string[];
  /** `short_name`. */
  shortName?: string | readonly string[];
  /** `version`. */
  version?: string | readonly string[];
  /** `concept_id`: collection concept id(s). */
  conceptId?: string | readonly string[];
  /** `doi`. */
  doi?: string;
  /** `platform` short name(s). */
  platform?: string | readonly string[];
  /** `instrument` short name(s). */
  instrument?: string | readonly string[];
  /** `project` short name(s). */
  project?: string | readonly string[];
  /** `processing_level_id`. */
  processingLevelId?: string | readonly string[];
  /** `temporal`: `start,end` ISO 8601 (either side may be empty). */
  temporal?: string;
  /** `has_granules`. */
  hasGranules?: boolean;
  /** `cloud_hosted`. */
  cloudHosted?: boolean;
  /** `updated_since` (ISO 8601). */
  updatedSince?: string;
  /** `sort_key`, e.g. `-usage_score`, `short_name`. Default: CMR's own order. */
  sortKey?: string | readonly string[];
  /** Any other CMR query parameters, sent as given (arrays become repeated `key[]=` entries). */
  extra?: Record<string, ParamValue>;
}

/** One page as seen by `onPage`. */
export interface CmrPageInfo {
  /** 1-based page number in this search. */
  page: number;
  /** Items on this page. */
  items: number;
  /** Total matches reported by CMR (`CMR-Hits` header, else body `hits`); null when neither is present. */
  hits: number | null;
  /** Whether a `CMR-Search-After` header for a next page came back. */
  hasNext: boolean;
}

/** An item that failed to map, as passed to `onInvalidItem`. */
export interface CmrInvalidItem {
  /** 0-based index of the item over the whole search. */
  index: number;
  page: number;
  error: EoError;
}

export interface CmrClientOptions {
  /** CMR root, without `/search`. Default `https://cmr.earthdata.nasa.gov` (UAT: `https://cmr.uat.earthdata.nasa.gov`). */
  baseUrl?: string;
  /** Items per request (1-2000). Default 200. */
  pageSize?: number;
  /** Stop after this many items (valid or not) have been read. Default: no limit. */
  maxRecords?: number;
  /** Retries per request after the first attempt, on 429, 5xx, network errors and timeouts. Default 4. */
  retries?: number;
  /** First backoff delay in ms; doubles per attempt, with jitter (a uniform factor in [0.5, 1]). Default 1000. */
  baseDelayMs?: number;
  /** Upper bound for one wait, backoff or `Retry-After`. Default 60000. */
  maxDelayMs?: number;
  /** Per-attempt timeout in ms (request and body), enforced with an AbortController. Default 60000. */
  timeoutMs?: number;
  /** `User-Agent` header. Default `eo-workbench/0.1 (NASA EO dataset retrieval research)`. */
  userAgent?: string;
  /**
   * Earthdata Login bearer token. Default: `$EARTHDATA_TOKEN` when set, else none; `null` sends none even if
   * the variable is set. Never logged, never put into error messages.
   */
  token?: string | null;
  /** What to do with an item that does not map to a valid DatasetRecord: `throw` (default) or `skip`. */
  onInvalid?: 'throw' | 'skip';
  /** Called for each skipped invalid item (only with `onInvalid: 'skip'`). Default: none. */
  onInvalidItem?: (info: CmrInvalidItem) => void;
  /** Called after each page is received. Default: none. */
  onPage?: (info: CmrPageInfo) => void;
  /** Progress/retry log lines (never contain the token). Default: silent. */
  log?: (line: string) => void;
  /** Cancels the whole search (including backoff waits). Default: none. */
  signal?: AbortSignal;
  /** fetch implementation. Default: the global fetch. */
  fetch?: typeof fetch;
  /** Random source for jitter in [0, 1). Default Math.random. */
  random?: () => number;
}

interface ResolvedOptions {
  baseUrl: string;
  pageSize: number;
  maxRecords: number;
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  userAgent: string;
  token: string | null;
  onInvalid: 'throw' | 'skip';
  onInvalidItem?: (info: CmrInvalidItem) => void;
  onPage?: (info: CmrPageInfo) => void;
  log: (line: string) => void;
  signal?: AbortSignal;
  fetch: typeof fetch;
  random: () => number;
}

function nonNegInt(v: number | undefined, name: string, def: number): number {
  if (v === undefined) return def;
  if (!Number.isInteger(v) || v < 0) throw new EoError('INVALID_ARGUMENT', `CMR option ${name} must be a non-negative integer (got ${v})`);
  return v;
}

function resolveOptions(o: CmrClientOptions): ResolvedOptions {
  const pageSize = o.pageSize ?? 200;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > CMR_MAX_PAGE_SIZE)
    throw new EoError('INVALID_ARGUMENT', `CMR option pageSize must be an integer in 1..${CMR_MAX_PAGE_SIZE} (got ${pageSize})`);
  const maxRecords = o.maxRecords ?? Infinity;
  if (!(maxRecords === Infinity || (Number.isInteger(maxRecords) && maxRecords >= 0)))
    throw new EoError('INVALID_ARGUMENT', `CMR option maxRecords must be a non-negative integer (got ${maxRecords})`);
  const envToken = process.env[EARTHDATA_TOKEN_ENV];
  const token = o.token === null ? null : o.token ?? (envToken && envToken.trim() !== '' ? envToken.trim() : null);
  const f = o.fetch ?? (globalThis as { fetch?: typeof fetch }).fetch;
  if (!f) throw new EoError('CONFIG', 'no fetch implementation available (Node >= 18 has one built in)');
  return {
    baseUrl: (o.baseUrl ?? CMR_DEFAULT_BASE_URL).replace(/\/+$/, ''),
    pageSize,
    maxRecords,
    retries: nonNegInt(o.retries, 'retries', 4),
    baseDelayMs: nonNegInt(o.baseDelayMs, 'baseDelayMs', 1000),
    maxDelayMs: nonNegInt(o.maxDelayMs, 'maxDelayMs', 60000),
    timeoutMs: nonNegInt(o.timeoutMs, 'timeoutMs', 60000),
    userAgent: o.userAgent ?? 'eo-workbench/0.1 (NASA EO dataset retrieval research)',
    token: token && token !== '' ? token : null,
    onInvalid: o.onInvalid ?? 'throw',
    onInvalidItem: o.onInvalidItem,
    onPage: o.onPage,
    log: o.log ?? (() => undefined),
    signal: o.signal,
    fetch: f,
    random: o.random ?? Math.random,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// URL building

function appendParam(sp: URLSearchParams, key: string, v: ParamValue | undefined): void {
  if (v === undefined) return;
  if (Array.isArray(v)) {
    const arr = v as readonly (string | number)[];
    if (arr.length === 1) sp.append(key, String(arr[0]));
    else for (const x of arr) sp.append(`${key}[]`, String(x));
  } else sp.append(key, String(v));
}

/** The URL of one collection search request (UMM-JSON). `pageSize` is sent as `page_size`. */
export function buildCmrSearchUrl(params: CmrSearchParams, opts: { baseUrl?: string; pageSize?: number } = {}): string {
  const base = (opts.baseUrl ?? CMR_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const sp = new URLSearchParams();
  sp.append('page_size', String(opts.pageSize ?? 200));
  appendParam(sp, 'keyword', params.keyword);
  appendParam(sp, 'provider', params.provider);
  appendParam(sp, 'short_name', params.shortName);
  appendParam(sp, 'version', params.version);
  appendParam(sp, 'concept_id', params.conceptId);
  appendParam(sp, 'doi', params.doi);
  appendParam(sp, 'platform', params.platform);
  appendParam(sp, 'instrument', params.instrument);
  appendParam(sp, 'project', params.project);
  appendParam(sp, 'processing_level_id', params.processingLevelId);
  appendParam(sp, 'temporal', params.temporal);
  appendParam(sp, 'has_granules', params.hasGranules);
  appendParam(sp, 'cloud_hosted', params.cloudHosted);
  appendParam(sp, 'updated_since', params.updatedSince);
  appendParam(sp, 'sort_key', params.sortKey);
  for (const [k, v] of Object.entries(params.extra ?? {})) appendParam(sp, k, v);
  return `${base}/search/collections.umm_json?${sp.toString()}`;
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP with retries

/** Parse a `Retry-After` header (delta seconds or HTTP date) into milliseconds; null when absent or unparsable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | null {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  if (v === '') return null;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(parseFloat(v) * 1000);
  const t = Date.parse(v);
  if (Number.isNaN(t)) return null;
  return Math.max(0, t - nowMs);
}

function redactor(token: string | null): (s: string) => string {
  if (!token) return (s) => s;
  return (s) => s.split(token).join('***');
}

function abortReasonError(signal: AbortSignal): EoError {
  return new EoError('HTTP', 'CMR request cancelled', { cancelled: true, reason: String(signal.reason ?? 'aborted') });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReasonError(signal));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(abortReasonError(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Backoff before retry number `attempt` (0-based): base·2^attempt, times a jitter factor in [0.5, 1], capped. */
function backoffMs(attempt: number, o: ResolvedOptions): number {
  const d = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** attempt);
  return Math.round(d * (0.5 + 0.5 * o.random()));
}

interface HttpResult {
  status: number;
  headers: Headers;
  body: string;
}

function describeFetchError(e: unknown): string {
  const err = e as { message?: string; cause?: { code?: string; message?: string } };
  const cause = err?.cause?.code ?? err?.cause?.message;
  return cause ? `${err.message ?? String(e)} (${cause})` : err?.message ?? String(e);
}

function cmrErrorText(body: string): string {
  try {
    const j = JSON.parse(body) as { errors?: unknown };
    if (Array.isArray(j.errors)) return j.errors.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('; ');
  } catch {
    /* not JSON */
  }
  return body.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** GET with timeout, retries on 429/5xx/network errors (honouring Retry-After), and token redaction. */
async function getWithRetry(url: string, headers: Record<string, string>, o: ResolvedOptions): Promise<HttpResult> {
  const redact = redactor(o.token);
  const attempts = o.retries + 1;
  let last = '';
  let lastStatus: number | null = null;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (o.signal?.aborted) throw abortReasonError(o.signal);
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort();
    }, o.timeoutMs);
    const onOuterAbort = () => ctrl.abort();
    o.signal?.addEventListener('abort', onOuterAbort, { once: true });
    let waitMs: number | null = null;
    try {
      const res = await o.fetch(url, { method: 'GET', headers, signal: ctrl.signal, redirect: 'follow' });
      const body = await res.text();
      if (res.ok) return { status: res.status, headers: res.headers, body };
      lastStatus = res.status;
      last = `HTTP ${res.status}${res.statusText ? ' ' + res.statusText : ''}: ${cmrErrorText(body)}`;
      const retryable = res.status === 429 || res.status >= 500;
      if (!retryable)
        throw new EoError('HTTP', redact(`CMR request failed: ${last} (GET ${url})`), { url: redact(url), status: res.status, attempts: attempt + 1 });
      waitMs = parseRetryAfter(res.headers.get('retry-after'));
    } catch (e) {
      if (e instanceof EoError) throw e;
      if (o.signal?.aborted) throw abortReasonError(o.signal);
      lastStatus = null;
      last = timedOut ? `timed out after ${o.timeoutMs} ms` : `network error: ${describeFetchError(e)}`;
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onOuterAbort);
    }
    if (attempt + 1 >= attempts) break;
    const delay = Math.min(o.maxDelayMs, waitMs !== null ? waitMs : backoffMs(attempt, o));
    o.log(redact(`CMR: ${last}; retry ${attempt + 1}/${o.retries} in ${delay} ms`));
    await sleep(delay, o.signal);
  }
  throw new EoError('HTTP', redact(`CMR request failed after ${attempts} attempt(s): ${last} (GET ${url})`), {
    url: redact(url),
    status: lastStatus,
    attempts,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Search

function headerInt(h: Headers, name: string): number | null {
  const v = h.get(name);
  if (v === null) return null;
  const n = Number(v.trim());
  return Number.isFinite(n) ? n : null;
}

/** One page of mapped search results. */
export interface CmrPage {
  /** 1-based page number. */
  page: number;
  /** Total matches reported by CMR (`CMR-Hits` header, else body `hits`); null when neither is present. */
  hits: number | null;
  /** Items on the page as received (valid or not; before the `maxRecords` cut). */
  items: number;
  /** Mapped records, in page order. */
  datasets: DatasetRecord[];
  /** Items of this page skipped as invalid (`onInvalid: 'skip'`). */
  skippedInvalid: number;
}

/**
 * Search CMR collections page by page (search-after paging), yielding the mapped records of each page.
 * Stops when a page is shorter than the page size, no `CMR-Search-After` header came back, or `maxRecords`
 * items have been read. Errors: HTTP (after retries; token redacted), DATA_PARSE (body not UMM-JSON),
 * DATA_INVALID (an item that does not map, unless `onInvalid: 'skip'`; the records before it on its page are
 * yielded first, as a last partial page).
 */
export async function* searchCmrCollectionPages(params: CmrSearchParams = {}, opts: CmrClientOptions = {}): AsyncGenerator<CmrPage, void, undefined> {
  const o = resolveOptions(opts);
  const redact = redactor(o.token);
  if (o.maxRecords === 0) return;
  const pageSize = Math.min(o.pageSize, o.maxRecords);
  const url = buildCmrSearchUrl(params, { baseUrl: o.baseUrl, pageSize });
  const baseHeaders: Record<string, string> = { Accept: CMR_UMM_JSON_ACCEPT, 'User-Agent': o.userAgent };
  if (o.token) baseHeaders.Authorization = `Bearer ${o.token}`;
  let searchAfter: string | null = null;
  let read = 0;
  for (let page = 1; ; page++) {
    const headers: Record<string, string> = { ...baseHeaders };
    if (searchAfter !== null) headers['CMR-Search-After'] = searchAfter;
    const res = await getWithRetry(url, headers, o);
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch (e) {
      throw new EoError('DATA_PARSE', redact(`CMR page ${page}: response is not JSON (${(e as Error).message}) (GET ${url})`), { url: redact(url), page });
    }
    if (!isObj(body) || !Array.isArray(body.items))
      throw new EoError('DATA_PARSE', redact(`CMR page ${page}: response has no "items" array (GET ${url})`), { url: redact(url), page });
    const items = body.items as unknown[];
    const hits = headerInt(res.headers, 'cmr-hits') ?? (typeof body.hits === 'number' ? body.hits : null);
    const next = res.headers.get('cmr-search-after');
    o.onPage?.({ page, items: items.length, hits, hasNext: next !== null && next !== '' });
    o.log(`CMR page ${page}: ${items.length} item(s)${hits !== null ? `, ${hits} hit(s) in all` : ''}`);
    const out: CmrPage = { page, hits, items: items.length, datasets: [], skippedInvalid: 0 };
    for (const item of items) {
      if (read >= o.maxRecords) break;
      const loc = { index: read, page };
      read++;
      try {
        out.datasets.push(cmrItemToDataset(item, loc, { baseUrl: o.baseUrl }));
      } catch (e) {
        if (o.onInvalid === 'skip' && e instanceof EoError && e.code === 'DATA_INVALID') {
          out.skippedInvalid++;
          o.onInvalidItem?.({ index: loc.index, page, error: e });
          o.log(`CMR: skipped invalid item: ${e.message}`);
          continue;
        }
        if (out.datasets.length > 0) yield out;
        throw e;
      }
    }
    yield out;
    if (items.length < pageSize || next === null || next === '' || read >= o.maxRecords) return;
    searchAfter = next;
  }
}

/** searchCmrCollectionPages, one validated DatasetRecord at a time. */
export async function* searchCmrCollections(params: CmrSearchParams = {}, opts: CmrClientOptions = {}): AsyncGenerator<DatasetRecord, void, undefined> {
  for await (const page of searchCmrCollectionPages(params, opts)) yield* page.datasets;
}

/** Result of collectCmrCollections. */
export interface CmrCollectResult {
  datasets: DatasetRecord[];
  /** Total matches reported by CMR on the first page, or null. */
  hits: number | null;
  pages: number;
  /** Items skipped as invalid (only with `onInvalid: 'skip'`). */
  skippedInvalid: number;
}

/** The whole search gathered into an array (with hit count, page count and skipped-item count). */
export async function collectCmrCollections(params: CmrSearchParams = {}, opts: CmrClientOptions = {}): Promise<CmrCollectResult> {
  const r: CmrCollectResult = { datasets: [], hits: null, pages: 0, skippedInvalid: 0 };
  for await (const p of searchCmrCollectionPages(params, opts)) {
    if (p.page === 1) r.hits = p.hits;
    r.pages = p.page;
    r.skippedInvalid += p.skippedInvalid;
    for (const d of p.datasets) r.datasets.push(d);
  }
  return r;
}
