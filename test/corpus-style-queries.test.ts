// Queries in the users' styles made from dataset fields (`corpusStyleQueries`, issue 21 item 4) and their use as
// NN-SSC training queries (`loadOrTrainNnssc({ selfSupervised: { styles } })`): deterministic, every test label left
// out, the promised shapes, validated settings, an own checkpoint identity and folder.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSnapshot, loadOrTrainNnssc, isEoError, trainNnssc } from '../lib';
import { buildBenchmark, benchmarkSettings, benchmarkSplit, buildStyleBenchmark } from '../lib/bench';
import { datasetEncoderText } from '../lib/data';
import { readCheckpointManifest } from '../lib/store';
import { initTfBackend } from '../lib/tensor';
import {
  nnsscSelfSupervisedIdentity, nnsscCheckpointName, DEFAULT_CORPUS_PAIRS_OPTIONS, type NnsscTrainConfig
} from '../lib/train';
import { randMatrix } from './nnssc-fixtures';
import {
  corpusStyleQueries, CORPUS_STYLE_KINDS, nnsscStyleExcludedRows, nnsscStyleTrainingQueries, DEFAULT_NNSSC_STYLE_QUERIES, type CorpusStyleQuery,
} from '../lib/train';
import { fakeEncoder } from './helpers/encoder';

const corpus = loadSnapshot({ sample: true });

test('same seed → the same queries in the same order; another seed → others', () => {
  const a = corpusStyleQueries(corpus, { perStyle: 50 });
  assert.equal(a, corpusStyleQueries(corpus, { perStyle: 50, seed: 42 }));
  const b = corpusStyleQueries(corpus, { perStyle: 50, seed: 7 });
  assert.not.equal(a.map((q) => q.text), b.map((q) => q.text));
  assert.is(new Set(a.map((q) => q.id)).size, a.length, 'ids are unique');
});

test('every style is made on the sample, at most perStyle each, positives sorted and in range', () => {
  const all = corpusStyleQueries(corpus, { perStyle: 0 });
  for (const kind of CORPUS_STYLE_KINDS) assert.ok(all.filter((q) => q.kind === kind).length >= 20, `${kind}: too few queries`);
  const some = corpusStyleQueries(corpus, { perStyle: 15 });
  for (const kind of CORPUS_STYLE_KINDS) assert.is(some.filter((q) => q.kind === kind).length, 15);
  for (const q of all) {
    assert.ok(q.positives.length >= 1 && q.positives.length <= 20, q.text);
    assert.equal(q.positives, [...q.positives].sort((x, y) => x - y));
    assert.ok(q.positives.every((r) => Number.isInteger(r) && r >= 0 && r < corpus.datasets.length));
  }
});

test('texts are in the promised shapes', () => {
  const all = corpusStyleQueries(corpus, { perStyle: 0 });
  const of = (k: string) => all.filter((q) => q.kind === k);
  for (const q of of('keywordStyle')) {
    const words = q.text.split(' ');
    assert.ok(words.length >= 2 && words.length <= 6, `keyword query of ${words.length} words: "${q.text}"`);
    assert.not.match(q.text, /[.?]$/);
  }
  for (const q of of('questionStyle')) assert.match(q.text, /[.?]$/, `question "${q.text}"`);
  // an identifier-led query starts with an instrument, platform or title acronym of one of its datasets
  const lead = (q: CorpusStyleQuery) => q.positives.some((r) => {
    const d = corpus.datasets[r];
    const ids = [...d.instruments, ...d.platforms, ...(d.longName.match(/\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)*\b/g) ?? [])].filter(Boolean);
    return ids.some((id) => q.text.startsWith(`${id} `));
  });
  for (const q of of('identifierStyle')) assert.ok(lead(q), `identifier query "${q.text}" does not start with an identifier of its datasets`);
});

test('excludeRows: no excluded dataset is ever a positive, and the rest is unchanged', () => {
  const all = corpusStyleQueries(corpus, { perStyle: 0 });
  const exclude = new Set(all.slice(0, 40).flatMap((q) => q.positives));
  const kept = corpusStyleQueries(corpus, { perStyle: 0, excludeRows: exclude });
  assert.ok(kept.length < all.length);
  for (const q of kept) for (const r of q.positives) assert.not.ok(exclude.has(r), `excluded row ${r} used by "${q.text}"`);
  // a query none of whose datasets is excluded comes out the same (the seeded choices do not shift)
  const untouched = all.filter((q) => q.positives.every((r) => !exclude.has(r)));
  const keptByKey = new Map(kept.map((q) => [`${q.kind}|${q.text}`, q]));
  assert.ok(untouched.length > 0);
  for (const q of untouched) assert.equal(keptByKey.get(`${q.kind}|${q.text}`)?.positives, q.positives);
});

