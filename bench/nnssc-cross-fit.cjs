#!/usr/bin/env node
// α from out-of-fold training scores (issue 39 step 1). NN-SSC is trained on the title benchmark's training split, so
// its in-sample training scores are memorised ones (π .416 on the training split against .223 on the test split) and
// Eq. 7's α and the grid α set on them give it more weight than it earns. Here the training split is cut into k folds
// of whole publications; fold f's NN-SSC is trained (same recipe, config and seed) on the other folds and scores fold
// f's queries: out-of-fold scores for every training query (`loadOrTrainNnsscFolds`, `crossFittedNnsscScores`). The
// analytic and grid α are set on them (`studyHybrid({ crossFitted })`, fusion records keyed by the folds) and the
// NN-SSC + BM25 row of Table 2 (notebook 04's NN-SSC, its own test scores) is fused at both kinds of α. The test split
// is only reported: α is set on the training split either way, and nothing here is chosen on the test figures.
// Fold checkpoints are kept (`checkpoints/nnssc/use-lite-<benchmark>-cv<k>/fold-<f>`, where notebook 04 trains them too): a rerun reuses them, an
// interrupted one resumes at its first missing fold. Writes bench/out/nnssc-cross-fit[-sample].json.
// --backbone static: the same for NN-SSC on the corpus-trained static encoder (Table 2's "NN-SSC (static backbone)"),
// folds beside its checkpoint (`checkpoints/nnssc/static-<benchmark>-cv<k>/fold-<f>`; bench/out/nnssc-cross-fit-static.json).
//   node bench/nnssc-cross-fit.cjs [--sample] [--k 5] [--backbone use-lite|static]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'Eq. 7 and grid α of NN-SSC + BM25 set on in-sample vs out-of-fold (k-fold cross-fitted) NN-SSC training scores, and Table 2\'s row at each',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    k: { type: 'int', default: 5, min: 2, help: 'folds of the training split (whole publications per fold)' },
    backbone: { type: 'string', default: 'use-lite', choices: ['use-lite', 'static'], help: "NN-SSC's frozen encoder: USE-lite (Table 2's NN-SSC) or the corpus-trained static encoder (notebook 04, section 8)" },
  },
});
const header = printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/data'), ...require('../dist/lib/encode'), ...require('../dist/lib/metrics'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/search'), ...require('../dist/lib/study'), ...require('../dist/lib/train'), ...require('../dist/lib/fuse'), ...require('../dist/lib/util') };
const METRICS = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'];
const CMP = { seed: 42, permutations: 10000, bootstrapSamples: 10000 };
const f3 = (x) => x.toFixed(3).replace(/^0\./, '.').replace(/^-0\./, '-.');
const sign = (x) => (x >= 0 ? '+' : '') + x.toFixed(3);

