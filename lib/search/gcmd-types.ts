/**
 * Instrument and platform types in a query ("lidar", "scatterometer", "airborne", "geostationary"). A researcher who
 * asks for "spaceborne lidar aerosol profiles" means CALIOP, CATS or GLAS without naming them; the GCMD hierarchy
 * says which instruments and platforms are of each type (`data/gcmd-types.json`: the query words and the GCMD levels
 * they stand for). A type's *names* are the GCMD short names of that type that the corpus's records carry (CMR's
 * platforms or instruments, else the ones inferred from the title: `platformsOrInstruments`), most carried first;
 * its *carriers* are those records and the records whose title names the type itself ("LiDAR-derived biomass").
 *
 * How a named type reaches its carriers: the identifier rule (`identifiers.ts`) holds each type as an identifier of
 * kind `instrumentType` / `platformType`, so among the top candidates the carriers come before the others (×0.2 of
 * their margin by default); each result that carries a named type says why (`describeTypeMatch`). Adding the type's
 * names to the query instead (`expand.ts`, `gcmdTypeGroups`) was tried and lowered the dev queries that name a type.
 */
import * as fs from 'node:fs';
import { readGcmdInstruments, readGcmdPlatforms, type GcmdEntity } from '../data/gcmd';
import { gcmdDirFor, platformsOrInstruments } from '../data/gcmd-infer';
import type { Corpus, DatasetRecord } from '../data/types';
import { EoError } from '../errors';
import { phraseMatcher, type PhraseMatcher } from '../router/phrases';
import { packageFile } from '../util/paths';

/** One type as `gcmd-types.json` writes it. */
export interface GcmdTypeTerm {
  /** Display name, e.g. `lidar`. */
  id: string;
  /** Query phrases that name it (case-insensitive, whole words). */
  names: string[];
  /** The hierarchy it belongs to. */
  field: 'instruments' | 'platforms';
  /** GCMD hierarchy levels whose entries are of the type (any level of an entry's path). */
  gcmd: string[];
  /** GCMD short names of the type that no level gathers (upper or mixed case, as GCMD writes them). */
  members: string[];
}

/** One type on one corpus. */
export interface GcmdType {
  term: GcmdTypeTerm;
  /** The GCMD short names of the type that the corpus carries (upper case), most carriers first, ties by name. */
  names: string[];
  /** How many datasets carry each of `names`. */
  counts: number[];
  /** Corpus positions of the datasets that carry one of them or whose title names the type (ascending). */
  carriers: Int32Array;
}

/** The types of one corpus and the matcher of their query phrases. */
export interface GcmdTypeVocabulary {
  types: GcmdType[];
  matcher: PhraseMatcher<number>;
}

/** One type named in a query. */
export interface NamedGcmdType {
  /** The query text that named it. */
  text: string;
  type: GcmdType;
}

/** The type file beside this module. */
export function gcmdTypesFile(): string {
  return packageFile('search', 'data', 'gcmd-types.json');
}

/** The GCMD entities of each hierarchy, by upper-case short name. */
export interface GcmdHierarchies {
  instruments: Map<string, GcmdEntity>;
  platforms: Map<string, GcmdEntity>;
}

/**
 * Read and check `gcmd-types.json` against the GCMD hierarchies: every field present and typed, every level a level
 * of some entry of its hierarchy, every member one of its short names (errors name the file and the field).
 */
export function readGcmdTypeTerms(gcmd: GcmdHierarchies, file = gcmdTypesFile()): GcmdTypeTerm[] {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EoError('DATA_PARSE', `${file}: cannot read the GCMD types (${(e as Error).message})`, { file });
  }
  const types = (raw as { types?: unknown }).types;
  if (!Array.isArray(types)) throw new EoError('DATA_INVALID', `${file}: field "types" must be an array`, { file });
  const levels = { instruments: levelsOf(gcmd.instruments), platforms: levelsOf(gcmd.platforms) };
  return types.map((t, i) => {
    const o = t as Record<string, unknown>;
    const where = `${file}: types[${i}]`;
    const bad = (field: string, why: string) => new EoError('DATA_INVALID', `${where}.${field}: ${why}`, { file, field: `types[${i}].${field}` });
    if (typeof o.id !== 'string' || o.id.trim() === '') throw bad('id', 'must be a non-empty string');
    if (o.field !== 'instruments' && o.field !== 'platforms') throw bad('field', `must be "instruments" or "platforms" (got ${JSON.stringify(o.field)})`);
    const list = (f: string): string[] => {
      const v = o[f];
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x.trim() === '')) throw bad(f, 'must be an array of non-empty strings');
      return v as string[];
    };
    const names = list('names');
    if (names.length === 0) throw bad('names', 'must name the type at least once');
    const field = o.field;
    const gcmdLevels = list('gcmd');
    for (const l of gcmdLevels) if (!levels[field].has(l.toLowerCase())) throw bad('gcmd', `"${l}" is no level of the GCMD ${field}`);
    const members = list('members');
    for (const m of members) if (!gcmd[field].has(m.toUpperCase())) throw bad('members', `"${m}" is no GCMD ${field === 'instruments' ? 'instrument' : 'platform'} short name`);
    if (gcmdLevels.length + members.length === 0) throw bad('gcmd', 'a type needs a level or a member');
    return { id: o.id, names, field, gcmd: gcmdLevels, members };
  });
}

/** Every hierarchy level of a GCMD file (lower case). */
function levelsOf(entities: Map<string, GcmdEntity>): Set<string> {
  const out = new Set<string>();
  for (const e of entities.values()) for (const l of e.path) out.add(l.toLowerCase());
  return out;
}

