/**
 * `bm25-stop`: a strong short lexical baseline, written to be read in one sitting and to stand beside every learned
 * row (issue 36). BM25F over three fields a reader recognises (title = short name + long name, science keywords,
 * abstract), an English stop-word list, and light stemming (Harman's S-stemmer: plurals only), so "aerosols" meets
 * "aerosol" while "precipitation" never meets "precipitable" (Porter would conflate them).
 *
 * Differences from the paper's BM25 (`bm25.ts`, lunr): three fields with their own weight and length normalisation
 * instead of ten concatenated (no DOI, DAAC name, dates, platform and instrument lists, which put the same tokens on
 * thousands of records), a longer stop-word list applied to queries and records alike, plural-only stemming. Its
 * settings were chosen on the style benchmark's DEV half (`bench/bm25-stop-tune.cjs`, every configuration tried is in
 * `bench/tuning-log.json`); nothing here was tuned on a test split.
 */
import type { Corpus, DatasetRecord } from '../data/types';
import { EoError } from '../errors';
import { ENGLISH_STOP_WORDS, sStem } from '../util/english';
import { shortHash } from '../util/hash';
import type { CorpusScorer } from './scorers';

/** The fields `bm25-stop` indexes. */
export type Bm25StopField = 'title' | 'keywords' | 'abstract';

export const BM25_STOP_FIELDS: readonly Bm25StopField[] = ['title', 'keywords', 'abstract'];

/** The text of each field of a record. */
export const BM25_STOP_FIELD_TEXT: Record<Bm25StopField, (d: DatasetRecord) => string> = {
  title: (d) => `${d.shortName ?? ''} ${d.longName}`,
  keywords: (d) => d.keywords.join(' '),
  abstract: (d) => d.abstract,
};

// The stop list and the S-stemmer have their home in util/english.ts (the static encoder's tokenizer reads them too).
export { ENGLISH_STOP_WORDS, sStem };

const TOKEN = /[\p{L}\p{N}]+/gu;

/** Lower-cased letter/digit runs, stop words dropped, each stemmed (`stem: 's'`) or not (`'none'`). */
export function bm25StopTokens(text: string, opts: { stopWords?: ReadonlySet<string>; stem?: 's' | 'none' } = {}): string[] {
  const stop = opts.stopWords ?? ENGLISH_STOP_WORDS;
  const stem = (opts.stem ?? 's') === 's';
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(TOKEN)) {
    const t = m[0];
    if (stop.has(t)) continue;
    out.push(stem ? sStem(t) : t);
  }
  return out;
}

export interface Bm25StopOptions {
  /** Term-frequency saturation. Default `BM25_STOP_DEFAULTS.k1`. */
  k1?: number;
  /** Length normalisation, per field against that field's mean length. Default `BM25_STOP_DEFAULTS.b`. */
  b?: number;
  /** Weight of each field's term frequency (BM25F). Default `BM25_STOP_DEFAULTS.fieldWeights`. */
  fieldWeights?: Partial<Record<Bm25StopField, number>>;
  /** Light stemming: `s` (Harman's S-stemmer) or `none`. Default `s`. */
  stem?: 's' | 'none';
  /** Stop words (lower case). Default `ENGLISH_STOP_WORDS`. */
  stopWords?: ReadonlySet<string>;
}

/**
 * The settings chosen on the style benchmark's DEV half by `bench/bm25-stop-tune.cjs`: the best nDCG@10 over all 331
 * dev queries (.5768; the paper's BM25 has .5687 there) of 384 configurations, k1 {0.9, 1.2, 1.5, 2} × b {0.3, 0.5,
 * 0.75, 0.9} × title weight {1, 2, 3, 5} × keyword weight {0.5, 1, 2} × stemmer {s, none}. The optimum is flat (the
 * top ten lie within .002), title weight 3 and plural stemming are in all of them. Every score is in
 * `bench/tuning-log.json`.
 */
export const BM25_STOP_DEFAULTS: Readonly<{ k1: number; b: number; fieldWeights: Readonly<Record<Bm25StopField, number>>; stem: 's' | 'none' }> = Object.freeze({
  k1: 1.5,
  b: 0.3,
  fieldWeights: Object.freeze({ title: 3, keywords: 1, abstract: 1 }),
  stem: 's',
});

/** A built `bm25-stop` index: per term, the datasets holding it and their precomputed BM25F weight. */
export interface Bm25StopIndex {
  size: number;
  settings: { k1: number; b: number; fieldWeights: Record<Bm25StopField, number>; stem: 's' | 'none'; stopWords: number };
  /** Corpus hash + settings: identifies the numbers. */
  key: string;
  termIds: Map<string, number>;
  /** Postings of term t: positions offsets[t] .. offsets[t+1] of `docs` / `weights`. */
  offsets: Int32Array;
  docs: Int32Array;
  weights: Float32Array;
  stopWords: ReadonlySet<string>;
}

