import * as fs from 'node:fs';
import * as path from 'node:path';
import lunr from 'lunr';
import type { Corpus, DatasetRecord } from '../data/types';
import { checkpointsDir } from '../util/paths';
import { cacheRebuildCommand } from '../data/snapshot';
import { temporalText } from '../data/text';
import { EoError } from '../errors';
import { contentHash, checkContentHash, shortHash } from '../util/hash';
import { writeFileAtomic } from '../util/fs';
import { topKScoredHits, type ScoredHit } from './topk';
import { identifierFormTokens } from '../data/identifier-forms';
import { platformsOrInstruments } from '../data/gcmd-infer';

/** Dataset fields BM25 can index. The paper lists shortName, longName, abstract, DOI, DAAC, temporal coverage. */
export type Bm25FieldName =
  | 'shortName' | 'longName' | 'abstract' | 'doi' | 'daac' | 'temporal' | 'keywords' | 'platforms' | 'instruments' | 'projects';

export const BM25_FIELD_TEXT: Record<Bm25FieldName, (d: DatasetRecord) => string> = {
  shortName: (d) => d.shortName ?? '',
  longName: (d) => d.longName,
  abstract: (d) => d.abstract,
  doi: (d) => d.doi ?? '',
  daac: (d) => d.daac,
  temporal: temporalText,
  keywords: (d) => d.keywords.join(' '),
  platforms: (d) => d.platforms.join(' '),
  instruments: (d) => d.instruments.join(' '),
  projects: (d) => d.projects.join(' '),
};

export const DEFAULT_BM25_FIELDS: readonly Bm25FieldName[] = [
  'shortName', 'longName', 'abstract', 'doi', 'daac', 'temporal', 'keywords', 'platforms', 'instruments', 'projects',
];

export interface Bm25Options {
  /** Term-frequency saturation. Default 1.5 (the paper's). */
  k1?: number;
  /** Length normalisation. Default 0.75 (the paper's). */
  b?: number;
  /** Fields indexed. Default DEFAULT_BM25_FIELDS (all ten). */
  fields?: readonly Bm25FieldName[];
  /**
   * 'combined' (default): all fields concatenated into one lunr field, i.e. classic Okapi BM25 over the whole
   * record. 'fields': one lunr field each, their BM25 scores summed (lunr's multi-field scoring).
   */
  mode?: 'combined' | 'fields';
  /**
   * Field weights ('fields' mode only): each field's BM25 weight is multiplied by its boost (lunr's field boost), in
   * the spirit of CMR's relevancy boosts (short name 1.4, project and platform 1.3, instrument and science keywords
   * 1.2, temporal 1.1). Default: none (every field 1).
   */
  fieldBoosts?: Partial<Record<Bm25FieldName, number>>;
  /** Cap on query terms (longer queries are cut, never rejected). Default 1024. */
  maxQueryTerms?: number;
  /**
   * Add the joined forms of identifiers to documents and queries (`identifierFormTokens`: "Sentinel-1A" also
   * `sentinel1a` and `sentinel1`, "Level 2" also `l2`, "V006" also `v6`), so that a series meets its members and a
   * level or version meets its other spellings. Default true; false is the plain word analyzer (before 2026-12-05).
   */
  identifierForms?: boolean;
  /**
   * Index a record's platforms and instruments as search reads them (`platformsOrInstruments`): CMR's when it lists
   * them, else the GCMD names inferred from its title (`DatasetRecord.inferred`), so a mission's payload and an
   * instrument's host are words of the record ("SENTINEL-1A_SLC" carries SENTINEL-1 C-SAR, "GEDI L2A" ISS). The
   * inferred values' hash joins the cache key. Default true (chosen on the style dev half: `bench/bm25-forms-tune.cjs`);
   * false indexes CMR's fields only (before 2026-12-05).
   */
  inferredMetadata?: boolean;
}

/**
 * A BM25 index over one corpus. lunr builds it (tokenizer, stop words, Porter stemmer, BM25 weights with
 * k1 and b); its per-(term, dataset) weights are then kept as compact postings so that scoring the whole
 * corpus costs one pass over the query terms' postings and the cache loads in milliseconds. Scores equal
 * lunr's own `index.query` scores (tested).
 */
