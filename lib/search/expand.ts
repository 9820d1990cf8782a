/**
 * Domain vocabulary on the query side: a researcher writes "CO", "carbon monoxide" or "MOPITT" for the same data,
 * and a dataset record may use only one of them. The query is expanded with the other members of each group it
 * names, and the expansion is scored by BM25 at a lower weight than the query itself:
 *   score(d) = BM25(q, d) + w · BM25(expansion(q), d)
 * Groups come from three sources, each named in the explanation:
 *   - `vocabulary.json` beside this file: names ↔ formulas ↔ instruments ↔ techniques, hand-written from GCMD;
 *   - the corpus's own fields: instruments/platforms and the GCMD variable keywords their datasets carry
 *     (`corpusInstrumentGroups`), so an instrument named in a query brings the variables it measures;
 *   - (tried, not in the default vocabulary) the instrument and platform types of GCMD (`gcmdTypeGroups`): "lidar"
 *     brings the corpus's lidars (CALIOP, CATS, GLAS …), which do not bring each other.
 */
import * as fs from 'node:fs';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { bm25ConfigFingerprint, bm25Scores, type Bm25Index } from '../retrieve/bm25';
import type { CorpusScorer } from '../retrieve/scorers';
import { phraseMatcher, type PhraseMatcher } from '../router/phrases';
import type { GcmdKeyword } from '../router/variables';
import type { GcmdTypeVocabulary } from './gcmd-types';
import { createLru } from '../util/lru';
import { packageFile } from '../util/paths';

/** One set of equivalent ways to name a quantity or technique. */
export interface VocabularyGroup {
  /** GCMD Science Keyword (upper case) the group corresponds to. */
  gcmd: string;
  /** Plain names, matched case-insensitively as whole phrases. */
  names: string[];
  /** Formulas and acronyms, matched case-sensitively (so "CO" is carbon monoxide and "co-located" is not). */
  formulas: string[];
  /** Instruments / missions measuring it, matched case-insensitively. */
  instruments: string[];
  /** Names added when the group is named but never matched (a type's instruments: "lidar" adds CALIOP, CALIOP adds no lidar). Default none. */
  related?: string[];
  /** Where the group comes from: `vocabulary.json`, `corpus:instruments` or `gcmd:types` (`gcmdTypeGroups`). */
  source: string;
}

export interface QueryVocabulary {
  groups: VocabularyGroup[];
  matcher: PhraseMatcher<{ group: number; kind: 'name' | 'formula' | 'instrument'; term: string }>;
}

/** One vocabulary hit in a query and what it added. */
export interface ExpansionMatch {
  /** The query text that matched. */
  text: string;
  kind: 'name' | 'formula' | 'instrument';
  gcmd: string;
  added: string[];
  source: string;
}

export interface QueryExpansion {
  /** Text added to the query (BM25-scored at the expansion weight); '' when nothing matched. */
  text: string;
  matches: ExpansionMatch[];
}

/** The vocabulary data file beside this module. */
export function vocabularyFile(): string {
  return packageFile('search', 'data', 'vocabulary.json');
}

/** Read and check `vocabulary.json`; with `gcmdKeywords`, every group's `gcmd` must be a GCMD keyword. */
export function readVocabularyGroups(file = vocabularyFile(), gcmdKeywords?: readonly GcmdKeyword[]): VocabularyGroup[] {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EoError('DATA_PARSE', `${file}: cannot read vocabulary (${(e as Error).message})`, { file });
  }
  const groups = (raw as { groups?: unknown }).groups;
  if (!Array.isArray(groups)) throw new EoError('DATA_INVALID', `${file}: field "groups" must be an array`, { file });
  const known = gcmdKeywords ? new Set(gcmdKeywords.map((k) => k.name)) : null;
  return groups.map((g, i) => {
    const where = `${file}: groups[${i}]`;
    const o = g as Record<string, unknown>;
    if (typeof o.gcmd !== 'string' || o.gcmd === '') throw new EoError('DATA_INVALID', `${where}: field "gcmd" must be a non-empty string`, { file, field: 'gcmd' });
    if (known && !known.has(o.gcmd)) throw new EoError('DATA_INVALID', `${where}: "${o.gcmd}" is not a GCMD science keyword`, { file, field: 'gcmd' });
    const list = (f: string): string[] => {
      const v = o[f];
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x.trim() === '')) throw new EoError('DATA_INVALID', `${where}: field "${f}" must be an array of non-empty strings`, { file, field: f });
      return v as string[];
    };
    return { gcmd: o.gcmd, names: list('names'), formulas: list('formulas'), instruments: list('instruments'), source: 'vocabulary.json' };
  });
}

