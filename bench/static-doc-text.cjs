#!/usr/bin/env node
// How much of each dataset the static encoder should read: the encoder alone (its default checkpoint and feedback, as
// notebook 05 scores it) on the style benchmark's DEV half, every dataset embedded from `staticDocumentText` with the
// first N abstract words (80 is the library's), and from a mix of a title-only vector and that text's (weight W on the
// title), no retraining; nDCG@10 per style and the paired difference against the library's text. Every variant is
// appended to bench/tuning-log.json; the library's text stays chosen unless another beats it by more than
// STATIC_SETTINGS_TIE. The test half is never read.
//   node bench/static-doc-text.cjs [--abstract-words 80,40,160,400] [--title-weights 0.2,0.35] [--no-log]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_FLAGS, styleDevHalf, devVectorEvaluation, scoresLine, tuningRun, appendTuningRun, pairedDevDifference, markChosenBeyondTie } = require('./lib/tuning.cjs');

const LIBRARY_WORDS = 80;
const args = benchArgs({
  script: __filename,
  measures: 'the static encoder alone on the style benchmark DEV half with each dataset embedded from more or less of its abstract, or mixed with a title-only vector: appended to bench/tuning-log.json',
  flags: {
    'abstract-words': { type: 'list', default: ['80', '40', '160', '400'], placeholder: 'N,N', help: `abstract words in each dataset's text (staticDocumentText's abstractWords; the library's ${LIBRARY_WORDS} first)` },
    'title-weights': { type: 'list', default: ['0.2', '0.35'], placeholder: 'W,W', help: `weight of a title-only vector mixed into the ${LIBRARY_WORDS}-word text's (0: none)` },
    ...TUNING_FLAGS,
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/train'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/encode'), ...require('../dist/lib/router') };
const { stackRows } = require('../dist/lib/util/vector');

async function main() {
  const corpus = eo.loadSnapshot({ sample: args.sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample: args.sample }));
  const half = styleDevHalf(eo, corpus);
  const { model } = await eo.loadOrTrainStaticModel({ corpus, bench, log: (l) => console.log(`  ${l}`) });
  const encoder = eo.staticEncoder(model);
  console.log(`style benchmark DEV half: ${half.queries.length} queries; ${corpus.datasets.length} datasets; static encoder ${model.id}, feedback ${JSON.stringify(eo.DEFAULT_STATIC_PRF)}`);
  const texts = half.queries.map((q) => eo.retrievalTextOf(q.text));
  const embed = async (fn) => stackRows(await encoder.embed(corpus.datasets.map(fn)), encoder.dim);
  const score = async (matrix) => devVectorEvaluation(eo, half, corpus, await eo.denseScorer(encoder, matrix, { ...eo.STATIC_SCORER, kernel: 'js', noCache: true, prf: eo.DEFAULT_STATIC_PRF }).scoreBatch(texts));
  const entry = tuningRun('static-doc-text', half, 'bench/static-doc-text.cjs');
  const entries = [];
  const library = await score(await embed((d) => eo.staticDocumentText(d, LIBRARY_WORDS)));
  const add = (settings, ev, label) => {
    const note = settings.abstractWords === LIBRARY_WORDS && !settings.titleWeight ? null : pairedDevDifference(ev.perQuery, library.perQuery).text;
    console.log(label.padEnd(26), scoresLine(ev.scores, half), note ?? '');
    entries.push({ ...entry({ ...settings, model: model.id }, ev.scores), ...(note ? { note } : {}) });
  };
  add({ abstractWords: LIBRARY_WORDS, titleWeight: 0 }, library, `abstract ${LIBRARY_WORDS} (the library's)`);
  for (const n of args.abstractWords.map(Number).filter((n) => n !== LIBRARY_WORDS)) add({ abstractWords: n, titleWeight: 0 }, await score(await embed((d) => eo.staticDocumentText(d, n))), `abstract ${n}`);
  const full = await embed((d) => eo.staticDocumentText(d, LIBRARY_WORDS));
  const title = await embed((d) => eo.staticTitle(d));
  for (const w of args.titleWeights.map(Number).filter((w) => w > 0)) {
    const mixed = full.map((x, i) => w * title[i] + (1 - w) * x);
    add({ abstractWords: LIBRARY_WORDS, titleWeight: w }, await score(mixed), `title vector weight ${w}`);
  }
  // the library's text (the first entry) stays unless a variant beats it by more than the static settings' tie
  const chosen = markChosenBeyondTie(entries, 0, eo.STATIC_SETTINGS_TIE.nDCG, "the library's text stays");
  console.log(`chosen: ${JSON.stringify(entries[chosen].settings)}`);
  appendTuningRun(eo, entries, args);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
