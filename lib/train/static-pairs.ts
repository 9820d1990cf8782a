/**
 * The training pairs of the static embedding encoder (issue 37 step 2): from the corpus and the title benchmark's
 * TRAINING split only. Each pair is a query-side text and the document side it should meet (the document side is what
 * the encoder embeds for a dataset: title, keywords and the abstract's start):
 * - `title-abstract`: the title (short + long name) ↔ keywords + abstract;
 * - `keywords`: the science keywords ↔ title + abstract;
 * - `sentence`: the abstract's first sentence (or first `sentencesPerRecord`) ↔ title + keywords;
 * - `short-name`: the short name alone ↔ the long name + keywords (the identifier meets its product);
 * - `gcmd-instrument`, `gcmd-platform`: the GCMD long name, class and type of a record's instrument / platform
 *   ("Cloud-Aerosol Lidar with Orthogonal Polarization, active remote sensing, lidar") ↔ the record;
 * - `gcmd-keyword`: the GCMD science keyword path of a record's keyword ("atmosphere aerosols aerosol optical depth") ↔ the record;
 * - `style-queries`: the corpus-made keyword, identifier-led and question-style queries (`corpusStyleQueries`);
 * - `train-split`: the training split's publication queries ↔ each of their datasets.
 * No test-split or style-test text is read, and every dataset labelled by a test query of either benchmark
 * (`nnsscStyleExcludedRows`) is left out of every source (as for every generated training query of the project).
 * With `hardNegativeSources`, each pair of those sources also gets a BM25-mined hard negative: the document side of the
 * dataset BM25 (`buildBm25Stop`, on the corpus) ranks highest for the pair's query among those that are not its
 * answers — a near miss the encoder must learn to put below the answer (issue 37 step 1).
 */
import type { Benchmark } from '../bench/types';
import { benchmarkSplit } from '../bench/build';
import { readGcmdInstruments, readGcmdPlatforms, readGcmdScienceKeywords } from '../data/gcmd';
import type { Corpus, DatasetRecord } from '../data/types';
import { EoError } from '../errors';
import { mulberry32, shuffleInPlace } from '../util/random';
import { nnsscStyleExcludedRows } from './artefacts';
import { abstractSentences, corpusStyleQueries } from './corpus-pairs';
import type { StaticPair } from './static';
import { bm25StopScores, buildBm25Stop } from '../retrieve/bm25-stop';
import { staticDocumentText, staticTitle } from '../encode/static';

export type StaticPairSource =
  | 'title-abstract' | 'keywords' | 'sentence' | 'short-name' | 'gcmd-instrument' | 'gcmd-platform' | 'gcmd-keyword' | 'style-queries' | 'train-split';

export const STATIC_PAIR_SOURCES: readonly StaticPairSource[] = [
  'title-abstract', 'keywords', 'sentence', 'short-name', 'gcmd-instrument', 'gcmd-platform', 'gcmd-keyword', 'style-queries', 'train-split',
];

export type StaticExclusionScope = 'every-source' | 'generated-queries';

/** The sources `exclusionScope: 'generated-queries'` still filters. */
export const STATIC_QUERY_SOURCES: readonly StaticPairSource[] = ['short-name', 'style-queries', 'train-split'];

export interface StaticPairsOptions {
  /** Sources used. Default all of `STATIC_PAIR_SOURCES`. */
  sources: StaticPairSource[];
  /** Words of the abstract on the document side. Default 80. */
  abstractWords: number;
  /** `sentence`: the abstract's first this many sentences, each a query for its record. Default 1. */
  sentencesPerRecord: number;
  /** `style-queries`: corpus-made queries per style. Default 300. */
  stylePerStyle: number;
  /** At most this many pairs per source, a seeded sample (0 = all). Default 0. */
  maxPerSource: number;
  /** Leave out every test label of both benchmarks (needs `bench`). Default true. */
  excludeTestLabels: boolean;
  /**
   * Which sources leave the excluded datasets out: `every-source` (default), or `generated-queries` — only the sources
   * whose query side stands for a user's query about the dataset (`style-queries`, `short-name`, `train-split`), while
   * the pairs made of a record's own fields (title ↔ abstract, keywords, first sentence, GCMD names and paths) cover
   * every dataset, as the vocabulary, BM25's index and its IDF do.
   */
  exclusionScope: StaticExclusionScope;
  /**
   * More dataset ids left out as test labels are (same scope). For tuning: leaving out the DEV half's labels too makes
   * the dev half see the model as the test half will. Default none.
   */
  alsoExcludeIds: readonly string[];
  /** Sources whose pairs get a BM25-mined hard negative (see the file's comment). Default none. */
  hardNegativeSources: StaticPairSource[];
  /**
   * Non-answers passed over before the one taken as the hard negative: 0 takes BM25's best non-answer; more keeps clear
   * of the top ranks, where a dataset the pair does not name may still answer its query. Default 0.
   */
  hardNegativeSkip: number;
  /** Folder of the GCMD files. Default the snapshot's data folder. */
  dataDir?: string;
  seed: number;
}

