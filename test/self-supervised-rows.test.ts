// The corpus self-supervised rows beside the paper's (issue 11 item 4): their ids and pairing with the plain rows, notebook
// 05's loader (rows only when a checkpoint exists, otherwise a sentence with the command that trains them), and
// bench/self-supervised.cjs --combine joining NN-SSC and fine-tuned-encoder files into one paired table.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildTable2, loadSnapshot, loadOrTrainNnssc } from '../lib';
import { buildBenchmark, benchmarkSettings, benchmarkTrainingData } from '../lib/bench';
import { datasetEncoderText } from '../lib/data';
import { compareSystems } from '../lib/metrics';
import {
  table2Rows, table2RowId, table2Systems, table2Hybrids, SELF_SUPERVISED_TABLE2_ROWS, selfSupervisedTable2Rows,
  selfSupervisedPairedRows,
} from '../lib/report';
import { selfSupervisedNote } from '../lib/lessons';
import { bm25Scorer, buildBm25 } from '../lib/retrieve';
import { retrieveBatch } from '../lib/search';
import {
  retrieveSplits, studyHybrid, SELF_SUPERVISED_SCORERS, selfSupervisedPlainId, selfSupervisedTrainCommand,
  selfSupervisedCheckpointDir, loadSelfSupervisedScorers,
} from '../lib/study';
import { saveCheckpoint } from '../lib/store';
import { initTfBackend } from '../lib/tensor';
import { finetuneCheckpointName, type NnsscTrainConfig } from '../lib/train';
import type { PerQueryMetrics } from '../lib/metrics';
import { fakeEncoder } from './helpers/encoder';
import { toyCorpus, toySemantic, toySplits } from './helpers/toy-study';

test('self-supervised rows: ids, plain counterparts, labels, folders and the command that trains each', () => {
  assert.is(selfSupervisedPlainId('nnssc-corpus-mix'), 'nnssc');
  assert.is(selfSupervisedPlainId('nnssc-corpus-pretrain+bm25'), 'nnssc+bm25');
  assert.is(selfSupervisedPlainId('cosine-ft-corpus-mix+bm25-grid'), 'cosine-ft+bm25-grid');
  for (const plain of ['nnssc', 'nnssc+bm25', 'cosine-ft+bm25-grid', 'bm25', 'cosine-ft-r2+bm25']) assert.is(selfSupervisedPlainId(plain), null, plain);
  const rows = table2Rows(SELF_SUPERVISED_TABLE2_ROWS);
  assert.is(rows.length, table2Rows().length + 3 * SELF_SUPERVISED_SCORERS.length, 'no id clash with the paper\'s rows');
  for (const r of SELF_SUPERVISED_TABLE2_ROWS) {
    const plainId = selfSupervisedPlainId(table2RowId(r))!;
    assert.ok(rows.some((p) => table2RowId(p) === plainId), `${table2RowId(r)} pairs with a Table 2 row (${plainId})`);
  }
  assert.equal(selfSupervisedTable2Rows([SELF_SUPERVISED_SCORERS[2]]).map(table2RowId), ['cosine-ft-corpus-mix', 'cosine-ft-corpus-mix+bm25', 'cosine-ft-corpus-mix+bm25-grid']);
  assert.equal(table2Hybrids(selfSupervisedTable2Rows()), SELF_SUPERVISED_SCORERS.map((s) => s.scorer));
  assert.is(selfSupervisedTrainCommand(SELF_SUPERVISED_SCORERS[0], true), 'node bench/self-supervised.cjs --sample --variants pretrain');
  assert.is(selfSupervisedTrainCommand(SELF_SUPERVISED_SCORERS[2], false), 'node bench/self-supervised.cjs --scorer finetune --variants mix');
  assert.is(selfSupervisedTable2Rows([SELF_SUPERVISED_SCORERS[1]], true)[0].makes, 'node bench/self-supervised.cjs --sample --variants mix');
  assert.is(finetuneCheckpointName(false), 'use-lite-mnrl');
  assert.is(finetuneCheckpointName(true, 'mix'), 'use-lite-mnrl-sample-corpus-mix');
  assert.ok(selfSupervisedCheckpointDir(SELF_SUPERVISED_SCORERS[2], 'eo-title', true).endsWith(path.join('finetune', 'use-lite-mnrl-sample-corpus-mix')));
  assert.ok(selfSupervisedCheckpointDir(SELF_SUPERVISED_SCORERS[0], 'eo-title', false).endsWith(path.join('nnssc', 'use-lite-eo-title-corpus-pretrain')));
});

