/**
 * NASA EO Knowledge Graph export (Neo4j; built by the `nasa/edgraph` ingest scripts and published as
 * `nasa-gesdisc/nasa-eo-knowledge-graph`) → Corpus. Reading the file is kg-graph.ts (lines: kg-lines.ts).
 *
 * Node and relationship names follow nasa/edgraph (see ../shared/notes/eo-kg-export-shape.md):
 * - `Dataset` {globalId, doi, shortName, longName, daac (e.g. "NASA/LARC/SD/ASDC"), abstract, cmrId, temporalExtentStart,
 *   temporalExtentEnd, temporalFrequency, landingPageUrl, …}; missing names/DAAC are the string `"N/A"` (read as null).
 *   The real export writes a Dataset only when it has a DOI and a CMR id; one without is skipped and counted.
 *   `id` is the cmrId; `daac` is its CMR provider (as in the snapshot); the KG's `daac` string is kept as `publisher`.
 * - `Publication` {globalId, doi, title, year ("2021" or ""), abstract ("" when none), authors}. Publications created
 *   only as the citing end of a CITES edge have an empty title: they are skipped and counted, as are publications
 *   without a USES_DATASET edge.
 * - `(Publication)-[:USES_DATASET]->(Dataset)`: the benchmark's labels (relation `uses_dataset`).
 * - `CITES` is written cited → citing. When the cited node is a Dataset, the edge becomes a `cites` link of the citing
 *   publication (only for publications kept for their USES_DATASET edges); Publication → Publication citations are counted.
 * - enrichment: `(Dataset)-[:HAS_SCIENCEKEYWORD]->(ScienceKeyword {name})`, `(Dataset)-[:HAS_PLATFORM]->(Platform {shortName})`,
 *   `(Platform)-[:HAS_INSTRUMENT]->(Instrument {shortName})`, `(Dataset)-[:OF_PROJECT]->(Project {shortName})`,
 *   `(DataCenter {shortName})-[:HAS_DATASET]->(Dataset)`.
 */
import { createHash } from 'node:crypto';
import { EoError } from '../errors';
import { bareDoi } from './cmr-record';
import { makeCorpus } from './corpus';
import { readKgExport, streamKgExport, type KgExportFormat, type KgGraph, type KgNode, type ReadKgExportOptions } from './kg-graph';
import type { Corpus, DatasetRecord, Publication, PublicationLink } from './types';
import { conceptIdProvider, isConceptId, optStringField, validateDataset, validatePublication, type FieldFail } from './validate';

/** Value of `source`/`sources` on records read from the knowledge graph. */
export const KG_SOURCE = 'nasa-eo-kg';
/** `relation` of links made from USES_DATASET edges. */
export const KG_USES_DATASET_RELATION = 'uses_dataset';
/** `relation` of links made from CITES edges whose cited end is a Dataset. */
export const KG_CITES_RELATION = 'cites';

/** Properties that may hold a Dataset's CMR concept id, in order. */
const CONCEPT_ID_PROPS = ['cmrId', 'cmr_id', 'CMR_ID', 'conceptId', 'concept_id', 'collectionConceptId', 'id', 'globalId'];
/** Property names read for each record field (first present wins). */
const DATASET_PROPS = {
  shortName: ['shortName', 'ShortName', 'short_name'],
  longName: ['longName', 'LongName', 'entryTitle', 'EntryTitle', 'title'],
  abstract: ['abstract', 'Abstract', 'description'],
  doi: ['doi', 'DOI'],
  publisher: ['daac', 'publisher', 'dataCenter'],
  temporalStart: ['temporalExtentStart', 'temporalStart'],
  temporalEnd: ['temporalExtentEnd', 'temporalEnd'],
  keywords: ['keywords', 'scienceKeywords'],
  platforms: ['platforms'],
  instruments: ['instruments'],
  projects: ['projects'],
  processingLevel: ['processingLevel', 'processingLevelId'],
  landingPage: ['landingPageUrl', 'landingPage', 'url'],
} as const;
const PUBLICATION_PROPS = {
  doi: ['doi', 'DOI'],
  title: ['title', 'Title'],
  year: ['year', 'Year', 'publicationYear'],
  abstract: ['abstract', 'Abstract'],
  venue: ['venue', 'journal', 'containerTitle', 'publicationVenue'],
} as const;
const NAME_PROPS = ['name', 'shortName', 'longName'];
/** Spatial extent of a Dataset in the live graph: two Neo4j points (x = longitude, y = latitude). */
const CORNER_PROPS = ['nwCorner', 'seCorner'];

