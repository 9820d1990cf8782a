#!/usr/bin/env node
// How well platforms, instruments and projects are inferred from a record's own text with the GCMD vocabularies
// (issue 38 step 1; lib/data/gcmd-infer.ts), measured against CMR's own values with the fields hidden: precision and
// recall per field on the DEV half (rules are developed on it) and the TEST half (reported only) of the records that
// carry values (gcmdInferenceHalf), for the texts read (title + short name; the abstract where they name no platform or
// instrument, `abstract-fallback`; or the abstract too) and the lexicon's
// options (plain words of the abstracts; the mission hosts GEDI → ISS …; instrument hosts learned on the dev half;
// the names CMR lists for nearly every record of a product family, learned on the dev half: in-sample there; the names
// a provider's CMR records leave out though their titles name them, learned on the dev half: in-sample there; the
// names CMR lists after words of the title, projects only, learned on the dev half: in-sample there; an empty field
// filled with what the records of the longest shared short-name prefix all list, learned on the dev half: a record is
// left out of its own neighbours there).
//   node bench/gcmd-inference.cjs [--sample]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'precision and recall of the GCMD platform / instrument / project inference against CMR\'s values (fields hidden), dev and test halves',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
  },
});
printHeader(args);
const infer = require('../dist/lib/data/gcmd-infer');
const { loadSnapshot } = require('../dist/lib/data/snapshot');

const corpus = loadSnapshot({ sample: args.sample });
const devRecords = corpus.datasets.filter((d) => infer.gcmdInferenceHalf(d.id) === 'dev');
const words = infer.plainWords(corpus.datasets.map((d) => d.abstract));
const lexicons = {
  'GCMD names': () => infer.buildGcmdLexicon(undefined, undefined, { missionHosts: false }),
  '+ plain words': () => infer.buildGcmdLexicon(undefined, undefined, { plainWords: words, missionHosts: false }),
  '+ mission hosts': () => infer.buildGcmdLexicon(undefined, undefined, { plainWords: words }),
  '+ hosts learned (dev)': () => infer.buildGcmdLexicon(undefined, undefined, { plainWords: words, learnedHosts: infer.learnInstrumentHosts(devRecords) }),
  '+ families learned (dev)': () => infer.learnedGcmdLexicon(devRecords, { plainWords: words, titleCues: null, neighbours: false }),
  '+ providers learned (dev)': () => {
    const lex = lexicons['+ families learned (dev)']();
    lex.unlisted = infer.learnProviderUnlisted(devRecords, lex);
    return lex;
  },
  '+ title cues learned (dev)': () => {
    const lex = infer.learnedGcmdLexicon(devRecords, { plainWords: words, titleCues: { plainWords: words }, neighbours: false });
    lex.unlisted = infer.learnProviderUnlisted(devRecords, lex);
    return lex;
  },
  '+ short-name neighbours (dev)': () => {
    const lex = infer.learnedGcmdLexicon(devRecords, { plainWords: words, titleCues: { plainWords: words } });
    lex.unlisted = infer.learnProviderUnlisted(devRecords, lex);
    return lex;
  },
};
const SOURCES = { 'title + short name': ['title', 'short-name'], '+ abstract fallback': ['title', 'short-name', 'abstract-fallback'], '+ abstract': ['title', 'short-name', 'abstract'] };
const pad = (s, n) => String(s).padEnd(n);
console.log(`${pad('lexicon', 30)}${pad('texts', 20)}${pad('half', 6)}${infer.GCMD_INFERRED_FIELDS.map((f) => pad(`${f} n / P / R`, 26)).join('')}`);
for (const [name, make] of Object.entries(lexicons)) {
  const lex = make();
  for (const [sourceName, sources] of Object.entries(SOURCES)) {
    for (const half of ['dev', 'test']) {
      const q = infer.gcmdInferenceQuality(corpus.datasets, lex, sources, half);
      console.log(`${pad(name, 30)}${pad(sourceName, 20)}${pad(half, 6)}${q.map((x) => pad(`${x.records} / ${x.precision.toFixed(3)} / ${x.recall.toFixed(3)}`, 26)).join('')}`);
    }
  }
}
