/**
 * A learned reranker over the default ranking's top 100 (issue 39 step 3): a linear model, trained with a pairwise
 * logistic loss (`trainPairwiseRanker`, lib/rerank/offline.ts), over evidence the search path already computes for
 * each candidate but convex fusion cannot weigh one by one: the fused and ruled score and its rank, each scorer's
 * own score, BM25 per field (title, keywords, abstract), which of the query's named identifiers, platforms, levels
 * and GCMD types the dataset carries (declared or inferred GCMD metadata), and how its period and box meet the
 * question's. Trained on the same queries as the adaptive α (`adaptiveTrainingQueries`: the title benchmark's
 * training split plus corpus-made queries in the users' styles, every test label of both benchmarks left out);
 * settings tuned on the style benchmark's dev half (`bench/learned-rerank-tune.cjs`, every try in the tuning log).
 */
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { trainPairwiseRanker, scoreLinear, type LinearRankModel, type PairwiseTrainOptions, type RankGroup } from '../rerank/offline';
import { buildBm25Stop, bm25StopScores, type Bm25StopField, type Bm25StopIndex } from '../retrieve/bm25-stop';
import { topKIndices } from '../retrieve/topk';
import type { BenchSplitView } from '../bench/types';
import { minMaxNormalizer } from '../fuse/minmax';
import { adaptiveTrainingQueries, heldOutTrainingOptions, namedCarrierShare, type AdaptiveTrainingQuery } from './adaptive-fusion';
import type { IdentifierKind } from './identifiers';
import { searchBatch, type BatchQuery } from './retrieve-batch';
import type { QueryScoreSources } from './run-parts';
import type { SearchEngine } from './types';

/** The features, in model order. */
export const LEARNED_RERANK_FEATURES = [
  'fused', // the default's final score (fused, rules applied) / the query's best
  'fusedRank', // 1 / (1 + rank) in the default's order
  'lexical', // the lexical scorer's score, min-max normalised over the corpus
  'semantic', // the semantic scorer's score, min-max normalised over the corpus
  'titleBm25', // BM25 on the title alone / the best title score among the candidates
  'keywordsBm25', // the same on the keywords
  'abstractBm25', // the same on the abstract
  'identifierCarried', // share of the named instruments, products, short names, projects, archives it carries (0: none named)
  'platformCarried', // share of the named platforms and missions it carries
  'levelCarried', // share of the named processing levels it states
  'typeCarried', // share of the named GCMD instrument / platform types it carries
  'periodCovers', // 1 when its period meets the question's
  'periodOutside', // 1 when its period lies outside the question's
  'placeCovers', // 1 when its box meets the question's place
  'placeOutside', // 1 when its box lies outside it
] as const;
export type LearnedRerankFeature = (typeof LEARNED_RERANK_FEATURES)[number];

/** Which identifier kinds each carried-share feature reads. */
const CARRIED_KINDS: Record<'identifierCarried' | 'platformCarried' | 'levelCarried' | 'typeCarried', readonly IdentifierKind[]> = {
  identifierCarried: ['instrument', 'product', 'shortName', 'acronym', 'project', 'daac'],
  platformCarried: ['platform', 'mission'],
  levelCarried: ['level'],
  typeCarried: ['instrumentType', 'platformType'],
};

/** One BM25 index per field (BM25-stop's analysis with one field weighted), for the per-field features. */
export type RerankFieldIndexes = Record<Bm25StopField, Bm25StopIndex>;

/** Build the per-field indexes of a corpus (a few seconds on the full snapshot; once per process). */
export function buildRerankFieldIndexes(corpus: Pick<Corpus, 'datasets' | 'hash'>): RerankFieldIndexes {
  const one = (f: Bm25StopField) => buildBm25Stop(corpus, { fieldWeights: { title: 0, keywords: 0, abstract: 0, [f]: 1 } });
  return { title: one('title'), keywords: one('keywords'), abstract: one('abstract') };
}


