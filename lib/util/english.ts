/** English text helpers shared by the stop-word BM25 (`lib/retrieve/bm25-stop.ts`) and the static encoder's tokenizer. */

/**
 * English stop words: the function words of the NLTK / Snowball English list (pronouns, articles, auxiliaries,
 * prepositions, conjunctions) plus the request words users put before a need ("find", "need", "data", "dataset").
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(`
a about above after again against all am an and any are as at be because been before being below between both but by
can could did do does doing down during each few for from further had has have having he her here hers herself him
himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other
our ours ourselves out over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which while who whom why will
with would you your yours yourself yourselves also any may might must shall via per within without across along among
upon whether et al e g eg ie
find need want looking look show give get use using used please data dataset datasets
`.trim().split(/\s+/));

/** Words ending in -s that are singular (or whose plural the rules below would mangle), kept as they are. */
const S_STEM_KEEP: ReadonlySet<string> = new Set(['series', 'species', 'gas', 'lens', 'mars', 'atlas', 'canvas', 'bias', 'alias', 'chaos', 'cosmos', 'ethos']);

/**
 * Plural-only light stemming after Harman's S-stemmer (1991): -ies → -y (not -eies, -aies), -es → -e (not -aes, -ees,
 * -oes), -s → '' (not -us, -ss, -is). Two additions keep the plurals of -s/-x/-z/-ch/-sh words whole: -sses, -xes,
 * -zes, -ches, -shes drop -es ("fluxes" → "flux", "classes" → "class"), and "gases" → "gas". Words of three letters or
 * fewer, `S_STEM_KEEP` and tokens with a digit are left alone ("MOD11s" stays an identifier).
 */
export function sStem(token: string): string {
  if (token.length <= 3 || S_STEM_KEEP.has(token) || /\d/.test(token)) return token;
  if (token === 'gases') return 'gas';
  if (token.endsWith('ies') && !token.endsWith('eies') && !token.endsWith('aies')) return token.slice(0, -3) + 'y';
  if (/(?:ss|x|z|ch|sh)es$/.test(token)) return token.slice(0, -2);
  if (token.endsWith('es') && !token.endsWith('aes') && !token.endsWith('ees') && !token.endsWith('oes')) return token.slice(0, -1);
  if (token.endsWith('s') && !token.endsWith('us') && !token.endsWith('ss') && !token.endsWith('is')) return token.slice(0, -1);
  return token;
}

/** Sentences of an abstract with their start offsets: split after . ! ? followed by space and an upper-case letter/digit/bracket. */
export function abstractSentences(abstract: string): { text: string; start: number }[] {
  const clean = (x: string) => x.replace(/\s+/g, ' ').trim();
  const out: { text: string; start: number }[] = [];
  const re = /[.!?](?=\s+[A-Z0-9(["])/g;
  let start = 0;
  let m: RegExpExecArray | null;
  const push = (end: number) => {
    const raw = abstract.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const text = clean(raw);
    if (text) out.push({ text, start: start + lead });
  };
  while ((m = re.exec(abstract)) !== null) {
    push(m.index + 1);
    start = m.index + 1;
  }
  push(abstract.length);
  return out;
}
