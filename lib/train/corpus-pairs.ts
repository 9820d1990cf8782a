import { datasetEncoderText } from '../data/text';
import type { Corpus, DatasetRecord } from '../data/types';
import { abstractSentences } from '../util/english';
import { EoError } from '../errors';
import { shortHash } from '../util/hash';
import { mulberry32, shuffleInPlace } from '../util/random';

/** Kept exported here, where it was first defined (`lib/util/english.ts` is its home now). */
export { abstractSentences };

/**
 * Self-supervised (query, dataset) pairs made from the corpus text alone (beyond the paper; issue 11 item 4).
 *
 * Why: the learned scorers see ~580 training queries (NASA-EO-Bench's test split alone has 4,234), while ~10k dataset records hold titles, short
 * names, keywords, platforms, instruments and descriptions that say what each dataset is about. These pairs read ONLY
 * dataset fields (never publications or links), so no test publication can reach them; they are as available at
 * index time as the text BM25 indexes.
 *
 * Kinds (each a query for the dataset(s) it came from):
 * - `title`: the catalog title (longName). It is contained in the dataset's encoder text, so it teaches name matching
 *   (publication titles often name the product), not paraphrase.
 * - `shortName`: the CMR short name (e.g. `ML2H2O`) — short name ↔ long name; also contained in the encoder text.
 * - `sentence`: one sentence of the abstract (`sentence` option: the first, or a seeded random one). With
 *   `sentenceFrom: 'unencoded'` (default) only sentences that START at or after the part of the abstract the encoder
 *   reads (`encoderAbstractChars`) are used, so the query is NOT a verbatim piece of the dataset's encoder text.
 * - `keywords`: a title-like phrase of the dataset's most specific science keywords (lowest corpus document
 *   frequency, generic ones left out) with its first instrument and platform, e.g. "ozone mixing ratio MLS Aura".
 *
 * One pair per distinct query text (case/space-normalised): every dataset that yields the same text is a positive of
 * it (two versions of a product with one title are both right answers, never each other's negatives).
 */
export type CorpusPairKind = 'title' | 'shortName' | 'sentence' | 'keywords';

export const CORPUS_PAIR_KINDS: readonly CorpusPairKind[] = ['title', 'shortName', 'sentence', 'keywords'];

export interface CorpusPairsOptions {
  /** Which kinds to build. Default all four: `['title', 'shortName', 'sentence', 'keywords']`. */
  kinds: CorpusPairKind[];
  /** Seed of every random choice (sentence pick, sampling down to `maxPairs`). Default 42. */
  seed: number;
  /**
   * At most this many pairs, drawn round-robin over the kinds after a seeded shuffle of each (0 = all). Default 2048:
   * embedding the queries is the cost (USE-lite embeds ~3 short texts/s per loaded 2-core machine, ~10 min for 2,048),
   * and a smaller limit gives a prefix of a larger one (same seed), so caches of a larger run stay partly usable.
   */
  maxPairs: number;
  /** Which abstract sentence becomes the `sentence` query: `first` usable one or a seeded `random` one. Default `random`. */
  sentence: 'first' | 'random';
  /**
   * Where `sentence` queries may come from: `unencoded` (default) = only sentences starting at or after
   * `encoderAbstractChars` characters of the abstract (not part of the encoder text, so not a verbatim copy of what the
   * scorer sees); `any` = any sentence.
   */
  sentenceFrom: 'unencoded' | 'any';
  /** Abstract characters the encoder text keeps (`datasetEncoderText`'s default). Default 512. */
  encoderAbstractChars: number;
  /** Shortest query kept, in characters (after normalising spaces). Default 12. */
  minChars: number;
  /** Longest query kept: longer texts are cut at the last word boundary before this. Default 200. */
  maxChars: number;
  /** `keywords`: at most this many keywords in the phrase. Default 3. */
  keywordTerms: number;
  /** `keywords`: a keyword held by more than this share of the datasets is too generic to use. Default 0.05. */
  maxKeywordShare: number;
  /** A query text yielded by more than this many datasets is dropped (too unspecific to train on). Default 20. */
  maxPositives: number;
}

export const DEFAULT_CORPUS_PAIRS_OPTIONS: CorpusPairsOptions = {
  kinds: [...CORPUS_PAIR_KINDS],
  seed: 42,
  maxPairs: 2048,
  sentence: 'random',
  sentenceFrom: 'unencoded',
  encoderAbstractChars: 512,
  minChars: 12,
  maxChars: 200,
  keywordTerms: 3,
  maxKeywordShare: 0.05,
  maxPositives: 20,
};

