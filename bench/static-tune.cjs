#!/usr/bin/env node
// Settings of the corpus-trained static encoder (issue 37; lib/encode/static.ts, lib/train/static.ts), chosen on the
// style benchmark's DEV half: a grid over epochs, learning rate, width, batch size, pair sources, exclusion scope,
// sentences per abstract, BM25-mined hard negatives, tokenizer, pooling and initial table (random, skip-gram, USE-lite's pieces), each model trained on the corpus and training-split pairs
// (`staticTrainingPairs`: no test text, no test label; the dev half's labels left out as the test half's are, unless
// --keep-dev-labels) and scored ALONE (its
// cosine, no query rules) by nDCG@10 over all dev queries, with the per-style means, training seconds and corpus
// embedding seconds beside it. Every configuration is appended to bench/tuning-log.json (the best marked chosen);
// DEFAULT_STATIC_ENCODER_SETTINGS is set from it by hand. The test half is never read.
//   node bench/static-tune.cjs [--sample] [--epochs 1,2] [--lr 0.02,0.05,0.1] [--sentences 1,12] [--init random,skipgram,use-lite]
//     [--hard-negatives none,queries] [--hard-skip 0,2] [--pooling idf,mean] [--tokenizer plain,bigrams --bigram-min-count 3,5] [--temperature 0.02,0.05] [--keep-dev-labels] [--no-log]
//     [--context-noise 0.3 --context-kind distractor,places] [--seeds 42,43 (each seed, then their models together)] [--ensemble-size 3 (each 3 consecutive seeds together)]
//     [--members 1,3 (the library's ensemble: 3 models per seed stacked as one)] [--merge none,procrustes (also the members merged into one table)]
//     [--prf none,3:1,5:0.6 (query-time Rocchio feedback over the model's own first K datasets)] [--query-words all,no-stop]
'use strict';
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { TUNING_METRIC, styleDevHalf, devVectorScores, scoresLine, tuningRun, appendTuningRun } = require('./lib/tuning.cjs');

