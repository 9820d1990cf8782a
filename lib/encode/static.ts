/**
 * A static embedding encoder trained on the corpus (issue 37; the recipe of sentence-transformers' static embedding
 * models, `../shared/notes/static-embeddings.md`): a token embedding table and a weighted mean over a text's tokens,
 * no attention, so a text costs one table lookup per token. It learns the domain's words from corpus pairs
 * (`lib/train/static.ts`); this file holds the tokenizer, the vocabulary, the model as plain data, the encoder over
 * it and its checkpoint (the weights' content hash and the vocabulary's hash are checked on load and by
 * `eo cache verify`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { checkpointExists, loadCheckpoint, readCheckpointManifest, saveCheckpoint } from '../store/checkpoint';
import type { DatasetRecord } from '../data/types';
import type { TrainingData } from '../store/types';
import { writeFileAtomic } from '../util/fs';
import { ENGLISH_STOP_WORDS, sStem } from '../util/english';
import { sha256, shortHash } from '../util/hash';
import type { SentenceEncoder } from './types';

/** Checkpoint kind of a static embedding model. */
export const STATIC_KIND = 'static-embedding';

/** The vocabulary file beside `checkpoint.json` (one token a line, in id order). */
export const STATIC_VOCAB_FILE = 'vocab.txt';

const WORD = /[\p{L}\p{N}]+(?:[_./-][\p{L}\p{N}]+)*/gu;
const PART = /[\p{L}\p{N}]+/gu;

/** What the tokenizer does beyond splitting (recorded with the vocabulary and in the checkpoint). */
export interface StaticTokenizer {
  /** `s`: plural-only S-stemming of letter-only words (`sStem`: "days" → "day", "profiles" → "profile"); `none`. */
  stem: 's' | 'none';
  /** Drop English stop words and request words (`ENGLISH_STOP_WORDS`: "the", "need", "data"). */
  stopWords: boolean;
  /**
   * Also emit each pair of adjacent words as one token (`sea+surface`, `surface+temperature`), within a phrase (not
   * across `, ; : | ( )` or a sentence's end) and neither a stop word, so a phrase gets a row of its own where its
   * words' mean would blur it ("sea ice" is not "sea" and "ice"). Absent in checkpoints written before it: false.
   */
  bigrams?: boolean;
}

/** The tokenizer of the first static models: split only. */
export const PLAIN_STATIC_TOKENIZER: Readonly<StaticTokenizer> = Object.freeze({ stem: 'none', stopWords: false });

/** Joins the two words of a bigram token (never inside a word: `WORD` matches no '+'). */
export const STATIC_BIGRAM_JOINER = '+';

// what ends a phrase for bigrams: a list or field separator, a bracket, or a sentence's full stop
const PHRASE_BREAK = /[,;:|()[\]{}!?]|\.(?=\s|$)/;

const stemWord = (w: string, t: StaticTokenizer) => (t.stem === 's' && !/[\d_./-]/.test(w) ? sStem(w) : w);

/**
 * Tokens of a text: lower-cased runs of letters and digits; an identifier joined by `_ / - .` is kept whole and also
 * split into its parts (`MOD04_L2` → `mod04_l2`, `mod04`, `l2`; `NOAA-20` → `noaa-20`, `noaa`, `20`), so a query
 * meets a record whether it types the short name or its parts. With `tokenizer.stopWords`, stop words (alone or as
 * a part) are dropped; with `tokenizer.stem: 's'`, letter-only words are S-stemmed (an identifier's parts are not);
 * with `tokenizer.bigrams`, each word after the previous one of its phrase adds their bigram (`sea+ice`).
 */
