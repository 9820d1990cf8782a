import type { Corpus } from '../data/types';
import { buildActions, DEFAULT_TOOL_ENDPOINTS, type ToolEndpoints } from './actions';
import { decideTools, type ShortNameResolver } from './decide';
import { parseQuery } from './parse';
import type { VariableIndex } from './variables';
import type { CandidateDataset, ParsedQuery, RouteOptions, RouteResult, ToolDecision } from './types';

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
  /** The variable vocabulary (GCMD keywords of the run's data folder). Default: `loadVariableIndex()`. */
  variables?: VariableIndex;
}

/** The rule-based router: parse → decide → actions. Pure apart from reading its data files once. */
export function routeQuery(text: string, opts: RouteOptions & RouterConfig = {}): RouteResult {
  const now = opts.now ?? new Date();
  const parsed = parseQuery(text, { now, variables: opts.variables });
  const candidates = opts.candidates ?? [];
  const decisions = decideTools(parsed, { resolveShortName: opts.resolveShortName, candidates, minConfidence: opts.minConfidence });
  return finishRoute(parsed, decisions, { ...opts, now, candidates, router: 'rules' });
}

/**
 * The second half of routing, once the tools are decided: each applicable tool's action (the first candidate feeds
 * Harmony / Earthdata Search), the fall-through flag, and — when the decisions were made before retrieval — the top
 * retrieved collection as evidence of an applicable Earthdata Search decision.
 */
export function finishRoute(
  parsed: ParsedQuery, decisions: ToolDecision[],
  opts: RouterConfig & { now: Date; candidates: CandidateDataset[]; router: string; notes?: string[] },
): RouteResult {
  const top = opts.candidates[0];
  const withEvidence = decisions.map((d) =>
    d.tool === 'earthdata-search' && d.applies && top && !d.evidence.some((e) => e.kind === 'dataset')
      ? { ...d, evidence: [...d.evidence, { kind: 'dataset' as const, detail: `top retrieved collection ${top.id}` }] }
      : d);
  const actions = buildActions({ parsed, candidates: opts.candidates, now: opts.now, resolveShortName: opts.resolveShortName, endpoints: opts.endpoints ?? DEFAULT_TOOL_ENDPOINTS }, withEvidence);
  const fallThrough = !withEvidence.some((d) => d.applies && d.fullyAnswers);
  // the period left out is said, so that no one reads the answer as filtered by it
  const notes = [...(parsed.periodIgnored ? [periodIgnoredNote(parsed.periodIgnored)] : []), ...(opts.notes ?? [])];
  return { query: parsed.text, parsed, decisions: withEvidence, actions, fallThrough, router: opts.router, notes };
}

/** The note of a period the router left out (`ParsedQuery.periodIgnored`), as the page, the API and `eo search` show it. */
export function periodIgnoredNote(why: string): string {
  return `period ignored: ${why}`;
}

/** Tools that apply in a route result, in TOOL_NAMES order. */
export function appliedTools(r: Pick<RouteResult, 'decisions'>): RouteResult['decisions'][number]['tool'][] {
  return r.decisions.filter((d) => d.applies).map((d) => d.tool);
}
