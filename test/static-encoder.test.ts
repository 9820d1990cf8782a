// The static embedding encoder (lib/encode/static.ts) and its training (lib/train/static.ts): identifiers tokenised
// whole and in parts, a deterministic vocabulary with IDF, the MNRL gradient against finite differences, training that
// teaches the domain's words (an acronym meets its expansion), the same seed giving the same table, a run stopped
// after an epoch resuming to the same table, and the checkpoint's hashes refusing changed weights or vocabulary.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  buildStaticVocabulary, loadStaticModel, PLAIN_STATIC_TOKENIZER, saveStaticModel, stackStaticModels, staticEncoder, staticModelExists, staticModelId, staticText, staticTokens, staticVector, STATIC_VOCAB_FILE,
} from '../lib/encode/static';
import { staticBatchGradient, staticKernel, staticScheduledRate, staticTrainingPlan, trainStaticModel, type StaticPair } from '../lib/train/static';
import { staticMemberSeed, trainStaticEnsemble } from '../lib/train/static-ensemble';
import { loadSnapshot } from '../lib/data/snapshot';
import { verifyCaches } from '../lib/cli/cache';
import { isEoError } from '../lib/errors';
import { benchmarkSettings, buildBenchmark, exportBenchmark } from '../lib/bench';
import { DEFAULT_RANKING, loadSearchEngine, searchBatch } from '../lib/search';
import { loadOrTrainStaticModel, loadOrTrainStaticNnssc, STATIC_NNSSC_CONFIG } from '../lib/train/static-artefact';
import { DEFAULT_NNSSC_CONFIG } from '../lib/train/nnssc';
import { DEFAULT_STATIC_PRF, staticCorpusMatrix } from '../lib/retrieve/static-scorer';
import { rejectsWith, throwsWith } from './helpers/data';

test('tokens: identifiers whole and in parts, lower case', () => {
  assert.equal(staticTokens('MOD04_L2 aerosol'), ['mod04_l2', 'mod04', 'l2', 'aerosol']);
  assert.equal(staticTokens('NOAA-20 VIIRS, v2.0'), ['noaa-20', 'noaa', '20', 'viirs', 'v2.0', 'v2', '0']);
  assert.equal(staticTokens('sea-surface  temperature.'), ['sea-surface', 'sea', 'surface', 'temperature']);
});

