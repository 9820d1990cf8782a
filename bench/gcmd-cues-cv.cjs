#!/usr/bin/env node
// Title cues (issue 38; lib/data/gcmd-infer.ts `learnTitleCues`) chosen by two-fold cross-validation WITHIN the dev half
// of the records that carry CMR values (`gcmdInferenceHalf`): each fold learns the lexicon's habits (instrument hosts,
// product families, title cues, providers' unlisted names) from the other fold and is measured on its own records, so
// no learned rule is scored on the records it came from. Compared: no cues; cues for every record whose title has the
// word (scope `corpus`); cues only for the records of the provider they were learned from (scope `provider`), at
// several (minRecords, minShare), with and without the corpus's plain words as cues (`plainWords`). Prints precision / recall / F1 per field over both held-out folds; the test half is
// never read.
//   node bench/gcmd-cues-cv.cjs [--sample]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'held-out precision / recall of the GCMD inference with title cues of each scope and threshold, two-fold cross-validation inside the dev half',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
  },
});
printHeader(args);
const infer = require('../dist/lib/data/gcmd-infer');
const { loadSnapshot } = require('../dist/lib/data/snapshot');
const { shortHash } = require('../dist/lib/util/hash');

// [scope, minRecords, minShare, plain words left out]
const CONFIGS = [
  { label: 'no title cues', cues: null },
  { label: 'corpus (3, .9) (the default before)', cues: ['corpus', 3, 0.9, false] },
  { label: 'corpus (5, .95)', cues: ['corpus', 5, 0.95, false] },
  { label: 'provider (3, .9)', cues: ['provider', 3, 0.9, false] },
  { label: 'provider (2, .9)', cues: ['provider', 2, 0.9, false] },
  { label: 'provider (3, .8)', cues: ['provider', 3, 0.8, false] },
  { label: 'provider (5, .9)', cues: ['provider', 5, 0.9, false] },
  { label: 'provider (3, 1)', cues: ['provider', 3, 1, false] },
  { label: 'corpus (3, .9), no plain words', cues: ['corpus', 3, 0.9, true] },
  { label: 'corpus (3, 1), no plain words', cues: ['corpus', 3, 1, true] },
  { label: 'provider (3, 1), no plain words', cues: ['provider', 3, 1, true] },
  { label: 'provider (2, 1), no plain words', cues: ['provider', 2, 1, true] },
  { label: 'provider (3, .9), no plain words', cues: ['provider', 3, 0.9, true] },
];

const corpus = loadSnapshot({ sample: args.sample });
const dev = corpus.datasets.filter((d) => infer.gcmdInferenceHalf(d.id) === 'dev');
const foldOf = (d) => parseInt(shortHash(`gcmd-cues-cv|${d.id}`, 8), 16) % 2;
const folds = [0, 1].map((k) => dev.filter((d) => foldOf(d) === k));
const words = infer.plainWords(corpus.datasets.map((d) => d.abstract));
console.log(`dev half: ${dev.length} records (folds ${folds[0].length} / ${folds[1].length})`);
const pad = (s, n) => String(s).padEnd(n);
console.log(`${pad('title cues', 38)}${infer.GCMD_INFERRED_FIELDS.map((f) => pad(`${f} P / R / F1`, 26)).join('')}`);
for (const c of CONFIGS) {
  const sum = infer.GCMD_INFERRED_FIELDS.map(() => ({ hit: 0, inferred: 0, recorded: 0 }));
  for (const k of [0, 1]) {
    const learnFrom = folds[1 - k];
    const [scope, minRecords, minShare, noPlain] = c.cues ?? [];
    const titleCues = c.cues ? { scope, minRecords, minShare, ...(noPlain ? { plainWords: words } : {}) } : null;
    const lex = infer.learnedGcmdLexicon(learnFrom, { plainWords: words, titleCues });
    lex.unlisted = infer.learnProviderUnlisted(learnFrom, lex);
    infer.gcmdInferenceQuality(folds[k], lex, infer.GCMD_CORPUS_SOURCES).forEach((q, i) => {
      sum[i].hit += q.hits;
      sum[i].inferred += q.inferred;
      sum[i].recorded += q.recorded;
    });
  }
  console.log(`${pad(c.label, 38)}${sum.map((s) => {
    const p = s.inferred ? s.hit / s.inferred : 0;
    const r = s.recorded ? s.hit / s.recorded : 0;
    return pad(`${p.toFixed(3)} / ${r.toFixed(3)} / ${(p + r ? (2 * p * r) / (p + r) : 0).toFixed(3)}`, 26);
  }).join('')}`);
}
