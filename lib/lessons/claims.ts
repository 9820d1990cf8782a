/**
 * The claim check: the generated sentences a notebook showed (results.json `shownText`, recorded by `showMarkdown`)
 * must agree with the tables it wrote beside them. Two layers:
 *  - a generic check of every paired phrase (`pairedText`'s forms): a 95% CI `[lo, hi]` said to exclude / include 0
 *    must do so; where the bootstrap CI and the randomization p of the same phrase disagree at .05 the phrase
 *    must say so (and must not say so where they agree); a bold "**excludes 0**" calls the difference significant, which
 *    the one rule (`isSignificant`, with the phrase's Holm p where it gives one) must confirm, and a CI that excludes 0
 *    with p < .05 but Holm p ≥ .05 must be said to be not significant after Holm;
 *  - one check per notebook (registered below from each lesson module): the winner it names, the sign it states,
 *    counts and ties, against the tables of its results.json.
 * Each check comes with `falsify`: copies of the results with one claim made false, which the check must catch, so
 * that a test of the check can fail (test/notebook.test.ts runs both on every executed notebook).
 */
import { signed } from '../report/numbers';
import { ciExcludesZero, isSignificant, significanceState, SIGNIFICANCE_LEVEL } from '../metrics/significance';
import type { PairedComparison } from '../metrics/types';
import { NOT_AFTER_HOLM } from '../report/paired-text';

export type Json = Record<string, unknown>;

/** A notebook's own claim check: problems found (empty = every claim agrees), and falsified copies it must catch. */
export interface NotebookClaimCheck {
  /** What the check covers, in a few words (for the test's messages). */
  covers: string;
  check(results: Json): string[];
  /** Copies of `results` with one claim made false (a sentence changed, or a table value it depends on). */
  falsify(results: Json): Json[];
}

/**
 * The typed paired comparisons a results.json records (lib/metrics PairedComparison written as JSON): the objects of
 * an array, [] for anything else. Every check reads comparisons through this one reading.
 */
export function comparisonsIn(value: unknown): PairedComparison[] {
  return Array.isArray(value) ? (value.filter((x) => typeof x === 'object' && x !== null && !Array.isArray(x)) as PairedComparison[]) : [];
}

/** A text as a regular expression that matches it literally (for claim patterns built from row labels). */
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The sentences a notebook showed (results.json `shownText`), or []. */
export function shownSentences(results: Json): string[] {
  const t = results.shownText;
  return Array.isArray(t) ? t.filter((s): s is string => typeof s === 'string') : [];
}

/** A number as the notebooks print it: `+0.031`, `−0.060` (a real minus), `0.5`, `1e-4`. */
export function parseShownNumber(s: string): number {
  return Number(s.replace('−', '-').replace(/^\+/, ''));
}

const NUM = String.raw`[+−-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?`;
const INTERVAL = new RegExp(String.raw`\[(${NUM}), (${NUM})\]`, 'g');

/** One paired phrase found in a text: its interval, what it says of 0, its p and whether it says the tests disagree. */
export interface PairedPhrase {
  text: string;
  lo: number;
  hi: number;
  says: 'excludes' | 'includes' | null;
  /** "**excludes 0**" in bold: the phrase calls the difference significant. */
  saysSignificant: boolean;
  p: number | null;
  /** The Holm-corrected p the phrase gives (`p = 0.035, Holm 0.070`), or null. */
  pHolm: number | null;
  saysDisagree: boolean;
  /** Says the difference is not significant after Holm (`NOT_AFTER_HOLM`). */
  saysNotAfterHolm: boolean;
}

/**
 * Every paired phrase of a text: from a CI interval up to the next interval or the end of its line, the first "excludes 0" /
 * "includes 0" and the first `p = …` after it. Intervals that are not CIs (no "0" claim and no p) are kept with
 * `says: null` and not checked.
 */
