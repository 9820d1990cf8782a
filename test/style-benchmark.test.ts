import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isEoError } from '../lib/errors';
import { loadSnapshot, type DatasetRecord } from '../lib/data';
import {
  QUERY_STYLES, buildStyleBenchmark, compileStyleRule, loadStyleTopics, datasetsMatchingRule, styleBenchmarkReport,
  styleBenchmarkSplit, styleBenchmarkStats, styleTopicSelection, styleTopicSplit, styleTopicsFile, validateStyleTopics,
  type StyleTopic,
} from '../lib/bench';

const sample = loadSnapshot({ sample: true });
const shipped = loadStyleTopics();

/** A valid topic to vary in the error tests. */
function topic(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'omi-no2-test',
    discipline: 'trace-gases',
    need: 'OMI NO2 columns.',
    exact: { shortName: '^OMNO2d$' },
    family: { longName: 'NO2' },
    queries: { question: ['I want NO2 over Delhi.'], keyword: ['no2 column'], identifier: ['OMNO2d'], misspelled: ['omi no 2'] },
    ...over,
  };
}

/** The EoError('BENCH') message of `fn`, failing when it does not throw one. */
function benchError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(isEoError(e, 'BENCH'), `expected EoError BENCH, got ${String(e)}`);
    return (e as Error).message;
  }
  assert.unreachable('expected an EoError');
  return '';
}

function record(over: Partial<DatasetRecord>): DatasetRecord {
  return {
    id: 'X', shortName: null, longName: '', abstract: '', doi: null, daac: 'GES_DISC', publisher: null, temporalStart: null, temporalEnd: null,
    keywords: [], platforms: [], instruments: [], projects: [], processingLevel: null, landingPage: null, shortNameSource: null,
    catalogRecordComplete: true, sources: [], ...over,
  };
}

test('the shipped topics file parses and validates: ≥ 60 topics, every style present, unique kebab-case ids', () => {
  assert.ok(fs.existsSync(styleTopicsFile()));
  assert.ok(shipped.length >= 60, `${shipped.length} topics`);
  assert.is(new Set(shipped.map((t) => t.id)).size, shipped.length);
  for (const t of shipped) {
    for (const s of QUERY_STYLES) assert.ok(t.queries[s].length >= 1, `${t.id} ${s}`);
    for (const q of t.queries.keyword) {
      const words = q.split(/\s+/).length;
      assert.ok(words >= 2 && words <= 5, `${t.id} keyword query "${q}" has ${words} words`);
    }
    assert.ok((t.checked ?? []).length >= 3, `${t.id}: spot-checked datasets`);
  }
  assert.ok(new Set(shipped.map((t) => t.discipline)).size >= 10);
});

