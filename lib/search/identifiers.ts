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
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { topKIndices } from '../retrieve/topk';
import {
  DEFAULT_IDENTIFIER_RULE, REQUIREMENT_CLASS, TYPE_KINDS, WORD, words,
  type IdentifierGroup, type IdentifierKind, type IdentifierRule, type IdentifierVocabulary, type NamedIdentifier, type RequirementClass,
} from './identifier-vocabulary';

// the vocabulary's names are this module's API too (one import for the rule and what it reads)
export {
  DEFAULT_IDENTIFIER_RULE, IDENTIFIER_KINDS, TYPE_KINDS, identifierKey, identifierAliasFile, normalizeLevel, identifierVocabulary,
  type IdentifierKind, type IdentifierGroup, type IdentifierVocabulary, type NamedIdentifier, type IdentifierRule, type IdentifierVocabularyOptions, type RequirementClass,
} from './identifier-vocabulary';

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
