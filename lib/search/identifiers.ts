/**
 * Named identifiers are respected: a query that names a mission, platform, instrument, product short name, archive
 * (DAAC) or processing level ranks the datasets that carry it above those that do not.
 *
 * Why: the semantic half of the hybrid has learned which product families the training citations lean to, and it
 * can outvote the exact signal the user typed ("VIIRS aerosol optical thickness" → SeaWiFS Deep Blue products).
 * A user who names VIIRS has said which instrument they want; the rule keeps that promise, like the period/place
 * rule of `constraints.ts` keeps the asked period and place.
 *
 * Where identifiers come from (`identifierVocabulary`, built once per corpus):
 *   - `data/identifiers.json` beside this file: alias groups ("Suomi NPP" ↔ SNPP ↔ NPP; "Aqua" ↔ short names MYD…;
 *     "Terra" ↔ MOD…; DAAC names ↔ provider ids), each with an optional short-name pattern;
 *   - the corpus's own fields: every platform, instrument and project value, every CMR short name, and the
 *     acronyms of the titles (all-capital tokens such as MISR, CERES, GHRSST held by ≥ `minAcronymDatasets`
 *     datasets) that are not ordinary words (the lower-case word is rarer in the abstracts than the acronym),
 *     formulas of the domain vocabulary (CO2, NO2: variables, not identifiers) or listed in `notIdentifiers`;
 *   - processing levels ("L3", "level 2", "L1B").
 * A dataset carries an identifier when one of its names appears as whole words in its short name, title, platforms,
 * instruments or projects, or its inferred GCMD platforms, instruments and platform series (`DatasetRecord.inferred`:
 * "GEDI L2A" carries ISS, "SENTINEL-1A_SLC" Sentinel-1) (spaces, hyphens, dots and slashes inside a name ignored: NOAA-20 = NOAA20), when its short
 * name matches the group's pattern, or (archives) when its provider is one of the group's. Abstracts do not count:
 * they often name other instruments for comparison. A processing level is lacking only where the dataset states
 * another level; a dataset that states none is left alone (missing metadata is not evidence against it).
 */
import * as fs from 'node:fs';
import { platformsOrInstruments } from '../data/gcmd-infer';
import { gcmdTypeVocabulary } from './gcmd-types';
import type { Corpus, DatasetRecord } from '../data/types';
import { EoError } from '../errors';
import { topKIndices } from '../retrieve/topk';
import { packageFile } from '../util/paths';

/**
 * What kind of thing an identifier names. `instrumentType` / `platformType`: a GCMD type ("lidar", "airborne"), whose
 * carriers carry an instrument or platform of that type (`gcmd-types.ts`).
 */
export type IdentifierKind = 'platform' | 'instrument' | 'mission' | 'product' | 'project' | 'shortName' | 'acronym' | 'daac' | 'level' | 'instrumentType' | 'platformType';

/** One identifier (a group of equivalent names) and the datasets that carry it. */
export interface IdentifierGroup {
  /** Display name, e.g. `VIIRS`, `Suomi NPP`, `MOD11A2`, `L3`. */
  id: string;
  kind: IdentifierKind;
  /** Where it comes from: `identifiers.json`, `corpus:platforms`, `corpus:shortName`, `corpus:acronym`, `level`, `gcmd:types`. */
  source: string;
  /** Corpus positions of the datasets that carry it (ascending). */
  carriers: Int32Array;
  /** Levels only: corpus positions of the datasets that state a level (the others are left alone). */
  stated?: Int32Array;
}

/** The identifier vocabulary of one corpus: name keys → groups. */
export interface IdentifierVocabulary {
  groups: IdentifierGroup[];
  /** Normalised name key (lower-case letters and digits of the name's words, joined) → group indices. */
  byKey: Map<string, number[]>;
  /** Longest name, in words (query n-grams are tried up to this length). */
  maxWords: number;
  /** Datasets in the corpus. */
  size: number;
}

/** One identifier found in a query. */
export interface NamedIdentifier {
  /** The query text that named it. */
  text: string;
  group: IdentifierGroup;
  /**
   * Named as context, not as the wanted data: after a cue such as "before", "pre-", "instead of", "successor of",
   * "continue the" ("a record from before MODIS"). The rule leaves it alone.
   */
  context?: string;
}