const SOURCE_SETS = {
  all: null,
  'no-gcmd-keyword': ['title-abstract', 'keywords', 'sentence', 'short-name', 'gcmd-instrument', 'gcmd-platform', 'style-queries', 'train-split'],
  'corpus-only': ['title-abstract', 'keywords', 'sentence'],
};
// which pair sources get a BM25-mined hard negative (StaticPairsOptions.hardNegativeSources)
const HARD_NEGATIVE_SETS = {
  none: [],
  queries: ['short-name', 'style-queries', 'train-split'],
  'queries+sentences': ['short-name', 'style-queries', 'train-split', 'sentence', 'keywords'],
  all: null,
};
const DEFAULT_SEED = 42; // DEFAULT_STATIC_TRAIN_CONFIG.seed
const TOKENIZERS = { plain: { stem: 'none', stopWords: false }, stem: { stem: 's', stopWords: false }, stop: { stem: 'none', stopWords: true }, 'stem-stop': { stem: 's', stopWords: true }, bigrams: { stem: 'none', stopWords: false, bigrams: true } };
const args = benchArgs({
  script: __filename,
  measures: 'static encoder settings on the style benchmark DEV half (nDCG@10 of the encoder alone): every configuration appended to bench/tuning-log.json',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one (a smoke run: nothing logged)' },
    epochs: { type: 'int-list', default: [1, 2], min: 1, help: 'epochs tried' },
    lr: { type: 'list', default: ['0.02', '0.05', '0.1'], placeholder: 'A,B,…', help: 'learning rates tried' },
    dim: { type: 'int-list', default: [256], min: 8, help: 'widths tried (Matryoshka prefixes: dim, dim/2, dim/4)' },
    prefixes: { type: 'list', default: ['matryoshka'], choices: ['matryoshka', 'full'], help: 'the widths the loss is summed over: the Matryoshka prefixes dim, dim/2, dim/4, or the full width only' },
    temperature: { type: 'list', default: ['0.05'] /* DEFAULT_STATIC_TRAIN_CONFIG */, placeholder: 'A,B,…', help: 'softmax temperatures of the MNRL logits tried (cosine / τ)' },
    'init-scale': { type: 'list', default: ['0.1'], placeholder: 'A,B,…', help: 'standard deviations of the random initial table tried' },
    batch: { type: 'int-list', default: [256], min: 2, help: 'batch sizes tried' },
    sources: { type: 'list', default: ['all'], choices: Object.keys(SOURCE_SETS), help: 'pair source sets tried' },
    exclusion: { type: 'list', default: ['generated-queries'], choices: ['every-source', 'generated-queries'], help: 'which pair sources leave the excluded datasets out (StaticPairsOptions.exclusionScope)' },
    'keep-dev-labels': { type: 'boolean', help: 'keep the DEV half\'s labels in the pairs (by default they are left out as the test labels are, so that the dev half sees the model as the test half will; kept in, dev flatters the model)' },
    init: { type: 'list', default: ['random'], choices: ['random', 'skipgram', 'skipgram-centred', 'use-lite', 'use-lite-centred'], help: 'initial tables tried: seeded N(0, init-scale²), or a skip-gram word2vec of the corpus text rescaled to that σ (trainSkipgram), or USE-lite\'s piece embeddings averaged per token rescaled to that σ (useLiteTokenTable; 256 dims only), or either with each column\'s mean removed first' },
    'skipgram-epochs': { type: 'int', default: 1, min: 1, help: 'passes of the skip-gram over the corpus text' },
    'style-per-style': { type: 'int-list', default: [300] /* DEFAULT_STATIC_PAIRS_OPTIONS */, min: 0, help: 'corpus-made queries per style in the pairs (StaticPairsOptions.stylePerStyle; 0 = all)' },
    sentences: { type: 'int-list', default: [12], min: 1, help: 'abstract sentences per record as queries (StaticPairsOptions.sentencesPerRecord)' },
    'min-count': { type: 'int-list', default: [2] /* DEFAULT_STATIC_ENCODER_SETTINGS.vocab */, min: 1, help: 'vocabulary floors tried: a token must occur in at least this many corpus texts (StaticVocabularyOptions.minCount)' },
    'bigram-min-count': { type: 'int-list', default: [3], min: 1, help: 'with --tokenizer bigrams: vocabulary floors of the bigram tokens tried (StaticVocabularyOptions.bigramMinCount)' },
    'max-tokens': { type: 'int-list', default: [128] /* DEFAULT_STATIC_ENCODER_SETTINGS.train */, min: 1, help: 'tokens of each training text kept (StaticTrainConfig.maxTokens)' },
    tokenizer: { type: 'list', default: ['plain'], choices: Object.keys(TOKENIZERS), help: 'tokenizers tried (S-stemming, stop words dropped, adjacent-word bigrams as tokens too; StaticTokenizer)' },
    pooling: { type: 'list', default: ['mean'] /* DEFAULT_STATIC_ENCODER_SETTINGS.vocab */, choices: ['idf', 'mean'], help: 'poolings tried (StaticPooling: IDF-weighted mean, or plain mean with the rows\' lengths as learned weights)' },
    'hard-negatives': { type: 'list', default: ['none'], choices: Object.keys(HARD_NEGATIVE_SETS), help: 'pair sources given a BM25-mined hard negative (StaticPairsOptions.hardNegativeSources; all = every source)' },
    'hard-skip': { type: 'int-list', default: [0], min: 0, help: 'BM25 non-answers passed over before the hard negative (StaticPairsOptions.hardNegativeSkip)' },
    schedule: { type: 'list', default: ['constant'], choices: ['constant', 'linear'], help: 'learning-rate schedules tried (StaticTrainConfig.schedule: constant, or a 5 % warm-up then a linear decay to 0)' },
    kernel: { type: 'list', default: ['mlas'], choices: ['js', 'mlas'], help: 'what multiplies a batch (StaticTrainConfig.kernel: typed-array loops, or three matrix products per prefix on onnxruntime MLAS, the default settings\' since 2026-12-06)' },
    'context-noise': { type: 'list', default: ['0'], placeholder: 'A,B,…', help: 'share of the query-side and abstract-sentence pairs whose query gets a distractor appended (up to 12 words of another record\'s first abstract sentence, seeded): the context a research question carries beside its need (an experiment; not a library setting)' },
    'context-kind': { type: 'list', default: ['distractor'], choices: ['distractor', 'places'], help: 'what --context-noise appends: up to 12 words of another record\'s first abstract sentence (distractor), or a place of the router\'s gazetteer and a period ("over Borneo from 2004 to 2009"; places), to the corpus-made and training-split queries and the abstract sentences' },
    prf: { type: 'list', default: ['none'], placeholder: 'none,K:BETA,…', help: 'query-time pseudo-relevance feedback each model is scored with (DenseScorerOptions.prf: Rocchio over its own first K datasets, weight BETA; none: one cosine pass); no retraining per setting' },
    'query-words': { type: 'list', default: ['all'], choices: ['all', 'no-stop'], help: 'the words of a dev query the model embeds (no retraining per setting): all, or without English stop and request words (ENGLISH_STOP_WORDS: "the", "need", "which"), the documents unchanged' },
    seeds: { type: 'int-list', default: [DEFAULT_SEED], min: 0, help: 'training seeds (StaticTrainConfig.seed); with more than one, the models of all seeds together (the mean of their cosines) are scored and logged too' },
    members: { type: 'int-list', default: [1], min: 1, help: 'models per configuration and seed, stacked as one (StaticTrainConfig.members, trainStaticEnsemble: member i trains with seed + 1000·i, the cosine is the members\' mean): the library\'s ensemble, a candidate of chooseStaticSettings like any setting' },
    merge: { type: 'list', default: ['none'], choices: ['none', 'procrustes', 'procrustes-banded'], help: 'with --members K > 1: also score the members merged into one model of one width (each member\'s table rotated onto member 0\'s by orthogonal Procrustes, over the whole width or per Matryoshka band, then averaged): an ensemble at one model\'s serving cost (an experiment; not a library setting)' },
    'ensemble-size': { type: 'int', default: 0, min: 0, help: 'with --seeds: score each run of this many consecutive seeds\' models together as one ensemble (0: all seeds together); with several, their mean is printed' },
    'no-log': { type: 'boolean', help: 'print only; append nothing to the tuning log' },
  },
});
printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/encode'), ...require('../dist/lib/train'), ...require('../dist/lib/retrieve') };