export function staticTokens(text: string, tokenizer: Readonly<StaticTokenizer> = PLAIN_STATIC_TOKENIZER): string[] {
  const out: string[] = [];
  const stop = tokenizer.stopWords ? ENGLISH_STOP_WORDS : null;
  const lower = text.toLowerCase();
  let previous: string | null = null; // the last word, for a bigram (null after a stop word or a phrase break)
  let end = 0; // where the last word ended
  for (const m of lower.matchAll(WORD)) {
    const w = m[0];
    const stemmed = stemWord(w, tokenizer);
    if (!stop?.has(w)) out.push(stemmed);
    if (/[_./-]/.test(w)) for (const p of w.matchAll(PART)) if (!stop?.has(p[0])) out.push(p[0]);
    if (tokenizer.bigrams) {
      const word = ENGLISH_STOP_WORDS.has(w) ? null : stemmed;
      if (previous !== null && word !== null && !PHRASE_BREAK.test(lower.slice(end, m.index))) out.push(previous + STATIC_BIGRAM_JOINER + word);
      previous = word;
      end = m.index + w.length;
    }
  }
  return out;
}

/** A dataset's title as the static encoder reads it: short name and long name. */
export function staticTitle(d: Pick<DatasetRecord, 'shortName' | 'longName'>): string {
  return `${d.shortName ?? ''} ${d.longName}`.trim();
}

/**
 * The text the static encoder embeds for a dataset: title | keywords | the abstract's first `abstractWords` words (the
 * document side of its training pairs has the same form, `lib/train/static-pairs.ts`).
 */
export function staticDocumentText(d: Pick<DatasetRecord, 'shortName' | 'longName' | 'keywords' | 'abstract'>, abstractWords = 80): string {
  const abs = d.abstract.split(/\s+/).slice(0, abstractWords).join(' ');
  return [staticTitle(d), d.keywords.join(', '), abs].filter(Boolean).join(' | ');
}

/**
 * How a text's token rows are averaged (`staticText`'s weights): `idf`, weighted by each token's IDF; `mean`, all
 * alike, so that the trained rows' lengths are the only weights (a learned weighting: MNRL training makes the rows of
 * words that tell texts apart longer than those of "the", "of" or "data").
 */
export type StaticPooling = 'idf' | 'mean';
export const STATIC_POOLINGS: readonly StaticPooling[] = ['idf', 'mean'];

/** A vocabulary with each token's document frequency (over the texts it was built from). */
export interface StaticVocabulary {
  tokens: string[];
  ids: Map<string, number>;
  /** Inverse document frequency per token id: ln(1 + N / df). */
  idf: Float32Array;
  /** Number of texts it was built from. */
  documents: number;
  /** How its texts are tokenized (every text the model reads is tokenized the same way). */
  tokenizer: StaticTokenizer;
  /** How a text's token rows are averaged (recorded in the checkpoint; models written before it was, `idf`). */
  pooling: StaticPooling;
}

export interface StaticVocabularyOptions {
  /** A token must occur in at least this many texts. Default 2. */
  minCount?: number;
  /** A bigram token (`StaticTokenizer.bigrams`) must occur in at least this many texts. Default: `minCount`. */
  bigramMinCount?: number;
  /** At most this many tokens, the most frequent first (ties by token). Default 100,000. */
  maxTokens?: number;
  /** Stemming and stop words. Default `PLAIN_STATIC_TOKENIZER` (split only). */
  tokenizer?: Partial<StaticTokenizer>;
  /** How a text's token rows are averaged (`StaticPooling`). Default `idf`. */
  pooling?: StaticPooling;
}

/** A pooling setting, checked (`idf` when absent). */
export function staticPooling(p: unknown = 'idf'): StaticPooling {
  if (!STATIC_POOLINGS.includes(p as StaticPooling)) throw new EoError('CONFIG', `static pooling must be ${STATIC_POOLINGS.map((x) => `"${x}"`).join(' or ')} (got ${JSON.stringify(p)})`);
  return p as StaticPooling;
}