export interface IdentifierRule {
  /**
   * `demote` (default): a dataset lacking a named identifier keeps `penalty` times its score, per identifier it
   * lacks; `off`: no effect.
   */
  mode?: 'demote' | 'off';
  /**
   * Score multiplier per lacking identifier, in (0, 1]. Default 0.01: under min-max-normalised fusion this puts
   * every carrier with a score above 1% of the best above every dataset that lacks it, i.e. carriers first.
   */
  penalty?: number;
  /**
   * A milder factor for some requirement classes (`platform` — platforms and missions —, `level`, …), replacing
   * `penalty` for them: a platform or a processing level is a preference next to the instrument or product, and a
   * same-family dataset of another level should stay above unrelated datasets. Default `{ platform: 0.5, level: 0.5,
   * instrumentType: 0.2, platformType: 0.2 }`: a GCMD type ("lidar", "airborne") is a strong preference, not a demand
   * (chosen on the style dev half among {1, 0.8, 0.5, 0.2, 0.1, 0.01}: `bench/default-ranking-tune.cjs --only type`).
   */
  classPenalty?: Partial<Record<RequirementClass, number>>;
  /**
   * The rule reorders the top `window` candidates only: within them, a dataset lacking a named identifier keeps
   * `penalty` of its margin over the first candidate outside the window, so the carriers come first and the others
   * follow them, still above everything beyond the window. Why not the whole corpus: a same-family dataset of another
   * instrument is still a useful answer, and pushing it below hundreds of carriers of unrelated products loses it.
   * Default 20 (two pages of the page's 10). `Infinity`: every candidate keeps `penalty` of its score.
   */
  window?: number;
  /** Identifier kinds the rule applies to. Default: all kinds. */
  kinds?: readonly IdentifierKind[];
  /** Named identifiers to leave out (their display `id` or the query text, case-insensitive). Default none. */
  ignore?: readonly string[];
}

export const DEFAULT_IDENTIFIER_RULE: Required<Omit<IdentifierRule, 'kinds' | 'ignore'>> = {
  mode: 'demote', penalty: 0.01, classPenalty: { platform: 0.5, level: 0.5, instrumentType: 0.2, platformType: 0.2 }, window: 20,
};

interface AliasFile {
  groups: { id: string; kind: IdentifierKind; names: string[]; shortName?: string; daac?: string[] }[];
  notIdentifiers: string[];
}

/** Options of `identifierVocabulary`. */
export interface IdentifierVocabularyOptions {
  /** A title acronym must be held by at least this many datasets. Default 3. */
  minAcronymDatasets?: number;
  /** Alias file. Default `lib/search/data/identifiers.json`. */
  aliasFile?: string;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** A requirement of the rule: the names of one class are alternatives. */
export type RequirementClass = 'platform' | 'instrument' | 'product' | 'project' | 'shortName' | 'acronym' | 'daac' | 'level' | 'instrumentType' | 'platformType';

/** Kinds whose names are alternatives of one requirement (platforms and missions are one: "GPM", "Suomi NPP"). */
const REQUIREMENT_CLASS: Record<IdentifierKind, RequirementClass> = {
  platform: 'platform', mission: 'platform', instrument: 'instrument', product: 'product', project: 'project', shortName: 'shortName', acronym: 'acronym', daac: 'daac', level: 'level',
  instrumentType: 'instrumentType', platformType: 'platformType',
};

/** Every identifier kind. */
export const IDENTIFIER_KINDS = Object.keys(REQUIREMENT_CLASS) as IdentifierKind[];

/** The kinds of GCMD types, not names of one thing: the adaptive fusion does not count their words as identifier words. */
export const TYPE_KINDS: readonly IdentifierKind[] = ['instrumentType', 'platformType'];

/** Lower-case words of a text. */
function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []) as string[];
}

/** The key of a name: its words joined ("NOAA-20" → `noaa20`, "Suomi NPP" → `suominpp`). */
export function identifierKey(name: string): string {
  return words(name).join('');
}

/** The identifier alias file beside this module. */
export function identifierAliasFile(): string {
  return packageFile('search', 'data', 'identifiers.json');
}