const METRIC = TUNING_METRIC;

/**
 * The pairs with a context appended to the query of a `share` of the pairs (seeded): `distractor`, up to 12 words of
 * another record's first abstract sentence (query-side and abstract-sentence pairs); `places`, a place of the router's
 * gazetteer and a period, as a research question names them (corpus-made and training-split queries, abstract sentences).
 */
function withContextNoise(pairs, share, corpus, kind = 'distractor') {
  if (!(share > 0)) return pairs;
  const rng = require('../dist/lib/util/random').mulberry32(4242);
  if (kind === 'places') {
    const names = require('../dist/lib/router').loadGazetteer().places.map((p) => p.name);
    const place = () => names[Math.floor(rng() * names.length)];
    const year = () => 1980 + Math.floor(rng() * 44);
    const forms = [() => `over ${place()}`, () => `in ${place()} in ${year()}`, () => { const a = year(); return `for ${place()} from ${a} to ${a + 1 + Math.floor(rng() * 10)}`; }, () => `across ${place()} since ${year()}`];
    const noisy = new Set(['style-queries', 'train-split', 'sentence']);
    return pairs.map((p) => (noisy.has(p.source) && rng() < share ? { ...p, query: `${p.query.replace(/[.?!]\s*$/, '')} ${forms[Math.floor(rng() * forms.length)]()}` } : p));
  }
  const { abstractSentences } = require('../dist/lib/util/english');
  const firsts = corpus.datasets.map((d) => (abstractSentences(d.abstract || '')[0]?.text ?? '').split(/\s+/).slice(0, 12).join(' ')).filter((x) => x.split(' ').length >= 4);
  const noisy = new Set([...eo.STATIC_QUERY_SOURCES, 'sentence']);
  return pairs.map((p) => (noisy.has(p.source) && rng() < share ? { ...p, query: `${p.query} ${firsts[Math.floor(rng() * firsts.length)]}` } : p));
}