/** The vocabulary of a set of texts (e.g. every dataset's title, short name, keywords and abstract). Deterministic. */
export function buildStaticVocabulary(texts: Iterable<string>, opts: StaticVocabularyOptions = {}): StaticVocabulary {
  const minCount = opts.minCount ?? 2;
  const bigramMinCount = opts.bigramMinCount ?? minCount;
  const maxTokens = opts.maxTokens ?? 100_000;
  if (!(Number.isInteger(minCount) && minCount >= 1)) throw new EoError('CONFIG', `static vocabulary minCount must be an integer ≥ 1 (got ${minCount})`);
  if (!(Number.isInteger(bigramMinCount) && bigramMinCount >= 1)) throw new EoError('CONFIG', `static vocabulary bigramMinCount must be an integer ≥ 1 (got ${bigramMinCount})`);
  if (!(Number.isInteger(maxTokens) && maxTokens >= 1)) throw new EoError('CONFIG', `static vocabulary maxTokens must be an integer ≥ 1 (got ${maxTokens})`);
  const tokenizer = staticTokenizer(opts.tokenizer);
  const pooling = staticPooling(opts.pooling);
  const df = new Map<string, number>();
  let documents = 0;
  for (const t of texts) {
    documents++;
    for (const tok of new Set(staticTokens(t, tokenizer))) df.set(tok, (df.get(tok) ?? 0) + 1);
  }
  const kept = [...df.entries()].filter(([t, n]) => n >= (t.includes(STATIC_BIGRAM_JOINER) ? bigramMinCount : minCount)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, maxTokens);
  const tokens = kept.map(([t]) => t);
  const idf = Float32Array.from(kept.map(([, n]) => Math.log(1 + documents / n)));
  return { tokens, ids: new Map(tokens.map((t, i) => [t, i])), idf, documents, tokenizer, pooling };
}

/** A tokenizer setting, checked, with defaults filled in. */
export function staticTokenizer(t: Partial<StaticTokenizer> = {}): StaticTokenizer {
  const out = { ...PLAIN_STATIC_TOKENIZER, ...t };
  if (out.stem !== 's' && out.stem !== 'none') throw new EoError('CONFIG', `static tokenizer stem must be "s" or "none" (got ${JSON.stringify(out.stem)})`);
  if (typeof out.stopWords !== 'boolean') throw new EoError('CONFIG', `static tokenizer stopWords must be true or false (got ${JSON.stringify(out.stopWords)})`);
  if (out.bigrams !== undefined && typeof out.bigrams !== 'boolean') throw new EoError('CONFIG', `static tokenizer bigrams must be true or false (got ${JSON.stringify(out.bigrams)})`);
  // bigrams only where on, so that the tokenizers (and ids) of models written before it are unchanged
  return { stem: out.stem, stopWords: out.stopWords, ...(out.bigrams ? { bigrams: true } : {}) };
}

/** A static embedding model as plain data: vocabulary, pooling weights and the token table (row-major, `dim` wide). */
export interface StaticEmbeddingModel {
  vocab: StaticVocabulary;
  dim: number;
  /** `vocab.tokens.length × dim` values. */
  table: Float32Array;
  /**
   * Matryoshka prefixes the model was trained for, largest first (each usable alone), e.g. [256, 128, 64]; of a
   * model of several members, the members' prefixes times `members` (each member's first `d / members` components).
   */
  dims: number[];
  /**
   * Models side by side (an ensemble of training seeds, `stackStaticModels`): the table's rows are `members` members'
   * rows of `dim / members` each, a text's vector is each member's unit vector scaled by 1/√members, so that a cosine
   * is the mean of the members' cosines. Absent: 1.
   */
  members?: number;
  /** Id that keys every cache of its vectors; changes with the weights. */
  id: string;
}

/** A text as token ids with their pooling weights (IDF or equal, summing to 1); unknown tokens are dropped. */
export interface StaticText {
  ids: Int32Array;
  weights: Float32Array;
}

