import type { Corpus } from '../data/types';
import { buildActions, DEFAULT_TOOL_ENDPOINTS, type ToolEndpoints } from './actions';
import { decideTools, type ShortNameResolver } from './decide';
import { parseQuery } from './parse';
import type { CandidateDataset, RouteOptions, RouteResult } from './types';

/** A dataset record as the router sees it. */
export function candidateOf(d: { id: string; shortName: string | null; longName: string; temporalStart: string | null; temporalEnd: string | null }): CandidateDataset {
  return { id: d.id, shortName: d.shortName, longName: d.longName, temporalStart: d.temporalStart, temporalEnd: d.temporalEnd };
}

/**
 * ShortName → dataset in a corpus (the first one in corpus order when several versions share it), so that the
 * variable mapping's Harmony collections become concept ids of the loaded snapshot.
 */
export function corpusShortNameResolver(corpus: Corpus): ShortNameResolver {
  const by = new Map<string, CandidateDataset>();
  for (const d of corpus.datasets) if (d.shortName && !by.has(d.shortName)) by.set(d.shortName, candidateOf(d));
  return (sn) => by.get(sn) ?? null;
}

export interface RouterConfig {
  /** Resolves the mapping's Harmony ShortNames; default none (then Harmony needs a retrieved candidate). */
  resolveShortName?: ShortNameResolver;
  /** Tool base URLs; default DEFAULT_TOOL_ENDPOINTS. */
  endpoints?: ToolEndpoints;
}

/** The rule-based router: parse → decide → actions. Pure apart from reading its data files once. */
export function routeQuery(text: string, opts: RouteOptions & RouterConfig = {}): RouteResult {
  const now = opts.now ?? new Date();
  const parsed = parseQuery(text, { now });
  const candidates = opts.candidates ?? [];
  const decisions = decideTools(parsed, { resolveShortName: opts.resolveShortName, candidates, minConfidence: opts.minConfidence });
  const actions = buildActions({ parsed, candidates, now, resolveShortName: opts.resolveShortName, endpoints: opts.endpoints ?? DEFAULT_TOOL_ENDPOINTS }, decisions);
  const fallThrough = !decisions.some((d) => d.applies && d.fullyAnswers);
  return { query: text, parsed, decisions, actions, fallThrough, router: 'rules', notes: [] };
}

/** Tools that apply in a route result, in TOOL_NAMES order. */
export function appliedTools(r: Pick<RouteResult, 'decisions'>): RouteResult['decisions'][number]['tool'][] {
  return r.decisions.filter((d) => d.applies).map((d) => d.tool);
}
