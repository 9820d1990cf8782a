import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import {
  checkEoBenchPositives, eoBenchQrels, eoBenchSplit, kgToCorpus, loadEoBench, loadKgCorpus, parseDelimited,
  publicationIdFor, readKgExport, restrictEoBenchToCorpus, splitFromFileName, formatKgCorpusReport,
  streamKgCorpus, streamKgExport, KG_CORPUS_PROPERTIES
} from '../lib/data';
import { cmrFixtureCorpus, throwsWith } from './helpers/data';

const FIX = path.join(__dirname, 'fixtures');
const EB = path.join(FIX, 'eobench');
const KG = path.join(FIX, 'kg');

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'eo-formats-'));
}

const fixtureCorpus = cmrFixtureCorpus;

// ------------------------------------------------------------------------------------------------ NASA-EO-Bench

test('eobench JSONL with flexible field names', () => {
  const b = loadEoBench(path.join(EB, 'queries.jsonl'));
  assert.is(b.format, 'jsonl');
  assert.equal(
    b.queries.map((q) => [q.id, q.split, q.positives]),
    [
      ['q1', 'train', ['C1276812863-GES_DISC']],
      ['q2', 'test', ['C1251101564-GES_DISC', 'ml2h2o']],
      ['3', 'val', ['C2036882064-POCLOUD', 'C9999999999-NOPE']],
      ['q4', 'val', ['10.3334/ORNLDAAC/1840']],
    ],
  );
  assert.is(b.queries[0].text, 'hourly near-surface air temperature reanalysis since 1980');
  assert.match(b.queries[2].source, /queries\.jsonl:4$/);
  assert.equal(eoBenchSplit(b, 'validation').map((q) => q.id), ['3', 'q4']);
  const qrels = eoBenchQrels(b, 'test');
  assert.equal([...qrels.keys()], ['q2']);
  assert.is(qrels.get('q2')!.get('ml2h2o'), 1);
});

test('eobench JSON array with object positives, and line numbers', () => {
  const b = loadEoBench(path.join(EB, 'queries.json'));
  assert.is(b.format, 'json');
  assert.equal(b.queries.map((q) => q.positives), [['C1000000017-CDDIS'], ['C1276812863-GES_DISC', '10.5067/VJAFPLI1CSIV']]);
  assert.match(b.queries[0].source, /queries\.json:2$/);
  assert.match(b.queries[1].source, /queries\.json:10$/);
});

test('eobench JSON wrappers, JSON Lines in a .json file, generated ids', () => {
  const dir = tmpDir();
  const rows = [{ row: { id: 'h1', question: 'q one', relevant_ids: ['C1-A'], split: 'train' } }];
  fs.writeFileSync(path.join(dir, 'hf.json'), JSON.stringify({ rows }));
  assert.equal(loadEoBench(path.join(dir, 'hf.json')).queries[0].positives, ['C1-A']);
  fs.writeFileSync(path.join(dir, 'wrapped.json'), JSON.stringify({ queries: [{ qid: 'w1', text: 't', positives: 'C1-A C2-B', split: 'dev' }] }));
  const w = loadEoBench(path.join(dir, 'wrapped.json')).queries[0];
  assert.equal([w.id, w.split, w.positives], ['w1', 'val', ['C1-A', 'C2-B']]);
  fs.writeFileSync(path.join(dir, 'lines.json'), '{"id":"l1","query":"a","positives":["C1-A"],"split":"test"}\n{"id":"l2","query":"b","positives":["C1-A"],"split":"test"}\n');
  assert.is(loadEoBench(path.join(dir, 'lines.json')).queries.length, 2);
  fs.writeFileSync(path.join(dir, 'noid-test.jsonl'), '{"query":"a","positives":["C1-A"]}\n');
  throwsWith(() => loadEoBench(path.join(dir, 'noid-test.jsonl')), 'DATA_INVALID', /noid-test\.jsonl:1: field "id" is required/);
  const g = loadEoBench(path.join(dir, 'noid-test.jsonl'), { generateIds: true }).queries[0];
  assert.equal([g.id, g.split], ['noid-test:1', 'test']);
  fs.writeFileSync(path.join(dir, 'scalar.json'), '"nope"');
  throwsWith(() => loadEoBench(path.join(dir, 'scalar.json')), 'DATA_INVALID', /scalar\.json:1: field "\(document\)"/);
});

