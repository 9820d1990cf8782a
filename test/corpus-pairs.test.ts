// Self-supervised (query, dataset) pairs from the corpus text alone, and their use by NN-SSC through
// loadOrTrainNnssc (recorded in the checkpoint config, never mistaken for a plain checkpoint).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSnapshot, loadOrTrainNnssc, isEoError } from '../lib';
import { buildBenchmark, benchmarkSettings } from '../lib/bench';
import { makeCorpus, datasetEncoderText, type DatasetRecord } from '../lib/data';
import { nnsscCheckpointDir } from '../lib/search';
import { readCheckpointManifest } from '../lib/store';
import { initTfBackend } from '../lib/tensor';
import {
  corpusSelfSupervisedPairs, pairTextInEncoderText, abstractSentences, CORPUS_PAIR_KINDS,
  DEFAULT_CORPUS_PAIRS_OPTIONS, loadOrTrainFinetunedEncoder, TINY_FINETUNE_CONFIG, nnsscCheckpointName,
  finetuneExamplesFromCorpusPairs, nnsscStyleExcludedRows, type NnsscTrainConfig
} from '../lib/train';
import { fakeEncoder } from './helpers/encoder';

const corpus = loadSnapshot({ sample: true });
const all = (o = {}) => corpusSelfSupervisedPairs(corpus, { maxPairs: 0, ...o });

test('left-out rows (test labels) are never a positive of a corpus pair; the other pairs stay', () => {
  const every = all();
  const left = new Set(every.pairs.slice(0, 40).flatMap((p) => p.positives));
  assert.ok(left.size >= 40);
  const kept = corpusSelfSupervisedPairs(corpus, { maxPairs: 0 }, left);
  assert.ok(kept.pairs.length > 0 && kept.pairs.length < every.pairs.length);
  for (const p of kept.pairs) assert.ok(p.positives.every((r) => !left.has(r)), p.text);
  const keptTexts = new Set(kept.pairs.map((p) => p.text));
  for (const p of every.pairs) if (p.positives.every((r) => !left.has(r))) assert.ok(keptTexts.has(p.text), p.text);
  assert.is.not(kept.hash, every.hash);
});

test('same seed → the same pairs; another seed → other sentence picks and another sample', () => {
  const a = corpusSelfSupervisedPairs(corpus, { maxPairs: 150 });
  const b = corpusSelfSupervisedPairs(corpus, { maxPairs: 150 });
  assert.equal(a.pairs, b.pairs);
  assert.is(a.hash, b.hash);
  const c = corpusSelfSupervisedPairs(corpus, { maxPairs: 150, seed: 7 });
  assert.is.not(c.hash, a.hash);
  const sa = all({ kinds: ['sentence'], sentenceFrom: 'any' }).pairs.map((p) => p.text);
  const sc = all({ kinds: ['sentence'], sentenceFrom: 'any', seed: 7 }).pairs.map((p) => p.text);
  assert.ok(sa.length > 20);
  assert.ok(sa.some((t, i) => t !== sc[i]) || sa.length !== sc.length, 'the seed changes the random sentence');
});

test('no empty or over-long queries; unique ids; positives are valid, sorted corpus rows yielding the text', () => {
  const r = all();
  assert.ok(r.pairs.length > 300, `${r.pairs.length} pairs`);
  const ids = new Set<string>();
  for (const p of r.pairs) {
    assert.ok(p.text.trim().length >= DEFAULT_CORPUS_PAIRS_OPTIONS.minChars && p.text.length <= DEFAULT_CORPUS_PAIRS_OPTIONS.maxChars, JSON.stringify(p.text));
    assert.is(p.text, p.text.replace(/\s+/g, ' ').trim());
    assert.ok(!ids.has(p.id), `duplicate id ${p.id}`);
    ids.add(p.id);
    assert.ok(p.positives.length >= 1 && p.positives.length <= DEFAULT_CORPUS_PAIRS_OPTIONS.maxPositives);
    assert.equal(p.positives, [...p.positives].sort((x, y) => x - y));
    for (const row of p.positives) assert.ok(Number.isInteger(row) && row >= 0 && row < corpus.datasets.length);
    if (p.kind === 'title') for (const row of p.positives) assert.is(corpus.datasets[row].longName.replace(/\s+/g, ' ').trim().toLowerCase(), p.text.toLowerCase());
    if (p.kind === 'shortName') for (const row of p.positives) assert.is((corpus.datasets[row].shortName ?? '').toLowerCase(), p.text.toLowerCase());
  }
  for (const k of CORPUS_PAIR_KINDS) assert.ok(r.counts[k].kept > 0, `kind ${k} built on the sample`);
});

