#!/usr/bin/env node
// Which words mark a named mission, platform, instrument or project as context rather than the wanted data? Counted on
// the corpus alone (no benchmark query is read): in every abstract, each name of the identifier vocabulary
// (`identifierVocabulary`) is found, and the three words before it are tallied by whether the dataset carries that name
// (its own) or not (context, e.g. "the successor of TRMM" in a GPM abstract). Words that precede an unowned name far
// above the base rate are candidate cues; lib/search/identifiers.ts's CONTEXT_CUES cites this output.
//   node bench/identifier-context-cues.cjs [--sample] [--min-count 9] [--top 40] [--words before,pre,gap]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'words before a named mission/instrument in abstracts: how often the dataset does not carry the name (context cues)',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    'min-count': { type: 'int', default: 9, min: 1, help: 'a word is listed when it precedes at least this many names' },
    top: { type: 'int', default: 40, min: 1, help: 'how many words to list, by context share' },
    words: { type: 'list', default: [], placeholder: 'A,B,…', help: 'words whose counts are printed whatever their rank (default: CONTEXT_CUES and gap)' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/search/identifiers') };

const KINDS = new Set(['platform', 'instrument', 'mission', 'project']);
const WORD = /[\p{L}\p{N}]+/gu;

function main() {
  const corpus = eo.loadSnapshot({ sample: args.sample });
  const vocab = eo.identifierVocabulary(corpus);
  const tally = new Map(); // word → [own, context]
  let own = 0;
  let context = 0;
  corpus.datasets.forEach((d, row) => {
    const toks = [...d.abstract.matchAll(WORD)].map((m) => m[0].toLowerCase());
    for (let s = 0; s < toks.length; s++) {
      // the longest vocabulary name starting at word s
      let key = '';
      let hit = null;
      for (let e = s; e < Math.min(toks.length, s + vocab.maxWords); e++) {
        key += toks[e];
        const gis = vocab.byKey.get(key);
        if (gis) hit = { e, gis };
      }
      if (!hit) continue;
      if (KINDS.has(vocab.groups[hit.gis[0]].kind)) {
        const carries = hit.gis.some((gi) => vocab.groups[gi].carriers.includes(row));
        if (carries) own++;
        else context++;
        for (let j = Math.max(0, s - 3); j < s; j++) {
          const v = tally.get(toks[j]) ?? [0, 0];
          v[carries ? 0 : 1]++;
          tally.set(toks[j], v);
        }
      }
      s = hit.e;
    }
  });
  const share = ([a, b]) => (b + 1) / (a + b + 2); // add-one smoothed share of context
  console.log(`${corpus.datasets.length} abstracts: ${own + context} names (${KINDS.size} kinds), ${context} of them not carried by the dataset: base rate ${(context / (own + context)).toFixed(3)}`);
  const rows = [...tally.entries()].filter(([, v]) => v[0] + v[1] >= args.minCount).sort((x, y) => share(y[1]) - share(x[1]) || x[0].localeCompare(y[0]));
  const line = (w, v) => `${w.padEnd(16)} own ${String(v[0]).padStart(5)}  context ${String(v[1]).padStart(5)}  share ${share(v).toFixed(3)}`;
  console.log(`\nwords before ≥ ${args.minCount} names, by context share (top ${args.top}):`);
  for (const [w, v] of rows.slice(0, args.top)) console.log(line(w, v));
  const words = args.words.length ? args.words : ['before', 'pre', 'prior', 'after', 'post', 'extend', 'continue', 'successor', 'predecessor', 'heritage', 'analogous', 'identical', 'coincident', 'discontinuation', 'instead', 'other', 'not', 'without', 'except', 'besides', 'unlike', 'replace', 'replacing', 'beyond', 'gap'];
  console.log('\nasked words:');
  for (const w of words) console.log(line(w, tally.get(w) ?? [0, 0]));
}

main();