/** A dev query as the model embeds it: whole, or without stop and request words (`--query-words no-stop`). */
function queryText(text, words) {
  if (words === 'all') return text;
  const { ENGLISH_STOP_WORDS } = require('../dist/lib/util/english');
  return text.split(/\s+/).filter((w) => !ENGLISH_STOP_WORDS.has(w.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))).join(' ');
}

/** `none` → null; `K:BETA` → { k, beta }. */
function parsePrf(text) {
  if (text === 'none') return null;
  const m = /^(\d+):(\d*\.?\d+)$/.exec(text);
  if (!m) throw new Error(`--prf: ${JSON.stringify(text)} is neither none nor K:BETA`);
  return { k: Number(m[1]), beta: Number(m[2]) };
}

/**
 * The polar factor U·Vᵀ of an n×n matrix M = U·Σ·Vᵀ (row-major, float64), by Newton–Schulz iteration from M / ‖M‖_F:
 * the rotation R that brings A onto B best (‖A·R − B‖ least) when M = Aᵀ·B.
 */
function polarFactor(M, n) {
  const mul = (A, B) => {
    const C = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) {
      const a = A[i * n + k];
      if (a === 0) continue;
      for (let j = 0; j < n; j++) C[i * n + j] += a * B[k * n + j];
    }
    return C;
  };
  const tr = (A) => {
    const T = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) T[j * n + i] = A[i * n + j];
    return T;
  };
  let norm = 0;
  for (const x of M) norm += x * x;
  let X = M.map((x) => x / Math.sqrt(norm));
  for (let it = 0; it < 100; it++) {
    const XtX = mul(tr(X), X);
    let off = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) off = Math.max(off, Math.abs(XtX[i * n + j] - (i === j ? 1 : 0)));
    if (off < 1e-6) break;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) XtX[i * n + j] = (i === j ? 3 : 0) - XtX[i * n + j];
    X = mul(X, XtX).map((x) => x / 2);
  }
  return X;
}

/**
 * Members of one vocabulary merged into one model of their width: each member's table rotated onto member 0's by
 * orthogonal Procrustes (over the whole width, or per Matryoshka band so that each prefix stays a prefix), then the
 * tables averaged. An experiment of this bench (--merge).
 */
function mergeAligned(models, banded) {
  const [first] = models;
  const D = first.dim;
  const V = first.vocab.tokens.length;
  const bands = banded ? [...first.dims].sort((a, b) => a - b).map((d, i, all) => [i ? all[i - 1] : 0, d]) : [[0, D]];
  const table = new Float32Array(first.table);
  for (const m of models.slice(1)) {
    for (const [lo, hi] of bands) {
      const n = hi - lo;
      const M = new Float64Array(n * n);
      for (let v = 0; v < V; v++) {
        const a = v * D + lo;
        for (let i = 0; i < n; i++) {
          const x = m.table[a + i];
          if (x === 0) continue;
          for (let j = 0; j < n; j++) M[i * n + j] += x * first.table[a + j];
        }
      }
      const R = polarFactor(M, n);
      for (let v = 0; v < V; v++) {
        const a = v * D + lo;
        for (let j = 0; j < n; j++) {
          let y = 0;
          for (let i = 0; i < n; i++) y += m.table[a + i] * R[i * n + j];
          table[a + j] += y;
        }
      }
    }
  }
  for (let i = 0; i < table.length; i++) table[i] /= models.length;
  return { vocab: first.vocab, dim: D, table, dims: first.dims, members: 1, id: eo.staticModelId(first.vocab, table, D) };
}