export const DEFAULT_STATIC_PAIRS_OPTIONS: Readonly<StaticPairsOptions> = Object.freeze({
  sources: [...STATIC_PAIR_SOURCES], abstractWords: 80, sentencesPerRecord: 1, stylePerStyle: 300, maxPerSource: 0, excludeTestLabels: true, exclusionScope: 'every-source', alsoExcludeIds: [], hardNegativeSources: [], hardNegativeSkip: 0, seed: 42,
});

const lower = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** The pairs of a corpus (and a benchmark's training split): see the file's comment. Deterministic for a seed. */
export function staticTrainingPairs(corpus: Corpus, bench: Benchmark | null, options: Partial<StaticPairsOptions> = {}): { pairs: StaticPair[]; counts: Record<string, number>; excludedRows: number } {
  const o: StaticPairsOptions = {
    ...DEFAULT_STATIC_PAIRS_OPTIONS, ...options,
    sources: [...(options.sources ?? DEFAULT_STATIC_PAIRS_OPTIONS.sources)], hardNegativeSources: [...(options.hardNegativeSources ?? DEFAULT_STATIC_PAIRS_OPTIONS.hardNegativeSources)],
  };
  for (const s of [...o.sources, ...o.hardNegativeSources]) if (!STATIC_PAIR_SOURCES.includes(s)) throw new EoError('CONFIG', `static pairs: unknown source "${s}" (known: ${STATIC_PAIR_SOURCES.join(', ')})`);
  if (!(Number.isInteger(o.hardNegativeSkip) && o.hardNegativeSkip >= 0)) throw new EoError('CONFIG', `static pairs: hardNegativeSkip must be an integer ≥ 0 (got ${o.hardNegativeSkip})`);
  if ((o.sources.includes('train-split') || o.excludeTestLabels) && !bench) throw new EoError('INVALID_ARGUMENT', 'static pairs: the train-split source and the test-label exclusion need the benchmark');
  if (o.exclusionScope !== 'every-source' && o.exclusionScope !== 'generated-queries') throw new EoError('CONFIG', `static pairs: exclusionScope must be "every-source" or "generated-queries" (got ${JSON.stringify(o.exclusionScope)})`);
  const excluded = o.excludeTestLabels && bench ? nnsscStyleExcludedRows(corpus, bench).rows : new Set<number>();
  for (const id of o.alsoExcludeIds) {
    const r = corpus.indexById.get(id);
    if (r !== undefined) excluded.add(r);
  }
  const leftOut = (source: StaticPairSource, row: number) => excluded.has(row) && (o.exclusionScope === 'every-source' || STATIC_QUERY_SOURCES.includes(source));
  const want = new Set(o.sources);
  const bySource = new Map<StaticPairSource, StaticPair[]>(o.sources.map((s) => [s, []]));
  // the corpus rows that answer each pair's query (never its hard negative)
  const answers = new Map<StaticPair, readonly number[]>();
  const addPair = (source: StaticPairSource, query: string, doc: string, rows: readonly number[]) => {
    const q = query.replace(/\s+/g, ' ').trim();
    if (q.length < 3 || !doc) return;
    const pair: StaticPair = { query: q, doc, source };
    bySource.get(source)!.push(pair);
    answers.set(pair, rows);
  };
  const doc = (d: DatasetRecord) => staticDocumentText(d, o.abstractWords);
  const instruments = want.has('gcmd-instrument') ? readGcmdInstruments(o.dataDir) : new Map();
  const platforms = want.has('gcmd-platform') ? readGcmdPlatforms(o.dataDir) : new Map();
  // a record keyword → its GCMD path, matched on the deepest level's name
  const keywordPaths = new Map<string, string[]>();
  if (want.has('gcmd-keyword')) for (const p of readGcmdScienceKeywords(o.dataDir)) if (!keywordPaths.has(lower(p[p.length - 1]))) keywordPaths.set(lower(p[p.length - 1]), p);
  corpus.datasets.forEach((d, row) => {
    const add = (source: StaticPairSource, query: string, docText: string) => {
      if (!leftOut(source, row)) addPair(source, query, docText, [row]);
    };
    const title = staticTitle(d);
    const kw = d.keywords.join(', ');
    const abs = d.abstract.split(/\s+/).slice(0, o.abstractWords).join(' ');
    if (want.has('title-abstract') && (kw || abs)) add('title-abstract', title, [kw, abs].filter(Boolean).join(' | '));
    if (want.has('keywords') && kw) add('keywords', kw, [title, abs].filter(Boolean).join(' | '));
    if (want.has('sentence')) {
      for (const sentence of abstractSentences(d.abstract).slice(0, o.sentencesPerRecord)) {
        if (sentence.text.length >= 20) add('sentence', sentence.text, [title, kw].filter(Boolean).join(' | '));
      }
    }
    if (want.has('short-name') && d.shortName) add('short-name', d.shortName, [d.longName, kw].filter(Boolean).join(' | '));
    for (const name of want.has('gcmd-instrument') ? d.instruments : []) {
      const g = instruments.get(name.toUpperCase());
      if (g?.longName) add('gcmd-instrument', [g.longName, ...g.path.slice(1)].join(', '), doc(d));
    }
    for (const name of want.has('gcmd-platform') ? d.platforms : []) {
      const g = platforms.get(name.toUpperCase());
      if (g?.longName) add('gcmd-platform', [g.longName, ...g.path].join(', '), doc(d));
    }
    for (const k of want.has('gcmd-keyword') ? d.keywords : []) {
      const p = keywordPaths.get(lower(k));
      if (p && p.length >= 2) add('gcmd-keyword', p.join(' ').toLowerCase(), doc(d));
    }
  });
  if (want.has('style-queries')) {
    for (const q of corpusStyleQueries(corpus, { perStyle: o.stylePerStyle, seed: o.seed, excludeRows: excluded })) {
      for (const r of q.positives) addPair('style-queries', q.text, doc(corpus.datasets[r]), q.positives);
    }
  }
  if (want.has('train-split') && bench) {
    const train = benchmarkSplit(bench, 'train');
    for (const q of train.queries) {
      const rows = [...(train.qrels.get(q.id) ?? [])].filter(([id, g]) => g > 0 && corpus.indexById.has(id)).map(([id]) => corpus.indexById.get(id)!);
      for (const r of rows) if (!excluded.has(r)) addPair('train-split', q.text, doc(corpus.datasets[r]), rows);
    }
  }
  if (o.hardNegativeSources.length) {
    const index = buildBm25Stop(corpus);
    for (const source of o.hardNegativeSources) {
      for (const pair of bySource.get(source) ?? []) {
        const row = bm25NearMiss(bm25StopScores(index, pair.query), answers.get(pair)!, o.hardNegativeSkip);
        if (row !== null) pair.negative = doc(corpus.datasets[row]);
      }
    }
  }
  const pairs: StaticPair[] = [];
  const counts: Record<string, number> = {};
  o.sources.forEach((s, i) => {
    let list = bySource.get(s)!;
    if (o.maxPerSource > 0 && list.length > o.maxPerSource) list = shuffleInPlace(list.slice(), mulberry32(o.seed + 101 * (i + 1))).slice(0, o.maxPerSource);
    counts[s] = list.length;
    pairs.push(...list);
  });
  return { pairs, counts, excludedRows: excluded.size };
}

/**
 * The row of the (skip + 1)-th best-scoring dataset that is not one of `answers` (ties: the lower row first), or null
 * when fewer than skip + 1 datasets score above 0.
 */
export function bm25NearMiss(scores: Float32Array, answers: readonly number[], skip: number): number | null {
  const k = skip + 1;
  const not = new Set(answers);
  const best: number[] = []; // rows, best first, at most k
  for (let r = 0; r < scores.length; r++) {
    const sc = scores[r];
    if (!(sc > 0) || not.has(r)) continue;
    if (best.length === k && !(sc > scores[best[k - 1]])) continue;
    let p = best.length < k ? best.length : k - 1;
    best[p] = r;
    while (p > 0 && sc > scores[best[p - 1]]) {
      best[p] = best[p - 1];
      best[p - 1] = r;
      p--;
    }
  }
  return best.length === k ? best[k - 1] : null;
}
