import lunr from 'lunr';
import type { Qrels } from '../metrics/types';
import { bm25Tokens } from '../retrieve/bm25';
import type { BackboneList } from './compose';
import type { RerankCandidate, RerankQuery } from './types';

/** Names of the offline reranker's features, in vector order. */
export const OFFLINE_FEATURES = [
  'fusedWindow', 'fused', 'bm25Window', 'bm25Log', 'semanticWindow', 'semantic', 'invRank',
  'shortNameInQuery', 'coverLongName', 'coverKeywords', 'coverAbstract', 'logPopularity', 'daacPrior', 'yearOverlap',
] as const;
export type OfflineFeatureName = (typeof OFFLINE_FEATURES)[number];

/**
 * Priors learned from the TRAINING split's labels: how often each dataset, and each DAAC, is linked to a
 * training publication. They are dataset-level statistics; test labels never enter them.
 */
export interface TrainingPriors {
  /** Dataset id → number of training queries labelling it. */
  datasetLinks: Map<string, number>;
  /** DAAC → log((labels of the DAAC + 1) / (expected labels under corpus share + 1)). */
  daacLogRatio: Map<string, number>;
  trainQueries: number;
  /** DAAC → training labels of its datasets (for leave-one-out DAAC ratios). */
  daacLabels: Map<string, number>;
  /** Training labels in all. */
  labels: number;
  /** DAAC → datasets of the corpus. */
  corpusDaacCounts: Map<string, number>;
  /** DAAC of each labelled dataset (to take a source publication's labels out of the DAAC counts). */
  datasetDaac: Map<string, string>;
}

/**
 * What one source publication put into the priors — the labels of ALL its training queries (two with the
 * two-query LLM writer) — so that a training query's features can leave its whole publication out.
 */
export interface PriorsLeaveOut {
  /** Dataset id → labels to subtract from `datasetLinks`. */
  datasetLinks: Map<string, number>;
  /** DAAC → labels to subtract from `daacLabels`. */
  daacLabels: Map<string, number>;
  labels: number;
}

function daacRatio(labelsOfDaac: number, labels: number, datasetsOfDaac: number, corpusTotal: number): number {
  const expected = corpusTotal > 0 ? (labels * datasetsOfDaac) / corpusTotal : 0;
  return Math.log((labelsOfDaac + 1) / (expected + 1));
}

function corpusTotalOf(counts: Map<string, number>): number {
  let t = 0;
  for (const n of counts.values()) t += n;
  return t;
}

/** Count training labels per dataset and per DAAC (against the DAAC's share of the corpus). */
export function trainingPriors(trainQrels: Qrels, daacOf: (datasetId: string) => string | undefined, corpusDaacCounts: Map<string, number>): TrainingPriors {
  const datasetLinks = new Map<string, number>();
  const daacLabels = new Map<string, number>();
  const datasetDaac = new Map<string, string>();
  let labels = 0;
  for (const judged of trainQrels.values())
    for (const [d, r] of judged) {
      if (r <= 0) continue;
      labels++;
      datasetLinks.set(d, (datasetLinks.get(d) ?? 0) + 1);
      const daac = daacOf(d);
      if (daac) {
        daacLabels.set(daac, (daacLabels.get(daac) ?? 0) + 1);
        datasetDaac.set(d, daac);
      }
    }
  const corpusTotal = corpusTotalOf(corpusDaacCounts);
  const daacLogRatio = new Map<string, number>();
  for (const [daac, n] of corpusDaacCounts) daacLogRatio.set(daac, daacRatio(daacLabels.get(daac) ?? 0, labels, n, corpusTotal));
  return { datasetLinks, daacLogRatio, trainQueries: trainQrels.size, daacLabels, labels, corpusDaacCounts: new Map(corpusDaacCounts), datasetDaac };
}

/** The labels that the training queries `queryIds` (all queries of one source publication) put into the priors. */
export function priorsLeaveOut(priors: TrainingPriors, trainQrels: Qrels, queryIds: Iterable<string>): PriorsLeaveOut {
  const out: PriorsLeaveOut = { datasetLinks: new Map(), daacLabels: new Map(), labels: 0 };
  for (const qid of new Set(queryIds))
    for (const [d, r] of trainQrels.get(qid) ?? []) {
      if (r <= 0) continue;
      out.labels++;
      out.datasetLinks.set(d, (out.datasetLinks.get(d) ?? 0) + 1);
      const daac = priors.datasetDaac.get(d);
      if (daac) out.daacLabels.set(daac, (out.daacLabels.get(daac) ?? 0) + 1);
    }
  return out;
}

/**
 * Leave-one-publication-out for each training query: the labels of every query of the same source publication
 * (`publicationId`; a query without one stands alone). Keyed by query id.
 */
