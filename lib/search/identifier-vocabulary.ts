/**
 * The identifier vocabulary of a corpus (`identifierVocabulary`, built once per corpus): which names are identifiers
 * (alias groups of `data/identifiers.json`, the corpus's platforms, instruments, projects, short names, title acronyms,
 * processing levels, GCMD types) and which datasets carry each. The rule that reads it for a query: identifiers.ts.
 */
import * as fs from 'node:fs';
import { platformsOrInstruments } from '../data/gcmd-infer';
import { gcmdTypeVocabulary } from './gcmd-types';
import type { Corpus, DatasetRecord } from '../data/types';
import { EoError } from '../errors';
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

export const WORD = /[\p{L}\p{N}]+/gu;

/** A requirement of the rule: the names of one class are alternatives. */
export type RequirementClass = 'platform' | 'instrument' | 'product' | 'project' | 'shortName' | 'acronym' | 'daac' | 'level' | 'instrumentType' | 'platformType';

/** Kinds whose names are alternatives of one requirement (platforms and missions are one: "GPM", "Suomi NPP"). */
export const REQUIREMENT_CLASS: Record<IdentifierKind, RequirementClass> = {
  platform: 'platform', mission: 'platform', instrument: 'instrument', product: 'product', project: 'project', shortName: 'shortName', acronym: 'acronym', daac: 'daac', level: 'level',
  instrumentType: 'instrumentType', platformType: 'platformType',
};

/** Every identifier kind. */
export const IDENTIFIER_KINDS = Object.keys(REQUIREMENT_CLASS) as IdentifierKind[];

/** The kinds of GCMD types, not names of one thing: the adaptive fusion does not count their words as identifier words. */
export const TYPE_KINDS: readonly IdentifierKind[] = ['instrumentType', 'platformType'];

/** Lower-case words of a text. */
export function words(text: string): string[] {
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
