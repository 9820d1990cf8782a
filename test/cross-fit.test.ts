// α from out-of-fold scores (issue 39 step 1): folds of whole publications, fold models that never saw their fold,
// out-of-fold training scores, and fusion records keyed by where the semantic training scores came from.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyticAlpha, evaluateRun, isEoError, loadSnapshot, summarize } from '../lib';
import { benchmarkSettings, benchmarkSplit, buildBenchmark } from '../lib/bench';
import { datasetEncoderText } from '../lib/data';
import { bm25Scorer, buildBm25, nnsscScorer, runFromScores } from '../lib/retrieve';
import { alphaRows, table2Systems } from '../lib/report';
import { crossFittedNnsscScores, retrieveBatch } from '../lib/search';
import { retrieveSplits, studyHybrid } from '../lib/study';
import { readCheckpointManifest } from '../lib/store';
import { initTfBackend } from '../lib/tensor';
import { outOfFoldSection } from '../lib/lessons';
import { DEFAULT_NNSSC_CONFIG, loadOrTrainNnsscFolds, nnsscCrossFitFolds, nnsscFoldDir, nnsscDataHash, nnsscTrainingPairs, type NnsscTrainConfig } from '../lib/train';
import { fakeEncoder } from './helpers/encoder';

const corpus = loadSnapshot({ sample: true });
const encoder = fakeEncoder();
let corpusMatrix: Float32Array;
const TINY: Partial<NnsscTrainConfig> = { hidden1: 8, hidden2: 8, hardNegatives: 3, randomNegatives: 3, batchSize: 32, maxEpochs: 2, learningRate: 1e-2, valFraction: 0 };
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'eo-cross-fit-'));

test.before(async () => {
  await initTfBackend({ backend: 'wasm' });
  const rows = await encoder.embed(corpus.datasets.map((d) => datasetEncoderText(d)));
  corpusMatrix = new Float32Array(rows.length * encoder.dim);
  rows.forEach((r, i) => corpusMatrix.set(r, i * encoder.dim));
});

test('nnsscCrossFitFolds: whole groups per fold, folds within one group of each other, same seed same folds', () => {
  const groups = Array.from({ length: 40 }, (_, i) => `pub-${i % 13}`); // 13 publications, 3–4 titles each
  const fold = nnsscCrossFitFolds(groups, 5, 42);
  assert.equal(fold, nnsscCrossFitFolds(groups, 5, 42));
  assert.not.equal(fold, nnsscCrossFitFolds(groups, 5, 7), 'another seed deals other folds');
  const foldOfGroup = new Map<string, number>();
  groups.forEach((g, i) => {
    if (foldOfGroup.has(g)) assert.is(fold[i], foldOfGroup.get(g), `${g} split across folds`);
    foldOfGroup.set(g, fold[i]);
  });
  const groupsPerFold = [0, 1, 2, 3, 4].map((f) => [...foldOfGroup.values()].filter((x) => x === f).length);
  assert.ok(Math.max(...groupsPerFold) - Math.min(...groupsPerFold) <= 1, `groups per fold ${groupsPerFold}`);
  assert.throws(() => nnsscCrossFitFolds(groups, 1, 42), /k ≥ 2/);
  assert.throws(() => nnsscCrossFitFolds(['a', 'b', 'a'], 3, 42), /at least 3 publications .* has 2/);
});

