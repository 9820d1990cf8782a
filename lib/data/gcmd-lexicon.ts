/**
 * The GCMD lexicon the inference matches (gcmd-infer.ts): GCMD's platform, instrument and project names with their
 * aliases, the platform series and their members, the mission hosts and payloads (the names as data: gcmd-names.ts),
 * the corpus's plain English words, and what was learned from CMR's records (gcmd-learn.ts) folded in (`buildGcmdLexicon`).
 */
import { readGcmdInstruments, readGcmdPlatforms, readGcmdProjects, type GcmdEntity } from './gcmd';
import { AMBIGUOUS_IN_FIELD, AMBIGUOUS_SHORT_NAMES, GCMD_ALIASES, GENERIC_LONG_NAMES, GCMD_INFERRED_FIELDS, GCMD_INSTRUMENT_HOSTS, GCMD_PLATFORM_PAYLOADS, type GcmdInferredField } from './gcmd-names';

// the names as data are this module's API too, as before the split
export {
  dmspFlightName, GCMD_ALIASES, GCMD_DMSP_INSTRUMENTS, GCMD_INFERRED_FIELDS, GCMD_INSTRUMENT_HOSTS, GCMD_INSTRUMENT_SUITES, GCMD_PLATFORM_PAYLOADS, GCMD_SLASH_NOTATION, GCMD_SLASH_PLATFORM_FORMS,
  gcmdAliasOf, type GcmdInferredField,
} from './gcmd-names';

/**
 * Which of a record's texts are searched: its title, its short name, its abstract (every name it mentions), or
 * `abstract-fallback`: the abstract read for a field only when the other texts name nothing in it — a fallback, not a
 * union, for the records whose title names no platform ("Multi-Satellite Lambertian Equivalent Reflectivity …", whose
 * abstract lists the satellites). An abstract is read without its DOIs and URLs, names are written with a capital
 * letter there, and the sentences that set the record beside other missions are left out (`abstractAsRead`).
 */
export type GcmdTextSource = 'title' | 'short-name' | 'abstract' | 'abstract-fallback';

/** The fields `abstract-fallback` reads the abstract for (chosen on the dev half; see `bench/gcmd-inference.cjs`). */
export const GCMD_ABSTRACT_FALLBACK_FIELDS: readonly GcmdInferredField[] = ['platforms', 'instruments'];