export interface Bm25Index {
  size: number;
  config: Required<Omit<Bm25Options, 'maxQueryTerms' | 'fieldBoosts'>> & Pick<Bm25Options, 'fieldBoosts'>;
  maxQueryTerms: number;
  /** Hash of corpus + config; keys the on-disk cache. */
  key: string;
  /**
   * Hash of the inferred platforms and instruments the index read (`inferredMetadata`), else null: a rule of the GCMD
   * inference changes it, and with it the key and the scorer's fingerprint (`bm25ConfigFingerprint`).
   */
  inferredHash: string | null;
  /** lunr's search pipeline (stemmer), applied to query tokens. */
  pipeline: lunr.Pipeline;
  /** Indexed (stemmed) term → term number. */
  termIds: Map<string, number>;
  /** Postings of term t: positions offsets[t] .. offsets[t+1] of `docs` / `weights`. */
  offsets: Int32Array;
  docs: Int32Array;
  /** Summed lunr BM25 weight of the term over the dataset's fields. */
  weights: Float64Array;
  /** The lunr index itself, when built in this process (not kept in the cache). */
  lunrIndex?: lunr.Index;
}

const TOKEN_SPLIT = /[^\p{L}\p{N}]+/u;

/**
 * Tokenizer for both documents and queries: lower-case runs of letters/digits. Splitting on every other
 * character means no token can carry lunr query syntax (`: ^ ~ * + -`), so hostile queries cannot throw.
 */
export function bm25Tokens(text: string): string[] {
  return text.toLowerCase().split(TOKEN_SPLIT).filter((t) => t !== '');
}

/** The analyzer's tokens of a text: `bm25Tokens`, then (`identifierForms`) the joined identifier forms. */
export function bm25AnalyzedTokens(text: string, identifierForms: boolean): string[] {
  const toks = bm25Tokens(text);
  return identifierForms ? [...toks, ...identifierFormTokens(toks)] : toks;
}

function lunrTokenizer(identifierForms: boolean) {
  return (obj: unknown, metadata?: object): lunr.Token[] => {
    if (obj === null || obj === undefined) return [];
    return bm25AnalyzedTokens(String(obj), identifierForms).map((t, i) => new lunr.Token(t, { ...(metadata ?? {}), index: i } as any));
  };
}

function resolveConfig(opts: Bm25Options): Bm25Index['config'] {
  const fields = [...(opts.fields ?? DEFAULT_BM25_FIELDS)];
  for (const f of fields) if (!(f in BM25_FIELD_TEXT)) throw new EoError('CONFIG', `unknown BM25 field "${f}"`);
  const boosts = opts.fieldBoosts ?? {};
  for (const [f, w] of Object.entries(boosts)) {
    if (!(f in BM25_FIELD_TEXT)) throw new EoError('CONFIG', `unknown BM25 field "${f}" in fieldBoosts`);
    if (!(Number.isFinite(w) && w! > 0)) throw new EoError('CONFIG', `fieldBoosts.${f} must be a number > 0 (got ${w})`);
  }
  if (Object.keys(boosts).length && (opts.mode ?? 'combined') !== 'fields') throw new EoError('CONFIG', 'fieldBoosts need mode "fields" (one lunr field per dataset field)');
  return {
    k1: opts.k1 ?? 1.5, b: opts.b ?? 0.75, fields, mode: opts.mode ?? 'combined', identifierForms: opts.identifierForms ?? true, inferredMetadata: opts.inferredMetadata ?? true,
    ...(Object.keys(boosts).length ? { fieldBoosts: boosts } : {}),
  };
}

/** A dataset field's text as the index reads it (`inferredMetadata`: platforms and instruments as search reads them). */
function fieldText(d: DatasetRecord, f: Bm25FieldName, config: Bm25Index['config']): string {
  if (config.inferredMetadata && (f === 'platforms' || f === 'instruments')) return platformsOrInstruments(d, f).names.join(' ');
  return BM25_FIELD_TEXT[f](d);
}

