/**
 * Query repair: what a user types is mended before retrieval, and the answer says so ("showing results for …,
 * search instead for …").
 *   - spelling: a token the corpus does not know is corrected to the most frequent known token within a small
 *     Damerau–Levenshtein distance (1 edit under 10 letters, 2 from 10; candidates from a SymSpell-style deletes
 *     index, never a scan of the vocabulary), its first letter kept;
 *   - split / join: "landsurface" → "land surface" (the corpus writes the two words side by side), "strato
 *     sphere" → "stratosphere" (one part unknown, the whole known);
 *   - abbreviations ("temp", "precip", "sst", "ndvi"… from `data/repair.json`) and acronyms found in the corpus
 *     ("Land Surface Temperature (LST)") and GCMD keywords: the token stays and its expansion is added after it;
 *   - another language (French, Spanish, German, Portuguese, Italian by function words and diacritics; CJK,
 *     Cyrillic, Arabic by script): a note that the corpus is English; the query is then searched as typed.
 * Left alone: words with digits or joined by `-_./` (MOD11A2, L3, 2015, OCO-2), identifiers of the corpus (any
 * token of a platform, instrument, project or DAAC, a whole short name; any case), words with a capital after the
 * first letter (GCIP, SmallSat), tokens of fewer than `minLetters` letters, English function words, and known words
 * (their inflections included). Spelling needs a corpus of `minCorpusDatasets` datasets.
 *
 * The vocabulary comes from the datasets' fields (longName, shortName, keywords, platforms, instruments, projects,
 * abstract), with token frequencies, plus the GCMD keyword file beside the corpus, `vocabulary.json`, the router's
 * gazetteer (place names) and everyday English words (`repair.json`); built once per corpus object
 * (`loadRepairVocabulary`). English function words are known but never a correction ("haze" is not "have").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { loadGazetteer } from '../router/gazetteer';
import { corpusGcmdFile, loadGcmdKeywords } from '../router/variables';
import { writeFileAtomic } from '../util/fs';
import { shortHash } from '../util/hash';
import { checkpointsDir, packageFile } from '../util/paths';
import { readVocabularyGroups, vocabularyFile } from './expand';

/** Why a query token changed. */
export type RepairReason = 'spelling' | 'split' | 'join' | 'abbreviation' | 'acronym';

/** One change of a query. */
export interface RepairChange {
  /** The query text that changed (one token, or two for a join). */
  from: string;
  /**
   * What it became (`spelling`, `split`, `join`); for `abbreviation` and `acronym` the words added after `from`,
   * which stays in the query.
   */
  to: string;
  reason: RepairReason;
  /** Edit distance of a spelling correction. */
  distance?: number;
  /** Where an expansion comes from: `repair.json`, `corpus` (a long name or abstract) or `gcmd`. */
  source?: string;
}

/** What `repairQuery` did to a query. */
export interface QueryRepair {
  /** The text before repair. */
  original: string;
  /** The text after repair (equal to `original` when only a note is given). */
  repaired: string;
  changes: RepairChange[];
  /** Set when the query looks written in another language: the corpus is English. */
  note?: string;
  /** The language detected (`fr`, `es`, `de`, `pt`, `it`, `cjk`, `cyrillic`, `arabic`), with `note`. */
  language?: string;
}

/** Thresholds of query repair. Every field has a default. */
export interface RepairOptions {
  /** A token is known when it occurs at least this often in the corpus fields. Default 2 (once may be a typo). */
  minKnownFrequency?: number;
  /** A correction, split part or join must occur at least this often. Default 3. */
  minTargetFrequency?: number;
  /** ... and at least this many times as often as the token it replaces. Default 10. */
  targetRatio?: number;
  /** Tokens with fewer letters are never corrected. Default 4. */
  minLetters?: number;
  /** Tokens of at least this many letters may be corrected by 2 edits; shorter ones by 1. Default 10. */
  twoEditsFrom?: number;
  /**
   * Frequency weight of the edit distance: a candidate's cost is `distance − w · log10(frequency)`, so among
   * candidates within the allowed edits the nearest wins unless another is far more frequent (w = 0.5: 100 times as
   * frequent buys one edit). Default 0.5.
   */
  frequencyWeight?: number;
  /**
   * Spelling, split and join need a corpus of at least this many datasets: in a handful of records most correct words
   * are unknown. Abbreviations, acronyms and the language note work on any corpus. Default 100.
   */
  minCorpusDatasets?: number;
  /** A split ("landsurface" → "land surface") needs the two words side by side this often in the corpus. Default 2. */
  minSplitPhraseCount?: number;
  /** An acronym found in the corpus needs this many occurrences with the same expansion. Default 2. */
  minAcronymCount?: number;
  /**
   * GCMD science keywords CSV; `null`: none. Default: `gcmd-sciencekeywords.csv` in the corpus's folder
   * (`corpus.origin`) or the folder above it (the sample snapshot lies inside the full one); none when neither has it.
   */
  gcmdFile?: string | null;
}

/** Resolved options (every default filled in). */
export type ResolvedRepairOptions = Required<Omit<RepairOptions, 'gcmdFile'>>;

const DEFAULTS: ResolvedRepairOptions = {
  minKnownFrequency: 2, minTargetFrequency: 3, targetRatio: 10, minLetters: 4, twoEditsFrom: 10, frequencyWeight: 0.5, minCorpusDatasets: 100, minSplitPhraseCount: 2, minAcronymCount: 2,
};

