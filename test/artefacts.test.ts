// Trained artefacts know what they were trained on: the benchmark records its data hash, checkpoints record the
// training split's hash, and the load-or-train helpers refuse (or retrain) a checkpoint from other data.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSnapshot, loadOrBuildBenchmark, loadOrTrainNnssc, isEoError, type Benchmark, type Corpus } from '../lib';
import { buildBenchmark, benchmarkSettings, benchmarkTrainingData, exportBenchmark, loadBenchmark } from '../lib/bench';
import { makeCorpus, datasetEncoderText } from '../lib/data';
import { readCheckpointManifest } from '../lib/store';
import { initTfBackend } from '../lib/tensor';
import { loadOrTrainFinetunedEncoder, TINY_FINETUNE_CONFIG, type NnsscTrainConfig } from '../lib/train';
import { fakeEncoder } from './helpers/encoder';
import { repoRelativePath, repoRoot } from '../lib/util/paths';

const corpus = loadSnapshot({ sample: true });
/** Awaits `fn` and asserts it throws an EoError whose message matches `re`. */
async function rejects(fn: () => Promise<unknown>, re: RegExp): Promise<void> {
  try {
    await fn();
  } catch (e) {
    assert.ok(isEoError(e), String(e));
    assert.match((e as Error).message, re);
    return;
  }
  assert.unreachable(`expected an error matching ${re}`);
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'eo-artefacts-'));


const encoder = fakeEncoder();
let corpusMatrix: Float32Array;
const TINY: Partial<NnsscTrainConfig> = { hidden1: 8, hidden2: 8, hardNegatives: 3, randomNegatives: 3, batchSize: 32, maxEpochs: 2, learningRate: 1e-2, valFraction: 0 };

test.before(async () => {
  await initTfBackend({ backend: 'wasm' });
  const rows = await encoder.embed(corpus.datasets.map((d) => datasetEncoderText(d)));
  corpusMatrix = new Float32Array(rows.length * encoder.dim);
  rows.forEach((r, i) => corpusMatrix.set(r, i * encoder.dim));
});

/** The same corpus with one link's relation changed (the links file changed). */
function corpusWithChangedLink(c: Corpus): Corpus {
  const links = c.links.map((l, i) => (i === 0 ? { ...l, relation: l.relation === 'cites' ? 'publication_reference' : 'cites' } : l));
  return makeCorpus(c.datasets, c.publications, links, 'changed-links');
}