/** A Neo4j point as APOC exports it (`{x, y}` or `{longitude, latitude}`), or null. */
function pointLonLat(v: unknown): [number, number] | null {
  if (v === null || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const lon = typeof o.x === 'number' ? o.x : o.longitude;
  const lat = typeof o.y === 'number' ? o.y : o.latitude;
  return typeof lon === 'number' && typeof lat === 'number' ? [lon, lat] : null;
}

/** `[west, south, east, north]` from the nwCorner / seCorner points, or null when either is missing. */
function cornersBBox(n: KgNode): [number, number, number, number] | null {
  const nw = pointLonLat(n.properties.nwCorner);
  const se = pointLonLat(n.properties.seCorner);
  return nw && se ? [nw[0], se[1], se[0], nw[1]] : null;
}

/** The properties the Corpus mapping reads, per label: what the corpus loaders keep of each node. */
export const KG_CORPUS_PROPERTIES: Readonly<Record<string, readonly string[]>> = {
  Dataset: [...CONCEPT_ID_PROPS, ...Object.values(DATASET_PROPS).flat(), ...CORNER_PROPS],
  Publication: Object.values(PUBLICATION_PROPS).flat(),
  ScienceKeyword: NAME_PROPS,
  Platform: NAME_PROPS,
  Instrument: NAME_PROPS,
  Project: NAME_PROPS,
  DataCenter: NAME_PROPS,
};

/** Strings the export uses for "missing". */
const PLACEHOLDER = /^(n\/a|na|none|null|not provided|unknown)$/i;

/** Title normalised as in the snapshot: lower-case ASCII letters/digits separated by single spaces. */
export function normalizePublicationTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Publication id as in the snapshot: lower-case bare DOI, else `title:` + first 12 hex of SHA-1 of the normalised title. */
export function publicationIdFor(doi: string | null, title: string): string {
  const d = bareDoi(doi);
  if (d) return d.toLowerCase();
  return `title:${createHash('sha1').update(normalizePublicationTitle(title)).digest('hex').slice(0, 12)}`;
}

export interface KgToCorpusOptions {
  /** Corpus origin. Default: the export file. */
  origin?: string;
  /**
   * Drop USES_DATASET edges whose publication or dataset is not in the corpus (missing from the export, or skipped)
   * and count them; `false` throws on the first one, naming the relationship's file:line. Default true.
   */
  dropDanglingLinks?: boolean;
  /** A Dataset node with no property holding a CMR collection concept id: `skip` (default, counted) or `error`. */
  onMissingConceptId?: 'skip' | 'error';
  /** A Dataset/Publication node with unusable content (no dataset title, wrong types): `error` (default) or `skip` (counted). */
  onInvalid?: 'error' | 'skip';
  /** Keep titled publications that end up with no USES_DATASET link into the corpus. Default false (the snapshot keeps only linked ones). */
  keepUnlinkedPublications?: boolean;
  /**
   * Give each dataset the instruments of its platforms (HAS_PLATFORM → HAS_INSTRUMENT). Default false: in the KG,
   * Platform→Instrument edges are global, so this lists every instrument ever flown on the platform.
   */
  instrumentsFromPlatforms?: boolean;
}

/** What the mapping kept and skipped, by reason. */
export interface KgCorpusReport {
  format: KgExportFormat;
  /** Nodes per label over the whole export. */
  nodeLabelCounts: Record<string, number>;
  /** Relationships per type over the whole export. */
  relationshipTypeCounts: Record<string, number>;
  /** Datasets, publications and links in the corpus (links: USES_DATASET ones; CITES ones in `citesLinks`). */
  datasets: number;
  publications: number;
  links: number;
  citesLinks: number;
  skippedDatasets: {
    /** No property holds a CMR concept id (the real export never writes such a node). */
    noConceptId: number;
    /** Unusable content, with `onInvalid: 'skip'`. */
    invalid: number;
    /** Concept id repeats an earlier node's (merged into the first). */
    duplicate: number;
  };
  skippedPublications: {
    /** Empty title: citing-only stubs made by CITES edges. */
    emptyTitle: number;
    /** Titled, but no USES_DATASET edge in the export. */
    noUsesDataset: number;
    /** USES_DATASET edges only to datasets not in the corpus. */
    noLinkInCorpus: number;
    /** Unusable content, with `onInvalid: 'skip'`. */
    invalid: number;
    /** Id (DOI / title hash) repeats an earlier node's (merged into the first). */
    duplicate: number;
  };
  skippedLinks: {
    /** USES_DATASET edges with an end not in the corpus. */
    dangling: number;
    /** Of those, edges to Dataset nodes skipped for lack of a concept id. */
    danglingToSkippedDatasets: number;
    /** USES_DATASET / CITES edges repeating a (publication, dataset, relation). */
    duplicate: number;
  };
  cites: {
    /** CITES edges between two publications (not used by the corpus). */
    publicationToPublication: number;
    /** CITES edges whose cited end is a Dataset. */
    publicationToDataset: number;
    /** CITES edges written citing → cited (against the export's usual direction), read the other way round. */
    reversed: number;
  };
  /** Up to 20 messages about skipped nodes and edges, for a quick look. */
  examples: string[];
}

export interface KgCorpusResult {
  corpus: Corpus;
  report: KgCorpusReport;
}

class SkipNode extends Error {}

/** What the mapping steps share: the graph's indexes, the options and the report they fill. */
interface KgMapping {
  file: string;
  opts: KgToCorpusOptions;
  report: KgCorpusReport;
  nodeById: Map<string, KgNode>;
  /** Enrichment edges per node, by type: `out` from start to end, `inc` from end to start (USES_DATASET and CITES are read apart). */
  out: Map<string, Map<string, string[]>>;
  inc: Map<string, Map<string, string[]>>;
  /** The publication end of every USES_DATASET edge. */
  usesPubNodes: Set<string>;
}

/** The datasets mapped so far and which KG nodes they came from (or were skipped). */
interface KgDatasets {
  datasets: Map<string, DatasetRecord>;
  datasetIdByNode: Map<string, string>;
  skippedDatasetNodes: Set<string>;
}

function emptyKgReport(graph: KgGraph): KgCorpusReport {
  return {
    format: graph.format,
    nodeLabelCounts: graph.nodeLabelCounts,
    relationshipTypeCounts: graph.relationshipTypeCounts,
    datasets: 0,
    publications: 0,
    links: 0,
    citesLinks: 0,
    skippedDatasets: { noConceptId: 0, invalid: 0, duplicate: 0 },
    skippedPublications: { emptyTitle: 0, noUsesDataset: 0, noLinkInCorpus: 0, invalid: 0, duplicate: 0 },
    skippedLinks: { dangling: 0, danglingToSkippedDatasets: 0, duplicate: 0 },
    cites: { publicationToPublication: 0, publicationToDataset: 0, reversed: 0 },
    examples: [],
  };
}

function noteExample(report: KgCorpusReport, m: string): void {
  if (report.examples.length < 20) report.examples.push(m);
}

function pushEdge(m: Map<string, Map<string, string[]>>, a: string, type: string, b: string): void {
  let byType = m.get(a);
  if (!byType) m.set(a, (byType = new Map()));
  let list = byType.get(type);
  if (!list) byType.set(type, (list = []));
  list.push(b);
}

/** Index the graph's nodes by id (a repeated id is an error) and its enrichment edges both ways. */
function indexKgGraph(graph: KgGraph, opts: KgToCorpusOptions): KgMapping {
  const file = graph.file;
  const nodeById = new Map<string, KgNode>();
  for (const n of graph.nodes) {
    const prev = nodeById.get(n.id);
    if (prev) throw new EoError('DATA_INVALID', `${file}:${n.line}: field "id" repeats node id "${n.id}" of ${file}:${prev.line}`, { file, line: n.line, field: 'id' });
    nodeById.set(n.id, n);
  }
  const m: KgMapping = { file, opts, report: emptyKgReport(graph), nodeById, out: new Map(), inc: new Map(), usesPubNodes: new Set() };
  for (const r of graph.relationships) {
    if (r.type === 'USES_DATASET') m.usesPubNodes.add(hasLabel(m, r.start, 'Dataset') && hasLabel(m, r.end, 'Publication') ? r.end : r.start);
    else if (r.type !== 'CITES') {
      pushEdge(m.out, r.start, r.type, r.end);
      pushEdge(m.inc, r.end, r.type, r.start);
    }
  }
  return m;
}

function hasLabel(m: KgMapping, id: string, label: string): boolean {
  return m.nodeById.get(id)?.labels.includes(label) ?? false;
}

function edgeTargets(edges: Map<string, Map<string, string[]>>, id: string, type: string): string[] {
  return edges.get(id)?.get(type) ?? [];
}

// Property readers (validate.ts field readers, failing per `onInvalid`).
function kgProp(n: KgNode, names: readonly string[]): { key: string; value: unknown } | null {
  for (const k of names) if (n.properties[k] !== undefined && n.properties[k] !== null) return { key: k, value: n.properties[k] };
  return null;
}

/** The field failure of node `n`: a coded error, or with `onInvalid: 'skip'` a counted, noted SkipNode. */
function kgFieldFail(m: KgMapping, n: KgNode, kind: 'dataset' | 'publication'): FieldFail {
  return (field, why) => {
    const msg = `${m.file}:${n.line}: field "${field}" ${why}`;
    if ((m.opts.onInvalid ?? 'error') === 'skip') {
      m.report[kind === 'dataset' ? 'skippedDatasets' : 'skippedPublications'].invalid++;
      noteExample(m.report, msg);
      throw new SkipNode(msg);
    }
    throw new EoError('DATA_INVALID', msg, { file: m.file, line: n.line, field, nodeId: n.id });
  };
}

function kgStr(n: KgNode, names: readonly string[], fail: FieldFail): string | null {
  const p = kgProp(n, names);
  return p === null ? null : optStringField(n.properties, p.key, fail, { field: `properties.${p.key}`, blankAsNull: true, placeholder: PLACEHOLDER });
}

function kgStrList(n: KgNode, names: readonly string[], fail: FieldFail): string[] {
  const p = kgProp(n, names);
  if (p === null) return [];
  if (typeof p.value === 'string') return p.value.trim() === '' ? [] : [p.value.trim()];
  if (!Array.isArray(p.value) || p.value.some((x) => typeof x !== 'string')) fail(`properties.${p.key}`, 'must be a string or an array of strings');
  return (p.value as string[]).map((s) => s.trim()).filter((s) => s !== '');
}

/** The first non-blank, non-placeholder name property of node `id`. */
function kgNodeName(m: KgMapping, id: string, names: readonly string[]): string | null {
  const t = m.nodeById.get(id);
  if (!t) return null;
  for (const k of names) {
    const v = t.properties[k];
    if (typeof v === 'string' && v.trim() !== '' && !PLACEHOLDER.test(v.trim())) return v.trim();
  }
  return null;
}

function addUnique(list: string[], s: string | null): void {
  if (s !== null && !list.includes(s)) list.push(s);
}

/**
 * The CMR concept id of a Dataset node, or null when it has none (counted and noted; an error with
 * `onMissingConceptId: 'error'`).
 */
function kgDatasetConceptId(m: KgMapping, n: KgNode): string | null {
  let badKey: string | null = null;
  for (const k of CONCEPT_ID_PROPS) {
    const v = n.properties[k];
    if (typeof v === 'string' && isConceptId(v.trim())) return v.trim();
    if (badKey === null && v !== undefined && v !== null && v !== '' && k !== 'id' && k !== 'globalId') badKey = k;
  }
  const why = badKey
    ? `does not hold a CMR collection concept id (got ${JSON.stringify(n.properties[badKey])})`
    : `is missing: no property (${CONCEPT_ID_PROPS.join(', ')}) holds a CMR collection concept id`;
  const field = `properties.${badKey ?? 'cmrId'}`;
  const msg = `${m.file}:${n.line}: field "${field}" ${why} (the real export never writes such a Dataset)`;
  if ((m.opts.onMissingConceptId ?? 'skip') === 'error') throw new EoError('DATA_INVALID', msg, { file: m.file, line: n.line, field, nodeId: n.id });
  m.report.skippedDatasets.noConceptId++;
  noteExample(m.report, msg);
  return null;
}

/** A Dataset node's record: its own properties, enriched from its keyword, platform, instrument, project and publisher nodes. */
function kgDatasetRecord(m: KgMapping, n: KgNode, id: string, fail: FieldFail): DatasetRecord {
  const shortName = kgStr(n, DATASET_PROPS.shortName, fail);
  const longName = kgStr(n, DATASET_PROPS.longName, fail) ?? shortName;
  if (longName === null) fail('properties.longName', 'is required (a non-empty title; shortName is used when longName is "N/A")');
  const keywords: string[] = [];
  for (const k of kgStrList(n, DATASET_PROPS.keywords, fail)) addUnique(keywords, k.toLowerCase());
  for (const t of edgeTargets(m.out, n.id, 'HAS_SCIENCEKEYWORD')) {
    const name = kgNodeName(m, t, ['name', 'shortName']);
    addUnique(keywords, name === null ? null : name.toLowerCase());
  }
  const platforms = kgStrList(n, DATASET_PROPS.platforms, fail);
  const platformNodes = edgeTargets(m.out, n.id, 'HAS_PLATFORM');
  for (const t of platformNodes) addUnique(platforms, kgNodeName(m, t, ['shortName', 'name']));
  const instruments = kgStrList(n, DATASET_PROPS.instruments, fail);
  if (m.opts.instrumentsFromPlatforms)
    for (const p of platformNodes) for (const t of edgeTargets(m.out, p, 'HAS_INSTRUMENT')) addUnique(instruments, kgNodeName(m, t, ['shortName', 'name']));
  const projects = kgStrList(n, DATASET_PROPS.projects, fail);
  for (const t of edgeTargets(m.out, n.id, 'OF_PROJECT')) addUnique(projects, kgNodeName(m, t, ['shortName', 'name']));
  let publisher = kgStr(n, DATASET_PROPS.publisher, fail);
  if (publisher === null) for (const t of edgeTargets(m.inc, n.id, 'HAS_DATASET')) publisher = publisher ?? kgNodeName(m, t, ['shortName', 'longName', 'name']);
  const record = {
    id,
    shortName,
    longName,
    abstract: (kgStr(n, DATASET_PROPS.abstract, fail) ?? '').replace(/\r\n?/g, '\n'),
    doi: bareDoi(kgStr(n, DATASET_PROPS.doi, fail)),
    daac: conceptIdProvider(id),
    publisher,
    temporalStart: kgStr(n, DATASET_PROPS.temporalStart, fail),
    temporalEnd: kgStr(n, DATASET_PROPS.temporalEnd, fail),
    bbox: cornersBBox(n),
    keywords,
    platforms,
    instruments,
    projects,
    processingLevel: kgStr(n, DATASET_PROPS.processingLevel, fail),
    landingPage: kgStr(n, DATASET_PROPS.landingPage, fail),
    shortNameSource: shortName !== null ? KG_SOURCE : null,
    catalogRecordComplete: true,
    sources: [KG_SOURCE],
  };
  return validateDataset(record, { file: m.file, line: n.line });
}

function mapKgDatasets(m: KgMapping, graph: KgGraph): KgDatasets {
  const r: KgDatasets = { datasets: new Map(), datasetIdByNode: new Map(), skippedDatasetNodes: new Set() };
  for (const n of graph.nodes) {
    if (!n.labels.includes('Dataset')) continue;
    try {
      const id = kgDatasetConceptId(m, n);
      if (id === null) {
        r.skippedDatasetNodes.add(n.id);
        continue;
      }
      if (r.datasets.has(id)) m.report.skippedDatasets.duplicate++;
      else r.datasets.set(id, kgDatasetRecord(m, n, id, kgFieldFail(m, n, 'dataset')));
      r.datasetIdByNode.set(n.id, id);
    } catch (e) {
      if (!(e instanceof SkipNode)) throw e;
      r.skippedDatasetNodes.add(n.id);
    }
  }
  return r;
}

/** A publication's year: an integer, or a string starting with four digits; blank and placeholders are null. */
function kgYear(n: KgNode, fail: FieldFail): number | null {
  const y = kgProp(n, PUBLICATION_PROPS.year);
  if (y === null) return null;
  if (typeof y.value === 'number' && Number.isInteger(y.value)) return y.value;
  if (typeof y.value === 'string' && /^\d{4}\b/.test(y.value.trim())) return Number(y.value.trim().slice(0, 4));
  if (!(typeof y.value === 'string' && (y.value.trim() === '' || PLACEHOLDER.test(y.value.trim()))))
    fail(`properties.${y.key}`, `must be a year (got ${JSON.stringify(y.value)})`);
  return null;
}

/** Publications: stubs and publications without USES_DATASET are counted, not mapped. */
function mapKgPublications(m: KgMapping, graph: KgGraph): { publications: Map<string, Publication>; pubIdByNode: Map<string, string> } {
  const keepUnlinked = m.opts.keepUnlinkedPublications ?? false;
  const pubIdByNode = new Map<string, string>();
  const publications = new Map<string, Publication>();
  for (const n of graph.nodes) {
    if (!n.labels.includes('Publication')) continue;
    const fail = kgFieldFail(m, n, 'publication');
    try {
      const title = kgStr(n, PUBLICATION_PROPS.title, fail);
      if (title === null) {
        m.report.skippedPublications.emptyTitle++;
        continue;
      }
      if (!keepUnlinked && !m.usesPubNodes.has(n.id)) {
        m.report.skippedPublications.noUsesDataset++;
        continue;
      }
      const doi = bareDoi(kgStr(n, PUBLICATION_PROPS.doi, fail));
      const year = kgYear(n, fail);
      let abstract = kgStr(n, PUBLICATION_PROPS.abstract, fail);
      if (abstract !== null && /^no abstract available\.?$/i.test(abstract)) abstract = null;
      const id = publicationIdFor(doi, title);
      if (publications.has(id)) {
        m.report.skippedPublications.duplicate++;
        pubIdByNode.set(n.id, id);
        continue;
      }
      const rec = { id, doi: doi ? doi.toLowerCase() : null, title, abstract, year, venue: kgStr(n, PUBLICATION_PROPS.venue, fail), source: KG_SOURCE, sources: [KG_SOURCE] };
      publications.set(id, validatePublication(rec, { file: m.file, line: n.line }));
      pubIdByNode.set(n.id, id);
    } catch (e) {
      if (!(e instanceof SkipNode)) throw e;
    }
  }
  return { publications, pubIdByNode };
}

/** The USES_DATASET and CITES edges between mapped publications and datasets, each link once. */
function mapKgLinks(m: KgMapping, graph: KgGraph, ds: KgDatasets, pubIdByNode: Map<string, string>): PublicationLink[] {
  const { report } = m;
  const has = (id: string, label: string) => hasLabel(m, id, label);
  const dropDangling = m.opts.dropDanglingLinks ?? true;
  const linkKeys = new Set<string>();
  const links: PublicationLink[] = [];
  const addLink = (pubId: string, dsId: string, relation: string, type: string): boolean => {
    const key = `${pubId}\u0001${dsId}\u0001${relation}`;
    if (linkKeys.has(key)) {
      report.skippedLinks.duplicate++;
      return false;
    }
    linkKeys.add(key);
    links.push({ publicationId: pubId, datasetId: dsId, relation, source: `${KG_SOURCE}:${type}`, sources: [`${KG_SOURCE}:${type}`] });
    return true;
  };
  for (const r of graph.relationships) {
    if (r.type === 'CITES') {
      // Written cited → citing; read the other way round when the labels say so.
      let cited = r.start;
      let citing = r.end;
      if (has(cited, 'Publication') && has(citing, 'Dataset')) {
        [cited, citing] = [citing, cited];
        report.cites.reversed++;
      }
      if (has(cited, 'Dataset')) {
        report.cites.publicationToDataset++;
        const pubId = pubIdByNode.get(citing);
        const dsId = ds.datasetIdByNode.get(cited);
        if (pubId !== undefined && dsId !== undefined && addLink(pubId, dsId, KG_CITES_RELATION, 'CITES')) report.citesLinks++;
      } else report.cites.publicationToPublication++;
      continue;
    }
    if (r.type !== 'USES_DATASET') continue;
    let pubNode = r.start;
    let dsNode = r.end;
    if (has(r.start, 'Dataset') && has(r.end, 'Publication')) [pubNode, dsNode] = [r.end, r.start];
    const pubId = pubIdByNode.get(pubNode);
    const dsId = ds.datasetIdByNode.get(dsNode);
    if (pubId === undefined || dsId === undefined) {
      const why =
        pubId === undefined
          ? `start node ${pubNode} is not a Publication in the corpus${m.nodeById.has(pubNode) ? '' : ' (not in the export)'}`
          : `end node ${dsNode} is not a Dataset in the corpus${ds.skippedDatasetNodes.has(dsNode) ? ' (skipped: no concept id or invalid)' : m.nodeById.has(dsNode) ? '' : ' (not in the export)'}`;
      const field = pubId === undefined ? 'start.id' : 'end.id';
      if (!dropDangling)
        throw new EoError('DATA_INVALID', `${m.file}:${r.line}: field "${field}" of USES_DATASET relationship ${r.id ?? ''}: ${why}`, { file: m.file, line: r.line, field });
      report.skippedLinks.dangling++;
      if (pubId !== undefined && ds.skippedDatasetNodes.has(dsNode)) report.skippedLinks.danglingToSkippedDatasets++;
      continue;
    }
    addLink(pubId, dsId, KG_USES_DATASET_RELATION, 'USES_DATASET');
  }
  return links;
}

/** Map a KgGraph to a Corpus (see the module comment for the property mapping). */
export function kgToCorpus(graph: KgGraph, opts: KgToCorpusOptions = {}): KgCorpusResult {
  const m = indexKgGraph(graph, opts);
  const { report } = m;
  const ds = mapKgDatasets(m, graph);
  const { publications, pubIdByNode } = mapKgPublications(m, graph);
  const links = mapKgLinks(m, graph, ds, pubIdByNode);

  const usesLinked = new Set(links.filter((l) => l.relation === KG_USES_DATASET_RELATION).map((l) => l.publicationId));
  let pubs = [...publications.values()];
  if (!(opts.keepUnlinkedPublications ?? false)) {
    const before = pubs.length;
    pubs = pubs.filter((p) => usesLinked.has(p.id));
    report.skippedPublications.noLinkInCorpus = before - pubs.length;
  }
  const byId = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  const datasets = [...ds.datasets.values()].sort(byId((d: DatasetRecord) => d.id));
  pubs.sort(byId((p: Publication) => p.id));
  links.sort(byId((l: PublicationLink) => `${l.publicationId}\u0001${l.datasetId}\u0001${l.relation}`));
  const corpus = makeCorpus(datasets, pubs, links, opts.origin ?? graph.file, { dropDanglingLinks: true });
  report.datasets = corpus.datasets.length;
  report.publications = corpus.publications.length;
  report.links = corpus.links.filter((l) => l.relation === KG_USES_DATASET_RELATION).length;
  report.citesLinks = corpus.links.length - report.links;
  return { corpus, report };
}

/** Corpus loaders read only the labels/properties the mapping uses, unless told otherwise. */
function corpusReadOptions(opts: ReadKgExportOptions): ReadKgExportOptions {
  return { ...opts, nodeProperties: opts.nodeProperties === undefined ? KG_CORPUS_PROPERTIES : opts.nodeProperties };
}

/** readKgExport + kgToCorpus (synchronous; for small exports and the document formats). */
export function loadKgCorpus(file: string, opts: KgToCorpusOptions & ReadKgExportOptions = {}): KgCorpusResult {
  return kgToCorpus(readKgExport(file, corpusReadOptions(opts)), opts);
}

/** streamKgExport + kgToCorpus: the loader for the real, multi-GB export (JSON lines, plain or `.gz`). */
export async function streamKgCorpus(file: string, opts: KgToCorpusOptions & ReadKgExportOptions = {}): Promise<KgCorpusResult> {
  return kgToCorpus(await streamKgExport(file, corpusReadOptions(opts)), opts);
}

/** The report as text lines: nodes by label, edges by type, what was kept and what was skipped by reason. */
export function formatKgCorpusReport(r: KgCorpusReport): string[] {
  const counts = (o: Record<string, number>) =>
    Object.entries(o)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  return [
    `format: ${r.format}`,
    `nodes by label: ${counts(r.nodeLabelCounts)}`,
    `relationships by type: ${counts(r.relationshipTypeCounts)}`,
    `corpus: ${r.datasets} datasets, ${r.publications} publications, ${r.links} uses_dataset links, ${r.citesLinks} cites links`,
    `skipped datasets: ${counts(r.skippedDatasets)}`,
    `skipped publications: ${counts(r.skippedPublications)}`,
    `skipped links: ${counts(r.skippedLinks)}`,
    `CITES edges: ${counts(r.cites)}`,
  ];
}
