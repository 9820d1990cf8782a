/**
 * Platforms, instruments and projects inferred from what a record says of itself (issue 38 step 1): only 987 of the
 * 10,073 records carry CMR's `platforms` / `instruments`; the rest name them in the title ("MLS/Aura Level 2 …"), the
 * short name or the abstract. A lexicon of GCMD's platform, instrument and project names (`gcmd-platforms.csv`,
 * `gcmd-instruments.csv`, `gcmd-projects.csv`) is matched against a record's text as token sequences:
 * - a short name that is a single all-capital or mixed-case word ("MLS", "Aura", "MODIS") matches only that word as
 *   written, so "Aura" the satellite is not "aura" the word and "SAGE" the instrument not "sage" the plant;
 * - a short name with a digit or a separator ("Nimbus-7", "DMSP 5D-2/F10", "SSM/I") and a long name of two or more
 *   words ("Microwave Limb Sounder") match whatever their case and separators ("nimbus 7", "NIMBUS-7");
 * - a name inside a longer one that matches does not count: "Nimbus-7" is Nimbus-7, not also NIMBUS the series;
 * - an all-capital short name also matches the word written as an acronym in mixed case ("CrIS" is CRIS);
 * - an instrument suite adds its members (`GCMD_INSTRUMENT_SUITES`: CrIMSS is CrIS and ATMS);
 * - GCMD short names that titles use for other things (SIPS, SWIR, …: `AMBIGUOUS_SHORT_NAMES`) match only by long name.
 * The result names GCMD's short names; `gcmdInferenceQuality` measures it against the records that have CMR's values.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DatasetRecord, GcmdInferred } from './types';
import { shortHash } from '../util/hash';
import { abstractSentences } from '../util/english';
import { EoError } from '../errors';
import { readGcmdInstruments, readGcmdPlatforms, readGcmdProjects, type GcmdEntity } from './gcmd';

export type GcmdInferredField = 'platforms' | 'instruments' | 'projects';
export const GCMD_INFERRED_FIELDS: readonly GcmdInferredField[] = ['platforms', 'instruments', 'projects'];

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
  /**
   * A provider (`DatasetRecord.daac`) → the names its CMR records leave out although their titles name them
   * (`learnProviderUnlisted`: LARC_ASDC files CERES products under the project CERES, not the AQUA or TERRA that their
   * titles name), never inferred for that provider's records. Empty unless learned.
   */
  unlisted: Map<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>>;
  /**
   * Per field, a word of titles and short names → the names CMR lists for nearly every record whose title or short
   * name has it (`learnTitleCues`: "GNSS" → the project IGS, "DORIS" → IDS, "SLR" → ILRS), added to what the record's
   * text names. Empty unless learned.
   */
  cues: Partial<Record<GcmdInferredField, ReadonlyMap<string, readonly string[]>>>;
  /** Longest sequence in tokens. */
  maxTokens: number;
  /** Every leading part of every key (exact and folded): a span stops growing once it is none of them. */
  prefixes: Set<string>;
}

