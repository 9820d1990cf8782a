import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { eoBenchToBenchmark, exportBenchmark, loadBenchmark } from '../lib/bench';
import { importEoBench, loadEoBench, formatEoBenchFieldMapping } from '../lib/data';
import { cmrFixtureCorpus, throwsWith } from './helpers/data';
import { parseFieldOverrides, runBenchCommand } from '../lib/cli/bench';
import { gcmdKeywordsFile } from '../lib/router/variables';

const FIX = path.join(__dirname, 'fixtures');
const IMP = path.join(FIX, 'eobench', 'import');
const KG = path.join(FIX, 'kg', 'apoc-export.jsonl');
const MERRA = 'C1276812863-GES_DISC';
const MLS = 'C1251101564-GES_DISC';
const MUR = 'C2036882064-POCLOUD';

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'eo-import-'));
}

const fixtureCorpus = cmrFixtureCorpus;

test('import guesses fields by name and content; unknown dataset ids are counted and shown, not dropped silently', () => {
  const { bench, mapping } = importEoBench(path.join(IMP, 'hf-export.json'));
  assert.equal(
    [mapping!.query.field, mapping!.query.how, mapping!.positives.field, mapping!.positives.how, mapping!.split.field, mapping!.id.field],
    ['question_text', 'content', 'relevant_datasets', 'name', 'subset', 'qid'],
  );
  assert.match(formatEoBenchFieldMapping(mapping!)[0], /^query {5}<- "question_text" \(by content: text of \d+\.\d words on average\)$/);
  assert.equal(bench.queries.map((q) => [q.id, q.split, q.positives]), [
    ['n1', 'train', [MERRA]],
    ['n2', 'test', [MLS, 'C9999999999-NOPE']],
    ['n3', 'val', [MUR]],
    ['n4', 'test', ['C0000000001-GONE']],
  ]);

  const corpus = fixtureCorpus();
  const { benchmark, report } = eoBenchToBenchmark(bench, corpus, { subsetSize: 10 });
  assert.equal(
    { queries: report.queries, kept: report.kept, unknown: report.unknownPositives, examples: report.unknownExamples.map((u) => [u.queryId, u.id]), dropped: report.droppedQueries, val: report.valAsTrain },
    { queries: 4, kept: 3, unknown: 2, examples: [['n2', 'C9999999999-NOPE'], ['n4', 'C0000000001-GONE']], dropped: ['n4'], val: 1 },
  );
  assert.equal(benchmark.queries.map((q) => [q.id, q.split]), [['n1', 'train'], ['n2', 'test'], ['n3', 'train']]);
  assert.equal(benchmark.labels.map((l) => [l.queryId, l.datasetId]), [['n1', MERRA], ['n2', MLS], ['n3', MUR]]);
  assert.equal(benchmark.testSubset, ['n2']);

  // The export is our layout: BEIR (read back by loadEoBench) + benchmark.json bound to the corpus.
  const dir = tmpDir();
  exportBenchmark(dir, benchmark, corpus);
  const back = loadEoBench(dir);
  assert.equal(back.queries.map((q) => [q.id, q.split, q.positives]).sort(), [['n1', 'train', [MERRA]], ['n2', 'test', [MLS]], ['n3', 'train', [MUR]]]);
  assert.is(loadBenchmark(path.join(dir, 'benchmark.json'), corpus).queries.length, 3);
});

test('import: a wrong guess (an abstract field named "text") is fixed by --field query=…', () => {
  const file = path.join(IMP, 'abstract-and-task.jsonl');
  const guessed = importEoBench(file);
  assert.equal([guessed.mapping!.query.field, guessed.mapping!.query.how], ['text', 'name']);
  assert.match(guessed.bench.queries[0].text, /^We analyse a decade/);
  const fixed = importEoBench(file, { fields: parseFieldOverrides(['query=task']) });
  assert.equal([fixed.mapping!.query.field, fixed.mapping!.query.how], ['task', 'override']);
  assert.equal(fixed.bench.queries.map((q) => [q.id, q.text, q.positives]), [
    ['a1', 'I want hourly near-surface air temperature from a reanalysis', [MERRA]],
    ['a2', 'I want stratospheric water vapour profiles', [MLS]],
  ]);
  throwsWith(() => importEoBench(file, { fields: { query: 'prompt' } }), 'INVALID_ARGUMENT', /--field query=prompt: no record of .*abstract-and-task\.jsonl has a field "prompt" \(fields seen: id, text, task, datasets, split\)/);
  throwsWith(() => parseFieldOverrides(['question=task']), 'INVALID_ARGUMENT', /--field must be ROLE=NAME/);
});

