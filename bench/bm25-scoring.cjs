#!/usr/bin/env node
// Benchmark: full-corpus BM25 scoring through our compact postings vs lunr's own index.query, and index load
// from the cache vs a rebuild. Prints times and ratios measured in this one run.
//   node bench/bm25-scoring.cjs [--sample] [--queries 300]   (--help lists the flags)
'use strict';
const path = require('node:path');
const os = require('node:os');
const fs = require('node:fs');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: "full-corpus BM25 scoring, our compact postings vs lunr's index.query, and the index loaded from its cache vs rebuilt",
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    queries: { type: 'int', default: 300, min: 1, help: 'publication titles scored (the first N)' },
  },
});
printHeader(args);
const lunr = require('lunr');
const eo = { ...require('../dist/lib'), ...require('../dist/lib/retrieve') };
const { sample, queries: nq } = args;
const corpus = eo.loadSnapshot({ sample });
const queries = corpus.publications.slice(0, nq).map((p) => p.title);

const ms = (f) => { const t = process.hrtime.bigint(); const r = f(); return [Number(process.hrtime.bigint() - t) / 1e6, r]; };

const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-bm25-bench-'));
const [buildMs, built] = ms(() => eo.loadOrBuildBm25(corpus, { cacheDir }));
const [loadMs] = ms(() => eo.loadOrBuildBm25(corpus, { cacheDir }));

const [oursMs] = ms(() => { for (const q of queries) eo.bm25Scores(built, q); });
const [lunrMs] = ms(() => {
  for (const q of queries) {
    const scores = new Float32Array(corpus.datasets.length);
    const toks = eo.bm25Tokens(q);
    for (const r of built.lunrIndex.query((qq) => { for (const t of toks) qq.term(t, { presence: lunr.Query.presence.OPTIONAL }); })) scores[Number(r.ref)] = r.score;
  }
});
fs.rmSync(cacheDir, { recursive: true, force: true });
const line = (k, v) => console.log(`${k.padEnd(44)} ${v}`);
console.log(`BM25 over ${corpus.datasets.length} datasets, ${queries.length} title queries`);
line('build (lunr) + write cache', `${buildMs.toFixed(0)} ms`);
line('load from cache', `${loadMs.toFixed(1)} ms   (rebuild/load = ${(buildMs / loadMs).toFixed(0)}x)`);
line('lunr index.query, full score vector', `${(lunrMs / queries.length).toFixed(2)} ms/query`);
line('postings bm25Scores, full score vector', `${(oursMs / queries.length).toFixed(2)} ms/query   (lunr/ours = ${(lunrMs / oursMs).toFixed(1)}x)`);
