/**
 * Fusion that adapts to the query (beyond the paper): α per query, from features known at query time, instead of
 * the paper's one analytic α (Eq. 7) for every query.
 *
 * Why: one α is a compromise between query styles. A short query that names an instrument or product ("OMI NO2 L3")
 * is best served by the exact signal of BM25; a long research question whose words match no dataset literally is
 * best served by the semantic scorer. Both signals are visible before fusing: how the query reads (length, share of
 * words that are corpus identifiers) and how each scorer's scores look (BM25's top score, its gap and entropy, the
 * semantic scores' spread, whether the two scorers agree on their top 10).
 *
 * The model: α(q) = σ(b + Σ w_j · z_j(q)), z the standardised features. It is fitted to maximise the mean average
 * precision over training queries directly: for each training query the AP of the fused (and rule-shaped) ranking is
 * measured on a grid of α values, AP at any α is read by linear interpolation, and (b, w) are found by deterministic
 * coordinate search with an L2 pull towards the start (b = logit of the analytic α, w = 0: the paper's fusion).
 * No clock, no random draw: the same rows give the same model.
 */
import { EoError } from '../errors';
import { topKIndices } from '../retrieve/topk';

/** The features, in model order. Each is known before fusing. */
export const FUSION_FEATURES = [
  'queryWords', // log(1 + words of the retrieval text)
  'identifierShare', // words that are named corpus identifiers / words
  'bm25Top', // log(1 + BM25's best raw score)
  'bm25Gap', // (top1 − top10) / top1 of BM25
  'bm25Entropy', // entropy of BM25's top 10 (as a distribution) / log 10
  'semanticSpread', // (top1 − mean of top 100) / sd of top 100 of the semantic scorer
  'topAgreement', // |BM25 top 10 ∩ semantic top 10| / 10
  'questionForm', // 1 when the query reads as a question or request ("I want…", "How…", "…?"), else 0
  'capitalizedShare', // words written with a capital first letter / words (titles capitalise, typed queries rarely)
  // the GCMD metadata (declared and inferred, issue 38) against each scorer's top 10: which scorer already ranks the
  // datasets that carry what the query names (an instrument, platform, product, level or GCMD type) first
  'lexicalTopCarriers', // mean over BM25's top 10 of the share of the query's named identifiers each dataset carries (0: none named)
  'semanticTopCarriers', // the same over the semantic scorer's top 10
  'typeNamed', // 1 when the query names a GCMD instrument or platform type ("lidar", "airborne"), else 0
] as const;
export type FusionFeatureName = (typeof FUSION_FEATURES)[number];

/** A fitted per-query α model. */
export interface AdaptiveAlphaModel {
  format: 'eo-adaptive-alpha/2';
  features: FusionFeatureName[];
  /** Standardisation of each feature (training rows' mean and sd; sd 1 where a feature is constant). */
  mean: number[];
  sd: number[];
  weights: number[];
  bias: number;
  /** The α the fit started from (the analytic α), i.e. the model with w = 0. */
  startAlpha: number;
  /** Mean AP of the training rows at the start α and with the fitted model. */
  trainMap: { start: number; fitted: number };
  /** Training rows it was fitted on. */
  rows: number;
  l2: number;
}

/** One training query: its features and the AP of the fused ranking at each grid α. */
export interface AdaptiveAlphaRow {
  features: number[];
  /** AP at `grid[k]`. */
  ap: number[];
}

