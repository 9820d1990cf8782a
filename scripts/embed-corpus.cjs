#!/usr/bin/env node
// Embed every dataset of the snapshot with USE-lite into the shared cache (checkpoints/embeddings), resumably,
// then the publication titles (query cache) and an HNSW index over the dataset vectors.
// Uses the compiled library: run `npx tsc -p .` first.
//   node scripts/embed-corpus.cjs [--workers N] [--sample] [--no-queries] [--no-hnsw]
// Environment: EO_DATA_DIR (snapshot folder), EO_TF_BACKEND (wasm|cpu|node|node-gpu).
'use strict';
const lib = { ...require('../dist/lib'), ...require('../dist/lib/data'), ...require('../dist/lib/encode'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/tensor') };

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const workers = Number(opt('--workers', '2'));
const log = (msg) => console.log(`[${new Date().toISOString()}] ${msg}`);

function progressPrinter(label) {
  const t0 = Date.now();
  let last = 0;
  let first = null;
  return (done, total) => {
    const now = Date.now();
    if (first === null) first = done; // already cached when the run started
    if (done === total || now - last >= 30000) {
      last = now;
      const secs = (now - t0) / 1000;
      const rate = (done - first) / Math.max(secs, 1e-9);
      const eta = rate > 0 ? Math.round((total - done) / rate) : NaN;
      log(`${label}: ${done}/${total} (${((100 * done) / total).toFixed(1)}%), ${rate.toFixed(1)} texts/s, ETA ${Number.isFinite(eta) ? eta + ' s' : '?'}`);
    }
  };
}

(async () => {
  const corpus = lib.loadSnapshot({ sample: flag('--sample') });
  log(`snapshot ${corpus.origin}: ${corpus.datasets.length} datasets, ${corpus.publications.length} publications, hash ${corpus.hash}`);
  const t0 = Date.now();
  const encoder = await lib.loadUseLite();
  const info = lib.tfBackendInfo();
  log(`encoder ${encoder.id} (${encoder.dim}-d) on ${info.name}${info.simd !== undefined ? ` simd=${info.simd}` : ''}, loaded in ${Date.now() - t0} ms; workers ${workers}`);

  const texts = corpus.datasets.map((d) => lib.datasetEncoderText(d));
  const t1 = Date.now();
  const matrix = await lib.embedCorpusCached({ encoder, texts, key: corpus.hash, workers, onProgress: progressPrinter('datasets') });
  const paths = lib.embeddingCachePaths(lib.defaultEmbeddingCacheDir(), encoder.id, corpus.hash, lib.hashTexts(texts));
  log(`datasets done in ${((Date.now() - t1) / 1000).toFixed(1)} s → ${paths.data}`);

  if (!flag('--no-queries')) {
    const titles = corpus.publications.map((p) => p.title);
    const t2 = Date.now();
    await lib.embedQueriesCached({ encoder, texts: titles, onProgress: progressPrinter('titles') });
    log(`publication titles done in ${((Date.now() - t2) / 1000).toFixed(1)} s`);
  }

  if (!flag('--no-hnsw')) {
    const t3 = Date.now();
    const idx = lib.hnswCached({ matrix, dim: encoder.dim, key: `${lib.encoderSlug(encoder.id)}__${corpus.hash}` });
    log(`hnsw index (${idx.meta.count} points, M=${idx.meta.m}) ready in ${((Date.now() - t3) / 1000).toFixed(1)} s`);
  }
  encoder.dispose();
  log('all done');
})().catch((e) => {
  console.error(`[${new Date().toISOString()}] FAILED: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
