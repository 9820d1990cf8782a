// A synthetic NASA EO Knowledge Graph export in the real shape (APOC JSON lines; see
// ../shared/notes/eo-kg-export-shape.md): Dataset, Publication (a stated share of them empty-title citing-only
// CITES stubs), ScienceKeyword, Platform, Instrument, Project and DataCenter nodes, then every relationship type
// in its real direction (CITES written cited -> citing; APOC 4.3+ endpoints with `properties` on some edges).
// Needs only the built library's PRNG (dist/lib/util/random), so the test suite can write a tiny one and the bench a
// paper-size one without loading the workbench.
// Deterministic: the same options give the same bytes.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { mulberry32 } = require('../../dist/lib/util/random');

/** NASA EO KG v1.2.0 as published: 138,704 Publication and 8,058 Dataset nodes, 436,203 relationships. */
const PAPER_KG_SIZE = Object.freeze({
  datasets: 8058,
  publications: 138704,
  relationships: 436203,
  // Publications with USES_DATASET edges: NASA-EO-Bench's 21,272 queries are two per publication,
  // and its 47,654 query-dataset pairs are 2.24 datasets per query.
  usesPublications: 10636,
  usesEdges: 23827,
  // Share of the other publications that are empty-title citing-only stubs (the export's real share is
  // unknown; stated here so the counts can be checked).
  stubShareOfRest: 0.8,
  // CITES edges whose cited end is a Dataset (one per publication, for this many USES_DATASET publications).
  citesDatasetEdges: 4000,
  scienceKeywords: 3000,
  platforms: 800,
  instruments: 1100,
  projects: 700,
  dataCenters: 60,
});

const PROVIDERS = [
  ['GES_DISC', 'NASA/GSFC/SED/ESD/GCDC/GESDISC'], ['LARC_ASDC', 'NASA/LARC/SD/ASDC'], ['POCLOUD', 'NASA/JPL/PODAAC'],
  ['NSIDC_ECS', 'NASA/NSIDC_DAAC'], ['ORNL_CLOUD', 'NASA/ORNL/DAAC'], ['LPDAAC_ECS', 'NASA/LPDAAC'], ['GHRC_DAAC', 'NASA/MSFC/GHRC'],
  ['OB_DAAC', 'NASA/GSFC/SED/ESD/GCDC/OB.DAAC'], ['ASF', 'NASA/ASF'], ['SEDAC', 'NASA/SEDAC'],
];
const WORDS = ('aerosol optical depth sea surface temperature soil moisture precipitation cloud fraction water vapor ozone column ' +
  'land cover vegetation index snow ice sheet elevation radiance reflectance albedo evapotranspiration carbon flux methane ' +
  'nitrogen dioxide wind speed ocean color chlorophyll salinity gravity anomaly surface deformation fire burned area ' +
  'daily monthly global regional gridded level swath retrieval satellite sensor instrument product version record climate ' +
  'trend variability model assimilation reanalysis validation observation campaign airborne station time series analysis').split(' ');

/** Resolved sizes and the counts a correct loader must report for them. */
function plan(options = {}) {
  const o = { ...PAPER_KG_SIZE, abstractChars: 1200, padChars: 0, seed: 1, ...options };
  const rest = o.publications - o.usesPublications;
  if (rest < 0) throw new Error('usesPublications exceeds publications');
  if (o.usesEdges < o.usesPublications || o.usesEdges > o.usesPublications * o.datasets) throw new Error('usesEdges out of range');
  const stubs = Math.round(rest * o.stubShareOfRest);
  const titledNoUses = rest - stubs;
  const citesDataset = Math.min(o.citesDatasetEdges, o.usesPublications);
  const sk = o.scienceKeywords;
  const skRoots = Math.max(1, Math.round(sk / 10));
  const rel = {
    USES_DATASET: o.usesEdges,
    // every stub and every titled publication without datasets cites one publication that uses datasets
    CITES: stubs + titledNoUses + citesDataset,
    HAS_DATASET: o.datasets,
    OF_PROJECT: o.datasets,
    HAS_PLATFORM: Math.round(1.5 * o.datasets),
    HAS_INSTRUMENT: Math.round(1.2 * o.instruments),
    HAS_SUBCATEGORY: sk - skRoots,
    HAS_APPLIEDRESEARCHAREA: o.usesPublications,
  };
  const fixed = Object.values(rel).reduce((a, b) => a + b, 0);
  rel.HAS_SCIENCEKEYWORD = o.relationships - fixed;
  if (rel.HAS_SCIENCEKEYWORD < o.datasets) throw new Error(`relationships ${o.relationships} too few for the other edge types (${fixed})`);
  const nodes = {
    Dataset: o.datasets, Publication: o.publications, ScienceKeyword: sk, Platform: o.platforms, Instrument: o.instruments,
    Project: o.projects, DataCenter: o.dataCenters,
  };
  const expected = {
    nodeLabelCounts: nodes,
    relationshipTypeCounts: rel,
    datasets: o.datasets,
    publications: o.usesPublications,
    links: o.usesEdges,
    citesLinks: citesDataset,
    skippedDatasets: { noConceptId: 0, invalid: 0, duplicate: 0 },
    skippedPublications: { emptyTitle: stubs, noUsesDataset: titledNoUses, noLinkInCorpus: 0, invalid: 0, duplicate: 0 },
    skippedLinks: { dangling: 0, danglingToSkippedDatasets: 0, duplicate: 0 },
    cites: { publicationToPublication: stubs + titledNoUses, publicationToDataset: citesDataset, reversed: 0 },
  };
  return { o, stubs, titledNoUses, citesDataset, skRoots, rel, nodes, expected };
}