/** The inferred values a corpus's index reads, hashed once per corpus object (a rule of the inference changes the key). */
const inferredHashes = new WeakMap<Corpus, string>();
function inferredMetadataHash(corpus: Corpus): string {
  let h = inferredHashes.get(corpus);
  if (h === undefined) {
    h = shortHash(JSON.stringify(corpus.datasets.map((d) => (d.inferred ? [d.inferred.platforms, d.inferred.instruments] : 0))));
    inferredHashes.set(corpus, h);
  }
  return h;
}

function indexKey(corpus: Corpus, config: Bm25Index['config']): string {
  const inferred = config.inferredMetadata ? `|inferred-${inferredMetadataHash(corpus)}` : '';
  return shortHash(`${corpus.hash}|${JSON.stringify(config)}${inferred}|lunr-${(lunr as any).version}`);
}

/** Build the lunr index over every dataset of the corpus (ref = corpus position). */
export function buildLunrIndex(corpus: Corpus, opts: Bm25Options = {}): lunr.Index {
  const config = resolveConfig(opts);
  const fieldNames = config.mode === 'combined' ? ['text'] : config.fields;
  return lunr(function (this: lunr.Builder) {
    this.k1(config.k1);
    this.b(config.b);
    (this as any).tokenizer = lunrTokenizer(config.identifierForms);
    this.ref('i');
    for (const f of fieldNames) this.field(f, { boost: config.fieldBoosts?.[f as Bm25FieldName] ?? 1 });
    corpus.datasets.forEach((d, i) => {
      const doc: Record<string, string> = { i: String(i) };
      if (config.mode === 'combined') doc.text = config.fields.map((f) => fieldText(d, f, config)).join(' \n ');
      else for (const f of config.fields) doc[f] = fieldText(d, f, config);
      this.add(doc);
    });
  });
}

/** Turn lunr's field vectors into term-major postings (weights summed over fields). */
function postingsFromLunr(idx: lunr.Index, size: number): Pick<Bm25Index, 'termIds' | 'offsets' | 'docs' | 'weights'> {
  const inv = (idx as any).invertedIndex as Record<string, { _index: number }>;
  const terms = Object.keys(inv).sort();
  const termIds = new Map<string, number>();
  const byLunrIndex = new Map<number, number>();
  terms.forEach((t, i) => {
    termIds.set(t, i);
    byLunrIndex.set(inv[t]._index, i);
  });
  const perTerm: Map<number, number>[] = terms.map(() => new Map());
  const fieldVectors = (idx as any).fieldVectors as Record<string, { elements: number[] }>;
  for (const fieldRef of Object.keys(fieldVectors)) {
    const doc = Number(fieldRef.slice(fieldRef.indexOf('/') + 1));
    const el = fieldVectors[fieldRef].elements;
    for (let k = 0; k < el.length; k += 2) {
      const m = perTerm[byLunrIndex.get(el[k])!];
      m.set(doc, (m.get(doc) ?? 0) + el[k + 1]);
    }
  }
  let total = 0;
  for (const m of perTerm) total += m.size;
  const offsets = new Int32Array(terms.length + 1);
  const docs = new Int32Array(total);
  const weights = new Float64Array(total);
  let p = 0;
  perTerm.forEach((m, t) => {
    offsets[t] = p;
    for (const [d, w] of [...m].sort((a, b) => a[0] - b[0])) {
      docs[p] = d;
      weights[p++] = w;
    }
  });
  offsets[terms.length] = p;
  if (size <= 0 && total > 0) throw new EoError('BENCH', 'empty corpus with postings');
  return { termIds, offsets, docs, weights };
}

/** Build a BM25 index over every dataset of the corpus. */
export function buildBm25(corpus: Corpus, opts: Bm25Options = {}): Bm25Index {
  const config = resolveConfig(opts);
  const lunrIndex = buildLunrIndex(corpus, opts);
  return {
    size: corpus.datasets.length,
    config,
    maxQueryTerms: opts.maxQueryTerms ?? 1024,
    key: indexKey(corpus, config),
    inferredHash: config.inferredMetadata ? inferredMetadataHash(corpus) : null,
    pipeline: (lunrIndex as any).pipeline,
    ...postingsFromLunr(lunrIndex, corpus.datasets.length),
    lunrIndex,
  };
}