function readAliasFile(file: string): AliasFile {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EoError('DATA_PARSE', `${file}: ${(e as Error).message}`, { file });
  }
  const a = raw as AliasFile;
  if (!Array.isArray(a.groups) || !Array.isArray(a.notIdentifiers)) throw new EoError('DATA_INVALID', `${file}: needs "groups" and "notIdentifiers" arrays`, { file });
  a.groups.forEach((g, i) => {
    if (typeof g.id !== 'string' || !Array.isArray(g.names) || g.names.length === 0) throw new EoError('DATA_INVALID', `${file}: groups[${i}] needs an "id" and a non-empty "names"`, { file, field: `groups[${i}]` });
    if (g.shortName !== undefined) {
      try {
        new RegExp(g.shortName, 'i');
      } catch (e) {
        throw new EoError('DATA_INVALID', `${file}: groups[${i}] (${g.id}).shortName is not a regular expression: ${(e as Error).message}`, { file, field: `groups[${i}].shortName` });
      }
    }
  });
  return a;
}

/** Formulas of the domain vocabulary (CO2, NO2, AOD…): variables, never identifiers. */
function vocabularyFormulas(): Set<string> {
  const file = packageFile('search', 'data', 'vocabulary.json');
  const v = JSON.parse(fs.readFileSync(file, 'utf8')) as { groups: { formulas?: string[] }[] };
  return new Set(v.groups.flatMap((g) => g.formulas ?? []).map(identifierKey));
}

/** Processing level of a `processingLevel` value or a query/title token: `3`, `1B`, … (upper case), or null. */
export function normalizeLevel(s: string | null | undefined): string | null {
  if (!s) return null;
  const m = /^(?:l|level[\s_-]*)?([0-4])([a-c]|g)?$/i.exec(s.trim());
  return m ? `${m[1]}${(m[2] ?? '').toUpperCase()}` : null;
}

/** Levels a title states ("Level 3", "L2G", "Level-1B"), upper case. */
const TITLE_LEVEL = /\b(?:L|Level[\s_-]?)([0-4])([ABCG])?\b/gi;
function statedLevels(d: Pick<DatasetRecord, 'processingLevel' | 'longName' | 'shortName'>): Set<string> {
  const out = new Set<string>();
  const f = normalizeLevel(d.processingLevel);
  if (f) out.add(f);
  for (const text of [d.longName, d.shortName ?? '']) for (const m of text.matchAll(TITLE_LEVEL)) out.add(`${m[1]}${(m[2] ?? '').toUpperCase()}`);
  return out;
}

/** The fields that can carry an identifier, as one list of texts per dataset. */
function identifierTexts(d: DatasetRecord): string[] {
  // the GCMD names inferred from the title add what the title implies: the platform of a named instrument (GEDI →
  // ISS) and the series of a named platform (SENTINEL-1A → SENTINEL-1), so "Sentinel-1" meets its members
  const inferred = (['platforms', 'instruments'] as const).flatMap((f) => {
    const c = platformsOrInstruments(d, f);
    return c.inferred ? c.names : [];
  });
  return [d.shortName ?? '', d.longName, ...d.platforms, ...d.instruments, ...d.projects, ...inferred, ...(d.inferred?.series ?? [])];
}

const vocabularies = new WeakMap<Corpus, IdentifierVocabulary>();

/** Names are matched up to this many words (longer names, such as an archive's full title, are not typed). */
const MAX_NAME_WORDS = 4;

/** A candidate identifier before its carriers are known: an alias group or a name found in the corpus. */
interface IdentifierDraft { id: string; kind: IdentifierKind; source: string; keys: Set<string>; shortName?: RegExp; daac?: Set<string> }

