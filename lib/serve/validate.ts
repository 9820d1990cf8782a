import type { Corpus } from '../data/types';
import { isEoError } from '../errors';
import { parseFilterParams, type IgnoreParsed, type SearchFilters } from '../search/filters';

/**
 * The longest query the service accepts (characters), and `eo search` too: one limit, one code (QUERY_TOO_LONG).
 * `eo serve --max-query` changes the service's.
 */
export const MAX_QUERY_CHARS = 500;

/** Every `error.code` the service answers with (`{ error: { code, message } }`, or the HTML error page). */
export type ServiceErrorCode =
  | 'EMPTY_QUERY' | 'QUERY_TOO_LONG' | 'BINARY_QUERY' | 'MARKUP_QUERY' | 'BAD_K' | 'BAD_PARAMETER' | 'OVERLOADED'
  | 'RATE_LIMITED' | 'NOT_FOUND' | 'METHOD_NOT_ALLOWED' | 'BAD_URL' | 'URI_TOO_LONG' | 'BAD_REQUEST' | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE' | 'INTERNAL' | 'BAD_FILTER' | 'HEADERS_TOO_LARGE' | 'REQUEST_TIMEOUT';

/** Why a request was refused (HTTP 400 unless noted). The message never repeats the query text or the path. */
export interface QueryProblem {
  status: number;
  code: ServiceErrorCode;
  message: string;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether a raw request target (`req.raw.url`: path and query string, still percent-encoded) is UTF-8 once decoded:
 * false for `%ff%fe`, the overlong `%c0%af` and the surrogate `%ed%a0%80` anywhere in it. Node's query-string parser
 * keeps such escapes as literal text and `decodeURIComponent` turns them into errors or U+FFFD, so the bytes are
 * decoded here, strictly. Characters that arrive unescaped count as the bytes Node read (latin-1), or as UTF-8 above U+00FF.
 */
export function isUtf8RequestTarget(rawUrl: string): boolean {
  if (!rawUrl.includes('%') && !/[^\x00-\x7f]/.test(rawUrl)) return true;
  const bytes: number[] = [];
  for (let i = 0; i < rawUrl.length; i++) {
    const c = rawUrl.charCodeAt(i);
    if (c === 0x25 && /^[0-9a-fA-F]{2}$/.test(rawUrl.slice(i + 1, i + 3))) {
      bytes.push(parseInt(rawUrl.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c < 0x100) bytes.push(c);
    else bytes.push(...Buffer.from(String.fromCodePoint(rawUrl.codePointAt(i)!), 'utf8'));
    if (c >= 0xd800 && c <= 0xdbff) i++;
  }
  try {
    STRICT_UTF8.decode(Uint8Array.from(bytes));
    return true;
  } catch {
    return false;
  }
}

/** The answer to a request target that is not UTF-8 (`isUtf8RequestTarget`). */
export const BINARY_REQUEST: QueryProblem = { status: 400, code: 'BINARY_QUERY', message: 'the request contains bytes that are not UTF-8 text (in the query or the path)' };

/** Control characters other than tab/newline, U+FFFD (bytes that were not UTF-8), and NUL. */
const BINARY = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFD]/;
/**
 * HTML markup: any tag (`<b>`, `</div>`, `<base href=//x>`), a tag opened with an attribute and never closed
 * (`<img src=x`), tags that run or load code, `javascript:` URLs, inline event handlers, comments. A comparison
 * ("AOD < 0.5 and SST > 20", "lat < a and b > c") is not markup: as in HTML, a tag's name follows `<` (or `</`) at once.
 */
const MARKUP = /<\/?[a-z][a-z0-9-]*(?:[\s/][^<>]*)?>|<[a-z][a-z0-9-]*\s+[a-z-]+\s*=|<\/?(?:script|iframe|object|embed|svg|img|style|link|meta|form|input|body|html|a)\b|javascript\s*:|\bon[a-z]+\s*=|<!--/i;

/**
 * Check a search query: a string, non-empty after trimming, at most `maxChars` characters, no binary/control
 * characters, no HTML/script markup. Returns the trimmed query, or the problem.
 */
export function checkQuery(q: unknown, maxChars: number): { query: string } | { problem: QueryProblem } {
  if (Array.isArray(q)) return { problem: { status: 400, code: 'BAD_PARAMETER', message: 'give the query once (one q parameter)' } };
  if (typeof q !== 'string' || q.trim() === '') return { problem: { status: 400, code: 'EMPTY_QUERY', message: 'the query is empty: type what you are looking for, e.g. "sea ice extent in the Arctic"' } };
  if (q.length > maxChars) return { problem: { status: 400, code: 'QUERY_TOO_LONG', message: `the query is too long (${q.length} characters; at most ${maxChars})` } };
  if (BINARY.test(q)) return { problem: { status: 400, code: 'BINARY_QUERY', message: 'the query contains control or non-text characters' } };
  if (MARKUP.test(q)) return { problem: { status: 400, code: 'MARKUP_QUERY', message: 'the query contains HTML or script markup; describe the data in words' } };
  return { query: q.trim().replace(/\s+/g, ' ') };
}

/** Parameters of the search (`/api/search` and the page), by CMR's names; `k` is ours (= `page_size`). */
export const SEARCH_PARAMETERS: readonly string[] = [
  'q', 'k', 'page_size', 'page_num', 'offset', 'repair', 'include_facets',
  'provider', 'platform', 'instrument', 'processing_level_id', 'temporal', 'bounding_box', 'ignore',
];
/** Parameters CMR also takes in its array form (`provider[]=A&provider[]=B`). */
const ARRAY_FORM = new Set(['provider', 'platform', 'instrument', 'processing_level_id', 'temporal', 'bounding_box', 'ignore']);
/** CMR's `options[<parameter>][ignore_case]` fits where names are matched: always case-insensitively here. */
const CASE_OPTION = /^options\[(provider|platform|instrument)\]\[ignore_case\]$/;

/**
 * The search parameters as CMR writes them, in the service's form: `name[]` merged into `name`, CMR's
 * `options[provider|platform|instrument][ignore_case]=true` accepted (names match case-insensitively; `false` is
 * refused), and any other parameter refused as CMR refuses it (400 `BAD_PARAMETER`, "Parameter [x] was not
 * recognized", every unknown one named).
 */
export function normaliseSearchParameters(raw: Record<string, unknown>): { params: Record<string, unknown> } | { problem: QueryProblem } {
  const params: Record<string, unknown> = {};
  const unknown: string[] = [];
  const add = (name: string, v: unknown) => {
    const prev = params[name];
    params[name] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), ...(Array.isArray(v) ? v : [v])];
  };
  for (const [key, v] of Object.entries(raw)) {
    if (key.endsWith('[]') && ARRAY_FORM.has(key.slice(0, -2))) add(key.slice(0, -2), v);
    else if (SEARCH_PARAMETERS.includes(key)) add(key, v);
    else if (CASE_OPTION.test(key)) {
      if (v !== 'true') return { problem: { status: 400, code: 'BAD_PARAMETER', message: `Parameter [${shortName(key)}] must be true: names are matched ignoring case here` } };
    } else unknown.push(key);
  }
  if (unknown.length) return { problem: { status: 400, code: 'BAD_PARAMETER', message: unknown.slice(0, 5).map((k) => `Parameter [${shortName(k)}] was not recognized`).join('; ') + (unknown.length > 5 ? `; and ${unknown.length - 5} more` : '') } };
  return { params };
}