test('loadOrTrainNnsscFolds + crossFittedNnsscScores: each fold model trained without its fold, scores from that model, reused on a rerun', async () => {
  const root = tmp();
  const queryCacheDir = tmp();
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const train = benchmarkSplit(bench, 'train');
  const nnDir = path.join(root, 'nnssc');
  const dirOf = (f: number, k: number) => nnsscFoldDir(nnDir, f, k);
  const common = { corpus, bench, encoder, corpusMatrix, k: 3, config: TINY, dir: nnDir, queryCacheDir };
  try {
    const folds = await loadOrTrainNnsscFolds(common);
    assert.equal(folds.trained, [0, 1, 2]);
    const pairs = nnsscTrainingPairs(corpus, bench, encoder.id);
    assert.equal(folds.queries.map((q) => q.id), pairs.queries.map((q) => q.id));
    for (let f = 0; f < 3; f++) {
      const rows = folds.fold.map((x, i) => (x === f ? -1 : i)).filter((i) => i >= 0);
      assert.ok(rows.length > 0 && rows.length < pairs.queries.length);
      // the checkpoint records the data of the other folds only
      const m = readCheckpointManifest(dirOf(f, 3));
      const expected = nnsscDataHash({ corpusHash: corpus.hash, encoderId: encoder.id, queries: rows.map((i) => pairs.queries[i]), positives: rows.map((i) => pairs.positives[i]) });
      assert.is(m.dataHash, expected, `fold ${f}: trained on the other folds`);
      assert.equal((m.config as { crossFit: unknown }).crossFit, { k: 3, fold: f, heldOutQueries: pairs.queries.length - rows.length });
    }
    const cross = await crossFittedNnsscScores({ folds, train, corpus, encoder, corpusMatrix, threads: 1 });
    assert.is(cross.scores.length, train.queries.length);
    assert.is(cross.source, `cross-fitted k=3 ${folds.hash}`);
    // a query's out-of-fold scores are its own fold model's scores
    const foldOf = new Map(folds.queries.map((q, i) => [q.id, folds.fold[i]]));
    for (const i of [0, train.queries.length - 1]) {
      const q = train.queries[i];
      const s = nnsscScorer(encoder, corpusMatrix, folds.models[foldOf.get(q.id)!], { threads: 1 });
      const own = await retrieveBatch(s, [q], corpus);
      s.dispose();
      assert.equal(Array.from(cross.scores[i]), Array.from(own.scores[0]));
    }
    // a rerun reuses every fold (same weights); load mode with a missing fold names the command that trains it
    const again = await loadOrTrainNnsscFolds({ ...common, mode: 'load' });
    assert.equal(again.trained, []);
    assert.is(again.hash, folds.hash);
    assert.equal(Array.from(again.models[1].w1), Array.from(folds.models[1].w1));
    fs.rmSync(dirOf(2, 3), { recursive: true, force: true });
    try {
      await loadOrTrainNnsscFolds({ ...common, mode: 'load' });
      assert.unreachable('a missing fold was not noticed');
    } catch (e) {
      assert.ok(isEoError(e, 'DATA_NOT_FOUND'), String(e));
      assert.match((e as Error).message, /npm start -- --only 04-nnssc --sample/);
    }
    // notebook 04's section in load mode: missing folds are a note and null, never an error or a training
    const none = await outOfFoldSection({
      corpus, bench, config: { ...DEFAULT_NNSSC_CONFIG, ...TINY }, mode: 'load', dir: path.join(root, 'other'), k: 3, train, test: benchmarkSplit(bench, 'test'),
      testRun: new Map(), model: folds.models[0], encoder, matrix: corpusMatrix,
    });
    assert.is(none, null);
    assert.not.ok(fs.existsSync(path.join(root, 'other-cv3')), 'nothing trained in load mode');
    const resumed = await loadOrTrainNnsscFolds(common);
    assert.equal(resumed.trained, [2], 'an interrupted run resumes at the missing fold');
    assert.is(resumed.hash, folds.hash);

    // studyHybrid with the out-of-fold scores: α set on them, in records of their own (the in-sample ones unchanged)
    const fusionDir = tmp();
    try {
      const lexical = bm25Scorer(buildBm25(corpus));
      const splits = { train, test: benchmarkSplit(bench, 'test') };
      const lex = await retrieveSplits(lexical, splits, corpus);
      const main = nnsscScorer(encoder, corpusMatrix, folds.models[0], { id: 'nnssc', threads: 1 });
      const sem = await retrieveSplits(main, splits, corpus);
      const plain = await studyHybrid({ corpus, splits, semantic: { scorer: main, scores: sem }, lexical: { scorer: lexical, scores: lex }, fusionDir });
      assert.is(plain.crossFitted, undefined);
      const h = await studyHybrid({ corpus, splits, semantic: { scorer: main, scores: sem }, lexical: { scorer: lexical, scores: lex }, crossFitted: cross, fusionDir });
      main.dispose();
      assert.is(h.analyticRecord.alpha, plain.analyticRecord.alpha, 'the in-sample α is the same record');
      assert.equal(fs.readdirSync(fusionDir).length, 4, 'in-sample and cross-fitted, analytic and grid');
      const metricsOf = (scores: Float32Array[]) => summarize('x', evaluateRun(runFromScores(train.queries.map((q) => q.id), scores, corpus), train.qrels));
      assert.ok(Math.abs(h.crossFitted!.analytic.alpha! - analyticAlpha(metricsOf(cross.scores), metricsOf(lex.train.scores))) < 1e-12);
      assert.is(h.crossFitted!.analyticRecord.key.semanticScores, cross.source);
      assert.is(h.analyticRecord.key.semanticScores, undefined);
      assert.is(h.crossFitted!.source, cross.source);
      // Table 2's out-of-fold rows take the α set on them; without out-of-fold scores they say what makes them
      const systems = table2Systems({ scores: { nnssc: sem, bm25: lex }, hybrids: { nnssc: h } });
      const row = (id: string, s = systems) => s.find((x) => x.id === id)!;
      assert.is(row('nnssc+bm25-analytic-oof').alpha, h.crossFitted!.analytic.alpha);
      assert.is(row('nnssc+bm25-grid-oof').alpha, h.crossFitted!.grid.alpha);
      assert.is(row('nnssc+bm25').alpha, h.analytic.alpha, 'the paper\'s row keeps the in-sample α');
      const without = table2Systems({ scores: { nnssc: sem, bm25: lex }, hybrids: { nnssc: plain } });
      assert.match(row('nnssc+bm25-analytic-oof', without).note!, /no out-of-fold training scores .*04-nnssc/);
      const [a] = alphaRows([h]);
      assert.is(a['π semantic (train, out-of-fold)'], h.crossFitted!.analyticRecord.piSemantic);
      assert.is(a['α grid (out-of-fold)'], h.crossFitted!.grid.alpha);
      assert.is(alphaRows([plain])[0]['α analytic (out-of-fold π)'], null);
    } finally {
      fs.rmSync(fusionDir, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(queryCacheDir, { recursive: true, force: true });
  }
});

test.run();