async function main() {
  const t0 = performance.now();
  const sample = args.sample;
  const corpus = eo.loadSnapshot({ sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample }));
  const splits = { train: eo.benchmarkSplit(bench, 'train'), test: eo.benchmarkSplit(bench, 'test') };
  const log = (l) => console.log(`NN-SSC: ${l}`);
  // the backbone and NN-SSC trained on the whole training split (notebook 04's checkpoints; trained here when absent)
  const { encoder, matrix, nn } = args.backbone === 'static'
    ? await eo.loadOrTrainStaticNnssc({ corpus, bench, log })
    : await (async () => {
      const encoder = await eo.loadUseLite();
      const matrix = await eo.embedCorpusCached({ encoder, key: corpus.hash, texts: corpus.datasets.map((d) => eo.datasetEncoderText(d)), workers: 2, waitForOther: true });
      return { encoder, matrix, nn: await eo.loadOrTrainNnssc({ corpus, bench, encoder, corpusMatrix: matrix, log }) };
    })();
  console.log(`${splits.train.queries.length} train / ${splits.test.queries.length} test queries over ${corpus.datasets.length} datasets; k = ${args.k}; backbone ${encoder.id}`);
  const bm25 = eo.bm25Scorer(eo.loadOrBuildBm25(corpus), 'bm25', 'BM25');
  const bm25Scores = await eo.retrieveSplits(bm25, splits, corpus);
  const ids = args.backbone === 'static' ? eo.STATIC_NNSSC_SCORER : { id: 'nnssc', label: 'NN-SSC' };
  const scorer = eo.nnsscScorer(encoder, matrix, nn.model, { ...ids, threads: 2 });
  const nnScores = await eo.retrieveSplits(scorer, splits, corpus);
  const tFolds = performance.now();
  const folds = await eo.loadOrTrainNnsscFolds({ corpus, bench, encoder, corpusMatrix: matrix, k: args.k, dir: nn.dir, config: nn.config, log: (l) => console.log(`cross-fit: ${l}`) });
  const foldSeconds = (performance.now() - tFolds) / 1000;
  const cross = await eo.crossFittedNnsscScores({ folds, train: splits.train, corpus, encoder, corpusMatrix: matrix });
  const h = await eo.studyHybrid({ corpus, splits, semantic: { scorer, scores: nnScores }, lexical: { scorer: bm25, scores: bm25Scores }, crossFitted: cross, log: (l) => console.log(l) });
  const row = (run, qrels) => eo.summarize('', eo.evaluateRun(run, qrels));
  const pi = (run, qrels) => eo.performanceIndex(row(run, qrels));
  const oofRun = eo.runFromScores(splits.train.queries.map((q) => q.id), cross.scores, corpus, 100);
  const piOf = {
    inSample: pi(nnScores.train.run, splits.train.qrels), outOfFold: pi(oofRun, splits.train.qrels), test: pi(nnScores.test.run, splits.test.qrels), bm25Train: pi(bm25Scores.train.run, splits.train.qrels),
  };
  console.log(`\nπ of ${ids.label} alone (mean of R@10, R@20, R@100, MAP, MRR): training split in-sample ${f3(piOf.inSample)}, out-of-fold ${f3(piOf.outOfFold)}; test split ${f3(piOf.test)}. π of BM25 (training split) ${f3(piOf.bm25Train)}`);
  console.log(`fold validation MAP (held-out publications of each fold's own training part): ${folds.valMAP.map((v) => (v === null ? 'n/a' : f3(v))).join(', ')}; ${folds.trained.length} of ${folds.k} folds trained in this run (${foldSeconds.toFixed(0)} s)`);
  const kinds = [
    ['analytic', 'analytic (Eq. 7)', h.analytic, h.crossFitted.analytic],
    ['grid', 'grid (train)', h.grid, h.crossFitted.grid],
  ];
  const out = {
    format: 'eo-nnssc-cross-fit/1', created: new Date().toISOString(), header, sample, backbone: encoder.id, corpus: corpus.hash, benchmark: bench.name, trainingData: bench.dataHash, k: folds.k, foldsHash: folds.hash,
    source: cross.source, foldSizes: Array.from({ length: folds.k }, (_, f) => folds.fold.filter((x) => x === f).length), foldValMAP: folds.valMAP, foldsTrained: folds.trained, foldSeconds,
    pi: piOf, rows: {},
  };
  console.log(`\n${ids.label} + BM25 on the test split (${splits.test.queries.length} queries; reported only), α set on the training split:`);
  for (const [kind, label, inSample, crossFit] of kinds) {
    const a = row(inSample.test, splits.test.qrels);
    const b = row(crossFit.test, splits.test.qrels);
    const c = eo.compareSystems(eo.evaluateRun(crossFit.test, splits.test.qrels), eo.evaluateRun(inSample.test, splits.test.qrels), METRICS, CMP);
    out.rows[kind] = {
      inSample: { alpha: inSample.alpha, test: a }, crossFitted: { alpha: crossFit.alpha, test: b },
      crossFittedMinusInSample: c.map((x) => ({ metric: x.metric, delta: x.meanDiff, ci: [x.ciLow, x.ciHigh], p: x.pValue })),
    };
    console.log(`${label.padEnd(18)} in-sample α ${inSample.alpha.toFixed(3)}: ${METRICS.map((m) => `${m} ${f3(a[m])}`).join('  ')}`);
    console.log(`${''.padEnd(18)} cross-fitted α ${crossFit.alpha.toFixed(3)}: ${METRICS.map((m) => `${m} ${f3(b[m])}`).join('  ')}`);
    console.log(`${''.padEnd(18)} cross-fitted − in-sample (paired bootstrap 95% CI, 10,000, seed 42): ${['MAP', 'R@10', 'MRR'].map((m) => { const x = c.find((y) => y.metric === m); return `${m} ${sign(x.meanDiff)} [${sign(x.ciLow)}, ${sign(x.ciHigh)}]`; }).join('   ')}`);
  }
  scorer.dispose();
  const file = path.join(__dirname, 'out', `nnssc-cross-fit${args.backbone === 'static' ? '-static' : ''}${sample ? '-sample' : ''}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  eo.writeJsonAtomic(file, out);
  console.log(`\nwrote ${path.relative(process.cwd(), file)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