function resolve(opts: Bm25StopOptions): Bm25StopIndex['settings'] {
  const k1 = opts.k1 ?? BM25_STOP_DEFAULTS.k1;
  const b = opts.b ?? BM25_STOP_DEFAULTS.b;
  if (!(Number.isFinite(k1) && k1 > 0)) throw new EoError('CONFIG', `bm25-stop k1 must be a number > 0 (got ${k1})`);
  if (!(Number.isFinite(b) && b >= 0 && b <= 1)) throw new EoError('CONFIG', `bm25-stop b must be in [0, 1] (got ${b})`);
  const fieldWeights = { ...BM25_STOP_DEFAULTS.fieldWeights };
  for (const [f, w] of Object.entries(opts.fieldWeights ?? {})) {
    if (!(BM25_STOP_FIELDS as readonly string[]).includes(f)) throw new EoError('CONFIG', `bm25-stop fieldWeights: unknown field "${f}" (known: ${BM25_STOP_FIELDS.join(', ')})`);
    if (!(Number.isFinite(w) && w! >= 0)) throw new EoError('CONFIG', `bm25-stop fieldWeights.${f} must be a number ≥ 0 (got ${w})`);
    fieldWeights[f as Bm25StopField] = w!;
  }
  const stem = opts.stem ?? BM25_STOP_DEFAULTS.stem;
  if (stem !== 's' && stem !== 'none') throw new EoError('CONFIG', `bm25-stop stem must be "s" or "none" (got ${JSON.stringify(stem)})`);
  return { k1, b, fieldWeights, stem, stopWords: (opts.stopWords ?? ENGLISH_STOP_WORDS).size };
}

/**
 * Build the index: BM25F (Robertson & Zaragoza 2009) with per-field length normalisation,
 * w(t, d) = idf(t) · tf̃ (k1 + 1) / (k1 + tf̃), tf̃ = Σ_f weight_f · tf_f / (1 − b + b · len_f / mean len_f),
 * idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)). Weights are precomputed, so a query costs one pass over its terms' postings.
 */
export function buildBm25Stop(corpus: Pick<Corpus, 'datasets' | 'hash'>, opts: Bm25StopOptions = {}): Bm25StopIndex {
  const settings = resolve(opts);
  const stopWords = opts.stopWords ?? ENGLISH_STOP_WORDS;
  const n = corpus.datasets.length;
  const fields = BM25_STOP_FIELDS;
  // per field: tokens of each dataset, and the field's mean length
  const tokens = fields.map((f) => corpus.datasets.map((d) => bm25StopTokens(BM25_STOP_FIELD_TEXT[f](d), { stopWords, stem: settings.stem })));
  const meanLen = tokens.map((perDoc) => Math.max(1e-9, perDoc.reduce((s, t) => s + t.length, 0) / Math.max(1, n)));
  // term → dataset → weighted, length-normalised tf (tf̃)
  const tfTilde = new Map<string, Map<number, number>>();
  fields.forEach((f, fi) => {
    const w = settings.fieldWeights[f];
    if (w === 0) return;
    tokens[fi].forEach((toks, d) => {
      const norm = 1 - settings.b + settings.b * (toks.length / meanLen[fi]);
      const counts = new Map<string, number>();
      for (const t of toks) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [t, c] of counts) {
        let row = tfTilde.get(t);
        if (!row) tfTilde.set(t, (row = new Map()));
        row.set(d, (row.get(d) ?? 0) + (w * c) / norm);
      }
    });
  });
  const terms = [...tfTilde.keys()].sort();
  const termIds = new Map<string, number>();
  const offsets = new Int32Array(terms.length + 1);
  let total = 0;
  terms.forEach((t, i) => {
    termIds.set(t, i);
    offsets[i] = total;
    total += tfTilde.get(t)!.size;
  });
  offsets[terms.length] = total;
  const docs = new Int32Array(total);
  const weights = new Float32Array(total);
  const { k1 } = settings;
  terms.forEach((t, i) => {
    const row = [...tfTilde.get(t)!.entries()].sort((a, b) => a[0] - b[0]);
    const idf = Math.log(1 + (n - row.length + 0.5) / (row.length + 0.5));
    let p = offsets[i];
    for (const [d, tf] of row) {
      docs[p] = d;
      weights[p] = (idf * tf * (k1 + 1)) / (k1 + tf);
      p++;
    }
  });
  const key = shortHash(`${corpus.hash}|bm25-stop|${JSON.stringify(settings)}|${[...stopWords].sort().join(' ')}`);
  return { size: n, settings, key, termIds, offsets, docs, weights, stopWords };
}

/** Scores of one query over the whole corpus (0 where no query term occurs). Each distinct query term counts once. */
export function bm25StopScores(index: Bm25StopIndex, query: string): Float32Array {
  const out = new Float32Array(index.size);
  for (const t of new Set(bm25StopTokens(query, { stopWords: index.stopWords, stem: index.settings.stem }))) {
    const id = index.termIds.get(t);
    if (id === undefined) continue;
    for (let p = index.offsets[id]; p < index.offsets[id + 1]; p++) out[index.docs[p]] += index.weights[p];
  }
  return out;
}

/** `bm25-stop` as a corpus scorer (run tag `bm25-stop`, label `BM25-stop`). */
export function bm25StopScorer(index: Bm25StopIndex, id = 'bm25-stop', label = 'BM25-stop'): CorpusScorer {
  const s = index.settings;
  return {
    id,
    label,
    fingerprint: `bm25-stop(k1=${s.k1},b=${s.b},w=${BM25_STOP_FIELDS.map((f) => s.fieldWeights[f]).join('/')},stem=${s.stem},key=${index.key})`,
    async scoreBatch(texts, onProgress) {
      const out = texts.map((t) => bm25StopScores(index, t));
      onProgress?.(texts.length, texts.length);
      return out;
    },
  };
}