/** The corpus's vocabulary for repair. */
export interface RepairVocabulary {
  /** Lower-case token → occurrences in the datasets' fields (dictionary words count `minTargetFrequency` each). */
  frequency: Map<string, number>;
  /** Lower-case token → occurrences written in capitals (tells acronyms from words: "LST" vs "ice"). */
  capitals: Map<string, number>;
  /** Lower-case tokens of platforms, instruments, projects, short names and DAACs (never corrected). */
  identifiers: Set<string>;
  /**
   * SymSpell deletes index, sorted: `hash · 2^20 + t` for every deletion variant (hashed) of the first `PREFIX`
   * letters of correction target `targets[t]`.
   */
  deletes: Float64Array;
  /** Correction targets: known letter-only tokens, in the order the index numbers them. */
  targets: string[];
  /** Lower-case abbreviation → expansion (`repair.json`). */
  abbreviations: Map<string, string>;
  /** Lower-case acronym → its most frequent expansion in the corpus / GCMD. */
  acronyms: Map<string, { expansion: string; source: 'corpus' | 'gcmd' }>;
  /** English function words. */
  english: Set<string>;
  /** Tokens of the gazetteer's place names (not evidence that a query is English). */
  placeWords: Set<string>;
  /** Other languages' function words and diacritics. */
  languages: { code: string; name: string; words: Set<string>; diacritics: string }[];
  options: ResolvedRepairOptions;
  /**
   * How often two words stand side by side (space or hyphen between) in the datasets' long names, abstracts and
   * keywords, counting up to `max`: a scan of the corpus, run only for a split candidate (a rare event).
   */
  phraseCount: (a: string, b: string, max: number) => number;
  /** Whether spelling, split and join are on (the corpus has `minCorpusDatasets` datasets). */
  spelling: boolean;
  /** The GCMD file read, or null. */
  gcmdFile: string | null;
  /** `built` from the corpus, or read from the disk `cache` (`loadRepairVocabulary`). */
  source: 'built' | 'cache';
  /** Milliseconds the build (or the cache read) took; per stage: `corpus` (tokens, identifiers, acronyms), `dictionary`, `deletes` (or `cache`). */
  buildMs: number;
  buildStages: Record<string, number>;
}

/** SymSpell's prefix length: deletes are indexed over a target's first letters only (corrections past them stay found). */
const PREFIX = 7;

interface RepairFile {
  abbreviations: Record<string, string>;
  commonWords: string[];
  functionWords: Record<string, string[]>;
  diacritics: Record<string, string>;
  languageNames: Record<string, string>;
}

/** The repair data file beside this module. */
export function repairDataFile(): string {
  return packageFile('search', 'data', 'repair.json');
}

/** Read and check `repair.json`. */
export function readRepairData(file = repairDataFile()): RepairFile {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EoError('DATA_PARSE', `${file}: cannot read repair data (${(e as Error).message})`, { file });
  }
  const obj = (f: string): Record<string, unknown> => {
    const v = raw[f];
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new EoError('DATA_INVALID', `${file}: field "${f}" must be an object`, { file, field: f });
    return v as Record<string, unknown>;
  };
  const abbreviations = obj('abbreviations');
  for (const [k, v] of Object.entries(abbreviations))
    if (typeof v !== 'string' || v.trim() === '' || k !== k.toLowerCase()) throw new EoError('DATA_INVALID', `${file}: abbreviations["${k}"] must be a lower-case key with a non-empty expansion`, { file, field: 'abbreviations' });
  const commonWords = raw.commonWords;
  if (!Array.isArray(commonWords) || commonWords.some((w) => typeof w !== 'string' || !/^[a-z]+$/.test(w)))
    throw new EoError('DATA_INVALID', `${file}: field "commonWords" must be an array of lower-case words`, { file, field: 'commonWords' });
  const functionWords = obj('functionWords');
  if (!Array.isArray(functionWords.en)) throw new EoError('DATA_INVALID', `${file}: functionWords.en must be an array`, { file, field: 'functionWords' });
  for (const [k, v] of Object.entries(functionWords))
    if (!Array.isArray(v) || v.some((w) => typeof w !== 'string' || w !== w.toLowerCase())) throw new EoError('DATA_INVALID', `${file}: functionWords.${k} must be an array of lower-case words`, { file, field: 'functionWords' });
  const diacritics = obj('diacritics');
  const languageNames = obj('languageNames');
  for (const k of Object.keys(functionWords))
    if (k !== 'en' && (typeof diacritics[k] !== 'string' || typeof languageNames[k] !== 'string'))
      throw new EoError('DATA_INVALID', `${file}: language "${k}" needs diacritics and languageNames entries`, { file, field: 'diacritics' });
  return { abbreviations, commonWords, functionWords, diacritics, languageNames } as RepairFile;
}

const isWordCode = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || (c > 127 && c !== 160 && c !== 0x2019 && c !== 0x2013 && c !== 0x2014);

/**
 * Token counts by lower-case token, as an open-addressing hash table keyed by the characters in place: counting the
 * ~2 million tokens of the corpus's fields this way (no substring per occurrence, no character comparison) is what
 * keeps the build small at service start-up. A token is identified by two independent 32-bit hashes (FNV-1a and a
 * polynomial one) and its length: the odds that two of the corpus's ~25,000 tokens agree on all three are ~1e-11.
 */
