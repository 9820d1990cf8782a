#!/usr/bin/env node
// Ranking quality of the question's constraints (period, place) and of domain-vocabulary query expansion, measured
// in one run beside plain BM25 (issue "faster and better", items 5 and 6):
//   1. benchmark test split (title queries): BM25, BM25 + expansion, BM25 + constraints, both; paired bootstrap CI
//      and randomization p (10,000 each, seed 42) against BM25. The expansion weight and the demotion penalty are
//      chosen on the TRAINING split only (MAP), then applied once to the test split.
//   2. the hand-labelled constrained queries (lib/search/data/constrained-queries.jsonl): share of the top 10 that
//      fail the labelled period/place by CMR semantics (temporal and bounding-box intersection), with and without
//      the rule, and how often the router's parse agrees with the label.
// Usage: node bench/search-quality.cjs [--sample] [--out bench/out/search-quality.json]   (--help lists the flags)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: "BM25 with the question's constraints (period, place) and with query expansion on the test split, and top-10 constraint failures on the hand-labelled queries",
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    out: { type: 'string', default: null, placeholder: 'FILE', defaultText: 'bench/out/search-quality.json', help: 'where the JSON result is written' },
  },
});
const header = printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/metrics'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/util') };
const { applyConstraints, constraintsFromParsed, temporalCoverage, spatialCoverage, hasConstraints } = require('../dist/lib/search/constraints');
const { expandedBm25Scores, loadQueryVocabulary } = require('../dist/lib/search/expand');
const { parseQuery } = require('../dist/lib/router/parse');

const sample = args.sample;
const outFile = args.out ?? path.join(__dirname, 'out', 'search-quality.json');
/** Reference "today" for open periods ("since 2015"), fixed so that the numbers are reproducible. */
const NOW = new Date('2026-11-30T00:00:00Z');
const METRICS = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'];

