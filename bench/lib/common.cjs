// Shared by the bench scripts: the cached base USE-lite corpus matrix, one NN-SSC training step, benchmark inputs of a
// real shape (fine-tuning examples, NN-SSC training data) and the snapshot + benchmark + encoder that the training
// scripts load. Arguments: ./args.cjs; the header: ./header.cjs.
'use strict';

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

/**
 * One NN-SSC training step as trainNnssc takes it (loss + hand-written gradients + Adam update), synchronised
 * (`dataSync`) so that timing it measures the work. Returns the loss.
 */
function nnsscAdamStep(eo, vars, batch, optimizer) {
  const tf = eo.getTf();
  const l = tf.tidy(() => {
    const g = eo.nnsscLossAndGrads(vars, batch, true);
    const map = {};
    for (const k of Object.keys(vars)) map[vars[k].name] = g.grads[k];
    optimizer.applyGradients(map);
    return g.loss;
  });
  const loss = l.dataSync()[0];
  l.dispose();
  return loss;
}

/**
 * Fine-tuning examples from real texts for step-cost benchmarks: publication titles as queries, one linked dataset
 * each as positive, `negatives` seeded random datasets as negatives (a step's cost depends on the token counts, not
 * on how negatives were chosen). Stops at `count` examples.
 */
function finetuneBenchExamples(eo, corpus, count, negatives = 5, seed = 42) {
  const rng = eo.mulberry32(seed);
  const linked = new Map();
  for (const l of corpus.links) {
    const i = corpus.indexById.get(l.datasetId);
    if (i === undefined) continue;
    if (!linked.has(l.publicationId)) linked.set(l.publicationId, []);
    linked.get(l.publicationId).push(i);
  }
  const text = (i) => eo.datasetEncoderText(corpus.datasets[i]);
  const examples = [];
  for (const p of corpus.publications) {
    const pos = linked.get(p.id) || [];
    if (pos.length === 0) continue;
    const negs = eo.sampleRandomNegatives(negatives, corpus.datasets.length, new Set(pos), rng);
    examples.push({ query: p.title, positive: text(pos[0]), positiveKey: pos[0], negatives: negs.map(text), negativeKeys: negs, queryPositiveKeys: pos });
    if (examples.length >= count) break;
  }
  return examples;
}

/**
 * NN-SSC training data of the full run's shape (580 training queries, 6 positives each, the corpus size, 512-d random
 * unit vectors from mulberry32(7)): an epoch's cost does not depend on the values. Used by cold-run and wasm-matmul.
 */
function nnsscFullShapeData(eo, corpus) {
  const D = 512;
  const N = corpus.datasets.length;
  const rng = eo.mulberry32(7);
  const unit = (rows) => {
    const m = new Float32Array(rows * D);
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let j = 0; j < D; j++) s += (m[r * D + j] = rng() - 0.5) ** 2;
      const inv = 1 / Math.sqrt(s);
      for (let j = 0; j < D; j++) m[r * D + j] *= inv;
    }
    return m;
  };
  const Q = 580;
  const queries = [];
  const positives = [];
  for (let q = 0; q < Q; q++) {
    queries.push({ id: `q${q}`, group: `p${q}` });
    const p = new Set();
    while (p.size < 6) p.add(Math.floor(rng() * N));
    positives.push([...p]);
  }
  return { corpusMatrix: unit(N), dim: D, datasetIds: corpus.datasets.map((d) => d.id), queries, queryMatrix: unit(Q), positives };
}

/**
 * The inputs of the scripts that train a learned scorer: the snapshot, its benchmark and train/test splits, the base
 * USE-lite encoder and its corpus matrix (cached; two workers, waiting for another process embedding the same corpus).
 */
async function loadTrainingInputs(eo, { sample }) {
  const corpus = eo.loadSnapshot({ sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample }));
  const train = eo.benchmarkSplit(bench, 'train');
  const test = eo.benchmarkSplit(bench, 'test');
  const encoder = await eo.loadUseLite();
  const texts = corpus.datasets.map((d) => eo.datasetEncoderText(d));
  const matrix = await eo.embedCorpusCached({ encoder, key: corpus.hash, texts, workers: 2, waitForOther: true });
  return { corpus, bench, train, test, encoder, texts, matrix };
}

module.exports = { finetuneBenchExamples, cachedUseLiteCorpus, nnsscAdamStep, nnsscFullShapeData, loadTrainingInputs };