test('sentence queries from outside the encoder text are not verbatim pieces of it; the first sentence is', () => {
  const unencoded = all({ kinds: ['sentence'] }).pairs;
  assert.ok(unencoded.length > 20, `${unencoded.length}`);
  for (const p of unencoded) assert.not.ok(pairTextInEncoderText(p, corpus.datasets), `verbatim in the encoder text: ${p.text}`);
  const first = all({ kinds: ['sentence'], sentenceFrom: 'any', sentence: 'first' }).pairs;
  assert.ok(first.filter((p) => pairTextInEncoderText(p, corpus.datasets)).length > first.length / 2, 'first sentences sit in the encoder text');
  // sentence offsets point at the sentence
  const abs = 'Alpha beta gamma. Delta epsilon (zeta)! Eta theta? 42 items. end';
  for (const s of abstractSentences(abs)) assert.ok(abs.slice(s.start).startsWith(s.text.slice(0, 5)), JSON.stringify(s));
  assert.equal(abstractSentences(abs).map((s) => s.text), ['Alpha beta gamma.', 'Delta epsilon (zeta)!', 'Eta theta?', '42 items. end']);
});

test('only dataset fields are read: publications and links do not matter', () => {
  const bare = makeCorpus(corpus.datasets, [], [], 'no-publications');
  assert.is(corpusSelfSupervisedPairs(bare).hash, corpusSelfSupervisedPairs(corpus).hash);
  // a record with every field a pair may read; a title changed in the record changes the pair
  const ds = corpus.datasets.map((d, i) => (i === 0 ? { ...d, longName: `${d.longName} Reprocessed` } : d));
  const changed = all({ kinds: ['title'] }).pairs.map((p) => p.text);
  const after = corpusSelfSupervisedPairs({ datasets: ds, hash: 'x' }, { kinds: ['title'], maxPairs: 0 }).pairs.map((p) => p.text);
  assert.ok(after.some((t) => t.endsWith(' Reprocessed')) && !changed.some((t) => t.endsWith(' Reprocessed')));
});

test('options are respected: kinds, maxPairs (round-robin), maxPositives, keywordTerms; bad options name the field', () => {
  const titles = all({ kinds: ['title', 'shortName'] });
  assert.ok(titles.pairs.every((p) => p.kind === 'title' || p.kind === 'shortName'));
  const few = corpusSelfSupervisedPairs(corpus, { maxPairs: 40 });
  assert.is(few.pairs.length, 40);
  for (const k of CORPUS_PAIR_KINDS) assert.is(few.counts[k].kept, 10, `round-robin share of ${k}`);
  // shared titles become one pair with every dataset as a positive; maxPositives drops texts shared too widely
  const base: DatasetRecord = { ...corpus.datasets[0], shortName: null, abstract: 'x', keywords: [], platforms: [], instruments: [] };
  const twins = [0, 1, 2].map((i) => ({ ...base, id: `C${i}-T`, longName: 'Twin   product title' }));
  const t = corpusSelfSupervisedPairs({ datasets: twins, hash: 't' }, { kinds: ['title'] });
  assert.is(t.pairs.length, 1);
  assert.equal(t.pairs[0].positives, [0, 1, 2]);
  assert.is(t.pairs[0].text, 'Twin product title');
  assert.is(corpusSelfSupervisedPairs({ datasets: twins, hash: 't' }, { kinds: ['title'], maxPositives: 2 }).pairs.length, 0);
  // a left-out dataset (a test label) drops every text it yields, its twins' too: it is neither a positive nor a negative beside them
  assert.is(corpusSelfSupervisedPairs({ datasets: twins, hash: 't' }, { kinds: ['title'] }, new Set([1])).pairs.length, 0);
  // keyword phrases: the most specific keywords first, at most keywordTerms, then instrument and platform
  const kw = [
    { ...base, id: 'A', keywords: ['common', 'rare one', 'mid'], instruments: ['NOT APPLICABLE', 'MLS'], platforms: ['Aura'] },
    { ...base, id: 'B', keywords: ['common', 'mid'] },
    { ...base, id: 'C', keywords: ['common'] },
  ];
  const k1 = corpusSelfSupervisedPairs({ datasets: kw, hash: 'k' }, { kinds: ['keywords'], keywordTerms: 2, maxKeywordShare: 1, minChars: 3 });
  assert.is(k1.pairs.find((p) => p.positives[0] === 0)?.text, 'rare one mid MLS Aura');
  const bad = (o: object, field: RegExp) => {
    try {
      corpusSelfSupervisedPairs(corpus, o);
      assert.unreachable('bad option accepted');
    } catch (e) {
      assert.ok(isEoError(e, 'INVALID_ARGUMENT'), String(e));
      assert.match((e as Error).message, field);
    }
  };
  bad({ kinds: ['titles'] }, /kinds/);
  bad({ maxPairs: -1 }, /maxPairs/);
  bad({ sentence: 'last' }, /sentence/);
  bad({ minChars: 50, maxChars: 10 }, /minChars/);
});


