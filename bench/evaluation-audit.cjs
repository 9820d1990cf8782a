#!/usr/bin/env node
// What a demanding reviewer asks of the evaluation, measured in one run on the benchmark's test subset:
//   1. leakage: test queries that are near-duplicates of a training query (token Jaccard ≥ 0.8; lib/bench/leakage.ts);
//   2. label holes: per backbone, the unlabelled share of its top 10, the same-family share of those, and strict vs
//      holes-aware R@10 / MAP with the ordering of the systems under each (lib/bench/holes.ts);
//   3. position bias: the offline reranker (and, with --llm, an LLM reranker through the record/replay store) on the
//      same windows in k seeded shuffles: Kendall's τ between shuffles, MAP/MRR spread, the self-consistency row and
//      its cost (lib/study/position-bias.ts).
// Usage: node bench/evaluation-audit.cjs [--sample] [--shuffles 5] [--llm MODEL] [--out FILE]   (--help lists the flags)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'leakage between the train and test splits, label holes of the backbones, and the rerankers\' position bias over seeded shuffles',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    shuffles: { type: 'int', default: 5, min: 2, help: 'seeded shuffles of each window (seeds 42, 43, …)' },
    llm: { type: 'string', default: null, placeholder: 'MODEL', defaultText: 'none (offline reranker only)', help: 'also an LLM listwise reranker of this models.json id (EO_LLM_MODE / EO_LLM_STORE apply)' },
    out: { type: 'string', default: null, placeholder: 'FILE', defaultText: 'bench/out/evaluation-audit[-sample].json', help: 'where the JSON result is written' },
  },
});
const header = printHeader(args);
const { leakageAudit, leakageSummary, labelHoles, labelHolesRows } = require('../dist/lib/bench');
const { positionBias, positionBiasRows, prepareRerankExperiment } = require('../dist/lib/study');
const { offlineReranker, listwiseReranker, runFromLists } = require('../dist/lib/rerank');
const { writeFileAtomic } = require('../dist/lib/util');
const { sample, shuffles } = args;
const outFile = args.out ?? path.join(__dirname, 'out', `evaluation-audit${sample ? '-sample' : ''}.json`);

async function main() {
  const t0 = performance.now();
  const exp = await prepareRerankExperiment({ sample, log: (l) => console.log(l) });
  const leakage = await leakageAudit(exp.bench);
  console.log(`\n1. leakage: ${leakageSummary(leakage)}`);
  for (const p of leakage.pairs.slice(0, 10)) console.log(`   ${p.jaccard.toFixed(2)}  test "${p.testText}" (${p.testPublicationId})  ~  train "${p.trainText}" (${p.trainPublicationId})`);

  const backbones = exp.strong.label === exp.weak.label || exp.strong.label.includes('stand-in') ? [exp.weak] : [exp.weak, exp.strong];
  const holes = labelHoles(backbones.map((b) => ({ label: b.label, run: runFromLists(b.lists) })), exp.subset.qrels, exp.corpus);
  console.log(`\n2. label holes (top ${holes.k}, ${exp.subset.queries.length} test-subset queries)`);
  console.table(labelHolesRows(holes));
  console.log(`   ordering strict: ${holes.ordering.strict.join(' > ')}; holes-aware: ${holes.ordering.holesAware.join(' > ')}`);

  const rerankers = [offlineReranker(exp.offline.weak)];
  if (args.llm) {
    const { createLlmClientFromEnv } = require('../dist/lib/llm');
    rerankers.push(listwiseReranker(createLlmClientFromEnv(args.llm)));
  }
  const bias = [];
  for (const r of rerankers) {
    const t = performance.now();
    bias.push({ ...(await positionBias(r, exp.weak.lists, exp.subset.qrels, { shuffles })), seconds: (performance.now() - t) / 1000 });
  }
  console.log(`\n3. position bias over ${shuffles} shuffles of the top 10 of ${exp.weak.label}`);
  console.table(positionBiasRows(bias));

  const result = {
    format: 'eo-evaluation-audit/1', created: new Date().toISOString(), header, sample, shuffles,
    leakage: { ...leakage, pairs: leakage.pairs.slice(0, 50) },
    holes: { k: holes.k, rows: holes.rows, ordering: holes.ordering, sameOrdering: holes.sameOrdering },
    positionBias: bias.map(({ runs, aggregated, ...b }) => ({ ...b, aggregatedRow: aggregated.row })),
    seconds: (performance.now() - t0) / 1000,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileAtomic(outFile, JSON.stringify(result, null, 1) + '\n');
  console.log(`\nwritten to ${path.relative(process.cwd(), outFile)} in ${result.seconds.toFixed(1)} s`);
  exp.encoder.dispose?.();
}

main().catch((e) => {
  console.error(e && e.code ? `bench: [${e.code}] ${e.message}` : e);
  process.exitCode = 1;
});
