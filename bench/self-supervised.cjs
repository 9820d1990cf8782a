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
// On a loaded 2-core machine the variants can be trained in parallel processes (`--variants pretrain --out a.json`, …)
// and their tables joined afterwards (`--combine a.json,b.json,c.json`): the JSON keeps every row's per-query test
// metrics, so the paired tests of the joined table are the same as one run's.
//   node bench/self-supervised.cjs [--sample] [--variants plain,pretrain,mix] [--max-pairs 2048] [--pretrain-epochs 3]
//        [--max-epochs N] [--retrain] [--out bench/out/self-supervised.json]
//   node bench/self-supervised.cjs --combine bench/out/a.json,bench/out/b.json [--out bench/out/self-supervised.json]
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
  if (args.includes('--combine')) return combine(opt('--combine').split(','));
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

  // Test split rows: per-query metrics of every row (kept in the JSON for --combine)
  const systems = [{ id: 'bm25', label: 'BM25', pq: eo.evaluateRun(bm25Scores.test.run, test.qrels) }];
  for (const v of variants) systems.push({ id: v === 'plain' ? 'nnssc' : `nnssc-${v}`, label: trained[v].label, variant: v, pq: eo.evaluateRun(trained[v].scores.test.run, test.qrels) });
  for (const how of ['analytic', 'grid'])
    for (const v of variants) {
      const h = trained[v].hybrid[how];
      systems.push({ id: `nnssc${v === 'plain' ? '' : `-${v}`}+bm25-${how}`, label: `${trained[v].label} + BM25 (${how} α)`, variant: v, alpha: h.alpha, pq: eo.evaluateRun(h.test, test.qrels) });
    }
  const { rows, vsBm25 } = table(systems, test.queries.length);

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
    test: { queries: test.queries.length, rows, nnsscVsBm25R100: vsBm25, systems: systems.map((x) => ({ ...x, pq: { queryIds: x.pq.queryIds, values: x.pq.values } })) },
    seconds: (performance.now() - t0) / 1000,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile + '.tmp', JSON.stringify(out, null, 2));
  fs.renameSync(outFile + '.tmp', outFile);
  console.log(`\nwritten ${path.relative(process.cwd(), outFile)} (${out.seconds.toFixed(0)} s; load average at end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')})`);
  encoder.dispose();
}

