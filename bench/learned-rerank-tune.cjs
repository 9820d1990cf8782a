#!/usr/bin/env node
// The learned reranker over the default ranking's top 100 (lib/search/learned-rerank.ts; issue 39 step 3), tuned on the
// style benchmark's DEV half: trained on the adaptive α's training queries (the title benchmark's TRAINING split plus
// corpus-made queries in the users' styles; every test label of both benchmarks left out) or on corpus-made queries
// the static encoder never saw (another seed), each configuration (training set, L2 pull, epochs, feature set) scored by nDCG@10 over the dev queries against the default ranking itself (paired bootstrap CI).
// Every configuration is appended to bench/tuning-log.json (system `learned-rerank`), the best marked `chosen`; the
// default ranking without the reranker is logged beside them (settings { reranker: 'none' }). The test half is never read.
// Needs the full snapshot's built benchmark and checkpoints (`npm start`).
//   node bench/learned-rerank-tune.cjs [--sample] [--no-log] [--per-style 300] [--held-out-per-style 600] [--held-out-seed 7]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_METRIC, TUNING_FLAGS, styleDevHalf, devVectorEvaluation, scoresLine, tuningRun, appendTuningRun, pairedDevDifference } = require('./lib/tuning.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'the learned reranker over the default ranking\'s top 100 on the style benchmark DEV half (nDCG@10): every configuration appended to bench/tuning-log.json',
  flags: {
    ...TUNING_FLAGS,
    'per-style': { type: 'int', default: 300, min: 1, help: 'corpus-made queries per style of the in-sample training set (adaptiveTrainingQueries)' },
    'held-out-per-style': { type: 'int', default: 600, min: 1, help: 'corpus-made queries per style of the held-out training set' },
    'held-out-seed': { type: 'int', default: 7, help: 'their seed (the static encoder\'s pairs use 42)' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/search') };
const { relevantSet } = require('../dist/lib/metrics/metrics');


async function main() {
  const sample = args.sample;
  const corpus = eo.loadSnapshot({ sample });
  const settings = eo.benchmarkSettings({ sample });
  const bench = eo.loadBenchmark(require('node:path').join(settings.dir, 'benchmark.json'), corpus);
  const half = styleDevHalf(eo, corpus);
  const engine = await eo.loadSearchEngine(corpus, { sample, log: (l) => console.log(`  ${l}`) });
  console.log(`default ranking: ${engine.label}`);
  let t = performance.now();
  const lap = (what) => {
    const n = performance.now();
    console.log(`${what}: ${((n - t) / 1000).toFixed(1)} s`);
    t = n;
  };
  const fields = eo.buildRerankFieldIndexes(corpus);
  lap('per-field BM25 indexes');
  const exclude = eo.adaptiveExcludedIds(corpus, eo.benchmarkSplit(bench, 'test'));
  // Two training sets. 'in-sample': the adaptive α's queries (the title TRAINING split + corpus-made queries, seed 42),
  // which are the static encoder's own training pairs, so its scores on them are memorised (the reranker then trusts
  // the semantic score far more than on new queries). 'held-out': corpus-made queries of another seed only (other
  // datasets, other words), which the encoder never saw as pairs.
  const trainingSets = {};
  const featured = async (name, queries) => {
    trainingSets[name] = eo.rerankExamples(corpus, await eo.rankedRerankRows(engine, fields, queries, { now: eo.RERANK_TRAINING_NOW }), queries.map((q) => q.relevant));
    lap(`training set ${name}: ${queries.length} queries ranked and featured`);
  };
  await featured('in-sample', eo.adaptiveTrainingQueries(corpus, eo.benchmarkSplit(bench, 'train'), { perStyle: args.perStyle, excludeDatasetIds: exclude }));
  await featured('held-out', eo.heldOutRerankQueries(corpus, eo.benchmarkSplit(bench, 'train'), eo.benchmarkSplit(bench, 'test'), { perStyle: args.heldOutPerStyle, seed: args.heldOutSeed }));
  const devRows = await eo.rankedRerankRows(engine, fields, half.queries);
  const base = devVectorEvaluation(eo, half, corpus, devRows.map((d) => d.final));
  lap(`${half.queries.length} dev queries ranked and featured`);
  console.log(`default ranking (no reranker): ${scoresLine(base.scores, half)}`);
  const entry = tuningRun('learned-rerank', half, 'bench/learned-rerank-tune.cjs');
  const entries = [entry({ reranker: 'none' }, base.scores)];
  const all = [...eo.LEARNED_RERANK_FEATURES];
  const featureSets = {
    all,
    'no-semantic': all.filter((f) => f !== 'semantic'),
    'no-fields': all.filter((f) => !/Bm25$/.test(f)),
  };
  const configs = [];
  for (const training of ['in-sample', 'held-out']) {
    for (const l2 of [1e-4, 1e-3, 1e-2]) configs.push({ training, features: 'all', l2, epochs: 20 });
    configs.push({ training, features: 'no-semantic', l2: 1e-3, epochs: 20 }, { training, features: 'no-fields', l2: 1e-3, epochs: 20 }, { training, features: 'all', l2: 1e-3, epochs: 5 });
  }
  // 'dev-cv': trained on the dev half's own queries, cross-fitted by topic (5 folds: a topic's queries are scored by the
  // model trained on the other folds' topics), alone or with the held-out corpus-made queries; the estimate stays honest
  // on dev, and the test half's topics are other topics
  const topicOf = new Map(eo.buildStyleBenchmark(corpus).queries.map((q) => [q.id, q.topicId]));
  const topics = [...new Set(half.queries.map((q) => topicOf.get(q.id)))].sort();
  const FOLDS = 5;
  const foldOf = (i) => topics.indexOf(topicOf.get(half.queries[i].id)) % FOLDS;
  const devSet = eo.rerankExamples(corpus, devRows, half.queries.map((q) => relevantSet(half.qrels.get(q.id))));
  for (const training of ['dev-cv', 'dev-cv+held-out']) {
    for (const l2 of [1e-3, 1e-2, 1e-1]) configs.push({ training, features: 'all', l2, epochs: 20 });
    configs.push({ training, features: 'no-fields', l2: 1e-2, epochs: 20 });
  }
  const devVectors = (c) => {
    const opts = { l2: c.l2, epochs: c.epochs, features: featureSets[c.features], seed: 42 };
    if (!c.training.startsWith('dev-cv')) {
      const model = eo.trainLearnedReranker(trainingSets[c.training], opts);
      return { vectors: devRows.map((d) => eo.learnedRerankScores(model, d.final, d.rows)), model };
    }
    const vectors = new Array(devRows.length);
    let model = null;
    for (let f = 0; f < FOLDS; f++) {
      const own = devSet.filter((_, i) => foldOf(i) !== f);
      model = eo.trainLearnedReranker(c.training === 'dev-cv' ? own : [...own, ...trainingSets['held-out']], opts);
      devRows.forEach((d, i) => {
        if (foldOf(i) === f) vectors[i] = eo.learnedRerankScores(model, d.final, d.rows);
      });
    }
    return { vectors, model }; // model: the last fold's (its weights are printed)
  };
  for (const c of configs) {
    if (c.training !== 'dev-cv' && !trainingSets['held-out'].length && c.training !== 'in-sample') {
      console.log(`${JSON.stringify(c)}: skipped, the held-out training set is empty (the sample snapshot's datasets are all the encoder's positives)`);
      continue;
    }
    const { vectors, model } = devVectors(c);
    const ev = devVectorEvaluation(eo, half, corpus, vectors);
    const diff = pairedDevDifference(ev.perQuery, base.perQuery);
    const weights = Object.fromEntries(model.model.features.map((f, j) => [f, +model.model.weights[j].toFixed(3)]).filter(([, w]) => w !== 0));
    lap(`${JSON.stringify(c)} (${model.model.pairs} pairs, ${model.trainQueries.used} queries)`);
    console.log(`  ${scoresLine(ev.scores, half)}; ${diff.text}\n  weights ${JSON.stringify(weights)}`);
    const heldOutSettings = c.training.includes('held-out') ? { heldOutPerStyle: args.heldOutPerStyle, heldOutSeed: args.heldOutSeed } : {};
    entries.push({ ...entry({ reranker: 'learned', ...c, ...heldOutSettings, trainQueries: model.trainQueries.used, pairs: model.model.pairs }, ev.scores), note: diff.text });
  }
  const best = eo.markBestChosen(entries, TUNING_METRIC);
  console.log(`chosen: ${JSON.stringify(entries[best].settings)} (${TUNING_METRIC} ${entries[best].scores[TUNING_METRIC].toFixed(4)})`);
  engine.dispose();
  appendTuningRun(eo, entries, args);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
