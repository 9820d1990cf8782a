/**
 * Stage 1 of the pipeline: the router. A query is parsed (period, places, variables, intents) without an LLM, each
 * of NASA's own tools gets a decision with evidence and a confidence, and every chosen tool gets a concrete link or
 * request with provenance. What no tool fully answers falls through to dataset retrieval.
 */
import type { BBox } from '../data/types';

/** NASA tools the router can send a query to. */
export type ToolName = 'worldview' | 'giovanni' | 'harmony' | 'sde' | 'earthdata-search';
export const TOOL_NAMES: readonly ToolName[] = ['worldview', 'giovanni', 'harmony', 'sde', 'earthdata-search'];

/** What the user wants to do. */
export type IntentName = 'visualise' | 'timeseries' | 'subset' | 'background' | 'event' | 'dataset';
export const INTENT_NAMES: readonly IntentName[] = ['visualise', 'timeseries', 'subset', 'background', 'event', 'dataset'];

/** A span of the query text that triggered something (character offsets into the original text). */
export interface TextSpan {
  text: string;
  start: number;
  end: number;
}

/** A time period, both ends inclusive, as ISO dates (YYYY-MM-DD). */
export interface Period {
  start: string;
  end: string;
  /** Which rule recognised it, e.g. `year`, `year-range`, `since`, `season`, `chrono`. */
  rule: string;
  /** Granularity of the statement: a single day, a month, a season, a year, or a multi-year span. */
  granularity: 'day' | 'month' | 'season' | 'year' | 'span';
  span: TextSpan;
}

/** Bounding box `[west, south, east, north]` (defined with the dataset record it also describes). */
export type { BBox };

/** One gazetteer entry. */
export interface GazetteerPlace {
  /** Stable id, e.g. `ocean:arctic-ocean` or `country:BR`. */
  id: string;
  name: string;
  kind: 'country' | 'region' | 'continent' | 'ocean' | 'sea' | 'basin' | 'polar' | 'state' | 'feature';
  bbox: BBox;
  /** Lower-case names the place is matched by (name included). */
  names: string[];
  /** Where the entry comes from, e.g. `@ideditor/country-coder 5.1.0` or `lib/router/data/places.json`. */
  source: string;
}

export interface PlaceMatch {
  place: GazetteerPlace;
  span: TextSpan;
}

/** One entry of the variable mapping data file (lib/router/data/variables.json). */
export interface VariableMapping {
  /** Short id, e.g. `sst`. */
  id: string;
  label: string;
  /** GCMD science keyword (upper case) this variable corresponds to. */
  gcmd: string;
  /** Lower-case phrases that name the variable (abbreviations included). */
  synonyms: string[];
  /** Worldview layer ids, best first (empty: no imagery mapping). */
  worldviewLayers: string[];
  /** Giovanni variable id and its data keyword, when Giovanni serves it. */
  giovanni: { variable: string; dataKeyword: string } | null;
  /** CMR ShortNames (best first) of collections that Harmony can subset for this variable; looked up in the corpus. */
  harmonyShortNames: string[];
}

export interface VariableMatch {
  /** The GCMD keyword (upper case) matched or implied. */
  gcmd: string;
  /** The mapping entry, when the variable is in the mapping file. */
  mapping: VariableMapping | null;
  /** `mapping` (a synonym of the mapping file) or `gcmd` (a GCMD keyword found in the text). */
  via: 'mapping' | 'gcmd';
  /** Full GCMD path of the matched keyword, when via is `gcmd`. */
  gcmdPath?: string;
  span: TextSpan;
}

export interface IntentMatch {
  intent: IntentName;
  /** The cue phrase of lib/router/data/intents.json that matched. */
  cue: string;
  weight: number;
  span: TextSpan;
}

/** Everything the rule-based parser understood about a query. */
export interface ParsedQuery {
  text: string;
  period: Period | null;
  /** Why the text's period was left out (`periodProblem`: an impossible date, a reversed range); absent when none. */
  periodIgnored?: string;
  places: PlaceMatch[];
  variables: VariableMatch[];
  intents: IntentMatch[];
}

