/**
 * Query repair: what a user types is mended before retrieval, and the answer says so ("showing results for …,
 * search instead for …").
 *   - spelling: a token the corpus does not know is corrected to the most frequent known token within a small
 *     Damerau–Levenshtein distance (1 edit under 10 letters, 2 from 10; candidates from a SymSpell-style deletes
 *     index, never a scan of the vocabulary), its first letter kept;
 *   - split / join: "landsurface" → "land surface" (the corpus writes the two words side by side), "strato
 *     sphere" → "stratosphere" (one part unknown, the whole known);
 *   - abbreviations ("temp", "precip", "sst", "ndvi"… from `data/repair.json`) and acronyms found in the corpus
 *     ("Land Surface Temperature (LST)") and GCMD keywords: the token stays and its expansion is added after it;
 *   - another language (French, Spanish, German, Portuguese, Italian by function words and diacritics; CJK,
 *     Cyrillic, Arabic by script): a note that the corpus is English; the query is then searched as typed.
 * Left alone: words with digits or joined by `-_./` (MOD11A2, L3, 2015, OCO-2), identifiers of the corpus (any
 * token of a platform, instrument, project or DAAC, a whole short name; any case), words with a capital after the
 * first letter (GCIP, SmallSat), tokens of fewer than `minLetters` letters, English function words, and known words
 * (their inflections included). Spelling needs a corpus of `minCorpusDatasets` datasets.
 *
 * The vocabulary comes from the datasets' fields (longName, shortName, keywords, platforms, instruments, projects,
 * abstract), with token frequencies, plus the GCMD keyword file beside the corpus, `vocabulary.json`, the router's
 * gazetteer (place names) and everyday English words (`repair.json`); built once per corpus object
 * (`loadRepairVocabulary`). English function words are known but never a correction ("haze" is not "have").
 */
import { damerauLevenshtein, deleteHashes, PREFIX, TARGET_SLOTS } from './repair-vocabulary';
import type { RepairChange, RepairOptions, RepairVocabulary, QueryRepair } from './repair-types';

// the types live in repair-types.ts (repair-vocabulary.ts reads them too); their names stay importable from here
export type { RepairChange, RepairOptions, RepairReason, RepairVocabulary, QueryRepair, ResolvedRepairOptions } from './repair-types';

/** Suffixes whose removal from an unknown token may give a known word ("retrievals" → "retrieval"). */
const SUFFIXES = ['s', 'es', 'ies', 'ed', 'd', 'ing', 'ly', 'al', 'ally', 'er', 'ers', 'ic', 'ical', 'ity', 'ities', 'ion', 'ions', 'ation', 'ations', 'ment', 'ments', 'ness', 'ous', 'ive', 'ize', 'ized', 'izing', 'ise', 'ised', 'ising', 'an', 'ian', 'n'];

function known(v: RepairVocabulary, w: string): boolean {
  const k = v.options.minKnownFrequency;
  if ((v.frequency.get(w) ?? 0) >= k) return true;
  for (const s of SUFFIXES) {
    if (!w.endsWith(s) || w.length - s.length < 3) continue;
    const stem = w.slice(0, w.length - s.length);
    // a silent e goes before a vowel suffix only ("profiling" → profile, but "profils" is no inflection of it)
    const e = /^[aeiou]/.test(s) && (v.frequency.get(stem + 'e') ?? 0) >= k;
    if ((v.frequency.get(stem) ?? 0) >= k || e || (s === 'ies' && (v.frequency.get(stem + 'y') ?? 0) >= k)) return true;
  }
  return false;
}

const singular = (w: string) => w.replace(/(?:es|s)$/, '');

/** The best correction of an unknown lower-case token, or null (see `RepairOptions.frequencyWeight`). */
export function correctToken(v: RepairVocabulary, w: string): { to: string; distance: number } | null {
  const o = v.options;
  const maxD = w.length >= o.twoEditsFrom ? 2 : 1;
  const minF = Math.max(o.minTargetFrequency, o.targetRatio * Math.max(1, v.frequency.get(w) ?? 0));
  const seen = new Set<string>();
  let best: { to: string; distance: number; cost: number; f: number } | null = null;
  for (const h of deleteHashes(w.slice(0, PREFIX), maxD, [])) {
    // the index's entries of hash h: [h · 2^20, (h + 1) · 2^20)
    const lo = h * TARGET_SLOTS;
    let a = 0;
    let b = v.deletes.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (v.deletes[m] < lo) a = m + 1;
      else b = m;
    }
    for (let e = a; e < v.deletes.length && v.deletes[e] < lo + TARGET_SLOTS; e++) {
      const c = v.targets[v.deletes[e] - lo];
      if (seen.has(c) || c === w) continue;
      seen.add(c);
      // the first letter is kept (it is rarely the one mistyped, and names differ from words there: Herman, German);
      // a plural's "s" is no correction (BM25's stemmer already joins them)
      if (c[0] !== w[0] || singular(c) === singular(w)) continue;
      const f = v.frequency.get(c) ?? 0;
      if (f < minF || c.length < o.minLetters) continue;
      const d = damerauLevenshtein(w, c, maxD);
      if (d > maxD) continue;
      const cost = d - o.frequencyWeight * Math.log10(f);
      if (!best || cost < best.cost || (cost === best.cost && c < best.to)) best = { to: c, distance: d, cost, f };
    }
  }
  return best ? { to: best.to, distance: best.distance } : null;
}