export interface CorpusInstrumentOptions {
  /** An instrument needs at least this many datasets. Default 3. */
  minDatasets?: number;
  /** A keyword must be carried by at least this share of the instrument's datasets. Default 0.5. */
  minShare?: number;
  /** ... and by at most this share of all datasets with instruments (too common says nothing). Default 0.2. */
  maxCorpusShare?: number;
  /** Keywords kept per instrument (most frequent first). Default 3. */
  maxKeywords?: number;
}

/** Instrument names the corpus uses as placeholders, never as instruments. */
const NOT_INSTRUMENTS = new Set(['NOT APPLICABLE', 'NOT PROVIDED', 'MODELS', 'COMPUTERS']);

/**
 * Groups drawn from the corpus's own fields: for each instrument, the GCMD keywords most of its datasets carry
 * and few others do (e.g. MOPITT → carbon monoxide). Deterministic: ties break by name.
 */
export function corpusInstrumentGroups(corpus: Pick<Corpus, 'datasets'>, opts: CorpusInstrumentOptions = {}): VocabularyGroup[] {
  const minDatasets = opts.minDatasets ?? 3;
  const minShare = opts.minShare ?? 0.5;
  const maxCorpusShare = opts.maxCorpusShare ?? 0.2;
  const maxKeywords = opts.maxKeywords ?? 3;
  const withInstruments = corpus.datasets.filter((d) => d.instruments.length > 0);
  const keywordDf = new Map<string, number>();
  const byInstrument = new Map<string, Map<string, number>>();
  const instrumentDf = new Map<string, number>();
  for (const d of withInstruments) {
    const kws = new Set(d.keywords.map((k) => k.toLowerCase().trim()).filter((k) => k.length > 2));
    for (const k of kws) keywordDf.set(k, (keywordDf.get(k) ?? 0) + 1);
    for (const ins of new Set(d.instruments)) {
      if (NOT_INSTRUMENTS.has(ins.toUpperCase())) continue;
      instrumentDf.set(ins, (instrumentDf.get(ins) ?? 0) + 1);
      let m = byInstrument.get(ins);
      if (!m) byInstrument.set(ins, (m = new Map()));
      for (const k of kws) m.set(k, (m.get(k) ?? 0) + 1);
    }
  }
  const out: VocabularyGroup[] = [];
  for (const ins of [...instrumentDf.keys()].sort()) {
    const n = instrumentDf.get(ins)!;
    if (n < minDatasets) continue;
    const kws = [...byInstrument.get(ins)!]
      .filter(([k, c]) => c / n >= minShare && keywordDf.get(k)! / withInstruments.length <= maxCorpusShare && !k.includes(ins.toLowerCase()))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, maxKeywords)
      .map(([k]) => k);
    if (kws.length === 0) continue;
    out.push({ gcmd: kws[0].toUpperCase(), names: kws, formulas: [], instruments: [ins], source: 'corpus:instruments' });
  }
  return out;
}

/** Build the matcher over groups (hand-written first, then corpus-derived). */
export function queryVocabulary(groups: readonly VocabularyGroup[]): QueryVocabulary {
  const entries: [string, { group: number; kind: 'name' | 'formula' | 'instrument'; term: string }][] = [];
  groups.forEach((g, group) => {
    for (const term of g.names) entries.push([term, { group, kind: 'name', term }]);
    for (const term of g.formulas) entries.push([term, { group, kind: 'formula', term }]);
    for (const term of g.instruments) entries.push([term, { group, kind: 'instrument', term }]);
  });
  return { groups: [...groups], matcher: phraseMatcher(entries) };
}

/**
 * The GCMD types of a corpus as groups: a type's query phrases are its names, the corpus's instruments or platforms of
 * that type its related names (the `maxNames` most carried by at least `minDatasets` datasets: defaults 12 and 3). Not in the default vocabulary (see `loadQueryVocabulary`); `bench/gcmd-types-tune.cjs`
 * measures them.
 */
export function gcmdTypeGroups(types: GcmdTypeVocabulary, opts: { minDatasets?: number; maxNames?: number } = {}): VocabularyGroup[] {
  const minDatasets = opts.minDatasets ?? 3;
  const maxNames = opts.maxNames ?? 12;
  return types.types
    .map((t) => ({ t, related: t.names.filter((_, i) => t.counts[i] >= minDatasets).slice(0, maxNames) }))
    .filter(({ related }) => related.length > 0)
    .map(({ t, related }) => ({ gcmd: `${t.term.id} (${t.term.field === 'instruments' ? 'instrument' : 'platform'} type)`.toUpperCase(), names: t.term.names, formulas: [], instruments: [], related, source: 'gcmd:types' }));
}

