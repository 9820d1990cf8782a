#!/usr/bin/env node
// One group of the query vocabulary (lib/search/data/vocabulary.json), tried on the style benchmark's DEV half only:
// BM25 with the vocabulary expansion as the default ranking's lexical half uses it, with and without the group, each
// scored alone (no query rules) by nDCG@10 over all dev queries, the per-style means and the dev queries the group
// matches beside it. Both are appended to the committed tuning log (bench/tuning-log.json) with the paired 95% CI of
// the difference (with − without, all dev queries, 10,000 bootstrap samples, seed 42). A group is domain knowledge
// written for queries the benchmark may not hold ("Sentinel-1 SAR backscatter" → the GRD and RTC products), so it is
// kept unless that CI lies wholly below 0. The test half is never read.
//   node bench/vocabulary-tune.cjs --group "RADAR BACKSCATTER" [--sample] [--no-log]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_METRIC, styleDevHalf, devVectorEvaluation, scoresLine, tuningRun, appendTuningRun, pairedDevDifference, TUNING_FLAGS } = require('./lib/tuning.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'BM25 + vocabulary expansion with and without one vocabulary group on the style benchmark DEV half (nDCG@10, all styles): appended to bench/tuning-log.json',
  flags: {
    group: { type: 'string', default: 'RADAR BACKSCATTER', help: 'the `gcmd` of the vocabulary.json group tried' },
    ...TUNING_FLAGS,
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/retrieve') };
const expand = require('../dist/lib/search/expand');
const { gradedMeans } = require('../dist/lib/metrics/graded');

async function main() {
  const corpus = eo.loadSnapshot({ sample: args.sample });
  const half = styleDevHalf(eo, corpus);
  const dev = half.queries;
  const groups = [...expand.readVocabularyGroups(), ...expand.corpusInstrumentGroups(corpus)];
  const tried = groups.filter((g) => g.source === 'vocabulary.json' && g.gcmd === args.group);
  if (tried.length !== 1) throw new Error(`--group: vocabulary.json has ${tried.length} groups "${args.group}" (want 1)`);
  const withGroup = expand.queryVocabulary(groups);
  const without = expand.queryVocabulary(groups.filter((g) => g !== tried[0]));
  const matching = new Set(dev.filter((q) => expand.expandQuery(q.text, withGroup).matches.some((m) => m.gcmd === args.group && m.source === 'vocabulary.json')).map((q) => q.id));
  console.log(`style benchmark DEV half: ${dev.length} queries, ${matching.size} match the group "${args.group}"; ${corpus.datasets.length} datasets`);
  const bm25 = eo.loadOrBuildBm25(corpus);
  const entry = tuningRun('bm25+qe-vocabulary-group', half, 'bench/vocabulary-tune.cjs');
  const entries = [];
  const perQuery = [];
  for (const [withIt, vocabulary] of [[false, without], [true, withGroup]]) {
    const vectors = dev.map((q) => expand.expandedBm25Scores(bm25, q.text, vocabulary).scores);
    const { scores, perQuery: pq } = devVectorEvaluation(eo, half, corpus, vectors);
    perQuery.push(pq);
    const onMatching = matching.size ? gradedMeans(pq, matching)[TUNING_METRIC] : NaN;
    entries.push(entry({ group: args.group, withGroup: withIt, expansionWeight: expand.DEFAULT_EXPANSION_WEIGHT }, { ...scores, [`group-matched/${TUNING_METRIC}`]: onMatching }));
    console.log(`with the group ${String(withIt).padEnd(5)}  ${scoresLine(scores, half)}; the ${matching.size} it matches ${onMatching.toFixed(4)}`);
  }
  const { d, text } = pairedDevDifference(perQuery[1], perQuery[0]);
  const keep = !(d.ciHigh < 0);
  const chosen = keep ? 1 : 0;
  entries[chosen].chosen = true;
  entries[chosen].note = `${text}: ${keep ? 'the CI does not lie wholly below 0, so the group is kept' : 'the CI lies wholly below 0, so the group is left out'}`;
  console.log(entries[chosen].note);
  appendTuningRun(eo, entries, args);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