/** Word-forming prefixes: "multisatellite", "subseasonal", "preface" are words, not two run together. */
const PREFIXES = new Set(['multi', 'sub', 'super', 'pre', 'counter', 'trans', 'inter', 'intra', 'over', 'under', 'non', 'semi', 'micro', 'macro', 'hyper', 'ultra', 'anti', 'post', 'mid', 'out', 'down', 'back', 'geo', 'hydro', 'photo', 'thermo', 'bio', 'eco', 'meso', 'mega', 'nano', 'poly', 'mono', 'tele', 'auto', 'cross', 'self', 'extra', 'infra', 'para', 'peri', 'pro', 'cyber', 'agro']);

/**
 * "landsurface" → ["land", "surface"]: the split into two known parts (3+ letters each, the first no word-forming
 * prefix) that the corpus writes side by side (`minSplitPhraseCount` times, and `targetRatio` times as often as the
 * token itself), the first of the three whose rarer part is most frequent.
 */
export function splitToken(v: RepairVocabulary, w: string): [string, string] | null {
  const min = v.options.minTargetFrequency;
  // the two words side by side must be far commoner than the token itself ("eyewall" is a word, "landsurface" a slip)
  const need = Math.max(v.options.minSplitPhraseCount, v.options.targetRatio * (v.frequency.get(w) ?? 0));
  const candidates: { parts: [string, string]; f: number }[] = [];
  for (let i = 3; i <= w.length - 3; i++) {
    const a = w.slice(0, i);
    const b = w.slice(i);
    if (v.english.has(a) || v.english.has(b) || PREFIXES.has(a)) continue;
    const f = Math.min(v.frequency.get(a) ?? 0, v.frequency.get(b) ?? 0);
    if (f >= min) candidates.push({ parts: [a, b], f });
  }
  // the phrase check scans the corpus: only for the three splits with the most frequent parts
  candidates.sort((x, y) => y.f - x.f);
  return candidates.slice(0, 3).find((c) => v.phraseCount(c.parts[0], c.parts[1], need) >= need)?.parts ?? null;
}

/** Scripts whose text is noted as another language than English. */
const SCRIPTS: { code: string; name: string; re: RegExp }[] = [
  { code: 'cjk', name: 'Chinese, Japanese or Korean', re: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u },
  { code: 'cyrillic', name: 'a Cyrillic script', re: /\p{Script=Cyrillic}/u },
  { code: 'arabic', name: 'Arabic', re: /\p{Script=Arabic}/u },
];

/**
 * The language a query is mostly written in, when not English: more than half its letters in a CJK, Cyrillic or
 * Arabic script; or at least 2 of its words are one language's own function words (no English word) or carry its
 * diacritics, and with the function words it shares with English ("no", "do") they make at least 40% of the words
 * and outnumber the English words (function words, and corpus words of 4+ letters that are not place names). Null
 * for English, and for English with foreign names ("El Niño sea surface temperature", "Rio de Janeiro rainfall").
 */
export function detectQueryLanguage(v: RepairVocabulary, text: string): { code: string; name: string } | null {
  const ascii = !/[^\x00-\x7f]/.test(text); // the common case: no other script, no diacritics
  if (!ascii) {
    const letters = [...text].filter((c) => /\p{L}/u.test(c));
    for (const s of SCRIPTS) if (letters.filter((c) => s.re.test(c)).length > letters.length / 2) return { code: s.code, name: s.name };
  }
  const words = text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.length === 0) return null;
  const marked = (w: string, diacritics: string) => !ascii && [...w].some((c) => diacritics.includes(c));
  let best: { code: string; name: string; n: number; own: number; en: number } | null = null;
  for (const l of v.languages) {
    // own: the language's words that are no English word, and words with its diacritics; shared: "no", "do", "in"…
    const own = words.filter((w) => (l.words.has(w) && !v.english.has(w)) || marked(w, l.diacritics)).length;
    const shared = words.filter((w) => l.words.has(w) && v.english.has(w)).length;
    // English: its function words, and corpus words of 4+ letters that are no place name ("El Niño sea surface temperature")
    const en = words.filter((w) => !l.words.has(w) && (v.english.has(w) || (w.length >= 4 && !v.placeWords.has(w) && known(v, w) && !marked(w, l.diacritics)))).length;
    if (!best || own + shared > best.n) best = { code: l.code, name: l.name, n: own + shared, own, en };
  }
  if (!best || best.own < 2 || best.n < 0.4 * words.length || best.n <= best.en) return null;
  return { code: best.code, name: best.name };
}

