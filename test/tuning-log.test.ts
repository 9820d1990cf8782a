// The tuning log (lib/bench/tuning-log.ts): every configuration tried on the style benchmark's dev half, appended
// atomically and checked on read; the committed log (bench/tuning-log.json) holds the searches behind today's defaults,
// and the configuration each search chose is the default.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendTuningLog, markBestChosen, readTuningLog, tuningLogSummary, type TuningLogEntry } from '../lib/bench/tuning-log';
import { BM25_STOP_DEFAULTS } from '../lib/retrieve/bm25-stop';
import { DEFAULT_RANKING } from '../lib/search/default-ranking';
import { LEARNED_RERANK_SETTINGS } from '../lib/search/learned-rerank';
import { DEFAULT_STATIC_TRAIN_CONFIG } from '../lib/train/static';
import { chooseStaticSettings, DEFAULT_STATIC_ENCODER_SETTINGS, STATIC_SETTINGS_BUDGET, STATIC_SETTINGS_SEEDS, STATIC_SETTINGS_TIE, staticSettingsCandidates } from '../lib/train/static-artefact';
import { STATIC_PAIR_SOURCES, STATIC_QUERY_SOURCES } from '../lib/train/static-pairs';
import { staticTokenizer, type StaticTokenizer } from '../lib/encode/static';
import { throwsWith } from './helpers/data';

function entry(over: Partial<TuningLogEntry> = {}): TuningLogEntry {
  return {
    system: 'bm25-stop', benchmark: 'eo-styles', half: 'dev', queries: 10, settings: { k1: 1.2 }, scores: { 'nDCG@10': 0.5 },
    script: 'bench/x.cjs', date: '2026-12-04T00:00:00.000Z', commit: null, run: 'r1', ...over,
  };
}