test('bad topics are EoError BENCH naming the topic and the field', () => {
  const v = (t: Record<string, unknown> | unknown[]) => validateStyleTopics(Array.isArray(t) ? t : [t], 'mem');
  let m = benchError(() => v(topic({ exact: { shortname: '^X$' } })));
  assert.match(m, 'topic "omi-no2-test".exact.shortname');
  assert.match(m, 'unknown rule key');
  m = benchError(() => v(topic({ family: { any: [{ longName: 'NO2(' }] } })));
  assert.match(m, 'topic "omi-no2-test".family.any[0].longName');
  assert.match(m, 'bad regular expression');
  m = benchError(() => v(topic({ exact: { instruments: ['OMI', '[bad'] } })));
  assert.match(m, '.exact.instruments[1]');
  m = benchError(() => v(topic({ queries: { question: ['q'], keyword: [], identifier: ['x'], misspelled: ['y'] } })));
  assert.match(m, 'topic "omi-no2-test".queries.keyword');
  m = benchError(() => v(topic({ queries: { question: ['q'], keyword: ['k w'], identifier: ['x'] } })));
  assert.match(m, '.queries.misspelled');
  m = benchError(() => v([topic(), topic()]));
  assert.match(m, 'topic "omi-no2-test".id');
  assert.match(m, 'duplicate');
  m = benchError(() => v(topic({ id: 'Not Kebab' })));
  assert.match(m, 'kebab');
  m = benchError(() => v(topic({ exact: { temporalOverlaps: ['2020-01-01'] } })));
  assert.match(m, '.exact.temporalOverlaps');
  m = benchError(() => v(topic({ exact: { not: {} } })));
  assert.match(m, '.exact.not');
  m = benchError(() => v(topic({ extra: 1 })));
  assert.match(m, 'topic "omi-no2-test".extra');
  m = benchError(() => v(topic({ checked: [{ id: 'C1', grade: 3 }] })));
  assert.match(m, '.checked[0].grade');
  // a missing file is DATA_NOT_FOUND, bad JSON a BENCH error naming the file
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-styles-'));
  try {
    assert.throws(() => loadStyleTopics(path.join(dir, 'none.json')), (e: unknown) => isEoError(e, 'DATA_NOT_FOUND'));
    fs.writeFileSync(path.join(dir, 'bad.json'), '[{');
    assert.match(benchError(() => loadStyleTopics(path.join(dir, 'bad.json'))), 'bad.json');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('rules: case-insensitive unanchored patterns, any element of array fields, missing values never match, combinators, periods', () => {
  const ds = [
    record({ id: 'a', shortName: 'MOD11A2', longName: 'MODIS/Terra Land Surface Temperature 8-Day', instruments: ['MODIS'], platforms: ['Terra'], temporalStart: '2000-02-18T00:00:00Z', temporalEnd: null }),
    record({ id: 'b', shortName: null, longName: 'VIIRS/NPP Land Surface Temperature', instruments: ['VIIRS', 'ATMS'], temporalStart: '2012-01-19', temporalEnd: '2015-12-31' }),
    record({ id: 'c', shortName: 'OMNO2d', longName: 'OMI/Aura NO2', daac: 'GES_DISC', processingLevel: '3', temporalStart: null }),
  ];
  const sel = (rule: unknown) => datasetsMatchingRule(ds, compileStyleRule(rule, 'r'));
  assert.equal(sel({ shortName: 'mod11' }), ['a']);
  assert.equal(sel({ shortName: '^.*$' }), ['a', 'c']); // null shortName never matches
  assert.equal(sel({ instruments: 'atms' }), ['b']);
  assert.equal(sel({ longName: ['^modis', '^omi'] }), ['a', 'c']);
  assert.equal(sel({ longName: 'Land Surface', instruments: 'VIIRS' }), ['b']); // several keys = all
  assert.equal(sel({ any: [{ processingLevel: '^3$' }, { platforms: 'terra' }] }), ['a', 'c']);
  assert.equal(sel({ all: [{ longName: 'temperature' }, { not: { shortName: 'MOD' } }] }), ['b']);
  assert.equal(sel({ temporalOverlaps: ['2016-01-01', '2016-12-31'] }), ['a']); // open end = ongoing; b ended 2015
  assert.equal(sel({ temporalOverlaps: ['2015-12-31', '2016-01-01'] }), ['a', 'b']);
  assert.equal(sel({ daac: '^GES_DISC$', not: { longName: 'NO2' } }), ['a', 'b']);
});

test('the split is by topic, seeded, ~balanced per discipline and independent of file order', () => {
  const a = styleTopicSplit(shipped, 42);
  const b = styleTopicSplit([...shipped].reverse(), 42);
  const c = styleTopicSplit(shipped, 7);
  assert.equal([...a].sort(), [...b].sort());
  assert.not.equal([...a].sort(), [...c].sort());
  const nTest = [...a.values()].filter((s) => s === 'test').length;
  assert.ok(Math.abs(nTest - shipped.length / 2) <= 1, `test topics ${nTest} of ${shipped.length}`);
  const byDiscipline = new Map<string, { dev: number; test: number }>();
  for (const t of shipped) {
    const cell = byDiscipline.get(t.discipline) ?? { dev: 0, test: 0 };
    cell[a.get(t.id)!]++;
    byDiscipline.set(t.discipline, cell);
  }
  for (const [d, cell] of byDiscipline) assert.ok(Math.abs(cell.dev - cell.test) <= 1, `${d}: ${JSON.stringify(cell)}`);
  assert.throws(() => styleTopicSplit(shipped, 42, 1), (e: unknown) => isEoError(e, 'INVALID_ARGUMENT'));
});

test('sample snapshot: topics without a grade-2 dataset are dropped (listed), the rest keep all their queries on one side', () => {
  const bench = buildStyleBenchmark(sample);
  assert.is(bench.name, 'eo-styles');
  assert.is(bench.corpusHash, sample.hash);
  assert.ok(bench.droppedTopics.length > 0 && bench.topics.length > 0);
  assert.is(bench.droppedTopics.length + bench.topics.length, shipped.length);
  const kept = new Set(bench.topics.map((t) => t.id));
  for (const d of bench.droppedTopics) assert.match(d.reason, 'exact selects no dataset');
  for (const q of bench.queries) {
    assert.ok(kept.has(q.topicId), `query of dropped topic ${q.topicId}`);
    assert.is(q.split, bench.split.get(q.topicId));
    const grades = bench.qrels.get(q.id)!;
    assert.ok([...grades.values()].includes(2), `${q.id} has no grade-2 label`);
    for (const id of grades.keys()) assert.ok(sample.indexById.has(id));
  }
  // the split does not depend on the corpus: a topic kept on the sample has the side it has on the full file
  const sides = styleTopicSplit(shipped);
  for (const t of bench.topics) assert.is(t.split, sides.get(t.id));
  // strict on the sample: the first rule that selects nothing is named
  const m = benchError(() => buildStyleBenchmark(sample, { strict: true }));
  assert.match(m, /topic "[a-z0-9-]+"\.(exact|family) selects no dataset/);
});

test('strict build: a family rule that selects nothing is an error even when exact selects something', () => {
  const present = sample.datasets.find((d) => d.shortName)!;
  const t = validateStyleTopics([topic({ exact: { shortName: `^${present.shortName}$` }, family: { shortName: '^NO_SUCH_PRODUCT$' } })], 'mem');
  const m = benchError(() => buildStyleBenchmark(sample, { topics: t, strict: true }));
  assert.match(m, 'topic "omi-no2-test".family selects no dataset');
  const lenient = buildStyleBenchmark(sample, { topics: t });
  assert.equal(lenient.topics[0].exact, [present.id]);
  assert.equal(lenient.topics[0].family, []);
});

test('full snapshot: every rule selects something, exact ⊆ family, ≤ 40 grade-2 datasets, ≥ 60 queries per style, spot checks hold', () => {
  const full = loadSnapshot();
  const bench = buildStyleBenchmark(full); // strict by default on the full snapshot
  assert.is(bench.droppedTopics.length, 0);
  assert.is(bench.topics.length, shipped.length);
  const byId = new Map(shipped.map((t) => [t.id, t] as const));
  for (const labels of bench.topics) {
    const t = byId.get(labels.id) as StyleTopic;
    const sel = styleTopicSelection(full, t);
    assert.ok(sel.exact.length >= 1 && sel.exact.length <= 40, `${t.id}: ${sel.exact.length} grade-2 datasets`);
    const familySet = new Set([...sel.family, ...sel.exact]);
    for (const id of sel.exact) assert.ok(familySet.has(id));
    const grades = bench.qrels.get(`${t.id}/question/1`)!;
    for (const c of t.checked ?? []) {
      assert.ok(full.indexById.has(c.id), `${t.id}: checked ${c.id} is not in the corpus`);
      assert.is(grades.get(c.id) ?? 0, c.grade, `${t.id}: checked ${c.id}`);
    }
  }
  const titles = new Set(full.datasets.map((d) => d.longName.toLowerCase()));
  for (const q of bench.queries) assert.not.ok(titles.has(q.text.toLowerCase()), `${q.id} copies a dataset title`);
  const stats = styleBenchmarkStats(bench);
  for (const s of QUERY_STYLES) {
    const all = stats.find((r) => r.style === s && r.split === 'all')!;
    assert.ok(all.queries >= 60, `${s}: ${all.queries} queries`);
    const dev = stats.find((r) => r.style === s && r.split === 'dev')!;
    const tst = stats.find((r) => r.style === s && r.split === 'test')!;
    assert.is(dev.queries + tst.queries, all.queries);
    assert.ok(dev.queries > 0 && tst.queries > 0);
    assert.ok(all.meanExact >= 1);
  }
  const total = stats.find((r) => r.style === 'all' && r.split === 'all')!;
  assert.is(total.queries, bench.queries.length);
  assert.ok(bench.queries.length >= 240);
  // the searchBatch view: one side, one style, with qrels for exactly those queries
  const view = styleBenchmarkSplit(bench, 'test', 'keyword');
  assert.ok(view.queries.length > 0);
  assert.equal(view.queries.map((q) => q.id).sort(), [...view.qrels.keys()].sort());
  for (const q of view.queries) {
    const sq = bench.queries.find((x) => x.id === q.id)!;
    assert.is(sq.split, 'test');
    assert.is(sq.style, 'keyword');
  }
  assert.throws(() => styleBenchmarkSplit(bench, 'train' as 'dev'), (e: unknown) => isEoError(e, 'INVALID_ARGUMENT'));
  const rows = styleBenchmarkReport(bench);
  assert.is(rows.length, stats.length);
  assert.is(rows[rows.length - 1].queries, bench.queries.length);
  // the README's count table is this report (regenerate it after editing topics.json)
  const readme = fs.readFileSync(path.join(path.dirname(styleTopicsFile()), 'README.md'), 'utf8');
  for (const r of rows) {
    const line = `| ${Object.values(r).join(' | ')} |`;
    assert.ok(readme.includes(line), `README.md lacks the row ${line}`);
  }
});

test.run();