export interface GcmdLexicon {
  /**
   * Instrument → the one platform that carries it (`GCMD_INSTRUMENT_HOSTS`, then `learnInstrumentHosts`), so that a
   * record naming only its instrument ("GEDI L2A …", "AIRS-CloudSat cloud mask") gets the platform too.
   */
  hosts: Map<string, string>;
  /**
   * Instrument → every platform CMR lists with it (`learnInstrumentCarriers`): a record that names one of them other
   * than the host is not given the host ("UARS Microwave Limb Sounder (MLS)": UARS, not MLS's Aura;
   * `GcmdInferenceRules.hostsYieldToCarriers`). Empty unless learned.
   */
  carriers: Map<string, ReadonlySet<string>>;
  /** Exact token sequences (short names as written) → GCMD short names, per field. */
  exact: Record<GcmdInferredField, Map<string, Set<string>>>;
  /** Lower-cased token sequences (long names, short names with digits or separators) → GCMD short names. */
  folded: Record<GcmdInferredField, Map<string, Set<string>>>;
  /** Platform → its one instrument (`GCMD_PLATFORM_PAYLOADS`: QUIKSCAT → SEAWINDS); empty when `missionHosts` is false. */
  payloads: Map<string, string>;
  /**
   * Model and analysis platforms (GCMD category Models/Analyses) → the upper-cased words of their long names: a
   * satellite that such a name contains ("TMPA": TRMM Multi-Satellite Precipitation Analysis) is part of the name in
   * a title that names both ("TRMM (TMPA) Precipitation L3"), not the record's platform.
   */
  analysisWords: Map<string, Set<string>>;
  /** Satellites and spacecraft (GCMD's satellite, space-station and navigation categories, and the satellite series). */
  spacecraft: Set<string>;
  /** Platform → its series (`platformSeriesOf`): SENTINEL-1A → SENTINEL-1, NOAA-20 → JPSS. */
  seriesOf: Map<string, string>;
  /**
   * All-capital one-word short names that are plain words of the corpus (`plainWords`: WIND, GAP): in a text written
   * all in capitals ("OCEAN WIND SPEED …") they are words, not platforms or instruments, and do not match there as
   * those (projects keep them: on the dev half, CMR lists such word-projects as often as not).
   */
  plainCapitals: Set<string>;
  /**
   * A product family (`shortNameFamily`: GOZCARDS' `Goz…`, GSSTF, NLDAS, `MOD…`) → the names CMR lists for nearly all
   * of its records (`learnFamilyNames`), added to what the record's own text names. Empty unless learned.
   */
  families: Map<string, Partial<Record<GcmdInferredField, string[]>>>;
  /** A product family → per field, every name its records list (`learnFamilyCompany`; `GcmdInferenceRules.familiesNeedTheirCompany`). */
  familyCompany: Map<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>>;
  /**
   * A provider (`DatasetRecord.daac`) → the names its CMR records leave out although their titles name them
   * (`learnProviderUnlisted`: LARC_ASDC files CERES products under the project CERES, not the AQUA or TERRA that their
   * titles name), never inferred for that provider's records. Empty unless learned.
   */
  unlisted: Map<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>>;
  /**
   * Per field, a word of titles and short names → the names CMR lists for nearly every record whose title or short
   * name has it (`learnTitleCues`: "GNSS" → the project IGS, "DORIS" → IDS, "SLR" → ILRS), added to what the record's
   * text names (`GcmdInferenceRules.cuesNeedTheirCompany`). Empty unless learned.
   */
  cues: Partial<Record<GcmdInferredField, ReadonlyMap<string, TitleCue>>>;
  /**
   * A provider and a leading part of a short name (`shortNamePrefixKey`: `GES_DISC\tgsstf`) → the records with CMR's
   * values whose short names start with it (`learnShortNameNeighbours`): a field that a record's texts name nothing in
   * gets what its nearest named neighbours all list (`shortNameNeighbourNames`). Empty unless learned.
   */
  neighbours: Map<string, readonly GcmdNeighbourRecord[]>;
  /** Which of the inference's rules apply (`GcmdInferenceRules`; `DEFAULT_GCMD_INFERENCE_RULES`). */
  rules: GcmdInferenceRules;
  /** Longest sequence in tokens. */
  maxTokens: number;
  /** Every leading part of every key (exact and folded): a span stops growing once it is none of them. */
  prefixes: Set<string>;
}

/** What a title cue word gives (`learnTitleCues`): the names CMR lists with it, and every name its records list. */
export interface TitleCue {
  /** The names CMR lists in (nearly) every record with the word. */
  names: readonly string[];
  /** Every name any record with the word lists in the field (`GcmdInferenceRules.cuesNeedTheirCompany`). */
  listedWith: readonly string[];
}

/**
 * Rules of the inference that can be switched, to measure them (`bench/gcmd-cues-cv.cjs --study rules`). Chosen by
 * two-fold cross-validation within the dev half (precision / recall of the held-out folds, title + short name +
 * abstract fallback, with the short-name neighbours; 2026-12-06, re-run with every default of that evening):
 * platforms .957 / .871 adding a family's platforms, .967 / .871 filling with them; instruments filling .946 / .903 →
 * .953 / .885 (F1 .924 → .918, so a family keeps adding its instruments); projects unchanged.
 */
