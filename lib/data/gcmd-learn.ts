/**
 * What CMR's own records teach the GCMD inference (gcmd-infer.ts), each from the records that carry CMR's values: the
 * hosts of instruments (AIRS → AQUA), the names a product family lists in nearly every record, and the names CMR lists
 * after words of a title (title cues). None of them reads a record's inferred names; the providers' habits, which do,
 * are learned in gcmd-infer.ts.
 */
import type { DatasetRecord } from './types';
import { EoError } from '../errors';
import { shortHash } from '../util/hash';
import { GCMD_INFERRED_FIELDS, gcmdTokens, type GcmdInferredField, type GcmdLexicon, type GcmdNeighbourRecord, type TitleCue } from './gcmd-lexicon';

/**
 * The instruments that CMR lists, as a record's only instrument, with one and the same platform in at least
 * `minRecords` records and at least `minShare` of such records, no other platform in `1 − minShare` of them: AIRS →
 * AQUA, SeaWiFS → OrbView-2; MODIS (Terra and Aqua) is not one. Learn it from the records it is measured on only when
 * they are not the ones reported (`gcmdInferenceHalf`: learn on dev, report test).
 */
export function learnInstrumentHosts(datasets: readonly Pick<DatasetRecord, GcmdInferredField>[], minRecords = 3, minShare = 0.9): Map<string, string> {
  const { records, seen } = instrumentPlatforms(datasets);
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
 * Every platform CMR lists with an instrument, as a record's only instrument (`learnInstrumentHosts`' reading): MLS →
 * AURA and UARS. A record that names one of them is not given the instrument's host (`GcmdLexicon.carriers`).
 */
export function learnInstrumentCarriers(datasets: readonly Pick<DatasetRecord, GcmdInferredField>[]): Map<string, ReadonlySet<string>> {
  return new Map([...instrumentPlatforms(datasets).seen].map(([instrument, m]) => [instrument, new Set(m.keys())]));
}