/** Dataset i's min-max-normalised score in a scorer's vector (the value fusion used), 0 without the scorer. */
function normalisedScore(v: ArrayLike<number> | null): (i: number) => number {
  if (!v) return () => 0;
  const norm = minMaxNormalizer(v);
  return (i) => norm(v[i]);
}

/** One query's candidates (corpus positions, the default's order) and their feature rows. */
export interface RerankRows {
  candidates: number[];
  rows: number[][];
}

/**
 * Feature rows (LEARNED_RERANK_FEATURES order) of one query's top `depth` (default 100) under its final scores,
 * from what `searchBatch(…, { rules: true })` returns for it (`sources`) and the retrieval text its scorers read.
 */
export function learnedRerankRows(fields: RerankFieldIndexes, text: string, final: Float32Array, source: QueryScoreSources, depth = 100): RerankRows {
  const candidates = topKIndices(final, depth).filter((i) => Number.isFinite(final[i]));
  const best = candidates.length ? final[candidates[0]] : 0;
  const lexical = normalisedScore(source.lexical);
  const semantic = normalisedScore(source.semantic);
  const perField = (['title', 'keywords', 'abstract'] as const).map((f) => {
    const s = bm25StopScores(fields[f], text);
    const top = candidates.reduce((m, i) => Math.max(m, s[i]), 0);
    return (i: number) => (top > 0 ? s[i] / top : 0);
  });
  const named = source.ruled?.named ?? [];
  const carried = Object.values(CARRIED_KINDS).map((kinds) => namedCarrierShare(named.filter((n) => kinds.includes(n.group.kind))) ?? (() => 0));
  const constrained = source.ruled?.constrained ?? null;
  const rows = candidates.map((i, r) => {
    const cov = constrained ? constrained.coverageOf(i) : null;
    return [
      best > 0 ? final[i] / best : 0,
      1 / (1 + r),
      lexical(i),
      semantic(i),
      ...perField.map((f) => f(i)),
      ...carried.map((c) => c(i)),
      cov?.temporal === 'covers' ? 1 : 0,
      cov?.temporal === 'outside' ? 1 : 0,
      cov?.spatial === 'covers' ? 1 : 0,
      cov?.spatial === 'outside' ? 1 : 0,
    ];
  });
  return { candidates, rows };
}

/** A trained learned reranker. */
export interface LearnedReranker {
  format: 'eo-learned-rerank/1';
  model: LinearRankModel;
  depth: number;
  /** Training queries (with at least one relevant candidate in their top `depth`) and all given. */
  trainQueries: { used: number; given: number };
}

export interface LearnedRerankTrainOptions extends PairwiseTrainOptions {
  /** Candidates per query. Default 100. */
  depth?: number;
  /** Features the model may use (the others are zeroed). Default all. */
  features?: readonly LearnedRerankFeature[];
}

/** Zero the features a model may not use (so one row layout serves every feature subset). */
function masked(rows: number[][], keep: readonly LearnedRerankFeature[] | undefined): number[][] {
  if (!keep) return rows;
  const on = LEARNED_RERANK_FEATURES.map((f) => keep.includes(f));
  return rows.map((r) => r.map((v, j) => (on[j] ? v : 0)));
}

/** Train on queries' rows and their relevant corpus positions (pairwise logistic loss inside each query's candidates). */
export function trainLearnedReranker(queries: readonly { rows: RerankRows; relevant: ReadonlySet<number> }[], opts: LearnedRerankTrainOptions = {}): LearnedReranker {
  const groups: RankGroup[] = [];
  for (const q of queries) {
    const y = q.rows.candidates.map((i) => (q.relevant.has(i) ? 1 : 0));
    if (!y.some((v) => v > 0) || y.every((v) => v > 0)) continue;
    groups.push({ x: masked(q.rows.rows, opts.features), y });
  }
  if (groups.length === 0) throw new EoError('INVALID_ARGUMENT', 'trainLearnedReranker: no training query has a relevant and a non-relevant candidate');
  const model = trainPairwiseRanker(groups, LEARNED_RERANK_FEATURES, opts);
  return { format: 'eo-learned-rerank/1', model, depth: opts.depth ?? 100, trainQueries: { used: groups.length, given: queries.length } };
}