/**
 * Write the export to `file` (JSON lines). Options (defaults: PAPER_KG_SIZE, abstractChars 1200, padChars 0, seed 1):
 * the sizes above, `abstractChars` (mean length of dataset and publication abstracts), `padChars` (characters of
 * an `authors` list on each titled publication: properties a loader parses and drops), `seed`.
 * Returns { file, bytes, expected } where `expected` is the counts report a correct loader gives.
 */
function writeSyntheticKgExport(file, options = {}) {
  const p = plan(options);
  const { o } = p;
  const rand = mulberry32(o.seed);
  const int = (n) => Math.floor(rand() * n);
  const text = (chars) => {
    const out = [];
    let len = 0;
    while (len < chars) {
      const w = WORDS[int(WORDS.length)];
      out.push(w);
      len += w.length + 1;
    }
    return out.join(' ');
  };
  const around = (mean) => Math.max(10, Math.round(mean * (0.5 + rand())));

  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let buf = [];
  let bufLen = 0;
  let bytes = 0;
  const line = (obj) => {
    const s = JSON.stringify(obj) + '\n';
    buf.push(s);
    bufLen += s.length;
    if (bufLen > 1 << 20) flush();
  };
  const flush = () => {
    const b = Buffer.from(buf.join(''), 'utf8');
    fs.writeSync(fd, b);
    bytes += b.length;
    buf = [];
    bufLen = 0;
  };

  let nextId = 0;
  const ids = (n) => Array.from({ length: n }, () => String(nextId++));
  const dsIds = ids(o.datasets);
  const pubIds = ids(o.publications);
  const skIds = ids(o.scienceKeywords);
  const platIds = ids(o.platforms);
  const instIds = ids(o.instruments);
  const projIds = ids(o.projects);
  const dcIds = ids(o.dataCenters);
  const node = (id, label, properties) => line({ type: 'node', id, labels: [label], properties });

  // Datasets
  const cmrIdOf = (i) => `C${1000000000 + i}-${PROVIDERS[i % PROVIDERS.length][0]}`;
  for (let i = 0; i < o.datasets; i++) {
    const prov = PROVIDERS[i % PROVIDERS.length];
    const missingName = i % 17 === 0;
    node(dsIds[i], 'Dataset', {
      globalId: `ds-${i}`, doi: `10.5067/SYN/${i}`, shortName: missingName ? 'N/A' : `SYN_${i}`, longName: `Synthetic ${text(60)} ${i}`,
      daac: i % 23 === 0 ? 'N/A' : prov[1], abstract: i % 29 === 0 ? 'N/A' : text(around(o.abstractChars)), cmrId: cmrIdOf(i),
      temporalExtentStart: '2000-01-01T00:00:00.000Z', temporalExtentEnd: i % 3 === 0 ? '' : '2020-12-31T23:59:59.999Z', temporalFrequency: 'Daily',
      landingPageUrl: `https://doi.org/10.5067/SYN/${i}`, pagerank_publication_dataset: rand(),
      nwCorner: { srid: 4326, x: -180, y: 90 }, seCorner: { srid: 4326, x: 180, y: -90 },
    });
  }
  // Publications: [0, uses) use datasets; [uses, uses + titledNoUses) titled without datasets; the rest are stubs.
  const uses = o.usesPublications;
  const pad = o.padChars > 0 ? [text(o.padChars)] : [];
  for (let i = 0; i < o.publications; i++) {
    if (i < uses + p.titledNoUses) {
      node(pubIds[i], 'Publication', {
        globalId: `pub-${i}`, doi: i % 11 === 0 ? '' : `10.9999/syn.${i}`, title: `${text(around(90))} ${i}`, year: i % 13 === 0 ? '' : String(1990 + (i % 35)),
        abstract: i % 7 === 0 ? '' : text(around(o.abstractChars)), authors: ['A. Author', 'B. Author', ...pad],
      });
    } else node(pubIds[i], 'Publication', { globalId: `pub-${i}`, doi: `10.9999/stub.${i}`, title: '', year: '', abstract: '', authors: [] });
  }
  for (let i = 0; i < o.scienceKeywords; i++) node(skIds[i], 'ScienceKeyword', { globalId: `sk-${i}`, name: `${WORDS[i % WORDS.length].toUpperCase()} ${i}` });
  for (let i = 0; i < o.platforms; i++) node(platIds[i], 'Platform', { globalId: `pl-${i}`, shortName: `PLAT-${i}`, longName: `Platform ${i}`, Type: 'Earth Observation Satellites' });
  for (let i = 0; i < o.instruments; i++) node(instIds[i], 'Instrument', { globalId: `in-${i}`, shortName: `INST-${i}`, longName: `Instrument ${i}` });
  for (let i = 0; i < o.projects; i++) node(projIds[i], 'Project', { globalId: `pr-${i}`, shortName: `PROJ-${i}`, longName: `Project ${i}` });
  for (let i = 0; i < o.dataCenters; i++) node(dcIds[i], 'DataCenter', { globalId: `dc-${i}`, shortName: PROVIDERS[i % PROVIDERS.length][1] + (i < PROVIDERS.length ? '' : `/${i}`), longName: `Data center ${i}`, url: 'https://earthdata.nasa.gov/' });

  let relId = 0;
  const rel = (label, start, startLabel, end, endLabel, withProps) => {
    const s = { id: start, labels: [startLabel] };
    const e = { id: end, labels: [endLabel] };
    if (withProps) {
      s.properties = {};
      e.properties = {};
    }
    line({ type: 'relationship', id: String(relId++), label, properties: {}, start: s, end: e });
  };
  // USES_DATASET: publication i gets 1 + extra distinct datasets; extras spread so the total is usesEdges.
  const extra = o.usesEdges - uses;
  for (let i = 0; i < uses; i++) {
    const k = 1 + Math.floor(((i + 1) * extra) / uses) - Math.floor((i * extra) / uses);
    const first = int(o.datasets);
    for (let j = 0; j < k; j++) rel('USES_DATASET', pubIds[i], 'Publication', dsIds[(first + j) % o.datasets], 'Dataset', (i + j) % 5 === 0);
  }
  // CITES, written cited -> citing: every other publication cites one that uses datasets; some publications cite a dataset.
  for (let i = uses; i < o.publications; i++) rel('CITES', pubIds[int(uses)], 'Publication', pubIds[i], 'Publication', i % 7 === 0);
  for (let i = 0; i < p.citesDataset; i++) rel('CITES', dsIds[int(o.datasets)], 'Dataset', pubIds[i], 'Publication', false);
  for (let i = 0; i < o.datasets; i++) rel('HAS_DATASET', dcIds[i % o.dataCenters], 'DataCenter', dsIds[i], 'Dataset', false);
  for (let i = 0; i < o.datasets; i++) rel('OF_PROJECT', dsIds[i], 'Dataset', projIds[int(o.projects)], 'Project', false);
  for (let j = 0; j < p.rel.HAS_PLATFORM; j++) rel('HAS_PLATFORM', dsIds[j % o.datasets], 'Dataset', platIds[int(o.platforms)], 'Platform', false);
  for (let j = 0; j < p.rel.HAS_INSTRUMENT; j++) rel('HAS_INSTRUMENT', platIds[int(o.platforms)], 'Platform', instIds[j % o.instruments], 'Instrument', false);
  for (let i = p.skRoots; i < o.scienceKeywords; i++) rel('HAS_SUBCATEGORY', skIds[int(p.skRoots)], 'ScienceKeyword', skIds[i], 'ScienceKeyword', false);
  for (let i = 0; i < uses; i++) rel('HAS_APPLIEDRESEARCHAREA', pubIds[i], 'Publication', skIds[int(o.scienceKeywords)], 'ScienceKeyword', false);
  for (let j = 0; j < p.rel.HAS_SCIENCEKEYWORD; j++) rel('HAS_SCIENCEKEYWORD', dsIds[j % o.datasets], 'Dataset', skIds[int(o.scienceKeywords)], 'ScienceKeyword', false);
  flush();
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  return { file, bytes, options: o, expected: p.expected };
}

module.exports = { PAPER_KG_SIZE, plan, writeSyntheticKgExport };
