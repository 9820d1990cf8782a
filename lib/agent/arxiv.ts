import { EoError } from '../errors';
import type { AgentTool, ToolItem } from './types';

/** One paper of an arXiv Atom feed. */
export interface ArxivEntry {
  /** arXiv id with version, e.g. `2607.02387v1` (from `<id>http://arxiv.org/abs/…</id>`). */
  id: string;
  title: string;
  summary: string;
  authors: string[];
  published: string | null;
  updated: string | null;
  doi: string | null;
  journalRef: string | null;
  categories: string[];
  /** The abstract page. */
  url: string;
}

export interface ArxivFeed {
  totalResults: number | null;
  startIndex: number | null;
  entries: ArxivEntry[];
}

/** Decode XML character references and the five predefined entities; unwrap CDATA. */
export function decodeXmlText(s: string): string {
  return s
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, c: string) => c.replace(/&/g, '&amp;').replace(/</g, '&lt;'))
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => safeChar(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => safeChar(parseInt(d, 10)))
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

function safeChar(cp: number): string {
  return Number.isFinite(cp) && cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
}

const clean = (s: string) => decodeXmlText(s).replace(/\s+/g, ' ').trim();

/** Text of the first `<tag …>…</tag>` (any namespace prefix given in `tag`), or null. */
function firstTag(xml: string, tag: string): string | null {
  const m = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'i').exec(xml);
  return m ? m[1] : null;
}

function allTags(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'gi'))].map((m) => m[1]);
}

function attr(tagXml: string, name: string): string | null {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, 'i').exec(tagXml);
  return m ? decodeXmlText(m[2] ?? m[3] ?? '') : null;
}

/**
 * Parse an arXiv API Atom feed (export.arxiv.org/api/query). Tolerant: namespace prefixes on `arxiv:` elements,
 * CDATA, entities, missing optional fields. An arXiv error feed (entry id …/api/errors…) becomes an EoError
 * (HTTP) with arXiv's message; text that is not an Atom feed is a DATA_PARSE error.
 */
