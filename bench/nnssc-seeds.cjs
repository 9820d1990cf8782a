#!/usr/bin/env node
// NN-SSC over several training seeds, plain vs with the corpus self-supervised pairs (issue 11 item 4), in one run.
// Why: one NN-SSC training is one draw. Retrained on inputs that differ only in their last bits, its Table 2 rows move
// by up to 0.03 (early stopping picks another epoch), as much as the effects item 4 looks for; a single-seed paired CI
// over the test queries does not see that spread. So, per variant (plain = the paper's recipe, `mix` / `pretrain` =
// with the corpus pairs) and seed:
//   1. train (loadOrTrainNnssc; seed 42 is notebook 04's checkpoint, other seeds go to `<its folder>-seed<N>`), score
//      both splits exactly, fuse with BM25 (analytic and grid α set on the TRAINING split, as notebook 05);
//   2. the spread over seeds of every test row (mean, sd, min, max);
//   3. seed-averaged paired test: per test query, each metric averaged over the seeds, variant vs plain (bootstrap 95%
//      CI and randomization p, 10,000, seed 42): the corpus pairs' effect with the training noise averaged out;
//   4. the seed ensemble of each variant (`meanScorer`: the mean of its seeds' logits), alone and + BM25 (its own α on
//      the training split), against the plain ensemble and against today's row (plain, seed 42);
//   5. issue 11's goal for NN-SSC alone: R@100 at least BM25's, for every row kind above.
// Which variant is better is never decided on the test split: validation (held-out training publications) MAP of
// every checkpoint is printed beside it.
//   node bench/nnssc-seeds.cjs [--sample] [--seeds 42,43,44,45,46] [--variants plain,mix] [--max-pairs 2048]
//        [--max-epochs N] [--patience N] [--against bench/out/nnssc-seeds-p5e60.json] [--out bench/out/nnssc-seeds[-sample]-p<patience>e<maxEpochs>.json]
// --max-epochs / --patience: another stopping rule (default notebook 04's, DEFAULT_NNSSC_CONFIG: at most 100 epochs,
// stop after 15 without a better validation MAP; the earlier rule was --max-epochs 60 --patience 5); its checkpoints
// get their own folders (`…-p<patience>e<maxEpochs>`), the default rule's are notebook 04's.   (--help lists the flags)
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'NN-SSC over several training seeds, plain vs with the corpus self-supervised pairs: spread, seed-averaged paired tests, seed ensembles',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    seeds: { type: 'int-list', default: [42, 43, 44, 45, 46], help: 'training seeds' },
    variants: { type: 'list', default: ['plain', 'mix'], choices: ['plain', 'pretrain', 'mix'], check: (v) => v.includes('plain') || 'must include plain (every comparison is against it)', help: 'plain = the paper recipe; pretrain / mix = with the corpus pairs (must include plain)' },
    'max-pairs': { type: 'int', default: null, min: 1, defaultText: 'DEFAULT_CORPUS_PAIRS_OPTIONS.maxPairs', help: 'corpus pairs drawn' },
    'max-epochs': { type: 'int', default: null, min: 1, defaultText: 'DEFAULT_NNSSC_CONFIG.maxEpochs', help: 'another stopping rule: at most N epochs' },
    patience: { type: 'int', default: null, min: 1, defaultText: 'DEFAULT_NNSSC_CONFIG.patience', help: 'another stopping rule: stop after N epochs without a better validation MAP' },
    against: { type: 'string', default: null, placeholder: 'FILE', help: "another run's JSON of this bench, compared per variant on the same test queries" },
    out: { type: 'string', default: null, placeholder: 'FILE', defaultText: 'bench/out/nnssc-seeds[-sample]-p<patience>e<maxEpochs>.json', help: 'where the JSON result is written' },
  },
});
const header = printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/data'), ...require('../dist/lib/encode'), ...require('../dist/lib/metrics'), ...require('../dist/lib/report'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/search'), ...require('../dist/lib/study'), ...require('../dist/lib/train'), ...require('../dist/lib/util') };
const sample = args.sample;
const seeds = args.seeds;
const variants = args.variants;
const maxPairs = args.maxPairs ?? eo.DEFAULT_CORPUS_PAIRS_OPTIONS.maxPairs;
const maxEpochs = args.maxEpochs ?? undefined;
const patience = args.patience ?? undefined;
// another stopping rule is another recipe: its checkpoints go beside notebook 04's (`…-p<patience>e<maxEpochs>`), never over them
const recipe = { ...eo.DEFAULT_NNSSC_CONFIG, ...(maxEpochs ? { maxEpochs } : {}), ...(patience ? { patience } : {}) };
const ruleTag = `-p${recipe.patience}e${recipe.maxEpochs}`;
const recipeSuffix = recipe.maxEpochs === eo.DEFAULT_NNSSC_CONFIG.maxEpochs && recipe.patience === eo.DEFAULT_NNSSC_CONFIG.patience ? '' : ruleTag;