test('NN-SSC training queries leave out every test label of both benchmarks', async () => {
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const { rows, styleTopicsHash } = nnsscStyleExcludedRows(corpus, bench);
  const styles = buildStyleBenchmark(corpus);
  assert.is(styleTopicsHash, styles.topicsHash);
  const row = (id: string) => corpus.indexById.get(id)!;
  for (const m of benchmarkSplit(bench, 'test').qrels.values()) for (const id of m.keys()) assert.ok(rows.has(row(id)), `title test label ${id} not excluded`);
  const testTopics = styles.topics.filter((t) => t.split === 'test');
  assert.ok(testTopics.length > 0, 'the sample has style test topics');
  for (const t of testTopics) for (const id of [...t.exact, ...t.family]) assert.ok(rows.has(row(id)), `style test label ${id} (${t.id}) not excluded`);
  // dev-only labels are not excluded (they are not test answers)
  const testIds = new Set(testTopics.flatMap((t) => [...t.exact, ...t.family]));
  const titleTest = new Set([...benchmarkSplit(bench, 'test').qrels.values()].flatMap((m) => [...m.keys()]));
  const devOnly = styles.topics.filter((t) => t.split === 'dev').flatMap((t) => t.exact).filter((id) => !testIds.has(id) && !titleTest.has(id));
  for (const id of devOnly) assert.not.ok(rows.has(row(id)));
  const identity = nnsscSelfSupervisedIdentity({ schedule: 'mix', styles: { perStyle: 30 } }, 42)!.styles!;
  const made = nnsscStyleTrainingQueries(corpus, identity, rows);
  assert.is(made.queries.length, 3 * 30);
  assert.equal(made.counts, { keywordStyle: 30, identifierStyle: 30, questionStyle: 30 });
  for (const q of made.queries) for (const r of q.positives) assert.not.ok(rows.has(r), `test label row ${r} is a positive of "${q.text}"`);
  // the style benchmark's own queries are never training queries
  const benchTexts = new Set(styles.queries.map((q) => q.text.toLowerCase()));
  for (const q of made.queries) assert.not.ok(benchTexts.has(q.text.toLowerCase()), q.text);
  assert.is(nnsscStyleTrainingQueries(corpus, identity, rows).hash, made.hash);
});

test('selfSupervised.styles is validated, resolved with its defaults, and leaves the corpus-pairs identity as it was', () => {
  const bad = (ssl: object, re: RegExp) => {
    try {
      nnsscSelfSupervisedIdentity(ssl, 42);
      assert.unreachable(`accepted ${JSON.stringify(ssl)}`);
    } catch (e) {
      assert.ok(isEoError(e, 'INVALID_ARGUMENT'), String(e));
      assert.match((e as Error).message, re);
    }
  };
  bad({ schedule: 'mix', styles: { perStyle: 0 } }, /selfSupervised\.styles\.perStyle must be an integer ≥ 1, got 0/);
  bad({ schedule: 'mix', styles: { perStyle: 2.5 } }, /perStyle/);
  bad({ schedule: 'mix', styles: { maxPositives: 0 } }, /selfSupervised\.styles\.maxPositives/);
  bad({ schedule: 'mix', styles: { perstyle: 10 } }, /unknown setting "perstyle"/);
  bad({ schedule: 'mix', styles: 400 }, /must be an object/);
  bad({ schedule: 'mix', styles: {}, pairs: { maxPairs: 10 } }, /exclude each other/);
  bad({ schedule: 'both', styles: {} }, /schedule/);
  assert.equal(nnsscSelfSupervisedIdentity({ schedule: 'mix', styles: {} }, 7), {
    schedule: 'mix', epochs: 0, perEpoch: 0, pairs: null, styles: { ...DEFAULT_NNSSC_STYLE_QUERIES, seed: 7 },
  });
  // the corpus pairs' identity has no `styles` key, so checkpoints trained before it existed still match
  const corpusId = nnsscSelfSupervisedIdentity({ schedule: 'mix' }, 42)!;
  assert.equal(Object.keys(corpusId), ['schedule', 'epochs', 'perEpoch', 'pairs']);
  assert.equal(corpusId.pairs, { ...DEFAULT_CORPUS_PAIRS_OPTIONS, seed: 42 });
  assert.is(nnsscCheckpointName('eo-title', 'mix', 'styles'), 'use-lite-eo-title-styles-mix');
  assert.is(nnsscCheckpointName('eo-title', 'mix'), 'use-lite-eo-title-corpus-mix');
  assert.is(nnsscCheckpointName('eo-title'), 'use-lite-eo-title');
});