export function parseArxivAtom(xml: string): ArxivFeed {
  if (!/<feed[\s>]/i.test(xml)) throw new EoError('DATA_PARSE', `arXiv response is not an Atom feed: ${xml.slice(0, 120).replace(/\s+/g, ' ')}`);
  const head = xml.split(/<entry[\s>]/i)[0];
  const num = (t: string | null) => (t !== null && /^\s*\d+\s*$/.test(t) ? Number(t) : null);
  const entries: ArxivEntry[] = [];
  for (const m of xml.matchAll(/<entry(?:\s[^>]*)?>([\s\S]*?)<\/entry>/gi)) {
    const e = m[1];
    const idUrl = clean(firstTag(e, 'id') ?? '');
    if (/\/api\/errors/.test(idUrl)) throw new EoError('HTTP', `arXiv API error: ${clean(firstTag(e, 'summary') ?? firstTag(e, 'title') ?? 'unknown')}`);
    const links = [...e.matchAll(/<link\b[^>]*>/gi)].map((l) => l[0]);
    const doiLink = links.find((l) => attr(l, 'title') === 'doi');
    const alt = links.find((l) => attr(l, 'rel') === 'alternate');
    const doi = firstTag(e, 'arxiv:doi') ?? firstTag(e, 'doi');
    entries.push({
      id: idUrl.replace(/^https?:\/\/arxiv\.org\/abs\//i, ''),
      title: clean(firstTag(e, 'title') ?? ''),
      summary: clean(firstTag(e, 'summary') ?? ''),
      authors: allTags(e, 'author').map((a) => clean(firstTag(a, 'name') ?? '')).filter((a) => a !== ''),
      published: firstTag(e, 'published') !== null ? clean(firstTag(e, 'published')!) : null,
      updated: firstTag(e, 'updated') !== null ? clean(firstTag(e, 'updated')!) : null,
      doi: doi !== null ? clean(doi) : doiLink ? (attr(doiLink, 'href') ?? '').replace(/^https?:\/\/(dx\.)?doi\.org\//i, '') || null : null,
      journalRef: firstTag(e, 'arxiv:journal_ref') !== null ? clean(firstTag(e, 'arxiv:journal_ref')!) : null,
      categories: [...e.matchAll(/<category\b[^>]*>/gi)].map((c) => attr(c[0], 'term') ?? '').filter((c) => c !== ''),
      url: (alt && attr(alt, 'href')) || idUrl,
    });
  }
  return { totalResults: num(firstTag(head, 'opensearch:totalResults')), startIndex: num(firstTag(head, 'opensearch:startIndex')), entries };
}

export const ARXIV_API_URL = 'http://export.arxiv.org/api/query';

export interface ArxivClientOptions {
  /** Query endpoint. Default `http://export.arxiv.org/api/query` (env EO_ARXIV_URL overrides). */
  url?: string;
  /** Results per search. Default 5. */
  maxResults?: number;
  /** Retries on HTTP 429/5xx and network errors. Default 3. */
  retries?: number;
  /** Minimum gap between two requests (arXiv asks for 3 s). Default 3000 for the real API, else 0. */
  minIntervalMs?: number;
  /** Per-request timeout. Default 30000. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const STOP = new Set(['the', 'and', 'for', 'with', 'from', 'into', 'over', 'under', 'using', 'based', 'data', 'of', 'in', 'on', 'to', 'a', 'an', 'by', 'at', 'as', 'is', 'are', 'or', 'via']);

/** An arXiv `search_query` from free text: up to 10 content terms, `all:` field, OR-ed (arXiv ranks by relevance). */
export function arxivSearchQuery(text: string): string {
  const terms = [...new Set(text.toLowerCase().split(/[^a-z0-9\-]+/).filter((t) => t.length > 1 && !STOP.has(t)))].slice(0, 10);
  return terms.map((t) => `all:${t}`).join(' OR ');
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A client of the real arXiv API: `search(text)` → parsed entries. Requests are spaced by `minIntervalMs`. */
export function arxivClient(opts: ArxivClientOptions = {}) {
  const url = opts.url ?? process.env.EO_ARXIV_URL ?? ARXIV_API_URL;
  const gap = opts.minIntervalMs ?? (url === ARXIV_API_URL ? 3000 : 0);
  const f = opts.fetch ?? fetch;
  let last = 0;
  let chain: Promise<unknown> = Promise.resolve();
  async function get(params: URLSearchParams, signal?: AbortSignal): Promise<ArxivFeed> {
    const retries = opts.retries ?? 3;
    let lastErr: unknown;
    for (let attempt = 0; attempt <= retries; attempt++) {
      const wait = last + gap - Date.now();
      if (wait > 0) await sleep(wait);
      last = Date.now();
      try {
        const timeout = AbortSignal.timeout(opts.timeoutMs ?? 30000);
        const res = await f(`${url}?${params}`, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
        const body = await res.text();
        if (res.ok) return parseArxivAtom(body);
        lastErr = new EoError('HTTP', `arXiv API ${res.status} for ${url}`, { status: res.status });
        if (res.status !== 429 && res.status < 500) throw lastErr;
        const ra = Number(res.headers.get('retry-after'));
        await sleep(Number.isFinite(ra) && ra > 0 ? Math.min(ra, 30) * 1000 : 500 * 2 ** attempt);
      } catch (e) {
        if (e instanceof EoError && (e.code === 'DATA_PARSE' || (e.details?.status !== undefined && (e.details.status as number) < 500 && e.details.status !== 429))) throw e;
        if (signal?.aborted) throw e;
        lastErr = e;
      }
    }
    throw lastErr instanceof EoError ? lastErr : new EoError('HTTP', `arXiv API failed after ${retries + 1} attempts: ${String(lastErr)}`);
  }
  return {
    url,
    /** Relevance-ranked search over all fields. */
    search(text: string, maxResults = opts.maxResults ?? 5, signal?: AbortSignal): Promise<ArxivFeed> {
      const params = new URLSearchParams({ search_query: arxivSearchQuery(text), start: '0', max_results: String(maxResults), sortBy: 'relevance' });
      const p = chain.then(() => get(params, signal));
      chain = p.catch(() => undefined);
      return p;
    },
  };
}

/** Shared JSON schema of the search tools' arguments. */
export const SEARCH_TOOL_PARAMETERS = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Search terms.' },
    max_results: { type: 'integer', description: 'How many results (1-10). Default 5.', minimum: 1, maximum: 10 },
  },
  required: ['query'],
} as const;

export const ARXIV_TOOL_DESCRIPTION =
  'Search arXiv for scientific papers (title, abstract, DOI). Use it to learn which datasets, instruments or variables researchers use for a topic.';

/** Read `query` / `max_results` from tool arguments (clear error when the query is missing). */
export function searchArgs(args: Record<string, unknown>, defaultMax = 5): { query: string; maxResults: number } {
  const q = args.query;
  if (typeof q !== 'string' || q.trim() === '') throw new EoError('INVALID_ARGUMENT', 'tool argument "query" must be a non-empty string');
  const m = Number(args.max_results ?? defaultMax);
  return { query: q, maxResults: Number.isFinite(m) ? Math.max(1, Math.min(10, Math.floor(m))) : defaultMax };
}

/** `arxiv_search` over the real arXiv API. */
export function arxivSearchTool(opts: ArxivClientOptions = {}): AgentTool {
  const client = arxivClient(opts);
  return {
    spec: { name: 'arxiv_search', description: ARXIV_TOOL_DESCRIPTION, parameters: { ...SEARCH_TOOL_PARAMETERS } },
    mode: 'live',
    async run(args, ctx) {
      const { query, maxResults } = searchArgs(args, opts.maxResults ?? 5);
      const feed = await client.search(query, maxResults, ctx.signal);
      const items: ToolItem[] = feed.entries.map((e) => ({
        title: e.title, snippet: e.summary, url: e.url, doi: e.doi?.toLowerCase() ?? undefined, id: e.id,
        year: e.published ? Number(e.published.slice(0, 4)) : undefined,
      }));
      return { items, source: `arxiv (${client.url})` };
    },
  };
}
