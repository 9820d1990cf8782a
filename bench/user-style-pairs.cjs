#!/usr/bin/env node
// Training queries in the users' styles for NN-SSC, measured where users are (issue 21 item 4): NN-SSC trained plain
// (the default checkpoint, checkpoints/nnssc/use-lite-<benchmark>) vs NN-SSC trained with the corpus-made user-style
// queries mixed in (`loadOrTrainNnssc({ selfSupervised: { schedule: 'mix', styles: { perStyle } } })`: keyword,
// identifier-led and question-style queries made from dataset fields by `corpusStyleQueries`, every test label of the
// title benchmark and of the style benchmark's test half left out; checkpoints/nnssc/use-lite-<benchmark>-styles-mix),
// same seed (42) and stopping rule. Only NN-SSC is measured (no --scorer finetune variant).
// For each: NN-SSC alone (exact full-corpus scoring, as the published tables) and fused with BM25 as the service ranks
// (two-stage NN-SSC, M = 400, analytic α set on the title TRAINING split), plus BM25 alone as a reference row, on
//   - the title benchmark's test split (R@10, MAP, MRR; the paper's path: one α, no query rules), and
//   - the style benchmark's dev and test halves (`lib/bench/styles`), per style and overall (nDCG@10, P@10, MAP, MRR,
//     graded qrels), ranked as users get it (`searchBatch(…, { rules: true })`: identifier and period/place rules).
// Each "+ styles" row carries its paired difference from the plain row of the same kind (bootstrap 95% CI and
// randomization p, 10,000, seed 42). The style benchmark's queries and labels are never trained on.
// Checkpoints are reused when they match; --retrain trains the styles variant again. The plain variant always uses the
// default config (so the default checkpoint is only ever reused, or trained as notebook 04 trains it); --max-epochs
// (a smoke run) applies to the styles variant only.
//   node bench/user-style-pairs.cjs [--sample] [--per-style N] [--max-epochs N] [--retrain] [--out bench/out/user-style-pairs[-sample].json]
//   (--help lists the flags)
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { loadTrainingInputs } = require('./lib/common.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'NN-SSC trained plain vs with corpus-made user-style queries mixed in: title test split and the style benchmark, alone and fused with BM25, paired',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    'per-style': { type: 'int', default: null, min: 1, defaultText: 'DEFAULT_NNSSC_STYLE_QUERIES.perStyle', help: 'user-style training queries per style' },
    'max-epochs': { type: 'int', default: null, min: 1, defaultText: 'DEFAULT_NNSSC_CONFIG.maxEpochs', help: 'the styles variant only: at most N epochs (a smoke run)' },
    retrain: { type: 'boolean', help: 'train the styles variant again' },
    out: { type: 'string', default: null, placeholder: 'FILE', defaultText: 'bench/out/user-style-pairs[-sample].json', help: 'where the JSON result is written' },
  },
});
const header = printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/data'), ...require('../dist/lib/encode'), ...require('../dist/lib/metrics'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/search'), ...require('../dist/lib/train'), ...require('../dist/lib/util') };
const { styleRuns, styleRows } = require('../dist/lib/study');
const { DEFAULT_NNSSC_STYLE_QUERIES } = require('../dist/lib/train');

const sample = args.sample;
const perStyle = args.perStyle ?? DEFAULT_NNSSC_STYLE_QUERIES.perStyle;
const maxEpochs = args.maxEpochs ?? undefined;
const TOP_M = 400;
const TITLE_METRICS = ['R@10', 'MAP', 'MRR'];
const STYLE_METRICS = ['nDCG@10', 'P@10', 'MAP', 'MRR'];
const CMP = { seed: 42, permutations: 10000, bootstrapSamples: 10000 };
const VARIANTS = {
  plain: { id: 'nnssc', label: 'NN-SSC', selfSupervised: null },
  styles: { id: 'nnssc-styles-mix', label: 'NN-SSC + user-style queries', selfSupervised: { schedule: 'mix', styles: { perStyle } } },
};