/** Tokens of a name or a text: split on white space and `- _ / ( ) , . ; : + ' "`. */
export function gcmdTokens(text: string): string[] {
  return text.split(/[\s\-_/(),.;:+'"\[\]]+/).filter(Boolean);
}

/**
 * GCMD short names that a record's text uses for something else, never matched by their short name: generic words
 * (RADAR, AIRCRAFT), and acronyms that dataset titles use for other things — SIPS (GCMD: Smart Instrument Points;
 * titles: a Science Investigator-led Processing System), SWIR and VIS (spectral bands, not those radiometers), DOAS (a
 * retrieval method, not a spectrometer), CPR (GCMD: the Continuous Plankton Recorder; titles: CloudSat's Cloud Profiling
 * Radar, GCMD's CLOUDSAT-CPR). Their long names still match.
 */
const AMBIGUOUS_SHORT_NAMES = new Set([
  'NOT APPLICABLE', 'NOT PROVIDED', 'OTHER', 'MODELS', 'MODEL', 'COMPUTER', 'CAMERAS', 'RADAR', 'LIDAR', 'AIRCRAFT', 'SHIPS', 'BUOYS', 'SATELLITES',
  'SPACE STATIONS/CREWED SPACECRAFT', 'SIPS', 'SWIR', 'VIS', 'DOAS', 'CPR',
  // the GEOS satellite series (Geodetic Earth Orbiting Satellite); NASA titles mean GMAO's GEOS model ("GEOS-Carb", "GEOS-5")
  'GEOS',
  // cameras and a spectrometer of GCMD whose acronyms titles use for other things: GIS (GeoEye Imaging System; titles:
  // "GIS Layers"), PAN (IRS's Panchromatic Camera; titles: ETM+'s panchromatic band, peroxyacetyl nitrate), IMG (ADEOS's
  // greenhouse-gas interferometer; titles: CrIS's collocated VIIRS imagery)
  'GIS', 'PAN', 'IMG',
]);

/**
 * GCMD short names that titles use for something else in one field only, never matched by their short name there
 * (the other fields and their long names still match):
 * - instruments: ISS (the Integrated Sounding System; titles: the International Space Station) and AES (the Atmospheric
 *   Emission Spectrometer; titles: Canada's Atmospheric Environment Service) are platforms only;
 * - projects: NPP (GCMD: the Net Primary Productivity project; titles: the Suomi NPP satellite, "VIIRS/NPP", or the
 *   variable; reading it as the programme NPP-JPSS, as CMR files most VIIRS/NPP products, was tried on the dev half:
 *   recall +.011, precision no better, for the variable's "(NPP)" turned into the programme), and GNSS, NEXRAD, DMSP
 *   (GCMD projects, but a title names with them the navigation systems, the radar network, the satellites; on the dev
 *   half CMR files none of them as the project of a record whose title names them: 0 of 72, 0 of 34, 0 of 23).
 */
const AMBIGUOUS_IN_FIELD: Readonly<Partial<Record<GcmdInferredField, ReadonlySet<string>>>> = {
  instruments: new Set(['ISS', 'AES']),
  projects: new Set(['NPP', 'GNSS', 'NEXRAD', 'DMSP']),
};

/**
 * Names GCMD does not list that records use for a GCMD entity (field, alias as written or folded, GCMD short name):
 * the NPP satellite's many spellings and TOMS's Earth Probe. An alias with a digit or separator, or of two or more
 * words, matches folded; a single plain word as written.
 */
export const GCMD_ALIASES: readonly { field: GcmdInferredField; alias: string; shortName: string }[] = [
  { field: 'platforms', alias: 'NPP', shortName: 'SUOMI-NPP' },
  { field: 'platforms', alias: 'SNPP', shortName: 'SUOMI-NPP' },
  { field: 'platforms', alias: 'S-NPP', shortName: 'SUOMI-NPP' },
  { field: 'platforms', alias: 'Earth-Probe', shortName: 'EP-TOMS' },
  { field: 'platforms', alias: 'Earth Probe', shortName: 'EP-TOMS' },
  // JPSS-1 and JPSS-2 were renamed NOAA-20 and NOAA-21 at launch; GES DISC titles keep the old names
  { field: 'platforms', alias: 'JPSS-1', shortName: 'NOAA-20' },
  { field: 'platforms', alias: 'JPSS-2', shortName: 'NOAA-21' },
  // Landsat's short forms ("Landsat Surface Reflectance - L8 OLI/TIRS"); L0 … L4 are processing levels, never Landsats
  { field: 'platforms', alias: 'L5', shortName: 'LANDSAT-5' },
  { field: 'platforms', alias: 'L7', shortName: 'LANDSAT-7' },
  { field: 'platforms', alias: 'L8', shortName: 'LANDSAT-8' },
  { field: 'platforms', alias: 'L9', shortName: 'LANDSAT-9' },
  // the Aquarius mission flew on SAC-D: GCMD names the satellite Aquarius_SAC-D and the project AQUARIUS SAC-D, titles
  // say "Aquarius" (on the dev half 82 of the 86 such records list the project AQUARIUS SAC-D, none AQUARIUS alone)
  { field: 'platforms', alias: 'Aquarius', shortName: 'AQUARIUS_SAC-D' },
  { field: 'projects', alias: 'Aquarius', shortName: 'AQUARIUS SAC-D' },
  // GCMD's long name is "Variable Infiltration Capacity (VIC) Land Surface Model"; titles write "VIC Land Surface Model"
  { field: 'platforms', alias: 'VIC Land Surface Model', shortName: 'VIC-LSM' },
];

/**
 * The GCMD short name an alias of `GCMD_ALIASES` stands for in `field` (compared by letters and digits only:
 * "S-NPP", "snpp"; "L8"), or null.
 */
export function gcmdAliasOf(field: GcmdInferredField, name: string): string | null {
  const key = name.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return GCMD_ALIASES.find((a) => a.field === field && a.alias.toLowerCase().replace(/[^a-z0-9]+/g, '') === key)?.shortName ?? null;
}

/**
 * Instruments flown on one platform only (by mission design; GCMD short names on both sides), so that a record naming
 * only its instrument ("GEDI L2A Elevation and Height Metrics") gets its platform too. Instruments flown on several
 * platforms (MODIS, VIIRS, CERES, AVHRR, SeaWinds) are not here; nor are names GCMD gives two instruments (EPIC, ATLAS).
 * `learnInstrumentHosts` adds the hosts that CMR's own records show.
 */
export const GCMD_INSTRUMENT_HOSTS: Readonly<Record<string, string>> = {
  GEDI: 'ISS', ECOSTRESS: 'ISS', CATS: 'ISS',
  CALIOP: 'CALIPSO', GLAS: 'ICESAT',
  ASTER: 'TERRA', MISR: 'TERRA', MOPITT: 'TERRA',
  'AMSR-E': 'AQUA', AMSR2: 'GCOM-W1',
  TES: 'AURA', HIRDLS: 'AURA',
  TROPOMI: 'SENTINEL-5P',
  PALSAR: 'ALOS', 'PALSAR-2': 'ALOS-2',
  GMI: 'GPM', DPR: 'GPM', TMI: 'TRMM',
  SCIAMACHY: 'ENVISAT', MIPAS: 'ENVISAT', MERIS: 'ENVISAT', AATSR: 'ENVISAT',
  OSIRIS: 'ODIN', 'ACE-FTS': 'SCISAT-1/ACE', MAESTRO: 'SCISAT-1/ACE',
  MIRAS: 'SMOS', 'ETM+': 'LANDSAT-7',
};

/**
 * Platforms that carry one Earth-observing instrument (by mission design; GCMD short names), so that a record naming
 * only the platform ("QuikSCAT Level 2B Ocean Wind Vectors") gets the instrument too (SeaWinds). The reverse of
 * `GCMD_INSTRUMENT_HOSTS`, for the missions whose records name the platform rather than the instrument. ICESat-2's
 * ATLAS is left out: GCMD gives two instruments that name.
 */
export const GCMD_PLATFORM_PAYLOADS: Readonly<Record<string, string>> = {
  QUIKSCAT: 'SEAWINDS', ICESAT: 'GLAS', 'ORBVIEW-2': 'SEAWIFS', 'GCOM-W1': 'AMSR2', 'SENTINEL-5P': 'TROPOMI', SMOS: 'MIRAS', CYGNSS: 'DDMI',
  'SENTINEL-1': 'SENTINEL-1 C-SAR', 'SENTINEL-1A': 'SENTINEL-1 C-SAR', 'SENTINEL-1B': 'SENTINEL-1 C-SAR',
};

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
    /** Names CMR lists for nearly every record of a product family (`learnFamilyNames`). Default none. */
    learnedFamilies?: ReadonlyMap<string, Partial<Record<GcmdInferredField, string[]>>>;
    /** Names a provider's CMR records leave out though their titles name them (`learnProviderUnlisted`). Default none. */
    learnedUnlisted?: ReadonlyMap<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>>;
    /** Words of titles after which CMR lists a name nearly always (`learnTitleCues`). Default none. */
    learnedCues?: Partial<Record<GcmdInferredField, ReadonlyMap<string, readonly string[]>>>;
  } = {},
): GcmdLexicon {
  const v = vocab ? { projects: new Map<string, GcmdEntity>(), ...vocab } : { platforms: readGcmdPlatforms(dataDir), instruments: readGcmdInstruments(dataDir), projects: readGcmdProjects(dataDir) };
  // a series is a platform name too ("Sentinel-1" names the series, not one of SENTINEL-1A / 1B)
  const seriesByName = gcmdPlatformSeries(v.platforms);
  const lex: GcmdLexicon = {
    hosts: new Map(opts.missionHosts === false ? [] : Object.entries(GCMD_INSTRUMENT_HOSTS)),
    payloads: new Map(opts.missionHosts === false ? [] : Object.entries(GCMD_PLATFORM_PAYLOADS)), seriesOf: platformSeriesOf(seriesByName),
    families: new Map(opts.learnedFamilies ?? []), unlisted: new Map(opts.learnedUnlisted ?? []), cues: { ...opts.learnedCues }, analysisWords: new Map([...v.platforms.values()].filter((e) => e.path[0] === 'Models/Analyses' && e.longName).map((e) => [e.shortName.toUpperCase(), new Set(gcmdTokens(e.longName).map((t) => t.toUpperCase()))])), plainCapitals: new Set(), exact: { platforms: new Map(), instruments: new Map(), projects: new Map() }, folded: { platforms: new Map(), instruments: new Map(), projects: new Map() }, maxTokens: 1, prefixes: new Set(),
  };
  const add = (map: Map<string, Set<string>>, tokens: string[], name: string) => {
    if (!tokens.length) return;
    const key = tokens.join(' ');
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(name);
    lex.maxTokens = Math.max(lex.maxTokens, tokens.length);
    for (let n = 1; n <= tokens.length; n++) lex.prefixes.add(tokens.slice(0, n).join(' '));
  };
  const addName = (field: GcmdInferredField, written: string, name: string) => {
    const tokens = gcmdTokens(written);
    if (tokens.length === 1 && !/\d/.test(written) && written === tokens[0]) {
      if (tokens[0].length >= 3) add(lex.exact[field], tokens, name);
    } else add(lex.folded[field], tokens.map((t) => t.toLowerCase()), name);
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
      if (long.length >= 2) add(lex.folded[field], long.map((t) => t.toLowerCase()), name);
    }
  }
  for (const a of GCMD_ALIASES) addName(a.field, a.alias, a.shortName);
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
function acronymLike(token: string): boolean {
  return /[a-z]/.test(token) && (token.match(/[A-Z]/g)?.length ?? 0) >= 2;
}