export interface GcmdInferenceRules {
  /**
   * The fields in which a product family's names (`learnFamilyNames`) fill a record whose texts name none, rather than
   * add to what they name ("GLDAS Catchment Land Surface Model …" is not the GLDAS family's Noah). Default platforms.
   */
  familyFillsOnly: readonly GcmdInferredField[];
  /**
   * The fields in which a name the texts name is dropped when the record's nearest short-name neighbours at its
   * provider list the field and none of them lists it (`GcmdLexicon.neighbours`: the records of the longest shared
   * prefix of ≥ `vetoMinPrefix` characters): GES DISC's "MODIS/Aqua … Subset along CloudSat" products name Aqua, and
   * their neighbours list the project ATDD, never AQUA. Chosen by two-fold cross-validation within the dev half
   * (`bench/gcmd-cues-cv.cjs --study veto`; held-out P / R / F1 per field, 2026-12-06): projects .887 / .799 / .841 →
   * .915 / .793 / .850 (prefix ≥ 3; ≥ 4 .912 / .794, ≥ 5 .906 / .795, ≥ 7 .902 / .797; ≥ 2 alike and ≥ 1 .917 / .788,
   * by a scratch script: `learnShortNameNeighbours` keeps prefixes from 3 on); platforms .962 / .871 / .914 → .994 /
   * .789 / .879 and instruments .946 / .903 / .924 → .957 / .840 / .894, so only projects. Default projects.
   */
  neighbourVeto: readonly GcmdInferredField[];
  /** The shortest shared prefix that makes neighbours for `neighbourVeto`, in characters. Default 3. */
  vetoMinPrefix: number;
  /**
   * In an abstract, a platform name inside a longer instrument name that matches is that instrument's ("ACE-FTS": not
   * ACE the spacecraft), as a name inside a longer one of its own field is. Not in titles and short names, where
   * GCMD's instrument long names carry their platform ("TRMM Precipitation Radar": the record's platform is TRMM).
   * `--study rules` (2026-12-06, late): platforms .962 / .871 / .914 → .967 / .871 / .917; in every text (titles too)
   * .942 → .948 with the first neighbours, and "TRMM Precipitation Radar" lost TRMM. Default true.
   */
  platformInsideInstrumentInProse: boolean;
  /**
   * A title cue adds its names only where every name the texts name in the field (less the provider's habits) was
   * listed beside the cue's word in the records it was learned from (`TitleCue.listedWith`): "ARCTAS P-3B Aircraft
   * Merge Data" names ARCTAS, which no LARC_ASDC record with "P-3B" listed, so the word's DISCOVER-AQ is not added.
   * `--study rules` (2026-12-06, night; the cues now added after the habits are taken out): projects .915 / .793 / .850
   * → .935 / .788 / .855. Dropped the same night: cues that only fill a field the texts name nothing in (.934 / .750 /
   * .832), and a cue's name that is a platform too (TERRA, AQUA) only where the record names it or a member of its
   * series (.921 / .790 alone, nothing more beside this rule). Default true.
   */
  cuesNeedTheirCompany: boolean;
  /**
   * A record that names DMSP or one of its sensors (`GCMD_DMSP_INSTRUMENTS`) and, in its title or short name, a flight
   * number ("F08", "F-13") is on that DMSP satellite (`dmspFlightName`: "DMSP 5D-2/F8"); not from an abstract, which
   * lists every flight of a merged product that CMR files under DMSP alone (held-out platforms .919 / .881 read from
   * abstracts too). `--study rules` (2026-12-06, night): platforms .969 / .871 / .917 → .969 / .878 / .921. Default true.
   */
  dmspFlightNumbers: boolean;
  /**
   * A platform heading a sensor that the text puts on another platform ("GPM SAPHIR on MT1", "GPM TMI on TRMM": the
   * GPM mission's constellation products) names the product line, not the record's platform, in any of its texts
   * (the short name "GPM_2APRPSMT1SAPHIR" too), unless it is also the platform after "on". `--study rules` (2026-12-06,
   * night): platforms .969 / .880 / .922 → .974 / .880 / .925; in the corpus GPM leaves 107 constellation products.
   * Default true.
   */
  productLineHeads: boolean;
  /**
   * An instrument's host is not added where the record names another platform CMR lists with it (`GcmdLexicon.carriers`:
   * "UARS Microwave Limb Sounder (MLS)" is UARS's MLS, not Aura's). `--study rules` (2026-12-06, night): no change on the
   * dev folds (neither learning fold has UARS with MLS); in the corpus the two UARS MLS products lose AURA, nothing
   * else changes. Default true.
   */
  hostsYieldToCarriers: boolean;
  /**
   * The fields in which a product family's names are added only where every name the texts name there was listed by
   * one of the family's records (`GcmdLexicon.familyCompany`), as a title cue's: "OCO-3 Level 2 …" (family `oco`, whose
   * records with CMR's values are OCO-2's) is not given OCO-2; a TROPESS AIRS product not the family's CrIS.
   * `--study rules` (2026-12-06, night): platforms and instruments unchanged on the dev folds, projects .855 → .853
   * (so not projects); in the corpus 41 OCO-3 records lose OCO-2 and 10 TROPESS records CrIS. Default platforms and
   * instruments.
   */
  familiesNeedTheirCompany: readonly GcmdInferredField[];
  /**
   * In a title or short name, a platform right after an instrument it does not carry (`GcmdLexicon.hosts`,
   * `GcmdLexicon.carriers`), where the text names a platform that does, is not the record's: "Sentinel-5P TROPOMI SNPP
   * cloud product" uses the S-NPP VIIRS cloud mask, and CMR lists Sentinel-5P only. Not in abstracts, whose lists lose
   * their commas to the tokens ("Nimbus-4 BUV, Nimbus-7 SBUV"). `--study rules` (2026-12-06, evening): held-out
   * platforms .976 / .880 → .982 / .880 (title + short name .986 → .992; five folds .971 → .977), the three S5P
   * products' SUOMI-NPP; in the corpus 9 such records, nothing else. Default true.
   */
  platformAfterForeignInstrument: boolean;
}