/** The candidate identifiers of a corpus, the draft holding each name key, and the longest name in words. */
function identifierDrafts(ds: readonly DatasetRecord[], aliases: ReturnType<typeof readAliasFile>, minAcronym: number): { drafts: IdentifierDraft[]; draftOfKey: Map<string, number>; maxWords: number } {
  const stop = new Set([...aliases.notIdentifiers.map(identifierKey), ...vocabularyFormulas()]);
  // candidate names → (kind, source); alias names join their group
  const drafts: IdentifierDraft[] = [];
  const draftOfKey = new Map<string, number>();
  let maxWords = 1;
  const addDraft = (d: IdentifierDraft, names: readonly string[]) => {
    const i = drafts.length;
    for (const n of names) maxWords = Math.min(MAX_NAME_WORDS, Math.max(maxWords, words(n).length));
    drafts.push(d);
    for (const k of d.keys) if (!draftOfKey.has(k)) draftOfKey.set(k, i);
    return i;
  };
  for (const g of aliases.groups)
    addDraft({ id: g.id, kind: g.kind, source: 'identifiers.json', keys: new Set(g.names.map(identifierKey).filter((k) => k !== '')), shortName: g.shortName ? new RegExp(g.shortName, 'i') : undefined, daac: g.daac ? new Set(g.daac) : undefined }, g.names);
  const acronymDatasets = new Map<string, number>();
  for (const d of ds) for (const t of new Set(d.longName.match(/\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)*\b/g) ?? [])) if (/[A-Z]{2}/.test(t)) acronymDatasets.set(t, (acronymDatasets.get(t) ?? 0) + 1);
  const lowerWords = new Map<string, number>();
  const titleWords = new Map<string, number>();
  for (const d of ds) {
    for (const w of d.abstract.match(/\b[a-z][a-z0-9]+\b/g) ?? []) lowerWords.set(w, (lowerWords.get(w) ?? 0) + 1);
    for (const w of d.abstract.match(/\b[A-Z][a-z]+\b/g) ?? []) titleWords.set(w, (titleWords.get(w) ?? 0) + 1);
  }
  // a one-word corpus name is an identifier when it looks like one (a digit, or two capitals: MISR, ABoVE, OCO-2)
  // and is not an ordinary word written in capitals (FIRE, Vegetation, India are not)
  const looksLikeIdentifier = (name: string, holders: number) => {
    if (words(name).length > 1) return true;
    if (!/\d/.test(name) && !/[A-Z].*[A-Z]/.test(name)) return false;
    if ((lowerWords.get(name.toLowerCase()) ?? 0) >= holders) return false;
    const title = name[0] + name.slice(1).toLowerCase();
    return title === name || (titleWords.get(title) ?? 0) < holders; // INDIA (a place) is written India in the abstracts
  };
  const holders = new Map<string, number>();
  for (const d of ds) for (const v of new Set([...d.platforms, ...d.instruments, ...d.projects])) holders.set(v, (holders.get(v) ?? 0) + 1);
  const addCorpusName = (name: string, kind: IdentifierKind, source: string) => {
    const key = identifierKey(name);
    if (key.length < 2 || stop.has(key) || /^\d+$/.test(key) || normalizeLevel(key)) return;
    if (kind !== 'shortName' && !looksLikeIdentifier(name, kind === 'acronym' ? acronymDatasets.get(name) ?? 1 : holders.get(name) ?? 1)) return;
    if (draftOfKey.has(key)) return; // an alias group (or an earlier corpus name) already holds it
    addDraft({ id: name, kind, source, keys: new Set([key]) }, [name]);
  };
  for (const d of ds) {
    for (const p of d.platforms) addCorpusName(p, 'platform', 'corpus:platforms');
    for (const p of d.instruments) addCorpusName(p, 'instrument', 'corpus:instruments');
  }
  for (const d of ds) for (const p of d.projects) addCorpusName(p, 'project', 'corpus:projects');
  // title acronyms: all-capital tokens held by enough datasets that are not ordinary words of the abstracts
  for (const [t, n] of acronymDatasets) if (n >= minAcronym && !/^V\d+$|^R\d+$/.test(t)) addCorpusName(t, 'acronym', 'corpus:acronym');
  // short names: exact keys (a product the user names)
  for (const d of ds) if (d.shortName && /\d|_/.test(d.shortName)) addCorpusName(d.shortName.replace(/\.\d+$/, ''), 'shortName', 'corpus:shortName');

  return { drafts, draftOfKey, maxWords };
}

/** For each draft, the datasets (indexes, ascending) whose identifier fields name it. */
function draftCarriers(ds: readonly DatasetRecord[], drafts: readonly IdentifierDraft[], draftOfKey: Map<string, number>, maxWords: number): number[][] {
  // carriers: every n-gram of a dataset's identifier fields that is a name key
  const carrierLists: number[][] = drafts.map(() => []);
  const seen = new Int32Array(drafts.length).fill(-1);
  const mark = (gi: number, i: number) => {
    if (seen[gi] !== i) {
      seen[gi] = i;
      carrierLists[gi].push(i);
    }
  };
  const shortNameDrafts = drafts.map((d, i) => [d, i] as const).filter(([d]) => d.shortName);
  const daacDrafts = drafts.map((d, i) => [d, i] as const).filter(([d]) => d.daac);
  ds.forEach((d, i) => {
    for (const text of identifierTexts(d)) {
      const w = words(text);
      for (let s = 0; s < w.length; s++) {
        let key = '';
        for (let e = s; e < Math.min(w.length, s + maxWords); e++) {
          key += w[e];
          const gi = draftOfKey.get(key);
          if (gi !== undefined) mark(gi, i);
        }
      }
      // a short name as a whole ("MOD11A2.061" style tails are split above; the exact key too)
      const whole = identifierKey(text);
      const gi = draftOfKey.get(whole);
      if (gi !== undefined) mark(gi, i);
    }
    if (d.shortName) for (const [dr, gi] of shortNameDrafts) if (dr.shortName!.test(d.shortName)) mark(gi, i);
    for (const [dr, gi] of daacDrafts) if (dr.daac!.has(d.daac)) mark(gi, i);
  });
  return carrierLists;
}

