/**
 * Platforms, instruments and projects inferred from what a record says of itself (issue 38 step 1): only 987 of the
 * 10,073 records carry CMR's `platforms` / `instruments`; the rest name them in the title ("MLS/Aura Level 2 …"), the
 * short name or the abstract. A lexicon of GCMD's platform, instrument and project names (`gcmd-platforms.csv`,
 * `gcmd-instruments.csv`, `gcmd-projects.csv`) is matched against a record's text as token sequences (`gcmd-read.ts`):
 * - a short name that is a single all-capital or mixed-case word ("MLS", "Aura", "MODIS") matches only that word as
 *   written, so "Aura" the satellite is not "aura" the word and "SAGE" the instrument not "sage" the plant;
 * - a short name with a digit or a separator ("Nimbus-7", "DMSP 5D-2/F10", "SSM/I") and a long name of two or more
 *   words ("Microwave Limb Sounder") match whatever their case and separators ("nimbus 7", "NIMBUS-7");
 * - a name inside a longer one that matches does not count: "Nimbus-7" is Nimbus-7, not also NIMBUS the series;
 * - an all-capital short name also matches the word written as an acronym in mixed case ("CrIS" is CRIS), unless it is
 *   a plain word of the corpus ("WiNd" spells DAWN, not WIND the spacecraft); nor is a plain word joined to a
 *   campaign's letter ("TRACE-P": not TRACE the observatory);
 * - a platform inside a longer project name is the project's ("(ACE) - Asia" is ACE-ASIA), unless that name names
 *   another platform or instrument too ("SAGE III/ISS");
 * - a spacecraft before "Airborne" ("HyspIRI Airborne Campaign") or after "Pre" ("Pre-SWOT") is not the record's platform;
 * - an instrument suite adds its members (`GCMD_INSTRUMENT_SUITES`: CrIMSS is CrIS and ATMS);
 * - GCMD short names that titles use for other things (SIPS, SWIR, …: `AMBIGUOUS_SHORT_NAMES`) match only by long name.
 * The result names GCMD's short names; `gcmdInferenceQuality` measures it against the records that have CMR's values.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DatasetRecord, GcmdInferred } from './types';
import { EoError } from '../errors';
import {
  buildGcmdLexicon, GCMD_ABSTRACT_FALLBACK_FIELDS, GCMD_INFERRED_FIELDS, plainWords,
  type GcmdInferredField, type GcmdLexicon, type GcmdTextSource,
} from './gcmd-lexicon';
import {
  familiesTheirTextsAgreeWith, GCMD_CUE_FIELDS, gcmdInferenceHalf, learnFamilyCompany, learnFamilyNames, learnInstrumentCarriers, learnInstrumentHosts, learnShortNameNeighbours, learnTitleCues, recordedGcmdNames, shortNameNeighbourNames, titleCueKeys,
  type GcmdInferenceQuality, type TitleCueOptions,
} from './gcmd-learn';
import { abstractAsRead, inferFromTexts, type GcmdText, type NamedGcmdEntities } from './gcmd-read';

// the lexicon's and the learners' names are this module's API too, as before the split (their helpers stay internal)
export {
  DEFAULT_GCMD_INFERENCE_RULES, GCMD_ABSTRACT_FALLBACK_FIELDS, GCMD_ALIASES, GCMD_INFERRED_FIELDS, GCMD_INSTRUMENT_HOSTS, GCMD_INSTRUMENT_SUITES, GCMD_PLATFORM_PAYLOADS,
  buildGcmdLexicon, gcmdAliasOf, gcmdPlatformSeries, gcmdTokens, plainWords, platformSeriesOf,
  type GcmdInferenceRules, type GcmdInferredField, type GcmdLexicon, type GcmdNeighbourRecord, type GcmdPlatformSeries, type GcmdTextSource,
} from './gcmd-lexicon';
export {
  DEFAULT_SHORT_NAME_NEIGHBOURS, DEFAULT_TITLE_CUE_OPTIONS, FAMILY_AGREEMENT, familiesTheirTextsAgreeWith, GCMD_CUE_FIELDS, gcmdInferenceHalf, learnFamilyCompany, learnFamilyNames, learnInstrumentCarriers, learnInstrumentHosts, learnShortNameNeighbours, learnTitleCues,
  NEIGHBOUR_PREFIXES_KEPT, recordedGcmdNames, shortNameFamily, shortNameNeighbourNames, shortNamePrefixKey, titleCueKey,
  type GcmdCueScope, type GcmdInferenceQuality, type ShortNameNeighbourOptions, type TitleCueOptions,
} from './gcmd-learn';

/**
 * A record's platforms, instruments and projects as GCMD short names (upper case, sorted), from the chosen texts, less
 * the names its provider leaves out (`GcmdLexicon.unlisted`), plus its title cues' (`GcmdLexicon.cues`); a field they
 * name nothing in gets what the record's short-name neighbours all list (`shortNameNeighbourNames`; `id` leaves the record itself out of them).
 */