export const DEFAULT_GCMD_INFERENCE_RULES: Readonly<GcmdInferenceRules> = Object.freeze({
  familyFillsOnly: ['platforms'] as const, neighbourVeto: ['projects'] as const, vetoMinPrefix: 3, platformInsideInstrumentInProse: true, cuesNeedTheirCompany: true, dmspFlightNumbers: true, productLineHeads: true, hostsYieldToCarriers: true, familiesNeedTheirCompany: ['platforms', 'instruments'] as const, platformAfterForeignInstrument: true,
});

/** A record with CMR's values as `GcmdLexicon.neighbours` keeps it: its id and the names it lists per field. */
export interface GcmdNeighbourRecord {
  id: string;
  names: Readonly<Partial<Record<GcmdInferredField, readonly string[]>>>;
}

/** Tokens of a name or a text: split on white space and `- _ / ( ) , . ; : + ' "`. */
export function gcmdTokens(text: string): string[] {
  return text.split(/[\s\-_/(),.;:+'"\[\]]+/).filter(Boolean);
}

/** A GCMD platform series (`Series_Entity` of satellites) and its members' short names (upper case). */
export interface GcmdPlatformSeries {
  /** The series' name as a platform name: `SENTINEL-1`, `JPSS`, `NOAA POES` (upper case). */
  shortName: string;
  longName: string;
  members: string[];
}

/**
 * The satellite series of GCMD's platforms (`Series_Entity` of the "… Satellites" categories), by upper-case name, that
 * are families of like platforms: at least half of the members' names start with the series' first word (SENTINEL-1
 * → SENTINEL-1A / 1B; NOAA POES → NOAA-6 … NOAA-19; LANDSAT → LANDSAT-1 … 9), not programmes (NASA Decadal Survey,
 * Earth Explorers), of two members or more (not JERS: JERS-1). GCMD writes a series as "NAME" or "A (B)" — "Joint Polar Satellite System (JPSS)" — and the
 * shorter of A and B is its short name. A member named like the series (LANDSAT) is not listed as a member.
 */
export function gcmdPlatformSeries(platforms: Map<string, GcmdEntity>): Map<string, GcmdPlatformSeries> {
  const all = new Map<string, GcmdPlatformSeries>();
  for (const e of platforms.values()) {
    const [category, series] = e.path;
    if (!series || !/satellites/i.test(category ?? '')) continue;
    const m = /^(.*?)\s*\((.*)\)\s*$/.exec(series);
    const [a, b] = m ? [m[1].trim(), m[2].trim()] : [series.trim(), ''];
    const [short, long] = !b || a.length <= b.length ? [a, b] : [b, a];
    const key = short.toUpperCase();
    let s = all.get(key);
    if (!s) all.set(key, (s = { shortName: key, longName: long, members: [] }));
    const member = e.shortName.toUpperCase();
    if (member !== key && !s.members.includes(member)) s.members.push(member);
  }
  const out = new Map<string, GcmdPlatformSeries>();
  for (const [key, s] of [...all].sort((x, y) => (x[0] < y[0] ? -1 : 1))) {
    const first = gcmdTokens(key)[0];
    const family = s.members.filter((m) => m.startsWith(first)).length * 2 >= s.members.length;
    if (family && s.members.length >= 2) out.set(key, { ...s, members: s.members.sort() });
  }
  return out;
}

/** Each platform that belongs to a series (`gcmdPlatformSeries`) → the series' name: SENTINEL-1A → SENTINEL-1. */
export function platformSeriesOf(series: Map<string, GcmdPlatformSeries>): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of series.values()) for (const m of s.members) if (!out.has(m)) out.set(m, s.shortName);
  return out;
}