/** The test table: each row, Δ vs its plain counterpart (paired bootstrap CI + randomization p, 10,000, seed 42). */
function table(systems, nQueries) {
  const byId = Object.fromEntries(systems.map((x) => [x.id, x]));
  const order = ['bm25', 'nnssc', 'nnssc-pretrain', 'nnssc-mix', ...['analytic', 'grid'].flatMap((h) => [`nnssc+bm25-${h}`, `nnssc-pretrain+bm25-${h}`, `nnssc-mix+bm25-${h}`])];
  const plainOf = (id) => (id.startsWith('nnssc-') ? id.replace(/^nnssc-(pretrain|mix)/, 'nnssc') : null);
  const cmpOpts = { seed: 42, permutations: 10000, bootstrapSamples: 10000 };
  const rows = order.filter((id) => byId[id]).map((id) => {
    const x = byId[id];
    const row = { id, ...eo.summarize(x.label, x.pq), ...(x.alpha !== undefined ? { alpha: x.alpha } : {}) };
    const base = plainOf(id);
    if (base && byId[base]) row.vs = { system: base, cmp: eo.compareSystems(x.pq, byId[base].pq, METRICS, cmpOpts).map((c) => ({ metric: c.metric, delta: c.meanDiff, ci: [c.ciLow, c.ciHigh], p: c.pValue })) };
    return row;
  });
  const f = (x) => x.toFixed(3).replace(/^0\./, '.').replace(/^-0\./, '-.');
  const sign = (x) => (x >= 0 ? '+' : '') + x.toFixed(3);
  console.log(`\ntest split: ${nQueries} queries; Δ vs the plain counterpart, bootstrap 95% CI and randomization p (10,000, seed 42)`);
  console.log(`${'row'.padEnd(44)} ${METRICS.map((m) => m.padStart(6)).join(' ')}   α      ΔMAP [CI] p                   ΔMRR [CI] p                   ΔR@100 [CI] p`);
  for (const r of rows) {
    const d = (m) => {
      const c = r.vs?.cmp.find((x) => x.metric === m);
      return c ? `${sign(c.delta)} [${sign(c.ci[0])}, ${sign(c.ci[1])}] ${c.p.toPrecision(2)}`.padEnd(30) : ''.padEnd(30);
    };
    console.log(`${r.system.padEnd(44)} ${METRICS.map((m) => f(r[m]).padStart(6)).join(' ')}   ${r.alpha !== undefined ? r.alpha.toFixed(3) : '  –  '}  ${d('MAP')}${d('MRR')}${d('R@100')}`);
  }
  const vsBm25 = {};
  for (const id of ['nnssc', 'nnssc-pretrain', 'nnssc-mix'].filter((i) => byId[i] && byId.bm25)) {
    const c = eo.compareSystems(byId[id].pq, byId.bm25.pq, ['R@100'], cmpOpts)[0];
    vsBm25[id] = c;
    console.log(`${byId[id].label} R@100 − BM25 R@100: ${sign(c.meanDiff)} [${sign(c.ciLow)}, ${sign(c.ciHigh)}] p ${c.pValue.toPrecision(2)} (goal: reach BM25's R@100: ${c.meanA >= c.meanB ? 'met' : 'NOT met'})`);
  }
  return { rows, vsBm25 };
}

/** Join the JSON of runs made in separate processes (same benchmark, same test queries) into one table. */
function combine(files) {
  const parts = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
  for (const p of parts) {
    if (!p.test.systems) throw new Error('a file without per-query systems (written by an older bench script): rerun that variant');
    if (p.corpus !== parts[0].corpus || p.trainingData !== parts[0].trainingData || p.test.queries !== parts[0].test.queries) throw new Error('the files come from different corpora or benchmarks');
  }
  const seen = new Set();
  const systems = parts.flatMap((p) => p.test.systems).filter((x) => !seen.has(x.id) && seen.add(x.id));
  const variants = Object.assign({}, ...parts.map((p) => p.variants));
  const withVal = Object.keys(variants).filter((v) => v !== 'plain' && variants[v].bestValScore !== null);
  const chosen = withVal.length ? withVal.reduce((a, b) => (variants[b].bestValScore > variants[a].bestValScore ? b : a)) : null;
  for (const [v, x] of Object.entries(variants)) console.log(`${v}: best epoch ${x.bestEpoch} of ${x.epochs} (${x.stoppedBecause}), validation score ${x.bestValScore?.toFixed(4)}, training ${x.trainingSeconds.toFixed(0)} s${x.reused ? ' (reused checkpoint)' : ''}; α analytic ${x.alpha.analytic.toFixed(3)}, grid ${x.alpha.grid.toFixed(3)}`);
  if (chosen) console.log(`chosen on validation: ${chosen} (${variants[chosen].bestValScore.toFixed(4)} vs plain ${variants.plain?.bestValScore?.toFixed(4) ?? 'n/a'})`);
  const { rows, vsBm25 } = table(systems, parts[0].test.queries);
  const out = { created: new Date().toISOString(), combinedFrom: files, corpus: parts[0].corpus, benchmark: parts[0].benchmark, trainingData: parts[0].trainingData, machine: parts.map((p) => p.machine), config: parts[0].config, variants, chosenOnValidation: chosen, test: { queries: parts[0].test.queries, rows, nnsscVsBm25R100: vsBm25, systems } };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile + '.tmp', JSON.stringify(out, null, 2));
  fs.renameSync(outFile + '.tmp', outFile);
  console.log(`\nwritten ${path.relative(process.cwd(), outFile)}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