export function pairedPhrases(text: string): PairedPhrase[] {
  const hits = [...text.matchAll(INTERVAL)];
  return hits.map((m, i) => {
    // a phrase ends at the next interval or at the end of its line: a closing line such as "No metric's CI excludes 0"
    // speaks of every metric, not of the last interval above it
    const eol = text.indexOf('\n', m.index!);
    const end = Math.min(i + 1 < hits.length ? hits[i + 1].index! : text.length, eol < 0 ? text.length : eol);
    const seg = text.slice(m.index!, end);
    const zero = /\b(excludes|includes) 0\b/.exec(seg);
    const p = new RegExp(String.raw`\bp = (${NUM})(?:, Holm (${NUM}))?`).exec(seg);
    return {
      text: seg.slice(0, 240),
      lo: parseShownNumber(m[1]),
      hi: parseShownNumber(m[2]),
      says: zero ? (zero[1] as 'excludes' | 'includes') : null,
      saysSignificant: /\*\*excludes 0\*\*/.test(seg),
      p: p ? parseShownNumber(p[1]) : null,
      pHolm: p?.[2] ? parseShownNumber(p[2]) : null,
      saysDisagree: /two tests disagree/.test(seg),
      saysNotAfterHolm: seg.includes(NOT_AFTER_HOLM),
    };
  });
}

/** Problems of one text's paired phrases (see the module comment). */
export function pairedPhraseProblems(text: string): string[] {
  const out: string[] = [];
  for (const ph of pairedPhrases(text)) {
    if (ph.says === null) continue;
    const excludes = ciExcludesZero({ ciLow: ph.lo, ciHigh: ph.hi });
    if ((ph.says === 'excludes') !== excludes) out.push(`says the CI [${ph.lo}, ${ph.hi}] ${ph.says} 0: "${ph.text}"`);
    const c = { ciLow: ph.lo, ciHigh: ph.hi, pValue: ph.p, pHolm: ph.pHolm };
    if (ph.saysSignificant && !isSignificant(c)) out.push(`calls significant (bold "excludes 0") what the one rule does not (CI [${ph.lo}, ${ph.hi}], p = ${ph.p}${ph.pHolm === null ? '' : `, Holm ${ph.pHolm}`}): "${ph.text}"`);
    if (ph.p === null) continue;
    const state = significanceState(c);
    const disagree = state === 'tests disagree';
    if (disagree && !ph.saysDisagree) out.push(`CI [${ph.lo}, ${ph.hi}] and p = ${ph.p} disagree at ${SIGNIFICANCE_LEVEL} but the text does not say so: "${ph.text}"`);
    if (!disagree && ph.saysDisagree) out.push(`says the tests disagree where CI [${ph.lo}, ${ph.hi}] and p = ${ph.p} agree: "${ph.text}"`);
    const notAfter = state === 'not after correction';
    if (notAfter && !ph.saysNotAfterHolm) out.push(`CI [${ph.lo}, ${ph.hi}] and p = ${ph.p} are significant raw but Holm p = ${ph.pHolm} ≥ ${SIGNIFICANCE_LEVEL}, and the text does not say so: "${ph.text}"`);
    if (!notAfter && ph.saysNotAfterHolm) out.push(`says "${NOT_AFTER_HOLM}" where CI [${ph.lo}, ${ph.hi}], p = ${ph.p}, Holm ${ph.pHolm} do not: "${ph.text}"`);
  }
  return out;
}

/** The generic check: every paired phrase of every shown sentence. */
export const pairedPhraseCheck: NotebookClaimCheck = {
  covers: 'paired phrases (CI vs 0, CI vs randomization p)',
  check: (results) => shownSentences(results).flatMap(pairedPhraseProblems),
  falsify: (results) => {
    // turn the first "excludes 0" of a CI that does exclude 0 into "includes 0"
    const texts = shownSentences(results);
    for (let i = 0; i < texts.length; i++) {
      const ph = pairedPhrases(texts[i]).find((x) => x.says === 'excludes' && ciExcludesZero({ ciLow: x.lo, ciHigh: x.hi }));
      if (!ph) continue;
      const changed = texts[i].replace(/\bexcludes 0\b/, 'includes 0');
      if (changed === texts[i]) continue;
      return [{ ...results, shownText: texts.map((t, j) => (j === i ? changed : t)) }];
    }
    return [];
  },
};