/** The lexicon of GCMD's platforms, instruments and projects (see the file's comment), with `GCMD_ALIASES`. */
export function buildGcmdLexicon(
  vocab?: { platforms: Map<string, GcmdEntity>; instruments: Map<string, GcmdEntity>; projects?: Map<string, GcmdEntity> }, dataDir?: string,
  opts: {
    /**
     * Plain words (`plainWords`): a short name that is one of them capitalised ("Soil", "Vegetation": GCMD projects) is
     * a word in a title, and matches only by its long name. Default none.
     */
    plainWords?: ReadonlySet<string>;
    /** The hosts of `GCMD_INSTRUMENT_HOSTS` (GEDI → ISS) and the payloads of `GCMD_PLATFORM_PAYLOADS` (QuikSCAT → SeaWinds). Default true. */
    missionHosts?: boolean;
    /**
     * Hosts that CMR's records show (`learnInstrumentHosts`), for the instruments `GCMD_INSTRUMENT_HOSTS` does not
     * name. Default none.
     */
    learnedHosts?: ReadonlyMap<string, string>;
    /** Every name a product family's records list (`learnFamilyCompany`). Default none. */
    learnedFamilyCompany?: ReadonlyMap<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>>;
    /** Every platform CMR lists with an instrument (`learnInstrumentCarriers`). Default none. */
    learnedCarriers?: ReadonlyMap<string, ReadonlySet<string>>;
    /** Names CMR lists for nearly every record of a product family (`learnFamilyNames`). Default none. */
    learnedFamilies?: ReadonlyMap<string, Partial<Record<GcmdInferredField, string[]>>>;
    /** Names a provider's CMR records leave out though their titles name them (`learnProviderUnlisted`). Default none. */
    learnedUnlisted?: ReadonlyMap<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>>;
    /** Words of titles after which CMR lists a name nearly always (`learnTitleCues`). Default none. */
    learnedCues?: Partial<Record<GcmdInferredField, ReadonlyMap<string, TitleCue>>>;
    /** Records by provider and short-name prefix (`learnShortNameNeighbours`). Default none. */
    learnedNeighbours?: ReadonlyMap<string, readonly GcmdNeighbourRecord[]>;
  } = {},
): GcmdLexicon {
  const v = vocab ? { projects: new Map<string, GcmdEntity>(), ...vocab } : { platforms: readGcmdPlatforms(dataDir), instruments: readGcmdInstruments(dataDir), projects: readGcmdProjects(dataDir) };
  // a series is a platform name too ("Sentinel-1" names the series, not one of SENTINEL-1A / 1B)
  const seriesByName = gcmdPlatformSeries(v.platforms);
  const lex: GcmdLexicon = {
    hosts: new Map(opts.missionHosts === false ? [] : Object.entries(GCMD_INSTRUMENT_HOSTS)), carriers: new Map(opts.learnedCarriers ?? []),
    payloads: new Map(opts.missionHosts === false ? [] : Object.entries(GCMD_PLATFORM_PAYLOADS)), seriesOf: platformSeriesOf(seriesByName),
    families: new Map(opts.learnedFamilies ?? []), familyCompany: new Map(opts.learnedFamilyCompany ?? []), unlisted: new Map(opts.learnedUnlisted ?? []), cues: { ...opts.learnedCues }, neighbours: new Map(opts.learnedNeighbours ?? []), rules: { ...DEFAULT_GCMD_INFERENCE_RULES }, analysisWords: new Map([...v.platforms.values()].filter((e) => e.path[0] === 'Models/Analyses' && e.longName).map((e) => [e.shortName.toUpperCase(), new Set(gcmdTokens(e.longName).map((t) => t.toUpperCase()))])), plainCapitals: new Set(),
    spacecraft: new Set([...[...v.platforms.values()].filter((e) => /Satellites|Spacecraft|Navigation/.test(e.path[0] ?? '')).map((e) => e.shortName.toUpperCase()), ...seriesByName.keys()]),
    exact: { platforms: new Map(), instruments: new Map(), projects: new Map() }, folded: { platforms: new Map(), instruments: new Map(), projects: new Map() }, maxTokens: 1, prefixes: new Set(),
  };
  const add = (map: Map<string, Set<string>>, tokens: string[], name: string, renames = false) => {
    if (!tokens.length) return;
    const key = tokens.join(' ');
    if (renames) map.delete(key);
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(name);
    lex.maxTokens = Math.max(lex.maxTokens, tokens.length);
    for (let n = 1; n <= tokens.length; n++) lex.prefixes.add(tokens.slice(0, n).join(' '));
  };
  const addName = (field: GcmdInferredField, written: string, name: string, renames = false) => {
    const tokens = gcmdTokens(written);
    if (tokens.length === 1 && !/\d/.test(written) && written === tokens[0]) {
      if (tokens[0].length >= 3) add(lex.exact[field], tokens, name, renames);
    } else add(lex.folded[field], tokens.map((t) => t.toLowerCase()), name, renames);
  };
  const series = [...seriesByName.values()].map((s) => ({ shortName: s.shortName, longName: s.longName, path: [] }));
  for (const field of GCMD_INFERRED_FIELDS) {
    for (const e of field === 'platforms' ? [...v.platforms.values(), ...series] : v[field].values()) {
      const name = e.shortName.toUpperCase();
      const plainWord = /^[A-Z][a-z]+$/.test(e.shortName) && !!opts.plainWords?.has(e.shortName.toLowerCase());
      if (!AMBIGUOUS_SHORT_NAMES.has(name) && !AMBIGUOUS_IN_FIELD[field]?.has(name) && !plainWord) {
        addName(field, e.shortName, name);
        // a platform's series and member written as one word, as short names and titles do ("from TIROSN", "NOAA20")
        const parts = gcmdTokens(e.shortName);
        if (field === 'platforms' && parts.length === 2 && /^[A-Za-z]{2,}$/.test(parts[0]) && /^[A-Za-z0-9]{1,3}$/.test(parts[1])) add(lex.folded[field], [parts.join('').toLowerCase()], name);
      }
      if (/^[A-Z]+$/.test(e.shortName) && opts.plainWords?.has(e.shortName.toLowerCase())) lex.plainCapitals.add(e.shortName);
      const long = gcmdTokens(e.longName);
      if (long.length >= 2 && !GENERIC_LONG_NAMES.has(name)) add(lex.folded[field], long.map((t) => t.toLowerCase()), name);
    }
  }
  // an alias that GCMD lists under its old name renames it: "JPSS-2" is NOAA-21 since launch (CMR's name now), not also
  // GCMD 9.1.5's JPSS-2, and NOAA-21 keeps JPSS-2's series
  for (const a of GCMD_ALIASES) {
    addName(a.field, a.alias, a.shortName, true);
    const series = a.field === 'platforms' ? lex.seriesOf.get(a.alias.toUpperCase()) : undefined;
    if (series && !lex.seriesOf.has(a.shortName)) lex.seriesOf.set(a.shortName, series);
  }
  for (const [instrument, platform] of opts.learnedHosts ?? []) if (!lex.hosts.has(instrument)) lex.hosts.set(instrument, platform);
  return lex;
}

/**
 * The words that texts write in lower case at least `minCount` times ("soil", "vegetation", "climate"): English words,
 * not names (`buildGcmdLexicon`'s `plainWords`). Built from the corpus's abstracts, say.
 */
export function plainWords(texts: readonly string[], minCount = 20): Set<string> {
  const counts = new Map<string, number>();
  for (const t of texts) for (const w of gcmdTokens(t)) if (/^[a-z]{3,}$/.test(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return new Set([...counts].filter(([, n]) => n >= minCount).map(([w]) => w));
}

/** A word written like an acronym in mixed case: two or more capitals and a lower-case letter ("CrIS", "CloudSat"), not "Sage". */
export function acronymLike(token: string): boolean {
  return /[a-z]/.test(token) && (token.match(/[A-Z]/g)?.length ?? 0) >= 2;
}