/** One self-supervised query with its positives (corpus rows). */
export interface CorpusPair {
  /** `corpus:<kind>:<hash of the text>`, unique per pair. */
  id: string;
  kind: CorpusPairKind;
  text: string;
  /** Corpus rows of the datasets that yield this text (ascending). */
  positives: number[];
}

export interface CorpusPairsResult {
  pairs: CorpusPair[];
  /** The options used (defaults filled in). */
  options: CorpusPairsOptions;
  /** Pairs per kind before and after sampling down to `maxPairs`. */
  counts: Record<CorpusPairKind, { built: number; kept: number }>;
  /** Hash over the pairs (ids, texts, positives) and the corpus hash: what a model trained on them records. */
  hash: string;
}

/** Spaces collapsed and trimmed. */
function clean(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Cut at the last word boundary before `max` characters. */
function cap(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const sp = cut.lastIndexOf(' ');
  return (sp > max / 2 ? cut.slice(0, sp) : cut).trim();
}

function validate(o: CorpusPairsOptions): void {
  const bad = (field: string, why: string) => new EoError('INVALID_ARGUMENT', `corpusSelfSupervisedPairs: option ${field} ${why}`);
  for (const k of o.kinds) if (!CORPUS_PAIR_KINDS.includes(k)) throw bad('kinds', `has unknown kind ${JSON.stringify(k)} (known: ${CORPUS_PAIR_KINDS.join(', ')})`);
  if (!Number.isInteger(o.maxPairs) || o.maxPairs < 0) throw bad('maxPairs', `must be an integer ≥ 0, got ${o.maxPairs}`);
  if (o.sentence !== 'first' && o.sentence !== 'random') throw bad('sentence', `must be "first" or "random", got ${JSON.stringify(o.sentence)}`);
  if (o.sentenceFrom !== 'unencoded' && o.sentenceFrom !== 'any') throw bad('sentenceFrom', `must be "unencoded" or "any", got ${JSON.stringify(o.sentenceFrom)}`);
  if (!(o.minChars >= 1) || !(o.maxChars >= o.minChars)) throw bad('minChars/maxChars', `must satisfy 1 ≤ minChars ≤ maxChars, got ${o.minChars}, ${o.maxChars}`);
  if (!(o.keywordTerms >= 1)) throw bad('keywordTerms', `must be ≥ 1, got ${o.keywordTerms}`);
  if (!(o.maxKeywordShare > 0 && o.maxKeywordShare <= 1)) throw bad('maxKeywordShare', `must be in (0, 1], got ${o.maxKeywordShare}`);
  if (!(o.maxPositives >= 1)) throw bad('maxPositives', `must be ≥ 1, got ${o.maxPositives}`);
}

/**
 * The self-supervised pairs of a corpus (see the kinds above). Reads only `corpus.datasets` (id, shortName, longName,
 * abstract, keywords, platforms, instruments). Same corpus and options → the same pairs in the same order.
 * `excludeRows` (default none): datasets that must never be a positive, e.g. every test label of both benchmarks
 * (`nnsscStyleExcludedRows`); a text any of them yields is dropped.
 */
export function corpusSelfSupervisedPairs(corpus: Pick<Corpus, 'datasets' | 'hash'>, options: Partial<CorpusPairsOptions> = {}, excludeRows: ReadonlySet<number> = new Set()): CorpusPairsResult {
  const o: CorpusPairsOptions = { ...DEFAULT_CORPUS_PAIRS_OPTIONS, ...options };
  validate(o);
  const datasets: readonly DatasetRecord[] = corpus.datasets;
  const n = datasets.length;
  const kinds = new Set(o.kinds);
  const sentenceRng = mulberry32(o.seed ^ 0x5e47);

  // Keyword document frequencies (for "most specific" and "too generic").
  const df = new Map<string, number>();
  if (kinds.has('keywords'))
    for (const d of datasets) for (const k of new Set(d.keywords.map((x) => clean(x).toLowerCase()))) if (k) df.set(k, (df.get(k) ?? 0) + 1);
  const maxDf = Math.max(1, Math.floor(o.maxKeywordShare * n));

  // text key → { kind, text, positives }
  const byText = new Map<string, { kind: CorpusPairKind; text: string; rows: Set<number> }>();
  const add = (kind: CorpusPairKind, raw: string, row: number) => {
    const text = cap(clean(raw), o.maxChars);
    if (text.length < o.minChars) return;
    const key = text.toLowerCase();
    const hit = byText.get(key);
    if (hit) hit.rows.add(row);
    else byText.set(key, { kind, text, rows: new Set([row]) });
  };

  datasets.forEach((d, row) => {
    if (kinds.has('title')) add('title', d.longName, row);
    if (kinds.has('shortName') && d.shortName) add('shortName', d.shortName, row);
    if (kinds.has('sentence')) {
      const usable = abstractSentences(d.abstract).filter(
        (s) => s.text.length >= o.minChars && (o.sentenceFrom === 'any' || s.start >= o.encoderAbstractChars),
      );
      // Draw for every dataset (even with no usable sentence) so one record's text never shifts another's pick.
      const r = sentenceRng();
      if (usable.length > 0) add('sentence', (o.sentence === 'first' ? usable[0] : usable[Math.floor(r * usable.length)]).text, row);
    }
    if (kinds.has('keywords')) {
      const specific = [...new Set(d.keywords.map((x) => clean(x).toLowerCase()))]
        .filter((k) => k && (df.get(k) ?? 0) <= maxDf)
        .sort((a, b) => (df.get(a) ?? 0) - (df.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, o.keywordTerms);
      if (specific.length > 0) {
        const parts = [...specific];
        const named = (xs: readonly string[]) => xs.map(clean).find((x) => x && !/^not (applicable|provided)$/i.test(x));
        const instrument = named(d.instruments);
        const platform = named(d.platforms);
        if (instrument) parts.push(instrument);
        if (platform) parts.push(platform);
        add('keywords', parts.join(' '), row);
      }
    }
  });

  const perKind = new Map<CorpusPairKind, CorpusPair[]>(o.kinds.map((k) => [k, []]));
  for (const v of byText.values()) {
    if (v.rows.size > o.maxPositives) continue;
    // a text that a left-out dataset (a test label) yields is dropped whole: that dataset is then neither a positive
    // of it nor a negative beside its twins
    if ([...v.rows].some((r) => excludeRows.has(r))) continue;
    perKind.get(v.kind)!.push({ id: `corpus:${v.kind}:${shortHash(v.text.toLowerCase(), 12)}`, kind: v.kind, text: v.text, positives: [...v.rows].sort((a, b) => a - b) });
  }
  const counts = Object.fromEntries(CORPUS_PAIR_KINDS.map((k) => [k, { built: perKind.get(k)?.length ?? 0, kept: 0 }])) as CorpusPairsResult['counts'];

  // Seeded shuffle per kind, then round-robin over the kinds (in `kinds` order) up to maxPairs.
  const sampleRng = mulberry32(o.seed ^ 0x5a3b);
  const queues = o.kinds.map((k) => shuffleInPlace(perKind.get(k)!.slice(), sampleRng));
  const limit = o.maxPairs === 0 ? Infinity : o.maxPairs;
  const pairs: CorpusPair[] = [];
  for (let i = 0; pairs.length < limit; i++) {
    let any = false;
    for (const q of queues) {
      if (i < q.length && pairs.length < limit) {
        pairs.push(q[i]);
        counts[q[i].kind].kept++;
        any = true;
      }
    }
    if (!any) break;
  }
  const hash = shortHash([`corpus=${corpus.hash}`, ...pairs.map((p) => `${p.id}\t${p.text}\t${p.positives.join(',')}`)].join('\n'));
  return { pairs, options: o, counts, hash };
}

/** True when `pair.text` occurs verbatim (case-insensitively) in the encoder text of one of its positives. */
export function pairTextInEncoderText(pair: Pick<CorpusPair, 'text' | 'positives'>, datasets: readonly DatasetRecord[], abstractChars = 512): boolean {
  const t = pair.text.toLowerCase();
  return pair.positives.some((r) => clean(datasetEncoderText(datasets[r], abstractChars)).toLowerCase().includes(t));
}

/**
 * Queries in the styles users type, made from dataset fields alone (issue 21 item 4), one per dataset and style where
 * its fields allow: `keywordStyle` ("aerosol optical depth daily"), `identifierStyle` ("MISR aerosol optical depth
 * L2"), `questionStyle` ("How did sea ice concentration change from 2003 to 2008? I need daily data."). The topic is
 * the dataset's title without identifiers, versions, levels, resolutions and grid words; identifiers are its title
 * acronyms, instruments and platforms; the period a seeded sub-range of its temporal extent. Like the other corpus
 * pairs they read only dataset fields, so no publication can reach them; `excludeRows` keeps chosen datasets (e.g.
 * every test label) out altogether.
 */
export type CorpusStyleKind = 'keywordStyle' | 'identifierStyle' | 'questionStyle';
export const CORPUS_STYLE_KINDS: readonly CorpusStyleKind[] = ['keywordStyle', 'identifierStyle', 'questionStyle'];

export interface CorpusStyleQuery {
  /** `corpus:<kind>:<hash of the text>`. */
  id: string;
  kind: CorpusStyleKind;
  text: string;
  /** Corpus rows of the datasets that yield this text (ascending). */
  positives: number[];
}

export interface CorpusStyleOptions {
  /** At most this many queries per style, drawn after a seeded shuffle (0 = all). Default 400. */
  perStyle: number;
  /** Seed of every choice. Default 42. */
  seed: number;
  /** Corpus rows never used. Default none. */
  excludeRows: ReadonlySet<number>;
  /** A text yielded by more datasets than this is dropped. Default 20. */
  maxPositives: number;
}

const STYLE_DEFAULTS: CorpusStyleOptions = { perStyle: 400, seed: 42, excludeRows: new Set(), maxPositives: 20 };

const RESOLUTION = /\b(daily|monthly|weekly|hourly|3-hourly|annual|yearly|8-day|16-day|half-hourly|30-min(?:ute)?|5-min(?:ute)?)\b/i;
const NOT_TOPIC = [
  /\([^)]*\)/g, // (ML2H2O), (IIR)
  /\bat GES DISC\b/gi,
  /\b(?:V|Version\s?|R)\d+[A-Z0-9.-]*\b/g,
  /\b(?:L|Level[\s-]?)[0-4][ABCG]?\b/gi,
  /\b\d+(?:\.\d+)?\s?(?:km|m|deg(?:ree)?s?|°|arc-?(?:sec|min)(?:ond|ute)?s?)\b/gi,
  /\b\d+(?:\.\d+)?\s?x\s?\d+(?:\.\d+)?\b/gi,
  /\b(?:SIN|CMG|EASE|Grid|Gridded|Global|Swath|NRT|Near Real Time|Product|Data|Dataset|Subset|Collection|Files?)\b/gi,
  /\b[A-Z][A-Z0-9]+(?:[-/][A-Z0-9]+)*\b/g, // acronyms (identifiers go to their own slot)
  RESOLUTION,
];

function titleTopic(title: string): string {
  let t = title.replace(/[/_]/g, ' ');
  for (const re of NOT_TOPIC) t = t.replace(re, ' ');
  const ws = t.replace(/[,:;]/g, ' ').replace(/\s+-\s+|\s+/g, ' ').trim().toLowerCase().split(' ')
    .map((w) => w.replace(/^-+|-+$/g, '')).filter((w) => /[a-z]{2}/.test(w));
  while (ws.length && TOPIC_EDGE_WORDS.has(ws[ws.length - 1])) ws.pop();
  while (ws.length && TOPIC_EDGE_WORDS.has(ws[0])) ws.shift();
  return ws.join(' ');
}

/** Words a topic neither starts nor ends with. */
const TOPIC_EDGE_WORDS = new Set(['and', 'of', 'for', 'in', 'the', 'to', 'from', 'on', 'at', 'by', 'with', 'a', 'an', 'over']);

/** The first n words of a topic, without a dangling function word at the end. */
function topicPrefix(words: readonly string[], n: number): string {
  const ws = words.slice(0, n);
  while (ws.length > 1 && TOPIC_EDGE_WORDS.has(ws[ws.length - 1])) ws.pop();
  return ws.join(' ');
}

function titleIdentifiers(d: DatasetRecord): string[] {
  const acr = (d.longName.match(/\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)*\b/g) ?? []).filter((t) => /[A-Z]{3}/.test(t) && !/^(?:V\d+|R\d+|NRT|SIN|CMG|GES|DISC|NASA|DATA|GLOBAL)$/.test(t));
  const named = [...d.instruments, ...d.platforms].filter((x) => x && !/^not (applicable|provided)$/i.test(x));
  return [...new Set([...named, ...acr])];
}