/**
 * Instrument suites: a record of the suite is a record of its members too, named as CMR names them (the members, or
 * the suite and its members).
 */
export const GCMD_INSTRUMENT_SUITES: Readonly<Record<string, { members: readonly string[]; listedAs: 'members' | 'suite and members' }>> = {
  // Cross-track Infrared and Advanced Technology Microwave Sounders: CMR lists CrIS and ATMS, not CrIMSS
  CRIMSS: { members: ['CRIS', 'ATMS'], listedAs: 'members' },
  // TIROS Operational Vertical Sounder: CMR lists TOVS with HIRS/2 and MSU (its SSU is not in the sounding products)
  TOVS: { members: ['HIRS/2', 'MSU'], listedAs: 'suite and members' },
};

/**
 * "INSTRUMENT/PLATFORM", the DAACs' product naming ("MODIS/Aqua", "WindSat/Coriolis", "POLDER/Parasol", "TOMS/N7"):
 * after a GCMD instrument and a slash comes its platform, read in any case (a mixed-case "Coriolis" or "Parasol" does
 * not match GCMD's all-capital short name elsewhere) and by the short forms GES DISC's TOMS products use there.
 */
const SLASH_NOTATION = /([A-Za-z][A-Za-z0-9-]*)\/([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)?)/g;
const SLASH_PLATFORM_FORMS: Readonly<Record<string, string>> = { N7: 'NIMBUS-7', EP: 'EP-TOMS', M3: 'METEOR-3' };

/** A record's platforms, instruments and projects as GCMD short names (upper case, sorted), from the chosen texts. */
export function inferGcmdEntities(
  d: Pick<DatasetRecord, 'longName' | 'shortName' | 'abstract'> & { daac?: string }, lex: GcmdLexicon, sources: readonly GcmdTextSource[] = ['title', 'short-name'],
  fallbackFields: readonly GcmdInferredField[] = GCMD_ABSTRACT_FALLBACK_FIELDS,
): Omit<GcmdInferred, 'series'> {
  const texts: GcmdText[] = sources.filter((s) => s !== 'abstract-fallback').map((s) => (
    s === 'title' ? { text: d.longName, prose: false } : s === 'short-name' ? { text: d.shortName ?? '', prose: false } : { text: abstractAsRead(d.abstract), prose: true }
  ));
  const out = inferFromTexts(d, lex, texts);
  const empty = sources.includes('abstract-fallback') ? fallbackFields.filter((f) => !out[f].length) : [];
  if (empty.length) {
    // the abstract is read with the other texts, so that what they say still holds ("TRMM Ground Validation …")
    const withAbstract = inferFromTexts(d, lex, [...texts, { text: abstractAsRead(d.abstract), prose: true }]);
    for (const f of empty) out[f] = withAbstract[f];
  }
  const cued = GCMD_INFERRED_FIELDS.filter((f) => lex.cues[f]?.size);
  if (cued.length) {
    const keys = titleCueKeys(d);
    for (const f of cued) out[f] = [...new Set([...out[f], ...keys.flatMap((k) => lex.cues[f]!.get(k) ?? [])])].sort();
  }
  return withoutUnlisted(out, lex, d.daac);
}

