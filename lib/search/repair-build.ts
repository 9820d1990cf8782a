/**
 * Building query repair's vocabulary (`buildRepairVocabulary`): the corpus's words and identifiers, the English and
 * GCMD dictionaries, acronyms and their expansions, and the deletion index of the edit-distance lookup. Its cache and
 * loader: repair-vocabulary.ts.
 */
import * as fs from 'node:fs';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { loadGazetteer } from '../router/gazetteer';
import { corpusGcmdFile, loadGcmdKeywords } from '../router/variables';
import { packageFile } from '../util/paths';
import { readVocabularyGroups } from './expand';
import type { RepairOptions, RepairVocabulary, ResolvedRepairOptions } from './repair-types';

export const DEFAULTS: ResolvedRepairOptions = {
  minKnownFrequency: 2, minTargetFrequency: 3, targetRatio: 10, minLetters: 4, twoEditsFrom: 10, frequencyWeight: 0.5, minCorpusDatasets: 100, minSplitPhraseCount: 2, minAcronymCount: 2,
};

/** SymSpell's prefix length: deletes are indexed over a target's first letters only (corrections past them stay found). */
export const PREFIX = 7;

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
export function deleteHashes(w: string, d: number, out: number[]): number[] {
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
export const TARGET_SLOTS = 1 << 20;

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
  const { counter, identifiers, acronymCounts } = corpusWords(corpus);
  const t1 = performance.now();
  const gcmdFile = opts.gcmdFile === undefined ? corpusGcmdFile(corpus) : opts.gcmdFile;
  const { dictionary, placeWords } = dictionaryWords(gcmdFile, data.commonWords, identifiers, acronymCounts, o.minAcronymCount);
  const english = new Set(data.functionWords.en);
  const { frequency, capitals } = wordFrequencies(counter, dictionary, english, o.minTargetFrequency);
  const t2 = performance.now();
  const { targets, deletes } = deletesIndex(frequency, english, o);
  const t3 = performance.now();
  const acronyms = chosenAcronyms(acronymCounts, identifiers, o.minAcronymCount);
  const languages = Object.keys(data.functionWords)
    .filter((k) => k !== 'en')
    .map((code) => ({ code, name: data.languageNames[code], words: new Set(data.functionWords[code]), diacritics: data.diacritics[code] }));
  return {
    frequency, capitals, identifiers, deletes, targets, abbreviations: new Map(Object.entries(data.abbreviations)), acronyms, english, placeWords, languages,
    phraseCount: corpusPhraseCounter(corpus), spelling: corpus.datasets.length >= o.minCorpusDatasets, options: o, gcmdFile, source: 'built', buildMs: performance.now() - t0, buildStages: { corpus: t1 - t0, dictionary: t2 - t1, deletes: t3 - t2 },
  };
}

/** Acronym → expansion → weighted count of the definitions seen ("Aerosol Optical Depth (AOD)"). */
type AcronymCounts = Map<string, Map<string, number>>;

/** A callback that counts each acronym definition it is given `weight` times. */
function countAcronyms(counts: AcronymCounts, weight: number): (acr: string, exp: string) => void {
  return (acr, exp) => {
    let m = counts.get(acr);
    if (!m) counts.set(acr, (m = new Map()));
    m.set(exp, (m.get(exp) ?? 0) + weight);
  };
}

/** The corpus's words (names, abstracts, keywords, platforms…), its identifiers and the acronyms its text defines. */
function corpusWords(corpus: Pick<Corpus, 'datasets'>): { counter: TokenCounter; identifiers: Set<string>; acronymCounts: AcronymCounts } {
  const counter = new TokenCounter();
  const identifiers = new Set<string>();
  const acronymCounts: AcronymCounts = new Map();
  const fromCorpus = countAcronyms(acronymCounts, 1);
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
  return { counter, identifiers, acronymCounts };
}

/**
 * Dictionary words (GCMD, common English words, vocabulary.json, place names): known, and targets whatever the
 * corpus says. Adds GCMD's acronym definitions (curated: one is enough) and vocabulary.json's instrument
 * identifiers to the given collections.
 */
function dictionaryWords(
  gcmdFile: string | null, commonWords: readonly string[], identifiers: Set<string>, acronymCounts: AcronymCounts, minAcronymCount: number,
): { dictionary: TokenCounter; placeWords: Set<string> } {
  const dictionary = new TokenCounter(12);
  if (gcmdFile) {
    const fromGcmd = countAcronyms(acronymCounts, minAcronymCount);
    for (const k of loadGcmdKeywords(gcmdFile)) {
      dictionary.addText(k.name);
      if (k.name.includes('(')) findAcronymDefinitions(k.name, (a, e) => fromGcmd(a, `gcmd:${e}`));
    }
  }
  for (const w of commonWords) dictionary.addKey(w, 1, 0);
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
  return { dictionary, placeWords };
}

/** Word → frequency (corpus counts, dictionary and English function words raised to the target minimum) and capitals. */
function wordFrequencies(
  counter: TokenCounter, dictionary: TokenCounter, english: ReadonlySet<string>, minTargetFrequency: number,
): { frequency: Map<string, number>; capitals: Map<string, number> } {
  const frequency = new Map<string, number>();
  const capitals = new Map<string, number>();
  for (const [w, n, caps] of counter.entries()) {
    frequency.set(w, n);
    if (caps > 0) capitals.set(w, caps);
  }
  for (const [w] of dictionary.entries()) frequency.set(w, (frequency.get(w) ?? 0) + minTargetFrequency);
  for (const w of english) if (!frequency.has(w)) frequency.set(w, minTargetFrequency);
  return { frequency, capitals };
}

/** The deletes index over the correction targets (frequent enough, letters only, not English function words). */
function deletesIndex(frequency: ReadonlyMap<string, number>, english: ReadonlySet<string>, o: ResolvedRepairOptions): { targets: string[]; deletes: Float64Array } {
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
  return { targets, deletes: entries.slice(0, used).sort() };
}

/** Each acronym's most counted expansion, when counted often enough and the acronym is not an identifier. */
function chosenAcronyms(acronymCounts: AcronymCounts, identifiers: ReadonlySet<string>, minAcronymCount: number): Map<string, { expansion: string; source: 'corpus' | 'gcmd' }> {
  const acronyms = new Map<string, { expansion: string; source: 'corpus' | 'gcmd' }>();
  for (const [acr, m] of [...acronymCounts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const best = [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    if (best[1] < minAcronymCount || identifiers.has(acr)) continue;
    const gcmd = best[0].startsWith('gcmd:');
    acronyms.set(acr, { expansion: gcmd ? best[0].slice(5) : best[0], source: gcmd ? 'gcmd' : 'corpus' });
  }
  return acronyms;
}

export function corpusPhraseCounter(corpus: Pick<Corpus, 'datasets'>): (a: string, b: string, max: number) => number {
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