/** One piece of evidence behind a decision. */
export interface Evidence {
  kind: 'intent' | 'place' | 'period' | 'variable' | 'dataset' | 'llm' | 'rule';
  /** What it says, e.g. `intent visualise ("map of")`. */
  detail: string;
  span?: TextSpan;
}

/** The router's verdict for one tool. */
export interface ToolDecision {
  tool: ToolName;
  applies: boolean;
  /** 0..1. */
  confidence: number;
  /** True when the tool's answer is the whole answer (no dataset retrieval needed). */
  fullyAnswers: boolean;
  /** The rule that decided, e.g. `worldview.visualise+layer`. */
  rule: string;
  evidence: Evidence[];
}

/** A candidate dataset the actions may be built for (from retrieval, or from the variable mapping). */
export interface CandidateDataset {
  id: string;
  shortName: string | null;
  longName: string;
  temporalStart: string | null;
  temporalEnd: string | null;
}

/** A concrete link or request for a tool, with the rule and data that produced it. */
export interface RouterAction {
  tool: ToolName;
  /** Human label, e.g. `Worldview: Sea Surface Temperature over Gulf of Mexico, 2019-08-01`. */
  label: string;
  url: string;
  /** HTTP method of the request (links are GET). */
  method: 'GET';
  /** The builder rule, e.g. `worldview.permalink`. */
  rule: string;
  /** The parsed values and data entries used, e.g. `{ layers: [...], layerSource: 'variables.json:sst', bbox: ..., date: ... }`. */
  provenance: Record<string, unknown>;
}

/** The router's whole answer for a query. */
export interface RouteResult {
  query: string;
  parsed: ParsedQuery;
  decisions: ToolDecision[];
  actions: RouterAction[];
  /** True when no applicable tool fully answers the query, so it goes on to dataset retrieval. */
  fallThrough: boolean;
  /** `rules`, or `llm:<model>` when an LLM chose the tools. */
  router: string;
  /** Notes (e.g. an LLM reply that could not be parsed and what was done instead). */
  notes: string[];
}

/** Options of `routeQuery`. */
export interface RouteOptions {
  /** Datasets from retrieval, best first; the first one feeds Harmony/Earthdata Search actions. Default none. */
  candidates?: CandidateDataset[];
  /** Reference "today" for open periods ("since 2015", "last 10 years"). Default: the current date. */
  now?: Date;
  /** A decision applies when its confidence reaches this. Default 0.5. */
  minConfidence?: number;
}

/** One row of the labelled router set (lib/router/data/labelled-queries.jsonl). */
export interface LabelledRouterQuery {
  id: string;
  query: string;
  /** Tools that should apply (may be empty: a plain dataset search). */
  tools: ToolName[];
  /** True when the query should (also) go to dataset retrieval. */
  fallThrough: boolean;
  /** One line saying why. */
  reason: string;
  /**
   * `dev`: written together with the rules (and looked at while adjusting them); `heldout`: written after the rules
   * were frozen and never used to change them. Default `dev`.
   */
  split: 'dev' | 'heldout';
}

/** Counts and scores for one tool. */
export interface ToolScore {
  tool: ToolName;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  f1: number;
  /** Queries labelled with this tool. */
  support: number;
}

export interface RouterEvaluation {
  queries: number;
  perTool: ToolScore[];
  /** Micro-averaged over tools. */
  micro: { precision: number; recall: number; f1: number };
  /** Queries whose predicted tool set equals the labelled set exactly. */
  exactMatch: number;
  /** Accuracy of the fall-through flag. */
  fallThroughAccuracy: number;
  /**
   * Multi-label confusion matrix over `labels` (the tools plus `none`): `matrix[i][j]` counts (query, expected
   * label i, predicted label j) triples, where a query with no expected (predicted) tool contributes `none`.
   * Diagonal = hits; off-diagonal = which tool was predicted when another was expected.
   */
  confusion: { labels: string[]; matrix: number[][] };
  /** Queries where prediction and label differ. */
  errors: { id: string; query: string; expected: ToolName[]; predicted: ToolName[]; reason: string }[];
}

/** The part of an LLM client the LLM router needs (lib/llm's `LlmClient` satisfies it). */
export interface RouterLlmClient {
  chat(req: { messages: { role: 'system' | 'user' | 'assistant'; content: string }[]; temperature?: number }): Promise<{ text: string; model?: string }>;
}
