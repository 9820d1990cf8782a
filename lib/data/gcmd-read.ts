/**
 * What a record's texts name (issue 38 step 1): GCMD's platform, instrument and project names matched in a title, a
 * short name or an abstract as token sequences, and the readings that follow from them (a suite's members, an
 * instrument's host, a family's names, DMSP's flight numbers). `gcmd-infer.ts` chooses the texts and completes what
 * they name with the providers' habits, the title cues and the short-name neighbours.
 */
import type { DatasetRecord } from './types';
import { abstractSentences } from '../util/english';
import {
  acronymLike, dmspFlightName, GCMD_DMSP_INSTRUMENTS, GCMD_INFERRED_FIELDS, GCMD_INSTRUMENT_SUITES, GCMD_SLASH_NOTATION, GCMD_SLASH_PLATFORM_FORMS, gcmdTokens,
  type GcmdInferredField, type GcmdLexicon,
} from './gcmd-lexicon';
import { shortNameFamily } from './gcmd-learn';

/** The names a record's texts name per field, and those they say are not its own (`denied`: "TRMM Ground Validation …"). */
export type NamedGcmdEntities = Record<GcmdInferredField, string[]> & { denied: string[] };

/** A text to read: `prose` (an abstract) names things in capitals — "no echo, 1 (stratiform)" does not name ECHO-1. */
export interface GcmdText { text: string; prose: boolean }

/**
 * An abstract as `inferGcmdEntities` reads it: DOIs and URLs taken out ("doi: 10.5067/GPM/SSMI/F11/…" names a DOI's
 * path, not GPM the platform), and the sentences that set the record beside other missions left out ("to validate
 * Terra data products", "overlap with the SORCE TIM", "a successor to the SBUV flown on the Nimbus-7 satellite").
 */
export function abstractAsRead(text: string): string {
  return abstractSentences(text.replace(/\b(?:https?:\/\/|doi:\s*|10\.\d{4,9}\/)\S+/gi, ' '))
    .map((x) => x.text).filter((x) => !OTHER_MISSION_CUES.test(x)).join(' ');
}

/** Words of a sentence that names another mission than the record's own (`abstractAsRead`). */
const OTHER_MISSION_CUES = /\b(?:validat\w*|overlap\w*|successor|predecessor|compar\w*|similar to|heritage|precursor|such as)\b/i;

