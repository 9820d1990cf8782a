import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isEoError } from '../lib/errors';
import { loadSnapshot, type DatasetRecord } from '../lib/data';
import {
  QUERY_STYLES, buildStyleBenchmark, compileStyleRule, loadStyleTopics, datasetsMatchingRule, styleBenchmarkReport,
  styleBenchmarkSplit, styleBenchmarkStats, styleQueryText, styleTopicSelection, styleTopicSplit, styleTopicsFile, validateStyleTopics,
  type StyleQueryOverride, type StyleTopic,
} from '../lib/bench';

const sample = loadSnapshot({ sample: true });
const shipped = loadStyleTopics();
let fullCorpus: ReturnType<typeof loadSnapshot> | undefined;
/** The full snapshot, loaded once for the tests that need it. */
function full(): ReturnType<typeof loadSnapshot> {
  fullCorpus ??= loadSnapshot();
  return fullCorpus;
}

/** Grade-2 dataset ids of one query, sorted. */
function gradeTwo(bench: ReturnType<typeof buildStyleBenchmark>, queryId: string): string[] {
  const grades = bench.qrels.get(queryId);
  assert.ok(grades, `no qrels for ${queryId}`);
  return [...grades].filter(([, g]) => g === 2).map(([id]) => id).sort();
}

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
    for (const q of t.queries.keyword.map(styleQueryText)) {
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
    record({ id: 'a', shortName: 'MOD11A2', longName: 'MODIS/Terra Land Surface Temperature/Emissivity 8-Day', instruments: ['MODIS'], platforms: ['Terra'], temporalStart: '2000-02-18T00:00:00Z', temporalEnd: null }),
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
  const corpus = full();
  const bench = buildStyleBenchmark(corpus); // strict by default on the full snapshot
  assert.is(bench.droppedTopics.length, 0);
  assert.is(bench.topics.length, shipped.length);
  const byId = new Map(shipped.map((t) => [t.id, t] as const));
  for (const labels of bench.topics) {
    const t = byId.get(labels.id) as StyleTopic;
    const sel = styleTopicSelection(corpus, t);
    assert.ok(sel.exact.length >= 1 && sel.exact.length <= 40, `${t.id}: ${sel.exact.length} grade-2 datasets`);
    const familySet = new Set([...sel.family, ...sel.exact]);
    for (const id of sel.exact) assert.ok(familySet.has(id));
    // the topic's own labels (a query with an exact override has its own grade 2, checked below)
    const grades = new Map<string, number>([...sel.family.map((id) => [id, 1] as const), ...sel.exact.map((id) => [id, 2] as const)]);
    for (const c of t.checked ?? []) {
      assert.ok(corpus.indexById.has(c.id), `${t.id}: checked ${c.id} is not in the corpus`);
      assert.is(grades.get(c.id) ?? 0, c.grade, `${t.id}: checked ${c.id}`);
    }
  }
  const titles = new Set(corpus.datasets.map((d) => d.longName.toLowerCase()));
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

test('query overrides: a query may be {text, exact, checked?, notes?}; a bad one is EoError BENCH naming the topic, the query and the field', () => {
  const v = (t: Record<string, unknown>) => validateStyleTopics([t], 'mem');
  const withIdentifier = (q: unknown) => topic({ queries: { question: ['I want NO2 over Delhi.'], keyword: ['no2 column'], identifier: ['OMNO2d', q], misspelled: ['omi no 2'] } });
  const [ok] = v(withIdentifier({ text: ' OMNO2G ', exact: { shortName: '^OMNO2G$' }, checked: [{ id: 'C1', grade: 2 }], notes: 'the L2G product' }));
  const q = ok.queries.identifier[1] as StyleQueryOverride;
  assert.equal(q, { text: 'OMNO2G', exact: { shortName: '^OMNO2G$' }, checked: [{ id: 'C1', grade: 2 }], notes: 'the L2G product' });
  assert.is(styleQueryText(q), 'OMNO2G');
  assert.is(styleQueryText(ok.queries.identifier[0]), 'OMNO2d');
  let m = benchError(() => v(withIdentifier({ text: 'OMNO2G' })));
  assert.match(m, 'topic "omi-no2-test".queries.identifier[1].exact');
  assert.match(m, '"OMNO2G"');
  m = benchError(() => v(withIdentifier({ text: 'OMNO2G', exact: { shortName: 'OMNO2(' } })));
  assert.match(m, 'topic "omi-no2-test".queries.identifier[1].exact.shortName');
  assert.match(m, 'bad regular expression');
  m = benchError(() => v(withIdentifier({ text: 'OMNO2G', exact: { shortname: 'x' } })));
  assert.match(m, '.queries.identifier[1].exact.shortname');
  m = benchError(() => v(withIdentifier({ text: 'OMNO2G', exact: { shortName: 'x' }, grade: 2 })));
  assert.match(m, '.queries.identifier[1].grade');
  assert.match(m, 'unknown query key');
  m = benchError(() => v(withIdentifier({ exact: { shortName: 'x' } })));
  assert.match(m, '.queries.identifier[1].text');
  m = benchError(() => v(withIdentifier({ text: 'OMNO2G', exact: { shortName: 'x' }, checked: [{ id: 'C1', grade: 5 }] })));
  assert.match(m, '.queries.identifier[1].checked[0].grade');
  m = benchError(() => v(withIdentifier(42)));
  assert.match(m, '.queries.identifier[1]');
  m = benchError(() => v(withIdentifier({ text: 'omno2d', exact: { shortName: 'x' } })));
  assert.match(m, 'duplicate query');
});

test('query overrides: grade 2 narrows to the override within the family for that query only; the rest of the family is grade 1', () => {
  // a topic of the sample with several grade-2 datasets; the override keeps the first one
  const base = buildStyleBenchmark(sample);
  const labels = base.topics.find((t) => t.exact.length >= 2 && t.family.length >= 1)!;
  assert.ok(labels, 'a sample topic with ≥ 2 grade-2 and ≥ 1 grade-1 datasets');
  const t = shipped.find((x) => x.id === labels.id)!;
  const keep = sample.datasets[sample.indexById.get(labels.exact[0])!];
  const escaped = keep.longName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const override = { text: 'narrowed identifier query', exact: { longName: `^${escaped}$` } };
  const outside = sample.datasets.find((d) => !labels.exact.includes(d.id) && !labels.family.includes(d.id))!;
  const noFamily = { text: 'asks for a product outside the family', exact: { longName: `^${outside.longName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$` } };
  const edited = { ...t, queries: { ...t.queries, identifier: [...t.queries.identifier, override] } } as StyleTopic;
  const bench = buildStyleBenchmark(sample, { topics: [edited] });
  const n = t.queries.identifier.length + 1;
  const id = `${t.id}/identifier/${n}`;
  const q = bench.queries.find((x) => x.id === id)!;
  assert.ok(q.narrowed);
  assert.is(q.text, 'narrowed identifier query');
  assert.equal(gradeTwo(bench, id), [keep.id]);
  const grades = bench.qrels.get(id)!;
  for (const other of labels.exact.slice(1)) assert.is(grades.get(other), 1, `${other}: topic grade 2 → 1 for the narrowed query`);
  for (const f of labels.family) assert.is(grades.get(f), 1);
  assert.is(grades.size, labels.exact.length + labels.family.length);
  // every other query keeps its labels (the topic's, or its own shipped override), and ids are unchanged
  for (const other of bench.queries.filter((x) => x.id !== id)) {
    assert.equal([...bench.qrels.get(other.id)!].sort(), [...base.qrels.get(other.id)!].sort(), other.id);
    if (!other.narrowed) assert.equal(gradeTwo(bench, other.id), labels.exact);
  }
  assert.equal(bench.queries.filter((x) => x.id !== id).map((x) => x.id), base.queries.filter((x) => x.topicId === t.id).map((x) => x.id));
  // an override that selects nothing in the family: strict → named error; lenient → the query is dropped and listed
  const broken = { ...t, queries: { ...t.queries, keyword: [...t.queries.keyword, noFamily] } } as StyleTopic;
  const m = benchError(() => buildStyleBenchmark(sample, { topics: [broken], strict: true }));
  assert.match(m, `topic "${t.id}".queries.keyword[${t.queries.keyword.length}].exact`);
  assert.match(m, `${t.id}/keyword/${t.queries.keyword.length + 1} "asks for a product outside the family"`);
  assert.match(m, "selects no dataset of the topic's family");
  const lenient = buildStyleBenchmark(sample, { topics: [broken] });
  const droppedId = `${t.id}/keyword/${t.queries.keyword.length + 1}`;
  assert.equal(lenient.droppedQueries.map((d) => d.id), [droppedId]);
  assert.not.ok(lenient.qrels.has(droppedId));
  assert.is(lenient.queries.length, base.queries.filter((x) => x.topicId === t.id).length);
});

test('full snapshot: the shipped overrides select family datasets, narrow grade 2, keep their spot checks, and fix the reported examples', () => {
  const corpus = full();
  const bench = buildStyleBenchmark(corpus);
  assert.is(bench.droppedQueries.length, 0);
  const labels = new Map(bench.topics.map((t) => [t.id, t] as const));
  let overrides = 0;
  for (const t of shipped) {
    const topicLabels = labels.get(t.id)!;
    const family = new Set([...topicLabels.exact, ...topicLabels.family]);
    for (const style of QUERY_STYLES) {
      t.queries[style].forEach((q, i) => {
        const id = `${t.id}/${style}/${i + 1}`;
        const grades = bench.qrels.get(id)!;
        const two = gradeTwo(bench, id);
        if (typeof q === 'string') {
          assert.equal(two, topicLabels.exact, `${id}: topic labels`);
          return;
        }
        overrides++;
        assert.ok(two.length >= 1 && two.every((d) => family.has(d)), `${id}: grade 2 inside the family`);
        assert.not.equal(two, topicLabels.exact, `${id}: the override changes nothing`);
        const topicExact = new Set(topicLabels.exact);
        assert.ok(two.every((d) => topicExact.has(d)), `${id}: the shipped overrides narrow the topic's grade-2 set`);
        assert.is(grades.size, family.size, `${id}: the whole family keeps a grade`);
        for (const c of q.checked ?? []) assert.is(grades.get(c.id) ?? 0, c.grade, `${id}: checked ${c.id}`);
      });
    }
  }
  assert.ok(overrides >= 100, `${overrides} overrides`);
  // the examples that motivated per-query labels (ids and titles read on the full snapshot)
  assert.equal(gradeTwo(bench, 'seawifs-deep-blue-aerosol/identifier/2'), ['C1239900189-GES_DISC']); // SWDB_L2 only
  assert.is(bench.qrels.get('seawifs-deep-blue-aerosol/identifier/2')!.get('C1239900202-GES_DISC'), 1); // SWDB_L3M10
  assert.equal(gradeTwo(bench, 'omi-no2/identifier/1'), ['C1266136111-GES_DISC', 'C2215175232-GES_DISC', 'C3333493715-GES_DISC']); // L3 daily, not OMNO2G
  assert.equal(gradeTwo(bench, 'viirs-dark-target-aerosol/identifier/2'), ['C2772641628-LAADS', 'C2859228520-LAADS']); // NOAA-20 only
  assert.equal(gradeTwo(bench, 'viirs-dark-target-aerosol/identifier/1'), ['C2771506686-LAADS', 'C2859232902-LAADS']); // SNPP only
  assert.equal(gradeTwo(bench, 'amsr-snow-water-equivalent/identifier/1'), ['C1587882982-NSIDC_ECS', 'C1587883062-NSIDC_ECS', 'C1601063219-NSIDC_ECS']);
  assert.equal(gradeTwo(bench, 'mls-ozone-profiles/identifier/2'), ['C1725332420-GES_DISC', 'C1725336747-GES_DISC', 'C2042566088-GES_DISC', 'C2042567177-GES_DISC']);
  assert.equal(gradeTwo(bench, 'omi-uv-aerosol/identifier/2'), ['C1266136096-GES_DISC']); // OMAERUVd
  assert.equal(gradeTwo(bench, 'modis-aqua-chlorophyll/identifier/2'), ['C2330512018-OB_DAAC']); // mapped R2022, not binned or NRT
  assert.equal(gradeTwo(bench, 'gedi-biomass/identifier/1'), ['C2237824918-ORNL_CLOUD', 'C2734289572-ORNL_CLOUD']); // L4A
  // a plain query of the same topic keeps the topic's labels
  assert.equal(gradeTwo(bench, 'seawifs-deep-blue-aerosol/keyword/1'), labels.get('seawifs-deep-blue-aerosol')!.exact);
});

test.run();
