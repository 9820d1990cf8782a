#!/usr/bin/env node
// More training signal from the corpus (issue 11 item 4): a learned scorer trained plain (the paper's recipe) vs with the
// corpus self-supervised pairs (`corpusSelfSupervisedPairs`: dataset titles, short names, abstract sentences and
// keyword phrases as queries for their datasets; no publication involved), all with the same seed and config, in one run.
//   --scorer nnssc (default): NN-SSC plain vs pre-trained on the corpus pairs first (`pretrain`) or mixed in (`mix`);
//   --scorer finetune: the fine-tuned encoder (MNRL, notebook 03's config and seed) plain vs corpus pairs mixed into its
//     training pool (`mix`), the corpus re-embedded by each encoder (cached by encoder id under checkpoints/embeddings;
//     EO_USE_LITE_RUNTIME=onnx embeds on onnxruntime, a cache hit keeps whichever runtime wrote it: the JSON records it;
//     --embed-cache DIR embeds into another cache folder, e.g. to embed the plain encoder's corpus on onnxruntime too).
// Which schedule is better is decided on the VALIDATION split (held-out training publications) — never on the test
// split. Then the test split: the scorer alone and + BM25 (analytic α, Eq. 7, and grid α, both set on the training
// split via `studyHybrid`/`fusionAlpha`, as notebook 05), each self-supervised row against its plain counterpart with a
// paired bootstrap CI and randomization p (10,000, seed 42). Checkpoints go to their default folders
// (checkpoints/nnssc/use-lite-<benchmark>[-corpus-<schedule>], checkpoints/finetune/use-lite-mnrl[-sample][-corpus-mix],
// where notebook 05 finds them) and are reused when they match; --retrain trains again.
// On a loaded 2-core machine the variants can be trained in parallel processes (`--variants pretrain --out a.json`, …)
// and their tables joined afterwards (`--combine a.json,b.json,c.json`, NN-SSC and fine-tuned files alike): the JSON keeps
// every row's per-query test metrics, so the paired tests of the joined table are the same as one run's.
//   node bench/self-supervised.cjs [--sample] [--scorer nnssc|finetune] [--variants plain,pretrain,mix] [--max-pairs 2048]
//        [--pretrain-epochs 3] [--max-epochs N] [--retrain] [--embed-cache DIR] [--out bench/out/self-supervised[-encoder][-sample].json]
//   node bench/self-supervised.cjs --combine bench/out/a.json,bench/out/b.json [--out bench/out/self-supervised.json]
//   (--help lists the flags)
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { benchArgs } = require('./lib/args.cjs');
const { printHeader } = require('./lib/header.cjs');
const { loadTrainingInputs } = require('./lib/common.cjs');