test('tokenizer: S-stemming of letter-only words and stop words dropped, each on its own; recorded with the vocabulary and the checkpoint', () => {
  const q = 'I need the daily fire masks of MOD14A1 and the profiles';
  assert.equal(staticTokens(q, { stem: 's', stopWords: false }), ['i', 'need', 'the', 'daily', 'fire', 'mask', 'of', 'mod14a1', 'and', 'the', 'profile']);
  assert.equal(staticTokens(q, { stem: 'none', stopWords: true }), ['daily', 'fire', 'masks', 'mod14a1', 'profiles']);
  // identifiers and their parts are never stemmed; a stop word as a part is dropped, the identifier kept
  assert.equal(staticTokens('GLAS_ATM-as Series', { stem: 's', stopWords: true }), ['glas_atm-as', 'glas', 'atm', 'series']);
  assert.equal(staticTokens(q), staticTokens(q, PLAIN_STATIC_TOKENIZER));
  const texts = ['fire masks daily', 'fire mask of the day', 'daily masks', 'the fire'];
  const v = buildStaticVocabulary(texts, { tokenizer: { stem: 's', stopWords: true } });
  assert.equal(v.tokenizer, { stem: 's', stopWords: true });
  assert.equal(v.tokens, ['fire', 'mask', 'daily']);
  assert.equal([...staticText(v, 'Masks of fire').ids], [v.ids.get('mask')!, v.ids.get('fire')!]);
  assert.equal(buildStaticVocabulary(texts).tokenizer, PLAIN_STATIC_TOKENIZER);
  throwsWith(() => buildStaticVocabulary(texts, { tokenizer: { stem: 'porter' as never } }), 'CONFIG', /stem must be/);
  const table = new Float32Array(v.tokens.length * 4).map((_, i) => Math.sin(i));
  const model = { vocab: v, dim: 4, dims: [4], table, id: staticModelId(v, table, 4) };
  assert.is.not(model.id, staticModelId({ ...v, tokenizer: PLAIN_STATIC_TOKENIZER }, table, 4));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-static-tok-'));
  try {
    saveStaticModel(dir, model, { dataHash: 'd', config: {}, seed: 1 });
    const back = loadStaticModel(dir);
    assert.equal(back.vocab.tokenizer, { stem: 's', stopWords: true });
    assert.is(back.id, model.id);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('tokenizer: bigrams of adjacent words within a phrase, no stop word in them, with their own vocabulary floor; recorded only where on', () => {
  const t = { stem: 'none', stopWords: false, bigrams: true } as const;
  assert.equal(staticTokens('Sea ice extent of the Arctic', t), ['sea', 'ice', 'sea+ice', 'extent', 'ice+extent', 'of', 'the', 'arctic']);
  // not across a list, a field separator, a bracket or a sentence's end; an identifier's parts make none
  assert.equal(staticTokens('ozone, aerosol | MOD04_L2 product. Daily (grid)', t).filter((x) => x.includes('+')), ['mod04_l2+product']);
  assert.equal(staticTokens('v2.0 release', t), ['v2.0', 'v2', '0', 'release', 'v2.0+release']);
  // with S-stemming, the bigram is of the stemmed words
  assert.equal(staticTokens('fire masks', { ...t, stem: 's' }), ['fire', 'mask', 'fire+mask']);
  const texts = ['sea ice extent', 'sea ice age', 'sea ice', 'ice extent maps'];
  const v = buildStaticVocabulary(texts, { tokenizer: t, minCount: 1, bigramMinCount: 2 });
  assert.ok(v.ids.has('sea+ice') && v.ids.has('ice+extent') && v.ids.has('age') && !v.ids.has('ice+age'), v.tokens.join(' '));
  assert.equal(v.tokenizer, t);
  throwsWith(() => buildStaticVocabulary(texts, { tokenizer: t, bigramMinCount: 0 }), 'CONFIG', /bigramMinCount/);
  throwsWith(() => buildStaticVocabulary(texts, { tokenizer: { bigrams: 'yes' as never } }), 'CONFIG', /bigrams must be/);
  // off, the tokenizer is recorded as before (so older models keep their ids)
  assert.equal(buildStaticVocabulary(texts, { tokenizer: { bigrams: false } }).tokenizer, PLAIN_STATIC_TOKENIZER);
  const table = new Float32Array(v.tokens.length * 4).map((_, i) => Math.cos(i));
  assert.is.not(staticModelId(v, table, 4), staticModelId({ ...v, tokenizer: PLAIN_STATIC_TOKENIZER }, table, 4));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-static-bigram-'));
  try {
    const model = { vocab: v, dim: 4, dims: [4], table, id: staticModelId(v, table, 4) };
    saveStaticModel(dir, model, { dataHash: 'd', config: {}, seed: 1 });
    const back = loadStaticModel(dir);
    assert.equal(back.vocab.tokenizer, t);
    assert.is(back.id, model.id);
    assert.equal([...staticText(back.vocab, 'Arctic sea ice').ids], ['sea', 'ice', 'sea+ice'].map((x) => v.ids.get(x)!));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('vocabulary: minimum count, most frequent first, IDF = ln(1 + N / df), deterministic; pooling weights sum to 1', () => {
  const texts = ['ozone column', 'ozone profile', 'sea ice', 'sea ice extent', 'rare'];
  const v = buildStaticVocabulary(texts);
  assert.equal(v.tokens, ['ice', 'ozone', 'sea']);
  assert.ok(Math.abs(v.idf[v.ids.get('ozone')!] - Math.log(1 + 5 / 2)) < 1e-6);
  assert.equal(buildStaticVocabulary(texts), v);
  assert.equal(buildStaticVocabulary(texts, { minCount: 1, maxTokens: 2 }).tokens, ['ice', 'ozone']);
  const t = staticText(v, 'Sea ice of the ozone hole');
  assert.equal([...t.ids], [v.ids.get('sea')!, v.ids.get('ice')!, v.ids.get('ozone')!]);
  assert.ok(Math.abs(t.weights.reduce((s, x) => s + x, 0) - 1) < 1e-6);
  throwsWith(() => buildStaticVocabulary(texts, { minCount: 0 }), 'CONFIG', /minCount/);
});

test('pooling: mean weighs every token alike, IDF by its IDF; recorded in the id and the checkpoint (older checkpoints read as IDF)', () => {
  const texts = ['ozone column', 'ozone profile', 'sea ice', 'sea ice extent', 'sea level', 'rare'];
  const idf = buildStaticVocabulary(texts);
  const mean = buildStaticVocabulary(texts, { pooling: 'mean' });
  assert.is(idf.pooling, 'idf');
  assert.is(mean.pooling, 'mean');
  const text = 'Sea ice of the ozone hole';
  assert.equal([...staticText(mean, text).weights].map((w) => w.toFixed(6)), Array(3).fill((1 / 3).toFixed(6)));
  const w = staticText(idf, text).weights; // sea (df 3), ice, ozone (df 2)
  assert.ok(w[1] > w[0] && Math.abs(w[1] - w[2]) < 1e-7, `${[...w]}`);
  throwsWith(() => buildStaticVocabulary(texts, { pooling: 'max' as never }), 'CONFIG', /pooling must be "idf" or "mean"/);
  const table = new Float32Array(mean.tokens.length * 4).map((_, i) => Math.cos(i));
  const model = { vocab: mean, dim: 4, dims: [4], table, id: staticModelId(mean, table, 4) };
  assert.is.not(model.id, staticModelId(idf, table, 4));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-static-pool-'));
  try {
    saveStaticModel(dir, model, { dataHash: 'd', config: {}, seed: 1 });
    const back = loadStaticModel(dir);
    assert.is(back.vocab.pooling, 'mean');
    assert.is(back.id, model.id);
    assert.equal(staticVector(back, staticText(back.vocab, text)), staticVector(model, staticText(mean, text)));
    // a checkpoint written before the pooling was recorded: IDF, and its id unchanged
    saveStaticModel(dir, { ...model, vocab: idf, id: staticModelId(idf, table, 4) }, { dataHash: 'd', config: {}, seed: 1 });
    const manifest = path.join(dir, 'checkpoint.json');
    const ck = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    delete ck.config.vocab.pooling;
    fs.writeFileSync(manifest, JSON.stringify(ck));
    const old = loadStaticModel(dir);
    assert.is(old.vocab.pooling, 'idf');
    assert.is(old.id, staticModelId(idf, table, 4));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Pairs of a toy domain: acronyms and their expansions, each with the words of its field around it. */
function toyPairs(): { pairs: StaticPair[]; texts: string[] } {
  const topics = [
    ['sst', 'sea surface temperature ocean'],
    ['aod', 'aerosol optical depth dust smoke'],
    ['swe', 'snow water equivalent snowpack'],
    ['lst', 'land surface temperature skin'],
    ['ndvi', 'normalized difference vegetation index greenness'],
    ['tws', 'terrestrial water storage gravity groundwater'],
    ['chl', 'chlorophyll ocean colour phytoplankton'],
    ['so2', 'sulfur dioxide volcanic plume'],
  ];
  const pairs: StaticPair[] = [];
  for (let r = 0; r < 6; r++) {
    for (const [a, e] of topics) {
      pairs.push({ query: `${a} product ${r}`, doc: `${e} gridded product ${r}`, source: 'acronym' });
      pairs.push({ query: e.split(' ').slice(0, 2).join(' '), doc: `${e} ${a} data`, source: 'title' });
    }
  }
  return { pairs, texts: pairs.flatMap((p) => [p.query, p.doc]) };
}

test('training teaches the domain: an acronym meets its expansion, not another field; same seed, same table', async () => {
  const { pairs, texts } = toyPairs();
  const vocab = buildStaticVocabulary(texts);
  const cfg = { dim: 32, dims: [32, 16], epochs: 30, batchSize: 16, learningRate: 0.05, seed: 7 };
  const a = trainStaticModel(vocab, pairs, cfg);
  const enc = staticEncoder(a.model);
  const cos = async (x: string, y: string) => {
    const [u, v] = await enc.embed([x, y]);
    return u.reduce((s, ui, i) => s + ui * v[i], 0);
  };
  assert.ok(a.curve[a.curve.length - 1].loss < a.curve[0].loss, `loss ${a.curve[0].loss} → ${a.curve[a.curve.length - 1].loss}`);
  for (const [acr, right, wrong] of [['sst', 'sea surface temperature', 'snow water equivalent'], ['aod', 'aerosol optical depth', 'chlorophyll ocean colour'], ['tws', 'terrestrial water storage', 'sulfur dioxide']]) {
    const r = await cos(acr, right);
    const w = await cos(acr, wrong);
    assert.ok(r > w + 0.2, `${acr}: ${r.toFixed(3)} vs ${w.toFixed(3)}`);
  }
  // the Matryoshka prefix works alone too
  const half = staticEncoder(a.model, { dim: 16 });
  const [s, e, o] = await half.embed(['sst', 'sea surface temperature', 'snow water equivalent']);
  const dot = (u: Float32Array, v: Float32Array) => u.reduce((x, ui, i) => x + ui * v[i], 0);
  assert.ok(dot(s, e) > dot(s, o) + 0.2 && s.length === 16);
  const b = trainStaticModel(vocab, pairs, cfg);
  assert.equal(Array.from(b.model.table), Array.from(a.model.table));
  assert.is(b.model.id, a.model.id);
  assert.is.not(trainStaticModel(vocab, pairs, { ...cfg, seed: 8, epochs: 1 }).model.id, trainStaticModel(vocab, pairs, { ...cfg, epochs: 1 }).model.id);
  assert.equal(a.sources, { acronym: 48, title: 48 });
  throwsWith(() => trainStaticModel(vocab, pairs, { dim: 32, dims: [64] }), 'CONFIG', /dims/);
});

test('mean pooling learns its weights: a word of every query ("product") ends with a shorter row than the acronyms that tell them apart', () => {
  const { pairs, texts } = toyPairs();
  const vocab = buildStaticVocabulary(texts, { pooling: 'mean' });
  const { model } = trainStaticModel(vocab, pairs, { dim: 32, dims: [32, 16], epochs: 30, batchSize: 16, learningRate: 0.05, seed: 7 });
  const norm = (t: string) => Math.hypot(...model.table.subarray(vocab.ids.get(t)! * 32, (vocab.ids.get(t)! + 1) * 32));
  for (const acronym of ['sst', 'aod', 'swe', 'lst', 'ndvi', 'tws', 'chl', 'so2']) assert.ok(norm('product') < norm(acronym), `product ${norm('product')} vs ${acronym} ${norm(acronym)}`);
});

test('the batch gradient equals finite differences of the Matryoshka MNRL loss (with a hard negative)', () => {
  const vocab = buildStaticVocabulary(['a b c', 'a b d', 'c d e', 'e f a', 'b f', 'c e', 'd f'], { minCount: 1 });
  const D = 6;
  const rng = (() => { let x = 12345; return () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5; })();
  const table = Float32Array.from({ length: vocab.tokens.length * D }, () => rng());
  const st = (t: string) => staticText(vocab, t);
  const queries = [st('a b'), st('c d'), st('e f')];
  const docs = [st('a b c'), st('c d e'), st('e f a'), st('b d')];
  const model = { table, dim: D, dims: [6, 3], temperature: 0.5 };
  const grad = new Float64Array(table.length);
  const g32 = new Float32Array(table.length);
  const touched = new Uint8Array(vocab.tokens.length);
  const { loss, rows } = staticBatchGradient(model, queries, docs, g32, touched);
  g32.forEach((x, i) => (grad[i] = x));
  assert.ok(loss > 0 && rows.length === vocab.tokens.length);
  const lossAt = (t: Float32Array) => staticBatchGradient({ ...model, table: t }, queries, docs, new Float32Array(t.length), new Uint8Array(vocab.tokens.length)).loss;
  const h = 1e-3;
  let worst = 0;
  for (let i = 0; i < table.length; i++) {
    const plus = Float32Array.from(table);
    const minus = Float32Array.from(table);
    plus[i] += h;
    minus[i] -= h;
    const fd = (lossAt(plus) - lossAt(minus)) / (2 * h);
    worst = Math.max(worst, Math.abs(fd - grad[i]) / Math.max(1e-3, Math.abs(fd) + Math.abs(grad[i])));
  }
  assert.ok(worst < 2e-2, `worst relative error ${worst}`);
  throwsWith(() => staticBatchGradient(model, queries, docs.slice(0, 2), g32, touched), 'INVALID_ARGUMENT', /3 queries need 3\.\.6 documents/);
});

test('the MLAS kernel: the same loss, accuracy and rows as the loops, the gradient to float32 sums; training with it is reproducible and says its kernel', () => {
  const vocab = buildStaticVocabulary(['a b c', 'a b d', 'c d e', 'e f a', 'b f', 'c e', 'd f'], { minCount: 1 });
  const D = 8;
  const rng = (() => { let x = 777; return () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5; })();
  const table = Float32Array.from({ length: vocab.tokens.length * D }, () => rng());
  const st = (t: string) => staticText(vocab, t);
  const queries = [st('a b'), st('c d'), st('e f'), st('b f')];
  const docs = [st('a b c'), st('c d e'), st('e f a'), st('b f d'), st('d f'), st('c e')];
  const model = { table, dim: D, dims: [8, 4, 2], temperature: 0.07 };
  const { matMul, kernel, kernelNote } = staticKernel('mlas');
  assert.is(kernel, 'mlas', kernelNote);
  const gLoops = new Float32Array(table.length);
  const loops = staticBatchGradient(model, queries, docs, gLoops, new Uint8Array(vocab.tokens.length));
  const gMlas = new Float32Array(table.length);
  const mlas = staticBatchGradient(model, queries, docs, gMlas, new Uint8Array(vocab.tokens.length), undefined, matMul);
  assert.ok(Math.abs(mlas.loss - loops.loss) < 1e-5 * loops.loss, `${mlas.loss} vs ${loops.loss}`);
  assert.is(mlas.correct, loops.correct);
  assert.equal(mlas.rows, loops.rows);
  const scale = Math.max(...gLoops.map(Math.abs));
  let worst = 0;
  gLoops.forEach((x, i) => (worst = Math.max(worst, Math.abs(x - gMlas[i]))));
  assert.ok(scale > 0 && worst < 1e-5 * scale, `worst ${worst} of ${scale}`);
  assert.equal(staticKernel(undefined), { matMul: null, kernel: 'js' });
  const { pairs, texts } = toyPairs();
  const v2 = buildStaticVocabulary(texts);
  const cfg = { dim: 16, dims: [16, 8], epochs: 3, batchSize: 16, learningRate: 0.05, seed: 5, kernel: 'mlas' as const };
  const a = trainStaticModel(v2, pairs, cfg);
  const b = trainStaticModel(v2, pairs, cfg);
  assert.is(a.kernel, 'mlas');
  assert.is(b.model.id, a.model.id, 'same kernel and seed: the same table');
  assert.ok(a.curve[2].loss < a.curve[0].loss);
  const js = trainStaticModel(v2, pairs, { ...cfg, kernel: 'js' });
  assert.is(js.kernel, 'js');
  assert.ok(Math.abs(js.curve[0].loss - a.curve[0].loss) < 1e-4 * js.curve[0].loss, `first epoch's loss: js ${js.curve[0].loss} vs mlas ${a.curve[0].loss}`);
  throwsWith(() => trainStaticModel(v2, pairs, { ...cfg, kernel: 'gpu' as never }), 'CONFIG', /kernel must be one of js, mlas/);
});

test('training with hard negatives lowers the loss; the negatives are part of what the model was trained on', () => {
  const { pairs, texts } = toyPairs();
  const vocab = buildStaticVocabulary(texts);
  const withNeg = pairs.map((p, i) => ({ ...p, negative: pairs[(i + 3) % pairs.length].doc }));
  const one = trainStaticModel(vocab, withNeg, { dim: 16, dims: [16], epochs: 2, batchSize: 96, learningRate: 0.01, seed: 3 });
  assert.ok(one.curve[1].loss < one.curve[0].loss, `${one.curve[0].loss} → ${one.curve[1].loss}`);
  assert.is.not(one.dataHash, trainStaticModel(vocab, pairs, { dim: 16, dims: [16], epochs: 1, batchSize: 96, seed: 3 }).dataHash);
});

test('a run stopped after an epoch resumes to the same table; the checkpoint refuses changed weights and vocabulary', () => {
  const { pairs, texts } = toyPairs();
  const vocab = buildStaticVocabulary(texts);
  const cfg = { dim: 16, dims: [16, 8], epochs: 3, batchSize: 16, seed: 11 };
  const whole = trainStaticModel(vocab, pairs, cfg);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-static-'));
  try {
    const stateDir = path.join(dir, 'state');
    let stopped = false;
    try {
      trainStaticModel(vocab, pairs, cfg, { stateDir, onEpoch: (l) => { if (l.epoch === 1) throw new Error('stopped'); } });
    } catch (e) {
      stopped = (e as Error).message === 'stopped';
    }
    assert.ok(stopped);
    const resumed = trainStaticModel(vocab, pairs, cfg, { stateDir });
    assert.equal(resumed.curve.map((l) => l.resumed ?? false), [true, false, false]);
    assert.equal(Array.from(resumed.model.table), Array.from(whole.model.table));
    // the model as a checkpoint: read back equal, found by eo cache verify, refused when changed
    const ckDir = path.join(dir, 'checkpoints', 'static', 'toy');
    saveStaticModel(ckDir, whole.model, { dataHash: whole.dataHash, config: { ...whole.config }, seed: 11, metrics: { curve: whole.curve } });
    assert.ok(staticModelExists(ckDir));
    const back = loadStaticModel(ckDir, { dataHash: whole.dataHash });
    assert.is(back.id, whole.model.id);
    assert.equal(Array.from(staticVector(back, staticText(back.vocab, 'sst product'))), Array.from(staticVector(whole.model, staticText(vocab, 'sst product'))));
    assert.ok(verifyCaches({ checkpointsDir: path.join(dir, 'checkpoints'), benchDir: path.join(dir, 'none') }).some((c) => c.kind === 'checkpoint' && c.status === 'ok' && c.file.includes('static')));
    const vf = path.join(ckDir, STATIC_VOCAB_FILE);
    fs.writeFileSync(vf, fs.readFileSync(vf, 'utf8').replace('sst', 'sss'));
    throwsWith(() => loadStaticModel(ckDir), 'CACHE_MISMATCH', /vocab\.txt: the vocabulary's SHA-256 differs/);
    saveStaticModel(ckDir, whole.model, { dataHash: whole.dataHash, config: {}, seed: 11 });
    const wf = path.join(ckDir, 'weights.bin');
    const bytes = fs.readFileSync(wf);
    bytes[10] ^= 0xff;
    fs.writeFileSync(wf, bytes);
    assert.throws(() => loadStaticModel(ckDir));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an ensemble of seeds: member i is the one-model run of its seed; the stacked model\'s cosine is the mean of the members\'; saved, read back and refused as one model', async () => {
  const { pairs, texts } = toyPairs();
  const vocab = buildStaticVocabulary(texts);
  const cfg = { dim: 16, dims: [16, 8], epochs: 2, batchSize: 16, seed: 5 };
  const lines: string[] = [];
  const ens = trainStaticEnsemble(vocab, pairs, { ...cfg, members: 3 }, { onEpoch: (l) => lines.push(`${l.member}/${l.epoch}`) });
  assert.equal(lines, ['1/1', '1/2', '2/1', '2/2', '3/1', '3/2']);
  assert.equal(ens.curve.map((l) => l.member), [1, 1, 2, 2, 3, 3]);
  assert.equal([ens.model.dim, ens.model.members, ens.model.dims, ens.config.members, ens.config.seed], [48, 3, [48, 24], 3, 5]);
  assert.ok(Math.abs(ens.seconds - ens.memberResults.reduce((a, r) => a + r.seconds, 0)) < 1e-9);
  const singles = [0, 1, 2].map((i) => trainStaticModel(vocab, pairs, { ...cfg, seed: staticMemberSeed(5, i) }).model);
  for (const [i, m] of singles.entries()) assert.equal(Array.from(ens.memberResults[i].model.table), Array.from(m.table), `member ${i}`);
  assert.is.not(singles[1].id, singles[0].id);
  // one member is the one-model run itself, its id unchanged
  const one = trainStaticEnsemble(vocab, pairs, cfg);
  assert.is(one.model.id, singles[0].id);
  assert.is(one.model.members, undefined);
  // the cosine of the stacked vectors is the mean of the members' cosines, at full width and at each member's prefix
  const dot = (u: Float32Array, v: Float32Array) => u.reduce((x, ui, i) => x + ui * v[i], 0);
  const words = ['sst product', 'sea surface temperature', 'snow water equivalent', 'aerosol optical depth smoke'];
  for (const dim of [48, 24]) {
    const [a, b, c, d] = await staticEncoder(ens.model, { dim }).embed(words);
    assert.is(a.length, dim);
    const each = await Promise.all(singles.map((m) => staticEncoder(m, { dim: dim / 3 }).embed(words)));
    for (const [x, y] of [[a, b], [a, c], [b, d]] as const) {
      const i = [a, b, c, d].indexOf(x);
      const j = [a, b, c, d].indexOf(y);
      const mean = each.reduce((s, v) => s + dot(v[i], v[j]), 0) / 3;
      assert.ok(Math.abs(dot(x, y) - mean) < 1e-6, `dim ${dim}: ${dot(x, y)} vs mean ${mean}`);
    }
    assert.ok(Math.abs(dot(a, a) - 1) < 1e-6);
  }
  throwsWith(() => staticEncoder(ens.model, { dim: 16 }), 'INVALID_ARGUMENT', /multiple of the model's 3 members/);
  // stacking is checked: one model is itself; nested stacks, other widths and other vocabularies are refused by name
  assert.is(stackStaticModels([singles[0]]), singles[0]);
  throwsWith(() => stackStaticModels([]), 'INVALID_ARGUMENT', /no model/);
  throwsWith(() => stackStaticModels([ens.model, singles[0]]), 'INVALID_ARGUMENT', /has 3 members already/);
  throwsWith(() => stackStaticModels([singles[0], trainStaticModel(vocab, pairs, { ...cfg, dim: 8, dims: [8] }).model]), 'INVALID_ARGUMENT', /model 1 .* is 8 wide/);
  const other = buildStaticVocabulary([...texts, 'zebra', 'zebra']);
  throwsWith(() => stackStaticModels([singles[0], trainStaticModel(other, pairs, cfg).model]), 'INVALID_ARGUMENT', /another vocabulary/);
  throwsWith(() => trainStaticModel(vocab, pairs, { ...cfg, members: 2 }), 'CONFIG', /trainStaticEnsemble trains several/);
  throwsWith(() => trainStaticEnsemble(vocab, pairs, { ...cfg, members: 0 }), 'CONFIG', /members must be an integer/);
  // its id says its members and differs from a one-model table of the same numbers
  assert.match(ens.model.id, /^static-3x16-48@/);
  assert.is.not(ens.model.id, staticModelId(vocab, ens.model.table, 48));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-static-members-'));
  try {
    saveStaticModel(dir, ens.model, { dataHash: ens.dataHash, config: { ...ens.config }, seed: 5 });
    const back = loadStaticModel(dir, { dataHash: ens.dataHash });
    assert.equal([back.id, back.members, back.dim, back.dims], [ens.model.id, 3, 48, [48, 24]]);
    assert.equal(Array.from(staticVector(back, staticText(back.vocab, 'sst product'))), Array.from(staticVector(ens.model, staticText(vocab, 'sst product'))));
    const ck = path.join(dir, 'checkpoint.json');
    fs.writeFileSync(ck, fs.readFileSync(ck, 'utf8').replace('"members": 3', '"members": 5'));
    throwsWith(() => loadStaticModel(dir), 'DATA_INVALID', /members 5 does not divide the table's 48 columns/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('learning-rate schedule: constant by default; linear warms up over 5 % of the steps, then decays to 0; a bad one is refused by name', () => {
  const c = { learningRate: 0.01 };
  assert.is(staticScheduledRate(c, 1, 100), 0.01);
  assert.is(staticScheduledRate({ ...c, schedule: 'constant' }, 77, 100), 0.01);
  const lin = { ...c, schedule: 'linear' as const };
  const rates = Array.from({ length: 100 }, (_, i) => staticScheduledRate(lin, i + 1, 100));
  assert.ok(rates[0] < rates[1] && rates[1] < rates[4], 'warms up');
  assert.ok(Math.abs(rates[4] - 0.01) < 1e-12, 'peaks at the end of the warm-up (5 of 100 steps)');
  for (let i = 5; i < 100; i++) assert.ok(rates[i] < rates[i - 1], `decays at step ${i + 1}`);
  assert.ok(rates[99] > 0 && rates[99] < 0.001, 'near 0 at the last step');
  const vocab = buildStaticVocabulary(['alpha beta', 'alpha gamma'], { minCount: 1 });
  const pairs: StaticPair[] = [{ query: 'alpha', doc: 'beta', source: 's' }, { query: 'gamma', doc: 'alpha', source: 's' }];
  throwsWith(() => staticTrainingPlan(vocab, pairs, { schedule: 'cosine' as never }), 'CONFIG', /schedule must be one of constant, linear/);
  // a longer run continues a shorter one at a constant rate; a linear schedule's length is part of what resumes
  const key = (schedule: 'constant' | 'linear', epochs: number) => JSON.stringify(staticTrainingPlan(vocab, pairs, { schedule, epochs }).stateConfig);
  assert.is(key('constant', 1), key('constant', 3));
  assert.is.not(key('linear', 1), key('linear', 3));
});

test('on the sample snapshot: a vocabulary of its records keeps short names whole and in parts', () => {
  const corpus = loadSnapshot({ sample: true });
  const v = buildStaticVocabulary(corpus.datasets.map((d) => `${d.shortName ?? ''} ${d.longName} ${d.keywords.join(' ')} ${d.abstract}`));
  assert.ok(v.tokens.length > 1000, `${v.tokens.length} tokens`);
  const withJoin = corpus.datasets.map((d) => d.shortName).filter((s): s is string => !!s && /_/.test(s));
  assert.ok(withJoin.length > 0);
  assert.ok(v.ids.has('aerosol') && v.ids.has('temperature'));
});

test('the benchmark\'s static encoder: trained once, then reused; a search engine ranks with it (sample snapshot)', async () => {
  const corpus = loadSnapshot({ sample: true });
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-static-art-'));
  try {
    const staticDir = path.join(dir, 'static');
    const settings = { train: { epochs: 1, dim: 32, dims: [32, 16] } };
    const first = await loadOrTrainStaticModel({ corpus, bench, dir: staticDir, settings });
    assert.is(first.trained, true);
    assert.ok(first.pairs.count > 100 && first.pairs.bySource['train-split'] > 0);
    const again = await loadOrTrainStaticModel({ corpus, bench, dir: staticDir, settings });
    assert.is(again.trained, false);
    assert.is(again.model.id, first.model.id);
    // read and verified once in this process: loading it again hands out that model (its pairs not made again, its table
    // not read again), and one corpus matrix per model and corpus; a rewritten checkpoint file is read afresh
    const third = await loadOrTrainStaticModel({ corpus, bench, dir: staticDir, settings });
    assert.is(third.model, again.model);
    assert.is((await staticCorpusMatrix(third.model, corpus)).matrix, (await staticCorpusMatrix(again.model, corpus)).matrix);
    assert.is.not((await staticCorpusMatrix(third.model, { datasets: corpus.datasets.slice(0, 5) })).matrix.length, (await staticCorpusMatrix(third.model, corpus)).matrix.length);
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(staticDir, 'weights.bin'), later, later);
    const reread = await loadOrTrainStaticModel({ corpus, bench, dir: staticDir, settings, trustInputs: true });
    assert.is.not(reread.model, again.model);
    assert.is(reread.model.id, again.model.id);
    // a search trusts the inputs its pairs were verified for (inputs.json) instead of making the pairs again…
    const inputs = path.join(staticDir, 'inputs.json');
    const verified = JSON.parse(fs.readFileSync(inputs, 'utf8'));
    assert.equal(verified.pairs, first.pairs);
    const trusted = await loadOrTrainStaticModel({ corpus, bench, dir: staticDir, settings, trustInputs: true, mode: 'load' });
    assert.is(trusted.model.id, first.model.id);
    assert.equal(trusted.pairs, first.pairs);
    // …and only those: recorded for other inputs, the pairs are made and checked again (and the record rewritten)
    fs.writeFileSync(inputs, JSON.stringify({ ...verified, inputsKey: 'other', pairs: { ...verified.pairs, count: -1 } }));
    const checked = await loadOrTrainStaticModel({ corpus, bench, dir: staticDir, settings, trustInputs: true, mode: 'load' });
    assert.is(checked.pairs.count, first.pairs.count);
    assert.equal(JSON.parse(fs.readFileSync(inputs, 'utf8')), verified);
    // a checkpoint of other settings is never trusted for these
    await rejectsWith(() => loadOrTrainStaticModel({ corpus, bench, dir: staticDir, settings: { train: { epochs: 2, dim: 32, dims: [32, 16] } }, trustInputs: true, mode: 'load' }), 'DATA_NOT_FOUND', /other settings/);
    // a second process needing it while another trains it (held lock) waits, then reads what that one saved
    const sideDir = path.join(dir, 'static-side');
    fs.writeFileSync(`${sideDir}.lock`, JSON.stringify({ pid: process.ppid, host: os.hostname(), started: new Date().toISOString() }));
    const lines: string[] = [];
    let settled = false;
    const waiting = loadOrTrainStaticModel({ corpus, bench, dir: sideDir, settings, pollMs: 20, log: (l) => lines.push(l) }).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    assert.is(settled, false, 'returned while the lock was held');
    assert.match(lines.join('\n'), new RegExp(`waiting for process ${process.ppid}`));
    fs.cpSync(staticDir, sideDir, { recursive: true }); // what the other process saves…
    fs.rmSync(`${sideDir}.lock`); // …before it lets go
    const side = await waiting;
    assert.is(side.trained, false);
    assert.is(side.model.id, first.model.id);
    assert.not.match(lines.join('\n'), /training the static encoder/);
    assert.not.ok(fs.existsSync(`${sideDir}.lock`));
    await rejectsWith(() => loadOrTrainStaticModel({ corpus, bench, dir: staticDir, settings: { train: { epochs: 2, dim: 32, dims: [32, 16] } }, mode: 'load' }), 'DATA_NOT_FOUND', /other settings/);
    // the engine: --retriever static is the static cosine alone, over the benchmark on disk
    const benchDir = path.join(dir, 'bench');
    exportBenchmark(benchDir, bench, corpus);
    const engine = await loadSearchEngine(corpus, { semantic: 'static', lexical: false, sample: true, benchmarkDir: benchDir, staticDir });
    try {
      assert.match(engine.label, /Static/);
      const { run } = await searchBatch(engine, [{ id: 'q', text: 'aerosol optical depth' }]);
      assert.ok((run.get('q') ?? []).length > 0);
      // alone it takes its feedback from its own first datasets; beside BM25, from BM25's first (the default ranking's)
      assert.match(engine.semantic!.fingerprint!, new RegExp(`\\+prf k${DEFAULT_STATIC_PRF.k} β${DEFAULT_STATIC_PRF.beta}$`));
      const hybrid = await loadSearchEngine(corpus, { semantic: 'static', lexical: 'bm25', sample: true, benchmarkDir: benchDir, staticDir, computeAlpha: false });
      try {
        assert.is(DEFAULT_RANKING.staticPrf.seeds, 'lexical');
        // a result's explanation names where the feedback came from
        assert.is(hybrid.semantic!.label, `Static (corpus-trained; feedback from BM25's top ${DEFAULT_RANKING.staticPrf.k})`);
        assert.is(engine.semantic!.label, 'Static (corpus-trained)');
        assert.ok(hybrid.semantic!.fingerprint!.endsWith(`+prf k${DEFAULT_RANKING.staticPrf.k} β${DEFAULT_RANKING.staticPrf.beta} lexical (${hybrid.lexical!.fingerprint})`), hybrid.semantic!.fingerprint);
        const [seeded] = await hybrid.semantic!.scoreBatch(['aerosol optical depth']);
        const [own] = await engine.semantic!.scoreBatch(['aerosol optical depth']);
        assert.ok(seeded.some((x, i) => Math.abs(x - own[i]) > 1e-6), 'BM25-seeded feedback scores differently');
      } finally {
        hybrid.dispose();
      }
    } finally {
      engine.dispose();
    }
    await rejectsWith(() => loadSearchEngine(corpus, { semantic: 'static', lexical: false, staticPrf: { k: 5, beta: 1, seeds: 'lexical' }, sample: true, benchmarkDir: benchDir, staticDir }), 'CONFIG', /needs a lexical half/);
    // the default ranking's semantic half ('best') is the static encoder…
    const best = await loadSearchEngine(corpus, { lexical: false, sample: true, benchmarkDir: benchDir, staticDir });
    try {
      assert.is(DEFAULT_RANKING.semantic, 'static');
      assert.is(best.semantic!.id, engine.semantic!.id);
    } finally {
      best.dispose();
    }
    // …and where it cannot be had (no benchmark to train it on), the next best scorer, saying why
    const fallback = await loadSearchEngine(corpus, { sample: true, benchmarkDir: path.join(dir, 'none'), staticDir: path.join(dir, 'static-none'), computeAlpha: false });
    try {
      assert.not.match(fallback.semantic!.label, /Static/);
      assert.match(fallback.fusion.source, /static encoder not used: the static encoder is trained on the benchmark's training split, and there is no usable benchmark/);
    } finally {
      fallback.dispose();
    }
    // without a benchmark there is no training split to train it on: a named error
    let err: unknown = null;
    try {
      await loadSearchEngine(corpus, { semantic: 'static', lexical: false, sample: true, benchmarkDir: path.join(dir, 'none'), staticDir: path.join(dir, 'static-none') });
    } catch (e) {
      err = e;
    }
    assert.ok(isEoError(err, 'DATA_NOT_FOUND') && /no usable benchmark/.test((err as Error).message), String(err));
    // NN-SSC on the static encoder trains with its own Adam rate (STATIC_NNSSC_CONFIG), the fields of `config` over it…
    assert.is.not(STATIC_NNSSC_CONFIG.learningRate, DEFAULT_NNSSC_CONFIG.learningRate);
    const nnDir = path.join(dir, 'nnssc-static');
    const onStatic = await loadOrTrainStaticNnssc({ corpus, bench, staticDir: path.join(dir, 'static-nn'), dir: nnDir, config: { maxEpochs: 2 } });
    assert.is(onStatic.nn.config.learningRate, STATIC_NNSSC_CONFIG.learningRate);
    assert.is(onStatic.nn.config.maxEpochs, 2);
    assert.is(onStatic.nn.config.hidden1, DEFAULT_NNSSC_CONFIG.hidden1);
    assert.is(onStatic.nn.checkpoint.config.encoderId, onStatic.encoder.id);
    // …and a checkpoint trained at another rate is not read as it
    await rejectsWith(() => loadOrTrainStaticNnssc({ corpus, bench, staticDir: path.join(dir, 'static-nn'), dir: nnDir, config: { maxEpochs: 2, learningRate: DEFAULT_NNSSC_CONFIG.learningRate }, mode: 'load' }), 'CACHE_MISMATCH', new RegExp(`learningRate ${STATIC_NNSSC_CONFIG.learningRate} → ${DEFAULT_NNSSC_CONFIG.learningRate}`));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
