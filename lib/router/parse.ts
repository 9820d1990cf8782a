import { shortHash } from '../util/hash';
import { readRouterJson } from './data';
import { findPlaces, loadGazetteer, type Gazetteer } from './gazetteer';
import { phraseMatcher, type PhraseMatcher } from './phrases';
import { parsePeriodChecked } from './time';
import { INTENT_NAMES, type IntentMatch, type IntentName, type ParsedQuery } from './types';
import { findVariables, loadVariableIndex, type VariableIndex } from './variables';

interface IntentsFile {
  intents: Record<IntentName, [string, number][]>;
  stripForRetrieval?: string[];
}

let stripCues: Set<string> | null = null;

/** Cues removed from the retrieval text (intents.json `stripForRetrieval`). */
export function retrievalStripCues(): Set<string> {
  if (!stripCues) stripCues = new Set(readRouterJson<IntentsFile>('intents.json').stripForRetrieval ?? []);
  return stripCues;
}

let intentMatcher: PhraseMatcher<{ intent: IntentName; cue: string; weight: number }> | null = null;

/** Intent cue matcher built from lib/router/data/intents.json (once per process). */
export function loadIntentMatcher(): PhraseMatcher<{ intent: IntentName; cue: string; weight: number }> {
  if (intentMatcher) return intentMatcher;
  const { intents } = readRouterJson<IntentsFile>('intents.json');
  const entries: [string, { intent: IntentName; cue: string; weight: number }][] = [];
  for (const name of INTENT_NAMES) for (const [cue, weight] of intents[name] ?? []) entries.push([cue, { intent: name, cue, weight }]);
  intentMatcher = phraseMatcher(entries);
  return intentMatcher;
}

/** Intent cues in a query (a cue shared by two intents, e.g. "wildfire", counts for both). */
export function findIntents(text: string): IntentMatch[] {
  const out: IntentMatch[] = [];
  for (const h of loadIntentMatcher().find(text)) {
    for (const v of h.values) {
      // spelling variants of one cue ("time series", "time-series") normalise to the same phrase: keep one per intent
      const same = out.find((o) => o.intent === v.intent && o.span.start === h.span.start);
      if (same) same.weight = Math.max(same.weight, v.weight);
      else out.push({ intent: v.intent, cue: v.cue, weight: v.weight, span: h.span });
    }
  }
  return out;
}

/** The strongest cue weight per intent (0 when absent). */
export function intentWeights(intents: IntentMatch[]): Record<IntentName, number> {
  const w = Object.fromEntries(INTENT_NAMES.map((n) => [n, 0])) as Record<IntentName, number>;
  for (const m of intents) w[m.intent] = Math.max(w[m.intent], m.weight);
  return w;
}

export interface ParseOptions {
  /** Reference date for open periods. Default: now. */
  now?: Date;
  gazetteer?: Gazetteer;
  variables?: VariableIndex;
}

/** Rule-based query understanding (no LLM): period, places, physical variables and intents, each with its text span. */
export function parseQuery(text: string, opts: ParseOptions = {}): ParsedQuery {
  const { period, ignored } = parsePeriodChecked(text, opts.now ?? new Date());
  return {
    text,
    period,
    ...(ignored === null ? {} : { periodIgnored: ignored }),
    places: findPlaces(text, opts.gazetteer ?? loadGazetteer()),
    variables: findVariables(text, opts.variables ?? loadVariableIndex()),
    intents: findIntents(text),
  };
}

/** Words that may sit between or after leading action cues ("show me a time series of …") and go with them. */
const CUE_FILLER = new Set(['a', 'an', 'the', 'me', 'us', 'please', 'of', 'for', 'on', 'about', 'some', 'all', 'and', 'to', 'can', 'you', 'could', 'would']);

const onlyFiller = (t: string) => t.split(/[^\p{L}\p{N}]+/u).every((w) => w === '' || CUE_FILLER.has(w.toLowerCase()));

/**
 * The query text for dataset retrieval: the query without its LEADING action phrase — the intent cues listed in
 * intents.json `stripForRetrieval` ("show me", "time series of", "download", "what caused", "i want to"…) at the
 * very start of the query, with the filler words between and after them ("show me a map of the …") — which say what to
 * do with data rather than which data. Cues later in the query are kept: there they are usually content ("… global
 * mean sea level time series", "VHF radio pictures of lightning"), which is why publication titles are left as they
 * are. Places, variables, periods and content cues ("climatology", "reanalysis", "level 3") stay. Returns the query
 * unchanged when nothing would be left.
 */
export function retrievalText(parsed: Pick<ParsedQuery, 'text' | 'intents'>): string {
  const strip = retrievalStripCues();
  const cues = parsed.intents.filter((i) => strip.has(i.cue)).map((i) => i.span).sort((a, b) => a.start - b.start || b.end - a.end);
  let at = 0;
  for (const s of cues) {
    if (s.start < at) continue;
    const gap = parsed.text.slice(at, s.start);
    // the first cue opens the query ("A View of …" is a title, not a request); later ones may follow filler
    if (at === 0 ? gap.trim() !== '' : !onlyFiller(gap)) break;
    at = s.end;
  }
  if (at === 0) return parsed.text;
  const rest = parsed.text.slice(at);
  const words = rest.split(/(\s+)/);
  let i = 0;
  while (i < words.length && (words[i].trim() === '' || onlyFiller(words[i]))) i++;
  const out = words.slice(i).join('').replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(out) ? out : parsed.text;
}

/**
 * `retrievalText` of a raw query: finds the intent cues only (no places, periods or variables), so it is cheap for
 * batches. THE rule for the text retrievers score on every path (`eo search`, `eo serve`, notebooks, evaluation runs,
 * rerank backbones), so the same question ranks the same datasets everywhere and what Table 2 measures is what the
 * service answers. No publication title of the snapshot starts with a cue (a test checks the sample's), so the title
 * benchmark is scored exactly as written; stripping cues anywhere in the query would rewrite titles such as
 * "Crop Residue Burning …".
 */
export function retrievalTextOf(text: string): string {
  return retrievalText({ text, intents: findIntents(text) });
}

/** Identity of the retrieval-text rule (the cue list it strips): stored results computed on rewritten queries are keyed by it. */
export function retrievalRuleId(): string {
  return `strip-cues:${shortHash([...retrievalStripCues()].sort().join('\n'), 10)}`;
}
