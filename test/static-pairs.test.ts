// The static encoder's training pairs (lib/train/static-pairs.ts) and the GCMD vocabularies they read
// (lib/data/gcmd.ts): every source yields pairs, nothing comes from the test split or from a dataset a test query of
// either benchmark labels, the same options give the same pairs, and bad input is named.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { benchmarkSettings, benchmarkSplit, buildBenchmark } from '../lib/bench';
import { readGcmdInstruments, readGcmdPlatforms, readGcmdScienceKeywords } from '../lib/data/gcmd';
import { loadSnapshot } from '../lib/data/snapshot';
import { staticDocumentText, staticTitle } from '../lib/encode/static';
import { nnsscStyleExcludedRows } from '../lib/train/artefacts';
import { bm25NearMiss, STATIC_PAIR_SOURCES, STATIC_QUERY_SOURCES, staticTrainingPairs } from '../lib/train/static-pairs';
import { bm25StopScores, buildBm25Stop } from '../lib/retrieve/bm25-stop';
import { throwsWith } from './helpers/data';

test('GCMD vocabularies: instruments and platforms by short name with their hierarchy (ragged rows too), keyword paths', () => {
  const instruments = readGcmdInstruments();
  const modis = instruments.get('MODIS')!;
  assert.match(modis.longName, /Moderate.Resolution Imaging Spectroradiometer/i);
  assert.ok(modis.path.length >= 3, modis.path.join(' > '));
  const calipso = instruments.get('CALIOP');
  assert.ok(calipso && /lidar/i.test(calipso.path.join(' ')), JSON.stringify(calipso));
  const platforms = readGcmdPlatforms();
  assert.ok(platforms.size > 500 && platforms.get('TERRA') !== undefined);
  const paths = readGcmdScienceKeywords();
  assert.ok(paths.length > 3000);
  assert.ok(paths.some((p) => p.join(' > ') === 'ATMOSPHERE > AEROSOLS > AEROSOL OPTICAL DEPTH/THICKNESS'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-gcmd-'));
  try {
    throwsWith(() => readGcmdInstruments(dir), 'DATA_NOT_FOUND', /gcmd-instruments\.csv/);
    fs.writeFileSync(path.join(dir, 'gcmd-platforms.csv'), '"Keyword Version: x"\nCategory,Series_Entity,Short_Name,Long_Name,UUID\n"A","B"\n');
    throwsWith(() => readGcmdPlatforms(dir), 'DATA_INVALID', /gcmd-platforms\.csv:3: 2 fields, the header has 5/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('pairs from every source, none from the test split or a test-labelled dataset; deterministic', async () => {
  const corpus = loadSnapshot({ sample: true });
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const a = staticTrainingPairs(corpus, bench);
  for (const s of ['title-abstract', 'keywords', 'sentence', 'gcmd-keyword', 'style-queries', 'train-split']) assert.ok(a.counts[s] > 0, `${s}: ${a.counts[s]}`);
  assert.is(a.pairs.length, Object.values(a.counts).reduce((x, y) => x + y, 0));
  assert.equal(staticTrainingPairs(corpus, bench), a);
  // the split's queries come from the training split only (a title shared by a test publication is the benchmark's
  // own near-duplicate, which its leakage audit reports; the test split itself is never read)
  const norm = (t: string) => t.replace(/\s+/g, ' ').trim(); // the pairs' texts are space-normalised
  const trainTexts = new Set(benchmarkSplit(bench, 'train').queries.map((q) => norm(q.text)));
  const fromTrain = a.pairs.filter((x) => x.source === 'train-split');
  assert.ok(fromTrain.length > 0 && fromTrain.every((p) => trainTexts.has(p.query)));
  const testOnly = benchmarkSplit(bench, 'test').queries.map((q) => norm(q.text)).filter((t) => !trainTexts.has(t));
  const queries = new Set(a.pairs.map((p) => p.query));
  assert.ok(testOnly.length > 0 && testOnly.every((t) => !queries.has(t)));
  // no document of a dataset that a test query of either benchmark labels (unless another dataset has the same text)
  const excluded = nnsscStyleExcludedRows(corpus, bench).rows;
  assert.is(a.excludedRows, excluded.size);
  assert.ok(excluded.size > 0);
  const keptDocs = new Set(corpus.datasets.filter((_, r) => !excluded.has(r)).map((d) => staticDocumentText(d)));
  for (const p of a.pairs.filter((x) => ['gcmd-keyword', 'style-queries', 'train-split', 'gcmd-instrument', 'gcmd-platform'].includes(x.source))) assert.ok(keptDocs.has(p.doc), `${p.source}: ${p.doc.slice(0, 80)}`);
  const excludedTitles = corpus.datasets.filter((_, r) => excluded.has(r)).map((d) => `${d.shortName ?? ''} ${d.longName}`.trim());
  const keptTitles = new Set(corpus.datasets.filter((_, r) => !excluded.has(r)).map((d) => `${d.shortName ?? ''} ${d.longName}`.trim()));
  const titleQueries = new Set(a.pairs.filter((x) => x.source === 'title-abstract').map((x) => x.query));
  for (const t of excludedTitles) if (!keptTitles.has(t)) assert.not.ok(titleQueries.has(t.replace(/\s+/g, ' ')), t);
  // without the exclusion there are more pairs
  const all = staticTrainingPairs(corpus, bench, { excludeTestLabels: false });
  assert.ok(all.pairs.length > a.pairs.length);
  // a cap per source samples down, seeded
  const capped = staticTrainingPairs(corpus, bench, { maxPerSource: 20 });
  assert.ok(Object.values(capped.counts).every((n) => n <= 20));
  assert.equal(staticTrainingPairs(corpus, bench, { maxPerSource: 20 }), capped);
  throwsWith(() => staticTrainingPairs(corpus, bench, { sources: ['nope' as never] }), 'CONFIG', /unknown source "nope"/);
  throwsWith(() => staticTrainingPairs(corpus, null), 'INVALID_ARGUMENT', /need the benchmark/);
  assert.ok(staticTrainingPairs(corpus, null, { excludeTestLabels: false, sources: ['title-abstract'] }).pairs.length > 0);
  assert.equal(STATIC_PAIR_SOURCES.length, 9);
});

test('exclusion scope: generated queries leave test-labelled datasets out, a record\'s own fields cover every dataset; more ids can be left out', async () => {
  const corpus = loadSnapshot({ sample: true });
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const excluded = nnsscStyleExcludedRows(corpus, bench).rows;
  const every = staticTrainingPairs(corpus, bench);
  const scoped = staticTrainingPairs(corpus, bench, { exclusionScope: 'generated-queries' });
  const all = staticTrainingPairs(corpus, bench, { excludeTestLabels: false });
  // the record's own fields: as many pairs as with no exclusion at all, more than with every source filtered
  for (const s of ['title-abstract', 'keywords', 'sentence', 'gcmd-keyword']) {
    assert.is(scoped.counts[s], all.counts[s], s);
    assert.ok(scoped.counts[s] >= every.counts[s], s);
  }
  assert.ok(scoped.counts['title-abstract'] > every.counts['title-abstract']);
  // the query-side sources stay as filtered as before, and none of their documents is a test-labelled dataset's
  for (const s of STATIC_QUERY_SOURCES) assert.is(scoped.counts[s], every.counts[s], s);
  const keptDocs = new Set(corpus.datasets.filter((_, r) => !excluded.has(r)).map((d) => staticDocumentText(d)));
  for (const p of scoped.pairs.filter((x) => x.source === 'style-queries' || x.source === 'train-split')) assert.ok(keptDocs.has(p.doc), `${p.source}: ${p.doc.slice(0, 80)}`);
  const excludedShortNames = new Set(corpus.datasets.filter((d, r) => excluded.has(r) && d.shortName).map((d) => d.shortName!));
  const keptShortNames = new Set(corpus.datasets.filter((d, r) => !excluded.has(r) && d.shortName).map((d) => d.shortName!));
  for (const p of scoped.pairs.filter((x) => x.source === 'short-name')) assert.ok(keptShortNames.has(p.query) || !excludedShortNames.has(p.query), p.query);
  // more ids left out: fewer pairs in the query-side sources (all scopes), counted in excludedRows
  const kept = corpus.datasets.filter((_, r) => !excluded.has(r)).map((d) => d.id);
  const more = staticTrainingPairs(corpus, bench, { alsoExcludeIds: kept.slice(0, 40), exclusionScope: 'generated-queries' });
  assert.is(more.excludedRows, excluded.size + 40);
  assert.ok(more.pairs.length < scoped.pairs.length);
  assert.is(more.counts['title-abstract'], scoped.counts['title-abstract']);
  throwsWith(() => staticTrainingPairs(corpus, bench, { exclusionScope: 'some' as never }), 'CONFIG', /exclusionScope must be/);
});

test('BM25 near miss: the best-scoring non-answer, after skipping some; none when too few score', () => {
  const scores = Float32Array.from([0, 5, 9, 7, 7, 0.5, 0]);
  assert.is(bm25NearMiss(scores, [], 0), 2);
  assert.is(bm25NearMiss(scores, [2], 0), 3); // 3 and 4 tie: the lower row first
  assert.is(bm25NearMiss(scores, [2], 1), 4);
  assert.is(bm25NearMiss(scores, [2, 3], 2), 5);
  assert.is(bm25NearMiss(scores, [2, 3], 3), null); // rows 0 and 6 score 0: never a negative
});

test('hard negatives: the chosen sources get BM25\'s best non-answer as a negative, the others none; the pairs are otherwise unchanged', async () => {
  const corpus = loadSnapshot({ sample: true });
  const bench = await buildBenchmark(corpus, benchmarkSettings({ sample: true }));
  const plain = staticTrainingPairs(corpus, bench);
  assert.ok(plain.pairs.every((p) => p.negative === undefined));
  const mined = staticTrainingPairs(corpus, bench, { hardNegativeSources: ['title-abstract', 'train-split'] });
  assert.equal(mined.pairs.map((p) => [p.source, p.query, p.doc]), plain.pairs.map((p) => [p.source, p.query, p.doc]));
  assert.ok(mined.pairs.every((p) => p.negative === undefined || p.source === 'title-abstract' || p.source === 'train-split'));
  const titles = mined.pairs.filter((p) => p.source === 'title-abstract');
  assert.ok(titles.filter((p) => p.negative !== undefined).length > 0.9 * titles.length);
  // a title's negative is the document of the dataset BM25 ranks first for the title among all but the record's own
  const index = buildBm25Stop(corpus);
  const docs = corpus.datasets.map((d) => staticDocumentText(d, 80));
  const ownDoc = (d: (typeof corpus.datasets)[number]) => [d.keywords.join(', '), d.abstract.split(/\s+/).slice(0, 80).join(' ')].filter(Boolean).join(' | ');
  let checked = 0;
  for (const p of titles.slice(0, 40)) {
    const row = corpus.datasets.findIndex((d) => staticTitle(d).replace(/\s+/g, ' ').trim() === p.query && ownDoc(d) === p.doc);
    assert.ok(row >= 0, p.query);
    const expected = bm25NearMiss(bm25StopScores(index, p.query), [row], 0);
    assert.is(p.negative, expected === null ? undefined : docs[expected], p.query);
    assert.is.not(p.negative, docs[row]);
    checked += p.negative === undefined ? 0 : 1;
  }
  assert.ok(checked > 30, `${checked}`);
  // a train-split query's negative is none of its datasets
  const train = benchmarkSplit(bench, 'train');
  const byText = new Map(train.queries.map((q) => [q.text.replace(/\s+/g, ' ').trim(), q.id]));
  for (const p of mined.pairs.filter((x) => x.source === 'train-split' && x.negative !== undefined)) {
    const answers = [...(train.qrels.get(byText.get(p.query)!) ?? [])].filter(([, g]) => g > 0).map(([id]) => staticDocumentText(corpus.datasets[corpus.indexById.get(id)!], 80));
    assert.not.ok(answers.includes(p.negative!), p.query);
  }
  assert.equal(staticTrainingPairs(corpus, bench, { hardNegativeSources: ['title-abstract', 'train-split'] }), mined);
  assert.is.not(JSON.stringify(staticTrainingPairs(corpus, bench, { hardNegativeSources: ['title-abstract'], hardNegativeSkip: 2 }).pairs[0]), JSON.stringify(mined.pairs[0]));
  throwsWith(() => staticTrainingPairs(corpus, bench, { hardNegativeSources: ['x' as never] }), 'CONFIG', /unknown source "x"/);
  throwsWith(() => staticTrainingPairs(corpus, bench, { hardNegativeSkip: -1 }), 'CONFIG', /hardNegativeSkip must be/);
});

test.run();
