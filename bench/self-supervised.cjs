#!/usr/bin/env node
// More training signal from the corpus (issue 11 item 4): NN-SSC trained plain (the paper's recipe) vs with the
// corpus self-supervised pairs (`corpusSelfSupervisedPairs`: dataset titles, short names, abstract sentences and
// keyword phrases as queries for their datasets; no publication involved), pre-trained first (`pretrain`) or mixed in
// (`mix`), all with the same seed and config, in one run. Which schedule is better is decided on the VALIDATION split
// (held-out training publications, the early-stopping split) — never on the test split. Then the test split: NN-SSC
// alone and NN-SSC + BM25 (analytic α, Eq. 7, and grid α, both set on the training split via `fusionAlpha`), each
// self-supervised row against its plain counterpart with a paired bootstrap CI and randomization p (10,000, seed 42).
// Checkpoints go to their default folders (checkpoints/nnssc/use-lite-<benchmark>[-corpus-<schedule>]) and are reused
// when they match (`loadOrTrainNnssc`); --retrain trains again.
//   node bench/self-supervised.cjs [--sample] [--variants plain,pretrain,mix] [--max-pairs 10000] [--pretrain-epochs 3]
//        [--max-epochs N] [--retrain] [--out bench/out/self-supervised.json]
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const eo = require('../dist/lib');

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const sample = args.includes('--sample');
const variants = opt('--variants', 'plain,pretrain,mix').split(',');
const maxPairs = Number(opt('--max-pairs', eo.DEFAULT_CORPUS_PAIRS_OPTIONS.maxPairs));
const pretrainEpochs = Number(opt('--pretrain-epochs', eo.DEFAULT_NNSSC_SELF_SUPERVISED.epochs));
const maxEpochs = args.includes('--max-epochs') ? Number(opt('--max-epochs')) : undefined;
const outFile = opt('--out', path.join(__dirname, 'out', sample ? 'self-supervised-sample.json' : 'self-supervised.json'));
const METRICS = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'];

const SETTINGS = {
  plain: null,
  pretrain: { schedule: 'pretrain', epochs: pretrainEpochs, pairs: { maxPairs } },
  mix: { schedule: 'mix', pairs: { maxPairs } },
};

