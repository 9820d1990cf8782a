#!/usr/bin/env node
// A temporal-resolution rule measured on the style benchmark's DEV half before it becomes a query rule: the default
// ranking's run (`searchBatch` with its rules and repair, as `eo eval --system best`), then every dataset whose title
// names only other resolutions than the query asks for (lib/search/resolution.ts: "half hourly" asked, "1 day" named)
// multiplied by a factor; nDCG@10 over all dev queries and over those naming a resolution, per factor (1 = no rule),
// with the paired difference against no rule. Every factor is appended to bench/tuning-log.json and the best marked
// `chosen`. The test half is never read.
//   node bench/resolution-rule.cjs [--factors 1,0.8,0.5,0.3,0.1] [--no-log]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_METRIC, TUNING_FLAGS, styleDevHalf, scoresLine, tuningRun, appendTuningRun, pairedDevDifference } = require('./lib/tuning.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'the default ranking on the style benchmark DEV half with datasets of other temporal resolutions than the query asks for demoted by each factor: appended to bench/tuning-log.json',
  flags: {
    factors: { type: 'list', default: ['1', '0.8', '0.5', '0.3', '0.1'], placeholder: 'F,F', help: 'the demotion factors tried (1: no rule)' },
    ...TUNING_FLAGS,
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/search') };
const { evaluateGraded, gradedMeans } = require('../dist/lib/metrics/graded');

async function main() {
  const corpus = eo.loadSnapshot({ sample: args.sample });
  const half = styleDevHalf(eo, corpus);
  const named = new Set(half.queries.filter((q) => eo.namedResolutions(q.text).length).map((q) => q.id));
  console.log(`style benchmark DEV half: ${half.queries.length} queries, ${named.size} naming a temporal resolution; ${corpus.datasets.length} datasets`);
  const engine = await eo.loadSearchEngine(corpus, { sample: args.sample, log: (l) => console.log(`  ${l}`) });
  let run;
  try {
    ({ run } = await eo.searchBatch(engine, half.queries, { rules: true, repair: true }));
  } finally {
    engine.dispose();
  }
  const textOf = new Map(half.queries.map((q) => [q.id, q.text]));
  const titleOf = (id) => corpus.datasets[corpus.indexById.get(id)].longName;
  const entry = tuningRun('resolution-rule', half, 'bench/resolution-rule.cjs');
  const entries = [];
  let without = null;
  for (const text of args.factors) {
    const factor = Number(text);
    const ruled = eo.demoteOtherResolutions(run, (q) => textOf.get(q), titleOf, factor);
    const perQuery = evaluateGraded(ruled, half.qrels);
    const all = gradedMeans(perQuery);
    const scores = {
      [TUNING_METRIC]: all[TUNING_METRIC], MAP: all.MAP,
      ...Object.fromEntries(half.byStyle.map(([s, keep]) => [`${s}/${TUNING_METRIC}`, gradedMeans(perQuery, keep)[TUNING_METRIC]])),
      [`resolution-named/${TUNING_METRIC}`]: gradedMeans(perQuery, named)[TUNING_METRIC],
    };
    if (factor === 1) without = perQuery;
    const note = without && factor !== 1 ? pairedDevDifference(perQuery, without).text : null;
    console.log(`factor ${factor}:`.padEnd(14), scoresLine(scores, half), ` naming a resolution ${scores[`resolution-named/${TUNING_METRIC}`].toFixed(4)}`, note ?? '');
    entries.push({ ...entry({ factor }, scores), ...(note ? { note } : {}) });
  }
  const best = eo.markBestChosen(entries, TUNING_METRIC);
  console.log(`chosen: factor ${entries[best].settings.factor}`);
  appendTuningRun(eo, entries, args);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
