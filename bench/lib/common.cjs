// Shared by the bench scripts: argument parsing and the cached base USE-lite corpus matrix.
'use strict';

/** `--sample` and `--queries N` (default `defaultQueries`). */
function benchArgs(defaultQueries) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--queries');
  return { args, sample: args.includes('--sample'), nq: (i >= 0 && Number(args[i + 1])) || defaultQueries };
}

/**
 * The cached base USE-lite embeddings of the corpus (written by notebook 02 / `npm start`), as { matrix, dim };
 * prints "skipped" and exits 0 when the cache is absent, so `npm run bench` works on a fresh clone.
 */
function cachedUseLiteCorpus(eo, corpus) {
  const encoderId = 'use-lite-512@energetic-ai-0.2.0';
  const texts = corpus.datasets.map((d) => eo.datasetEncoderText(d));
  const hit = eo.findEmbeddingCache({ encoderId, dim: 512, texts, key: corpus.hash });
  if (!hit) {
    console.log(`skipped: no cached ${encoderId} embeddings for corpus ${corpus.hash} (run notebook 02-baselines first)`);
    process.exit(0);
  }
  return { matrix: hit.matrix, dim: 512 };
}

module.exports = { benchArgs, cachedUseLiteCorpus };