async function main() {
  const sample = args.sample;
  const corpus = eo.loadSnapshot({ sample });
  const bench = await eo.loadOrBuildBenchmark(corpus, eo.benchmarkSettings({ sample }));
  const half = styleDevHalf(eo, corpus);
  const dev = half.queries;
  console.log(`style benchmark DEV half: ${dev.length} queries; ${corpus.datasets.length} datasets`);
  const entry = tuningRun('static-encoder', half, 'bench/static-tune.cjs');
  const entries = [];
  const alsoExcludeIds = !args.keepDevLabels ? [...new Set([...half.qrels.values()].flatMap((m) => [...m.keys()]))] : [];
  if (alsoExcludeIds.length) console.log(`dev labels left out of the pairs too: ${alsoExcludeIds.length} datasets`);
  for (const minCount of args.minCount) for (const pooling of args.pooling) for (const tokenizerName of args.tokenizer) for (const bigramMinCount of args.bigramMinCount) for (const sourceSet of args.sources) for (const exclusionScope of args.exclusion) for (const sentencesPerRecord of args.sentences) for (const hardNegatives of args.hardNegatives) for (const hardNegativeSkip of args.hardSkip) for (const stylePerStyle of args.stylePerStyle) {
    if (hardNegatives === 'none' && hardNegativeSkip !== args.hardSkip[0]) continue; // the skip means nothing without negatives
    if (!TOKENIZERS[tokenizerName].bigrams && bigramMinCount !== args.bigramMinCount[0]) continue; // no bigrams: their floor means nothing
    const vocabOpts = { ...eo.DEFAULT_STATIC_ENCODER_SETTINGS.vocab, minCount, tokenizer: TOKENIZERS[tokenizerName], pooling, ...(TOKENIZERS[tokenizerName].bigrams ? { bigramMinCount } : {}) };
    const vocab = eo.buildStaticVocabulary(eo.staticVocabularyTexts(corpus), vocabOpts);
    const skipgrams = new Map(); // dim → the skip-gram table of this vocabulary
    const useLiteTables = new Map(); // dim → USE-lite's piece rows averaged per token of this vocabulary
    const hardNegativeSources = HARD_NEGATIVE_SETS[hardNegatives] ?? eo.STATIC_PAIR_SOURCES;
    const tp = performance.now();
    const made = eo.staticTrainingPairs(corpus, bench, { ...(SOURCE_SETS[sourceSet] ? { sources: SOURCE_SETS[sourceSet] } : {}), exclusionScope, alsoExcludeIds, sentencesPerRecord, hardNegativeSources, hardNegativeSkip, stylePerStyle });
    const withNegative = made.pairs.filter((p) => p.negative !== undefined).length;
    if (hardNegativeSources.length) console.log(`hard negatives (${hardNegatives}, skip ${hardNegativeSkip}): ${withNegative} of ${made.pairs.length} pairs; pairs made in ${((performance.now() - tp) / 1000).toFixed(0)} s`);
    for (const dim of args.dim) for (const batchSize of args.batch) for (const epochs of args.epochs) for (const lrText of args.lr) for (const tauText of args.temperature) for (const scaleText of args.initScale) for (const init of args.init) for (const prefixes of args.prefixes) for (const noiseText of args.contextNoise) for (const contextKind of args.contextKind) for (const schedule of args.schedule) for (const maxTokens of args.maxTokens) for (const kernel of args.kernel) for (const members of args.members) {
      if (!(Number(noiseText) > 0) && contextKind !== args.contextKind[0]) continue; // no context: the kind means nothing
      const learningRate = Number(lrText);
      const temperature = Number(tauText);
      const initScale = Number(scaleText);
      const train = { epochs, learningRate, temperature, initScale, dim, dims: prefixes === 'full' ? [dim] : [dim, dim / 2, dim / 4].filter((x) => Number.isInteger(x) && x >= 8), batchSize, maxTokens, ...(schedule !== 'constant' ? { schedule } : {}), ...(kernel !== 'js' ? { kernel } : {}), ...(members > 1 ? { members } : {}) };
      let initTable;
      let skipgram = null;
      let useLite = null;
      if (init.startsWith('use-lite')) {
        if (!useLiteTables.has(dim)) useLiteTables.set(dim, await eo.useLiteTokenTable(vocab));
        useLite = useLiteTables.get(dim);
        if (useLite.dim !== dim) throw new Error(`--init ${init}: USE-lite's piece rows are ${useLite.dim}-d, the table ${dim}-d (--dim ${useLite.dim})`);
        console.log(`USE-lite's token table: ${useLite.known} of ${vocab.tokens.length} tokens have a known piece (the rest start at 0)`);
        initTable = eo.rescaleTable(useLite.table, initScale, { dim, center: init === 'use-lite-centred' });
      }
      if (init.startsWith('skipgram')) {
        if (!skipgrams.has(dim)) skipgrams.set(dim, eo.trainSkipgram(vocab, eo.staticVocabularyTexts(corpus), { dim, epochs: args.skipgramEpochs }));
        skipgram = skipgrams.get(dim);
        console.log(`skip-gram (${dim} dims, ${args.skipgramEpochs} pass): ${skipgram.trained} of ${skipgram.tokens} tokens trained per pass, ${skipgram.seconds.toFixed(0)} s`);
        initTable = eo.rescaleTable(skipgram.table, initScale, { dim, center: init === 'skipgram-centred' });
      }
      const pairs = withContextNoise(made.pairs, Number(noiseText), corpus, contextKind);
      const seedVectors = [];
      let seedSettings = null;
      const seedSeconds = [];
      for (const seed of args.seeds) {
        const trained = eo.trainStaticEnsemble(vocab, pairs, { ...train, seed }, initTable ? { init: initTable } : {});
        seedSeconds.push(trained.seconds);
        for (const merge of members > 1 ? args.merge : ['none']) {
          const result = merge === 'none' ? trained : { ...trained, model: mergeAligned(trained.memberResults.map((r) => r.model), merge === 'procrustes-banded') };
          const encoder = eo.staticEncoder(result.model);
          const te = performance.now();
          const matrix = eo.stackRows(await encoder.embed(corpus.datasets.map((d) => eo.staticDocumentText(d))), encoder.dim);
          const embedSeconds = (performance.now() - te) / 1000;
          for (const prfText of args.prf) for (const queryWords of args.queryWords) {
            const prf = parsePrf(prfText);
            const scorer = eo.denseScorer(encoder, matrix, { id: 'static', label: 'Static', kernel: 'js', noCache: true, prf });
            const vectors = await scorer.scoreBatch(dev.map((q) => queryText(q.text, queryWords)));
            if (prfText === args.prf[0] && queryWords === args.queryWords[0] && merge === (members > 1 ? args.merge[0] : 'none')) seedVectors.push(vectors);
            const scores = devVectorScores(eo, half, corpus, vectors);
            const settings = {
              init, ...(skipgram ? { skipgram: { ...skipgram.config, seconds: skipgram.seconds } } : {}), ...(useLite ? { useLiteKnownTokens: useLite.known } : {}), sources: sourceSet, sentencesPerRecord, ...(stylePerStyle !== eo.DEFAULT_STATIC_PAIRS_OPTIONS.stylePerStyle ? { stylePerStyle } : {}), exclusionScope, devLabelsOut: alsoExcludeIds.length > 0, pairs: made.pairs.length, ...(Number(noiseText) > 0 ? { contextNoise: Number(noiseText), ...(contextKind !== 'distractor' ? { contextKind } : {}) } : {}),
              ...(hardNegativeSources.length ? { hardNegatives: { sources: hardNegatives, skip: hardNegativeSkip, pairs: withNegative } } : {}), vocab: vocabOpts, ...train, ...(seed !== DEFAULT_SEED ? { seed } : {}), ...(prf ? { prf } : {}), ...(queryWords !== 'all' ? { queryWords } : {}), ...(merge !== 'none' ? { merge } : {}),
            };
            // the ensemble is of the first feedback and query-word setting's scores
            if (prfText === args.prf[0] && queryWords === args.queryWords[0] && merge === (members > 1 ? args.merge[0] : 'none')) seedSettings = settings;
            console.log(`${JSON.stringify({ init, minCount, ...(vocabOpts.bigramMinCount ? { bigramMinCount } : {}), maxTokens, tokenizer: tokenizerName, pooling, vocabulary: vocab.tokens.length, sourceSet, sentencesPerRecord, stylePerStyle, exclusionScope, hardNegatives, hardNegativeSkip, dim, batchSize, epochs, learningRate, temperature, initScale, prefixes, contextNoise: Number(noiseText), contextKind, schedule, kernel, members, merge, seed, prf: prfText, queryWords })}  ${scoresLine(scores, half)}  train ${result.seconds.toFixed(0)} s, embed ${embedSeconds.toFixed(1)} s`);
            entries.push(entry(settings, { ...scores, trainSeconds: result.seconds, embedSeconds }));
          }
        }
      }
      // the models of a group of seeds together (every seed, or each run of --ensemble-size consecutive seeds): each
      // dataset scored by the mean of their cosines
      const size = args.ensembleSize || seedVectors.length;
      const groups = [];
      for (let i = 0; i + size <= seedVectors.length && size > 1; i += size) groups.push(i);
      const groupScores = [];
      for (const i of groups) {
        const group = seedVectors.slice(i, i + size);
        const seeds = args.seeds.slice(i, i + size);
        const mean = group[0].map((v, qi) => v.map((_, r) => group.reduce((sum, sv) => sum + sv[qi][r], 0) / group.length));
        const scores = devVectorScores(eo, half, corpus, mean);
        const trainSeconds = seedSeconds.slice(i, i + size).reduce((a, b) => a + b, 0);
        groupScores.push(scores);
        const { seed: _seed, ...shared } = seedSettings;
        console.log(`ensemble of seeds ${seeds.join(', ')} (mean cosine):  ${scoresLine(scores, half)}  train ${trainSeconds.toFixed(0)} s`);
        entries.push(entry({ ...shared, seeds, ensemble: 'mean cosine' }, { ...scores, trainSeconds }));
      }
      if (groupScores.length > 1) {
        const mean = (k) => groupScores.reduce((a, sc) => a + sc[k], 0) / groupScores.length;
        console.log(`mean over ${groupScores.length} ensembles of ${size}: ${METRIC} ${mean(METRIC).toFixed(4)} (question ${mean(`question/${METRIC}`).toFixed(3)}, identifier ${mean(`identifier/${METRIC}`).toFixed(3)})`);
      }
    }
  }
  // over the seeds the library's choice is made with (STATIC_SETTINGS_SEEDS), a configuration is chosen by their mean
  // (chooseStaticSettings, as the tuning-log test reads the defaults); with other seeds, the best entry
  const candidates = eo.staticSettingsCandidates(entries);
  const byMean = args.seeds.length > 1 ? eo.chooseStaticSettings(candidates) : null;
  let best;
  if (byMean) {
    best = entries.indexOf(byMean.entries[0]);
    entries[best].chosen = true;
    entries[best].note = `best mean ${METRIC} over seeds ${eo.STATIC_SETTINGS_SEEDS.join(', ')} of ${candidates.length} configurations (STATIC_SETTINGS_TIE: a cheaper one within the tie preferred): ${byMean.nDCG.toFixed(4)}, question-style ${byMean.question.toFixed(3)}`;
    for (const c of candidates) console.log(`mean over seeds: batch ${c.settings.batchSize}, lr ${c.settings.learningRate}, τ ${c.settings.temperature}, epochs ${c.settings.epochs}: ${METRIC} ${c.nDCG.toFixed(4)} (question ${c.question.toFixed(3)}), train ${c.trainSeconds.toFixed(0)} s`);
  } else best = eo.markBestChosen(entries, METRIC);
  console.log(`\n${entries.length} configurations; chosen: ${JSON.stringify(entries[best].settings)} (${METRIC} ${entries[best].scores[METRIC].toFixed(4)})`);
  appendTuningRun(eo, entries, args);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
