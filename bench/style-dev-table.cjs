#!/usr/bin/env node
// The style benchmark's DEV half (lib/bench/styles), every system beside both lexical references: the paper's BM25 and
// the strong short baseline BM25-stop (issue 36). Table 2's systems as the paper ranks them (one α per hybrid, set on
// the title training split; no query rules), then the default ranking and its lexical-only variants as users get them
// (query rules and repair on). Per style and overall: nDCG@10, P@10, MAP, MRR (graded qrels), and each row's paired
// difference in nDCG@10 from BM25 and from BM25-stop (bootstrap 95% CI, randomization p; 10,000, seed 42).
// The dev half is where settings are chosen; this script reads the test half never.
// Needs the full snapshot's USE-lite corpus embeddings and NN-SSC checkpoint (`npm start` makes them; a missing one is
// skipped and said).
//   node bench/style-dev-table.cjs [--sample] [--out bench/out/style-dev-table[-sample].json]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'every system on the style benchmark DEV half beside BM25 and BM25-stop (nDCG@10, P@10, MAP, MRR; paired CIs)',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    out: { type: 'string', default: null, placeholder: 'FILE', defaultText: 'bench/out/style-dev-table[-sample].json', help: 'where the JSON result is written' },
  },
});
const header = printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/search') };
const { styleRuns, styleRowsAgainst } = require('../dist/lib/study');

const METRICS = ['nDCG@10', 'P@10', 'MAP', 'MRR'];
const CMP = { seed: 42, permutations: 10000, bootstrapSamples: 10000 };

async function main() {
  const sample = args.sample;
  const outFile = args.out ?? path.join(__dirname, 'out', `style-dev-table${sample ? '-sample' : ''}.json`);
  const t0 = performance.now();
  const corpus = eo.loadSnapshot({ sample });
  const bench = eo.buildStyleBenchmark(corpus);
  const queries = bench.queries.filter((q) => q.split === 'dev').map((q) => ({ id: q.id, text: q.text, style: q.style }));
  const { qrels } = eo.styleBenchmarkSplit(bench, 'dev');
  console.log(`style benchmark DEV half: ${queries.length} queries of ${new Set(bench.queries.filter((q) => q.split === 'dev').map((q) => q.topicId)).size} topics; ${corpus.datasets.length} datasets`);
  const log = (l) => console.log(`  ${l}`);
  // [label, engine options, query rules on?]; the paper's path first, then as users get it
  const specs = [
    ['BM25', { semantic: 'none', lexical: 'bm25' }, false],
    ['BM25-stop', { semantic: 'none', lexical: 'bm25-stop' }, false],
    ['Cosine (base)', { semantic: 'use-lite', lexical: false }, false],
    ['NN-SSC', { semantic: 'nnssc', lexical: false, nnsscTwoStage: false }, false],
    ['Cosine (base) + BM25 (analytic α)', { semantic: 'use-lite', lexical: 'bm25', fusion: 'analytic' }, false],
    ['NN-SSC + BM25 (analytic α)', { semantic: 'nnssc', lexical: 'bm25', fusion: 'analytic', nnsscTwoStage: false }, false],
    ['Static (corpus-trained)', { semantic: 'static', lexical: false }, false],
    ['Static (corpus-trained) + BM25 (analytic α)', { semantic: 'static', lexical: 'bm25', fusion: 'analytic' }, false],
    ['Default ranking', {}, true],
    ['BM25 + vocabulary expansion, query rules', { semantic: 'none', lexical: 'bm25+qe' }, true],
    ['BM25-stop, query rules', { semantic: 'none', lexical: 'bm25-stop' }, true],
  ];
  const systems = [];
  const skipped = [];
  for (const [label, opts, rules] of specs) {
    try {
      const engine = await eo.loadSearchEngine(corpus, { sample, log, ...opts });
      // NN-SSC without its checkpoint falls back to cosine under another label: skip it rather than mislabel it
      if (opts.semantic === 'nnssc' && !/NN-SSC/.test(engine.label)) {
        engine.dispose();
        skipped.push({ label, why: `NN-SSC checkpoint not loaded (${engine.label})` });
        continue;
      }
      systems.push({ label, engine, rules });
      console.log(`${label}: ${engine.label}${engine.fusion.source ? ` — ${engine.fusion.source}` : ''}`);
    } catch (e) {
      skipped.push({ label, why: e.message });
      console.log(`${label}: skipped (${e.message})`);
    }
  }
  const runs = await styleRuns(systems, queries);
  const rows = styleRowsAgainst(runs, queries, qrels, ['BM25', 'BM25-stop'], CMP).map(({ vs, ...r }) => ({ ...r, vsBm25: vs.BM25, vsBm25Stop: vs['BM25-stop'] }));
  const order = [...eo.QUERY_STYLES, 'all'];
  const delta = (d) => (d ? `${d.diff >= 0 ? '+' : '−'}${Math.abs(d.diff).toFixed(3)} [${d.low >= 0 ? '+' : '−'}${Math.abs(d.low).toFixed(3)}, ${d.high >= 0 ? '+' : '−'}${Math.abs(d.high).toFixed(3)}]` : '–');
  for (const style of order) {
    console.log(`\n${style} (${rows.find((r) => r.style === style)?.n ?? 0} queries)`);
    console.log(`| system | ${METRICS.join(' | ')} | ΔnDCG@10 vs BM25 [95% CI] | ΔnDCG@10 vs BM25-stop [95% CI] |`);
    console.log(`|---|${METRICS.map(() => '---:').join('|')}|---|---|`);
    for (const r of rows.filter((x) => x.style === style)) console.log(`| ${r.system} | ${METRICS.map((m) => r.metrics[m].toFixed(3)).join(' | ')} | ${delta(r.vsBm25?.['nDCG@10'])} | ${delta(r.vsBm25Stop?.['nDCG@10'])} |`);
  }
  if (skipped.length) console.log(`\nskipped: ${skipped.map((s) => `${s.label} (${s.why})`).join('; ')}`);
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify({
    created: new Date().toISOString(), header, sample, corpus: corpus.hash, styleTopics: bench.topicsHash, half: 'dev', queries: queries.length,
    systems: systems.map((s) => ({ label: s.label, engine: s.engine.label, rules: s.rules, fusion: s.engine.fusion.source })), skipped, rows,
    seconds: (performance.now() - t0) / 1000,
  }, null, 2) + '\n');
  console.log(`\nwritten to ${path.relative(process.cwd(), outFile)} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  for (const s of systems) s.engine.dispose();
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