class TokenCounter {
  // all set by `allocate`
  private mask!: number;
  private keys!: (string | undefined)[];
  private hashes!: Int32Array;
  private hashes2!: Int32Array;
  counts!: Float64Array;
  capitals!: Float64Array;
  size = 0;
  constructor(bits = 16) {
    this.allocate(bits);
  }

  /** Empty tables of 2^bits slots. */
  private allocate(bits: number): void {
    this.mask = (1 << bits) - 1;
    this.keys = new Array<string | undefined>(1 << bits).fill(undefined);
    this.hashes = new Int32Array(1 << bits);
    this.hashes2 = new Int32Array(1 << bits);
    this.counts = new Float64Array(1 << bits);
    this.capitals = new Float64Array(1 << bits);
    this.size = 0;
  }

  private grow(): void {
    const { keys, counts, capitals } = this;
    this.allocate(Math.log2(this.mask + 1) + 1);
    keys.forEach((k, i) => {
      if (k !== undefined) this.addKey(k, counts[i], capitals[i]);
    });
  }

  /** Add `n` occurrences (`caps` of them in capitals) of a lower-case key. */
  addKey(k: string, n: number, caps: number): void {
    let h = 0x811c9dc5 | 0;
    let h2 = 0;
    for (let i = 0; i < k.length; i++) {
      const c = k.charCodeAt(i);
      h = Math.imul(h ^ c, 0x01000193);
      h2 = (Math.imul(h2, 31) + c) | 0;
    }
    this.count(h, h2, k.length, k, 0, n, caps);
  }

  /** Count one token by its hashes and length; `text.slice(start, start + len)` (lower-cased) is stored when new. */
  private count(h: number, h2: number, len: number, text: string, start: number, n: number, caps: number): void {
    const mask = this.mask;
    const keys = this.keys;
    const hashes = this.hashes;
    const hashes2 = this.hashes2;
    let slot = h & mask;
    for (;;) {
      const k = keys[slot];
      if (k === undefined) break;
      if (hashes[slot] === h && hashes2[slot] === h2 && k.length === len) {
        this.counts[slot] += n;
        this.capitals[slot] += caps;
        return;
      }
      slot = (slot + 1) & mask;
    }
    keys[slot] = text.slice(start, start + len).toLowerCase();
    hashes[slot] = h;
    hashes2[slot] = h2;
    this.counts[slot] = n;
    this.capitals[slot] = caps;
    if (++this.size * 2 > mask) this.grow();
  }

  /** Count the tokens of `s` (runs of letters and digits), lower-cased; all-capital ones of 2+ letters as capitals too. */
  addText(s: string, weight = 1): void {
    let start = -1;
    let upper = 0;
    let lower = 0;
    let ascii = true;
    let h = 0;
    let h2 = 0;
    const n = s.length;
    for (let i = 0; i <= n; i++) {
      let c = i < n ? s.charCodeAt(i) : 32;
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || (c > 127 && isWordCode(c))) {
        if (start < 0) {
          start = i;
          upper = lower = 0;
          ascii = true;
          h = 0x811c9dc5 | 0;
          h2 = 0;
        }
        if (c <= 90 && c >= 65) {
          upper++;
          c += 32;
        } else if (c >= 97) {
          if (c <= 122) lower++;
          else ascii = false;
        }
        h = Math.imul(h ^ c, 0x01000193);
        h2 = (Math.imul(h2, 31) + c) | 0;
      } else if (start >= 0) {
        const caps = upper >= 2 && lower === 0 ? weight : 0;
        // non-ASCII: lower-casing may change the length or need the locale-free rules, so hash the lowered string
        if (!ascii) this.addKey(s.slice(start, i).toLowerCase(), weight, caps);
        else this.count(h, h2, i - start, s, start, weight, caps);
        start = -1;
      }
    }
  }

  /** Every key with its count and capitals. */
  *entries(): IterableIterator<[string, number, number]> {
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i] !== undefined) yield [this.keys[i]!, this.counts[i], this.capitals[i]];
  }
}

/** Lower-case tokens of an identifier field ("NOAA-20" → noaa-20, noaa, 20). */
function identifierTokens(s: string): string[] {
  const whole = s.toLowerCase().trim();
  return [whole, ...whole.split(/[^a-z0-9\u00c0-\uffff]+/)].filter((t) => t !== '');
}

/** Words skipped inside an acronym's expansion ("Moderate Resolution Imaging Spectroradiometer", "Top of Atmosphere"). */
const ACRONYM_GLUE = new Set(['of', 'and', 'the', 'for', 'in', 'on', 'at', 'to', 'a', 'an', '&', 'from', 'by', 'with']);

/**
 * Acronyms defined in a text: "Expansion Words (ACR)" where the acronym's letters are the initials of the words
 * before it (glue words such as "of" and "and" may sit between). Calls `add(acronym, expansion)`, both lower case.
 */