/** Processing levels as groups: carriers state the level, `stated` every dataset that states any. */
function addLevelGroups(ds: readonly DatasetRecord[], groups: IdentifierGroup[], byKey: Map<string, number[]>): void {
  const levelCarriers = new Map<string, number[]>();
  const stated: number[] = [];
  ds.forEach((d, i) => {
    const ls = statedLevels(d);
    if (ls.size) stated.push(i);
    for (const l of ls) {
      const base = l[0];
      for (const key of new Set([l, base])) {
        const arr = levelCarriers.get(key);
        if (arr) arr.push(i);
        else levelCarriers.set(key, [i]);
      }
    }
  });
  const statedArr = Int32Array.from(stated);
  for (const [level, arr] of [...levelCarriers].sort()) {
    const idx = groups.length;
    groups.push({ id: `L${level}`, kind: 'level', source: 'level', carriers: Int32Array.from(new Set(arr)), stated: statedArr });
    byKey.set(`level:${level}`, [idx]);
  }
}

/** The corpus's GCMD types as groups keyed by their query phrases ("lidar", "synthetic aperture radar"); returns the longest phrase in words. */
function addTypeGroups(corpus: Corpus, groups: IdentifierGroup[], byKey: Map<string, number[]>): number {
  let maxWords = 1;
  for (const t of gcmdTypeVocabulary(corpus).types) {
    if (t.carriers.length === 0) continue;
    const idx = groups.length;
    groups.push({ id: t.term.id, kind: t.term.field === 'instruments' ? 'instrumentType' : 'platformType', source: 'gcmd:types', carriers: t.carriers });
    for (const name of t.term.names) {
      const key = identifierKey(name);
      maxWords = Math.min(MAX_NAME_WORDS, Math.max(maxWords, words(name).length));
      const l = byKey.get(key);
      if (l) l.push(idx);
      else byKey.set(key, [idx]);
    }
  }
  return maxWords;
}

/** The identifier vocabulary of a corpus (built once per corpus object; see the module comment). */
export function identifierVocabulary(corpus: Corpus, opts: IdentifierVocabularyOptions = {}): IdentifierVocabulary {
  const cached = opts.aliasFile === undefined && opts.minAcronymDatasets === undefined ? vocabularies.get(corpus) : undefined;
  if (cached) return cached;
  const aliases = readAliasFile(opts.aliasFile ?? identifierAliasFile());
  const ds = corpus.datasets;
  const { drafts, draftOfKey, maxWords } = identifierDrafts(ds, aliases, opts.minAcronymDatasets ?? 3);
  const carrierLists = draftCarriers(ds, drafts, draftOfKey, maxWords);
  const groups: IdentifierGroup[] = [];
  const byKey = new Map<string, number[]>();
  drafts.forEach((dr, gi) => {
    if (carrierLists[gi].length === 0) return; // named by nothing in this corpus
    const idx = groups.length;
    groups.push({ id: dr.id, kind: dr.kind, source: dr.source, carriers: Int32Array.from(carrierLists[gi]) });
    for (const k of dr.keys) {
      const l = byKey.get(k);
      if (l) l.push(idx);
      else byKey.set(k, [idx]);
    }
  });
  addLevelGroups(ds, groups, byKey);
  const typeWords = addTypeGroups(corpus, groups, byKey);
  const vocab: IdentifierVocabulary = { groups, byKey, maxWords: Math.max(maxWords, typeWords), size: ds.length };
  if (opts.aliasFile === undefined && opts.minAcronymDatasets === undefined) vocabularies.set(corpus, vocab);
  return vocab;
}

