#!/usr/bin/env node
// BM25's identifier forms (lib/data/identifier-forms.ts; `Bm25Options.identifierForms`, issue 38 step 3), tried on the
// style benchmark's DEV half only: the paper's BM25 with the plain word analyzer and with the joined forms added
// ("Sentinel-1A" also `sentinel1a`, `sentinel1`; "Level 2" also `l2`; "V006" also `v6`), each scored alone (no query
// rules) by nDCG@10 over all dev queries, with the per-style means beside it. Both are appended to the committed
// tuning log (bench/tuning-log.json), the better marked `chosen`. The test half is never read.
//   node bench/bm25-forms-tune.cjs [--sample] [--no-log]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_METRIC, styleDevHalf, devVectorScores, scoresLine, tuningRun, appendTuningRun } = require('./lib/tuning.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'BM25 with and without the identifier forms on the style benchmark DEV half (nDCG@10, all styles): both appended to bench/tuning-log.json',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one (a smoke run: nothing logged)' },
    'no-log': { type: 'boolean', help: 'print only; append nothing to the tuning log' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/retrieve') };

async function main() {
  const corpus = eo.loadSnapshot({ sample: args.sample });
  const half = styleDevHalf(eo, corpus);
  const dev = half.queries;
  console.log(`style benchmark DEV half: ${dev.length} queries; ${corpus.datasets.length} datasets`);
  const entry = tuningRun('bm25-identifier-forms', half, 'bench/bm25-forms-tune.cjs');
  const entries = [];
  for (const identifierForms of [false, true]) {
    const index = eo.buildBm25(corpus, { identifierForms });
    const scores = devVectorScores(eo, half, corpus, dev.map((q) => eo.bm25Scores(index, q.text)));
    entries.push(entry({ identifierForms, k1: index.config.k1, b: index.config.b, mode: index.config.mode }, scores));
    console.log(`identifierForms ${String(identifierForms).padEnd(5)}  ${scoresLine(scores, half)}`);
  }
  const best = eo.markBestChosen(entries, TUNING_METRIC);
  console.log(`chosen: identifierForms ${entries[best].settings.identifierForms}`);
  appendTuningRun(eo, entries, args);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