/** Inferred names less those the record's provider leaves out (`GcmdLexicon.unlisted`); the same object when none. */
function withoutUnlisted<T extends Record<GcmdInferredField, string[]>>(inferred: T, lex: GcmdLexicon, daac: string | undefined): T {
  const unlisted = daac === undefined ? undefined : lex.unlisted.get(daac);
  if (!unlisted) return inferred;
  const out = { ...inferred };
  for (const f of GCMD_INFERRED_FIELDS) if (unlisted[f]) out[f] = out[f].filter((x) => !unlisted[f]!.has(x));
  return out;
}

/** A text to read: `prose` (an abstract) names things in capitals — "no echo, 1 (stratiform)" does not name ECHO-1. */
interface GcmdText { text: string; prose: boolean }

/**
 * An abstract as `inferGcmdEntities` reads it: DOIs and URLs taken out ("doi: 10.5067/GPM/SSMI/F11/…" names a DOI's
 * path, not GPM the platform), and the sentences that set the record beside other missions left out ("to validate
 * Terra data products", "overlap with the SORCE TIM", "a successor to the SBUV flown on the Nimbus-7 satellite").
 */
function abstractAsRead(text: string): string {
  return abstractSentences(text.replace(/\b(?:https?:\/\/|doi:\s*|10\.\d{4,9}\/)\S+/gi, ' '))
    .map((x) => x.text).filter((x) => !OTHER_MISSION_CUES.test(x)).join(' ');
}

/** Words of a sentence that names another mission than the record's own (`abstractAsRead`). */
const OTHER_MISSION_CUES = /\b(?:validat\w*|overlap\w*|successor|predecessor|compar\w*|similar to|heritage|precursor|such as)\b/i;

function inferFromTexts(d: Pick<DatasetRecord, 'shortName'>, lex: GcmdLexicon, texts: readonly GcmdText[]): Record<GcmdInferredField, string[]> {
  const out: Record<GcmdInferredField, Set<string>> = { platforms: new Set(), instruments: new Set(), projects: new Set() };
  const groundValidated = new Set<string>();
  for (const { text, prose } of texts) {
    const tokens = gcmdTokens(text);
    const folded = tokens.map((t) => t.toLowerCase());
    const allCapitals = !/[a-z]/.test(text);
    // every matching span, then only those no longer match contains: "MERRA-2" is MERRA-2, not MERRA as well
    const spans: { start: number; end: number; field: GcmdInferredField; name: string }[] = [];
    for (let i = 0; i < tokens.length; i++) {
      // an acronym the text writes in mixed case ("CrIS", "CloudSat") is GCMD's all-capital short name
      if (acronymLike(tokens[i])) {
        const upper = tokens[i].toUpperCase();
        for (const field of GCMD_INFERRED_FIELDS) for (const name of lex.exact[field].get(upper) ?? []) if (name === upper) spans.push({ start: i, end: i + 1, field, name });
      }
      let exactKey = '';
      let foldedKey = '';
      for (let n = 1; n <= lex.maxTokens && i + n <= tokens.length; n++) {
        exactKey = n === 1 ? tokens[i] : `${exactKey} ${tokens[i + n - 1]}`;
        foldedKey = n === 1 ? folded[i] : `${foldedKey} ${folded[i + n - 1]}`;
        if (!lex.prefixes.has(exactKey) && !lex.prefixes.has(foldedKey)) break;
        for (const field of GCMD_INFERRED_FIELDS) {
          for (const name of lex.exact[field].get(exactKey) ?? []) spans.push({ start: i, end: i + n, field, name });
          for (const name of lex.folded[field].get(foldedKey) ?? []) spans.push({ start: i, end: i + n, field, name });
        }
      }
    }
    for (const s of spans) {
      if (prose && !tokens.slice(s.start, s.end).some((t) => /[A-Z]/.test(t))) continue;
      // "Swath Subset along CloudSat", "along MLS": the record follows another sensor's track; that one is not its own
      if (s.start > 0 && folded[s.start - 1] === 'along') continue;
      // "TRMM Ground Validation Radar Site …", "GPM GROUND VALIDATION GCPEX …": the mission's ground validation, from
      // ground radars, gauges and aircraft of a campaign; the mission is neither its platform nor its project
      if (s.field !== 'instruments' && folded[s.end] === 'ground' && folded[s.end + 1] === 'validation') {
        groundValidated.add(s.name); // not from the short name either ("TRMM_2A54")
        continue;
      }
      // "OCEAN WIND SPEED": in a text all in capitals, a plain word is a word (WIND the spacecraft is not meant)
      if (allCapitals && s.field !== 'projects' && s.end - s.start === 1 && lex.plainCapitals.has(tokens[s.start])) continue;
      const inside = spans.some((o) => o.field === s.field && o.start <= s.start && o.end >= s.end && o.end - o.start > s.end - s.start);
      if (!inside) out[s.field].add(s.name);
    }
    for (const m of text.matchAll(SLASH_NOTATION)) {
      const platform = SLASH_PLATFORM_FORMS[m[2].toUpperCase()] ?? m[2].toUpperCase();
      if (lexiconNames(lex, 'instruments').has(m[1].toUpperCase()) && lexiconNames(lex, 'platforms').has(platform)) out.platforms.add(platform);
    }
  }
  for (const name of groundValidated) {
    out.platforms.delete(name);
    out.projects.delete(name);
  }
  // a satellite that a named analysis's long name contains is part of that name ("TRMM (TMPA)": TMPA is the TRMM
  // Multi-Satellite Precipitation Analysis)
  for (const analysis of [...out.platforms]) {
    const words = lex.analysisWords.get(analysis);
    if (words) for (const p of [...out.platforms]) if (p !== analysis && words.has(p)) out.platforms.delete(p);
  }
  // GCMD names some instruments after their platform ("HRIR NIMBUS-1", "MRIR NIMBUS-3"); CMR lists the instrument
  // ("HRIR") and the platform: read such a name as both
  for (const name of [...out.instruments]) {
    const at = name.indexOf(' ');
    if (at < 0) continue;
    const [instrument, platform] = [name.slice(0, at), name.slice(at + 1)];
    if (lexiconNames(lex, 'instruments').has(instrument) && lexiconNames(lex, 'platforms').has(platform)) {
      out.instruments.delete(name);
      out.instruments.add(instrument);
      out.platforms.add(platform);
    }
  }
  // a name GCMD lists as both ("ATLAS": ICESat-2's lidar and a Space Shuttle laboratory) is the instrument when the
  // record names another platform ("ATLAS/ICESat-2"), and stays both when it names none ("OCO-2 Level 2 …")
  const both = [...out.platforms].filter((p) => out.instruments.has(p));
  if (both.length && out.platforms.size > both.length) for (const p of both) out.platforms.delete(p);
  // what CMR lists for nearly every record of the record's product family, beside what its own text names
  const family = lex.families.get(shortNameFamily(d.shortName) ?? '');
  if (family) for (const field of GCMD_INFERRED_FIELDS) for (const name of family[field] ?? []) out[field].add(name);
  for (const suite of [...out.instruments]) {
    const s = GCMD_INSTRUMENT_SUITES[suite];
    if (!s) continue;
    for (const member of s.members) out.instruments.add(member);
    if (s.listedAs === 'members') out.instruments.delete(suite);
  }
  for (const instrument of out.instruments) {
    const host = lex.hosts.get(instrument);
    if (host) out.platforms.add(host);
  }
  for (const platform of out.platforms) {
    const payload = lex.payloads.get(platform);
    if (payload) out.instruments.add(payload);
  }
  return { platforms: [...out.platforms].sort(), instruments: [...out.instruments].sort(), projects: [...out.projects].sort() };
}