export interface Bm25CacheOptions extends Bm25Options {
  /** Folder of cached indexes. Default `<repo>/checkpoints/bm25`. */
  cacheDir?: string;
  /**
   * Build the index even when a cache is there (valid or damaged) and replace it; the old files stay in place until
   * the new ones are written whole (`eo cache rebuild bm25`). Default false.
   */
  replace?: boolean;
}

/** The content hash of a BM25 cache: its `.bin` bytes and its `.json` fields other than the hash itself. */
function bm25CacheHash(bin: Uint8Array, metaFields: Record<string, unknown>): string {
  return contentHash([bin, JSON.stringify(metaFields)]);
}

/**
 * What a BM25 index scores with, for the fingerprints of stored fusion weights (`CorpusScorer.fingerprint`): k1 and b,
 * the identifier forms when on, the inferred metadata when read — with the hash of the values read, when given
 * (`Bm25Index.inferredHash`: an α set before a rule of the GCMD inference changed is not read after) — and a hash of
 * any other setting away from its default (fields, mode, boosts), so an α stored for one analyzer is never read for
 * another.
 */
export function bm25ConfigFingerprint(config: Bm25Index['config'], inferredHash?: string | null): string {
  const { k1, b, identifierForms, inferredMetadata, ...rest } = config;
  const defaults = resolveConfig({});
  const others = JSON.stringify(rest) === JSON.stringify({ fields: defaults.fields, mode: defaults.mode }) ? '' : `,cfg=${shortHash(JSON.stringify(rest), 8)}`;
  const inferred = inferredMetadata ? `,inferred-metadata${inferredHash ? `=${inferredHash.slice(0, 8)}` : ''}` : '';
  return `bm25(k1=${k1},b=${b}${identifierForms ? ',identifier-forms' : ''}${inferred}${others})`;
}

/** The key of a corpus's BM25 cache under the given options (the hash of the corpus, the config and lunr's version). */
export function bm25CacheKey(corpus: Corpus, opts: Bm25Options = {}): string {
  return indexKey(corpus, resolveConfig(opts));
}

/** The file names of a BM25 cache: `<dir>/bm25-<key>.json` (terms, config, pipeline, content hash) and `.bin`. */
export function bm25CachePaths(dir: string, key: string): { meta: string; bin: string } {
  return { meta: path.join(dir, `bm25-${key}.json`), bin: path.join(dir, `bm25-${key}.bin`) };
}

/**
 * Check a BM25 cache's content hash (its `.bin` and `.json` together) against the one recorded at write; throws
 * CACHE_MISMATCH naming the file, both hashes and `rebuild`. Returns the parsed metadata and the `.bin` bytes, or
 * null for a stale cache: one that recorded no hash (written before hashes were recorded) or lost its `.bin`.
 */
export function verifyBm25Cache(metaFile: string, binFile: string, rebuild: string): { meta: Record<string, any>; bin: Buffer } | null {
  let meta: Record<string, any>;
  try {
    meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
  } catch (e) {
    throw new EoError('CACHE_MISMATCH', `${metaFile}: unreadable BM25 cache metadata (${(e as Error).message}); rebuild it: ${rebuild}`, { file: metaFile, rebuild });
  }
  const { sha256: recorded, ...fields } = meta ?? {};
  if (typeof recorded !== 'string' || !fs.existsSync(binFile)) return null;
  const bin = fs.readFileSync(binFile);
  checkContentHash(binFile, recorded, bm25CacheHash(bin, fields), rebuild);
  return { meta, bin };
}

/**
 * Load the index from the cache (keyed by corpus hash + config) or build it and save it atomically:
 * `<key>.json` (terms, config, pipeline, content hash) beside `<key>.bin` (offsets, docs, weights). The content hash
 * (SHA-256 over both) is checked on load: a damaged cache throws CACHE_MISMATCH naming the file, both hashes and
 * `eo cache rebuild bm25`; a cache that recorded no hash (written before they were recorded) is stale and rebuilt.
 */