async function main() {
  const outFile = args.out ?? path.join(__dirname, 'out', `user-style-pairs${sample ? '-sample' : ''}.json`);
  const t0 = performance.now();
  const load = os.loadavg();
  const { corpus, bench, train, test, encoder, matrix } = await loadTrainingInputs(eo, { sample });
  const styleBench = eo.buildStyleBenchmark(corpus);
  const config = eo.DEFAULT_NNSSC_CONFIG;
  console.log(`${train.queries.length} train / ${test.queries.length} test title queries, ${styleBench.queries.length} style queries over ${corpus.datasets.length} datasets; NN-SSC seed ${config.seed}; load average ${load.map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);

  const bm25 = eo.bm25Scorer(eo.loadOrBuildBm25(corpus), 'bm25', 'BM25');
  // the service's first stage: BM25 and the cosine of the same encoder (the query is embedded once)
  const cosine = eo.denseScorer(encoder, matrix, { id: 'cosine-base', label: 'Cosine (USE-lite)' });
  const engines = [{ key: 'bm25', label: 'BM25', engine: eo.createSearchEngine(corpus, { lexical: bm25, semantic: null }) }];
  const records = {};
  const disposers = [];
  for (const [v, spec] of Object.entries(VARIANTS)) {
    const log = (l) => console.log(`[${v}] ${l}`);
    const t = performance.now();
    const nn = await eo.loadOrTrainNnssc({
      corpus, bench, encoder, corpusMatrix: matrix, config: v === 'styles' && maxEpochs ? { ...config, maxEpochs } : config, selfSupervised: spec.selfSupervised, mode: v === 'styles' && args.retrain ? 'retrain' : 'load-or-train', log,
      training: { onEpoch: (l) => log(`epoch ${l.epoch}: train loss ${l.trainLoss.toFixed(4)}, val MAP ${l.valMAP?.toFixed(4)} MRR ${l.valMRR?.toFixed(4)}${l.best ? ' *' : ''} (${l.seconds.toFixed(0)} s)`) },
    });
    const alone = eo.nnsscScorer(encoder, matrix, nn.model, { id: spec.id, label: spec.label, threads: 2 });
    const twoStage = eo.nnsscScorer(encoder, matrix, nn.model, { id: spec.id, label: `${spec.label} (two-stage, M=${TOP_M})`, threads: 2, twoStage: { topM: TOP_M, firstStage: [bm25, cosine] } });
    disposers.push(() => alone.dispose(), () => twoStage.dispose());
    const { record: alpha, file } = await eo.fusionAlpha({ corpus, train, semantic: twoStage, lexical: bm25, method: 'analytic', log });
    const s = nn.summary;
    log(`${nn.trained ? 'trained' : 'reused'} ${path.relative(process.cwd(), nn.dir)}: best epoch ${s.bestEpoch} of ${s.curve.length} (${s.stoppedBecause}), validation MAP ${s.bestValScore?.toFixed(4) ?? 'n/a'}; analytic α ${alpha.alpha.toFixed(3)} (${path.relative(process.cwd(), file)})`);
    records[v] = {
      checkpoint: path.relative(process.cwd(), nn.dir), reused: !nn.trained, selfSupervised: nn.selfSupervised, queries: nn.checkpoint.config.selfSupervisedPairs ?? null,
      bestEpoch: s.bestEpoch, epochs: s.curve.length, stoppedBecause: s.stoppedBecause, bestValScore: s.bestValScore, trainingSeconds: s.wallSeconds, curve: s.curve,
      alpha: alpha.alpha, alphaRecord: path.relative(process.cwd(), file), seconds: (performance.now() - t) / 1000,
    };
    engines.push({ key: `${v}:alone`, label: spec.label, engine: eo.createSearchEngine(corpus, { lexical: null, semantic: alone }) });
    engines.push({
      key: `${v}:fused`, label: `${spec.label} + BM25 (two-stage, analytic α)`,
      engine: eo.createSearchEngine(corpus, { lexical: bm25, semantic: twoStage, fusion: { method: 'convex', alpha: alpha.alpha }, source: 'analytic α on the title training split' }),
    });
  }

  // title test split: the paper's path (one α, no query rules)
  const title = {};
  for (const e of engines) title[e.key] = eo.evaluateRun((await eo.searchBatch(e.engine, test.queries)).run, test.qrels);
  const titleRows = engines.map((e) => {
    const row = { key: e.key, system: e.label, ...pick(eo.summarize(e.label, title[e.key]), TITLE_METRICS) };
    const base = plainOf(e.key);
    if (base) row.vsPlain = Object.fromEntries(eo.compareSystems(title[e.key], title[base], TITLE_METRICS, CMP).map((c) => [c.metric, { diff: c.meanDiff, low: c.ciLow, high: c.ciHigh, p: c.pValue }]));
    return row;
  });
  printTable(`title benchmark test split (${test.queries.length} queries; paper path: no query rules)`, titleRows.map((r) => ({ ...r, style: 'all', n: test.queries.length, metrics: r })), TITLE_METRICS);

  // style benchmark, dev and test halves: ranked as users get it (query rules on)
  const styles = {};
  for (const split of ['dev', 'test']) {
    const queries = styleBench.queries.filter((q) => q.split === split).map((q) => ({ id: q.id, text: q.text, style: q.style }));
    const { qrels } = eo.styleBenchmarkSplit(styleBench, split);
    const byLabel = await styleRuns(engines.map((e) => ({ label: e.key, engine: e.engine, rules: true })), queries);
    const rowsOf = (keys, reference) => styleRows(new Map(keys.map((k) => [k, byLabel.get(k)])), queries, qrels, reference, CMP);
    const vsPlain = [
      ...rowsOf(['bm25'], 'bm25'),
      ...rowsOf(['plain:alone', 'styles:alone'], 'plain:alone'),
      ...rowsOf(['plain:fused', 'styles:fused'], 'plain:fused'),
    ].map((r) => ({ ...r, key: r.system, system: engines.find((e) => e.key === r.system).label, vsPlain: r.vsReference, vsReference: undefined }));
    const vsBm25 = rowsOf(engines.map((e) => e.key), 'bm25').filter((r) => r.system !== 'bm25').map((r) => ({ key: r.system, style: r.style, n: r.n, vsBm25: r.vsReference }));
    styles[split] = { queries: queries.length, rows: vsPlain, vsBm25 };
    const order = [...eo.QUERY_STYLES, 'all'];
    const sorted = [...vsPlain].sort((a, b) => order.indexOf(a.style) - order.indexOf(b.style));
    printTable(`style benchmark ${split} half (${queries.length} queries; query rules on, as users get it)`, sorted, STYLE_METRICS);
  }

  writeJson(outFile, {
    created: new Date().toISOString(), header, sample, corpus: corpus.hash, benchmark: bench.name, trainingData: bench.dataHash, styleTopics: styleBench.topicsHash,
    machine: { cores: os.cpus().length, loadAverageAtStart: load, loadAverageAtEnd: os.loadavg() },
    config, twoStage: { topM: TOP_M }, variants: records,
    title: { queries: test.queries.length, rows: titleRows },
    styles,
    seconds: (performance.now() - t0) / 1000,
  });
  for (const d of disposers) d();
  cosine.dispose?.();
  encoder.dispose();
}

/** The plain counterpart of a `styles:*` row key (`styles:fused` → `plain:fused`), else null. */
function plainOf(key) {
  return key.startsWith('styles:') ? `plain:${key.slice('styles:'.length)}` : null;
}

function pick(row, names) {
  return Object.fromEntries(names.map((m) => [m, row[m]]));
}

/** Rows `{ system, style, n, metrics, vsPlain? }`, one line each: the metrics, then Δ vs plain [CI] p per metric. */
function printTable(title, rows, metrics) {
  const f = (x) => x.toFixed(3).replace(/^0\./, '.').replace(/^-0\./, '-.');
  const sign = (x) => (x >= 0 ? '+' : '') + x.toFixed(3);
  console.log(`\n${title}; Δ vs the plain NN-SSC row of the same kind, bootstrap 95% CI and randomization p (10,000, seed 42)`);
  console.log(`${'style'.padEnd(11)}${'n'.padStart(4)}  ${'system'.padEnd(56)} ${metrics.map((m) => m.padStart(7)).join(' ')}   ${metrics.map((m) => `Δ${m} [CI] p`.padEnd(34)).join('')}`);
  for (const r of rows) {
    const d = (m) => {
      const c = r.vsPlain?.[m];
      return c ? `${sign(c.diff)} [${sign(c.low)}, ${sign(c.high)}] ${c.p.toPrecision(2)}`.padEnd(34) : ''.padEnd(34);
    };
    console.log(`${r.style.padEnd(11)}${String(r.n).padStart(4)}  ${r.system.padEnd(56)} ${metrics.map((m) => f(r.metrics[m]).padStart(7)).join(' ')}   ${metrics.map(d).join('')}`);
  }
}

/** Atomic write (`writeFileAtomic`). */
function writeJson(file, out) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  eo.writeFileAtomic(file, JSON.stringify(out, null, 2));
  console.log(`\nwritten ${path.relative(process.cwd(), file)} (${out.seconds.toFixed(0)} s); load average at end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