/** Replace one shown sentence (the first that matches `find`) by `change(it)`; null when none matches or nothing changes. */
export function withShownSentence(results: Json, find: RegExp, change: (s: string) => string): Json | null {
  const texts = shownSentences(results);
  const i = texts.findIndex((t) => find.test(t));
  if (i < 0) return null;
  const changed = change(texts[i]);
  if (changed === texts[i]) return null;
  return { ...results, shownText: texts.map((t, j) => (j === i ? changed : t)) };
}

/** The first shown sentence that matches, or null. */
export function shownWith(results: Json, find: RegExp): string | null {
  return shownSentences(results).find((t) => find.test(t)) ?? null;
}

/** The first shown sentence that matches, or a problem naming what is missing. */
export function findShown(results: Json, find: RegExp, what: string): { text: string | null; problems: string[] } {
  const text = shownWith(results, find);
  return { text, problems: text === null ? [`no shown sentence ${what} (${find})`] : [] };
}

const registry = new Map<string, NotebookClaimCheck[]>();

/** Register a notebook's own check (its two-digit number, e.g. '05'); lesson modules call this once. */
export function registerClaimCheck(notebook: string, check: NotebookClaimCheck): void {
  registry.set(notebook, [...(registry.get(notebook) ?? []), check]);
}

/** The checks of a notebook: the generic paired-phrase check, then its own. */
export function claimChecks(notebook: string): NotebookClaimCheck[] {
  return [pairedPhraseCheck, ...(registry.get(notebook.slice(0, 2)) ?? [])];
}

/** Every problem of a notebook's results.json (empty: its generated sentences agree with its tables). */
export function checkNotebookClaims(notebook: string, results: Json): string[] {
  return claimChecks(notebook).flatMap((c) => c.check(results).map((p) => `${c.covers}: ${p}`));
}

/** Falsified copies of a notebook's results, each of which `checkNotebookClaims` must catch. */
export function falsifiedClaims(notebook: string, results: Json): { covers: string; results: Json }[] {
  return claimChecks(notebook).flatMap((c) => c.falsify(results).map((r) => ({ covers: c.covers, results: r })));
}

/**
 * A style verdict (`styleVerdict`: "**A** beats/trails **B** by ±Δ nDCG@10 overall [95% CI …]") against the rows it was
 * made from (`StyleRow`s with `vsReference`): the sign and the Δ it quotes. Rows for `system` but no sentence, or a
 * sentence saying there are no rows while there are, is a problem too.
 */
export function styleVerdictProblems(results: Json, rows: readonly Record<string, unknown>[], system: string, reference: string): string[] {
  const all = rows.find((x) => x.system === system && x.style === 'all') as { vsReference?: Record<string, { diff: number }> } | undefined;
  const sentences = shownSentences(results);
  const none = sentences.find((t) => t.startsWith(`No per-style rows for ${system} against ${reference}`));
  if (!all?.vsReference) return none || rows.length === 0 ? [] : [`no paired rows of ${system} against ${reference} although the style table has rows`];
  if (none) return [`says there are no per-style rows for ${system} against ${reference}; the table has them`];
  const text = sentences.find((t) => new RegExp(`\\*\\*${escapeRegExp(system)}\\*\\* \\S+ \\*\\*${escapeRegExp(reference)}\\*\\* by`).test(t));
  if (!text) return [`no style verdict of ${system} against ${reference}`];
  const d = all.vsReference['nDCG@10'];
  const says = new RegExp(`\\*\\*${escapeRegExp(system)}\\*\\* (\\S+) \\*\\*${escapeRegExp(reference)}\\*\\* by (\\S+) nDCG@10 overall`).exec(text);
  if (!says) return [`the style verdict of ${system} against ${reference} is not in its usual form`];
  const out: string[] = [];
  if (says[2] !== signed(d.diff)) out.push(`the style verdict of ${system} against ${reference} says Δ nDCG@10 ${says[2]}, the table has ${signed(d.diff)}`);
  if ((says[1] === 'beats') !== d.diff > 0) out.push(`the style verdict says ${system} ${says[1]} ${reference} with Δ ${signed(d.diff)}`);
  return out;
}