/** Options of `gcmdTypeVocabulary`. */
export interface GcmdTypeOptions {
  /** A GCMD name joins its type's names when at least this many datasets carry it. Default 1. */
  minDatasets?: number;
  /** GCMD hierarchies. Default: the GCMD files of the corpus's snapshot (`gcmdDirFor` its origin); none there, no types. */
  gcmd?: GcmdHierarchies;
  /** Type file. Default `lib/search/data/gcmd-types.json`. */
  file?: string;
}

const vocabularies = new WeakMap<Corpus, GcmdTypeVocabulary>();

/** The types of a corpus (built once per corpus object with the default options; see the module comment). */
export function gcmdTypeVocabulary(corpus: Pick<Corpus, 'datasets' | 'origin'>, opts: GcmdTypeOptions = {}): GcmdTypeVocabulary {
  const defaults = opts.minDatasets === undefined && opts.gcmd === undefined && opts.file === undefined;
  const cached = defaults ? vocabularies.get(corpus as Corpus) : undefined;
  if (cached) return cached;
  const gcmdDir = opts.gcmd ? null : gcmdDirFor(corpus.origin);
  const gcmd = opts.gcmd ?? (gcmdDir ? { instruments: readGcmdInstruments(gcmdDir), platforms: readGcmdPlatforms(gcmdDir) } : null);
  const terms = gcmd ? readGcmdTypeTerms(gcmd, opts.file) : [];
  const minDatasets = opts.minDatasets ?? 1;
  // each field's names → the datasets carrying them
  const carried = { instruments: new Map<string, number[]>(), platforms: new Map<string, number[]>() };
  corpus.datasets.forEach((d, i) => {
    for (const field of ['instruments', 'platforms'] as const)
      for (const n of new Set(platformsOrInstruments(d, field).names.map((x) => x.toUpperCase()))) {
        const l = carried[field].get(n);
        if (l) l.push(i);
        else carried[field].set(n, [i]);
      }
  });
  const matcher = phraseMatcher(terms.flatMap((term, i) => term.names.map((n): [string, number] => [n, i])));
  // a title that names the type itself ("LiDAR-derived canopy height", "Airborne …") carries it
  const titled = terms.map(() => new Set<number>());
  corpus.datasets.forEach((d, i) => {
    for (const hit of matcher.find(titleOf(d))) for (const t of hit.values) titled[t].add(i);
  });
  const types: GcmdType[] = terms.map((term, k) => {
    const levels = new Set(term.gcmd.map((l) => l.toLowerCase()));
    const members = new Set(term.members.map((m) => m.toUpperCase()));
    const ofType = (key: string, e: GcmdEntity) => members.has(key) || e.path.some((l) => levels.has(l.toLowerCase()));
    const names = [...gcmd![term.field]]
      .filter(([key, e]) => ofType(key, e) && (carried[term.field].get(key)?.length ?? 0) >= minDatasets)
      .map(([key]) => key)
      .sort((a, b) => carried[term.field].get(b)!.length - carried[term.field].get(a)!.length || (a < b ? -1 : 1));
    const carriers = new Set(titled[k]);
    for (const n of names) for (const i of carried[term.field].get(n)!) carriers.add(i);
    return { term, names, counts: names.map((n) => carried[term.field].get(n)!.length), carriers: Int32Array.from(carriers).sort() };
  });
  const vocab = { types, matcher };
  if (defaults) vocabularies.set(corpus as Corpus, vocab);
  return vocab;
}

/** A record's title as the types read it: short name and long name. */
function titleOf(d: Pick<DatasetRecord, 'shortName' | 'longName'>): string {
  return `${d.shortName ?? ''} ${d.longName}`;
}

/** The types a query names (longest phrase first, never overlapping; each type once); types no record carries are not named. */
export function namedGcmdTypes(vocab: GcmdTypeVocabulary, text: string): NamedGcmdType[] {
  const out: NamedGcmdType[] = [];
  const seen = new Set<number>();
  for (const hit of vocab.matcher.find(text))
    for (const i of hit.values) {
      if (seen.has(i) || vocab.types[i].carriers.length === 0) continue;
      seen.add(i);
      out.push({ text: hit.span.text, type: vocab.types[i] });
    }
  return out;
}

/**
 * Which named types a dataset carries, in words for its explanation, e.g. `"lidar" named: its instrument GEDI is of
 * the GCMD type lidar (inferred from its title)` or `"lidar" named: its title says "LiDAR"`; null when it carries none.
 */
export function describeTypeMatch(d: DatasetRecord, named: readonly NamedGcmdType[], vocab: GcmdTypeVocabulary): string | null {
  const parts: string[] = [];
  let titleHits: ReturnType<GcmdTypeVocabulary['matcher']['find']> | undefined;
  for (const { text, type } of named) {
    const own = platformsOrInstruments(d, type.term.field);
    const carried = own.names.filter((n) => type.names.includes(n.toUpperCase()));
    const what = type.term.field === 'instruments' ? 'instrument' : 'platform';
    if (carried.length) {
      parts.push(`"${text}" named: its ${what}${carried.length > 1 ? 's' : ''} ${carried.join(', ')} ${carried.length > 1 ? 'are' : 'is'} of the GCMD type ${type.term.id}${own.inferred ? ' (inferred from its title)' : ''}`);
      continue;
    }
    titleHits ??= vocab.matcher.find(titleOf(d));
    const said = titleHits.find((h) => h.values.some((i) => vocab.types[i] === type));
    if (said) parts.push(`"${text}" named: its title says "${said.span.text}"`);
  }
  return parts.length ? parts.join('; ') : null;
}