test('loadOrTrainNnssc with user-style queries: trained on them, recorded, never taken for a plain or corpus-pairs checkpoint', async () => {
  await initTfBackend({ backend: 'wasm' });
  const encoder = fakeEncoder();
  const rows = await encoder.embed(corpus.datasets.map((d) => datasetEncoderText(d)));
  const corpusMatrix = new Float32Array(rows.length * encoder.dim);
  rows.forEach((r, i) => corpusMatrix.set(r, i * encoder.dim));
  const TINY: Partial<NnsscTrainConfig> = { hidden1: 8, hidden2: 8, hardNegatives: 3, randomNegatives: 3, batchSize: 32, maxEpochs: 1, patience: 1, learningRate: 1e-2, valFraction: 0.2 };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-style-queries-'));
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const common = { corpus, bench, encoder, corpusMatrix, config: TINY, queryCacheDir: path.join(root, 'q') };
  try {
    const ssl = { schedule: 'mix' as const, styles: { perStyle: 20 } };
    const dir = path.join(root, 'styles');
    const a = await loadOrTrainNnssc({ ...common, dir, selfSupervised: ssl });
    assert.ok(a.trained && a.styleQueries);
    assert.is(a.corpusPairs, null);
    assert.is(a.styleQueries!.queries.length, 60);
    assert.is(a.trained!.extraPositives, a.styleQueries!.queries.reduce((s, q) => s + q.positives.length, 0));
    const m = readCheckpointManifest(dir);
    const rec = m.config.selfSupervised as { pairs: unknown; styles: { perStyle: number; seed: number; excluded: { styleTestHalf: string } } };
    assert.is(rec.pairs, null);
    assert.is(rec.styles.perStyle, 20);
    assert.match(rec.styles.excluded.styleTestHalf, new RegExp(buildStyleBenchmark(corpus).topicsHash));
    assert.is((m.config.selfSupervisedPairs as { hash: string }).hash, a.styleQueries!.hash);
    const again = await loadOrTrainNnssc({ ...common, dir, selfSupervised: ssl, mode: 'load' });
    assert.is(again.trained, null);
    for (const o of [{}, { selfSupervised: { schedule: 'mix' as const } }, { selfSupervised: { schedule: 'mix' as const, styles: { perStyle: 21 } } }]) {
      try {
        await loadOrTrainNnssc({ ...common, dir, mode: 'load', ...o });
        assert.unreachable(`the user-style checkpoint was taken for ${JSON.stringify(o)}`);
      } catch (e) {
        assert.ok(isEoError(e, 'CACHE_MISMATCH'), String(e));
        assert.match((e as Error).message, /selfSupervised/);
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('trainNnssc: extra pairs never draw a neverNegatives row as a negative (random or mined)', async () => {
  await initTfBackend({ backend: 'wasm' });
  const D = 8;
  const N = 40;
  const unit = (m: Float32Array) => {
    for (let r = 0; r < m.length / D; r++) {
      const v = m.subarray(r * D, (r + 1) * D);
      const n = Math.hypot(...v) || 1;
      for (let j = 0; j < D; j++) v[j] /= n;
    }
    return m;
  };
  const data = {
    corpusMatrix: unit(randMatrix(N, D, 3)), dim: D, datasetIds: Array.from({ length: N }, (_, i) => `d${i}`),
    queries: Array.from({ length: 8 }, (_, i) => ({ id: `q${i}`, group: `g${i}` })), queryMatrix: unit(randMatrix(8, D, 5)),
    positives: Array.from({ length: 8 }, (_, i) => [5 + i]),
  };
  const config: Partial<NnsscTrainConfig> = { hidden1: 4, hidden2: 4, hardNegatives: 3, randomNegatives: 3, batchSize: 8, maxEpochs: 1, patience: 1, valFraction: 0 };
  // one extra query whose positives are rows 0–2; every other row is never its negative → no negatives, loss 0
  const extra = { schedule: 'pretrain' as const, epochs: 1, queryMatrix: unit(randMatrix(1, D, 9)), positives: [[0, 1, 2]] };
  const never = Array.from({ length: N - 3 }, (_, i) => 3 + i);
  const without = await trainNnssc(data, config, { extra });
  const withNever = await trainNnssc(data, config, { extra: { ...extra, neverNegatives: never } });
  assert.ok(without.pretrainCurve[0].trainLoss > 0.1, 'negatives drawn without neverNegatives');
  assert.ok(Math.abs(withNever.pretrainCurve[0].trainLoss) < 1e-6, `a neverNegatives row was a negative (loss ${withNever.pretrainCurve[0].trainLoss})`);
  // the main queries' negatives are untouched: with 0 pre-training epochs the extra pairs change nothing
  const plain = await trainNnssc(data, config);
  const zero = await trainNnssc(data, config, { extra: { ...extra, epochs: 0, neverNegatives: never } });
  assert.equal(Array.from(zero.model.w1), Array.from(plain.model.w1), 'neverNegatives changed the main training');
});

test.run();