/** A query word: its text, and the part of it repair may change (punctuation around it kept). */
interface Word {
  lead: string;
  core: string;
  tail: string;
}

function splitWords(text: string): Word[] {
  return text.split(/\s+/).filter(Boolean).map((w) => {
    const m = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/u.exec(w)!;
    return { lead: m[1], core: m[2], tail: m[3] };
  });
}

/**
 * A word spelling repair may change: letters only (no digits, no `-_./` inside), no capital after the first letter
 * (acronyms such as GCIP, names such as SmallSat), not an identifier or function word.
 */
function repairable(v: RepairVocabulary, core: string): boolean {
  if (!/^\p{L}\p{Ll}*$/u.test(core)) return false;
  const w = core.toLowerCase();
  return !v.identifiers.has(w) && !v.english.has(w);
}

/** Keep the case of the first letter ("Temprature" → "Temperature"). */
const likeCase = (orig: string, w: string) => (/^\p{Lu}/u.test(orig) && !/^\p{Lu}+$/u.test(orig) ? w[0].toUpperCase() + w.slice(1) : orig === orig.toUpperCase() && orig.length > 1 ? w.toUpperCase() : w);

/**
 * Repair one query (the text retrieval scores). Returns null when nothing changed and no note is due; otherwise the
 * repaired text, each change and its reason, and a note for a query in another language (searched as typed).
 */
export function repairQuery(text: string, v: RepairVocabulary): QueryRepair | null {
  const lang = detectQueryLanguage(v, text);
  if (lang)
    return {
      original: text, repaired: text, changes: [], language: lang.code,
      note: `This query looks written in ${lang.name}; the corpus (NASA CMR collection metadata) is in English, so few of its words can match. It was searched as typed; English words find more.`,
    };
  const o = v.options;
  const words = splitWords(text);
  const changes: RepairChange[] = [];
  const out: string[] = [];
  // the query's words, space-delimited: an expansion the query already holds is not added ("lnd island" still gets "land")
  const queryWords = ` ${text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).join(' ')} `;
  const isUnknown = (core: string) => v.spelling && repairable(v, core) && !known(v, core.toLowerCase());
  for (let i = 0; i < words.length; i++) {
    const { lead, core, tail } = words[i];
    const lw = core.toLowerCase();
    // join: "strato sphere" → "stratosphere" when one part is unknown and the whole is a known word
    const next = words[i + 1];
    if (next && tail === '' && next.lead === '' && repairable(v, core) && repairable(v, next.core) && (isUnknown(core) || isUnknown(next.core))) {
      const joined = lw + next.core.toLowerCase();
      if ((v.frequency.get(joined) ?? 0) >= o.minTargetFrequency && joined.length >= o.minLetters) {
        changes.push({ from: `${core} ${next.core}`, to: joined, reason: 'join' });
        out.push(lead + joined + next.tail);
        i++;
        continue;
      }
    }
    let word = core;
    const added: string[] = [];
    if (/^\p{L}+$/u.test(core) && !v.identifiers.has(lw)) {
      const abbr = v.abbreviations.get(lw);
      const acr = abbr ? undefined : v.acronyms.get(lw);
      // an acronym found in the corpus counts when written in capitals, or when the corpus writes it so ("lst", not "ice")
      const acronymLike = core.length >= 2 && (core === core.toUpperCase() || (core === lw && (v.capitals.get(lw) ?? 0) * 2 >= (v.frequency.get(lw) ?? 0)));
      const exp = abbr ?? (acr && acronymLike && !v.english.has(lw) ? acr.expansion : undefined);
      if (exp && !queryWords.includes(` ${exp.toLowerCase()} `)) {
        added.push(exp);
        changes.push({ from: core, to: exp, reason: abbr ? 'abbreviation' : 'acronym', source: abbr ? 'repair.json' : acr!.source });
      } else if (!exp && [...core].length >= o.minLetters && /^[a-zA-Z]+$/.test(core) && isUnknown(core)) {
        // a 1-edit correction is likelier than a split ("aersol" is not "aer sol"); a split than a 2-edit one
        const fix = correctToken(v, lw);
        const split = fix?.distance === 1 ? null : splitToken(v, lw);
        if (split) {
          word = split.join(' ');
          changes.push({ from: core, to: word, reason: 'split' });
        } else if (fix) {
          word = likeCase(core, fix.to);
          changes.push({ from: core, to: word, reason: 'spelling', distance: fix.distance });
        }
      }
    }
    out.push(lead + [word, ...added].join(' ') + tail);
  }
  if (changes.length === 0) return null;
  return { original: text, repaired: out.join(' '), changes };
}

/** One line for people: `Showing results for "…". Search instead for "…"` (with the note, when there is one). */
export function describeRepair(r: QueryRepair, original = r.original): string {
  const parts: string[] = [];
  if (r.repaired !== r.original) parts.push(`Showing results for "${r.repaired}". Search instead for "${original}"`);
  if (r.note) parts.push(r.note);
  return parts.join('. ');
}
