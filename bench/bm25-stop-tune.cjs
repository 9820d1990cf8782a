#!/usr/bin/env node
// The settings of `bm25-stop` (lib/retrieve/bm25-stop.ts), chosen on the style benchmark's DEV half only (issue 36):
// a grid over k1, b, the title and keyword field weights and the stemmer, each configuration scored alone (no query
// rules) by nDCG@10 over all dev queries, with the per-style means beside it. Every configuration tried is appended to
// the committed tuning log (bench/tuning-log.json, `appendTuningLog`), the best marked `chosen`; the script prints it,
// and BM25_STOP_DEFAULTS is set from it by hand. The test half is never read.
//   node bench/bm25-stop-tune.cjs [--sample] [--k1 0.9,1.2,1.5,2] [--b 0.3,0.5,0.75,0.9] [--title 1,2,3,5] [--keywords 0.5,1,2] [--stem s,none] [--no-log]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_METRIC, styleDevHalf, devVectorScores, scoresLine, tuningRun, appendTuningRun } = require('./lib/tuning.cjs');

const numbers = (def) => ({ type: 'list', default: def, placeholder: 'A,B,…' });
const args = benchArgs({
  script: __filename,
  measures: 'bm25-stop settings on the style benchmark DEV half (nDCG@10, all styles): every configuration appended to bench/tuning-log.json',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one (a smoke run: nothing logged)' },
    k1: { ...numbers(['0.9', '1.2', '1.5', '2']), help: 'k1 values tried' },
    b: { ...numbers(['0.3', '0.5', '0.75', '0.9']), help: 'b values tried' },
    title: { ...numbers(['1', '2', '3', '5']), help: 'title field weights tried (abstract weight 1)' },
    keywords: { ...numbers(['0.5', '1', '2']), help: 'keyword field weights tried' },
    stem: { type: 'list', default: ['s', 'none'], choices: ['s', 'none'], help: 'stemmers tried' },
    'no-log': { type: 'boolean', help: 'print only; append nothing to the tuning log' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/retrieve') };

const METRIC = TUNING_METRIC;

function grid() {
  const num = (xs) => xs.map(Number);
  const out = [];
  for (const stem of args.stem) for (const k1 of num(args.k1)) for (const b of num(args.b)) for (const title of num(args.title)) for (const keywords of num(args.keywords))
    out.push({ k1, b, fieldWeights: { title, keywords, abstract: 1 }, stem });
  return out;
}

async function main() {
  const corpus = eo.loadSnapshot({ sample: args.sample });
  const half = styleDevHalf(eo, corpus);
  const dev = half.queries;
  console.log(`style benchmark DEV half: ${dev.length} queries; ${corpus.datasets.length} datasets`);
  const entry = tuningRun('bm25-stop', half, 'bench/bm25-stop-tune.cjs');
  const entries = [];
  const t0 = performance.now();
  for (const settings of grid()) {
    const index = eo.buildBm25Stop(corpus, settings);
    const scores = devVectorScores(eo, half, corpus, dev.map((q) => eo.bm25StopScores(index, q.text)));
    entries.push(entry(settings, scores));
    console.log(`k1 ${settings.k1}  b ${settings.b}  title ${settings.fieldWeights.title}  keywords ${settings.fieldWeights.keywords}  stem ${settings.stem}  ${scoresLine(scores, half)}`);
  }
  // the best by nDCG@10 over all dev queries; ties to the earlier configuration of the grid
  const best = eo.markBestChosen(entries, METRIC);
  console.log(`\n${entries.length} configurations in ${((performance.now() - t0) / 1000).toFixed(1)} s; chosen: ${JSON.stringify(entries[best].settings)} (${METRIC} ${entries[best].scores[METRIC].toFixed(4)})`);
  appendTuningRun(eo, entries, args);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