export function inferGcmdEntities(
  d: Pick<DatasetRecord, 'longName' | 'shortName' | 'abstract'> & { daac?: string; id?: string }, lex: GcmdLexicon, sources: readonly GcmdTextSource[] = ['title', 'short-name'],
  fallbackFields: readonly GcmdInferredField[] = GCMD_ABSTRACT_FALLBACK_FIELDS,
): Omit<GcmdInferred, 'series'> {
  return completedGcmdEntities(namedGcmdEntities(d, lex, sources, fallbackFields), lex, d);
}

/** What a record's own texts name (`inferGcmdEntities` before the providers' habits, the title cues and the neighbours). */
function namedGcmdEntities(
  d: Pick<DatasetRecord, 'longName' | 'shortName' | 'abstract'> & { daac?: string }, lex: GcmdLexicon, sources: readonly GcmdTextSource[] = ['title', 'short-name'],
  fallbackFields: readonly GcmdInferredField[] = GCMD_ABSTRACT_FALLBACK_FIELDS,
): NamedGcmdEntities {
  const texts: GcmdText[] = sources.filter((s) => s !== 'abstract-fallback').map((s) => (
    s === 'title' ? { text: d.longName, prose: false } : s === 'short-name' ? { text: d.shortName ?? '', prose: false } : { text: abstractAsRead(d.abstract), prose: true }
  ));
  const out = inferFromTexts(d, lex, texts);
  const empty = sources.includes('abstract-fallback') ? fallbackFields.filter((f) => !out[f].length) : [];
  if (empty.length) {
    // the abstract is read with the other texts, so that what they say still holds ("TRMM Ground Validation …")
    const withAbstract = inferFromTexts(d, lex, [...texts, { text: abstractAsRead(d.abstract), prose: true }]);
    for (const f of empty) out[f] = withAbstract[f];
    out.denied = [...new Set([...out.denied, ...withAbstract.denied])].sort();
  }
  return out;
}

/**
 * What a record's texts name (`namedGcmdEntities`) less the names its provider leaves out (`withoutUnlisted`), plus
 * its title cues' names (`withCues`, after the habits: a cue's company is checked against what stays), each empty field filled with what its short-name neighbours all list (`shortNameNeighbourNames`) less the names its texts
 * deny (TRMM for "TRMM Ground Validation Radar Reflectivity …", whose neighbours TRMM_1B01 … are TRMM's); in the fields
 * of `GcmdInferenceRules.neighbourVeto`, the named ones that none of its nearest neighbours lists left out.
 */
function completedGcmdEntities(
  { denied, ...named }: NamedGcmdEntities, lex: GcmdLexicon, d: Pick<DatasetRecord, 'shortName' | 'longName'> & { daac?: string; id?: string },
): Omit<GcmdInferred, 'series'> {
  const inferred = withCues(withoutUnlisted(named, lex, d.daac), lex, d);
  if (!lex.neighbours.size) return inferred;
  const out = { ...inferred };
  for (const f of GCMD_INFERRED_FIELDS) {
    if (!out[f].length) out[f] = shortNameNeighbourNames(d, lex, f).filter((x) => !denied.includes(x));
    else if (lex.rules.neighbourVeto.includes(f)) {
      // every name any of the nearest neighbours lists (a share above 0)
      const listed = shortNameNeighbourNames(d, lex, f, { minPrefix: lex.rules.vetoMinPrefix, minRecords: 1, minShare: Number.MIN_VALUE });
      if (listed.length) out[f] = out[f].filter((x) => listed.includes(x));
    }
  }
  return out;
}