/**
 * Words after which a name is context, not the wanted data ("a pre-MODIS aerosol record", "to extend the AMSR-E
 * series", "the successor of TRMM"). Derived from three sources, never from the style benchmark's test half:
 * - the dev half's queries that name a product as context: pre, before, extend, continue (with their inflections
 *   and the temporal pair after / post / prior);
 * - the corpus (`node bench/identifier-context-cues.cjs`, all 10,073 abstracts): among the three words before a named platform,
 *   instrument, mission or project, those that precede a name the dataset does NOT carry in ≥ 90% of ≥ 9 cases
 *   (base rate 23%): successor (76 of 78), predecessor (9 of 9), continue (13 of 13), heritage (10 of 11), analogous
 *   (30 of 30), identical (38 of 39), coincident (21 of 21), discontinuation (20 of 20).
 * - the words of exclusion and substitution: instead, than ("other than", "rather than"), not, without, except, besides,
 *   unlike, replace, beyond.
 * Refuted by the corpus and dropped: "gap" precedes the dataset's own instrument (29 of 29: "gap-filled MODIS …") and
 * "other" mostly does too (151 of 168: "other MODIS products").
 */
const CONTEXT_CUES = new Set([
  'before', 'pre', 'prior', 'after', 'post', 'extend', 'extends', 'extending', 'continue', 'continues', 'continuing',
  'successor', 'predecessor', 'heritage', 'analogous', 'identical', 'coincident', 'discontinuation',
  'instead', 'than', 'not', 'without', 'except', 'besides', 'unlike', 'replace', 'replaces', 'replacing', 'beyond',
]);

const QUERY_LEVEL = /\b(?:L|level[\s_-]?)([0-4])([abcg])?\b/gi;

/**
 * The identifiers a query names: the longest name of the vocabulary starting at each word (whole words, left to
 * right, never overlapping), and processing levels ("L3", "level 2"). Each group is reported once.
 */
export function namedIdentifiers(vocab: IdentifierVocabulary, query: string): NamedIdentifier[] {
  const out: NamedIdentifier[] = [];
  const seen = new Set<IdentifierGroup>();
  const toks: { w: string; start: number; end: number }[] = [];
  for (const m of query.matchAll(WORD)) toks.push({ w: m[0].toLowerCase(), start: m.index!, end: m.index! + m[0].length });
  // a context cue among the (up to) three words before the name
  const contextOf = (start: number): string | undefined => {
    let k = toks.findIndex((t) => t.start >= start);
    if (k < 0) k = toks.length;
    for (let j = k - 1; j >= Math.max(0, k - 3); j--) if (CONTEXT_CUES.has(toks[j].w)) return toks[j].w;
    return undefined;
  };
  const push = (text: string, gi: number, start: number) => {
    const g = vocab.groups[gi];
    if (seen.has(g)) return;
    seen.add(g);
    const context = contextOf(start);
    out.push({ text, group: g, ...(context ? { context } : {}) });
  };
  for (const m of query.matchAll(QUERY_LEVEL)) {
    const key = `level:${m[1]}${(m[2] ?? '').toUpperCase()}`;
    const gs = vocab.byKey.get(key);
    if (gs) push(m[0], gs[0], m.index!);
  }
  for (let s = 0; s < toks.length; ) {
    let best: { end: number; gis: number[] } | null = null;
    let key = '';
    for (let e = s; e < Math.min(toks.length, s + vocab.maxWords); e++) {
      key += toks[e].w;
      const gis = vocab.byKey.get(key);
      if (gis) best = { end: e, gis };
    }
    if (best) {
      const text = query.slice(toks[s].start, toks[best.end].end);
      for (const gi of best.gis) push(text, gi, toks[s].start);
      s = best.end + 1;
    } else s++;
  }
  return out;
}