// the output always names its stopping rule (a default that changes does not make two rules' files look alike)
const outFile = args.out ?? path.join(__dirname, 'out', `nnssc-seeds${sample ? '-sample' : ''}${ruleTag}.json`);
const METRICS = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'];
const KINDS = ['alone', 'analytic', 'grid'];
const CMP = { seed: 42, permutations: 10000, bootstrapSamples: 10000 };
const DEFAULT_SEED = eo.DEFAULT_NNSSC_CONFIG.seed;

const f3 = (x) => x.toFixed(3).replace(/^0\./, '.').replace(/^-0\./, '-.');
const sign = (x) => (x >= 0 ? '+' : '') + x.toFixed(3);
const ciText = (c) => `${sign(c.meanDiff)} [${sign(c.ciLow)}, ${sign(c.ciHigh)}] p ${c.pValue.toPrecision(2)}`;

const { meanPerQueryMetrics: meanPerQuery, spreadOf: stats } = require('../dist/lib/metrics');
const { readSeedSpread, seedCheckpointName } = require('../dist/lib/lessons');

async function main() {
  const t0 = performance.now();
  const load = os.loadavg();
  const corpus = eo.loadSnapshot({ sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample }));
  const splits = { train: eo.benchmarkSplit(bench, 'train'), test: eo.benchmarkSplit(bench, 'test') };
  const test = splits.test;
  const encoder = await eo.loadUseLite();
  const matrix = await eo.embedCorpusCached({ encoder, key: corpus.hash, texts: corpus.datasets.map((d) => eo.datasetEncoderText(d)), workers: 2, waitForOther: true });
  console.log(`${splits.train.queries.length} train / ${test.queries.length} test queries over ${corpus.datasets.length} datasets; seeds ${seeds.join(', ')}; variants ${variants.join(', ')}; stopping: ≤ ${recipe.maxEpochs} epochs, patience ${recipe.patience}; load average ${load.map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);

  const bm25 = eo.bm25Scorer(eo.loadOrBuildBm25(corpus), 'bm25', 'BM25');
  const bm25Scores = await eo.retrieveSplits(bm25, splits, corpus);
  const bm25Pq = eo.evaluateRun(bm25Scores.test.run, test.qrels);
  const evalTest = (run) => eo.evaluateRun(run, test.qrels);

  /** One hybrid study of a semantic scorer with BM25 → test per-query metrics per row kind, and the α. */
  const hybridRows = async (scorer, scores) => {
    const h = await eo.studyHybrid({ corpus, splits, semantic: { scorer, scores }, lexical: { scorer: bm25, scores: bm25Scores } });
    return { pq: { alone: evalTest(scores.test.run), analytic: evalTest(h.analytic.test), grid: evalTest(h.grid.test) }, alpha: { analytic: h.analytic.alpha, grid: h.grid.alpha } };
  };

  // 1. every (variant, seed): train or reuse, score, fuse
  const members = Object.fromEntries(variants.map((v) => [v, []]));
  for (const seed of seeds)
    for (const v of variants) {
      const t = performance.now();
      const tag = `[${v} seed ${seed}]`;
      const schedule = v === 'plain' ? null : v;
      const dir = eo.defaultNnsscDir(seedCheckpointName(eo.nnsscCheckpointName(bench.name, schedule) + recipeSuffix, seed, DEFAULT_SEED));
      const nn = await eo.loadOrTrainNnssc({
        corpus, bench, encoder, corpusMatrix: matrix, dir,
        config: { ...recipe, seed },
        selfSupervised: schedule ? { schedule, pairs: { maxPairs } } : null,
        log: (l) => console.log(`${tag} ${l}`),
      });
      const id = `nnssc${schedule ? `-corpus-${schedule}` : ''}-seed${seed}`;
      const scorer = eo.nnsscScorer(encoder, matrix, nn.model, { id, label: `NN-SSC${schedule ? ` (corpus ${schedule})` : ''}, seed ${seed}`, threads: 2 });
      const scores = await eo.retrieveSplits(scorer, splits, corpus);
      const rows = await hybridRows(scorer, scores);
      const s = nn.summary;
      members[v].push({ seed, scorer, scores, ...rows, dir: path.relative(process.cwd(), nn.dir), trained: !!nn.trained, bestEpoch: s.bestEpoch, epochs: s.curve.length, valMAP: s.bestValScore, trainingSeconds: s.wallSeconds });
      console.log(`${tag} ${nn.trained ? 'trained' : 'reused'} ${path.relative(process.cwd(), nn.dir)}: best epoch ${s.bestEpoch} of ${s.curve.length}, validation MAP ${s.bestValScore?.toFixed(4) ?? 'n/a'}; test MAP alone ${f3(eo.summarize('', rows.pq.alone).MAP)}, + BM25 ${f3(eo.summarize('', rows.pq.analytic).MAP)} (α ${rows.alpha.analytic.toFixed(3)}) (${((performance.now() - t) / 1000).toFixed(0)} s)`);
    }

  // 2. spread over seeds
  const out = { format: 'eo-nnssc-seeds/1', created: new Date().toISOString(), header, sample, corpus: corpus.hash, benchmark: bench.name, trainingData: bench.dataHash, seeds, variants, maxPairs, stopping: { maxEpochs: recipe.maxEpochs, patience: recipe.patience },
    machine: { cores: os.cpus().length, loadAverageAtStart: load }, perSeed: {}, spread: {}, seedAveraged: {}, ensembles: {}, vsBm25R100: {} };
  console.log(`\ntest split: ${test.queries.length} queries. Spread over ${seeds.length} seeds (mean ± sd [min, max]); validation MAP of the kept weights`);
  for (const v of variants) {
    out.perSeed[v] = members[v].map((m) => ({ seed: m.seed, dir: m.dir, trained: m.trained, bestEpoch: m.bestEpoch, epochs: m.epochs, valMAP: m.valMAP, trainingSeconds: m.trainingSeconds, alpha: m.alpha,
      test: Object.fromEntries(KINDS.map((k) => [k, eo.summarize(k, m.pq[k])])) }));
    out.spread[v] = {};
    for (const k of KINDS) {
      out.spread[v][k] = Object.fromEntries(METRICS.map((mt) => [mt, stats(members[v].map((m) => eo.summarize('', m.pq[k])[mt]))]));
      const row = METRICS.map((mt) => { const x = out.spread[v][k][mt]; return `${mt} ${f3(x.mean)}±${x.sd.toFixed(3)} [${f3(x.min)}, ${f3(x.max)}]`; }).join('  ');
      console.log(`${`${v} ${k === 'alone' ? 'alone' : `+ BM25 ${k} α`}`.padEnd(24)} ${row}`);
    }
    const val = stats(members[v].map((m) => m.valMAP ?? NaN));
    console.log(`${`${v} validation MAP`.padEnd(24)} ${f3(val.mean)}±${val.sd.toFixed(3)}`);
  }

  // 3. seed-averaged paired tests, variant vs plain
  console.log(`\nseed-averaged per-query metrics, variant − plain (paired bootstrap 95% CI, randomization p; 10,000, seed 42)`);
  const avg = Object.fromEntries(variants.map((v) => [v, Object.fromEntries(KINDS.map((k) => [k, meanPerQuery(members[v].map((m) => m.pq[k]))]))]));
  for (const v of variants.filter((x) => x !== 'plain')) {
    out.seedAveraged[v] = {};
    for (const k of KINDS) {
      const c = eo.compareSystems(avg[v][k], avg.plain[k], METRICS, CMP);
      out.seedAveraged[v][k] = c.map((x) => ({ metric: x.metric, delta: x.meanDiff, ci: [x.ciLow, x.ciHigh], p: x.pValue }));
      console.log(`${`${v} ${k}`.padEnd(16)} ${['MAP', 'MRR', 'R@10', 'R@100'].map((mt) => `${mt} ${ciText(c.find((x) => x.metric === mt))}`).join('   ')}`);
    }
  }

  // 4. seed ensembles
  console.log(`\nseed ensembles (mean of the ${seeds.length} seeds' logits), each with its own α set on the training split`);
  // today's row: notebook 04's checkpoint (seed 42, the default stopping rule), whatever recipe this run trains
  const { today, todayName } = await todayRow({ corpus, bench, encoder, matrix, splits, hybridRows, members });
  const ens = {};
  for (const v of variants) {
    const ms = members[v];
    const scorer = eo.meanScorer(ms.map((m) => m.scorer), { id: `nnssc${v === 'plain' ? '' : `-corpus-${v}`}-ens${ms.length}`, label: `NN-SSC${v === 'plain' ? '' : ` (corpus ${v})`}, ensemble of ${ms.length} seeds` });
    const scores = {};
    for (const split of ['train', 'test']) {
      const vecs = eo.meanScoreVectors(ms.map((m) => m.scores[split].scores));
      scores[split] = { run: eo.runFromScores(splits[split].queries.map((q) => q.id), vecs, corpus), scores: vecs };
    }
    ens[v] = { scorer, ...(await hybridRows(scorer, scores)) };
    out.ensembles[v] = { alpha: ens[v].alpha, test: Object.fromEntries(KINDS.map((k) => [k, eo.summarize(k, ens[v].pq[k])])) };
    for (const k of KINDS) {
      const r = eo.summarize('', ens[v].pq[k]);
      console.log(`${`${scorer.label}${k === 'alone' ? '' : ` + BM25 (${k} α ${ens[v].alpha[k].toFixed(3)})`}`.padEnd(64)} ${METRICS.map((mt) => `${mt} ${f3(r[mt])}`).join('  ')}`);
    }
  }
  const vsLines = [];
  const cmpLine = (label, a, b) => {
    const c = eo.compareSystems(a, b, METRICS, CMP);
    vsLines.push({ label, cmp: c.map((x) => ({ metric: x.metric, delta: x.meanDiff, ci: [x.ciLow, x.ciHigh], p: x.pValue })) });
    console.log(`${label.padEnd(58)} ${['MAP', 'MRR', 'R@10', 'R@100'].map((mt) => `${mt} ${ciText(c.find((x) => x.metric === mt))}`).join('   ')}`);
  };
  console.log('');
  for (const k of KINDS) {
    const name = k === 'alone' ? 'alone' : `+ BM25 ${k} α`;
    cmpLine(`plain ensemble − ${todayName}, ${name}`, ens.plain.pq[k], today.pq[k]);
    for (const v of variants.filter((x) => x !== 'plain')) {
      cmpLine(`${v} ensemble − plain ensemble, ${name}`, ens[v].pq[k], ens.plain.pq[k]);
      cmpLine(`${v} ensemble − ${todayName}, ${name}`, ens[v].pq[k], today.pq[k]);
    }
  }
  out.ensembleComparisons = vsLines;

  // --against FILE (another run of this bench, e.g. another stopping rule): each variant's seed-averaged and ensemble
  // rows against the same variant there, paired on the same test queries
  if (args.against !== null) {
    const other = readSeedSpread(args.against);
    if (other.corpus !== out.corpus || other.trainingData !== out.trainingData) throw new Error(`--against: ${args.against} was run on other data`);
    const ids = bm25Pq.queryIds;
    if (other.perQuery.bm25.queryIds.join('\n') !== ids.join('\n')) throw new Error('--against: other test queries');
    const pqOf = (valuesByMetric) => ({ queryIds: ids, values: valuesByMetric, skippedNoPositives: [], missingFromRun: [] });
    const tag = (o) => `≤ ${o.stopping.maxEpochs} epochs, patience ${o.stopping.patience}`;
    console.log(`\nagainst ${args.against} (${tag(other)}; this run ${tag(out)}), same variant, paired:`);
    out.against = { file: args.against, stopping: other.stopping, rows: [] };
    for (const v of variants) {
      const theirSeeds = other.seeds.filter((sd) => other.perQuery[`${v}-seed${sd}`]);
      if (!theirSeeds.length) continue;
      for (const k of KINDS) {
        const theirs = meanPerQuery(theirSeeds.map((sd) => pqOf(other.perQuery[`${v}-seed${sd}`][k])));
        const name = k === 'alone' ? 'alone' : `+ BM25 ${k} α`;
        const rows = [['seed-averaged', `${v} seed-averaged (${seeds.length} vs ${theirSeeds.length} seeds), ${name}`, avg[v][k], theirs]];
        if (other.perQuery[`${v}-ensemble`]) rows.push(['ensemble', `${v} ensemble, ${name}`, ens[v].pq[k], pqOf(other.perQuery[`${v}-ensemble`][k])]);
        for (const [pooling, label, a, b] of rows) {
          const c = eo.compareSystems(a, b, METRICS, CMP);
          out.against.rows.push({ variant: v, kind: k, pooling, label, cmp: c.map((x) => ({ metric: x.metric, a: x.meanA, b: x.meanB, delta: x.meanDiff, ci: [x.ciLow, x.ciHigh], p: x.pValue })) });
          console.log(`${label.padEnd(58)} ${['MAP', 'MRR', 'R@10', 'R@100'].map((mt) => { const x = c.find((y) => y.metric === mt); return `${mt} ${f3(x.meanA)} vs ${f3(x.meanB)} ${ciText(x)}`; }).join('   ')}`);
        }
      }
    }
  }

  // 5. NN-SSC alone vs BM25's R@100
  console.log('');
  const r100 = (label, pq) => {
    const c = eo.compareSystems(pq, bm25Pq, ['R@100'], CMP)[0];
    out.vsBm25R100[label] = { delta: c.meanDiff, ci: [c.ciLow, c.ciHigh], p: c.pValue, met: c.meanA >= c.meanB };
    console.log(`${`${label} R@100 − BM25 R@100`.padEnd(58)} ${ciText(c)} (goal: reach BM25's R@100 ${f3(c.meanB)}: ${c.meanA >= c.meanB ? 'met' : 'NOT met'})`);
  };
  r100(todayName, today.pq.alone);
  for (const v of variants) {
    r100(`${v}, seed-averaged`, avg[v].alone);
    r100(`${v} ensemble`, ens[v].pq.alone);
  }

  out.perQuery = {
    bm25: { queryIds: bm25Pq.queryIds, values: bm25Pq.values },
    ...Object.fromEntries(variants.flatMap((v) => [
      ...members[v].map((m) => [`${v}-seed${m.seed}`, Object.fromEntries(KINDS.map((k) => [k, m.pq[k].values]))]),
      [`${v}-ensemble`, Object.fromEntries(KINDS.map((k) => [k, ens[v].pq[k].values]))],
    ])),
  };
  out.seconds = (performance.now() - t0) / 1000;
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  eo.writeFileAtomic(outFile, JSON.stringify(out, null, 1));
  console.log(`\nwritten ${path.relative(process.cwd(), outFile)} (${out.seconds.toFixed(0)} s); load average at end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  for (const m of [...Object.values(members).flat(), today]) m.scorer.dispose();
  encoder.dispose();
}

/**
 * Today's NN-SSC (notebook 04's checkpoint) scored and fused like the members: this run's plain seed 42 when it trains
 * notebook 04's rule, else the checkpoint loaded (never trained here); when that is missing or stale, this run's plain
 * seed 42 stands in and the line says so.
 */
async function todayRow({ corpus, bench, encoder, matrix, splits, hybridRows, members }) {
  const own = members.plain.find((m) => m.seed === DEFAULT_SEED) ?? members.plain[0];
  if (!recipeSuffix && own.seed === DEFAULT_SEED) return { today: own, todayName: `plain seed ${DEFAULT_SEED}` };
  let nn;
  try {
    nn = await eo.loadOrTrainNnssc({ corpus, bench, encoder, corpusMatrix: matrix, mode: 'load' });
  } catch (e) {
    const todayName = `plain seed ${own.seed} (this recipe)`;
    console.log(`today's row: notebook 04's checkpoint is not usable (${e.message.split('\n')[0]}); comparing with ${todayName} instead`);
    return { today: own, todayName };
  }
  const scorer = eo.nnsscScorer(encoder, matrix, nn.model, { id: 'nnssc', label: 'NN-SSC', threads: 2 });
  const scores = await eo.retrieveSplits(scorer, splits, corpus);
  const today = { seed: DEFAULT_SEED, scorer, scores, ...(await hybridRows(scorer, scores)) };
  console.log(`today's row (notebook 04's checkpoint, seed ${DEFAULT_SEED}, ≤ ${nn.config.maxEpochs} epochs, patience ${nn.config.patience}): MAP alone ${f3(eo.summarize('', today.pq.alone).MAP)}, + BM25 ${f3(eo.summarize('', today.pq.analytic).MAP)} (α ${today.alpha.analytic.toFixed(3)})`);
  return { today, todayName: "today's NN-SSC" };
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