test('loadOrTrainNnssc with corpus pairs: recorded in the config, own folder, never taken for a plain checkpoint', async () => {
  await initTfBackend({ backend: 'wasm' });
  const encoder = fakeEncoder();
  const rows = await encoder.embed(corpus.datasets.map((d) => datasetEncoderText(d)));
  const corpusMatrix = new Float32Array(rows.length * encoder.dim);
  rows.forEach((r, i) => corpusMatrix.set(r, i * encoder.dim));
  const TINY: Partial<NnsscTrainConfig> = { hidden1: 8, hidden2: 8, hardNegatives: 3, randomNegatives: 3, batchSize: 32, maxEpochs: 2, patience: 2, learningRate: 1e-2, valFraction: 0.2 };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-corpus-pairs-'));
  const queryCacheDir = path.join(root, 'q');
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const common = { corpus, bench, encoder, corpusMatrix, config: TINY, queryCacheDir };
  try {
    const plainDir = path.join(root, 'plain');
    const plain = await loadOrTrainNnssc({ ...common, dir: plainDir });
    assert.is(plain.selfSupervised, null);
    assert.is(plain.summary.pretrainCurve.length, 0);
    assert.is(readCheckpointManifest(plainDir).config.selfSupervised, undefined, 'a plain checkpoint records no self-supervised settings');

    const ssl = { schedule: 'pretrain' as const, epochs: 2, pairs: { maxPairs: 120 } };
    const sslDir = path.join(root, 'ssl');
    const pre = await loadOrTrainNnssc({ ...common, dir: sslDir, selfSupervised: ssl });
    assert.ok(pre.trained && pre.corpusPairs);
    assert.is(pre.corpusPairs!.pairs.length, 120);
    assert.is(pre.trained!.pretrainCurve.length, 2);
    assert.ok(pre.trained!.pretrainCurve.every((l) => l.phase === 'pretrain' && l.valMAP !== null));
    assert.is(pre.trained!.extraPositives, pre.corpusPairs!.pairs.reduce((s, p) => s + p.positives.length, 0));
    const m = readCheckpointManifest(sslDir);
    const excluded = m.config.selfSupervised as { pairsExcluded?: string };
    assert.match(excluded.pairsExcluded ?? '', new RegExp(`^test labels of ${bench.name} and eo-styles topics \\w+$`), 'the identity names the left-out test labels');
    assert.equal(m.config.selfSupervised, { schedule: 'pretrain', epochs: 2, perEpoch: 0, pairs: { ...DEFAULT_CORPUS_PAIRS_OPTIONS, seed: 42, maxPairs: 120 }, pairsExcluded: excluded.pairsExcluded });
    // no test label of either benchmark is a positive of a pair it trained on
    const left = nnsscStyleExcludedRows(corpus, bench).rows;
    assert.ok(left.size > 0 && pre.corpusPairs!.pairs.every((p) => p.positives.every((r) => !left.has(r))));
    assert.is((m.config.selfSupervisedPairs as { hash: string }).hash, pre.corpusPairs!.hash);
    assert.not.equal(Array.from(pre.model.w1), Array.from(plain.model.w1), 'pre-training changes the weights');

    // reused with the same settings; refused as a plain checkpoint and with other settings
    const again = await loadOrTrainNnssc({ ...common, dir: sslDir, selfSupervised: ssl, mode: 'load' });
    assert.is(again.trained, null);
    assert.is(again.summary.pretrainCurve.length, 2);
    const refuse = async (o: object, re: RegExp) => {
      try {
        await loadOrTrainNnssc({ ...common, mode: 'load', ...o });
        assert.unreachable('mismatching checkpoint accepted');
      } catch (e) {
        assert.ok(isEoError(e, 'CACHE_MISMATCH'), String(e));
        assert.match((e as Error).message, re);
      }
    };
    await refuse({ dir: sslDir }, /selfSupervised \{.*\} → null/);
    await refuse({ dir: plainDir, selfSupervised: ssl }, /selfSupervised null → \{/);
    await refuse({ dir: sslDir, selfSupervised: { ...ssl, epochs: 3 } }, /selfSupervised/);
    // mix: its own default folder name, trained on both kinds of pairs each epoch
    const mix = await loadOrTrainNnssc({ ...common, dir: path.join(root, 'mix'), selfSupervised: { schedule: 'mix', pairs: { maxPairs: 60 } } });
    assert.ok(mix.trained);
    assert.is(mix.trained!.pretrainCurve.length, 0);
    assert.is(mix.selfSupervised!.schedule, 'mix');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('fine-tuning examples from corpus pairs: positives of the pair, negatives outside them, seeded count', () => {
  const pairs = corpusSelfSupervisedPairs(corpus, { maxPairs: 60 });
  const dim = 8;
  const rng = (i: number) => Math.sin(i * 12.9898) * 43758.5453 % 1;
  const unit = (n: number, off: number) => {
    const m = new Float32Array(n * dim).map((_, i) => rng(i + off));
    for (let r = 0; r < n; r++) {
      const v = m.subarray(r * dim, (r + 1) * dim);
      const norm = Math.hypot(...v) || 1;
      for (let j = 0; j < dim; j++) v[j] /= norm;
    }
    return m;
  };
  const o = { corpus, pairs, queryVecs: unit(pairs.pairs.length, 7), corpusMatrix: unit(corpus.datasets.length, 99), dim, k: 3, seed: 42 };
  const all = finetuneExamplesFromCorpusPairs({ ...o, count: 1e9 });
  assert.is(all.length, pairs.pairs.reduce((s, p) => s + p.positives.length, 0));
  for (const e of all) {
    assert.ok(e.queryPositiveKeys.includes(e.positiveKey as number));
    assert.is(e.negativeKeys.length, 3);
    for (const n of e.negativeKeys) assert.not.ok(e.queryPositiveKeys.includes(n as number), 'a positive used as negative');
    assert.is(e.positive, datasetEncoderText(corpus.datasets[e.positiveKey as number]));
  }
  const some = finetuneExamplesFromCorpusPairs({ ...o, count: 10 });
  assert.is(some.length, 10);
  assert.equal(some, finetuneExamplesFromCorpusPairs({ ...o, count: 10 }));
  assert.is(nnsscCheckpointName('b', 'pretrain'), 'use-lite-b-corpus-pretrain');
  assert.ok(nnsscCheckpointDir('b', 'mix').endsWith('use-lite-b-corpus-mix') && nnsscCheckpointDir('b').endsWith('use-lite-b'));
});

test('loadOrTrainFinetunedEncoder with corpus pairs mixed in: recorded, and refused as a plain checkpoint', async () => {
  await initTfBackend({ backend: 'wasm' });
  const encoder = fakeEncoder(512);
  const rows = await encoder.embed(corpus.datasets.map((d) => datasetEncoderText(d)));
  const baseMatrix = new Float32Array(rows.length * encoder.dim);
  rows.forEach((r, i) => baseMatrix.set(r, i * encoder.dim));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-corpus-ft-'));
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const common = {
    corpus, bench, dir: path.join(root, 'ft'), base: encoder, baseMatrix, queryCacheDir: path.join(root, 'q'),
    config: { ...TINY_FINETUNE_CONFIG, scope: 'head' as const, batchSize: 4, maxSteps: 2, valQueries: 4 },
  };
  try {
    const a = await loadOrTrainFinetunedEncoder({ ...common, selfSupervised: { examples: 25, pairs: { maxPairs: 40 } } });
    assert.ok(a.trained);
    const m = readCheckpointManifest(common.dir);
    const rec = m.config.selfSupervised as { schedule: string; examples: number; pairs: { maxPairs: number } };
    assert.equal([rec.schedule, rec.examples, rec.pairs.maxPairs], ['mix', 25, 40]);
    assert.is((m.config.selfSupervisedPairs as { examples: number }).examples, 25);
    const plainExamples = Number(m.config.examples) - 25;
    assert.ok(plainExamples > 0, 'publication examples kept beside the corpus ones');
    a.encoder.dispose();
    try {
      await loadOrTrainFinetunedEncoder({ ...common, mode: 'load' });
      assert.unreachable('a fine-tuned encoder trained with corpus pairs was taken for a plain one');
    } catch (e) {
      assert.ok(isEoError(e, 'CACHE_MISMATCH'), String(e));
      assert.match((e as Error).message, /selfSupervised \{.*\} → null/);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test.run();