export function findAcronymDefinitions(text: string, add: (acronym: string, expansion: string) => void): void {
  let from = 0;
  for (;;) {
    const open = text.indexOf('(', from);
    if (open < 0) return;
    from = open + 1;
    const first = text.charCodeAt(open + 1);
    if (!((first >= 65 && first <= 90) || (first >= 97 && first <= 122))) continue; // "(1998)", "( see"
    const close = text.indexOf(')', open);
    if (close < 0 || close - open > 12 || close - open < 3) continue;
    const acr = text.slice(open + 1, close);
    if (!/^[A-Za-z][A-Za-z-]{1,9}$/.test(acr)) continue;
    const alpha = acr.replace(/-/g, '');
    const uppers = alpha.replace(/[^A-Z]/g, '');
    if (uppers.length < 2) continue;
    const letters = (uppers.length === alpha.length ? alpha : uppers).toLowerCase();
    // walk back over the words before "(": each must start with the acronym's next letter (from its end) or be glue
    let li = letters.length - 1;
    let end = open;
    const span: string[] = [];
    while (li >= 0 && span.length < letters.length + 4) {
      while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '-' || text[end - 1] === '/')) end--;
      let b = end;
      while (b > 0 && /[A-Za-z]/.test(text[b - 1])) b--;
      if (b === end || (b > 0 && !/[\s\-/]/.test(text[b - 1]))) break; // not a plain word (digits, punctuation)
      const w = text.slice(b, end).toLowerCase();
      if (w[0] === letters[li]) {
        span.unshift(w);
        li--;
      } else if (ACRONYM_GLUE.has(w) && span.length > 0) span.unshift(w);
      else break;
      end = b;
    }
    if (li < 0 && span.length >= 2) add(letters, span.join(' '));
  }
}

/**
 * FNV-1a hashes of the strings made from `w` by deleting up to `d` characters (`w` itself included), computed over
 * the kept characters without building the strings. Equal strings give equal hashes; a collision only adds a
 * candidate, which the edit distance then rejects.
 */
function deleteHashes(w: string, d: number, out: number[]): number[] {
  const n = w.length;
  const hashSkipping = (i: number, j: number) => {
    let h = 0x811c9dc5 | 0;
    for (let k = 0; k < n; k++) if (k !== i && k !== j) h = Math.imul(h ^ w.charCodeAt(k), 0x01000193);
    return h >>> 0;
  };
  out.push(hashSkipping(-1, -1));
  if (d >= 1 && n > 1) for (let i = 0; i < n; i++) out.push(hashSkipping(i, -1));
  if (d >= 2 && n > 2) for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) out.push(hashSkipping(i, j));
  return out;
}

/** 2^20: a deletes-index entry is `hash · 2^20 + target`, exact in a double (32 + 20 bits). */
const TARGET_SLOTS = 1 << 20;

/** Optimal-string-alignment Damerau–Levenshtein distance, or `max + 1` once it must exceed `max`. */
export function damerauLevenshtein(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2] + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n];
}

/**
 * Build the repair vocabulary of a corpus (see the module comment). Deterministic; `buildMs` records its cost.
 * Prefer `loadRepairVocabulary`, which builds it once per corpus object.
 */
