import { retrievalStripCues, retrievalText, retrievalTextOf } from '../router/parse';
import type { ParsedQuery } from '../router/types';
import { shortHash } from '../util/hash';

/**
 * THE rule for the text retrievers score, on every path (`eo search`, `eo serve`, notebooks, evaluation runs,
 * rerank backbones): the query without the router's action cues (intents.json `stripForRetrieval`: "show me",
 * "time series of", "download", "what caused"…), which say what to do with data rather than which data. Places,
 * periods, variables and content cues stay; a query that would be left empty is scored as typed.
 *
 * Why one rule: the same question then ranks the same datasets from the command line, the web page and a notebook,
 * and what Table 2 measures is what the service answers. Publication titles rarely contain a cue (12 of the
 * snapshot's 725 do, e.g. "… sea level time series"), so the title benchmark's numbers barely move.
 */
export function retrievalQueryText(query: string): string {
  return retrievalTextOf(query);
}

/** The same rule for a query that is already parsed (the web path parses once: router and retrieval share it). */
export function retrievalQueryTextParsed(parsed: Pick<ParsedQuery, 'text' | 'intents'>): string {
  return retrievalText(parsed);
}

/** Identity of the rule (the cue list it strips): stored results computed on rewritten queries are keyed by it. */
export function retrievalRuleId(): string {
  return `strip-cues:${shortHash([...retrievalStripCues()].sort().join('\n'), 10)}`;
}