/**
 * The reranked scores of one query: its candidates in the model's order, above every other dataset (whose order and
 * scores stay as they were); the vector is new.
 */
export function learnedRerankScores(r: Pick<LearnedReranker, 'model'>, final: Float32Array, rows: RerankRows): Float32Array {
  const out = new Float32Array(final);
  if (!rows.candidates.length) return out;
  const s = scoreLinear(r.model, rows.rows);
  let floor = -Infinity;
  for (let i = 0; i < final.length; i++) if (Number.isFinite(final[i]) && final[i] > floor) floor = final[i];
  const lo = Math.min(...s);
  rows.candidates.forEach((i, k) => {
    out[i] = floor + 1 + (s[k] - lo);
  });
  return out;
}

/**
 * The settings chosen on the style benchmark's dev half (`bench/learned-rerank-tune.cjs`, the tuning log's chosen
 * `learned-rerank` entry): trained on the dev half's queries plus corpus-made queries the static encoder never saw
 * (`heldOutRerankQueries`), L2 pull and epochs of the pairwise SGD.
 */
export const LEARNED_RERANK_SETTINGS = Object.freeze({ l2: 0.1, epochs: 20, seed: 42, heldOutPerStyle: 600, heldOutSeed: 7 });

/** The day open periods are read against for training queries (as the adaptive α's training does). */
export const RERANK_TRAINING_NOW = new Date('2025-02-01T00:00:00Z');

/** One query's final scores under the engine's ranking and the feature rows of its top `depth`. */
export interface RankedRerankRows {
  final: Float32Array;
  rows: RerankRows;
}

/** Rank queries as users get them (the engine's fusion, the query rules, repair) and feature each one's top `depth`. */
export async function rankedRerankRows(
  engine: SearchEngine, fields: RerankFieldIndexes, queries: readonly BatchQuery[], opts: { now?: Date; depth?: number } = {},
): Promise<RankedRerankRows[]> {
  const depth = opts.depth ?? 100;
  const res = await searchBatch(engine, queries, { rules: true, repair: true, depth, now: opts.now });
  return queries.map((_, i) => ({ final: res.scores[i], rows: learnedRerankRows(fields, res.texts![i], res.scores[i], res.sources![i], depth) }));
}

/**
 * Corpus-made queries in the users' styles that the static encoder never saw as pairs: another seed than its own
 * (`adaptiveTrainingQueries`' 42), and no dataset that its own style queries had as a positive, nor any test label of
 * either benchmark (`adaptiveExcludedIds`). The encoder's scores on them are not memorised, unlike on its own pairs.
 */
export function heldOutRerankQueries(corpus: Corpus, titleTrain: Pick<BenchSplitView, 'queries' | 'qrels'>, titleTest: Pick<BenchSplitView, 'qrels'>, opts: { perStyle?: number; seed?: number } = {}): AdaptiveTrainingQuery[] {
  const training = heldOutTrainingOptions(corpus, titleTrain, titleTest, { perStyle: opts.perStyle ?? LEARNED_RERANK_SETTINGS.heldOutPerStyle, seed: opts.seed ?? LEARNED_RERANK_SETTINGS.heldOutSeed });
  return adaptiveTrainingQueries(corpus, { queries: [], qrels: new Map() }, training);
}

/** Training examples of ranked queries: rows and relevant corpus positions (ids not in the corpus are dropped). */
export function rerankExamples(corpus: Pick<Corpus, 'indexById'>, ranked: readonly RankedRerankRows[], relevant: readonly Iterable<string>[]): { rows: RerankRows; relevant: Set<number> }[] {
  return ranked.map((r, i) => ({ rows: r.rows, relevant: new Set([...relevant[i]].map((id) => corpus.indexById.get(id)).filter((x): x is number => x !== undefined)) }));
}