function yearOf(s: string | null): number | null {
  const y = s ? Number(s.slice(0, 4)) : NaN;
  return Number.isInteger(y) && y > 1900 ? y : null;
}

/** The user-style queries of a corpus (see `CorpusStyleKind`). Same corpus and options → the same queries in order. */
export function corpusStyleQueries(corpus: Pick<Corpus, 'datasets'>, options: Partial<CorpusStyleOptions> = {}): CorpusStyleQuery[] {
  const o: CorpusStyleOptions = { ...STYLE_DEFAULTS, ...options };
  if (!Number.isInteger(o.perStyle) || o.perStyle < 0) throw new EoError('INVALID_ARGUMENT', `corpusStyleQueries: perStyle must be an integer ≥ 0, got ${o.perStyle}`);
  const rng = mulberry32(o.seed ^ 0x57a1);
  const byText = new Map<string, { kind: CorpusStyleKind; text: string; rows: Set<number> }>();
  const add = (kind: CorpusStyleKind, raw: string, row: number) => {
    const text = clean(raw);
    const key = `${kind}|${text.toLowerCase()}`;
    const hit = byText.get(key);
    if (hit) hit.rows.add(row);
    else byText.set(key, { kind, text, rows: new Set([row]) });
  };
  const pick = <T>(xs: readonly T[], r: number): T => xs[Math.floor(r * xs.length)];
  corpus.datasets.forEach((d, row) => {
    // draw the same number of values for every dataset, so one record never shifts another's choices
    const r = [rng(), rng(), rng(), rng(), rng(), rng()];
    if (o.excludeRows.has(row)) return;
    const topicWords = titleTopic(d.longName).split(' ').filter(Boolean);
    if (topicWords.length < 2) return;
    const topic = topicPrefix(topicWords, 6);
    const res = (d.longName.match(RESOLUTION)?.[1] ?? '').toLowerCase();
    const level = normalizeLevelText(d.processingLevel) ?? (d.longName.match(/\b(?:L|Level[\s-]?)([0-4][ABCG]?)\b/i)?.[1]?.toUpperCase() ?? null);
    const ids = titleIdentifiers(d);
    const y0 = yearOf(d.temporalStart);
    const y1 = yearOf(d.temporalEnd) ?? (y0 !== null ? Math.max(y0, 2024) : null);
    const short = topicPrefix(topicWords, 2 + Math.floor(r[0] * 3));
    add('keywordStyle', r[1] < 0.5 && res ? `${short} ${res}` : short, row);
    if (ids.length) add('identifierStyle', [pick(ids, r[2]), topicPrefix(topicWords, 3), level ? `L${level}` : '', r[3] < 0.5 ? res : ''].filter(Boolean).join(' '), row);
    if (y0 !== null && y1 !== null) {
      const span = Math.max(0, y1 - y0);
      const a = y0 + Math.floor(r[4] * (span / 2 + 1));
      const b = Math.min(y1, a + 1 + Math.floor(r[5] * 5));
      const id = ids.length ? ` from ${pick(ids, r[3])}` : '';
      const templates = [
        a === b ? `I want to study ${topic} in ${a}.` : `I want to study ${topic} between ${a} and ${b}.`,
        `How did ${topic} change from ${a} to ${b}?${res ? ` I need ${res} data.` : ''}`,
        `Which dataset provides ${topic}${id} for ${a}-${b}?`,
        `I am looking for ${res ? `${res} ` : ''}${topic} to compare with field measurements in ${a}.`,
      ];
      add('questionStyle', pick(templates, r[1]), row);
    }
  });
  const out: CorpusStyleQuery[] = [];
  const shuffleRng = mulberry32(o.seed ^ 0x51e7);
  for (const kind of CORPUS_STYLE_KINDS) {
    const all = [...byText.values()].filter((v) => v.kind === kind && v.rows.size <= o.maxPositives)
      .map((v) => ({ id: `corpus:${kind}:${shortHash(v.text.toLowerCase(), 12)}`, kind, text: v.text, positives: [...v.rows].sort((a, b) => a - b) }));
    // a keyword query cut to one word ("biomass for …" → "biomass") is left out after the shuffle, so the draws (and
    // every other style's queries) stay as they were
    const kept = shuffleInPlace(all, shuffleRng).filter((q) => kind !== 'keywordStyle' || q.text.includes(' '));
    out.push(...(o.perStyle === 0 ? kept : kept.slice(0, o.perStyle)));
  }
  return out;
}

function normalizeLevelText(s: string | null): string | null {
  const m = s ? /^(?:l|level\s*)?([0-4][a-cg]?)$/i.exec(s.trim()) : null;
  return m ? m[1].toUpperCase() : null;
}