/** Inferred names less those the record's provider leaves out (`GcmdLexicon.unlisted`); the same object when none. */
function withoutUnlisted<T extends Record<GcmdInferredField, string[]>>(inferred: T, lex: GcmdLexicon, daac: string | undefined): T {
  const unlisted = daac === undefined ? undefined : lex.unlisted.get(daac);
  if (!unlisted) return inferred;
  const out = { ...inferred };
  for (const f of GCMD_INFERRED_FIELDS) if (unlisted[f]) out[f] = out[f].filter((x) => !unlisted[f]!.has(x));
  return out;
}

/**
 * Inferred names plus those of the title cues (`learnTitleCues`) of the record's words; with
 * `GcmdInferenceRules.cuesNeedTheirCompany`, only the cues whose records listed every name the record names.
 */
function withCues<T extends Record<GcmdInferredField, string[]>>(inferred: T, lex: GcmdLexicon, d: Pick<DatasetRecord, 'longName' | 'shortName'> & { daac?: string }): T {
  const cued = GCMD_INFERRED_FIELDS.filter((f) => lex.cues[f]?.size);
  if (!cued.length) return inferred;
  const keys = titleCueKeys(d);
  const out = { ...inferred };
  for (const f of cued) {
    const cues = keys.flatMap((k) => lex.cues[f]!.get(k) ?? []).filter((c) => !lex.rules.cuesNeedTheirCompany || out[f].every((x) => c.listedWith.includes(x)));
    out[f] = [...new Set([...out[f], ...cues.flatMap((c) => c.names)])].sort();
  }
  return out;
}

/**
 * `learnProviderUnlisted`'s defaults, which `inferCorpusGcmd` learns the corpus's habits with too. Chosen by two-fold
 * cross-validation within the dev half (`node bench/gcmd-cues-cv.cjs --study habits`; held-out projects P / R / F1,
 * title + short name + abstract fallback, 2026-12-06): (3 records, share .5) .863 / .800 / .830 (the default until
 * then), (2, .5) .873 / .800 / .835, **(1, .5) .887 / .799 / .841**, (3, .67) .869 / .786, (2, .67) .880 / .784,
 * (1, .67) .894 / .783 / .835, (1, .8) .899 / .777 / .834; platforms alike in every one, instruments .942 → .946
 * precision at one record.
 */
const PROVIDER_UNLISTED_MIN_RECORDS = 1;
const PROVIDER_UNLISTED_MAX_SHARE = 0.5;

/**
 * Per provider (`DatasetRecord.daac`) and field, the names that its records' titles name (`inferGcmdEntities` with
 * `lex`, title and short name) and its CMR records list in fewer than `maxShare` of them, over at least `minRecords`
 * records that list the field: a provider's own filing habit (LARC_ASDC lists CERES products under the project
 * CERES, not the AQUA or TERRA their titles name; GHRC_DAAC files GOES or TRMM as the platform, not the project). Learn
 * it from the records it is measured on only when they are not the ones reported (`gcmdInferenceHalf`: learn on dev,
 * report test), as `learnFamilyNames`. Defaults: one record, a share of .5 (`PROVIDER_UNLISTED_MIN_RECORDS`).
 */
export function learnProviderUnlisted(
  datasets: readonly DatasetRecord[], lex: GcmdLexicon, minRecords = PROVIDER_UNLISTED_MIN_RECORDS, maxShare = PROVIDER_UNLISTED_MAX_SHARE,
): Map<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>> {
  return providerUnlistedOf(datasets, (d) => namedGcmdEntities(d, lex), minRecords, maxShare);
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
  /** Fill a field the texts name nothing in from the record's short-name neighbours (`shortNameNeighbourNames`). Default true. */
  neighbours: boolean;
}