/** Token ids and pooling weights of a text under a vocabulary (`vocab.pooling`; at most `maxTokens` tokens, in order). */
export function staticText(vocab: StaticVocabulary, text: string, maxTokens = 512): StaticText {
  const ids: number[] = [];
  for (const t of staticTokens(text, vocab.tokenizer)) {
    const id = vocab.ids.get(t);
    if (id !== undefined) ids.push(id);
    if (ids.length >= maxTokens) break;
  }
  const w = ids.map((i) => (vocab.pooling === 'mean' ? 1 : vocab.idf[i]));
  const sum = w.reduce((s, x) => s + x, 0) || 1;
  return { ids: Int32Array.from(ids), weights: Float32Array.from(w.map((x) => x / sum)) };
}

/**
 * The weighted mean of a text's token rows, `dim` components from column `from` (default the first), unnormalised,
 * written at `out[offset …]`: the one pooling of the encoder (`staticVector`) and of its training (`lib/train/static.ts`).
 */
export function staticPoolInto(table: Float32Array, tableDim: number, t: StaticText, out: Float32Array, offset = 0, dim = tableDim, from = 0): void {
  out.fill(0, offset, offset + dim);
  for (let k = 0; k < t.ids.length; k++) {
    const row = t.ids[k] * tableDim + from;
    const w = t.weights[k];
    for (let j = 0; j < dim; j++) out[offset + j] += w * table[row + j];
  }
}

/**
 * The pooled, L2-normalised vector of a text's first `dim` components (all zero when no token is known); of a model of
 * several members, each member's first `dim / members` components, each member's part of length 1/√members.
 */
export function staticVector(model: Pick<StaticEmbeddingModel, 'table' | 'dim' | 'members'>, t: StaticText, dim = model.dim, out = new Float32Array(dim)): Float32Array {
  const members = model.members ?? 1;
  const width = model.dim / members;
  const part = dim / members;
  const scale = 1 / Math.sqrt(members);
  for (let b = 0; b < members; b++) {
    const o = b * part;
    staticPoolInto(model.table, model.dim, t, out, o, part, b * width);
    let n = 0;
    for (let j = 0; j < part; j++) n += out[o + j] * out[o + j];
    if (n > 0) {
      const inv = scale / Math.sqrt(n); // scale is exactly 1 for one member
      for (let j = 0; j < part; j++) out[o + j] *= inv;
    }
  }
  return out;
}

/**
 * Models of one vocabulary and width side by side as one model of `members` (an ensemble: its cosine is the mean of
 * theirs; `StaticEmbeddingModel.members`). Each model's rows are copied after the previous ones' in every token row.
 */
export function stackStaticModels(models: readonly StaticEmbeddingModel[]): StaticEmbeddingModel {
  if (!models.length) throw new EoError('INVALID_ARGUMENT', 'stackStaticModels: no model given');
  const [first] = models;
  for (const [i, m] of models.entries()) {
    if ((m.members ?? 1) !== 1) throw new EoError('INVALID_ARGUMENT', `stackStaticModels: model ${i} (${m.id}) has ${m.members} members already`);
    if (m.dim !== first.dim || m.dims.join() !== first.dims.join()) throw new EoError('INVALID_ARGUMENT', `stackStaticModels: model ${i} (${m.id}) is ${m.dim} wide (prefixes ${m.dims}), model 0 ${first.dim} (${first.dims})`);
    if (m.vocab !== first.vocab && (m.vocab.tokens.length !== first.vocab.tokens.length || m.vocab.tokens.some((tok, j) => tok !== first.vocab.tokens[j]) || m.vocab.pooling !== first.vocab.pooling))
      throw new EoError('INVALID_ARGUMENT', `stackStaticModels: model ${i} (${m.id}) has another vocabulary than model 0 (${first.id})`);
  }
  if (models.length === 1) return first;
  const K = models.length;
  const D = first.dim;
  const V = first.vocab.tokens.length;
  const table = new Float32Array(V * D * K);
  for (let v = 0; v < V; v++) for (let b = 0; b < K; b++) table.set(models[b].table.subarray(v * D, (v + 1) * D), (v * K + b) * D);
  return { vocab: first.vocab, dim: D * K, table, dims: first.dims.map((d) => d * K), members: K, id: staticModelId(first.vocab, table, D * K, K) };
}