test('import: CSV guessed by content alone; ids generated; a file with no query field fails clearly', () => {
  const { bench, mapping } = importEoBench(path.join(IMP, 'content-only.csv'));
  assert.equal(
    (['query', 'positives', 'split', 'id'] as const).map((r) => [mapping![r].field, mapping![r].how]),
    [['q', 'content'], ['gold', 'name'], ['part', 'content'], [null, 'none']],
  );
  assert.equal(bench.queries.map((q) => [q.id, q.text, q.split, q.positives]), [
    ['content-only:2', 'global sea surface temperature, daily, 1 km', 'test', [MUR]],
    ['content-only:3', 'hourly air temperature reanalysis', 'train', [MERRA, MLS]],
  ]);
  throwsWith(
    () => importEoBench(path.join(IMP, 'no-query.jsonl')),
    'DATA_INVALID',
    /no-query\.jsonl: no query field could be guessed \(fields seen: id, ids, n; none is named query\/text\/question.* or holding text of 2\+ words\); pass --field query=NAME/,
  );
});

test('eo bench import and eo bench build --kg end to end', async () => {
  const lines: string[] = [];
  const dir = tmpDir();
  await runBenchCommand(['import', path.join(IMP, 'abstract-and-task.jsonl'), '--field', 'query=task', '--kg', KG, '--out', path.join(dir, 'imp')], (s) => lines.push(s), () => undefined);
  assert.ok(lines.includes('  query     <- "task" (given with --field query=task)'), lines.join('\n'));
  assert.ok(lines.some((l) => /^2 queries read; 2 kept \(1 train, 1 test/.test(l)), lines.join('\n'));
  assert.equal(fs.readFileSync(path.join(dir, 'imp', 'qrels', 'test.tsv'), 'utf8'), `query-id\tcorpus-id\tscore\na2\t${MLS}\t1\n`);

  const built: string[] = [];
  const log: string[] = [];
  await runBenchCommand(['build', '--kg', KG, '--out', path.join(dir, 'kg')], (s) => built.push(s), (s) => log.push(s));
  assert.ok(log.some((l) => /skipped publications: emptyTitle 2/.test(l)), log.join('\n'));
  assert.match(built[0], /^2 queries \(\d train, \d test, test subset \d\) over 3 datasets; labels: USES_DATASET; writer: publication title as query/);
  const bench = JSON.parse(fs.readFileSync(path.join(dir, 'kg', 'benchmark.json'), 'utf8'));
  assert.equal(bench.relations, ['uses_dataset']);
  assert.equal(
    bench.labels.map((l: any) => [l.queryId, l.datasetId]).sort(),
    [['10.1029/2018gl077621#1', MLS], ['10.1029/2018gl077621#1', MERRA], ['title:c1baab1a8cbf#1', MLS], ['title:c1baab1a8cbf#1', 'C1978623316-LARC_ASDC']].sort(),
    'USES_DATASET labels only (the CITES link is not a label)',
  );
  assert.is(fs.readFileSync(path.join(dir, 'kg', 'snapshot', 'datasets.jsonl'), 'utf8').trim().split('\n').length, 3);
  // the router's GCMD keywords travel with the snapshot folder, since --data names them too
  assert.is(fs.readFileSync(path.join(dir, 'kg', 'snapshot', 'gcmd-sciencekeywords.csv'), 'utf8'), fs.readFileSync(gcmdKeywordsFile(), 'utf8'));
  try {
    await runBenchCommand(['build', '--kg', KG, '--writer', 'gpt-4o', '--out', path.join(dir, 'x')], () => undefined, () => undefined);
    assert.unreachable('a writer without the llm: prefix is refused');
  } catch (e) {
    assert.match((e as Error).message, /--writer must be "title" or "llm:<model id from lib\/llm\/models\.json>" \(got "gpt-4o"\)/);
  }
  assert.not.ok(fs.existsSync(path.join(dir, 'x')), 'nothing written');
});

test.run();
