// The skip-gram initialisation of the static encoder (lib/train/skipgram.ts): words that share contexts end up near
// each other and words of another field do not; the same seed gives the same table; the table rescales to the
// trainer's σ and starts a static model; bad settings are named. The other initial table tried, USE-lite's piece rows
// averaged per token (lib/train/use-lite-init.ts), is checked against the rows themselves.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildStaticVocabulary } from '../lib/encode/static';
import { rescaleTable, trainSkipgram } from '../lib/train/skipgram';
import { useLiteTokenTable } from '../lib/train/use-lite-init';
import { defaultUseLiteDir, readUseLiteWeightMap } from '../lib/encode/use-lite';
import { USE_LITE_EMBEDDINGS } from '../lib/encode/use-lite-onnx';
import { loadUseTokenizer, tokenizeUse } from '../lib/encode/tokenizer';
import * as path from 'node:path';
import { trainStaticModel } from '../lib/train/static';
import { mulberry32 } from '../lib/util/random';
import { throwsWith } from './helpers/data';

/** Texts of two fields that share no word. */
function twoFields(): string[] {
  const ocean = 'ocean sea salinity temperature current wave tide'.split(' ');
  const land = 'forest tree canopy biomass leaf crop soil'.split(' ');
  const rng = mulberry32(7);
  return Array.from({ length: 300 }, (_, i) => {
    const words = i % 2 ? ocean : land;
    return Array.from({ length: 25 }, () => words[Math.floor(rng() * words.length)]).join(' ');
  });
}

const cosine = (t: Float32Array, dim: number, a: number, b: number) => {
  let d = 0, x = 0, y = 0;
  for (let j = 0; j < dim; j++) {
    d += t[a * dim + j] * t[b * dim + j];
    x += t[a * dim + j] ** 2;
    y += t[b * dim + j] ** 2;
  }
  return d / Math.sqrt(x * y);
};

test('skip-gram: words of one field meet, words of two fields do not; same seed, same table', () => {
  const texts = twoFields();
  const vocab = buildStaticVocabulary(texts, { minCount: 1 });
  const dim = 16;
  const r = trainSkipgram(vocab, texts, { dim, epochs: 2, subsample: 0, seed: 3 });
  assert.is(r.table.length, vocab.tokens.length * dim);
  assert.is(r.tokens, 300 * 25);
  const id = (w: string) => vocab.ids.get(w)!;
  const same = cosine(r.table, dim, id('ocean'), id('tide'));
  const other = cosine(r.table, dim, id('ocean'), id('forest'));
  assert.ok(same > 0.8 && other < 0.5 && same - other > 0.4, `same field ${same.toFixed(2)}, other field ${other.toFixed(2)}`);
  assert.equal(Array.from(trainSkipgram(vocab, texts, { dim, epochs: 2, subsample: 0, seed: 3 }).table), Array.from(r.table));
  assert.not.equal(Array.from(trainSkipgram(vocab, texts, { dim, epochs: 2, subsample: 0, seed: 4 }).table), Array.from(r.table));
  // rescaled to the trainer's σ, it starts a static model (the init is part of what the model records)
  const init = rescaleTable(r.table, 0.1);
  const rms = Math.sqrt(init.reduce((s, x) => s + x * x, 0) / init.length);
  assert.ok(Math.abs(rms - 0.1) < 1e-4, `rms ${rms}`);
  const centred = rescaleTable(r.table, 0.1, { dim, center: true });
  for (let j = 0; j < dim; j++) {
    let m = 0;
    for (let i = j; i < centred.length; i += dim) m += centred[i];
    assert.ok(Math.abs(m / vocab.tokens.length) < 1e-5, `column ${j} mean ${m / vocab.tokens.length}`);
  }
  throwsWith(() => rescaleTable(r.table, 0.1, { center: true }), 'INVALID_ARGUMENT', /center needs the row width/);
  const pairs = texts.slice(0, 40).map((t, i) => ({ query: t.split(' ').slice(0, 3).join(' '), doc: t, source: `s${i % 2}` }));
  const m = trainStaticModel(vocab, pairs, { dim, dims: [dim], epochs: 1, batchSize: 8 }, { init });
  assert.is(m.model.table.length, init.length);
  assert.not.equal(Array.from(m.model.table), Array.from(init));
});

test('skip-gram: bad settings and empty input are named', () => {
  const texts = twoFields();
  const vocab = buildStaticVocabulary(texts, { minCount: 1 });
  throwsWith(() => trainSkipgram(vocab, texts, { window: 0 }), 'CONFIG', /skipgram window must be an integer ≥ 1/);
  throwsWith(() => trainSkipgram(vocab, texts, { learningRate: 0 }), 'CONFIG', /learningRate must be > 0/);
  throwsWith(() => trainSkipgram(vocab, ['nothing known here']), 'INVALID_ARGUMENT', /no text holds a vocabulary token/);
});


test('useLiteTokenTable: a one-piece token gets that piece\'s USE-lite row, a longer one the mean of its pieces\' rows, a token of no known piece a zero row', async () => {
  const modelDir = defaultUseLiteDir();
  const emb = (await readUseLiteWeightMap(modelDir)).get(USE_LITE_EMBEDDINGS)!;
  const D = emb.shape[1];
  const tok = loadUseTokenizer(path.join(modelDir, 'vocab.json'));
  const one = tokenizeUse(tok, 'the');
  const many = tokenizeUse(tok, 'mod04_l2');
  assert.is(one.length, 1, '"the" is one USE-lite piece');
  assert.ok(many.length > 1, '"mod04_l2" is several pieces');
  const r = await useLiteTokenTable({ tokens: ['the', 'mod04_l2', 'the'] }, { modelDir });
  assert.is(r.dim, D);
  assert.is(r.known, 3);
  const row = (t: number) => Array.from(r.table.subarray(t * D, (t + 1) * D));
  assert.equal(row(0), Array.from(emb.data.subarray(one[0] * D, (one[0] + 1) * D)));
  assert.equal(row(2), row(0), 'the same token, the same row');
  const mean = Array.from({ length: D }, (_, j) => many.reduce((s, id) => s + emb.data[id * D + j] / many.length, 0));
  row(1).forEach((x, j) => assert.ok(Math.abs(x - mean[j]) < 1e-6, `column ${j}: ${x} vs ${mean[j]}`));
  // a token of no piece USE-lite knows: here the empty text, which has no piece at all (every word of the corpus
  // has one: USE-lite's pieces include the bare word start and single letters)
  const withNone = await useLiteTokenTable({ tokens: ['', 'the'] }, { modelDir });
  assert.is(withNone.known, 1);
  assert.ok(withNone.table.subarray(0, D).every((x) => x === 0), 'no known piece: a zero row');
  assert.equal(Array.from(withNone.table.subarray(D, 2 * D)), row(0));
});

test.run();