/**
 * The lexicon learned from `records` (those that carry CMR's values teach it): GCMD's names (`gcmdDir`, default the data
 * folder's), the corpus's `plainWords`, the mission hosts, and the hosts and product families CMR's records show
 * (`learnInstrumentHosts`, `learnFamilyNames`), the records by short-name prefix (`learnShortNameNeighbours`; unless
 * `neighbours` is false), with the title cues learned by `titleCues` (`learnTitleCues`'s options; null: none). The
 * providers' habits are not in it: `learnProviderUnlisted` reads the records through it.
 */
export function learnedGcmdLexicon(
  records: readonly DatasetRecord[], opts: { plainWords: ReadonlySet<string>; gcmdDir?: string; titleCues: Partial<TitleCueOptions> | null; neighbours?: boolean; familyAgreement?: number },
): GcmdLexicon {
  const lex = buildGcmdLexicon(undefined, opts.gcmdDir, {
    plainWords: opts.plainWords, learnedHosts: learnInstrumentHosts(records), learnedCarriers: learnInstrumentCarriers(records), learnedFamilies: learnFamilyNames(records), learnedFamilyCompany: learnFamilyCompany(records),
    learnedCues: opts.titleCues ? learnTitleCues(records, opts.titleCues) : undefined,
    learnedNeighbours: opts.neighbours === false ? undefined : learnShortNameNeighbours(records),
  });
  const bare = { ...lex, families: new Map() };
  lex.families = familiesTheirTextsAgreeWith(lex.families, records, (d) => namedGcmdEntities(d, bare), opts.familyAgreement);
  return lex;
}

/**
 * Every record's platforms, instruments and projects inferred from its own text (`GcmdCorpusOptions`), and the GCMD
 * series of its platforms (CMR's when it lists them, else the inferred ones), stored as `d.inferred` beside CMR's
 * fields. The lexicon: GCMD's names (`gcmdDir`), the corpus's plain words (from its abstracts), the mission hosts, and
 * the hosts, product families, title cues, short-name neighbours and providers' habits learned from the records that
 * carry CMR's values (`learnInstrumentHosts`, `learnFamilyNames`, `learnTitleCues`, `learnShortNameNeighbours`,
 * `learnProviderUnlisted`). Returns the lexicon.
 */
export function inferCorpusGcmd(datasets: DatasetRecord[], gcmdDir: string, options: Partial<GcmdCorpusOptions> = {}): GcmdLexicon {
  const o: GcmdCorpusOptions = { sources: GCMD_CORPUS_SOURCES, providerUnlisted: true, titleCues: true, neighbours: true, ...options };
  const words = plainWords(datasets.map((d) => d.abstract));
  const lex = learnedGcmdLexicon(datasets, { plainWords: words, gcmdDir, titleCues: o.titleCues ? { plainWords: words } : null, neighbours: o.neighbours });
  // one reading of every record serves both: the habits are learned from it, then taken out of it
  const read = datasets.map((d) => namedGcmdEntities(d, lex, o.sources));
  if (o.providerUnlisted) lex.unlisted = providerUnlistedOf(datasets, (_, i) => read[i], PROVIDER_UNLISTED_MIN_RECORDS, PROVIDER_UNLISTED_MAX_SHARE);
  datasets.forEach((d, i) => {
    const inferred = completedGcmdEntities(read[i], lex, d);
    // the series of its platforms, CMR's when it lists them: a filter or facet on "Sentinel-1" meets SENTINEL-1A
    const platforms = d.platforms.length ? recordedGcmdNames(d, 'platforms') : inferred.platforms;
    const series = [...new Set(platforms.map((p) => lex.seriesOf.get(p)).filter((x): x is string => !!x && !platforms.includes(x)))].sort();
    d.inferred = { ...inferred, series };
  });
  return lex;
}