async function main() {
  const t0 = performance.now();
  const corpus = eo.loadSnapshot({ sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample }));
  const bm25 = eo.loadOrBuildBm25(corpus);
  const vocab = loadQueryVocabulary(corpus);
  const parsedOf = new Map();
  const parse = (text) => {
    if (!parsedOf.has(text)) parsedOf.set(text, constraintsFromParsed(parseQuery(text, { now: NOW })));
    return parsedOf.get(text);
  };

  /** Per-query metrics of one variant on one split. */
  function evaluate(view, { weight = 0, penalty = null }) {
    const scores = view.queries.map((q) => {
      let s = weight > 0 ? expandedBm25Scores(bm25, q.text, vocab, weight).scores : eo.bm25Scores(bm25, q.text);
      if (penalty !== null) s = applyConstraints(s, corpus.datasets, parse(q.text), { mode: 'demote', penalty }).scores;
      return s;
    });
    const run = eo.runFromScores(view.queries.map((q) => q.id), scores, corpus, 100);
    return { run, pq: eo.evaluateRun(run, view.qrels) };
  }

  const train = eo.benchmarkSplit(bench, 'train');
  const test = eo.benchmarkSplit(bench, 'test');
  const trainMap = (o) => eo.summarize('x', evaluate(train, o).pq).MAP;
  const weights = [0.1, 0.2, 0.3, 0.5, 1];
  const penalties = [0, 0.25, 0.5, 0.75];
  const weightMaps = weights.map((w) => ({ w, MAP: trainMap({ weight: w }) }));
  const penaltyMaps = penalties.map((p) => ({ p, MAP: trainMap({ penalty: p }) }));
  const base = trainMap({});
  const bestW = weightMaps.reduce((a, b) => (b.MAP > a.MAP ? b : a));
  const bestP = penaltyMaps.reduce((a, b) => (b.MAP > a.MAP ? b : a));
  console.log(`training split (${train.queries.length} queries) MAP: BM25 ${base.toFixed(4)}; expansion w ${weightMaps.map((x) => `${x.w}:${x.MAP.toFixed(4)}`).join(' ')}; constraint penalty ${penaltyMaps.map((x) => `${x.p}:${x.MAP.toFixed(4)}`).join(' ')}`);
  console.log(`chosen on the training split: expansion weight ${bestW.w}, demotion penalty ${bestP.p}`);

  const variants = [
    { system: 'BM25', opts: {} },
    { system: `BM25 + query expansion (w ${bestW.w})`, opts: { weight: bestW.w } },
    { system: `BM25 + constraints (demote ×${bestP.p})`, opts: { penalty: bestP.p } },
    { system: `BM25 + expansion + constraints`, opts: { weight: bestW.w, penalty: bestP.p } },
    { system: 'BM25 + constraints (default ×0.5)', opts: { penalty: 0.5 } },
  ];
  const evals = variants.map((v) => ({ ...v, ...evaluate(test, v.opts) }));
  const constrainedTest = test.queries.filter((q) => hasConstraints(parse(q.text))).length;
  const expandedTest = test.queries.filter((q) => expandedBm25Scores(bm25, q.text, vocab, 1).expansion.matches.length > 0).length;
  const rows = evals.map((e) => {
    const row = eo.summarize(e.system, e.pq);
    const cmp = e === evals[0] ? [] : eo.compareSystems(e.pq, evals[0].pq, METRICS, { seed: 42 });
    return { ...row, vsBm25: cmp.map((c) => ({ metric: c.metric, delta: c.meanDiff, ci: [c.ciLow, c.ciHigh], p: c.pValue })) };
  });
  console.log(`\ntest split: ${test.queries.length} queries; ${constrainedTest} with a parsed period or place; ${expandedTest} with a vocabulary hit`);
  for (const r of rows) {
    const d = r.vsBm25.filter((c) => c.metric === 'MAP' || c.metric === 'MRR').map((c) => `Δ${c.metric} ${c.delta >= 0 ? '+' : ''}${c.delta.toFixed(4)} [${c.ci[0].toFixed(4)}, ${c.ci[1].toFixed(4)}] p ${c.p.toPrecision(2)}`).join('  ');
    console.log(`${r.system.padEnd(40)} ${METRICS.map((m) => `${m} ${r[m].toFixed(4)}`).join('  ')}  ${d}`);
  }

  // 2. labelled constrained queries: CMR semantics of the labels are the reference
  const labelled = fs.readFileSync(require('../dist/lib/util/paths').packageFile('search', 'data', 'constrained-queries.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const ids = corpus.datasets.map((d) => d.id);
  const fails = (i, q) => {
    const d = corpus.datasets[i];
    const t = q.period ? temporalCoverage(d, { start: q.period[0], end: q.period[1] }) : 'unconstrained';
    const s = q.bbox ? spatialCoverage(d, [{ name: q.place, bbox: q.bbox }]) : 'unconstrained';
    return t === 'outside' || s === 'outside';
  };
  let before = 0, after = 0, n = 0, parseOk = 0;
  const perQuery = [];
  for (const q of labelled) {
    const s = eo.bm25Scores(bm25, q.query);
    const c = parse(q.query);
    const periodOk = (c.period === null) === (q.period === null) && (!c.period || (c.period.start === q.period[0] && c.period.end === q.period[1]));
    const placeOk = (c.places.length === 0) === (q.bbox === null);
    if (periodOk && placeOk) parseOk++;
    const top = (v) => eo.topKScoredHits(v, 10, ids).filter((h) => h.score > 0 && Number.isFinite(h.score)).map((h) => h.index);
    const b = top(s);
    const a = top(applyConstraints(s, corpus.datasets, c, { mode: 'demote', penalty: 0.5 }).scores);
    const fb = b.filter((i) => fails(i, q)).length;
    const fa = a.filter((i) => fails(i, q)).length;
    before += fb; after += fa; n += b.length;
    perQuery.push({ id: q.id, query: q.query, parseAgrees: periodOk && placeOk, top10FailBefore: fb, top10FailAfter: fa, returned: b.length });
  }
  console.log(`\nconstrained queries (${labelled.length}, labels by hand, CMR temporal/bbox semantics): top-10 results outside the asked period/place: BM25 ${before}/${n} (${(100 * before / n).toFixed(1)}%) → with constraints (demote ×0.5) ${after}/${n} (${(100 * after / n).toFixed(1)}%); router parse agrees with the label on ${parseOk}/${labelled.length}`);
  const out = {
    created: new Date().toISOString(), header, sample, now: NOW.toISOString().slice(0, 10), corpus: corpus.hash,
    training: { queries: train.queries.length, bm25MAP: base, expansionWeights: weightMaps, penalties: penaltyMaps, chosen: { weight: bestW.w, penalty: bestP.p } },
    test: { queries: test.queries.length, withConstraints: constrainedTest, withExpansion: expandedTest, rows },
    constrainedQueries: { queries: labelled.length, top10Results: n, failBefore: before, failAfter: after, parseAgrees: parseOk, perQuery },
    seconds: (performance.now() - t0) / 1000,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  eo.writeFileAtomic(outFile, JSON.stringify(out, null, 2));
  console.log(`\nwritten ${path.relative(process.cwd(), outFile)} (${out.seconds.toFixed(1)} s)`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