const args = benchArgs({
  script: __filename,
  measures: 'a learned scorer (NN-SSC or the fine-tuned encoder) trained plain vs with the corpus self-supervised pairs: validation choice, test rows alone and + BM25, paired',
  flags: {
    sample: { type: 'boolean', help: 'the 200-dataset sample snapshot instead of the full one' },
    scorer: { type: 'string', default: 'nnssc', choices: ['nnssc', 'finetune'], help: 'which learned scorer is trained' },
    variants: { type: 'list', default: null, choices: ['plain', 'pretrain', 'mix'], defaultText: 'plain,pretrain,mix for nnssc; plain,mix for finetune', help: 'the schedules trained' },
    'max-pairs': { type: 'int', default: null, min: 1, defaultText: 'DEFAULT_CORPUS_PAIRS_OPTIONS.maxPairs', help: 'corpus pairs drawn' },
    'pretrain-epochs': { type: 'int', default: null, min: 1, defaultText: 'DEFAULT_NNSSC_SELF_SUPERVISED.epochs', help: 'pre-training epochs of the pretrain schedule' },
    'max-epochs': { type: 'int', default: null, min: 1, defaultText: 'DEFAULT_NNSSC_CONFIG.maxEpochs', help: 'NN-SSC: at most N epochs' },
    retrain: { type: 'boolean', help: 'train again even when a matching checkpoint exists' },
    'embed-cache': { type: 'string', default: null, placeholder: 'DIR', defaultText: 'defaultEmbeddingCacheDir()', help: "finetune: the cache folder of the fine-tuned encoders' corpus embeddings" },
    out: { type: 'string', default: null, placeholder: 'FILE', defaultText: 'bench/out/self-supervised[-encoder][-sample].json', help: 'where the JSON result is written' },
    combine: { type: 'list', default: null, placeholder: 'A.json,B.json', help: "join earlier runs' JSON files into one table instead of training" },
  },
});
const header = printHeader(args);
const eo = { ...require('../dist/lib'), ...require('../dist/lib/bench'), ...require('../dist/lib/data'), ...require('../dist/lib/encode'), ...require('../dist/lib/metrics'), ...require('../dist/lib/report'), ...require('../dist/lib/lessons'), ...require('../dist/lib/retrieve'), ...require('../dist/lib/search'), ...require('../dist/lib/study'), ...require('../dist/lib/store'), ...require('../dist/lib/train'), ...require('../dist/lib/util') };
const sample = args.sample;
const scorerKind = args.scorer;
const maxPairs = args.maxPairs ?? eo.DEFAULT_CORPUS_PAIRS_OPTIONS.maxPairs;
const pretrainEpochs = args.pretrainEpochs ?? eo.DEFAULT_NNSSC_SELF_SUPERVISED.epochs;
const maxEpochs = args.maxEpochs ?? undefined;
const METRICS = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'];
const PLAIN = { nnssc: { id: 'nnssc', label: 'NN-SSC' }, finetune: { id: 'cosine-ft', label: 'Cosine (fine-tuned)' } };
const SCHEDULES = { nnssc: ['pretrain', 'mix'], finetune: ['mix'] };

/** Run id and label of a variant (the ids of notebook 05's Table 2: `nnssc`, `nnssc-corpus-mix`, `cosine-ft-corpus-mix`). */
function variantScorer(kind, v) {
  if (v === 'plain') return PLAIN[kind];
  const spec = eo.SELF_SUPERVISED_SCORERS.find((s) => s.plain === PLAIN[kind].id && s.schedule === v);
  if (!spec) throw new Error(`unknown variant ${v} for --scorer ${kind} (plain, ${SCHEDULES[kind].join(', ')})`);
  return { id: spec.scorer, label: spec.label };
}

