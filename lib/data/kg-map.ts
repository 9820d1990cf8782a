/**
 * The steps of the knowledge-graph mapping (kg.ts): index the graph, then map its datasets, publications and links,
 * each validated as the snapshot's records are, every skip counted in the report.
 */
import { EoError } from '../errors';
import { bareDoi } from './cmr-record';
import type { KgGraph, KgNode } from './kg-graph';
import type { DatasetRecord, Publication, PublicationLink } from './types';
import { conceptIdProvider, isConceptId, optStringField, type FieldFail, validateDataset, validatePublication } from './validate';
import { CONCEPT_ID_PROPS, DATASET_PROPS, KG_CITES_RELATION, KG_SOURCE, KG_USES_DATASET_RELATION, PLACEHOLDER, PUBLICATION_PROPS, cornersBBox, publicationIdFor, type KgCorpusReport, type KgToCorpusOptions } from './kg-types';

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
export function indexKgGraph(graph: KgGraph, opts: KgToCorpusOptions): KgMapping {
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

export function mapKgDatasets(m: KgMapping, graph: KgGraph): KgDatasets {
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
export function mapKgPublications(m: KgMapping, graph: KgGraph): { publications: Map<string, Publication>; pubIdByNode: Map<string, string> } {
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
export function mapKgLinks(m: KgMapping, graph: KgGraph, ds: KgDatasets, pubIdByNode: Map<string, string>): PublicationLink[] {
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