export function buildRepairVocabulary(corpus: Pick<Corpus, 'datasets' | 'origin'>, opts: RepairOptions = {}): RepairVocabulary {
  const t0 = performance.now();
  const o: ResolvedRepairOptions = { ...DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([k, v]) => v !== undefined && k !== 'gcmdFile')) };
  for (const [k, v] of Object.entries(o))
    if (!(typeof v === 'number' && v >= 0 && Number.isFinite(v))) throw new EoError('INVALID_ARGUMENT', `repair option ${k} must be a number >= 0 (got ${v})`, { field: k });
  const data = readRepairData();
  const counter = new TokenCounter();
  const identifiers = new Set<string>();
  const acronymCounts = new Map<string, Map<string, number>>();
  const addAcronym = (weight: number) => (acr: string, exp: string) => {
    let m = acronymCounts.get(acr);
    if (!m) acronymCounts.set(acr, (m = new Map()));
    m.set(exp, (m.get(exp) ?? 0) + weight);
  };
  const fromCorpus = addAcronym(1);
  for (const d of corpus.datasets) {
    counter.addText(d.longName);
    counter.addText(d.abstract);
    for (const k of d.keywords) counter.addText(k);
    for (const field of [d.platforms, d.instruments, d.projects])
      for (const v of field) {
        counter.addText(v);
        for (const t of identifierTokens(v)) identifiers.add(t);
      }
    if (d.shortName) {
      counter.addText(d.shortName);
      identifiers.add(d.shortName.toLowerCase()); // whole: its parts are words ("PRECIP_AMSRE_AQUA")
    }
    for (const t of identifierTokens(d.daac)) identifiers.add(t);
    if (d.abstract.includes('(')) findAcronymDefinitions(d.abstract, fromCorpus);
    if (d.longName.includes('(')) findAcronymDefinitions(d.longName, fromCorpus);
  }
  const t1 = performance.now();
  // dictionary words (GCMD, common English words, vocabulary.json, place names) are known and may be targets
  // whatever the corpus says
  const dictionary = new TokenCounter(12);
  const gcmdFile = opts.gcmdFile === undefined ? corpusGcmdFile(corpus) : opts.gcmdFile;
  if (gcmdFile) {
    const fromGcmd = addAcronym(o.minAcronymCount); // curated: one definition is enough
    for (const k of loadGcmdKeywords(gcmdFile)) {
      dictionary.addText(k.name);
      if (k.name.includes('(')) findAcronymDefinitions(k.name, (a, e) => fromGcmd(a, `gcmd:${e}`));
    }
  }
  for (const w of data.commonWords) dictionary.addKey(w, 1, 0);
  for (const g of readVocabularyGroups()) {
    for (const n of [...g.names, ...g.formulas]) dictionary.addText(n);
    for (const ins of g.instruments) for (const t of identifierTokens(ins)) identifiers.add(t);
  }
  const placeWords = new Set<string>();
  for (const p of loadGazetteer().places)
    for (const n of p.names) {
      dictionary.addText(n);
      for (const t of n.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (t) placeWords.add(t);
    }
  const frequency = new Map<string, number>();
  const capitals = new Map<string, number>();
  for (const [w, n, caps] of counter.entries()) {
    frequency.set(w, n);
    if (caps > 0) capitals.set(w, caps);
  }
  for (const [w] of dictionary.entries()) frequency.set(w, (frequency.get(w) ?? 0) + o.minTargetFrequency);
  const english = new Set(data.functionWords.en);
  for (const w of english) if (!frequency.has(w)) frequency.set(w, o.minTargetFrequency);
  const t2 = performance.now();
  // the deletes index over correction targets
  const targets: string[] = [];
  let entries = new Float64Array(1 << 18);
  let used = 0;
  const hashes: number[] = [];
  for (const [w, f] of frequency) {
    if (f < o.minTargetFrequency || w.length < o.minLetters - 1 || !/^[a-z]+$/.test(w) || english.has(w)) continue;
    if (targets.length === TARGET_SLOTS) break;
    hashes.length = 0;
    // a query token of twoEditsFrom+ letters may be 2 edits from a target 2 letters shorter
    deleteHashes(w.slice(0, PREFIX), w.length >= o.twoEditsFrom - 2 ? 2 : 1, hashes);
    if (used + hashes.length > entries.length) {
      const bigger = new Float64Array(entries.length * 2);
      bigger.set(entries);
      entries = bigger;
    }
    for (const h of hashes) entries[used++] = h * TARGET_SLOTS + targets.length;
    targets.push(w);
  }
  const deletes = entries.slice(0, used).sort();
  const t3 = performance.now();
  const acronyms = new Map<string, { expansion: string; source: 'corpus' | 'gcmd' }>();
  for (const [acr, m] of [...acronymCounts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const best = [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    if (best[1] < o.minAcronymCount || identifiers.has(acr)) continue;
    const gcmd = best[0].startsWith('gcmd:');
    acronyms.set(acr, { expansion: gcmd ? best[0].slice(5) : best[0], source: gcmd ? 'gcmd' : 'corpus' });
  }
  const languages = Object.keys(data.functionWords)
    .filter((k) => k !== 'en')
    .map((code) => ({ code, name: data.languageNames[code], words: new Set(data.functionWords[code]), diacritics: data.diacritics[code] }));
  return {
    frequency, capitals, identifiers, deletes, targets, abbreviations: new Map(Object.entries(data.abbreviations)), acronyms, english, placeWords, languages,
    phraseCount: corpusPhraseCounter(corpus), spelling: corpus.datasets.length >= o.minCorpusDatasets, options: o, gcmdFile, source: 'built', buildMs: performance.now() - t0, buildStages: { corpus: t1 - t0, dictionary: t2 - t1, deletes: t3 - t2 },
  };
}

function corpusPhraseCounter(corpus: Pick<Corpus, 'datasets'>): (a: string, b: string, max: number) => number {
  return (a, b, max) => {
    // a and b are letters only (split parts), so they need no escaping
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${a}[\\s-]+${b}(?![\\p{L}\\p{N}])`, 'giu');
    let n = 0;
    for (const d of corpus.datasets) {
      for (const text of [d.longName, d.abstract, ...d.keywords]) {
        re.lastIndex = 0;
        while (re.exec(text)) if (++n >= max) return n;
      }
    }
    return n;
  };
}

const cache = new WeakMap<object, RepairVocabulary>();

/** Bump when the cached fields or their meaning change: older cache files are then rebuilt. */
const CACHE_FORMAT = 1;

/** What the cache files hold besides the deletes index (`.bin`, the Float64Array's bytes). */
interface RepairCacheMeta {
  key: string;
  words: string[];
  counts: number[];
  capitals: [string, number][];
  identifiers: string[];
  placeWords: string[];
  targets: string[];
  acronyms: [string, string, 'corpus' | 'gcmd'][];
  gcmdFile: string | null;
  deletes: number;
}

/**
 * The key of a corpus's cached vocabulary: the corpus (its hash), every input file's content (repair.json,
 * vocabulary.json, the GCMD file), the gazetteer's names and the default options, so a change to any rebuilds it.
 */
function repairCacheKey(corpus: Pick<Corpus, 'hash' | 'origin'>): string {
  const gcmd = corpusGcmdFile(corpus);
  const read = (f: string) => (fs.existsSync(f) ? shortHash(fs.readFileSync(f)) : 'absent');
  const places = shortHash(loadGazetteer().places.map((p) => p.names.join('|')).join('\n'));
  return shortHash(JSON.stringify([CACHE_FORMAT, corpus.hash, read(repairDataFile()), read(vocabularyFile()), gcmd ? read(gcmd) : null, places, DEFAULTS]), 16);
}

/** Options of `loadRepairVocabulary`. */
export interface LoadRepairVocabularyOptions {
  /**
   * Folder of the disk cache (one `.json` + `.bin` pair per corpus and inputs, written atomically); `null`: no disk
   * cache. Default `checkpoints/repair/`: a one-shot `eo search` then reads the vocabulary instead of building it.
   */
  cacheDir?: string | null;
}

function readRepairCache(corpus: Corpus, metaFile: string, binFile: string, key: string): RepairVocabulary | null {
  const t0 = performance.now();
  if (!fs.existsSync(metaFile) || !fs.existsSync(binFile)) return null;
  let meta: RepairCacheMeta;
  try {
    meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
  } catch {
    return null; // unreadable: rebuilt and rewritten by the caller
  }
  const buf = fs.readFileSync(binFile);
  if (meta.key !== key || buf.length !== 8 * meta.deletes || meta.words.length !== meta.counts.length) return null;
  const deletes = new Float64Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const data = readRepairData();
  const english = new Set(data.functionWords.en);
  const o = DEFAULTS;
  return {
    frequency: new Map(meta.words.map((w, i) => [w, meta.counts[i]])), capitals: new Map(meta.capitals), identifiers: new Set(meta.identifiers),
    deletes, targets: meta.targets, abbreviations: new Map(Object.entries(data.abbreviations)),
    acronyms: new Map(meta.acronyms.map(([a, expansion, source]) => [a, { expansion, source }])), english, placeWords: new Set(meta.placeWords),
    languages: Object.keys(data.functionWords).filter((k) => k !== 'en')
      .map((code) => ({ code, name: data.languageNames[code], words: new Set(data.functionWords[code]), diacritics: data.diacritics[code] })),
    phraseCount: corpusPhraseCounter(corpus), spelling: corpus.datasets.length >= o.minCorpusDatasets, options: o, gcmdFile: meta.gcmdFile,
    source: 'cache', buildMs: performance.now() - t0, buildStages: { cache: performance.now() - t0 },
  };
}

function writeRepairCache(v: RepairVocabulary, metaFile: string, binFile: string, key: string): void {
  const meta: RepairCacheMeta = {
    key, words: [...v.frequency.keys()], counts: [...v.frequency.values()], capitals: [...v.capitals], identifiers: [...v.identifiers],
    placeWords: [...v.placeWords], targets: v.targets, acronyms: [...v.acronyms].map(([a, x]) => [a, x.expansion, x.source]), gcmdFile: v.gcmdFile,
    deletes: v.deletes.length,
  };
  // the index first: a meta file is only ever beside its own index
  writeFileAtomic(binFile, new Uint8Array(v.deletes.buffer, v.deletes.byteOffset, v.deletes.byteLength));
  writeFileAtomic(metaFile, JSON.stringify(meta));
}

/**
 * The repair vocabulary of a corpus with the default options: kept in memory per corpus object; across processes
 * read from the disk cache (`cacheDir`), or built (`buildRepairVocabulary`) and written there on the first call.
 */
export function loadRepairVocabulary(corpus: Corpus, opts: LoadRepairVocabularyOptions = {}): RepairVocabulary {
  let v = cache.get(corpus);
  if (v) return v;
  const dir = opts.cacheDir === undefined ? checkpointsDir('repair') : opts.cacheDir;
  if (dir === null) v = buildRepairVocabulary(corpus);
  else {
    const key = repairCacheKey(corpus);
    const metaFile = path.join(dir, `repair-${key}.json`);
    const binFile = path.join(dir, `repair-${key}.bin`);
    v = readRepairCache(corpus, metaFile, binFile, key) ?? undefined;
    if (!v) {
      v = buildRepairVocabulary(corpus);
      writeRepairCache(v, metaFile, binFile, key);
    }
  }
  cache.set(corpus, v);
  return v;
}

/** Suffixes whose removal from an unknown token may give a known word ("retrievals" → "retrieval"). */
const SUFFIXES = ['s', 'es', 'ies', 'ed', 'd', 'ing', 'ly', 'al', 'ally', 'er', 'ers', 'ic', 'ical', 'ity', 'ities', 'ion', 'ions', 'ation', 'ations', 'ment', 'ments', 'ness', 'ous', 'ive', 'ize', 'ized', 'izing', 'ise', 'ised', 'ising', 'an', 'ian', 'n'];

function known(v: RepairVocabulary, w: string): boolean {
  const k = v.options.minKnownFrequency;
  if ((v.frequency.get(w) ?? 0) >= k) return true;
  for (const s of SUFFIXES) {
    if (!w.endsWith(s) || w.length - s.length < 3) continue;
    const stem = w.slice(0, w.length - s.length);
    // a silent e goes before a vowel suffix only ("profiling" → profile, but "profils" is no inflection of it)
    const e = /^[aeiou]/.test(s) && (v.frequency.get(stem + 'e') ?? 0) >= k;
    if ((v.frequency.get(stem) ?? 0) >= k || e || (s === 'ies' && (v.frequency.get(stem + 'y') ?? 0) >= k)) return true;
  }
  return false;
}

const singular = (w: string) => w.replace(/(?:es|s)$/, '');

/** The best correction of an unknown lower-case token, or null (see `RepairOptions.frequencyWeight`). */
export function correctToken(v: RepairVocabulary, w: string): { to: string; distance: number } | null {
  const o = v.options;
  const maxD = w.length >= o.twoEditsFrom ? 2 : 1;
  const minF = Math.max(o.minTargetFrequency, o.targetRatio * Math.max(1, v.frequency.get(w) ?? 0));
  const seen = new Set<string>();
  let best: { to: string; distance: number; cost: number; f: number } | null = null;
  for (const h of deleteHashes(w.slice(0, PREFIX), maxD, [])) {
    // the index's entries of hash h: [h · 2^20, (h + 1) · 2^20)
    const lo = h * TARGET_SLOTS;
    let a = 0;
    let b = v.deletes.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (v.deletes[m] < lo) a = m + 1;
      else b = m;
    }
    for (let e = a; e < v.deletes.length && v.deletes[e] < lo + TARGET_SLOTS; e++) {
      const c = v.targets[v.deletes[e] - lo];
      if (seen.has(c) || c === w) continue;
      seen.add(c);
      // the first letter is kept (it is rarely the one mistyped, and names differ from words there: Herman, German);
      // a plural's "s" is no correction (BM25's stemmer already joins them)
      if (c[0] !== w[0] || singular(c) === singular(w)) continue;
      const f = v.frequency.get(c) ?? 0;
      if (f < minF || c.length < o.minLetters) continue;
      const d = damerauLevenshtein(w, c, maxD);
      if (d > maxD) continue;
      const cost = d - o.frequencyWeight * Math.log10(f);
      if (!best || cost < best.cost || (cost === best.cost && c < best.to)) best = { to: c, distance: d, cost, f };
    }
  }
  return best ? { to: best.to, distance: best.distance } : null;
}

/** Word-forming prefixes: "multisatellite", "subseasonal", "preface" are words, not two run together. */
const PREFIXES = new Set(['multi', 'sub', 'super', 'pre', 'counter', 'trans', 'inter', 'intra', 'over', 'under', 'non', 'semi', 'micro', 'macro', 'hyper', 'ultra', 'anti', 'post', 'mid', 'out', 'down', 'back', 'geo', 'hydro', 'photo', 'thermo', 'bio', 'eco', 'meso', 'mega', 'nano', 'poly', 'mono', 'tele', 'auto', 'cross', 'self', 'extra', 'infra', 'para', 'peri', 'pro', 'cyber', 'agro']);

/**
 * "landsurface" → ["land", "surface"]: the split into two known parts (3+ letters each, the first no word-forming
 * prefix) that the corpus writes side by side (`minSplitPhraseCount` times, and `targetRatio` times as often as the
 * token itself), the first of the three whose rarer part is most frequent.
 */
export function splitToken(v: RepairVocabulary, w: string): [string, string] | null {
  const min = v.options.minTargetFrequency;
  // the two words side by side must be far commoner than the token itself ("eyewall" is a word, "landsurface" a slip)
  const need = Math.max(v.options.minSplitPhraseCount, v.options.targetRatio * (v.frequency.get(w) ?? 0));
  const candidates: { parts: [string, string]; f: number }[] = [];
  for (let i = 3; i <= w.length - 3; i++) {
    const a = w.slice(0, i);
    const b = w.slice(i);
    if (v.english.has(a) || v.english.has(b) || PREFIXES.has(a)) continue;
    const f = Math.min(v.frequency.get(a) ?? 0, v.frequency.get(b) ?? 0);
    if (f >= min) candidates.push({ parts: [a, b], f });
  }
  // the phrase check scans the corpus: only for the three splits with the most frequent parts
  candidates.sort((x, y) => y.f - x.f);
  return candidates.slice(0, 3).find((c) => v.phraseCount(c.parts[0], c.parts[1], need) >= need)?.parts ?? null;
}

/** Scripts whose text is noted as another language than English. */
const SCRIPTS: { code: string; name: string; re: RegExp }[] = [
  { code: 'cjk', name: 'Chinese, Japanese or Korean', re: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u },
  { code: 'cyrillic', name: 'a Cyrillic script', re: /\p{Script=Cyrillic}/u },
  { code: 'arabic', name: 'Arabic', re: /\p{Script=Arabic}/u },
];

/**
 * The language a query is mostly written in, when not English: more than half its letters in a CJK, Cyrillic or
 * Arabic script; or at least 2 of its words are one language's own function words (no English word) or carry its
 * diacritics, and with the function words it shares with English ("no", "do") they make at least 40% of the words
 * and outnumber the English words (function words, and corpus words of 4+ letters that are not place names). Null
 * for English, and for English with foreign names ("El Niño sea surface temperature", "Rio de Janeiro rainfall").
 */
export function detectQueryLanguage(v: RepairVocabulary, text: string): { code: string; name: string } | null {
  const ascii = !/[^\x00-\x7f]/.test(text); // the common case: no other script, no diacritics
  if (!ascii) {
    const letters = [...text].filter((c) => /\p{L}/u.test(c));
    for (const s of SCRIPTS) if (letters.filter((c) => s.re.test(c)).length > letters.length / 2) return { code: s.code, name: s.name };
  }
  const words = text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.length === 0) return null;
  const marked = (w: string, diacritics: string) => !ascii && [...w].some((c) => diacritics.includes(c));
  let best: { code: string; name: string; n: number; own: number; en: number } | null = null;
  for (const l of v.languages) {
    // own: the language's words that are no English word, and words with its diacritics; shared: "no", "do", "in"…
    const own = words.filter((w) => (l.words.has(w) && !v.english.has(w)) || marked(w, l.diacritics)).length;
    const shared = words.filter((w) => l.words.has(w) && v.english.has(w)).length;
    // English: its function words, and corpus words of 4+ letters that are no place name ("El Niño sea surface temperature")
    const en = words.filter((w) => !l.words.has(w) && (v.english.has(w) || (w.length >= 4 && !v.placeWords.has(w) && known(v, w) && !marked(w, l.diacritics)))).length;
    if (!best || own + shared > best.n) best = { code: l.code, name: l.name, n: own + shared, own, en };
  }
  if (!best || best.own < 2 || best.n < 0.4 * words.length || best.n <= best.en) return null;
  return { code: best.code, name: best.name };
}

/** A query word: its text, and the part of it repair may change (punctuation around it kept). */
interface Word {
  lead: string;
  core: string;
  tail: string;
}

function splitWords(text: string): Word[] {
  return text.split(/\s+/).filter(Boolean).map((w) => {
    const m = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/u.exec(w)!;
    return { lead: m[1], core: m[2], tail: m[3] };
  });
}

/**
 * A word spelling repair may change: letters only (no digits, no `-_./` inside), no capital after the first letter
 * (acronyms such as GCIP, names such as SmallSat), not an identifier or function word.
 */
function repairable(v: RepairVocabulary, core: string): boolean {
  if (!/^\p{L}\p{Ll}*$/u.test(core)) return false;
  const w = core.toLowerCase();
  return !v.identifiers.has(w) && !v.english.has(w);
}

/** Keep the case of the first letter ("Temprature" → "Temperature"). */
const likeCase = (orig: string, w: string) => (/^\p{Lu}/u.test(orig) && !/^\p{Lu}+$/u.test(orig) ? w[0].toUpperCase() + w.slice(1) : orig === orig.toUpperCase() && orig.length > 1 ? w.toUpperCase() : w);

/**
 * Repair one query (the text retrieval scores). Returns null when nothing changed and no note is due; otherwise the
 * repaired text, each change and its reason, and a note for a query in another language (searched as typed).
 */
export function repairQuery(text: string, v: RepairVocabulary): QueryRepair | null {
  const lang = detectQueryLanguage(v, text);
  if (lang)
    return {
      original: text, repaired: text, changes: [], language: lang.code,
      note: `This query looks written in ${lang.name}; the corpus (NASA CMR collection metadata) is in English, so few of its words can match. It was searched as typed; English words find more.`,
    };
  const o = v.options;
  const words = splitWords(text);
  const changes: RepairChange[] = [];
  const out: string[] = [];
  // the query's words, space-delimited: an expansion the query already holds is not added ("lnd island" still gets "land")
  const queryWords = ` ${text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).join(' ')} `;
  const isUnknown = (core: string) => v.spelling && repairable(v, core) && !known(v, core.toLowerCase());
  for (let i = 0; i < words.length; i++) {
    const { lead, core, tail } = words[i];
    const lw = core.toLowerCase();
    // join: "strato sphere" → "stratosphere" when one part is unknown and the whole is a known word
    const next = words[i + 1];
    if (next && tail === '' && next.lead === '' && repairable(v, core) && repairable(v, next.core) && (isUnknown(core) || isUnknown(next.core))) {
      const joined = lw + next.core.toLowerCase();
      if ((v.frequency.get(joined) ?? 0) >= o.minTargetFrequency && joined.length >= o.minLetters) {
        changes.push({ from: `${core} ${next.core}`, to: joined, reason: 'join' });
        out.push(lead + joined + next.tail);
        i++;
        continue;
      }
    }
    let word = core;
    const added: string[] = [];
    if (/^\p{L}+$/u.test(core) && !v.identifiers.has(lw)) {
      const abbr = v.abbreviations.get(lw);
      const acr = abbr ? undefined : v.acronyms.get(lw);
      // an acronym found in the corpus counts when written in capitals, or when the corpus writes it so ("lst", not "ice")
      const acronymLike = core.length >= 2 && (core === core.toUpperCase() || (core === lw && (v.capitals.get(lw) ?? 0) * 2 >= (v.frequency.get(lw) ?? 0)));
      const exp = abbr ?? (acr && acronymLike && !v.english.has(lw) ? acr.expansion : undefined);
      if (exp && !queryWords.includes(` ${exp.toLowerCase()} `)) {
        added.push(exp);
        changes.push({ from: core, to: exp, reason: abbr ? 'abbreviation' : 'acronym', source: abbr ? 'repair.json' : acr!.source });
      } else if (!exp && [...core].length >= o.minLetters && /^[a-zA-Z]+$/.test(core) && isUnknown(core)) {
        // a 1-edit correction is likelier than a split ("aersol" is not "aer sol"); a split than a 2-edit one
        const fix = correctToken(v, lw);
        const split = fix?.distance === 1 ? null : splitToken(v, lw);
        if (split) {
          word = split.join(' ');
          changes.push({ from: core, to: word, reason: 'split' });
        } else if (fix) {
          word = likeCase(core, fix.to);
          changes.push({ from: core, to: word, reason: 'spelling', distance: fix.distance });
        }
      }
    }
    out.push(lead + [word, ...added].join(' ') + tail);
  }
  if (changes.length === 0) return null;
  return { original: text, repaired: out.join(' '), changes };
}

/** One line for people: `Showing results for "…". Search instead for "…"` (with the note, when there is one). */
export function describeRepair(r: QueryRepair, original = r.original): string {
  const parts: string[] = [];
  if (r.repaired !== r.original) parts.push(`Showing results for "${r.repaired}". Search instead for "${original}"`);
  if (r.note) parts.push(r.note);
  return parts.join('. ');
}