async function main() {
  const t0 = performance.now();
  const load = os.loadavg();
  const corpus = eo.loadSnapshot({ sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample }));
  const train = eo.benchmarkSplit(bench, 'train');
  const test = eo.benchmarkSplit(bench, 'test');
  const splits = { train, test };
  const encoder = await eo.loadUseLite();
  const matrix = await eo.embedCorpusCached({ encoder, key: corpus.hash, texts: corpus.datasets.map((d) => eo.datasetEncoderText(d)), workers: 2, waitForOther: true });
  const config = { ...eo.DEFAULT_NNSSC_CONFIG, ...(maxEpochs ? { maxEpochs } : {}) };
  console.log(`${train.queries.length} train / ${test.queries.length} test queries over ${corpus.datasets.length} datasets; NN-SSC seed ${config.seed}, ≤ ${config.maxEpochs} epochs, patience ${config.patience}; load average ${load.map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);

  const bm25 = eo.bm25Scorer(eo.loadOrBuildBm25(corpus), 'bm25', 'BM25');
  const bm25Scores = await eo.retrieveSplits(bm25, splits, corpus);
  const trained = {};
  for (const v of variants) {
    if (!(v in SETTINGS)) throw new Error(`unknown variant ${v} (plain, pretrain, mix)`);
    const t = performance.now();
    const nn = await eo.loadOrTrainNnssc({
      corpus, bench, encoder, corpusMatrix: matrix, config, selfSupervised: SETTINGS[v], mode: args.includes('--retrain') ? 'retrain' : 'load-or-train',
      log: (l) => console.log(`[${v}] ${l}`),
      training: { onEpoch: (l) => console.log(`[${v}] ${l.phase === 'pretrain' ? 'pre-training ' : ''}epoch ${l.epoch}: train loss ${l.trainLoss.toFixed(4)}, val MAP ${l.valMAP?.toFixed(4)} MRR ${l.valMRR?.toFixed(4)}${l.best ? ' *' : ''} (${l.seconds.toFixed(0)} s)`) },
    });
    const label = v === 'plain' ? 'NN-SSC' : `NN-SSC (corpus ${v})`;
    const scorer = eo.nnsscScorer(encoder, matrix, nn.model, { id: v === 'plain' ? 'nnssc' : `nnssc-corpus-${v}`, label, threads: 2 });
    const scores = await eo.retrieveSplits(scorer, splits, corpus);
    const hybrid = await eo.studyHybrid({ corpus, splits, semantic: { scorer, scores }, lexical: { scorer: bm25, scores: bm25Scores }, log: (l) => console.log(`[${v}] ${l}`) });
    scorer.dispose();
    trained[v] = { nn, label, scores, hybrid, seconds: (performance.now() - t) / 1000 };
    const s = nn.summary;
    console.log(`[${v}] ${nn.trained ? 'trained' : 'reused'} ${nn.dir}: best epoch ${s.bestEpoch} of ${s.curve.length} (${s.stoppedBecause}), validation ${config.valMetric} ${s.bestValScore?.toFixed(4) ?? 'n/a'}, training ${s.wallSeconds.toFixed(0)} s; analytic α ${hybrid.analytic.alpha.toFixed(3)}, grid α ${hybrid.grid.alpha.toFixed(3)}`);
  }

  // Choice of schedule: the validation score of the kept weights (held-out TRAINING publications), never the test split.
  const withVal = variants.filter((v) => v !== 'plain' && trained[v].nn.summary.bestValScore !== null);
  const chosen = withVal.length ? withVal.reduce((a, b) => (trained[b].nn.summary.bestValScore > trained[a].nn.summary.bestValScore ? b : a)) : null;
  const plainVal = trained.plain?.nn.summary.bestValScore ?? null;
  if (chosen) console.log(`\nchosen on validation (${config.valMetric}): ${chosen} ${trained[chosen].nn.summary.bestValScore.toFixed(4)} vs plain ${plainVal?.toFixed(4) ?? 'n/a'} → ${plainVal !== null && trained[chosen].nn.summary.bestValScore > plainVal ? 'wins' : 'does not win'} on validation`);

  // Test split rows
  const rows = [];
  const perQuery = {};
  const addRow = (id, label, run, base, extra = {}) => {
    const pq = eo.evaluateRun(run, test.qrels);
    perQuery[id] = pq;
    const row = { id, ...eo.summarize(label, pq), ...extra };
    if (base && perQuery[base]) row.vs = { system: base, cmp: eo.compareSystems(pq, perQuery[base], METRICS, { seed: 42, permutations: 10000, bootstrapSamples: 10000 }).map((c) => ({ metric: c.metric, delta: c.meanDiff, ci: [c.ciLow, c.ciHigh], p: c.pValue })) };
    rows.push(row);
  };
  addRow('bm25', 'BM25', bm25Scores.test.run, null);
  for (const v of variants) addRow(v === 'plain' ? 'nnssc' : `nnssc-${v}`, trained[v].label, trained[v].scores.test.run, v === 'plain' ? null : 'nnssc');
  for (const how of ['analytic', 'grid'])
    for (const v of variants) {
      const h = trained[v].hybrid[how];
      addRow(`nnssc${v === 'plain' ? '' : `-${v}`}+bm25-${how}`, `${trained[v].label} + BM25 (${how} α)`, h.test, v === 'plain' ? null : `nnssc+bm25-${how}`, { alpha: h.alpha });
    }
  // NN-SSC alone vs BM25's R@100 (the issue's goal)
  const vsBm25 = Object.fromEntries(variants.map((v) => [v, eo.compareSystems(perQuery[v === 'plain' ? 'nnssc' : `nnssc-${v}`], perQuery.bm25, ['R@100'], { seed: 42 })[0]]));

  const f = (x) => x.toFixed(3).replace(/^0\./, '.').replace(/^-0\./, '-.');
  const sign = (x) => (x >= 0 ? '+' : '') + x.toFixed(3);
  console.log(`\ntest split: ${test.queries.length} queries; Δ vs the plain counterpart, bootstrap 95% CI and randomization p (10,000, seed 42)`);
  console.log(`${'row'.padEnd(42)} ${METRICS.map((m) => m.padStart(6)).join(' ')}   α      ΔMAP [CI] p                   ΔMRR [CI] p                   ΔR@100 [CI] p`);
  for (const r of rows) {
    const d = (m) => {
      const c = r.vs?.cmp.find((x) => x.metric === m);
      return c ? `${sign(c.delta)} [${sign(c.ci[0])}, ${sign(c.ci[1])}] ${c.p.toPrecision(2)}`.padEnd(30) : ''.padEnd(30);
    };
    console.log(`${r.system.padEnd(42)} ${METRICS.map((m) => f(r[m]).padStart(6)).join(' ')}   ${r.alpha !== undefined ? r.alpha.toFixed(3) : '  –  '}  ${d('MAP')}${d('MRR')}${d('R@100')}`);
  }
  for (const v of variants) {
    const c = vsBm25[v];
    console.log(`${trained[v].label} R@100 − BM25 R@100: ${sign(c.meanDiff)} [${sign(c.ciLow)}, ${sign(c.ciHigh)}] p ${c.pValue.toPrecision(2)} (goal: reach BM25's R@100: ${c.meanA >= c.meanB ? 'met' : 'NOT met'})`);
  }

  const out = {
    created: new Date().toISOString(), sample, corpus: corpus.hash, benchmark: bench.name, trainingData: bench.dataHash,
    machine: { cores: os.cpus().length, loadAverageAtStart: load, loadAverageAtEnd: os.loadavg() },
    config, variants: Object.fromEntries(variants.map((v) => {
      const t = trained[v];
      return [v, {
        selfSupervised: t.nn.selfSupervised, checkpoint: path.relative(process.cwd(), t.nn.dir), reused: !t.nn.trained, bestEpoch: t.nn.summary.bestEpoch,
        epochs: t.nn.summary.curve.length, stoppedBecause: t.nn.summary.stoppedBecause, bestValScore: t.nn.summary.bestValScore, pretrainCurve: t.nn.summary.pretrainCurve,
        curve: t.nn.summary.curve, trainingSeconds: t.nn.summary.wallSeconds, pairs: t.nn.checkpoint.config.selfSupervisedPairs ?? null,
        alpha: { analytic: t.hybrid.analytic.alpha, grid: t.hybrid.grid.alpha }, seconds: t.seconds,
      }];
    })),
    chosenOnValidation: chosen, plainValScore: plainVal,
    test: { queries: test.queries.length, rows, nnsscVsBm25R100: vsBm25 },
    seconds: (performance.now() - t0) / 1000,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile + '.tmp', JSON.stringify(out, null, 2));
  fs.renameSync(outFile + '.tmp', outFile);
  console.log(`\nwritten ${path.relative(process.cwd(), outFile)} (${out.seconds.toFixed(0)} s; load average at end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')})`);
  encoder.dispose();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