/** A parameter name as a message may show it: printable and short (never long input echoed). */
function shortName(name: string): string {
  const p = name.replace(/[^\x20-\x7e]/g, '?');
  return p.length > 40 ? `${p.slice(0, 40)}…` : p;
}

/**
 * Which results a request asks for: `k` or CMR's `page_size` (1..maxK, default `def`), and CMR's `page_num` (from 1)
 * or `offset` (from 0), so that `offset + size` stays within `maxDepth`. Out-of-range paging is a 400.
 */
export function checkPaging(q: Record<string, unknown>, def: number, maxK: number, maxDepth: number): { size: number; offset: number } | { problem: QueryProblem } {
  if (q.k !== undefined && q.page_size !== undefined) return { problem: { status: 400, code: 'BAD_PARAMETER', message: 'give k or page_size, not both (they are the same)' } };
  const sizeName = q.page_size !== undefined ? 'page_size' : 'k';
  const ck = checkK(q[sizeName], def, maxK);
  if ('problem' in ck) return { problem: { ...ck.problem, message: ck.problem.message.replace(/^k /, `${sizeName} `) } };
  if (q.page_num !== undefined && q.offset !== undefined) return { problem: { status: 400, code: 'BAD_PARAMETER', message: 'give page_num or offset, not both' } };
  const int = (v: unknown) => (typeof v === 'string' && /^\d{1,6}$/.test(v) ? Number(v) : NaN);
  let offset = 0;
  if (q.page_num !== undefined) {
    const n = int(q.page_num);
    if (!(n >= 1)) return { problem: { status: 400, code: 'BAD_PARAMETER', message: 'page_num must be an integer from 1' } };
    offset = (n - 1) * ck.k;
  } else if (q.offset !== undefined) {
    offset = int(q.offset);
    if (!(offset >= 0)) return { problem: { status: 400, code: 'BAD_PARAMETER', message: 'offset must be an integer from 0' } };
  }
  if (offset + ck.k > maxDepth)
    return { problem: { status: 400, code: 'BAD_PARAMETER', message: `the page ends at result ${offset + ck.k}; results are ranked to ${maxDepth} at most` } };
  return { size: ck.k, offset };
}

/** `k`: absent → `def`; else an integer in 1..max. */
export function checkK(k: unknown, def: number, max: number): { k: number } | { problem: QueryProblem } {
  if (k === undefined || k === '') return { k: def };
  const n = typeof k === 'string' && /^\d{1,4}$/.test(k) ? Number(k) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > max) return { problem: { status: 400, code: 'BAD_K', message: `k must be an integer from 1 to ${max}` } };
  return { k: n };
}

/**
 * The filter parameters of a request (`provider`, `platform`, `instrument`, `processing_level_id`, `temporal`,
 * `bounding_box`, `ignore`; lib/search/filters.ts `parseFilterParams`, the one parser the service and `eo search`
 * share). A bad value is a 400 `BAD_FILTER` whose message names the parameter and what is wrong.
 */
export function checkFilters(params: Record<string, unknown>, corpus: Pick<Corpus, 'datasets'>): { filters: SearchFilters; ignore: IgnoreParsed } | { problem: QueryProblem } {
  try {
    return parseFilterParams(params, corpus);
  } catch (e) {
    if (isEoError(e, 'INVALID_ARGUMENT') && typeof e.details?.parameter === 'string') return { problem: { status: 400, code: 'BAD_FILTER', message: e.message } };
    throw e;
  }
}

export { escapeHtml } from '../util/html';

/** True for http(s) URLs (the only ones the page turns into links). */
export function isHttpUrl(u: string): boolean {
  try {
    const p = new URL(u);
    return p.protocol === 'https:' || p.protocol === 'http:';
  } catch {
    return false;
  }
}