/** Resolve a rule against the defaults and check it. */
export function resolveIdentifierRule(rule: IdentifierRule = {}): Required<Omit<IdentifierRule, 'kinds' | 'ignore'>> & Pick<IdentifierRule, 'kinds' | 'ignore'> {
  const r = { ...DEFAULT_IDENTIFIER_RULE, ...rule };
  if (r.mode !== 'demote' && r.mode !== 'off') throw new EoError('INVALID_ARGUMENT', `identifier rule mode must be demote or off (got "${r.mode}")`);
  if (!(r.penalty > 0 && r.penalty <= 1)) throw new EoError('INVALID_ARGUMENT', `identifier rule penalty must lie in (0, 1] (got ${r.penalty})`);
  if (!(r.window >= 1)) throw new EoError('INVALID_ARGUMENT', `identifier rule window must be ≥ 1 or Infinity (got ${r.window})`);
  for (const [c, p] of Object.entries(r.classPenalty ?? {}))
    if (!(Object.values(REQUIREMENT_CLASS) as string[]).includes(c) || !(p! > 0 && p! <= 1)) throw new EoError('INVALID_ARGUMENT', `identifier rule classPenalty.${c} must be a requirement class with a factor in (0, 1] (got ${p})`);
  return r;
}

/** What the rule did for one named identifier. */
export interface IdentifierEffect {
  text: string;
  id: string;
  kind: IdentifierKind;
  /** Applied: some candidate carries it. False: no candidate does, so it changes nothing. */
  applied: boolean;
  /** Datasets among the rule's window of top candidates before the rule that lack it (moved down). */
  moved: number;
  /** Candidates (score > 0) that carry it. */
  carriers: number;
  /** Not applied because it was named as context (after this cue). */
  context?: string;
}

export interface IdentifierScores {
  scores: Float32Array;
  effects: IdentifierEffect[];
  /** Named identifiers dataset `i` lacks and was moved down for (applied ones only); empty when it was not moved. */
  lackedBy(i: number): string[];
  /** The factor applied to dataset `i`'s score (or margin, within the window); 1: not moved. */
  factorOf(i: number): number;
  /** How many top candidates the effects' `moved` counts looked at (the rule's window; 100 without one). */
  countedTop: number;
}

/** How a result's explanation words the identifier rule's move: `lacks MODIS, Terra (named in the query) (×0.01)`. */
export function describeLackedIdentifiers(lacks: readonly string[], factor: number): string {
  return `lacks ${lacks.join(', ')} (named in the query) (×${factor})`;
}

/**
 * Apply the rule to corpus-aligned scores (≥ 0: fused, single-scorer, or after the constraint rule). A named
 * identifier applies only when at least one candidate (score > 0) carries it ("unless none carries it"); within the
 * rule's window a dataset lacking applied identifiers keeps the product of their factors of its margin over the first
 * candidate beyond the window (see `IdentifierRule.window`); the `moved` counts are of the window.
 */