test('tuning log: appended atomically, read back checked; a test half, a second chosen entry or a bad field is refused by name', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-tuning-log-'));
  try {
    const file = path.join(dir, 'log.json');
    assert.is(readTuningLog(file).entries.length, 0);
    assert.is(appendTuningLog([entry(), entry({ settings: { k1: 2 }, chosen: true })], file), 2);
    assert.is(appendTuningLog([entry({ run: 'r2', system: 'other' })], file), 3);
    const log = readTuningLog(file);
    assert.equal(log.entries.map((e) => e.settings.k1 ?? null), [1.2, 2, 1.2]);
    assert.equal(tuningLogSummary(log, ['bm25-stop']).bySystem, { 'bm25-stop': 2 });
    assert.ok(!fs.readdirSync(dir).some((f) => f.endsWith('.tmp')));
    // the best of a run is marked, ties to the earlier entry
    const run = [entry({ scores: { m: 0.2 } }), entry({ scores: { m: 0.5 } }), entry({ scores: { m: 0.5 } })];
    assert.is(markBestChosen(run, 'm'), 1);
    assert.equal(run.map((e) => e.chosen ?? false), [false, true, false]);
    assert.match(run[1].note!, /best m over all 10 dev queries of 3 configurations/);
    throwsWith(() => markBestChosen([entry()], 'nope'), 'INVALID_ARGUMENT', /no score "nope"/);
    throwsWith(() => appendTuningLog([entry({ half: 'test' as never })], file), 'DATA_INVALID', /new entry 0\.half: must be "dev"/);
    throwsWith(() => appendTuningLog([entry({ scores: { 'nDCG@10': NaN } })], file), 'DATA_INVALID', /scores\.nDCG@10: must be a finite number/);
    throwsWith(() => appendTuningLog([entry({ chosen: true }), entry({ chosen: true, settings: { k1: 3 } })], file), 'DATA_INVALID', /run r1 marks/);
    assert.is(readTuningLog(file).entries.length, 3, 'a refused append writes nothing');
    fs.writeFileSync(file, '{"version":1,"entries":[{"system":"x"}]}');
    throwsWith(() => readTuningLog(file), 'DATA_INVALID', /log\.json entries\[0\]\.benchmark/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the committed tuning log holds the bm25-stop grid tried on dev, and its chosen configuration is BM25_STOP_DEFAULTS', () => {
  const log = readTuningLog();
  const tried = log.entries.filter((e) => e.system === 'bm25-stop');
  assert.ok(tried.length >= 100, `${tried.length} bm25-stop configurations logged`);
  assert.ok(tried.every((e) => e.half === 'dev' && e.benchmark === 'eo-styles'));
  const chosen = tried.filter((e) => e.chosen);
  const last = chosen[chosen.length - 1];
  assert.ok(last, 'a chosen configuration');
  const { k1, b, fieldWeights, stem } = BM25_STOP_DEFAULTS;
  assert.equal(last.settings, { k1, b, fieldWeights: { ...fieldWeights }, stem });
  // it is the best of its run on the logged score
  const run = tried.filter((e) => e.run === last.run);
  assert.ok(run.every((e) => e.scores['nDCG@10'] <= last.scores['nDCG@10'] + 1e-12));
});


test('the searches behind the default ranking are logged, and each chose today\'s default', () => {
  const log = readTuningLog();
  const lastChosen = (system: string) => {
    const chosen = log.entries.filter((e) => e.system === system && e.chosen);
    return chosen[chosen.length - 1];
  };
  // the adaptive α's start and pull were searched alone on NN-SSC (3 × 3), then with the semantic half (2 × 3 × 3)
  const adaptive = lastChosen('adaptive-fusion');
  assert.ok(adaptive && log.entries.filter((e) => e.run === adaptive.run).length === 9, 'the 3 × 3 adaptive grid');
  const semantic = lastChosen('default-semantic');
  assert.ok(semantic && log.entries.filter((e) => e.run === semantic.run).length === 18, 'the 2 × 3 × 3 semantic grid');
  assert.equal([semantic.settings.semantic, semantic.settings.l2], [DEFAULT_RANKING.semantic, DEFAULT_RANKING.adaptive.l2]);
  // then the static half's feedback (its own seeds or the lexical half's) with the start α searched again (4 × 4)
  const prf = lastChosen('default-static-prf');
  assert.ok(prf && log.entries.filter((e) => e.run === prf.run).length === 16, 'the 4 × 4 feedback grid');
  assert.equal(prf.settings, { prf: { ...DEFAULT_RANKING.staticPrf }, startAlpha: DEFAULT_RANKING.adaptive.startAlpha, l2: DEFAULT_RANKING.adaptive.l2 });
  // the learned reranker: its chosen dev configuration is what notebook 05 trains (reported as a row, not the default)
  const rerank = lastChosen('learned-rerank');
  assert.ok(rerank && rerank.settings.reranker === 'learned' && rerank.settings.training === 'dev-cv+held-out', JSON.stringify(rerank?.settings));
  assert.equal([rerank.settings.l2, rerank.settings.epochs, rerank.settings.features], [LEARNED_RERANK_SETTINGS.l2, LEARNED_RERANK_SETTINGS.epochs, 'all']);
  assert.equal([rerank.settings.heldOutPerStyle, rerank.settings.heldOutSeed], [LEARNED_RERANK_SETTINGS.heldOutPerStyle, LEARNED_RERANK_SETTINGS.heldOutSeed]);
  const window = lastChosen('identifier-window');
  assert.ok(window && log.entries.filter((e) => e.run === window.run).length >= 3);
  assert.is(window.settings.window, DEFAULT_RANKING.identifiers.window);
  const lexical = lastChosen('default-lexical');
  assert.ok(lexical);
  assert.is(lexical.settings.lexical, DEFAULT_RANKING.lexical);
  for (const e of log.entries) assert.is(e.half, 'dev');
});

test('staticSettingsCandidates groups a configuration\'s seeds; chooseStaticSettings takes the best mean, or a cheaper one within the tie', () => {
  const entry = (settings: Record<string, unknown>, nDCG: number, trainSeconds: number, extra: Record<string, unknown> = {}): TuningLogEntry => ({
    system: 'static-encoder', benchmark: 'eo-styles', half: 'dev', queries: 3, settings: { devLabelsOut: true, dims: [8, 4], ...settings, ...extra },
    scores: { 'nDCG@10': nDCG, 'question/nDCG@10': nDCG / 2, trainSeconds }, script: 'x', date: 'd', commit: null, run: 'r',
  });
  const three = (settings: Record<string, unknown>, scores: number[], seconds: number) => scores.map((s, i) => entry(settings, s, seconds, i ? { seed: STATIC_SETTINGS_SEEDS[i] } : {}));
  const entries = [
    ...three({ batchSize: 512 }, [0.60, 0.50, 0.52], 10), // mean .54, seed 42 alone would win
    ...three({ batchSize: 1024 }, [0.56, 0.56, 0.56], 20), // mean .56
    ...three({ batchSize: 2048 }, [0.565, 0.56, 0.565], 40), // mean .5633: best, but .56 is within the tie at half the time
    entry({ batchSize: 4096 }, 0.9, 50), // one seed only: history, not a candidate
    entry({ batchSize: 1024 }, 0.9, 0, { seeds: [...STATIC_SETTINGS_SEEDS], ensemble: 'mean cosine' }), // the bench's mean of seeds' models: not a configuration
    ...three({ batchSize: 1024, members: 3 }, [0.58, 0.58, 0.58], 60), // the library's ensemble (three models per seed): one
    ...three({ batchSize: 512, devLabelsOut: false }, [0.9, 0.9, 0.9], 1), // dev labels kept in the pairs
    ...three({ batchSize: 1024, members: 3, merge: 'procrustes' }, [0.9, 0.9, 0.9], 60), // the bench's members merged into one table: not a configuration
  ];
  const candidates = staticSettingsCandidates(entries);
  assert.equal(candidates.map((c) => [c.settings.batchSize, c.settings.members ?? 1]), [[512, 1], [1024, 1], [2048, 1], [1024, 3]]);
  assert.ok(Math.abs(candidates[0].nDCG - 0.54) < 1e-9 && Math.abs(candidates[0].question - 0.27) < 1e-9);
  // the stacked models read .58, beyond the tie of the best one model (.5633), at 1.5 times its time
  assert.equal(chooseStaticSettings(candidates)!.settings.members, 3);
  assert.is(chooseStaticSettings(candidates.filter((c) => c.settings.members === undefined))!.settings.batchSize, 1024);
  // beyond the tie the best mean wins whatever its time
  const wide = staticSettingsCandidates([...entries, ...three({ batchSize: 3000 }, [0.6, 0.6, 0.6], 100)]);
  assert.is(chooseStaticSettings(wide)!.settings.batchSize, 3000);
  assert.is(chooseStaticSettings([]), null);
  // a candidate that trains past the budget is none, however well it reads
  const slow = STATIC_SETTINGS_BUDGET.trainSeconds + 1;
  assert.is(chooseStaticSettings(staticSettingsCandidates([...entries, ...three({ batchSize: 3000 }, [0.7, 0.7, 0.7], slow)]))!.settings.members, 3);
  assert.is(chooseStaticSettings(staticSettingsCandidates(three({ batchSize: 3000 }, [0.7, 0.7, 0.7], slow))), null);
});

test('the static encoder\'s settings are the configuration its dev searches chose over three seeds, dev labels left out', () => {
  // candidates: the configurations logged for every seed of STATIC_SETTINGS_SEEDS with the dev labels left out of the
  // pairs (the searches before kept them in: dev flattered the model) on the Matryoshka prefixes (each prefix usable
  // alone; `--prefixes full` runs are logged, not candidates); scored by the seeds' mean, the tie rule preferring a
  // cheaper one (chooseStaticSettings)
  const candidates = staticSettingsCandidates(readTuningLog().entries);
  assert.ok(candidates.length >= 5, `${candidates.length} static-encoder configurations logged over seeds ${STATIC_SETTINGS_SEEDS.join(', ')}`);
  for (const c of candidates) assert.equal(c.entries.map((e) => (e.settings.seed as number | undefined) ?? DEFAULT_STATIC_TRAIN_CONFIG.seed), [...STATIC_SETTINGS_SEEDS]);
  const chosen = chooseStaticSettings(candidates)!;
  assert.ok(chosen.trainSeconds <= STATIC_SETTINGS_BUDGET.trainSeconds, `the chosen trains in ${chosen.trainSeconds} s`);
  // no candidate within the budget is better by more than the tie, and one that is better at all trains in more than
  // timeRatio of the time
  for (const c of candidates.filter((x) => x.trainSeconds <= STATIC_SETTINGS_BUDGET.trainSeconds)) {
    assert.ok(c.nDCG <= chosen.nDCG + STATIC_SETTINGS_TIE.nDCG + 1e-12, `${JSON.stringify(c.settings)} reads ${c.nDCG} against the chosen ${chosen.nDCG}`);
    if (c.nDCG > chosen.nDCG + 1e-12) assert.ok(chosen.trainSeconds <= STATIC_SETTINGS_TIE.timeRatio * c.trainSeconds, 'a better candidate is preferred unless the chosen one is cheaper');
  }
  const best = chosen;
  const train = { ...DEFAULT_STATIC_TRAIN_CONFIG, ...DEFAULT_STATIC_ENCODER_SETTINGS.train };
  for (const k of ['epochs', 'learningRate', 'dim', 'batchSize', 'maxTokens', 'initScale'] as const) assert.is(best.settings[k], train[k], k);
  assert.equal(best.settings.dims, train.dims, 'dims');
  assert.is(best.settings.schedule ?? 'constant', train.schedule ?? 'constant', 'schedule');
  assert.is(best.settings.kernel ?? 'js', train.kernel ?? 'js', 'kernel');
  assert.is(best.settings.members ?? 1, train.members ?? 1, 'models stacked per seed');
  // entries logged before the temperature was a tuning flag trained at the trainer's default
  assert.is(best.settings.temperature ?? DEFAULT_STATIC_TRAIN_CONFIG.temperature, train.temperature, 'temperature');
  const sources = (DEFAULT_STATIC_ENCODER_SETTINGS.pairs.sources ?? STATIC_PAIR_SOURCES).join(',');
  const logged = { all: STATIC_PAIR_SOURCES.join(','), 'no-gcmd-keyword': STATIC_PAIR_SOURCES.filter((x) => x !== 'gcmd-keyword').join(',') }[String(best.settings.sources)];
  assert.is(logged, sources, 'the pair sources');
  assert.is(best.settings.exclusionScope, DEFAULT_STATIC_ENCODER_SETTINGS.pairs.exclusionScope);
  assert.is(best.settings.sentencesPerRecord, DEFAULT_STATIC_ENCODER_SETTINGS.pairs.sentencesPerRecord);
  // the pair sources given a BM25-mined hard negative, as the bench names its sets, and how many near misses it passes over
  const hard = best.settings.hardNegatives as { sources: string; skip: number } | undefined;
  const hardSets: Record<string, string[]> = { queries: [...STATIC_QUERY_SOURCES], 'queries+sentences': [...STATIC_QUERY_SOURCES, 'sentence', 'keywords'], all: [...STATIC_PAIR_SOURCES] };
  assert.equal(hard ? hardSets[hard.sources] : [], DEFAULT_STATIC_ENCODER_SETTINGS.pairs.hardNegativeSources ?? [], 'the pair sources with a hard negative');
  assert.is(hard?.skip ?? 0, DEFAULT_STATIC_ENCODER_SETTINGS.pairs.hardNegativeSkip ?? 0, 'the near misses passed over');
  assert.is(best.settings.init ?? 'random', 'random');
  const vocab = best.settings.vocab as { minCount: number; tokenizer?: Partial<StaticTokenizer>; pooling?: string };
  assert.is(vocab.minCount, DEFAULT_STATIC_ENCODER_SETTINGS.vocab.minCount);
  assert.is(vocab.pooling ?? 'idf', DEFAULT_STATIC_ENCODER_SETTINGS.vocab.pooling);
  assert.equal(staticTokenizer(vocab.tokenizer), staticTokenizer(DEFAULT_STATIC_ENCODER_SETTINGS.vocab.tokenizer));
});

test.run();