export interface FitAdaptiveAlphaOptions {
  /** α values the APs were measured at (ascending, within [0, 1]). */
  grid: readonly number[];
  /** The start α (the analytic α of the same scorers). */
  startAlpha: number;
  /** L2 pull of (b − b₀, w) towards the start, per unit of squared distance. Default 0.002. */
  l2?: number;
  /** Coordinate-search rounds. Default 40. */
  rounds?: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
const logit = (p: number) => Math.log(p / (1 - p));

/** α of one query under the model. */
export function adaptiveAlphaOf(model: Pick<AdaptiveAlphaModel, 'mean' | 'sd' | 'weights' | 'bias'>, features: readonly number[]): number {
  let x = model.bias;
  for (let j = 0; j < model.weights.length; j++) x += model.weights[j] * ((features[j] - model.mean[j]) / model.sd[j]);
  return sigmoid(x);
}

/** AP at α by linear interpolation on the grid. */
function apAt(row: AdaptiveAlphaRow, grid: readonly number[], alpha: number): number {
  if (alpha <= grid[0]) return row.ap[0];
  const last = grid.length - 1;
  if (alpha >= grid[last]) return row.ap[last];
  let k = 0;
  while (grid[k + 1] < alpha) k++;
  const t = (alpha - grid[k]) / (grid[k + 1] - grid[k]);
  return row.ap[k] * (1 - t) + row.ap[k + 1] * t;
}

/** Fit the model on training rows (see the module comment). */
export function fitAdaptiveAlpha(rows: readonly AdaptiveAlphaRow[], opts: FitAdaptiveAlphaOptions): AdaptiveAlphaModel {
  const { grid } = opts;
  if (rows.length === 0) throw new EoError('INVALID_ARGUMENT', 'fitAdaptiveAlpha: no training rows');
  if (!(opts.startAlpha > 0 && opts.startAlpha < 1)) throw new EoError('INVALID_ARGUMENT', `fitAdaptiveAlpha: startAlpha must be in (0, 1), got ${opts.startAlpha}`);
  for (let k = 1; k < grid.length; k++) if (!(grid[k] > grid[k - 1])) throw new EoError('INVALID_ARGUMENT', 'fitAdaptiveAlpha: grid must ascend');
  const d = FUSION_FEATURES.length;
  for (const [i, r] of rows.entries()) {
    if (r.features.length !== d || r.ap.length !== grid.length) throw new EoError('INVALID_ARGUMENT', `fitAdaptiveAlpha: row ${i} has ${r.features.length} features / ${r.ap.length} APs (want ${d} / ${grid.length})`);
    if (!r.features.every(Number.isFinite)) throw new EoError('INVALID_ARGUMENT', `fitAdaptiveAlpha: row ${i} has a non-finite feature`);
  }
  const l2 = opts.l2 ?? 0.002;
  const mean = Array.from({ length: d }, (_, j) => rows.reduce((s, r) => s + r.features[j], 0) / rows.length);
  const sd = mean.map((m, j) => {
    const v = rows.reduce((s, r) => s + (r.features[j] - m) ** 2, 0) / rows.length;
    return v > 1e-12 ? Math.sqrt(v) : 1;
  });
  const z = rows.map((r) => r.features.map((x, j) => (x - mean[j]) / sd[j]));
  const b0 = logit(opts.startAlpha);
  const params = [b0, ...new Array(d).fill(0)]; // [bias, w…]
  const objective = (p: readonly number[]) => {
    let s = 0;
    for (let i = 0; i < rows.length; i++) {
      let x = p[0];
      for (let j = 0; j < d; j++) x += p[j + 1] * z[i][j];
      s += apAt(rows[i], grid, sigmoid(x));
    }
    let pen = (p[0] - b0) ** 2;
    for (let j = 1; j <= d; j++) pen += p[j] ** 2;
    return s / rows.length - l2 * pen;
  };
  let best = objective(params); // the start has no penalty
  let step = 1;
  for (let round = 0; round < (opts.rounds ?? 40) && step > 1e-3; round++) {
    let improved = false;
    for (let c = 0; c <= d; c++) {
      for (const dir of [1, -1]) {
        const trial = params.slice();
        trial[c] += dir * step;
        const v = objective(trial);
        if (v > best + 1e-12) {
          best = v;
          params[c] = trial[c];
          improved = true;
          break;
        }
      }
    }
    if (!improved) step /= 2;
  }
  const model: AdaptiveAlphaModel = {
    format: 'eo-adaptive-alpha/2', features: [...FUSION_FEATURES], mean, sd, weights: params.slice(1), bias: params[0], startAlpha: opts.startAlpha,
    trainMap: { start: 0, fitted: 0 }, rows: rows.length, l2,
  };
  model.trainMap.start = rows.reduce((s, r) => s + apAt(r, grid, opts.startAlpha), 0) / rows.length;
  model.trainMap.fitted = rows.reduce((s, r, i) => s + apAt(r, grid, adaptiveAlphaOf(model, rows[i].features)), 0) / rows.length;
  return model;
}

/** Check a model read from disk. */
export function checkAdaptiveAlphaModel(m: unknown, where: string): AdaptiveAlphaModel {
  const x = m as AdaptiveAlphaModel;
  const d = FUSION_FEATURES.length;
  const ok = x && x.format === 'eo-adaptive-alpha/2' && Array.isArray(x.features) && x.features.join() === FUSION_FEATURES.join()
    && [x.mean, x.sd, x.weights].every((a) => Array.isArray(a) && a.length === d && a.every(Number.isFinite)) && Number.isFinite(x.bias);
  if (!ok) throw new EoError('DATA_INVALID', `${where}: not an adaptive-α model of this version (format eo-adaptive-alpha/2, features ${FUSION_FEATURES.join(', ')})`);
  return x;
}

/** How a query reads, as the fusion features see it (`queryWordCounts` in lib/search/adaptive-fusion.ts). */
export interface FusionQueryShape {
  words: number;
  identifierWords: number;
  questionForm: boolean;
  capitalizedShare: number;
  /** It names a GCMD instrument or platform type. Default false. */
  typeNamed?: boolean;
}

/**
 * The features of one query (FUSION_FEATURES order) from its words, the identifier words it names, the two
 * scorers' corpus-wide raw scores and `carried`: the share of the query's named identifiers dataset i carries
 * (null when it names none).
 */
export function fusionFeatures(query: FusionQueryShape, lexical: ArrayLike<number>, semantic: ArrayLike<number>, carried: ((i: number) => number) | null = null): number[] {
  const lt = topKIndices(lexical, 10);
  const top1 = lt.length ? lexical[lt[0]] : 0;
  const top10 = lt.length ? lexical[lt[lt.length - 1]] : 0;
  let entropy = 0;
  const tot = lt.reduce((s, i) => s + Math.max(0, lexical[i]), 0);
  if (tot > 0) for (const i of lt) {
    const p = Math.max(0, lexical[i]) / tot;
    if (p > 0) entropy -= p * Math.log(p);
  }
  const st = topKIndices(semantic, 100);
  const vals = st.map((i) => semantic[i]);
  const m = vals.reduce((s, x) => s + x, 0) / Math.max(1, vals.length);
  const sdv = Math.sqrt(vals.reduce((s, x) => s + (x - m) ** 2, 0) / Math.max(1, vals.length));
  const semTop10 = new Set(st.slice(0, 10));
  const agree = lt.filter((i) => semTop10.has(i)).length;
  const carriedShare = (top: readonly number[]) => (carried && top.length ? top.reduce((s, i) => s + carried(i), 0) / top.length : 0);
  return [
    Math.log1p(query.words),
    query.words > 0 ? Math.min(1, query.identifierWords / query.words) : 0,
    Math.log1p(Math.max(0, top1)),
    top1 > 0 ? (top1 - top10) / top1 : 0,
    entropy / Math.log(10),
    sdv > 1e-12 ? (vals[0] - m) / sdv : 0,
    agree / 10,
    query.questionForm ? 1 : 0,
    query.capitalizedShare,
    carriedShare(lt),
    carriedShare(st.slice(0, 10)),
    query.typeNamed ? 1 : 0,
  ];
}