/** The id of a model: its dimensions and a hash of its vocabulary and weights. */
export function staticModelId(vocab: StaticVocabulary, table: Float32Array, dim: number, members = 1): string {
  const bytes = new Uint8Array(table.buffer, table.byteOffset, table.byteLength);
  // the plain tokenizer adds nothing, so the ids of models written before it was recorded stay the same
  const tok = vocab.tokenizer.stem === 'none' && !vocab.tokenizer.stopWords && !vocab.tokenizer.bigrams ? '' : JSON.stringify(staticTokenizer(vocab.tokenizer));
  // so does IDF pooling, the only one before `pooling` was recorded
  const pool = vocab.pooling === 'idf' ? '' : `pooling=${vocab.pooling}`;
  // and one member, the only models before `members`
  const stack = members === 1 ? '' : `members=${members}`;
  return `static-${members === 1 ? '' : `${members}x${dim / members}-`}${dim}@${shortHash(sha256(vocab.tokens.join('\n')) + sha256(bytes) + tok + pool + stack, 12)}`;
}

export interface StaticEncoderOptions {
  /** Use only the first `dim` components (a Matryoshka prefix the model was trained for). Default: all. */
  dim?: number;
  /** Tokens read per text. Default 512. */
  maxTokens?: number;
}

/** The model as a `SentenceEncoder` (synchronous table lookups; unit vectors). */
export function staticEncoder(model: StaticEmbeddingModel, opts: StaticEncoderOptions = {}): SentenceEncoder {
  const dim = opts.dim ?? model.dim;
  const members = model.members ?? 1;
  if (!(Number.isInteger(dim) && dim >= 1 && dim <= model.dim)) throw new EoError('INVALID_ARGUMENT', `static encoder dim must be an integer in [1, ${model.dim}] (got ${dim})`);
  if (dim % members !== 0) throw new EoError('INVALID_ARGUMENT', `static encoder dim must be a multiple of the model's ${members} members (got ${dim})`);
  return {
    id: dim === model.dim ? model.id : `${model.id}:${dim}`,
    dim,
    backend: 'js',
    async embed(texts) {
      return texts.map((t) => staticVector(model, staticText(model.vocab, t, opts.maxTokens), dim));
    },
    dispose() {},
  };
}

/** What a static checkpoint records beside its weights. */
export interface StaticCheckpointInfo {
  /** Hash of the training pairs (texts and sources). */
  dataHash: string;
  trainingData?: TrainingData;
  config: Record<string, unknown>;
  seed: number;
  metrics?: Record<string, unknown>;
}

/**
 * Write a model as a checkpoint: the table (and IDF) in `weights.bin` with its SHA-256, the vocabulary in `vocab.txt`
 * with its hash in the manifest, so a changed vocabulary is refused on load like changed weights.
 */