export function leaveOutBySource(priors: TrainingPriors, trainQrels: Qrels, queries: Iterable<RerankQuery>): Map<string, PriorsLeaveOut> {
  const bySource = new Map<string, Set<string>>();
  const all = [...queries];
  for (const q of all) {
    const key = q.publicationId !== undefined ? `pub:${q.publicationId}` : `query:${q.id}`;
    const ids = bySource.get(key) ?? new Set<string>();
    ids.add(q.id);
    bySource.set(key, ids);
  }
  const memo = new Map<string, PriorsLeaveOut>();
  const out = new Map<string, PriorsLeaveOut>();
  for (const q of all) {
    const key = q.publicationId !== undefined ? `pub:${q.publicationId}` : `query:${q.id}`;
    let lo = memo.get(key);
    if (!lo) memo.set(key, (lo = priorsLeaveOut(priors, trainQrels, bySource.get(key)!)));
    out.set(q.id, lo);
  }
  return out;
}

/** The DAAC prior of one DAAC, with a source publication's labels left out when `leaveOut` is given. */
export function daacPrior(priors: TrainingPriors, daac: string, leaveOut?: PriorsLeaveOut): number {
  if (!leaveOut || leaveOut.labels === 0) return priors.daacLogRatio.get(daac) ?? 0;
  const n = priors.corpusDaacCounts.get(daac);
  if (n === undefined) return 0;
  const own = leaveOut.daacLabels.get(daac) ?? 0;
  return daacRatio((priors.daacLabels.get(daac) ?? 0) - own, priors.labels - leaveOut.labels, n, corpusTotalOf(priors.corpusDaacCounts));
}

const tokenCache = new Map<string, string>();
/** Content tokens of a text: lower-case, lunr stop words removed, Porter-stemmed (lunr's), length ≥ 2. */
export function contentTokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of bm25Tokens(text)) {
    if (t.length < 2) continue;
    let s = tokenCache.get(t);
    if (s === undefined) {
      const tok = lunr.stopWordFilter(new lunr.Token(t, {}));
      s = tok ? lunr.stemmer(tok).toString() : '';
      if (tokenCache.size < 200_000) tokenCache.set(t, s);
    }
    if (s) out.add(s);
  }
  return out;
}

function coverage(query: Set<string>, field: Set<string>): number {
  if (query.size === 0) return 0;
  let n = 0;
  for (const t of query) if (field.has(t)) n++;
  return n / query.size;
}

/** Four-digit years 1950–2049 mentioned in the query. */
export function queryYears(text: string): number[] {
  return [...text.matchAll(/\b(19[5-9]\d|20[0-4]\d)\b/g)].map((m) => Number(m[1]));
}

function yearOverlap(years: number[], c: RerankCandidate): number {
  if (years.length === 0) return 0;
  const y0 = Number(c.record.temporalStart?.slice(0, 4));
  if (!Number.isFinite(y0) || !c.record.temporalStart) return 0;
  const y1 = c.record.temporalEnd ? Number(c.record.temporalEnd.slice(0, 4)) : 9999;
  return years.some((y) => y >= y0 && y <= y1) ? 1 : -1;
}

function windowNorm(values: number[]): number[] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return values.map((v) => (hi > lo ? (v - lo) / (hi - lo) : 0));
}

/**
 * Feature vectors of one window (rows aligned with `window`, columns with OFFLINE_FEATURES): retrieval scores
 * (raw and min-max within the window), rank, query-term coverage of shortName / longName / keywords (+ platforms,
 * instruments) / abstract, training priors (dataset link count and DAAC ratio, both with the query's whole source
 * publication left out when `leaveOut` is given — always, for a training query; see `leaveOutBySource`), and
 * temporal overlap with years the query names (+1 overlap, −1 none, 0 no years or no coverage).
 */
export function windowFeatures(query: RerankQuery, window: readonly RerankCandidate[], priors: TrainingPriors, leaveOut?: PriorsLeaveOut): number[][] {
  const q = contentTokens(query.text);
  const qRaw = new Set(bm25Tokens(query.text));
  const years = queryYears(query.text);
  const fused = windowNorm(window.map((c) => c.scores.fused ?? c.retrievalScore));
  const bm25 = windowNorm(window.map((c) => c.scores.bm25 ?? 0));
  const sem = windowNorm(window.map((c) => c.scores.semantic ?? 0));
  return window.map((c, i) => {
    const r = c.record;
    const short = r.shortName ? bm25Tokens(r.shortName) : [];
    const links = (priors.datasetLinks.get(c.id) ?? 0) - (leaveOut?.datasetLinks.get(c.id) ?? 0);
    return [
      fused[i],
      c.scores.fused ?? c.retrievalScore,
      bm25[i],
      Math.log1p(Math.max(0, c.scores.bm25 ?? 0)),
      sem[i],
      c.scores.semantic ?? 0,
      1 / c.retrievalRank,
      short.length > 0 && short.every((t) => qRaw.has(t)) ? 1 : 0,
      coverage(q, contentTokens(r.longName)),
      coverage(q, contentTokens([...r.keywords, ...r.platforms, ...r.instruments].join(' '))),
      coverage(q, contentTokens(r.abstract)),
      Math.log1p(Math.max(0, links)),
      daacPrior(priors, r.daac, leaveOut),
      yearOverlap(years, c),
    ];
  });
}

/** Relevance labels of one list's candidates (1 relevant, 0 not). */
export function windowLabels(list: BackboneList, qrels: Qrels, k: number): number[] {
  const judged = qrels.get(list.query.id);
  return list.candidates.slice(0, k).map((c) => ((judged?.get(c.id) ?? 0) > 0 ? 1 : 0));
}