/** Every GCMD short name a lexicon reads in a field (built once per lexicon). */
const namesByLexicon = new WeakMap<GcmdLexicon, Record<GcmdInferredField, Set<string>>>();
function lexiconNames(lex: GcmdLexicon, field: GcmdInferredField): Set<string> {
  let n = namesByLexicon.get(lex);
  if (!n) {
    const of = (f: GcmdInferredField) => new Set([...lex.exact[f].values(), ...lex.folded[f].values()].flatMap((v) => [...v]));
    n = { platforms: of('platforms'), instruments: of('instruments'), projects: of('projects') };
    namesByLexicon.set(lex, n);
  }
  return n[field];
}

/**
 * The instruments that CMR lists, as a record's only instrument, with one and the same platform in at least
 * `minRecords` records and at least `minShare` of such records, no other platform in `1 − minShare` of them: AIRS →
 * AQUA, SeaWiFS → OrbView-2; MODIS (Terra and Aqua) is not one. Learn it from the records it is measured on only when
 * they are not the ones reported (`gcmdInferenceHalf`: learn on dev, report test).
 */
export function learnInstrumentHosts(datasets: readonly Pick<DatasetRecord, GcmdInferredField>[], minRecords = 3, minShare = 0.9): Map<string, string> {
  // instrument → records listing it, and → platform → records listing both
  const records = new Map<string, number>();
  const seen = new Map<string, Map<string, number>>();
  for (const d of datasets) {
    const platforms = recordedGcmdNames(d, 'platforms');
    const instruments = recordedGcmdNames(d, 'instruments');
    if (instruments.length !== 1) continue; // a multi-sensor record does not say which platform carries which sensor
    for (const instrument of instruments) {
      records.set(instrument, (records.get(instrument) ?? 0) + 1);
      let m = seen.get(instrument);
      if (!m) seen.set(instrument, (m = new Map()));
      for (const p of platforms) m.set(p, (m.get(p) ?? 0) + 1);
    }
  }
  const hosts = new Map<string, string>();
  for (const [instrument, m] of [...seen.entries()].sort()) {
    const total = records.get(instrument)!;
    // the platform listed most often with it; a second one as often (Terra and Aqua for MODIS) means no single host
    const ranked = [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (!ranked.length) continue;
    const [platform, n] = ranked[0];
    if (n >= minRecords && n >= minShare * total && !(ranked[1] && ranked[1][1] >= (1 - minShare) * total)) hosts.set(instrument, platform);
  }
  return hosts;
}

/**
 * A record's product family by its short name: the leading capitalised word or capital run of three letters or more
 * (`GozMmlpH2O` → `goz`, `GSSTF_F08` → `gsstf`, `NLDAS_FORB0125_M` → `nldas`, `MOD04_L2` → `mod`, `AIRS2RET` →
 * `airs`), lower-cased; null when there is none (`g4`, a short name in lower case).
 */
export function shortNameFamily(shortName: string | null | undefined): string | null {
  const m = /^([A-Z][a-z]+|[A-Z]{3,}(?=[A-Z][a-z]|_|\d|$))/.exec(shortName ?? '');
  return m && m[1].length >= 3 ? m[1].toLowerCase() : null;
}

/**
 * The names CMR lists, per field, for at least `minShare` of a product family's records that list the field, in
 * families of at least `minRecords` such records (`shortNameFamily`): GOZCARDS' merged records → their instruments,
 * GSSTF → SSM/I. Learn it from the records it is measured on only when they are not the ones reported
 * (`gcmdInferenceHalf`: learn on dev, report test), as `learnInstrumentHosts`.
 */
export function learnFamilyNames(datasets: readonly Pick<DatasetRecord, GcmdInferredField | 'shortName'>[], minRecords = 3, minShare = 0.9): Map<string, Partial<Record<GcmdInferredField, string[]>>> {
  const tally = new Map<string, Record<GcmdInferredField, { records: number; names: Map<string, number> }>>();
  for (const d of datasets) {
    const key = shortNameFamily(d.shortName);
    if (!key) continue;
    let t = tally.get(key);
    if (!t) tally.set(key, (t = { platforms: { records: 0, names: new Map() }, instruments: { records: 0, names: new Map() }, projects: { records: 0, names: new Map() } }));
    for (const field of GCMD_INFERRED_FIELDS) {
      const names = recordedGcmdNames(d, field);
      if (!names.length) continue;
      t[field].records++;
      for (const n of new Set(names)) t[field].names.set(n, (t[field].names.get(n) ?? 0) + 1);
    }
  }
  const out = new Map<string, Partial<Record<GcmdInferredField, string[]>>>();
  for (const [key, t] of [...tally.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const learned: Partial<Record<GcmdInferredField, string[]>> = {};
    for (const field of GCMD_INFERRED_FIELDS) {
      const { records, names } = t[field];
      if (records < minRecords) continue;
      const kept = [...names.entries()].filter(([, n]) => n >= minShare * records).map(([name]) => name).sort();
      if (kept.length) learned[field] = kept;
    }
    if (Object.keys(learned).length) out.set(key, learned);
  }
  return out;
}

/** `learnProviderUnlisted`'s defaults, which `inferCorpusGcmd` learns the corpus's habits with too. */
const PROVIDER_UNLISTED_MIN_RECORDS = 3;
const PROVIDER_UNLISTED_MAX_SHARE = 0.5;

/**
 * Per provider (`DatasetRecord.daac`) and field, the names that its records' titles name (`inferGcmdEntities` with
 * `lex`, title and short name) and its CMR records list in fewer than `maxShare` of them, over at least `minRecords`
 * records that list the field: a provider's own filing habit (LARC_ASDC lists CERES products under the project
 * CERES, not the AQUA or TERRA their titles name; GHRC_DAAC files GOES or TRMM as the platform, not the project). Learn
 * it from the records it is measured on only when they are not the ones reported (`gcmdInferenceHalf`: learn on dev,
 * report test), as `learnFamilyNames`.
 */
export function learnProviderUnlisted(
  datasets: readonly DatasetRecord[], lex: GcmdLexicon, minRecords = PROVIDER_UNLISTED_MIN_RECORDS, maxShare = PROVIDER_UNLISTED_MAX_SHARE,
): Map<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>> {
  const unlearned = { ...lex, unlisted: new Map() };
  return providerUnlistedOf(datasets, (d) => inferGcmdEntities(d, unlearned), minRecords, maxShare);
}

/** `learnProviderUnlisted` from each record's names as inferred without the providers' habits (`inferredOf`). */
function providerUnlistedOf(
  datasets: readonly DatasetRecord[], inferredOf: (d: DatasetRecord, i: number) => Record<GcmdInferredField, string[]>, minRecords: number, maxShare: number,
): Map<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>> {
  // provider → field → name → how many of its records with CMR values in the field name it, and list it
  const tally = new Map<string, Map<GcmdInferredField, Map<string, { listed: number; named: number }>>>();
  datasets.forEach((d, i) => {
    const truths = GCMD_INFERRED_FIELDS.map((f) => recordedGcmdNames(d, f));
    if (truths.every((t) => !t.length)) return;
    const got = inferredOf(d, i);
    GCMD_INFERRED_FIELDS.forEach((f, fi) => {
      if (!truths[fi].length) return;
      let byField = tally.get(d.daac);
      if (!byField) tally.set(d.daac, (byField = new Map()));
      let byName = byField.get(f);
      if (!byName) byField.set(f, (byName = new Map()));
      for (const name of got[f]) {
        const t = byName.get(name) ?? { listed: 0, named: 0 };
        t.named++;
        if (truths[fi].includes(name)) t.listed++;
        byName.set(name, t);
      }
    });
  });
  const out = new Map<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>>();
  for (const daac of [...tally.keys()].sort()) {
    const learned: Partial<Record<GcmdInferredField, Set<string>>> = {};
    for (const [f, byName] of tally.get(daac)!) {
      const names = [...byName].filter(([, t]) => t.named >= minRecords && t.listed < maxShare * t.named).map(([name]) => name).sort();
      if (names.length) learned[f] = new Set(names);
    }
    if (Object.keys(learned).length) out.set(daac, learned);
  }
  return out;
}

/** The words of a record's title and short name that `learnTitleCues` reads: lower-cased, with a letter, two or more characters. */
function titleCueWords(d: Pick<DatasetRecord, 'longName' | 'shortName'>): Set<string> {
  return new Set(gcmdTokens(`${d.longName} ${d.shortName ?? ''}`).map((t) => t.toLowerCase()).filter((t) => t.length >= 2 && /[a-z]/.test(t)));
}

/**
 * Where a title cue holds (`learnTitleCues`): `corpus`, for every record whose title has the word; `provider`, for the
 * records of the provider whose records it was learned from — a cue key is then `<daac>\t<word>` (`titleCueKey`).
 */
export type GcmdCueScope = 'corpus' | 'provider';

/** The key of a title cue word in a lexicon's `cues`: the word (scope `corpus`), or the provider and the word. */
export function titleCueKey(word: string, daac?: string): string {
  return daac === undefined ? word : `${daac}\t${word}`;
}

/** The keys a record's title cues are looked up by: each word, and each word under the record's provider. */
function titleCueKeys(d: Pick<DatasetRecord, 'longName' | 'shortName'> & { daac?: string }): string[] {
  const words = [...titleCueWords(d)];
  return d.daac === undefined ? words : [...words, ...words.map((w) => titleCueKey(w, d.daac))];
}

/** The fields the corpus learns title cues for (`learnTitleCues`): projects only (see its comment). */
export const GCMD_CUE_FIELDS: readonly GcmdInferredField[] = ['projects'];

/** What `learnTitleCues` learns. */
export interface TitleCueOptions {
  /** The fields cues are learned for. Default `GCMD_CUE_FIELDS` (projects). */
  fields: readonly GcmdInferredField[];
  /** A cue word needs at least this many records that list the field and have the word. Default 2. */
  minRecords: number;
  /** … and CMR lists the name in at least this share of them (every one, at the default). Default 1. */
  minShare: number;
  /** Where a cue holds (`GcmdCueScope`). Default `provider`. */
  scope: GcmdCueScope;
  /**
   * Words never taken as cues (`plainWords`: "mixing", "profiling", "similar" — English words that a provider's titles
   * share by chance, not names). Default none.
   */
  plainWords?: ReadonlySet<string>;
}

export const DEFAULT_TITLE_CUE_OPTIONS: Readonly<TitleCueOptions> = Object.freeze({ fields: GCMD_CUE_FIELDS, minRecords: 2, minShare: 1, scope: 'provider' as const });

/**
 * Per field, the words of titles and short names (`titleCueWords`) after which CMR lists a name in at least `minShare`
 * of the ≥ `minRecords` records that list the field and have the word: CDDIS's "GNSS" products → the project IGS,
 * "DORIS" → IDS, "SLR" → ILRS, "NARSTO" → NARSTO. The projects CMR lists are mostly programmes a title does not name
 * by GCMD's name. Chosen by two-fold cross-validation within the dev half (`node bench/gcmd-cues-cv.cjs`; projects,
 * precision / recall of the held-out folds): none .884 / .632; every record with the word (scope `corpus`) (3, .9)
 * .847 / .760 (the default until 2026-12-05), (5, .95) .879 / .729; the word at the provider it was learned from
 * (scope `provider`) (3, .9) .830 / .789, (3, 1) .851 / .785; without plain words as cues, corpus (3, .9) .877 / .751,
 * provider (3, 1) .880 / .764 (above the corpus-wide cues in both), (2, 1) .862 / .796 — the default, by the held-out
 * F1 (.827 against .801 before), as the corpus-wide setting was chosen. For platforms and instruments the
 * cues cost precision (dev in-sample platforms .974 → .946) and are not learned. Learn it on the records it is not
 * measured on (`gcmdInferenceHalf`: learn on dev, report test).
 */
export function learnTitleCues(datasets: readonly DatasetRecord[], options: Partial<TitleCueOptions> = {}): Partial<Record<GcmdInferredField, Map<string, string[]>>> {
  const { fields, minRecords, minShare, scope, plainWords: plain } = { ...DEFAULT_TITLE_CUE_OPTIONS, ...options };
  if (scope !== 'corpus' && scope !== 'provider') throw new EoError('CONFIG', `title cues: scope must be "corpus" or "provider" (got ${JSON.stringify(scope)})`);
  if (!(Number.isInteger(minRecords) && minRecords >= 1) || !(minShare > 0 && minShare <= 1)) throw new EoError('CONFIG', `title cues: minRecords must be an integer ≥ 1 and minShare in (0, 1] (got ${minRecords}, ${minShare})`);
  const out: Partial<Record<GcmdInferredField, Map<string, string[]>>> = {};
  for (const field of fields) {
    const withWord = new Map<string, number>();
    const together = new Map<string, Map<string, number>>();
    for (const d of datasets) {
      const names = recordedGcmdNames(d, field);
      if (!names.length) continue;
      for (const word of titleCueWords(d)) {
        if (plain?.has(word)) continue;
        const w = titleCueKey(word, scope === 'provider' ? d.daac : undefined);
        withWord.set(w, (withWord.get(w) ?? 0) + 1);
        let m = together.get(w);
        if (!m) together.set(w, (m = new Map()));
        for (const n of names) m.set(n, (m.get(n) ?? 0) + 1);
      }
    }
    const cues = new Map<string, string[]>();
    for (const [w, n] of [...withWord.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (n < minRecords) continue;
      const names = [...together.get(w)!.entries()].filter(([, c]) => c >= minShare * n).map(([name]) => name).sort();
      if (names.length) cues.set(w, names);
    }
    out[field] = cues;
  }
  return out;
}

/** CMR's values of a field as upper-case names, without "not applicable" / "not provided". */
export function recordedGcmdNames(d: Pick<DatasetRecord, GcmdInferredField>, field: GcmdInferredField): string[] {
  return [...new Set(d[field].map((x) => x.trim().toUpperCase()).filter((x) => x && !/^NOT (APPLICABLE|PROVIDED)$/.test(x)))].sort();
}

export interface GcmdInferenceQuality {
  field: GcmdInferredField;
  /** Records with CMR values in this field (the ones measured). */
  records: number;
  /** Inferred names that CMR lists / all inferred names. */
  precision: number;
  /** CMR's names that were inferred / all CMR names. */
  recall: number;
  /** Inferred names that CMR lists (precision's and recall's numerator). */
  hits: number;
  inferred: number;
  recorded: number;
}

/**
 * The half of the records with CMR values that a record belongs to, by a hash of its id: `dev` to develop the rules on
 * (read its errors, add aliases), `test` to report only. The rules of 2026-12-04 (longest span, the NPP and Earth
 * Probe aliases) were made looking at all of them; later ones are made on `dev`.
 */
export function gcmdInferenceHalf(datasetId: string): 'dev' | 'test' {
  return parseInt(shortHash(`gcmd-infer|${datasetId}`, 8), 16) % 2 === 0 ? 'dev' : 'test';
}

/**
 * Inference against CMR's own values, field by field: every record with values in the field has them hidden (the
 * inference reads only its title, short name and, when asked, abstract) and the inferred names are compared with them.
 * `half` keeps the records of one half (`gcmdInferenceHalf`); default all.
 */
export function gcmdInferenceQuality(datasets: readonly DatasetRecord[], lex: GcmdLexicon, sources?: readonly GcmdTextSource[], half?: 'dev' | 'test'): GcmdInferenceQuality[] {
  if (half) datasets = datasets.filter((d) => gcmdInferenceHalf(d.id) === half);
  const tally = GCMD_INFERRED_FIELDS.map((field) => ({ field, records: 0, hit: 0, inferred: 0, recorded: 0 }));
  for (const d of datasets) {
    const truths = GCMD_INFERRED_FIELDS.map((field) => recordedGcmdNames(d, field));
    if (truths.every((t) => !t.length)) continue;
    const got = inferGcmdEntities(d, lex, sources); // once per record, for every field
    tally.forEach((t, i) => {
      const truth = truths[i];
      if (!truth.length) return;
      const names = got[t.field];
      t.records++;
      t.inferred += names.length;
      t.recorded += truth.length;
      t.hit += names.filter((x) => truth.includes(x)).length;
    });
  }
  return tally.map((t) => ({
    field: t.field, records: t.records, precision: t.inferred ? t.hit / t.inferred : 0, recall: t.recorded ? t.hit / t.recorded : 0, hits: t.hit, inferred: t.inferred, recorded: t.recorded,
  }));
}

/**
 * A dataset's platforms or instruments as search, filters and facets read them: CMR's when it lists them, else the
 * GCMD names inferred from its title (`inferred`: it lists none and the corpus was inferred; the names may be empty).
 * The GCMD series of its platforms (`DatasetRecord.inferred.series`) are not among them.
 */
export function platformsOrInstruments(d: Pick<DatasetRecord, 'platforms' | 'instruments' | 'inferred'>, field: 'platforms' | 'instruments'): { names: string[]; inferred: boolean } {
  const inferred = d[field].length === 0 && !!d.inferred;
  return { names: inferred ? d.inferred![field] : d[field], inferred };
}

/** The GCMD files that `inferCorpusGcmd` reads. */
export const GCMD_INFERENCE_FILES = ['gcmd-platforms.csv', 'gcmd-instruments.csv', 'gcmd-projects.csv'] as const;

/**
 * The folder with the GCMD files for a snapshot folder: the folder itself, or the one above it (the snapshot's
 * `sample/` has none of its own); null when neither has them.
 */
export function gcmdDirFor(snapshotDir: string): string | null {
  for (const d of [snapshotDir, path.dirname(snapshotDir)]) if (GCMD_INFERENCE_FILES.every((f) => fs.existsSync(path.join(d, f)))) return d;
  return null;
}

/**
 * The texts `inferCorpusGcmd` reads by default: title and short name. Reading the abstract too where they name no
 * platform or instrument (`abstract-fallback`) was tried on the style benchmark's dev half (`bench/bm25-forms-tune.cjs
 * --study inferred-reading`): BM25 alone nDCG@10 .5805 → .5788 (`eo eval --system bm25`, with its query rules: .6244 →
 * .6173), so the corpus keeps to the title; the fallback reads more platforms, and noisier ones, than BM25 gains by.
 */
export const GCMD_CORPUS_SOURCES: readonly GcmdTextSource[] = ['title', 'short-name'];

/** What `inferCorpusGcmd` reads and learns. */
export interface GcmdCorpusOptions {
  /** The texts read. Default `GCMD_CORPUS_SOURCES`. */
  sources: readonly GcmdTextSource[];
  /** Leave out the names a provider's CMR records leave out though their titles name them (`learnProviderUnlisted`). Default true. */
  providerUnlisted: boolean;
  /** Add the names CMR lists after words of the title (`learnTitleCues`, `GCMD_CUE_FIELDS`). Default true. */
  titleCues: boolean;
}

/**
 * The lexicon learned from `records` (those that carry CMR's values teach it): GCMD's names (`gcmdDir`, default the data
 * folder's), the corpus's `plainWords`, the mission hosts, and the hosts and product families CMR's records show
 * (`learnInstrumentHosts`, `learnFamilyNames`), with the title cues learned by `titleCues` (`learnTitleCues`'s options;
 * null: none). The providers' habits are not in it: `learnProviderUnlisted` reads the records through it.
 */
export function learnedGcmdLexicon(
  records: readonly DatasetRecord[], opts: { plainWords: ReadonlySet<string>; gcmdDir?: string; titleCues: Partial<TitleCueOptions> | null },
): GcmdLexicon {
  return buildGcmdLexicon(undefined, opts.gcmdDir, {
    plainWords: opts.plainWords, learnedHosts: learnInstrumentHosts(records), learnedFamilies: learnFamilyNames(records),
    learnedCues: opts.titleCues ? learnTitleCues(records, opts.titleCues) : undefined,
  });
}

/**
 * Every record's platforms, instruments and projects inferred from its own text (`GcmdCorpusOptions`), and the GCMD
 * series of its platforms (CMR's when it lists them, else the inferred ones), stored as `d.inferred` beside CMR's
 * fields. The lexicon: GCMD's names (`gcmdDir`), the corpus's plain words (from its abstracts), the mission hosts, and
 * the hosts, product families, title cues and providers' habits learned from the records that carry CMR's values
 * (`learnInstrumentHosts`, `learnFamilyNames`, `learnTitleCues`, `learnProviderUnlisted`). Returns the lexicon.
 */
export function inferCorpusGcmd(datasets: DatasetRecord[], gcmdDir: string, options: Partial<GcmdCorpusOptions> = {}): GcmdLexicon {
  const o: GcmdCorpusOptions = { sources: GCMD_CORPUS_SOURCES, providerUnlisted: true, titleCues: true, ...options };
  const words = plainWords(datasets.map((d) => d.abstract));
  const lex = learnedGcmdLexicon(datasets, { plainWords: words, gcmdDir, titleCues: o.titleCues ? { plainWords: words } : null });
  // one reading of every record serves both: the habits are learned from it, then taken out of it
  const read = datasets.map((d) => inferGcmdEntities(d, lex, o.sources));
  if (o.providerUnlisted) lex.unlisted = providerUnlistedOf(datasets, (_, i) => read[i], PROVIDER_UNLISTED_MIN_RECORDS, PROVIDER_UNLISTED_MAX_SHARE);
  datasets.forEach((d, i) => {
    const inferred = withoutUnlisted(read[i], lex, d.daac);
    // the series of its platforms, CMR's when it lists them: a filter or facet on "Sentinel-1" meets SENTINEL-1A
    const platforms = d.platforms.length ? recordedGcmdNames(d, 'platforms') : inferred.platforms;
    const series = [...new Set(platforms.map((p) => lex.seriesOf.get(p)).filter((x): x is string => !!x && !platforms.includes(x)))].sort();
    d.inferred = { ...inferred, series };
  });
  return lex;
}
