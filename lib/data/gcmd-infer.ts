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
import { abstractSentences } from '../util/english';
import { EoError } from '../errors';
import {
  acronymLike, buildGcmdLexicon, dmspFlightName, GCMD_ABSTRACT_FALLBACK_FIELDS, GCMD_DMSP_INSTRUMENTS, GCMD_SLASH_NOTATION, GCMD_SLASH_PLATFORM_FORMS, GCMD_INFERRED_FIELDS, GCMD_INSTRUMENT_SUITES, gcmdTokens, plainWords,
  type GcmdInferredField, type GcmdLexicon, type GcmdTextSource,
} from './gcmd-lexicon';
import {
  familiesTheirTextsAgreeWith, GCMD_CUE_FIELDS, gcmdInferenceHalf, learnFamilyCompany, learnFamilyNames, learnInstrumentCarriers, learnInstrumentHosts, learnShortNameNeighbours, learnTitleCues, recordedGcmdNames, shortNameFamily, shortNameNeighbourNames, titleCueKeys,
  type GcmdInferenceQuality, type TitleCueOptions,
} from './gcmd-learn';

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

/** The names a record's texts name per field, and those they say are not its own (`denied`: "TRMM Ground Validation …"). */
type NamedGcmdEntities = Record<GcmdInferredField, string[]> & { denied: string[] };

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

function inferFromTexts(d: Pick<DatasetRecord, 'shortName'>, lex: GcmdLexicon, texts: readonly GcmdText[]): NamedGcmdEntities {
  const out: Record<GcmdInferredField, Set<string>> = { platforms: new Set(), instruments: new Set(), projects: new Set() };
  const denied = new Set<string>();
  const headings = new Set<string>();
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
      // ground radars, gauges and aircraft of a campaign; the mission is neither its platform nor its project; nor is it
      // for its correlative data ("UARS Correlative NMC Daily Gridded Stratospheric Assimilated Data": NCEP's analyses)
      if (s.field !== 'instruments' && ((folded[s.end] === 'ground' && folded[s.end + 1] === 'validation') || folded[s.end] === 'correlative')) {
        denied.add(s.name); // not from the short name either ("TRMM_2A54")
        continue;
      }
      // "OCEAN WIND SPEED": in a text all in capitals, a plain word is a word (WIND the spacecraft is not meant)
      if (allCapitals && s.field !== 'projects' && s.end - s.start === 1 && lex.plainCapitals.has(tokens[s.start])) continue;
      // … and in an abstract a platform inside an instrument's name (GcmdInferenceRules.platformInsideInstrumentInProse)
      const across = lex.rules.platformInsideInstrumentInProse && prose && s.field === 'platforms';
      const inside = spans.some((o) => (o.field === s.field || (across && o.field === 'instruments')) && o.start <= s.start && o.end >= s.end && o.end - o.start > s.end - s.start);
      // "GPM SAPHIR on MT1": the mission heading a sensor that is on another platform is the product line's name
      const sensorOn = lex.rules.productLineHeads && s.field === 'platforms' ? spans.find((o) => o.field === 'instruments' && o.start === s.end && tokens[o.end] === 'on') : undefined;
      if (sensorOn && !spans.some((o) => o.field === 'platforms' && o.start === sensorOn.end + 1 && o.name === s.name)) {
        headings.add(s.name); // not from the short name either ("GPM_2APRPSMT1SAPHIR")
        continue;
      }
      if (!inside) out[s.field].add(s.name);
    }
    for (const m of text.matchAll(GCMD_SLASH_NOTATION)) {
      const platform = GCMD_SLASH_PLATFORM_FORMS[m[2].toUpperCase()] ?? m[2].toUpperCase();
      if (lexiconNames(lex, 'instruments').has(m[1].toUpperCase()) && lexiconNames(lex, 'platforms').has(platform)) out.platforms.add(platform);
    }
  }
  for (const name of headings) out.platforms.delete(name);
  for (const name of denied) {
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
  // what CMR lists for nearly every record of the record's product family, beside what its own text names; a
  // family's platforms only where the text names none ("GLDAS Catchment Land Surface Model …" is not the family's Noah)
  const family = lex.families.get(shortNameFamily(d.shortName) ?? '');
  if (family) {
    const company = lex.familyCompany.get(shortNameFamily(d.shortName)!);
    for (const field of GCMD_INFERRED_FIELDS) {
      if (lex.rules.familyFillsOnly.includes(field) && out[field].size) continue;
      // … and, as a title cue, only where its records listed every name the texts name ("OCO-3 …" is not the OCO family's OCO-2)
      if (lex.rules.familiesNeedTheirCompany.includes(field) && company?.[field] && [...out[field]].some((x) => !company[field]!.has(x))) continue;
      for (const name of family[field] ?? []) out[field].add(name);
    }
  }
  // DMSP's satellites by flight number ("Satellite F08", "GPM SSMIS on F16", "DMSP F13") in a record of its sensors
  if (lex.rules.dmspFlightNumbers && (out.platforms.has('DMSP') || GCMD_DMSP_INSTRUMENTS.some((x) => out.instruments.has(x)))) {
    // not in an abstract, which lists every flight of a merged product whose record lists DMSP only
    for (const { text } of texts.filter((t) => !t.prose)) for (const m of text.matchAll(/(?<![A-Za-z0-9])F-?0?(\d{1,2})(?![\d.])/g)) {
      const name = dmspFlightName(Number(m[1]));
      if (name && lexiconNames(lex, 'platforms').has(name)) out.platforms.add(name);
    }
  }
  for (const suite of [...out.instruments]) {
    const s = GCMD_INSTRUMENT_SUITES[suite];
    if (!s) continue;
    for (const member of s.members) out.instruments.add(member);
    if (s.listedAs === 'members') out.instruments.delete(suite);
  }
  for (const instrument of out.instruments) {
    const host = lex.hosts.get(instrument);
    // … unless the record names another member of the host's series: CrIS on "JPSS-1" (NOAA-20), not on Suomi NPP
    const series = host && lex.seriesOf.get(host);
    if (series && [...out.platforms].some((p) => p !== host && lex.seriesOf.get(p) === series)) continue;
    if (lex.rules.hostsYieldToCarriers && [...out.platforms].some((p) => p !== host && lex.carriers.get(instrument)?.has(p))) continue;
    if (host) out.platforms.add(host);
  }
  for (const platform of out.platforms) {
    const payload = lex.payloads.get(platform);
    if (payload) out.instruments.add(payload);
  }
  return { platforms: [...out.platforms].sort(), instruments: [...out.instruments].sort(), projects: [...out.projects].sort(), denied: [...denied].sort() };
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