let defaultVocabulary: { corpusHash: string; vocab: QueryVocabulary } | null = null;

/**
 * The default vocabulary for a corpus: vocabulary.json + the corpus's instrument groups (cached per corpus). The GCMD
 * type groups are not in it: on the style dev half they lowered BM25 + expansion on the queries that name a type
 * (`bench/gcmd-types-tune.cjs`); a named type acts through the identifier rule instead (`identifiers.ts`).
 */
export function loadQueryVocabulary(corpus: Corpus): QueryVocabulary {
  if (defaultVocabulary?.corpusHash !== corpus.hash)
    defaultVocabulary = { corpusHash: corpus.hash, vocab: queryVocabulary([...readVocabularyGroups(), ...corpusInstrumentGroups(corpus)]) };
  return defaultVocabulary.vocab;
}

/**
 * The expansion of a query: for each vocabulary hit, the members of its group that the query does not already
 * contain. Formulas match only in their exact case.
 */
export function expandQuery(text: string, vocab: QueryVocabulary): QueryExpansion {
  const lower = text.toLowerCase();
  const matches: ExpansionMatch[] = [];
  const added = new Set<string>();
  const hits = vocab.matcher.find(text, (hit) => hit.values.some((v) => v.kind !== 'formula' || hit.span.text === v.term));
  for (const hit of hits) {
    const seenGroups = new Set<number>();
    for (const v of hit.values) {
      if (v.kind === 'formula' && hit.span.text !== v.term) continue;
      if (seenGroups.has(v.group)) continue;
      seenGroups.add(v.group);
      const g = vocab.groups[v.group];
      const members = [...g.names, ...g.formulas, ...g.instruments, ...(g.related ?? [])];
      const fresh = members.filter((m) => !lower.includes(m.toLowerCase()) && !added.has(m.toLowerCase()));
      for (const m of fresh) added.add(m.toLowerCase());
      if (fresh.length > 0) matches.push({ text: hit.span.text, kind: v.kind, gcmd: g.gcmd, added: fresh, source: g.source });
    }
  }
  return { text: matches.flatMap((m) => m.added).join(' '), matches };
}

/** Default weight of the expansion's BM25 score relative to the query's own (tuned on the training split). */
export const DEFAULT_EXPANSION_WEIGHT = 0.3;

/** BM25 of the query plus `weight` × BM25 of its expansion; returns the expansion so it can be explained. */
export function expandedBm25Scores(bm25: Bm25Index, text: string, vocab: QueryVocabulary, weight = DEFAULT_EXPANSION_WEIGHT): { scores: Float32Array; expansion: QueryExpansion } {
  if (!(weight >= 0)) throw new EoError('INVALID_ARGUMENT', `expansion weight must be >= 0 (got ${weight})`);
  const scores = bm25Scores(bm25, text);
  const expansion = expandQuery(text, vocab);
  if (expansion.text === '' || weight === 0) return { scores, expansion };
  const extra = bm25Scores(bm25, expansion.text);
  for (let i = 0; i < scores.length; i++) scores[i] += weight * extra[i];
  return { scores, expansion };
}

/** A BM25 scorer with query expansion, for runs and fusion (id `bm25+qe`). */
export function expandedBm25Scorer(bm25: Bm25Index, vocab: QueryVocabulary, weight = DEFAULT_EXPANSION_WEIGHT, opts: { recent?: number; id?: string; label?: string } = {}): CorpusScorer {
  // a service scores each query's lexical part twice (fusion, two-stage first stage): the second from memory
  const recent = opts.recent ? createLru<string, Float32Array>(opts.recent) : null;
  const score = (t: string) => {
    const hit = recent?.get(t);
    if (hit) return hit;
    const s = expandedBm25Scores(bm25, t, vocab, weight).scores;
    recent?.set(t, s);
    return s;
  };
  return {
    id: opts.id ?? 'bm25+qe',
    label: opts.label ?? `BM25 + query expansion (w=${weight})`,
    fingerprint: `${bm25ConfigFingerprint(bm25.config, bm25.inferredHash)}+qe(w=${weight},groups=${vocab.groups.length})`,
    async scoreBatch(texts, onProgress) {
      const out = texts.map(score);
      onProgress?.(texts.length, texts.length);
      return out;
    },
  };
}