test('selfSupervisedPairedRows: each self-supervised row against its plain row (same fusion), missing counterparts left out', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-ssl-rows-'));
  try {
    const lexical = bm25Scorer(buildBm25(toyCorpus));
    const lex = await retrieveSplits(lexical, toySplits, toyCorpus);
    const plain = toySemantic('cosine-ft', 'Cosine (fine-tuned)');
    // the "self-supervised" one: BM25's scores under another id, so it differs from the plain scorer per query
    const ssl = { ...bm25Scorer(buildBm25(toyCorpus)), id: 'cosine-ft-corpus-mix', label: 'Cosine (fine-tuned, corpus mix)', fingerprint: 'ssl@1' };
    const scores = { bm25: lex, 'cosine-ft': await retrieveSplits(plain, toySplits, toyCorpus), 'cosine-ft-corpus-mix': await retrieveSplits(ssl, toySplits, toyCorpus) };
    const study = (scorer: typeof plain) => studyHybrid({ corpus: toyCorpus, splits: toySplits, semantic: { scorer, scores: scores[scorer.id as 'cosine-ft'] }, lexical: { scorer: lexical, scores: lex }, fusionDir: dir });
    const hybrids = { 'cosine-ft': await study(plain), 'cosine-ft-corpus-mix': await study(ssl) };
    const rows = table2Rows(selfSupervisedTable2Rows([SELF_SUPERVISED_SCORERS[2], SELF_SUPERVISED_SCORERS[1]]));
    const sys = table2Systems({ scores, hybrids, rows });
    const table = buildTable2(sys, { testQrels: (toySplits.test as { qrels: never }).qrels, trainQrels: (toySplits.train as { qrels: never }).qrels, paired: { samples: 200 } });
    const paired = selfSupervisedPairedRows(table, sys, ['MAP', 'MRR']);
    // NN-SSC (corpus mix) has no scores here (and no plain NN-SSC): left out; the three fine-tuned rows pair with theirs
    assert.equal([...new Set(paired.map((r) => `${r.row} | ${r.vs}`))], [
      'Cosine (fine-tuned, corpus mix) | Cosine (fine-tuned)',
      'Cosine (fine-tuned, corpus mix) + BM25 | Cosine (fine-tuned) + BM25',
      'Cosine (fine-tuned, corpus mix) + BM25 (grid α) | Cosine (fine-tuned) + BM25 (grid α)',
    ]);
    const want = compareSystems(table.perQuery['cosine-ft-corpus-mix+bm25-grid'], table.perQuery['cosine-ft+bm25-grid'], ['MAP', 'MRR'], { seed: 42, permutations: 10000, bootstrapSamples: 10000 });
    const got = paired.filter((r) => r.row === 'Cosine (fine-tuned, corpus mix) + BM25 (grid α)');
    assert.equal(got.map((r) => [r.metric, r['Δ'], r['CI95 low'], r['CI95 high'], r.p]), want.map((c) => [c.metric, c.meanDiff, c.ciLow, c.ciHigh, c.pValue]));
    const single = paired.find((r) => r.row === 'Cosine (fine-tuned, corpus mix)' && r.metric === 'MAP')!;
    const pq = (id: string) => table.perQuery[id].values.MAP.reduce((s: number, x: number) => s + x, 0) / 3;
    assert.ok(Math.abs((single['Δ'] as number) - (pq('cosine-ft-corpus-mix') - pq('cosine-ft'))) < 1e-12);
    assert.ok(Math.abs((single['Δ'] as number)) > 1e-6, 'the toy rows differ, so the pairing is observable');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('loadSelfSupervisedScorers: rows only for checkpoints that exist and match; otherwise a sentence with the command', async () => {
  await initTfBackend({ backend: 'wasm' });
  const corpus = loadSnapshot({ sample: true });
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const encoder = fakeEncoder();
  const texts = corpus.datasets.map((d) => datasetEncoderText(d));
  const rows = await encoder.embed(texts);
  const baseMatrix = new Float32Array(rows.length * encoder.dim);
  rows.forEach((r, i) => baseMatrix.set(r, i * encoder.dim));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-ssl-load-'));
  const dirOf = (s: { scorer: string }) => path.join(root, s.scorer);
  const common = { corpus, bench, encoder, baseMatrix, texts, sample: true, dirOf };
  try {
    const none = await loadSelfSupervisedScorers(common);
    assert.is(none.found.length, 0);
    assert.equal(none.missing.map((m) => m.spec.scorer), SELF_SUPERVISED_SCORERS.map((s) => s.scorer));
    assert.ok(none.missing.every((m) => /^no checkpoint at /.test(m.why)), JSON.stringify(none.missing));
    const note = selfSupervisedNote({ ...none, sample: true });
    assert.match(note, /Not trained in this run/);
    for (const s of SELF_SUPERVISED_SCORERS) assert.ok(note.includes(`\`${selfSupervisedTrainCommand(s, true)}\``), note);
    assert.match(note, /never a test publication|no test publication/);

    // a tiny NN-SSC trained with corpus pairs (mix) in its folder: found, scored under its own id
    const TINY: Partial<NnsscTrainConfig> = { hidden1: 8, hidden2: 8, hardNegatives: 3, randomNegatives: 3, batchSize: 32, maxEpochs: 1, patience: 1, learningRate: 1e-2, valFraction: 0.2 };
    await loadOrTrainNnssc({ corpus, bench, encoder, corpusMatrix: baseMatrix, config: TINY, dir: dirOf({ scorer: 'nnssc-corpus-mix' }), queryCacheDir: path.join(root, 'q'), selfSupervised: { schedule: 'mix', pairs: { maxPairs: 40 } } });
    // a fine-tuned "corpus mix" checkpoint recorded for another training split: refused with both hashes
    saveCheckpoint(dirOf({ scorer: 'cosine-ft-corpus-mix' }), {
      kind: 'finetune-use-lite', config: {}, seed: 42, backend: 'wasm', dataHash: 'x', trainingData: { ...benchmarkTrainingData(bench), hash: 'another-split' },
      tensors: { w: { shape: [1], data: new Float32Array([0]) } },
    });
    const some = await loadSelfSupervisedScorers(common);
    assert.equal(some.found.map((f) => [f.spec.scorer, f.scorer.id, f.scorer.label]), [['nnssc-corpus-mix', 'nnssc-corpus-mix', 'NN-SSC (corpus mix)']]);
    const scored = await retrieveBatch(some.found[0].scorer, [{ id: 'q', text: 'sea surface temperature' }], corpus);
    assert.is(scored.scores[0].length, corpus.datasets.length);
    some.found.forEach((f) => f.dispose());
    const ft = some.missing.find((m) => m.spec.scorer === 'cosine-ft-corpus-mix')!;
    assert.match(ft.why, /another-split/);
    assert.ok(ft.why.includes(benchmarkTrainingData(bench).hash), ft.why);
    const note2 = selfSupervisedNote({ ...some, sample: true });
    assert.match(note2, /Scored here from their checkpoints: \*NN-SSC \(corpus mix\)\*/);
    assert.ok(note2.includes('`node bench/self-supervised.cjs --sample --variants pretrain`'), note2);
    assert.ok(note2.includes('`node bench/self-supervised.cjs --sample --scorer finetune --variants mix`'), note2);
    assert.not.ok(note2.includes('`node bench/self-supervised.cjs --sample --variants mix`'), 'the found NN-SSC (corpus mix) is not listed as untrained');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('bench/self-supervised.cjs --combine: NN-SSC and fine-tuned files joined, each row paired with its plain row', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-ssl-combine-'));
  try {
    const queryIds = ['q1', 'q2', 'q3', 'q4'];
    const pq = (seed: number) => ({ queryIds, values: Object.fromEntries(['R@10', 'R@20', 'R@100', 'MAP', 'MRR'].map((m, k) => [m, queryIds.map((_, i) => ((seed * 7 + i * 3 + k) % 10) / 10)])) }) as PerQueryMetrics;
    const part = (scorer: string | undefined, systems: [string, string, number][]) => ({
      scorer, corpus: 'c', trainingData: 't', machine: {},
      variants: { plain: { bestValScore: 0.3, trainingSeconds: 1, alpha: { analytic: 0.4, grid: 0.5 } }, mix: { bestValScore: 0.35, trainingSeconds: 1, alpha: { analytic: 0.4, grid: 0.5 } } },
      test: { queries: 4, systems: systems.map(([id, label, seed]) => ({ id, label, pq: pq(seed) })) },
    });
    // the NN-SSC file in the bench's former ids (nnssc-mix, +bm25-analytic), the encoder file in notebook 05's
    const a = part(undefined, [['bm25', 'BM25', 1], ['nnssc', 'NN-SSC', 2], ['nnssc-mix', 'NN-SSC (corpus mix)', 3], ['nnssc+bm25-analytic', 'NN-SSC + BM25 (analytic α)', 4], ['nnssc-mix+bm25-analytic', 'NN-SSC (corpus mix) + BM25 (analytic α)', 5]]);
    const b = part('finetune', [['bm25', 'BM25', 1], ['cosine-ft', 'Cosine (fine-tuned)', 6], ['cosine-ft-corpus-mix', 'Cosine (fine-tuned, corpus mix)', 7], ['cosine-ft+bm25-grid', 'Cosine (fine-tuned) + BM25 (grid α)', 8], ['cosine-ft-corpus-mix+bm25-grid', 'Cosine (fine-tuned, corpus mix) + BM25 (grid α)', 9]]);
    fs.writeFileSync(path.join(root, 'a.json'), JSON.stringify(a));
    fs.writeFileSync(path.join(root, 'b.json'), JSON.stringify(b));
    const out = path.join(root, 'out.json');
    const repo = path.resolve(__dirname, '..');
    const r = spawnSync(process.execPath, [path.join(repo, 'bench', 'self-supervised.cjs'), '--combine', `${path.join(root, 'a.json')},${path.join(root, 'b.json')}`, '--out', out], { cwd: repo, encoding: 'utf8', timeout: 120_000 });
    assert.is(r.status, 0, `exit ${r.status}: ${r.stderr?.slice(-2000)}`);
    const j = JSON.parse(fs.readFileSync(out, 'utf8'));
    const rows: { id: string; vs?: { system: string; cmp: { metric: string; delta: number }[] } }[] = j.test.rows;
    assert.equal(rows.map((x) => [x.id, x.vs?.system ?? null]), [
      ['bm25', null], ['nnssc', null], ['nnssc-corpus-mix', 'nnssc'], ['nnssc+bm25', null], ['nnssc-corpus-mix+bm25', 'nnssc+bm25'],
      ['cosine-ft', null], ['cosine-ft-corpus-mix', 'cosine-ft'], ['cosine-ft+bm25-grid', null], ['cosine-ft-corpus-mix+bm25-grid', 'cosine-ft+bm25-grid'],
    ]);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const d = rows.find((x) => x.id === 'cosine-ft-corpus-mix')!.vs!.cmp.find((c) => c.metric === 'MAP')!.delta;
    assert.ok(Math.abs(d - (mean(pq(7).values.MAP) - mean(pq(6).values.MAP))) < 1e-12);
    assert.equal(Object.keys(j.variants).sort(), ['finetune:mix', 'finetune:plain', 'nnssc:mix', 'nnssc:plain']);
    assert.equal(j.chosenOnValidation, { nnssc: 'mix', finetune: 'mix' });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test.run();
