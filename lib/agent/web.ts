import { EoError } from '../errors';
import { searchArgs, SEARCH_TOOL_PARAMETERS } from './arxiv';
import type { AgentTool, ToolItem } from './types';

/** A web search provider with a JSON API. */
export interface WebSearchProvider {
  /** `tavily`, `brave`, `searxng`. */
  id: string;
  /** The HTTP request for a query (URL + init): the provider's real request shape. */
  request(query: string, maxResults: number): { url: string; init: RequestInit };
  /** Items from the provider's JSON response. */
  parse(json: unknown): ToolItem[];
}

const arr = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Tavily: `POST https://api.tavily.com/search` with a bearer key; `{results: [{title, url, content}]}`. */
export function tavilyProvider(apiKey: string, baseUrl = 'https://api.tavily.com'): WebSearchProvider {
  return {
    id: 'tavily',
    request: (query, maxResults) => ({
      url: `${baseUrl}/search`,
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ query, max_results: maxResults, search_depth: 'basic' }),
      },
    }),
    parse: (json) => arr((json as { results?: unknown })?.results).map((r) => ({ title: str(r.title), snippet: str(r.content), url: str(r.url) })),
  };
}

/** Brave Search: `GET /res/v1/web/search?q=…&count=…` with `X-Subscription-Token`; `{web: {results: [{title, url, description}]}}`. */
export function braveProvider(apiKey: string, baseUrl = 'https://api.search.brave.com'): WebSearchProvider {
  return {
    id: 'brave',
    request: (query, maxResults) => ({
      url: `${baseUrl}/res/v1/web/search?${new URLSearchParams({ q: query, count: String(maxResults) })}`,
      init: { method: 'GET', headers: { accept: 'application/json', 'x-subscription-token': apiKey } },
    }),
    parse: (json) =>
      arr((json as { web?: { results?: unknown } })?.web?.results).map((r) => ({ title: str(r.title), snippet: str(r.description).replace(/<[^>]+>/g, ''), url: str(r.url) })),
  };
}

/** SearXNG (self-hosted): `GET <base>/search?q=…&format=json`; `{results: [{title, url, content}]}`. */
export function searxngProvider(baseUrl: string): WebSearchProvider {
  return {
    id: 'searxng',
    request: (query) => ({ url: `${baseUrl.replace(/\/$/, '')}/search?${new URLSearchParams({ q: query, format: 'json' })}`, init: { method: 'GET', headers: { accept: 'application/json' } } }),
    parse: (json) => arr((json as { results?: unknown })?.results).map((r) => ({ title: str(r.title), snippet: str(r.content), url: str(r.url) })),
  };
}

/**
 * The web search provider chosen by environment: `EO_WEB_SEARCH` = `tavily` (key `TAVILY_API_KEY`), `brave`
 * (`BRAVE_API_KEY`) or `searxng` (`SEARXNG_URL`); unset → the first whose variable is set; none → null.
 */
export function webSearchProviderFromEnv(env: Record<string, string | undefined> = process.env): WebSearchProvider | null {
  const want = env.EO_WEB_SEARCH?.toLowerCase();
  const make: Record<string, () => WebSearchProvider | null> = {
    tavily: () => (env.TAVILY_API_KEY ? tavilyProvider(env.TAVILY_API_KEY, env.TAVILY_URL) : null),
    brave: () => (env.BRAVE_API_KEY ? braveProvider(env.BRAVE_API_KEY, env.BRAVE_URL) : null),
    searxng: () => (env.SEARXNG_URL ? searxngProvider(env.SEARXNG_URL) : null),
  };
  if (want) {
    if (!make[want]) throw new EoError('CONFIG', `EO_WEB_SEARCH="${want}": expected tavily, brave or searxng`);
    const p = make[want]();
    if (!p) throw new EoError('CONFIG', `EO_WEB_SEARCH=${want} but its key/URL variable is not set`);
    return p;
  }
  for (const k of ['tavily', 'brave', 'searxng']) {
    const p = make[k]();
    if (p) return p;
  }
  return null;
}

export const WEB_TOOL_DESCRIPTION = 'Search the web (dataset documentation, product user guides, agency pages). Returns titles, URLs and snippets.';

/** `web_search` through a provider. HTTP errors name the provider and status, never the key. */
export function webSearchTool(provider: WebSearchProvider, opts: { timeoutMs?: number; fetch?: typeof fetch } = {}): AgentTool {
  const f = opts.fetch ?? fetch;
  return {
    spec: { name: 'web_search', description: WEB_TOOL_DESCRIPTION, parameters: { ...SEARCH_TOOL_PARAMETERS } },
    mode: 'live',
    async run(args, ctx) {
      const { query, maxResults } = searchArgs(args);
      const { url, init } = provider.request(query, maxResults);
      const timeout = AbortSignal.timeout(opts.timeoutMs ?? 30000);
      const res = await f(url, { ...init, signal: ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout });
      if (!res.ok) throw new EoError('HTTP', `web search (${provider.id}) answered HTTP ${res.status}`, { status: res.status });
      let json: unknown;
      try {
        json = await res.json();
      } catch {
        throw new EoError('DATA_PARSE', `web search (${provider.id}) answered non-JSON`);
      }
      return { items: provider.parse(json).slice(0, maxResults), source: `web (${provider.id})` };
    },
  };
}