test('eobench CSV: quotes, embedded newlines, JSON and delimited positives', () => {
  const b = loadEoBench(path.join(EB, 'queries.csv'));
  assert.is(b.format, 'csv');
  assert.equal(
    b.queries.map((q) => [q.id, q.text, q.split, q.positives, q.source.replace(/^.*\//, '')]),
    [
      ['c1', 'Sea surface temperature, global, "MUR" analysis', 'test', ['C2036882064-POCLOUD'], 'queries.csv:2'],
      ['c2', 'Water vapour\nin the stratosphere', 'train', ['C1251101564-GES_DISC', 'C1276812863-GES_DISC'], 'queries.csv:3'],
      ['c3', 'Daymet daily weather', 'val', ['C179003030-ORNL_CLOUD', 'C1000000017-CDDIS'], 'queries.csv:5'],
    ],
  );
  assert.equal(parseDelimited('a,b\n"x ""y""",\n', 'mem'), [
    { line: 1, cells: ['a', 'b'] },
    { line: 2, cells: ['x "y"', ''] },
  ]);
});

test('eobench folder of per-split files takes the split from file names', () => {
  const b = loadEoBench(path.join(EB, 'split-files'));
  assert.is(b.format, 'mixed');
  assert.equal(
    b.queries.map((q) => [q.id, q.split]).sort(),
    [
      ['s1', 'train'],
      ['s2', 'test'],
      ['s3', 'test'],
    ],
  );
  assert.is(splitFromFileName('/x/nasa-eo-bench-validation.jsonl.gz'), 'val');
  assert.is(splitFromFileName('/x/train-test.jsonl'), null);
  assert.is(splitFromFileName('/x/queries.jsonl'), null);
});

test('eobench BEIR layout', () => {
  const b = loadEoBench(path.join(EB, 'beir'));
  assert.is(b.format, 'beir');
  assert.equal(
    b.queries.map((q) => [q.id, q.split, q.positives]),
    [
      ['b1', 'train', ['C1276812863-GES_DISC']],
      ['b2', 'train', ['C1251101564-GES_DISC']],
      ['b3', 'test', ['C2036882064-POCLOUD', 'C0000000001-GONE']],
    ],
  );
  assert.is(b.beirCorpus!.length, 3);
  assert.ok(b.warnings.some((w) => /1 qrels row\(s\) name a corpus-id that is not in corpus\.jsonl/.test(w)), b.warnings.join('\n'));
  assert.ok(b.warnings.some((w) => /1 query has no qrels \(in queries\.jsonl\) and was dropped/.test(w)), b.warnings.join('\n'));
  assert.ok(b.warnings.some((w) => /no judgement with score >= 1/.test(w)), b.warnings.join('\n'));
  const all = loadEoBench(path.join(EB, 'beir'), { minScore: 0 });
  assert.equal(all.queries.find((q) => q.id === 'b2')!.positives, ['C1251101564-GES_DISC', 'C2036882064-POCLOUD']);
  assert.ok(all.queries.some((q) => q.id === 'b5'));
});

test('eobench bad inputs name file, line and field', () => {
  const bad = (n: string) => path.join(EB, 'bad', n);
  throwsWith(() => loadEoBench(bad('missing-text.jsonl')), 'DATA_INVALID', /missing-text\.jsonl:2: field "query" is required/);
  throwsWith(() => loadEoBench(bad('bad-split.jsonl')), 'DATA_INVALID', /bad-split\.jsonl:1: field "split" must be one of train, test, val, validation, dev \(got "holdout"\)/);
  throwsWith(() => loadEoBench(bad('no-split.jsonl')), 'DATA_INVALID', /no-split\.jsonl:1: field "split" is missing/);
  assert.is(loadEoBench(bad('no-split.jsonl'), { split: 'test' }).queries[0].split, 'test');
  throwsWith(() => loadEoBench(bad('no-split.jsonl'), { split: 'holdout' }), 'INVALID_ARGUMENT', /split option/);
  throwsWith(() => loadEoBench(bad('empty-positives.jsonl')), 'DATA_INVALID', /empty-positives\.jsonl:1: field "positives" must list at least one dataset id/);
  assert.equal(loadEoBench(bad('empty-positives.jsonl'), { allowEmptyPositives: true }).queries[0].positives, []);
  throwsWith(() => loadEoBench(bad('dup-id.jsonl')), 'DATA_INVALID', /dup-id\.jsonl:3: field "id" repeats query id "x1" of .*dup-id\.jsonl:1/);
  throwsWith(() => loadEoBench(bad('bad-positives.json')), 'DATA_INVALID', /bad-positives\.json:8: field "positives\[1\]\.id" is required/);
  throwsWith(() => loadEoBench(bad('not-json.jsonl')), 'DATA_PARSE', /not-json\.jsonl:2: invalid JSON/);
  throwsWith(() => loadEoBench(bad('ragged.csv')), 'DATA_INVALID', /ragged\.csv:3: field "\(row\)" has 5 column\(s\), the header has 4/);
  throwsWith(() => loadEoBench(bad('unterminated.csv')), 'DATA_PARSE', /unterminated\.csv:3: unterminated quoted field/);
  throwsWith(() => loadEoBench(bad('beir-bad-header')), 'DATA_INVALID', /qrels\/test\.tsv:1: field "\(header\)" must be "query-id<TAB>corpus-id<TAB>score"/);
  throwsWith(() => loadEoBench(bad('beir-bad-score')), 'DATA_INVALID', /qrels\/test\.tsv:3: field "score" must be a number \(got "high"\)/);
  throwsWith(() => loadEoBench(bad('beir-unknown-query')), 'DATA_INVALID', /qrels\/train\.tsv:2: field "query-id" "b9" is not in queries\.jsonl/);
  throwsWith(() => loadEoBench(path.join(EB, 'nope.jsonl')), 'DATA_NOT_FOUND', /benchmark path not found/);
  throwsWith(() => loadEoBench(path.join(EB, 'queries.jsonl'), { format: 'beir' }), 'INVALID_ARGUMENT', /needs a folder/);
});

test('eobench positives checked against a corpus: unknown ids reported with suggestions, not thrown', () => {
  const corpus = fixtureCorpus();
  const b = loadEoBench(path.join(EB, 'queries.jsonl'));
  const r = checkEoBenchPositives(b, corpus);
  assert.is(r.queries, 4);
  assert.is(r.positives, 6);
  assert.is(r.known, 3);
  assert.equal(
    r.unknown.map((u) => [u.queryId, u.id, u.suggestion]),
    [
      ['q2', 'ml2h2o', 'C1251101564-GES_DISC'],
      ['3', 'C9999999999-NOPE', null],
      ['q4', '10.3334/ORNLDAAC/1840', 'C179003030-ORNL_CLOUD'],
    ],
  );
  assert.equal(r.queriesWithoutKnownPositives, ['q4']);
  const strict = restrictEoBenchToCorpus(b, corpus);
  assert.equal(strict.droppedQueries, ['q4']);
  assert.equal(strict.bench.queries.map((q) => q.positives), [['C1276812863-GES_DISC'], ['C1251101564-GES_DISC'], ['C2036882064-POCLOUD']]);
  const resolved = restrictEoBenchToCorpus(b, corpus, { resolve: true });
  assert.equal(resolved.droppedQueries, []);
  assert.equal(resolved.bench.queries[3].positives, ['C179003030-ORNL_CLOUD']);
  assert.is(b.queries[1].positives.length, 2, 'the input is not modified');
});

// ------------------------------------------------------------------------------------------------ Knowledge graph

const MERRA = 'C1276812863-GES_DISC';
const MLS = 'C1251101564-GES_DISC';

const CERES = 'C1978623316-LARC_ASDC';

test('KG export in the real shape: mapping, stubs and unlinked publications counted by reason, CITES direction', async () => {
  const file = path.join(KG, 'apoc-export.jsonl');
  const { corpus, report } = loadKgCorpus(file);
  assert.is(report.format, 'apoc-jsonl');
  assert.equal(corpus.datasets.map((d) => d.id), [MLS, MERRA, CERES]);
  const merra = corpus.datasets[corpus.indexById.get(MERRA)!];
  assert.equal(merra, {
    id: MERRA,
    shortName: 'M2T1NXSLV',
    longName: 'MERRA-2 tavg1_2d_slv_Nx: 2d,1-Hourly,Time-Averaged,Single-Level,Assimilation,Single-Level Diagnostics V5.12.4',
    abstract: 'M2T1NXSLV is an hourly time-averaged 2-dimensional data collection in MERRA-2.',
    doi: '10.5067/VJAFPLI1CSIV',
    daac: 'GES_DISC',
    publisher: 'NASA/GSFC/SED/ESD/GCDC/GESDISC',
    temporalStart: '1980-01-01T00:00:00.000Z',
    temporalEnd: null,
    bbox: [-180, -90, 180, 90], // from the nwCorner / seCorner points
    keywords: ['atmosphere', 'air temperature'],
    platforms: [],
    instruments: [],
    projects: ['MERRA-2'],
    processingLevel: null,
    landingPage: 'https://disc.gsfc.nasa.gov/datasets/M2T1NXSLV_5.12.4/summary',
    shortNameSource: 'nasa-eo-kg',
    catalogRecordComplete: true,
    sources: ['nasa-eo-kg'],
  });
  const mls = corpus.datasets[corpus.indexById.get(MLS)!];
  assert.is(mls.publisher, 'NASA/GSFC/SED/ESD/GCDC/GESDISC', 'from the HAS_DATASET data center, as daac is "N/A"');
  assert.equal(mls.platforms, ['Aura']);
  assert.equal(mls.instruments, []);
  assert.is(mls.temporalEnd, '2021-12-31T23:59:59.999Z');
  const ceres = corpus.datasets[corpus.indexById.get(CERES)!];
  assert.equal(
    [ceres.shortName, ceres.abstract, ceres.daac, ceres.publisher, ceres.temporalEnd, ceres.landingPage],
    [null, '', 'LARC_ASDC', 'NASA/LARC/SD/ASDC', null, 'https://doi.org/10.5067/TERRA-AQUA-NOAA20/CERES/EBAF_L3B004.2'],
    '"N/A" reads as missing; daac is the CMR provider, the KG DAAC string is the publisher',
  );

  assert.equal(corpus.publications.map((p) => p.id), ['10.1029/2018gl077621', 'title:c1baab1a8cbf']);
  const p0 = corpus.publications[0];
  assert.equal([p0.doi, p0.year, p0.abstract, p0.source], ['10.1029/2018gl077621', 2018, null, 'nasa-eo-kg']);
  const p1 = corpus.publications[1];
  assert.equal([p1.doi, p1.year, p1.abstract], [null, null, 'We describe the Mosaic land surface model.'], 'year "" reads as null');
  // Same id as the snapshot gives this title.
  assert.is(publicationIdFor(null, 'Energy and water balance calculations in the Mosaic LSM'), 'title:c1baab1a8cbf');

  assert.equal(
    corpus.links.map((l) => [l.publicationId, l.datasetId, l.relation]),
    [
      ['10.1029/2018gl077621', MLS, 'uses_dataset'],
      ['10.1029/2018gl077621', MERRA, 'uses_dataset'],
      ['10.1029/2018gl077621', CERES, 'cites'],
      ['title:c1baab1a8cbf', MLS, 'uses_dataset'],
      ['title:c1baab1a8cbf', CERES, 'uses_dataset'],
    ],
    'CITES Dataset -> Publication (cited -> citing) is the publication citing the dataset',
  );
  assert.equal(
    { datasets: report.datasets, publications: report.publications, links: report.links, citesLinks: report.citesLinks },
    { datasets: 3, publications: 2, links: 4, citesLinks: 1 },
  );
  assert.equal(report.skippedDatasets, { noConceptId: 0, invalid: 0, duplicate: 1 });
  assert.equal(report.skippedPublications, { emptyTitle: 2, noUsesDataset: 1, noLinkInCorpus: 1, invalid: 0, duplicate: 1 });
  assert.equal(report.skippedLinks, { dangling: 2, danglingToSkippedDatasets: 0, duplicate: 1 });
  assert.equal(report.cites, { publicationToPublication: 3, publicationToDataset: 2, reversed: 1 });
  assert.equal(report.nodeLabelCounts, { Dataset: 4, Publication: 7, ScienceKeyword: 2, Platform: 1, Instrument: 2, Project: 1, DataCenter: 2 });
  assert.equal(report.relationshipTypeCounts, {
    USES_DATASET: 7, CITES: 5, HAS_SCIENCEKEYWORD: 2, HAS_PLATFORM: 1, HAS_INSTRUMENT: 2, OF_PROJECT: 1, HAS_DATASET: 2, HAS_SUBCATEGORY: 1, HAS_APPLIEDRESEARCHAREA: 1,
  });
  assert.ok(formatKgCorpusReport(report).some((l) => l === 'skipped publications: emptyTitle 2, duplicate 1, noLinkInCorpus 1, noUsesDataset 1, invalid 0'));

  // The streaming reader gives the same corpus and report, and keeps only the properties the mapping reads.
  const streamed = await streamKgCorpus(file);
  assert.is(streamed.corpus.hash, corpus.hash);
  assert.equal(streamed.corpus.links, corpus.links);
  assert.equal(streamed.report, report);
  const slim = await streamKgExport(file, { nodeProperties: KG_CORPUS_PROPERTIES });
  const slimMerra = slim.nodes.find((n) => n.id === '0')!;
  assert.ok(!('pagerank_publication_dataset' in slimMerra.properties) && 'nwCorner' in slimMerra.properties && 'landingPageUrl' in slimMerra.properties);
  assert.ok(!('authors' in slim.nodes.find((n) => n.id === '10')!.properties));

  const more = loadKgCorpus(file, { keepUnlinkedPublications: true, instrumentsFromPlatforms: true });
  assert.equal(more.corpus.publications.map((p) => p.id).sort(), ['10.1029/2018gl077621', '10.5555/elsewhere', '10.5555/unlinked', 'title:c1baab1a8cbf']);
  assert.is(more.report.skippedPublications.emptyTitle, 2, 'stubs stay skipped');
  assert.equal(more.corpus.datasets[more.corpus.indexById.get(MLS)!].instruments, ['MLS', 'OMI']);
});

test('KG: every APOC jsonFormat (and gzip) gives the same corpus', async () => {
  const file = path.join(KG, 'apoc-export.jsonl');
  const entries = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
  const nodes = entries.filter((e) => e.type === 'node');
  const rels = entries.filter((e) => e.type === 'relationship');
  const dir = tmpDir();
  const variants: Record<string, unknown> = {
    'array.json': entries,
    'json.json': { nodes, rels },
    'idkeys.json': {
      nodes: Object.fromEntries(nodes.map(({ id, ...rest }) => [id, rest])),
      rels: Object.fromEntries(rels.map(({ id, ...rest }) => [id, rest])),
    },
  };
  const base = loadKgCorpus(file);
  const expectFormat: Record<string, string> = { 'array.json': 'apoc-array', 'json.json': 'apoc-json', 'idkeys.json': 'apoc-json-id-as-keys', 'export.jsonl.gz': 'apoc-jsonl' };
  for (const [name, doc] of Object.entries(variants)) fs.writeFileSync(path.join(dir, name), JSON.stringify(doc, null, 2));
  fs.writeFileSync(path.join(dir, 'export.jsonl.gz'), zlib.gzipSync(fs.readFileSync(file)));
  for (const name of Object.keys(expectFormat)) {
    const r = loadKgCorpus(path.join(dir, name));
    assert.is(r.report.format, expectFormat[name], name);
    assert.is(r.corpus.hash, base.corpus.hash, name);
    assert.equal(r.corpus.links, base.corpus.links, name);
    assert.equal(r.corpus.publications, base.corpus.publications, name);
    assert.equal(r.report.skippedLinks, base.report.skippedLinks, name);
    assert.equal(r.report.skippedPublications, base.report.skippedPublications, name);
  }
  assert.equal((await streamKgCorpus(path.join(dir, 'export.jsonl.gz'))).corpus.links, base.corpus.links, 'gzip streamed');
  // Line numbers survive in pretty-printed documents.
  throwsWith(() => loadKgCorpus(path.join(dir, 'json.json'), { dropDanglingLinks: false }), 'DATA_INVALID', /json\.json:\d+: field "end\.id" of USES_DATASET relationship 105/);
});

test('KG plain {nodes, relationships} document', () => {
  const { corpus, report } = loadKgCorpus(path.join(KG, 'plain-graph.json'));
  assert.is(report.format, 'plain-json');
  assert.equal(corpus.datasets.map((d) => d.id), [MERRA, 'C2036882064-POCLOUD']);
  const mur = corpus.datasets[1];
  assert.equal([mur.shortName, mur.longName, mur.keywords, mur.daac], ['MUR-JPL-L4-GLOB-v4.1', 'MUR-JPL-L4-GLOB-v4.1', ['oceans', 'sea surface temperature'], 'POCLOUD']);
  assert.is(corpus.datasets[0].doi, '10.5067/VJAFPLI1CSIV');
  assert.equal(corpus.publications.map((p) => [p.id, p.year, p.venue]), [
    ['10.1175/jcli-d-16-0758.1', 2017, 'J. Climate'],
    [publicationIdFor(null, 'A GHRSST study of coastal upwelling'), 2019, null],
  ]);
  assert.is(corpus.links.length, 3, 'a Dataset->Publication edge is read the other way round');
  assert.ok(corpus.links.some((l) => l.datasetId === 'C2036882064-POCLOUD' && l.publicationId.startsWith('title:')));
});

test('KG bad input names file, line and field', () => {
  const bad = (n: string) => path.join(KG, 'bad', n);
  throwsWith(() => loadKgCorpus(bad('not-json.jsonl')), 'DATA_PARSE', /not-json\.jsonl:2: invalid JSON/);
  throwsWith(() => loadKgCorpus(bad('rel-no-end.jsonl')), 'DATA_INVALID', /rel-no-end\.jsonl:3: field "end\.id" is required/);
  throwsWith(() => loadKgCorpus(bad('bad-type.jsonl')), 'DATA_INVALID', /bad-type\.jsonl:1: field "type" must be "node" or "relationship" \(got "vertex"\)/);
  throwsWith(() => loadKgCorpus(bad('dataset-no-title.jsonl')), 'DATA_INVALID', /dataset-no-title\.jsonl:2: field "properties\.longName" is required/);
  const skipped = loadKgCorpus(bad('dataset-no-title.jsonl'), { onInvalid: 'skip' });
  assert.equal([skipped.corpus.datasets.length, skipped.report.skippedDatasets.invalid], [1, 1]);
  throwsWith(
    () => loadKgCorpus(bad('bad-cmrid.jsonl'), { onMissingConceptId: 'error' }),
    'DATA_INVALID',
    /bad-cmrid\.jsonl:2: field "properties\.cmrId" does not hold a CMR collection concept id \(got "N\/A"\)/,
  );
  const noId = loadKgCorpus(bad('bad-cmrid.jsonl')).report;
  assert.equal([noId.skippedDatasets.noConceptId, noId.skippedLinks.danglingToSkippedDatasets, noId.links], [1, 1, 1]);
  assert.match(noId.examples[0], /bad-cmrid\.jsonl:2: field "properties\.cmrId" does not hold a CMR collection concept id \(got "N\/A"\) \(the real export never writes such a Dataset\)/);
  throwsWith(() => loadKgCorpus(bad('pub-bad-year.json')), 'DATA_INVALID', /pub-bad-year\.json:4: field "properties\.year" must be a year \(got "circa 1990"\)/);
  throwsWith(() => loadKgCorpus(bad('no-nodes.json')), 'DATA_INVALID', /no-nodes\.json:1: field "nodes" is required/);
  throwsWith(() => loadKgCorpus(path.join(KG, 'missing.jsonl')), 'DATA_NOT_FOUND', /file not found/);
  const dir = tmpDir();
  fs.writeFileSync(path.join(dir, 'dup.jsonl'), '{"type":"node","id":"1","labels":["Dataset"],"properties":{"cmrId":"C1-A","longName":"a"}}\n{"type":"node","id":"1","labels":["Dataset"],"properties":{"cmrId":"C2-A","longName":"b"}}\n');
  throwsWith(() => loadKgCorpus(path.join(dir, 'dup.jsonl')), 'DATA_INVALID', /dup\.jsonl:2: field "id" repeats node id "1" of .*dup\.jsonl:1/);
});

test('KG streamed reader: a bad line or a corrupt gzip names the file (and line)', async () => {
  const rejects = async (p: Promise<unknown>, code: string, re: RegExp) => {
    try {
      await p;
    } catch (e) {
      assert.is((e as any).code, code, (e as Error).message);
      assert.match((e as Error).message, re);
      return;
    }
    assert.unreachable(`should reject with ${re}`);
  };
  await rejects(streamKgCorpus(path.join(KG, 'bad', 'not-json.jsonl')), 'DATA_PARSE', /not-json\.jsonl:2: invalid JSON/);
  const dir = tmpDir();
  const good = zlib.gzipSync(fs.readFileSync(path.join(KG, 'apoc-export.jsonl')));
  const cut = path.join(dir, 'cut.jsonl.gz');
  fs.writeFileSync(cut, good.subarray(0, Math.floor(good.length / 2)));
  await rejects(streamKgCorpus(cut), 'DATA_PARSE', /cut\.jsonl\.gz: cannot read \(unexpected end of file\)/);
});

test('KG JSON lines are streamed across read-chunk boundaries', () => {
  const dir = tmpDir();
  const file = path.join(dir, 'big.jsonl');
  const pad = 'x'.repeat(400);
  const lines: string[] = [];
  const n = 12000; // about 6 MB: more than one 4 MiB read chunk
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ type: 'node', id: String(i), labels: ['Dataset'], properties: { cmrId: `C${i + 1}-BIG`, longName: `Dataset ${i} ünïcödé`, abstract: pad } }));
  lines.push(JSON.stringify({ type: 'node', id: 'p', labels: ['Publication'], properties: { doi: '10.1/big', title: 'Big paper' } }));
  lines.push(JSON.stringify({ type: 'relationship', id: 'r', label: 'USES_DATASET', start: { id: 'p' }, end: { id: String(n - 1) } }));
  fs.writeFileSync(file, lines.join('\r\n')); // CRLF and no final newline
  const g = readKgExport(file);
  assert.is(g.nodes.length, n + 1);
  const { corpus } = kgToCorpus(g);
  assert.is(corpus.datasets.length, n);
  assert.ok(corpus.datasets.every((d) => d.longName.endsWith('ünïcödé')));
  assert.equal(corpus.links.map((l) => l.datasetId), [`C${n}-BIG`]);
});