async function main() {
  if (args.combine !== null) return combine(args.combine);
  const variants = args.variants ?? ['plain', ...SCHEDULES[scorerKind]];
  variants.forEach((v) => variantScorer(scorerKind, v));
  const outFile = args.out ?? path.join(__dirname, 'out', `self-supervised${scorerKind === 'finetune' ? '-encoder' : ''}${sample ? '-sample' : ''}.json`);
  const t0 = performance.now();
  const load = os.loadavg();
  const { corpus, bench, train, test, encoder, texts, matrix } = await loadTrainingInputs(eo, { sample });
  const splits = { train, test };
  const ctx = { corpus, bench, splits, encoder, matrix, texts };
  const trainVariant = scorerKind === 'nnssc' ? trainNnsscVariant : trainFinetuneVariant;
  const config = scorerKind === 'nnssc' ? { ...eo.DEFAULT_NNSSC_CONFIG, ...(maxEpochs ? { maxEpochs } : {}) } : sample ? eo.TINY_FINETUNE_CONFIG : eo.CPU_FINETUNE_CONFIG;
  console.log(`${train.queries.length} train / ${test.queries.length} test queries over ${corpus.datasets.length} datasets; ${scorerKind} seed ${config.seed}; load average ${load.map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);

  const bm25 = eo.bm25Scorer(eo.loadOrBuildBm25(corpus), 'bm25', 'BM25');
  const bm25Scores = await eo.retrieveSplits(bm25, splits, corpus);
  const trained = {};
  for (const v of variants) {
    const t = performance.now();
    const { id, label } = variantScorer(scorerKind, v);
    const log = (l) => console.log(`[${v}] ${l}`);
    const r = await trainVariant(ctx, v, config, log);
    const scores = await eo.retrieveSplits(r.scorer, splits, corpus);
    const hybrid = await eo.studyHybrid({ corpus, splits, semantic: { scorer: r.scorer, scores }, lexical: { scorer: bm25, scores: bm25Scores }, log });
    r.dispose();
    trained[v] = { id, label, scores, hybrid, record: { ...r.record, alpha: { analytic: hybrid.analytic.alpha, grid: hybrid.grid.alpha }, seconds: (performance.now() - t) / 1000 } };
    log(`${r.line}; analytic α ${hybrid.analytic.alpha.toFixed(3)}, grid α ${hybrid.grid.alpha.toFixed(3)}`);
  }
  const records = Object.fromEntries(variants.map((v) => [v, trained[v].record]));
  const chosen = chooseOnValidation(records);

  // Test split rows: per-query metrics of every row (kept in the JSON for --combine)
  const systems = [{ id: 'bm25', label: 'BM25', pq: eo.evaluateRun(bm25Scores.test.run, test.qrels) }];
  for (const v of variants) systems.push({ id: trained[v].id, label: trained[v].label, variant: v, pq: eo.evaluateRun(trained[v].scores.test.run, test.qrels) });
  for (const how of ['analytic', 'grid'])
    for (const v of variants) {
      const h = trained[v].hybrid[how];
      systems.push({ id: eo.table2RowId({ scorer: trained[v].id, how }), label: `${trained[v].label} + BM25 (${how} α)`, variant: v, alpha: h.alpha, pq: eo.evaluateRun(h.test, test.qrels) });
    }
  const { rows, vsBm25 } = table(systems, test.queries.length);

  writeJson(outFile, {
    created: new Date().toISOString(), header, sample, scorer: scorerKind, corpus: corpus.hash, benchmark: bench.name, trainingData: bench.dataHash,
    machine: { cores: os.cpus().length, loadAverageAtStart: load, loadAverageAtEnd: os.loadavg(), useLiteRuntime: process.env.EO_USE_LITE_RUNTIME ?? 'tfjs' },
    config, variants: records, chosenOnValidation: chosen,
    test: { queries: test.queries.length, rows, nnsscVsBm25R100: vsBm25, systems: systems.map((x) => ({ ...x, pq: { queryIds: x.pq.queryIds, values: x.pq.values } })) },
    seconds: (performance.now() - t0) / 1000,
  });
  encoder.dispose();
}

/** NN-SSC of one variant (`loadOrTrainNnssc`, its default checkpoint folder) and its scorer. */
async function trainNnsscVariant({ corpus, bench, encoder, matrix }, v, config, log) {
  const settings = { plain: null, pretrain: { schedule: 'pretrain', epochs: pretrainEpochs, pairs: { maxPairs } }, mix: { schedule: 'mix', pairs: { maxPairs } } }[v];
  const nn = await eo.loadOrTrainNnssc({
    corpus, bench, encoder, corpusMatrix: matrix, config, selfSupervised: settings, mode: args.retrain ? 'retrain' : 'load-or-train', log,
    training: { onEpoch: (l) => log(`${l.phase === 'pretrain' ? 'pre-training ' : ''}epoch ${l.epoch}: train loss ${l.trainLoss.toFixed(4)}, val MAP ${l.valMAP?.toFixed(4)} MRR ${l.valMRR?.toFixed(4)}${l.best ? ' *' : ''} (${l.seconds.toFixed(0)} s)`) },
  });
  const { id, label } = variantScorer('nnssc', v);
  const scorer = eo.nnsscScorer(encoder, matrix, nn.model, { id, label, threads: 2 });
  const s = nn.summary;
  return {
    scorer, dispose: () => scorer.dispose(),
    line: `${nn.trained ? 'trained' : 'reused'} ${nn.dir}: best epoch ${s.bestEpoch} of ${s.curve.length} (${s.stoppedBecause}), validation ${config.valMetric} ${s.bestValScore?.toFixed(4) ?? 'n/a'}, training ${s.wallSeconds.toFixed(0)} s`,
    record: {
      selfSupervised: nn.selfSupervised, checkpoint: path.relative(process.cwd(), nn.dir), reused: !nn.trained, bestEpoch: s.bestEpoch, epochs: s.curve.length,
      stoppedBecause: s.stoppedBecause, validation: `NN-SSC ${config.valMetric} of the kept weights`, bestValScore: s.bestValScore, pretrainCurve: s.pretrainCurve, curve: s.curve,
      trainingSeconds: s.wallSeconds, pairs: nn.checkpoint.config.selfSupervisedPairs ?? null,
    },
  };
}

/** The fine-tuned encoder of one variant (`loadOrTrainFinetunedEncoder`, notebook 03's config), the corpus re-embedded by it, its cosine scorer. */
async function trainFinetuneVariant({ corpus, bench, encoder, matrix, texts }, v, config, log) {
  const ft = await eo.loadOrTrainFinetunedEncoder({
    corpus, bench, base: encoder, baseMatrix: matrix, config, selfSupervised: v === 'mix' ? { pairs: { maxPairs } } : null,
    dir: eo.defaultFinetuneDir(eo.finetuneCheckpointName(sample, v === 'mix' ? 'mix' : null)), mode: args.retrain ? 'retrain' : 'load-or-train', log,
    onStep: (s) => (s.step % 10 === 0 ? log(eo.finetuneStepLine(s)) : undefined), onValidation: (x) => log(eo.finetuneValidationLine(x)),
  });
  const te = performance.now();
  const cacheDir = args.embedCache ?? eo.defaultEmbeddingCacheDir();
  const ftMatrix = await eo.embedCorpusCached({ encoder: ft.encoder, key: corpus.hash, texts, workers: 2, waitForOther: true, cacheDir });
  const embedSeconds = (performance.now() - te) / 1000;
  const meta = JSON.parse(fs.readFileSync(eo.embeddingCachePaths(cacheDir, ft.encoder.id, corpus.hash, eo.hashTexts(texts)).meta, 'utf8'));
  const { id, label } = variantScorer('finetune', v);
  const scorer = eo.denseScorer(ft.encoder, ftMatrix, { id, label });
  const s = ft.summary;
  const last = s.validation[s.validation.length - 1];
  const manifest = eo.readCheckpointManifest(ft.dir);
  return {
    scorer, dispose: () => ft.encoder.dispose(),
    line: `${ft.trained ? 'trained' : 'reused'} ${ft.dir} (${ft.encoder.id}): ${s.steps.length} steps, ${s.pairsSeen} pairs, validation MRR ${last?.mrr.toFixed(4) ?? 'n/a'}, training ${s.wallSeconds.toFixed(0)} s; corpus embeddings (${meta.backend}) in ${embedSeconds.toFixed(0)} s`,
    record: {
      selfSupervised: manifest.config.selfSupervised ?? null, checkpoint: path.relative(process.cwd(), ft.dir), encoder: ft.encoder.id, reused: !ft.trained, steps: s.steps.length,
      stoppedBy: s.stoppedBy, validation: 'MRR in the pool of held-out training publications after the last step', bestValScore: last?.mrr ?? null, validationCurve: s.validation,
      trainingSeconds: s.wallSeconds, pairs: manifest.config.selfSupervisedPairs ?? null,
      corpusEmbeddings: { backend: meta.backend, created: meta.created, seconds: meta.seconds, cacheHit: embedSeconds < 5 },
    },
  };
}

/** The schedule with the best validation score (held-out TRAINING publications), never the test split; null without one. */
function chooseOnValidation(records) {
  const withVal = Object.keys(records).filter((v) => v !== 'plain' && records[v].bestValScore !== null && records[v].bestValScore !== undefined);
  if (!withVal.length) return null;
  const chosen = withVal.reduce((a, b) => (records[b].bestValScore > records[a].bestValScore ? b : a));
  const plainVal = records.plain?.bestValScore ?? null;
  console.log(`\nchosen on validation (${records[chosen].validation}): ${chosen} ${records[chosen].bestValScore.toFixed(4)} vs plain ${plainVal?.toFixed(4) ?? 'n/a'} → ${plainVal !== null && records[chosen].bestValScore > plainVal ? 'wins' : 'does not win'} on validation`);
  return chosen;
}

/** Atomic write (temp + rename). */
function writeJson(file, out) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  eo.writeFileAtomic(file, JSON.stringify(out, null, 2));
  console.log(`\nwritten ${path.relative(process.cwd(), file)}${out.seconds ? ` (${out.seconds.toFixed(0)} s)` : ''}; load average at end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
}

/**
 * The order of the test table: BM25, then per scorer family (NN-SSC, fine-tuned cosine) its single rows, analytic-α
 * hybrids, grid-α hybrids, plain before pretrain before mix.
 */
function rowOrder(id) {
  if (id === 'bm25') return [0, 0, 0];
  const plain = eo.selfSupervisedPlainId(id) ?? id;
  const family = plain.startsWith('cosine-ft') ? 2 : 1;
  const how = plain.endsWith('+bm25') ? 1 : plain.endsWith('+bm25-grid') ? 2 : 0;
  const variant = id.includes('-corpus-pretrain') ? 1 : id.includes('-corpus-mix') ? 2 : 0;
  return [family, how, variant];
}

/** The test table: each row, Δ vs its plain counterpart (`selfSupervisedPlainId`; paired bootstrap CI + randomization p, 10,000, seed 42). */
function table(systems, nQueries) {
  const byId = Object.fromEntries(systems.map((x) => [x.id, x]));
  const cmpOpts = { seed: 42, permutations: 10000, bootstrapSamples: 10000 };
  const cmp = (a, b) => { const x = rowOrder(a.id), y = rowOrder(b.id); return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; };
  const rows = [...systems].sort(cmp).map((x) => {
    const row = { id: x.id, ...eo.summarize(x.label, x.pq), ...(x.alpha !== undefined ? { alpha: x.alpha } : {}) };
    const base = eo.selfSupervisedPlainId(x.id);
    if (base && byId[base]) row.vs = { system: base, cmp: eo.compareSystems(x.pq, byId[base].pq, METRICS, cmpOpts).map((c) => ({ metric: c.metric, delta: c.meanDiff, ci: [c.ciLow, c.ciHigh], p: c.pValue })) };
    return row;
  });
  const f = (x) => x.toFixed(3).replace(/^0\./, '.').replace(/^-0\./, '-.');
  const sign = (x) => (x >= 0 ? '+' : '') + x.toFixed(3);
  console.log(`\ntest split: ${nQueries} queries; Δ vs the plain counterpart, bootstrap 95% CI and randomization p (10,000, seed 42)`);
  console.log(`${'row'.padEnd(52)} ${METRICS.map((m) => m.padStart(6)).join(' ')}   α      ΔMAP [CI] p                   ΔMRR [CI] p                   ΔR@100 [CI] p`);
  for (const r of rows) {
    const d = (m) => {
      const c = r.vs?.cmp.find((x) => x.metric === m);
      return c ? `${sign(c.delta)} [${sign(c.ci[0])}, ${sign(c.ci[1])}] ${c.p.toPrecision(2)}`.padEnd(30) : ''.padEnd(30);
    };
    console.log(`${r.system.padEnd(52)} ${METRICS.map((m) => f(r[m]).padStart(6)).join(' ')}   ${r.alpha !== undefined ? r.alpha.toFixed(3) : '  –  '}  ${d('MAP')}${d('MRR')}${d('R@100')}`);
  }
  // issue 11's goal for NN-SSC alone: reach BM25's R@100 (checked for the NN-SSC rows)
  const vsBm25 = {};
  for (const id of ['nnssc', 'nnssc-corpus-pretrain', 'nnssc-corpus-mix'].filter((i) => byId[i] && byId.bm25)) {
    const c = eo.compareSystems(byId[id].pq, byId.bm25.pq, ['R@100'], cmpOpts)[0];
    vsBm25[id] = c;
    console.log(`${byId[id].label} R@100 − BM25 R@100: ${sign(c.meanDiff)} [${sign(c.ciLow)}, ${sign(c.ciHigh)}] p ${c.pValue.toPrecision(2)} (goal: reach BM25's R@100: ${c.meanA >= c.meanB ? 'met' : 'NOT met'})`);
  }
  return { rows, vsBm25 };
}

/** Run ids of files written before the bench used notebook 05's ids (`nnssc-mix` → `nnssc-corpus-mix`, `…+bm25-analytic` → `…+bm25`). */
function currentId(id) {
  return id.replace(/^nnssc-(pretrain|mix)/, 'nnssc-corpus-$1').replace(/\+bm25-analytic$/, '+bm25');
}

/** Join the JSON of runs made in separate processes (same benchmark, same test queries) into one table. */
function combine(files) {
  const parts = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
  for (const p of parts) {
    if (!p.test.systems) throw new Error('a file without per-query systems (written by an older bench script): rerun that variant');
    if (p.corpus !== parts[0].corpus || p.trainingData !== parts[0].trainingData || p.test.queries !== parts[0].test.queries) throw new Error('the files come from different corpora or benchmarks');
  }
  const seen = new Set();
  const systems = parts.flatMap((p) => p.test.systems).map((x) => ({ ...x, id: currentId(x.id) })).filter((x) => !seen.has(x.id) && seen.add(x.id));
  // variants keyed by scorer family, so NN-SSC's and the fine-tuned encoder's "plain" and "mix" stay apart
  const variants = Object.assign({}, ...parts.map((p) => Object.fromEntries(Object.entries(p.variants).map(([v, x]) => [`${p.scorer ?? 'nnssc'}:${v}`, x]))));
  for (const [v, x] of Object.entries(variants)) console.log(`${v}: validation score ${x.bestValScore?.toFixed(4) ?? 'n/a'}, training ${x.trainingSeconds.toFixed(0)} s${x.reused ? ' (reused checkpoint)' : ''}; α analytic ${x.alpha.analytic.toFixed(3)}, grid ${x.alpha.grid.toFixed(3)}`);
  const chosen = Object.fromEntries([...new Set(parts.map((p) => p.scorer ?? 'nnssc'))].map((k) => [k, chooseOnValidation(Object.fromEntries(Object.entries(variants).filter(([v]) => v.startsWith(`${k}:`)).map(([v, x]) => [v.slice(k.length + 1), x])))]));
  const { rows, vsBm25 } = table(systems, parts[0].test.queries);
  const outFile = args.out ?? path.join(__dirname, 'out', 'self-supervised.json');
  writeJson(outFile, { created: new Date().toISOString(), header, combinedFrom: files, corpus: parts[0].corpus, benchmark: parts[0].benchmark, trainingData: parts[0].trainingData, machine: parts.map((p) => p.machine), variants, chosenOnValidation: chosen, test: { queries: parts[0].test.queries, rows, nnsscVsBm25R100: vsBm25, systems } });
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
