#!/usr/bin/env node
// Query-side pooling of the trained static encoder (issue 37), on the style benchmark's DEV half: the documents stay
// mean-pooled as the encoder was trained, and the query's token rows are weighted by IDF^p (p = 0: the mean, as
// trained; p > 0 favours a question's rare words, its places and years; p < 0 its common ones). Asks whether the long
// question-style queries lose to BM25 because generic words dilute their mean — no retraining, the checkpoint that
// `npm start` (notebook 03) wrote. Scored alone, no fusion; every p is appended to bench/tuning-log.json and the best
// is marked `chosen`. The test half is never read.
//   node bench/static-query-pooling.cjs [--powers 0,0.5,1,2,-0.5,-1,-2] [--no-log]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_METRIC, TUNING_FLAGS, styleDevHalf, devVectorScores, scoresLine, tuningRun, appendTuningRun } = require('./lib/tuning.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'the static encoder alone on the style benchmark DEV half with its queries pooled by IDF^p (documents mean-pooled as trained): appended to bench/tuning-log.json',
  flags: {
    powers: { type: 'list', default: ['0', '0.5', '1', '2', '-0.5', '-1', '-2'], placeholder: 'P,P', help: 'the IDF exponents p tried on the query side (0: the mean, as trained)' },
    ...TUNING_FLAGS,
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/encode'), ...require('../dist/lib/train'), ...require('../dist/lib/retrieve') };

async function main() {
  if (args.sample) throw new Error('--sample: the static checkpoint of the sample is not what the dev half is scored with; run on the full snapshot');
  const corpus = eo.loadSnapshot();
  const half = styleDevHalf(eo, corpus);
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({}));
  const dir = eo.staticCheckpointDir(bench.name);
  if (!eo.staticModelExists(dir)) throw new Error(`${dir}: no static encoder checkpoint (run: npm start -- --only 03-encoder-finetune)`);
  const model = eo.loadStaticModel(dir);
  if (model.vocab.pooling !== 'mean') throw new Error(`${dir}: the encoder pools by ${model.vocab.pooling}; this bench compares query poolings against a mean-pooled encoder`);
  const encoder = eo.staticEncoder(model);
  const matrix = eo.stackRows(await encoder.embed(corpus.datasets.map((d) => eo.staticDocumentText(d))), encoder.dim);
  console.log(`style benchmark DEV half: ${half.queries.length} queries; ${corpus.datasets.length} datasets; encoder ${model.id}`);
  const entry = tuningRun('static-query-pooling', half, 'bench/static-query-pooling.cjs');
  const entries = [];
  for (const text of args.powers) {
    const p = Number(text);
    if (!Number.isFinite(p)) throw new Error(`--powers: ${JSON.stringify(text)} is not a number`);
    // pooling 'idf' reads vocab.idf as the weights: IDF^p, and p = 0 is the mean
    const queryModel = { ...model, vocab: { ...model.vocab, pooling: 'idf', idf: model.vocab.idf.map((x) => Math.pow(x, p)) } };
    const scorer = eo.denseScorer(eo.staticEncoder(queryModel), matrix, { id: 'static', label: 'Static', kernel: 'js', noCache: true });
    const scores = devVectorScores(eo, half, corpus, await scorer.scoreBatch(half.queries.map((q) => q.text)));
    console.log(`query pooling IDF^${p}:`.padEnd(28), scoresLine(scores, half));
    entries.push(entry({ encoder: model.id, documents: 'mean', queryIdfPower: p }, scores));
  }
  const best = eo.markBestChosen(entries, TUNING_METRIC);
  console.log(`chosen: IDF^${entries[best].settings.queryIdfPower} (${TUNING_METRIC} ${entries[best].scores[TUNING_METRIC].toFixed(4)})`);
  appendTuningRun(eo, entries, args);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