test('KG synthetic export in the real shape: the counts report matches the generator exactly', async () => {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { writeSyntheticKgExport } = require('../bench/lib/kg-synthetic-core.cjs');
  const file = path.join(tmpDir(), 'graph.jsonl');
  const sizes = {
    datasets: 40, publications: 300, relationships: 1200, usesPublications: 60, usesEdges: 134, stubShareOfRest: 0.75, citesDatasetEdges: 20,
    scienceKeywords: 30, platforms: 8, instruments: 10, projects: 6, dataCenters: 4, abstractChars: 200, seed: 7,
  };
  const { expected } = writeSyntheticKgExport(file, sizes);
  assert.is(expected.skippedPublications.emptyTitle, 180, 'three quarters of the 240 publications without datasets are stubs');
  const { corpus, report } = await streamKgCorpus(file);
  const { format, examples, ...counts } = report;
  assert.is(format, 'apoc-jsonl');
  assert.equal(counts, expected);
  assert.is(Object.values(report.relationshipTypeCounts).reduce((a, b) => a + b, 0), 1200);
  assert.is(corpus.datasets.length, 40);
  assert.ok(corpus.datasets.every((d) => d.daac === d.id.slice(d.id.indexOf('-') + 1) && d.landingPage !== null));
  // Same seed, same bytes.
  const again = path.join(tmpDir(), 'graph.jsonl');
  writeSyntheticKgExport(again, sizes);
  assert.ok(fs.readFileSync(again).equals(fs.readFileSync(file)));
});

test.run();