export function inferFromTexts(d: Pick<DatasetRecord, 'shortName'>, lex: GcmdLexicon, texts: readonly GcmdText[]): NamedGcmdEntities {
  const out: Record<GcmdInferredField, Set<string>> = { platforms: new Set(), instruments: new Set(), projects: new Set() };
  const denied = new Set<string>();
  // platforms a text names that are not the record's, in any of its texts: a product line's heading, an airborne stand-in
  const notItsPlatforms = new Set<string>();
  for (const { text, prose } of texts) {
    const tokens = gcmdTokens(text);
    const folded = tokens.map((t) => t.toLowerCase());
    const allCapitals = !/[a-z]/.test(text);
    // every matching span, then only those no longer match contains: "MERRA-2" is MERRA-2, not MERRA as well
    const spans: { start: number; end: number; field: GcmdInferredField; name: string }[] = [];
    for (let i = 0; i < tokens.length; i++) {
      // an acronym the text writes in mixed case ("CrIS", "CloudSat") is GCMD's all-capital short name
      // … unless it is a plain word written to spell another acronym ("Doppler Aerosol WiNd (DAWN)": not WIND the spacecraft)
      if (acronymLike(tokens[i]) && !lex.plainCapitals.has(tokens[i].toUpperCase())) {
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
    // span o holds span q and is longer
    const within = (o: (typeof spans)[number], q: (typeof spans)[number]) => o.start <= q.start && o.end >= q.end && o.end - o.start > q.end - q.start;
    for (const s of spans) {
      const plainWord = s.end - s.start === 1 && lex.plainCapitals.has(tokens[s.start]);
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
      // "TRACE-P", "TRACE-A": a plain word with a letter after a hyphen is a campaign's name, not TRACE the solar observatory
      if (plainWord && new RegExp(`(?<![A-Za-z0-9])${tokens[s.start].replace(/\W/g, '\\$&')}-[A-Z](?![A-Za-z0-9])`).test(text)) continue;
      // "HyspIRI Airborne Campaign", "(GEO-CAPE) Airborne Simulator", "Pre-SWOT …": an airborne stand-in for a mission, or
      // its precursor, is not the spacecraft's (in any of the record's texts: "GEOstationary Coastal … (GEO-CAPE) Airborne")
      if (s.field === 'platforms' && ((folded[s.end] === 'airborne' && lex.spacecraft.has(s.name)) || folded[s.start - 1] === 'pre')) {
        notItsPlatforms.add(s.name);
        continue;
      }
      // "Sentinel-5P TROPOMI SNPP cloud product": in a title or short name, a platform right after an instrument it does not
      // carry, where the text names the instrument's own platform, qualifies the product
      // (GcmdInferenceRules.platformAfterForeignInstrument)
      if (lex.rules.platformAfterForeignInstrument && !prose && s.field === 'platforms' && spans.some((o) => o.field === 'instruments' && o.end === s.start && !carriedBy(lex, o.name, s.name)
        && spans.some((q) => q.field === 'platforms' && q !== s && q.name !== s.name && carriedBy(lex, o.name, q.name) === true))) continue;
      // "OCEAN WIND SPEED": in a text all in capitals, a plain word is a word (WIND the spacecraft is not meant)
      if (allCapitals && s.field !== 'projects' && plainWord) continue;
      // … and in an abstract a platform inside an instrument's name (GcmdInferenceRules.platformInsideInstrumentInProse)
      const across = lex.rules.platformInsideInstrumentInProse && prose && s.field === 'platforms';
      // … and a platform inside a longer project name is the project's ("Aerosol Characterization Experiment (ACE) - Asia":
      // ACE-ASIA, not ACE the spacecraft), unless the project's name names an instrument or platform beside it ("SAGE III/ISS")
      const aProjects = (o: typeof s) => s.field === 'platforms' && o.field === 'projects'
        && !spans.some((q) => q.field !== 'projects' && within(o, q) && (q.end <= s.start || q.start >= s.end));
      const inside = spans.some((o) => (o.field === s.field || (across && o.field === 'instruments') || aProjects(o)) && within(o, s));
      // "GPM SAPHIR on MT1": the mission heading a sensor that is on another platform is the product line's name
      const sensorOn = lex.rules.productLineHeads && s.field === 'platforms' ? spans.find((o) => o.field === 'instruments' && o.start === s.end && tokens[o.end] === 'on') : undefined;
      if (sensorOn && !spans.some((o) => o.field === 'platforms' && o.start === sensorOn.end + 1 && o.name === s.name)) {
        notItsPlatforms.add(s.name); // not from the short name either ("GPM_2APRPSMT1SAPHIR")
        continue;
      }
      if (!inside) out[s.field].add(s.name);
    }
    for (const m of text.matchAll(GCMD_SLASH_NOTATION)) {
      const platform = GCMD_SLASH_PLATFORM_FORMS[m[2].toUpperCase()] ?? m[2].toUpperCase();
      if (lexiconNames(lex, 'instruments').has(m[1].toUpperCase()) && lexiconNames(lex, 'platforms').has(platform)) out.platforms.add(platform);
    }
  }
  for (const name of notItsPlatforms) out.platforms.delete(name);
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
  const familyKey = shortNameFamily(d.shortName) ?? '';
  const family = lex.families.get(familyKey);
  if (family) {
    const company = lex.familyCompany.get(familyKey);
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
    if (lex.rules.hostsYieldToCarriers && [...out.platforms].some((p) => p !== host && carriedBy(lex, instrument, p))) continue;
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
export function lexiconNames(lex: GcmdLexicon, field: GcmdInferredField): Set<string> {
  let n = namesByLexicon.get(lex);
  if (!n) {
    const of = (f: GcmdInferredField) => new Set([...lex.exact[f].values(), ...lex.folded[f].values()].flatMap((v) => [...v]));
    n = { platforms: of('platforms'), instruments: of('instruments'), projects: of('projects') };
    namesByLexicon.set(lex, n);
  }
  return n[field];
}

/** Whether `platform` carries `instrument` by the lexicon's hosts and learned carriers; undefined where it knows neither. */
function carriedBy(lex: GcmdLexicon, instrument: string, platform: string): boolean | undefined {
  const host = lex.hosts.get(instrument);
  const carriers = lex.carriers.get(instrument);
  if (host === undefined && !carriers) return undefined;
  return host === platform || !!carriers?.has(platform);
}