export function applyIdentifierRule(scores: Float32Array, named: readonly NamedIdentifier[], rule: IdentifierRule = {}): IdentifierScores {
  const r = resolveIdentifierRule(rule);
  const n = scores.length;
  const ignore = new Set((r.ignore ?? []).map((s) => s.toLowerCase()));
  const active = named.filter((x) => r.mode !== 'off' && !x.context && (!r.kinds || r.kinds.includes(x.group.kind)) && !ignore.has(x.group.id.toLowerCase()) && !ignore.has(x.text.toLowerCase()));
  const effects: IdentifierEffect[] = named.filter((x) => !active.includes(x)).map((x) => ({ text: x.text, id: x.group.id, kind: x.group.kind, applied: false, moved: 0, carriers: 0, ...(x.context ? { context: x.context } : {}) }));
  // the candidates that can move: the window (plus the first one beyond it, the floor T), or every dataset
  const windowed = Number.isFinite(r.window);
  const top = windowed ? topIndices(scores, r.window + 1) : null;
  const movable = top ? top.slice(0, r.window) : null;
  const countedTop = windowed ? r.window : 100;
  const countedCandidates = movable ?? topIndices(scores, countedTop); // the candidates the `moved` counts look at
  // one requirement per class: names of one class are alternatives ("Terra and Aqua", "AMSR-E AMSR2"), classes are
  // all wanted ("MODIS Terra": the instrument and the platform)
  const classes = new Map<RequirementClass, NamedIdentifier[]>();
  for (const x of active) {
    const c = REQUIREMENT_CLASS[x.group.kind];
    const l = classes.get(c);
    if (l) l.push(x);
    else classes.set(c, [x]);
  }
  const requirements: { lacks: (i: number) => boolean; factor: number; effect: IdentifierEffect }[] = [];
  for (const [cls, members] of classes) {
    const masks = members.map((x) => carrierMask(x.group, n));
    const stated = members.find((x) => x.group.stated);
    const statedMask = stated ? statedLevelMask(stated.group, n) : null;
    // a level is lacking only where another level is stated
    const lacks = (i: number) => !masks.some((m) => m[i] === 1) && (!statedMask || statedMask[i] === 1);
    const carrying = new Set<number>();
    for (const x of members) for (const i of x.group.carriers) if (scores[i] > 0) carrying.add(i);
    // a GCMD type is a preference among the candidates shown: it applies only when one of them carries it (a named
    // identifier applies when any candidate does: the user asked for that very thing)
    const isType = TYPE_KINDS.includes(members[0].group.kind);
    const carriers = isType && !countedCandidates.some((i) => carrying.has(i)) ? 0 : carrying.size;
    let moved = 0;
    if (carriers > 0) for (const i of countedCandidates) if (lacks(i)) moved++;
    const effect: IdentifierEffect = { text: members.map((x) => x.text).join(', '), id: members.map((x) => x.group.id).join(' or '), kind: members[0].group.kind, applied: carriers > 0, moved, carriers };
    if (effect.applied) requirements.push({ lacks, factor: r.classPenalty?.[cls] ?? r.penalty, effect });
    effects.push(effect);
  }
  const out = new Float32Array(scores);
  const factor = new Map<number, number>(); // the datasets that moved → their factor
  const factorAt = (i: number) => requirements.reduce((f, q) => (q.lacks(i) ? f * q.factor : f), 1);
  if (requirements.length) {
    if (top && movable) {
      // only the top `window` move, towards the best candidate beyond it (T), never below it
      const T = top.length > r.window ? scores[top[r.window]] : 0;
      for (const i of movable) {
        const f = factorAt(i);
        if (f === 1) continue;
        out[i] = T + (scores[i] - T) * f;
        factor.set(i, f);
      }
    } else
      for (let i = 0; i < n; i++) {
        const f = factorAt(i);
        if (f === 1) continue;
        out[i] = scores[i] * f;
        factor.set(i, f);
      }
  }
  return {
    scores: out,
    effects,
    lackedBy: (i) => (factor.has(i) ? requirements.filter((q) => q.lacks(i)).map((q) => q.effect.id) : []),
    factorOf: (i) => factor.get(i) ?? 1,
    countedTop,
  };
}

/** Whether the dataset at corpus position i carries the group (binary search of its ascending carriers). */
export function carriesGroup(g: Pick<IdentifierGroup, 'carriers'>, i: number): boolean {
  const c = g.carriers;
  let lo = 0;
  let hi = c.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c[mid] === i) return true;
    if (c[mid] < i) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** A group's carriers as a 0/1 mask over the corpus (built once per group and corpus size). */
const carrierMasks = new WeakMap<IdentifierGroup, Uint8Array>();
function carrierMask(g: IdentifierGroup, n: number): Uint8Array {
  let m = carrierMasks.get(g);
  if (!m || m.length !== n) {
    m = new Uint8Array(n);
    for (const i of g.carriers) m[i] = 1;
    carrierMasks.set(g, m);
  }
  return m;
}

/** A level group's "states some level" mask (shared by every level group of a vocabulary). */
const statedMasks = new WeakMap<Int32Array, Uint8Array>();
function statedLevelMask(g: IdentifierGroup, n: number): Uint8Array {
  let m = statedMasks.get(g.stated!);
  if (!m || m.length !== n) {
    m = new Uint8Array(n);
    for (const i of g.stated!) m[i] = 1;
    statedMasks.set(g.stated!, m);
  }
  return m;
}

/** Corpus positions of the `k` highest scores (> 0), best first (ties: lower position first). */
function topIndices(scores: Float32Array, k: number): number[] {
  return topKIndices(scores, k).filter((i) => scores[i] > 0);
}

/** One line for the answer, e.g. `VIIRS named: 4 of the top 20 without it moved down` (`window`: `countedTop`). */
export function describeIdentifierEffects(effects: readonly IdentifierEffect[], window: number): string[] {
  return effects.map((e) =>
    e.applied
      ? `${e.id} named ("${e.text}"): ${e.moved} of the top ${window} without it moved down`
      : e.context
        ? `${e.id} named after "${e.context}": taken as context, not as the data asked for`
        : TYPE_KINDS.includes(e.kind)
          ? `${e.id} named ("${e.text}"): none of the top ${window} is of that type, so it changes nothing`
          : `${e.id} named ("${e.text}"): no candidate carries it, so it changes nothing`,
  );
}
