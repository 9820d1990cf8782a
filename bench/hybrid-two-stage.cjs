#!/usr/bin/env node
// Ranking quality and cost of the HYBRID (BM25 + NN-SSC, min-max + convex fusion, α from each scorer's own fusion
// record, set on the training split) with exact NN-SSC against two-stage NN-SSC (the MLP scores only the union of the
// top M of BM25 and of the cosine; `loadSearchEngine`'s `nnsscTwoStage`), in one run on the benchmark's TEST split:
// R@10, R@20, R@100, MAP, MRR per system, and for each M the paired difference to exact (bootstrap 95% CI and
// randomization p, 10,000 each, seed 42), plus the semantic scorer's time per query (one batch, library path, this
// machine's load). This is the ranking cost of the service's choice of M (bench/serve-load.cjs --two-stage M).
//   node bench/hybrid-two-stage.cjs [--sample] [--m 200,500] [--out bench/out/hybrid-two-stage.json]   (--help lists the flags)
// A two-stage α not stored yet is set on the training split once and stored (checkpoints/fusion), as the service does.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'ranking quality and cost of the BM25 + NN-SSC hybrid with exact NN-SSC vs two-stage NN-SSC (top M) on the test split, paired',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    m: { type: 'int-list', default: [200, 500], min: 1, help: 'two-stage candidate counts M, one system each' },
    out: { type: 'string', default: 'bench/out/hybrid-two-stage.json', placeholder: 'FILE', help: 'where the JSON result is written' },
  },
});
const header = printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/encode'), ...require('../dist/lib/metrics'), ...require('../dist/lib/router'), ...require('../dist/lib/util') };
const sample = args.sample;
const ms = args.m;
const outFile = args.given.has('out') ? args.out : path.join(__dirname, 'out', 'hybrid-two-stage.json');
const METRICS = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'];

async function main() {
  const corpus = eo.loadSnapshot({ sample });
  const bench = eo.loadBenchmark(path.join(eo.benchmarkSettings({ sample }).dir, 'benchmark.json'), corpus);
  const test = eo.benchmarkSplit(bench, 'test');
  const queries = test.queries.map((q) => ({ id: q.id, text: q.text }));
  const encoder = await eo.loadEncoder();
  const log = (l) => console.log(`  ${l}`);
  const systems = [];
  try {
    for (const m of [null, ...ms]) {
      const engine = await eo.loadSearchEngine(corpus, { semantic: 'nnssc', sample, encoder, nnsscTwoStage: m === null ? false : { topM: m }, log });
      try {
        if (engine.fusion.mode !== 'convex') throw new Error(`${engine.label}: no convex α (${engine.fusion.source})`);
        await engine.semantic.scoreBatch(['warm-up: open the index']); // the index opens on first use: not timed
        const t0 = performance.now();
        const sem = await engine.semantic.scoreBatch(queries.map((q) => eo.retrievalTextOf(q.text)));
        const semMsPerQuery = (performance.now() - t0) / queries.length;
        const res = await eo.searchBatch(engine, queries);
        const pq = eo.evaluateRun(res.run, test.qrels);
        const row = eo.summarize(engine.label, pq);
        systems.push({ m, label: engine.label, alpha: engine.fusion.spec.alpha, alphaSource: engine.fusion.source, semMsPerQuery, metrics: Object.fromEntries(METRICS.map((k) => [k, row[k]])), pq });
        console.log(`${engine.label}: ${METRICS.map((k) => `${k} ${row[k].toFixed(4)}`).join(', ')}; semantic scorer ${semMsPerQuery.toFixed(1)} ms/query (with embedding)`);
        void sem;
      } finally {
        engine.dispose();
      }
    }
  } finally {
    encoder.dispose();
  }
  const exact = systems[0];
  console.log(`\n${queries.length} test queries; paired differences two-stage − exact (95% bootstrap CI, randomization p; 10,000 each, seed 42):`);
  const comparisons = [];
  for (const s of systems.slice(1)) {
    const cmp = eo.compareSystems(s.pq, exact.pq, METRICS, { seed: 42 });
    comparisons.push({ m: s.m, cmp: cmp.map((c) => ({ metric: c.metric, delta: c.meanDiff, ci: [c.ciLow, c.ciHigh], p: c.pValue })) });
    console.log(`  M=${s.m}: ` + cmp.map((c) => `${c.metric} ${c.meanDiff >= 0 ? '+' : ''}${c.meanDiff.toFixed(4)} [${c.ciLow.toFixed(4)}, ${c.ciHigh.toFixed(4)}] p=${c.pValue.toFixed(3)}`).join('; '));
  }
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  eo.writeFileAtomic(outFile, JSON.stringify({ when: new Date().toISOString(), header, sample, testQueries: queries.length, systems: systems.map(({ pq, ...s }) => s), comparisons }, null, 2) + '\n');
  console.log(`written ${path.relative(process.cwd(), outFile)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
