#!/usr/bin/env node
// Benchmark: exact cosine over the cached USE-lite corpus matrix vs the hnswlib index: ms/query and how many of
// the exact top-k the index finds. Needs the corpus embeddings cache (run notebook 02 or `npm start` first).
//   node bench/dense-search.cjs [--sample] [--queries 300]   (--help lists the flags)
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'exact cosine over the cached USE-lite corpus matrix vs the hnswlib index: ms/query and recall of the exact top-k',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    queries: { type: 'int', default: 300, min: 1, help: 'query vectors (perturbed dataset vectors)' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/encode'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/util') };
const { cachedUseLiteCorpus } = require('./lib/common.cjs');

const { queries: nq, sample } = args;
const corpus = eo.loadSnapshot({ sample });
const ids = corpus.datasets.map((d) => d.id);
const { matrix, dim } = cachedUseLiteCorpus(eo, corpus);
// queries: dataset vectors themselves, perturbed (no encoder needed, deterministic)
const rng = eo.mulberry32(7);
const queries = Array.from({ length: nq }, () => {
  const r = Math.floor(rng() * corpus.datasets.length);
  const q = Float32Array.from(matrix.subarray(r * dim, (r + 1) * dim), (x) => x + (rng() - 0.5) * 0.05);
  return eo.l2NormalizeInPlace(q);
});
const now = () => Number(process.hrtime.bigint()) / 1e6;
let t = now();
const idx = eo.buildHnsw(matrix, dim);
const buildMs = now() - t;
const line = (k, v) => console.log(`${k.padEnd(36)} ${v}`);
console.log(`dense search over ${corpus.datasets.length} × ${dim}, ${nq} queries`);
line('hnsw build (M16, efC 200)', `${(buildMs / 1000).toFixed(1)} s`);
for (const k of [10, 100]) {
  t = now();
  const exact = queries.map((q) => eo.denseTopK(matrix, dim, q, k, ids).map((h) => h.index));
  const exactMs = (now() - t) / nq;
  t = now();
  const ann = queries.map((q) => eo.annSearch(idx, q, k, { ids }).map((h) => h.index));
  const annMs = (now() - t) / nq;
  let found = 0;
  exact.forEach((e, i) => { const s = new Set(ann[i]); for (const x of e) if (s.has(x)) found++; });
  line(`top-${k}: exact`, `${exactMs.toFixed(2)} ms/query`);
  line(`top-${k}: hnsw`, `${annMs.toFixed(2)} ms/query  (exact/hnsw = ${(exactMs / annMs).toFixed(1)}x, recall of exact top-${k} = ${(found / (k * nq)).toFixed(3)})`);
}