test('data hash covers publications and links, not only datasets; the benchmark records it', async () => {
  const changed = corpusWithChangedLink(corpus);
  assert.is(changed.hash, corpus.hash, 'dataset hash unchanged');
  assert.is.not(changed.dataHash, corpus.dataHash, 'a changed link changes the data hash');
  const retitled = makeCorpus(corpus.datasets, corpus.publications.map((p, i) => (i === 0 ? { ...p, title: `${p.title} (v2)` } : p)), corpus.links, 'retitled');
  assert.is.not(retitled.dataHash, corpus.dataHash, 'a changed publication changes the data hash');
  assert.is(makeCorpus(corpus.datasets, corpus.publications, corpus.links, 'again').dataHash, corpus.dataHash);
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  assert.is(bench.dataHash, corpus.dataHash);
  // a saved benchmark is refused on other links, naming both hashes and the command; loadOrBuild rebuilds it
  const dir = tmp();
  try {
    exportBenchmark(dir, bench, corpus);
    try {
      loadBenchmark(path.join(dir, 'benchmark.json'), changed);
      assert.unreachable('benchmark built on other links accepted');
    } catch (e) {
      assert.ok(isEoError(e, 'CACHE_MISMATCH'), String(e));
      const msg = (e as Error).message;
      assert.ok(msg.includes(corpus.dataHash) && msg.includes(changed.dataHash), msg);
      assert.match(msg, /eo bench build/);
    }
    const rebuilt = await loadOrBuildBenchmark(changed, { ...benchmarkSettings({ sample: true }), dir });
    assert.is(rebuilt.dataHash, changed.dataHash);
    // one saved before benchmarks recorded a data hash is refused as well
    const legacy = JSON.parse(fs.readFileSync(path.join(dir, 'benchmark.json'), 'utf8'));
    delete legacy.dataHash;
    fs.writeFileSync(path.join(dir, 'benchmark.json'), JSON.stringify(legacy));
    assert.throws(() => loadBenchmark(path.join(dir, 'benchmark.json'), changed), /did not record/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('training-data hash: same for a rebuild, different for another seed, relations filter, writer or links', async () => {
  const s = benchmarkSettings({ sample: true });
  const base = benchmarkTrainingData(await buildBenchmark(corpus, s));
  assert.is(benchmarkTrainingData(await buildBenchmark(corpus, s)).hash, base.hash);
  const others: Benchmark[] = [
    await buildBenchmark(corpus, { ...s, seed: 7 }),
    await buildBenchmark(corpus, { ...s, relations: ['cites'] }),
    await buildBenchmark(corpus, { ...s, writer: { id: 'upper', label: 'upper-case title', write: async (p) => [p.title.toUpperCase()] } }),
    await buildBenchmark(corpusWithChangedLink(corpus), s),
  ];
  for (const b of others) assert.is.not(benchmarkTrainingData(b).hash, base.hash, `${b.seed} ${b.relations} ${b.writer}`);
  // the subset size does not change what is trained on
  assert.is(benchmarkTrainingData(await buildBenchmark(corpus, { ...s, subsetSize: 5 })).hash, base.hash);
});

test('loadOrTrainNnssc: trains once, reuses on the same data, refuses another seed / relations / links with both hashes', async () => {
  const dir = tmp();
  const queryCacheDir = tmp();
  const s = benchmarkSettings({ sample: true });
  const bench = await buildBenchmark(corpus, s);
  const common = { encoder, corpusMatrix, dir, config: TINY, queryCacheDir };
  try {
    const first = await loadOrTrainNnssc({ corpus, bench, ...common });
    assert.ok(first.trained, 'first call trains');
    assert.is(first.why, `no checkpoint at ${repoRelativePath(dir)}`);
    assert.ok(first.why.startsWith(`no checkpoint at ${path.join('$TMPDIR', '')}`), first.why); // by its role, wherever the clone is
    assert.is(readCheckpointManifest(dir).trainingData!.hash, benchmarkTrainingData(bench).hash);
    const sha = readCheckpointManifest(dir).weights.sha256;

    const again = await loadOrTrainNnssc({ corpus, bench: await buildBenchmark(corpus, s), ...common, mode: 'load' });
    assert.is(again.trained, null, 'same data and config: reused');
    assert.is(again.why, 'reused');
    assert.equal(Array.from(again.model.w1), Array.from(first.model.w1));
    assert.is(again.summary.curve.length, first.summary.curve.length);

    const refused = async (b: Benchmark, c: Corpus, expect: RegExp) => {
      try {
        await loadOrTrainNnssc({ corpus: c, bench: b, ...common, mode: 'load' });
        assert.unreachable('checkpoint from other training data accepted');
      } catch (e) {
        assert.ok(isEoError(e, 'CACHE_MISMATCH'), String(e));
        const msg = (e as Error).message;
        assert.ok(msg.includes(benchmarkTrainingData(bench).hash) && msg.includes(benchmarkTrainingData(b).hash), `both hashes named: ${msg}`);
        assert.ok(msg.includes('npm start -- --only 04-nnssc --sample'), `rebuild command named: ${msg}`);
        assert.match(msg, expect);
      }
    };
    await refused(await buildBenchmark(corpus, { ...s, seed: 7 }), corpus, /seed 42 → 7/);
    await refused(await buildBenchmark(corpus, { ...s, relations: ['cites'] }), corpus, /relations all → cites/);
    const changed = corpusWithChangedLink(corpus);
    await refused(await buildBenchmark(changed, s), changed, /data \(datasets, publications, links\)/);

    // another config is not reused either
    await rejects(() => loadOrTrainNnssc({ corpus, bench, ...common, config: { ...TINY, seed: 5 }, mode: 'load' }), /other settings: seed 42 → 5/);

    // load-or-train retrains on the other seed's split and records its hash
    const seven = await buildBenchmark(corpus, { ...s, seed: 7 });
    const re = await loadOrTrainNnssc({ corpus, bench: seven, ...common });
    assert.ok(re.trained && /trained on training data/.test(re.why), re.why);
    assert.is(readCheckpointManifest(dir).trainingData!.hash, benchmarkTrainingData(seven).hash);

    // back on the default split, the same seed gives bit-for-bit the same checkpoint
    await loadOrTrainNnssc({ corpus, bench, ...common });
    assert.is(readCheckpointManifest(dir).weights.sha256, sha);

    // a checkpoint written before checkpoints recorded their training data is stale
    const file = path.join(dir, 'checkpoint.json');
    const m = JSON.parse(fs.readFileSync(file, 'utf8'));
    delete m.trainingData;
    fs.writeFileSync(file, JSON.stringify(m));
    await rejects(() => loadOrTrainNnssc({ corpus, bench, ...common, mode: 'load' }), /records no training-data hash/);
    const fresh = await loadOrTrainNnssc({ corpus, bench, ...common });
    assert.ok(fresh.trained, 'a legacy checkpoint is retrained in load-or-train mode');
    assert.is(readCheckpointManifest(dir).weights.sha256, sha);
    // no checkpoint at all: load mode says how to make one
    await rejects(() => loadOrTrainNnssc({ corpus, bench, ...common, dir: path.join(dir, 'none'), mode: 'load' }), /no nnssc checkpoint .*npm start -- --only 04-nnssc/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(queryCacheDir, { recursive: true, force: true });
  }
});

test('loadOrTrainFinetunedEncoder: fine-tunes once, reuses on the same data, refuses another seed', async () => {
  const dir = tmp();
  const queryCacheDir = tmp();
  const s = benchmarkSettings({ sample: true });
  const bench = await buildBenchmark(corpus, s);
  const common = {
    dir, base: encoder, baseMatrix: corpusMatrix, queryCacheDir,
    config: { ...TINY_FINETUNE_CONFIG, scope: 'head' as const, batchSize: 4, maxSteps: 2, valQueries: 4 },
  };
  try {
    const a = await loadOrTrainFinetunedEncoder({ corpus, bench, ...common });
    assert.ok(a.trained, 'first call fine-tunes');
    assert.is(a.summary.steps.length, 2);
    const b = await loadOrTrainFinetunedEncoder({ corpus, bench, ...common, mode: 'load' });
    assert.is(b.trained, null);
    assert.is(b.encoder.id, a.encoder.id, 'same checkpoint, same encoder id');
    assert.is(b.summary.steps.length, 2);
    a.encoder.dispose();
    b.encoder.dispose();
    const seven = await buildBenchmark(corpus, { ...s, seed: 7 });
    try {
      await loadOrTrainFinetunedEncoder({ corpus, bench: seven, ...common, mode: 'load' });
      assert.unreachable('fine-tuned encoder from another split accepted');
    } catch (e) {
      assert.ok(isEoError(e, 'CACHE_MISMATCH'), String(e));
      const msg = (e as Error).message;
      assert.ok(msg.includes(benchmarkTrainingData(bench).hash) && msg.includes(benchmarkTrainingData(seven).hash), msg);
      assert.match(msg, /seed 42 → 7.*npm start -- --only 03-encoder-finetune --sample/);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(queryCacheDir, { recursive: true, force: true });
  }
});

test('loadOrTrainNnssc: the reason for retraining names a checkpoint inside the project by its project-relative folder', async () => {
  fs.mkdirSync(path.join(repoRoot(), 'test-output'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(repoRoot(), 'test-output', 'eo-artefacts-'));
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const common = { corpus, bench, encoder, corpusMatrix, dir, queryCacheDir: tmp() };
  try {
    assert.is((await loadOrTrainNnssc({ ...common, config: TINY })).why, `no checkpoint at ${path.relative(repoRoot(), dir)}`);
    const re = await loadOrTrainNnssc({ ...common, config: { ...TINY, seed: 5 } });
    assert.ok(re.trained, 'other settings: retrained');
    assert.is(re.why.split(' was ')[0], `checkpoint ${path.relative(repoRoot(), dir)}`);
    assert.not.ok(re.why.includes(repoRoot()), re.why);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