export function saveStaticModel(dir: string, model: StaticEmbeddingModel, info: StaticCheckpointInfo): void {
  const vocabText = model.vocab.tokens.join('\n') + '\n';
  if (model.vocab.tokens.some((t) => /\s/.test(t))) throw new EoError('INVALID_ARGUMENT', 'saveStaticModel: a vocabulary token holds white space');
  fs.mkdirSync(dir, { recursive: true });
  writeFileAtomic(path.join(dir, STATIC_VOCAB_FILE), vocabText);
  saveCheckpoint(dir, {
    kind: STATIC_KIND,
    config: { ...info.config, dim: model.dim, dims: model.dims, ...((model.members ?? 1) > 1 ? { members: model.members } : {}), id: model.id, vocab: { file: STATIC_VOCAB_FILE, tokens: model.vocab.tokens.length, sha256: sha256(vocabText), documents: model.vocab.documents, tokenizer: model.vocab.tokenizer, pooling: model.vocab.pooling } },
    seed: info.seed,
    backend: 'js',
    dataHash: info.dataHash,
    ...(info.trainingData ? { trainingData: info.trainingData } : {}),
    ...(info.metrics ? { metrics: info.metrics } : {}),
    tensors: { table: { shape: [model.vocab.tokens.length, model.dim], data: model.table }, idf: { shape: [model.vocab.tokens.length], data: model.vocab.idf } },
  });
}

/** Read a static model; the weights' and the vocabulary's hashes are checked (a mismatch is a CACHE_MISMATCH naming the file). */
export function loadStaticModel(dir: string, expect: { dataHash?: string; rebuild?: string } = {}): StaticEmbeddingModel & { checkpoint: ReturnType<typeof loadCheckpoint> } {
  const ck = loadCheckpoint(dir, { kind: STATIC_KIND, ...expect });
  const vocabInfo = ck.config.vocab as { file: string; tokens: number; sha256: string; documents: number; tokenizer?: Partial<StaticTokenizer>; pooling?: unknown } | undefined;
  const file = path.join(dir, vocabInfo?.file ?? STATIC_VOCAB_FILE);
  if (!vocabInfo || !fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `${file}: the static model's vocabulary is missing`, { file });
  const text = fs.readFileSync(file, 'utf8');
  if (sha256(text) !== vocabInfo.sha256) throw new EoError('CACHE_MISMATCH', `${file}: the vocabulary's SHA-256 differs from the one ${path.join(dir, 'checkpoint.json')} recorded`, { file, recorded: vocabInfo.sha256 });
  const tokens = text.split('\n').slice(0, -1);
  const table = ck.tensors.table;
  const idf = ck.tensors.idf;
  if (tokens.length !== vocabInfo.tokens || table.shape[0] !== tokens.length || idf.data.length !== tokens.length)
    throw new EoError('DATA_INVALID', `${dir}: ${tokens.length} vocabulary tokens, table of ${table.shape[0]} rows, ${idf.data.length} IDF values`, { file });
  // a checkpoint written before the tokenizer (the pooling) was recorded split only (pooled by IDF)
  const vocab: StaticVocabulary = {
    tokens, ids: new Map(tokens.map((t, i) => [t, i])), idf: idf.data, documents: vocabInfo.documents, tokenizer: staticTokenizer(vocabInfo.tokenizer), pooling: staticPooling(vocabInfo.pooling ?? 'idf'),
  };
  const dim = table.shape[1];
  const members = ck.config.members === undefined ? 1 : Number(ck.config.members);
  if (!(Number.isInteger(members) && members >= 1 && dim % members === 0)) throw new EoError('DATA_INVALID', `${path.join(dir, 'checkpoint.json')}: members ${JSON.stringify(ck.config.members)} does not divide the table's ${dim} columns`, { file: path.join(dir, 'checkpoint.json') });
  const id = staticModelId(vocab, table.data, dim, members);
  if (id !== ck.config.id) throw new EoError('CACHE_MISMATCH', `${dir}: the model id ${id} differs from the recorded ${String(ck.config.id)}`, { file: dir, recorded: String(ck.config.id) });
  return { vocab, dim, table: table.data, dims: (ck.config.dims as number[]) ?? [dim], ...(members > 1 ? { members } : {}), id, checkpoint: ck };
}

/** Whether `dir` holds a static model checkpoint (of this kind). */
export function staticModelExists(dir: string): boolean {
  if (!checkpointExists(dir)) return false;
  try {
    return readCheckpointManifest(dir).kind === STATIC_KIND;
  } catch {
    return false;
  }
}