/** Instrument → the records listing it as their only one, and → platform → the records listing both. */
function instrumentPlatforms(datasets: readonly Pick<DatasetRecord, GcmdInferredField>[]): { records: Map<string, number>; seen: Map<string, Map<string, number>> } {
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
  return { records, seen };
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
  const out = new Map<string, Partial<Record<GcmdInferredField, string[]>>>();
  for (const [key, t] of familyTallies(datasets)) {
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

/**
 * Per product family and field, every name CMR lists in any of its records (`GcmdLexicon.familyCompany`; the OCO family's
 * records list OCO-2, never OCO-3).
 */
export function learnFamilyCompany(datasets: readonly Pick<DatasetRecord, GcmdInferredField | 'shortName'>[]): Map<string, Partial<Record<GcmdInferredField, ReadonlySet<string>>>> {
  return new Map([...familyTallies(datasets)].map(([key, t]) => [key, Object.fromEntries(GCMD_INFERRED_FIELDS.filter((f) => t[f].records).map((f) => [f, new Set(t[f].names.keys())]))]));
}

/** Product family (`shortNameFamily`) → per field, its records that list the field and how many list each name; by family. */
function familyTallies(datasets: readonly Pick<DatasetRecord, GcmdInferredField | 'shortName'>[]): [string, Record<GcmdInferredField, { records: number; names: Map<string, number> }>][] {
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
  return [...tally.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/**
 * The share of a product family's records, of those whose title and short name name something in a field, that must
 * name one of the family's names there for the family to keep them (`familiesTheirTextsAgreeWith`); 0 keeps all.
 * Platforms and instruments only: CMR's projects are mostly programmes a title does not name (held-out projects F1
 * .855 → .853 with them). Two-fold CV inside the dev half (`bench/gcmd-cues-cv.cjs --study rules`, 2026-12-06, night):
 * platforms .967 / .871 → .969 / .871, instruments .946 / .903 → .948 / .901 (a share of .34: instruments unchanged;
 * .67: as .5). The dev half cannot see the records it is for (those without CMR's values): half is the plain majority.
 */
export const FAMILY_AGREEMENT = 0.5;
const FAMILY_AGREEMENT_FIELDS: readonly GcmdInferredField[] = ['platforms', 'instruments'];

/**
 * Product families (`learnFamilyNames`) less the platforms and instruments their own records' texts disagree with:
 * of a family's `records` whose texts name something in the field (`named`, read without the families; at least 3),
 * fewer than `share` name one of the family's names. CMR's values are not read, so every record counts: GPM_'s 8
 * records with values are SAPHIR on MT1, and its other 190 ("GPM SSMIS on F16", "GPM MHS on NOAA-19") all got
 * SAPHIR and its host MT1.
 */
export function familiesTheirTextsAgreeWith<R extends Pick<DatasetRecord, 'shortName'>>(
  families: GcmdLexicon['families'], records: readonly R[], named: (d: R) => Record<GcmdInferredField, string[]>, share = FAMILY_AGREEMENT,
): GcmdLexicon['families'] {
  const tally = new Map<string, { naming: number; agreeing: number }>(); // by family and field
  for (const d of records) {
    const key = shortNameFamily(d.shortName);
    const family = key === null ? undefined : families.get(key);
    if (!family) continue;
    const names = named(d);
    for (const f of FAMILY_AGREEMENT_FIELDS) {
      if (!family[f] || !names[f].length) continue;
      const c = tally.get(`${key}\t${f}`) ?? { naming: 0, agreeing: 0 };
      c.naming++;
      if (names[f].some((x) => family[f]!.includes(x))) c.agreeing++;
      tally.set(`${key}\t${f}`, c);
    }
  }
  const out: GcmdLexicon['families'] = new Map();
  for (const [key, family] of families) {
    const kept = Object.fromEntries(Object.entries(family).filter(([f]) => {
      const c = tally.get(`${key}\t${f}`);
      return !c || c.naming < 3 || c.agreeing >= share * c.naming;
    }));
    if (Object.keys(kept).length) out.set(key, kept);
  }
  return out;
}

/** What `learnShortNameNeighbours` and `shortNameNeighbourNames` take for a record's short-name neighbours. */
export interface ShortNameNeighbourOptions {
  /** The shortest leading part of a short name that makes two records neighbours, in characters. Default 7. */
  minPrefix: number;
  /** The neighbours (of the longest shared prefix) needed before their names are taken. Default 1. */
  minRecords: number;
  /** … and a name is taken when at least this share of them list it (every one, at the default). Default 1. */
  minShare: number;
}

/**
 * Chosen by two-fold cross-validation within the dev half (`node bench/gcmd-cues-cv.cjs --study neighbours`; precision
 * / recall / F1 of the held-out folds, title + short name + abstract fallback, 2026-12-06), by the platforms' F1 as the
 * title cues were chosen: none .958 / .789 / .865; filling an empty field from ≥ 2 records .957 / .840 / .895 (prefixes
 * ≥ 4–6), ≥ 3 records .959 / .812; from the nearest record (≥ 1) with a prefix of ≥ 4 or 5 characters .951 / .871 /
 * .910, ≥ 6 .958 / .871 / .913, ≥ 7 .960 / .871 / .913, ≥ 8 .961 / .858 / .907 (shares of .9 and 1 alike); adding
 * to every field instead .908–.935 precision. With the default, instruments .945 / .884 → .942 / .903 and projects
 * .862 / .796 → .863 / .800 (those rows fill back the names a record's texts deny; `inferGcmdEntities`, the bench's
 * "default" row, does not).
 */
export const DEFAULT_SHORT_NAME_NEIGHBOURS: Readonly<ShortNameNeighbourOptions> = Object.freeze({ minPrefix: 7, minRecords: 1, minShare: 1 });

/**
 * The shortest prefix `learnShortNameNeighbours` keeps by default: that of the neighbours' veto
 * (`GcmdInferenceRules.vetoMinPrefix`), below the filling's (`DEFAULT_SHORT_NAME_NEIGHBOURS.minPrefix`).
 */
export const NEIGHBOUR_PREFIXES_KEPT = 3;

/** The key of a provider's short-name prefix in `GcmdLexicon.neighbours` (lower case). */
export function shortNamePrefixKey(daac: string, prefix: string): string {
  return `${daac}\t${prefix.toLowerCase()}`;
}

/**
 * The records that carry CMR's values, under each leading part of their short names of at least `minPrefix`
 * characters at their provider (`shortNamePrefixKey`): the TRMM ground-validation products 2A52 … 2A56 meet under
 * `trmm_2a5`, GSSTF_F08 … F15 under `gsstf_f`, the CMS Lake products under `cmslake`. Learn it on
 * the records it is not measured on (`gcmdInferenceHalf`), or measure a record without itself (the lookup leaves a
 * record's own id out).
 */
export function learnShortNameNeighbours(
  datasets: readonly Pick<DatasetRecord, GcmdInferredField | 'shortName' | 'daac' | 'id'>[], minPrefix = NEIGHBOUR_PREFIXES_KEPT,
): Map<string, GcmdNeighbourRecord[]> {
  const out = new Map<string, GcmdNeighbourRecord[]>();
  for (const d of datasets) {
    const names: Partial<Record<GcmdInferredField, string[]>> = {};
    for (const f of GCMD_INFERRED_FIELDS) {
      const n = recordedGcmdNames(d, f);
      if (n.length) names[f] = n;
    }
    const shortName = d.shortName ?? '';
    if (!Object.keys(names).length || shortName.length < minPrefix) continue;
    const entry = { id: d.id, names };
    for (let n = minPrefix; n <= shortName.length; n++) {
      const key = shortNamePrefixKey(d.daac, shortName.slice(0, n));
      let list = out.get(key);
      if (!list) out.set(key, (list = []));
      list.push(entry);
    }
  }
  return out;
}

/**
 * The names in `field` that the record's nearest short-name neighbours at its provider all list
 * (`ShortNameNeighbourOptions`): those under the longest prefix of its short name shared by at least `minRecords` of
 * them that list the field, the record itself left out; none when they disagree.
 */
export function shortNameNeighbourNames(
  d: Pick<DatasetRecord, 'shortName'> & { daac?: string; id?: string }, lex: Pick<GcmdLexicon, 'neighbours'>, field: GcmdInferredField,
  options: Partial<ShortNameNeighbourOptions> = {},
): string[] {
  const { minPrefix, minRecords, minShare } = { ...DEFAULT_SHORT_NAME_NEIGHBOURS, ...options };
  const shortName = d.shortName ?? '';
  if (d.daac === undefined || !lex.neighbours.size) return [];
  for (let n = shortName.length; n >= minPrefix; n--) {
    const group = (lex.neighbours.get(shortNamePrefixKey(d.daac, shortName.slice(0, n))) ?? []).filter((x) => x.id !== d.id && x.names[field]);
    if (group.length < minRecords) continue;
    const counts = new Map<string, number>();
    for (const x of group) for (const name of x.names[field]!) counts.set(name, (counts.get(name) ?? 0) + 1);
    return [...counts].filter(([, c]) => c >= minShare * group.length).map(([name]) => name).sort();
  }
  return [];
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
export function titleCueKeys(d: Pick<DatasetRecord, 'longName' | 'shortName'> & { daac?: string }): string[] {
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
 * "DORIS" → IDS, "SLR" → ILRS, "NARSTO" → NARSTO, with every name those records list (`TitleCue.listedWith`, for
 * `GcmdInferenceRules.cuesNeedTheirCompany`). The projects CMR lists are mostly programmes a title does not name
 * by GCMD's name. Chosen by two-fold cross-validation within the dev half (`node bench/gcmd-cues-cv.cjs`; projects,
 * precision / recall of the held-out folds): none .884 / .632; every record with the word (scope `corpus`) (3, .9)
 * .847 / .760 (the default until 2026-12-05), (5, .95) .879 / .729; the word at the provider it was learned from
 * (scope `provider`) (3, .9) .830 / .789, (3, 1) .851 / .785; without plain words as cues, corpus (3, .9) .877 / .751,
 * provider (3, 1) .880 / .764 (above the corpus-wide cues in both), (2, 1) .862 / .796 — the default, by the held-out
 * F1 (.827 against .801 before), as the corpus-wide setting was chosen; still first with the cues' company
 * (2026-12-06, night: .935 / .784 / .853; (2, .9) .896 / .807 / .849, (3, 1) .942 / .763 / .843). For platforms and instruments the
 * cues cost precision (dev in-sample platforms .974 → .946) and are not learned. Learn it on the records it is not
 * measured on (`gcmdInferenceHalf`: learn on dev, report test).
 */
export function learnTitleCues(datasets: readonly DatasetRecord[], options: Partial<TitleCueOptions> = {}): Partial<Record<GcmdInferredField, Map<string, TitleCue>>> {
  const { fields, minRecords, minShare, scope, plainWords: plain } = { ...DEFAULT_TITLE_CUE_OPTIONS, ...options };
  if (scope !== 'corpus' && scope !== 'provider') throw new EoError('CONFIG', `title cues: scope must be "corpus" or "provider" (got ${JSON.stringify(scope)})`);
  if (!(Number.isInteger(minRecords) && minRecords >= 1) || !(minShare > 0 && minShare <= 1)) throw new EoError('CONFIG', `title cues: minRecords must be an integer ≥ 1 and minShare in (0, 1] (got ${minRecords}, ${minShare})`);
  const out: Partial<Record<GcmdInferredField, Map<string, TitleCue>>> = {};
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
    const cues = new Map<string, TitleCue>();
    for (const [w, n] of [...withWord.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      if (n < minRecords) continue;
      const names = [...together.get(w)!.entries()].filter(([, c]) => c >= minShare * n).map(([name]) => name).sort();
      if (names.length) cues.set(w, { names, listedWith: [...together.get(w)!.keys()].sort() });
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