export function loadOrBuildBm25(corpus: Corpus, opts: Bm25CacheOptions = {}): Bm25Index {
  const config = resolveConfig(opts);
  const key = indexKey(corpus, config);
  const dir = opts.cacheDir ?? checkpointsDir('bm25');
  const { meta: metaFile, bin: binFile } = bm25CachePaths(dir, key);
  if (!opts.replace && fs.existsSync(metaFile)) {
    // null: written before caches recorded a hash, or half of a pair: stale, rebuilt below; a wrong hash throws
    const cached = verifyBm25Cache(metaFile, binFile, cacheRebuildCommand('bm25', corpus.origin));
    if (cached) {
      const { meta, bin: buf } = cached;
      const nT = meta.terms.length;
      const expected = 4 * (nT + 1) + 4 * meta.postings + 8 * meta.postings;
      if (meta.key !== key || meta.size !== corpus.datasets.length || buf.length !== expected)
        throw new EoError('CACHE_MISMATCH', `${binFile}: ${buf.length} bytes for ${meta.size} datasets, expected ${expected} bytes for ${corpus.datasets.length}; rebuild it: ${cacheRebuildCommand('bm25', corpus.origin)}`, { file: binFile });
      const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length);
      const offsets = new Int32Array(ab, 0, nT + 1);
      const docs = new Int32Array(ab, 4 * (nT + 1), meta.postings);
      const weights = new Float64Array(ab.slice(4 * (nT + 1) + 4 * meta.postings));
      return {
        size: meta.size, config, maxQueryTerms: opts.maxQueryTerms ?? 1024, key, inferredHash: config.inferredMetadata ? inferredMetadataHash(corpus) : null,
        pipeline: lunr.Pipeline.load(meta.pipeline),
        termIds: new Map((meta.terms as string[]).map((t, i) => [t, i])),
        offsets, docs, weights,
      };
    }
  }
  const built = buildBm25(corpus, opts);
  const terms = [...built.termIds.keys()];
  const bin = Buffer.concat([
    Buffer.from(built.offsets.buffer, built.offsets.byteOffset, built.offsets.byteLength),
    Buffer.from(built.docs.buffer, built.docs.byteOffset, built.docs.byteLength),
    Buffer.from(built.weights.buffer, built.weights.byteOffset, built.weights.byteLength),
  ]);
  const fields = { key, size: built.size, config, postings: built.docs.length, pipeline: built.pipeline.toJSON(), terms };
  // the .bin first, the .json (with the hash over both) last: a crash between them leaves a pair the hash refuses
  writeFileAtomic(binFile, bin);
  writeFileAtomic(metaFile, JSON.stringify({ ...fields, sha256: bm25CacheHash(bin, fields) }));
  return built;
}

/**
 * BM25 score of every dataset for a free-text query (0 for datasets sharing no term), aligned with corpus
 * order. Any string is accepted: query syntax characters are plain separators here. As in lunr, each query
 * term counts as often as it occurs, and the sum is divided by the query vector's norm (a per-query constant
 * that changes no ranking).
 */
export function bm25Scores(bm25: Bm25Index, query: string): Float32Array {
  const acc = new Float64Array(bm25.size);
  const qtf = new Map<number, number>();
  for (const tok of bm25AnalyzedTokens(query, bm25.config.identifierForms).slice(0, bm25.maxQueryTerms)) {
    for (const term of bm25.pipeline.runString(tok)) {
      const t = bm25.termIds.get(term);
      if (t !== undefined) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    }
  }
  let norm = 0;
  for (const [t, c] of qtf) {
    norm += c * c;
    for (let p = bm25.offsets[t]; p < bm25.offsets[t + 1]; p++) acc[bm25.docs[p]] += c * bm25.weights[p];
  }
  const scores = new Float32Array(bm25.size);
  if (norm === 0) return scores;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < acc.length; i++) scores[i] = acc[i] * inv;
  return scores;
}

/** The k best datasets for a query (score > 0 only), ties by dataset id descending; `ids` in corpus order. */
export function bm25TopK(bm25: Bm25Index, query: string, k: number, ids: readonly string[]): ScoredHit[] {
  return topKScoredHits(bm25Scores(bm25, query), k, ids).filter((h) => h.score > 0);
}
