#!/usr/bin/env node
// The tuned settings of the default ranking (lib/search/default-ranking.ts), searched again on the style benchmark's DEV
// half and logged (issue 36): the adaptive α's start α and L2 pull (start {0.15, 0.3, analytic} × L2 {0.002, 0.02, 0.1}),
// then the identifier rule's window ({10, 20, 40, ∞}) at the default adaptive settings, then the lexical half
// ({bm25, bm25+qe, bm25-stop}) at the default settings, then the identifier rule's factor for a GCMD instrument or
// platform type named in the query ("lidar", "airborne": {1 (no effect), 0.8, 0.5, 0.2, 0.1, 0.01}; issue 38 step 4), then
// the semantic half with the adaptive α refitted on it ({nnssc, static: the corpus-trained static encoder} × start
// {0.15, 0.3, analytic} × L2 {0.002, 0.02, 0.1}; issue 39 step 2), then the adaptive model's training queries (the
// scorers' own training queries, where the static encoder's scores are memorised, against corpus-made queries it never
// saw, with and without the title TRAINING split, × L2 {0.02, 0.1}), then the static half's query-time feedback (its own
// first 3, or the lexical half's first {3, 5, 10}; issues 37, 39) × start α {0.3, 0.5, 0.7, 0.85}. Each configuration ranks the
// dev queries as users get them (query rules and repair on) and is scored by nDCG@10 over all dev queries, with the
// per-style means beside it. Every configuration is appended to bench/tuning-log.json, the best of each search marked
// `chosen`; the script prints whether the chosen ones are today's defaults. The test half is never read.
// Needs the full snapshot's NN-SSC checkpoint and USE-lite embeddings (`npm start`); each adaptive setting fits its
// model once (cached under checkpoints/fusion/).
//   node bench/default-ranking-tune.cjs [--sample] [--no-log] [--only adaptive|window|lexical|type|semantic|prf|queries]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_METRIC, styleDevHalf, devScores, scoresLine, tuningRun, appendTuningRun, TUNING_FLAGS } = require('./lib/tuning.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'the default ranking\'s adaptive α (start α × L2), identifier window, lexical half, GCMD type factor, semantic half and the adaptive model\'s training queries on the style benchmark DEV half: every configuration appended to bench/tuning-log.json',
  flags: {
    ...TUNING_FLAGS,
    only: { type: 'string', default: null, choices: ['adaptive', 'window', 'lexical', 'type', 'semantic', 'prf', 'queries'], defaultText: 'all seven', help: 'run one of the seven searches' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/search'), ...require('../dist/lib/retrieve') };

const METRIC = TUNING_METRIC;

async function main() {
  const sample = args.sample;
  const corpus = eo.loadSnapshot({ sample });
  const half = styleDevHalf(eo, corpus);
  const dev = half.queries;
  console.log(`style benchmark DEV half: ${dev.length} queries; ${corpus.datasets.length} datasets`);
  const logged = [];
  const score = async (engineOpts) => {
    const engine = await eo.loadSearchEngine(corpus, { sample, log: (l) => console.log(`  ${l}`), ...engineOpts });
    try {
      const { run } = await eo.searchBatch(engine, dev, { rules: true, repair: true });
      return devScores(run, half);
    } finally {
      engine.dispose();
    }
  };
  const search = async (system, configs, toOpts, isDefault) => {
    const entry = tuningRun(system, half, 'bench/default-ranking-tune.cjs');
    const entries = [];
    for (const settings of configs) {
      const t = performance.now();
      const scores = await score(toOpts(settings));
      console.log(`${system} ${JSON.stringify(settings)}  ${scoresLine(scores, half)}  ${((performance.now() - t) / 1000).toFixed(0)} s`);
      entries.push(entry(settings, scores));
    }
    const best = eo.markBestChosen(entries, METRIC);
    const def = entries.find((e) => isDefault(e.settings));
    console.log(`${system}: chosen ${JSON.stringify(entries[best].settings)} (${METRIC} ${entries[best].scores[METRIC].toFixed(4)}); today's default ${def ? JSON.stringify(def.settings) : '(not in the grid)'} ${def ? `(${METRIC} ${def.scores[METRIC].toFixed(4)})` : ''}${def === entries[best] ? ': the default is the best' : ''}`);
    logged.push(...entries);
  };
  const { adaptive, identifiers, lexical, semantic } = eo.DEFAULT_RANKING;
  if (!args.only || args.only === 'adaptive') {
    const grid = [];
    for (const startAlpha of [0.15, 0.3, 'analytic']) for (const l2 of [0.002, 0.02, 0.1]) grid.push({ startAlpha, l2 });
    await search('adaptive-fusion', grid, (s) => ({ adaptive: s }), (s) => s.startAlpha === adaptive.startAlpha && s.l2 === adaptive.l2);
  }
  if (!args.only || args.only === 'window') {
    // JSON has no Infinity: the unbounded window is logged as null
    const windows = [10, 20, 40, null];
    await search('identifier-window', windows.map((window) => ({ window })), (s) => ({ identifiers: { ...identifiers, window: s.window ?? Infinity } }), (s) => (s.window ?? Infinity) === identifiers.window);
  }
  if (!args.only || args.only === 'lexical') {
    await search('default-lexical', ['bm25', 'bm25+qe', 'bm25-stop'].map((l) => ({ lexical: l })), (s) => ({ lexical: s.lexical }), (s) => s.lexical === lexical);
  }
  if (!args.only || args.only === 'type') {
    const factor = (s) => ({ identifiers: { ...identifiers, classPenalty: { ...identifiers.classPenalty, instrumentType: s.typeFactor, platformType: s.typeFactor } } });
    await search('identifier-type-factor', [1, 0.8, 0.5, 0.2, 0.1, 0.01].map((typeFactor) => ({ typeFactor })), factor, (s) => s.typeFactor === identifiers.classPenalty.instrumentType);
  }
  if (!args.only || args.only === 'semantic') {
    // the adaptive model is fitted on each semantic half's own scores: its start and pull are searched with it
    const grid = [];
    // (runs logged before the static encoder became the default's name NN-SSC `best`)
    for (const sem of ['nnssc', 'static']) for (const startAlpha of [0.15, 0.3, 'analytic']) for (const l2 of [0.002, 0.02, 0.1]) grid.push({ semantic: sem, startAlpha, l2 });
    await search('default-semantic', grid, (s) => ({ semantic: s.semantic, adaptive: { startAlpha: s.startAlpha, l2: s.l2 } }),
      (s) => s.semantic === semantic && s.startAlpha === adaptive.startAlpha && s.l2 === adaptive.l2);
  }
  if (!args.only || args.only === 'prf') {
    // the static half's query-time feedback, seeded by its own first datasets (DEFAULT_STATIC_PRF, chosen for the
    // encoder alone by bench/static-tune.cjs --prf) or by the lexical half's, with the adaptive model refitted on each
    // (its scores change) and its start α searched with it: a semantic half that finds more earns more weight
    const seeds = [{ k: 3, beta: 1 }, { k: 3, beta: 1, seeds: 'lexical' }, { k: 5, beta: 1, seeds: 'lexical' }, { k: 10, beta: 1, seeds: 'lexical' }];
    const grid = [];
    for (const prf of seeds) for (const startAlpha of [0.3, 0.5, 0.7, 0.85]) grid.push({ prf, startAlpha, l2: adaptive.l2 });
    const def = eo.DEFAULT_RANKING.staticPrf;
    const same = (a, b) => a.k === b.k && a.beta === b.beta && (a.seeds ?? 'self') === (b.seeds ?? 'self');
    await search('default-static-prf', grid, (s) => ({ staticPrf: s.prf, adaptive: { startAlpha: s.startAlpha, l2: s.l2 } }),
      (s) => same(s.prf, def) && s.startAlpha === adaptive.startAlpha && s.l2 === adaptive.l2);
  }
  if (!args.only || args.only === 'queries') {
    // the model fitted here on other training queries (into a temporary folder), then set on the default engine
    const os = require('node:os');
    const path = require('node:path');
    const fs = require('node:fs');
    const bench = eo.loadBenchmark(path.join(eo.benchmarkSettings({ sample }).dir, 'benchmark.json'), corpus);
    const train = eo.benchmarkSplit(bench, 'train');
    const test = eo.benchmarkSplit(bench, 'test');
    const exclude = eo.adaptiveExcludedIds(corpus, test);
    const heldOut = eo.heldOutTrainingOptions(corpus, train, test, { seed: 7 });
    const noTitle = { queries: [], qrels: new Map() };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-adaptive-queries-'));
    const grid = [];
    for (const queries of ['scorer-training', 'held-out', 'title+held-out']) for (const l2 of [0.02, 0.1]) grid.push({ queries, l2 });
    const entry = tuningRun('adaptive-queries', half, 'bench/default-ranking-tune.cjs');
    const entries = [];
    const engine = await eo.loadSearchEngine(corpus, { sample, log: (l) => console.log(`  ${l}`) });
    try {
      for (const s of grid) {
        const fit = (o) => eo.adaptiveFusion(o).catch((e) => {
          if (e && e.code === 'INVALID_ARGUMENT') return null; // no training queries (the sample's datasets are all the encoder's positives)
          throw e;
        });
        const a = await fit({
          corpus, train: s.queries === 'held-out' ? noTitle : train, lexical: engine.lexical, semantic: engine.semantic, startAlpha: adaptive.startAlpha, l2: s.l2,
          identifierRule: identifiers, training: s.queries === 'scorer-training' ? { excludeDatasetIds: exclude } : heldOut, dir, log: (l) => console.log(`  ${l}`),
        });
        if (!a) {
          console.log(`adaptive-queries ${JSON.stringify(s)}: skipped, no training queries`);
          continue;
        }
        const shaped = { ...engine, fusion: { ...engine.fusion, adaptive: { model: a.record.model } } };
        const { run } = await eo.searchBatch(shaped, dev, { rules: true, repair: true });
        const scores = devScores(run, half);
        console.log(`adaptive-queries ${JSON.stringify(s)} (${JSON.stringify(a.record.queries)})  ${scoresLine(scores, half)}`);
        entries.push(entry({ ...s, startAlpha: adaptive.startAlpha, trained: a.record.queries }, scores));
      }
    } finally {
      engine.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const best = eo.markBestChosen(entries, METRIC);
    console.log(`adaptive-queries: chosen ${JSON.stringify(entries[best].settings)} (${METRIC} ${entries[best].scores[METRIC].toFixed(4)})`);
    logged.push(...entries);
  }
  appendTuningRun(eo, logged, args);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
