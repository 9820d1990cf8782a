/**
 * Loader for exports of the NASA EO Knowledge Graph (Neo4j; built by the `nasa/edgraph` ingest scripts and
 * published as `nasa-gesdisc/nasa-eo-knowledge-graph`) into a Corpus.
 *
 * Node and relationship names follow nasa/edgraph (`src/graph_ingest/ingest_scripts/`, `docs/architecture/data-model.md`):
 * - `Dataset` {globalId (uuid5 of the DOI), doi, shortName, longName, daac, abstract, cmrId, temporalExtentStart,
 *   temporalExtentEnd, temporalFrequency}; the ingest writes `"N/A"` for a missing shortName/longName/daac/abstract;
 * - `Publication` {globalId (uuid5 of the DOI), doi, title, year, abstract, authors} (the data-model doc also names `DOI`);
 * - `(Publication)-[:USES_DATASET]->(Dataset)`;
 * - enrichment: `(Dataset)-[:HAS_SCIENCEKEYWORD]->(ScienceKeyword {name})`, `(Dataset)-[:HAS_PLATFORM]->(Platform {shortName})`,
 *   `(Platform)-[:HAS_INSTRUMENT]->(Instrument {shortName})`, `(Dataset)-[:OF_PROJECT]->(Project {shortName})`,
 *   `(DataCenter {shortName})-[:HAS_DATASET]->(Dataset)`.
 *
 * Accepted files (`.gz` allowed): Neo4j APOC `apoc.export.json.*` in every `jsonFormat` — JSON_LINES (default; one
 * `{"type":"node"|"relationship",…}` per line, streamed, so multi-GB exports work), ARRAY_JSON, JSON (`{nodes, rels}`),
 * JSON_ID_AS_KEYS (`{nodes: {id: …}, rels: {id: …}}`) — and a plain `{nodes: […], relationships: […]}` document
 * (node `{id, labels|label, properties}` or flat properties; relationship `{id, type|label, start|startNode|source,
 * end|endNode|target, properties}` with endpoints as ids or `{id}` objects).
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import { EoError } from '../errors';
import { readTextFile } from '../util/fs';
import { bareDoi } from './cmr';
import { makeCorpus } from './corpus';
import { jsonObjectLines } from './eobench';
import type { Corpus, DatasetRecord, Publication, PublicationLink } from './types';
import { validateDataset, validatePublication } from './validate';

/** Value of `source`/`sources` on records read from the knowledge graph. */
export const KG_SOURCE = 'nasa-eo-kg';
/** `relation` of links made from USES_DATASET edges. */
export const KG_USES_DATASET_RELATION = 'uses_dataset';

const CONCEPT_ID = /^C\d+-[A-Z0-9_]+$/;

type Obj = Record<string, unknown>;

export type KgExportFormat = 'apoc-jsonl' | 'apoc-array' | 'apoc-json' | 'apoc-json-id-as-keys' | 'plain-json';

export interface KgNode {
  id: string;
  labels: string[];
  properties: Obj;
  /** `file:line` of the node, for messages. */
  loc: string;
}

export interface KgRelationship {
  id: string | null;
  type: string;
  start: string;
  end: string;
  properties: Obj;
  /** `file:line` of the relationship, for messages. */
  loc: string;
}

export interface KgGraph {
  file: string;
  format: KgExportFormat;
  /** Kept nodes (see `ReadKgExportOptions.nodeLabels`). */
  nodes: KgNode[];
  /** Kept relationships (see `ReadKgExportOptions.relationshipTypes`). */
  relationships: KgRelationship[];
  /** Nodes per label over the whole file (a node counts once per label), kept or not. */
  nodeLabelCounts: Record<string, number>;
  /** Relationships per type over the whole file, kept or not. */
  relationshipTypeCounts: Record<string, number>;
}

/** Node labels read by default (everything the Corpus mapping uses). */
export const KG_DEFAULT_NODE_LABELS = ['Dataset', 'Publication', 'ScienceKeyword', 'Platform', 'Instrument', 'Project', 'DataCenter'] as const;
/** Relationship types read by default. */
export const KG_DEFAULT_RELATIONSHIP_TYPES = ['USES_DATASET', 'HAS_SCIENCEKEYWORD', 'HAS_PLATFORM', 'HAS_INSTRUMENT', 'OF_PROJECT', 'HAS_DATASET'] as const;

export interface ReadKgExportOptions {
  /** Keep only nodes with one of these labels (others are counted, not stored). Default KG_DEFAULT_NODE_LABELS; `null` keeps all. */
  nodeLabels?: readonly string[] | null;
  /** Keep only relationships of these types. Default KG_DEFAULT_RELATIONSHIP_TYPES; `null` keeps all. */
  relationshipTypes?: readonly string[] | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function structFail(loc: string, field: string, why: string): never {
  const k = loc.lastIndexOf(':');
  throw new EoError('DATA_INVALID', `${loc}: field "${field}" ${why}`, { file: loc.slice(0, k), line: Number(loc.slice(k + 1)), field });
}

function idOf(v: unknown): string | null {
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** Call `cb` for each line of a (possibly gzipped) text file without holding the file as one string. */
function forEachLine(file: string, cb: (line: string, lineNo: number) => void): void {
  if (!fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `file not found: ${file}`, { file });
  let lineNo = 0;
  const emitLines = (buf: Buffer, final: boolean): Buffer => {
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      if (nl < 0) break;
      cb(buf.toString('utf8', start, nl).replace(/\r$/, ''), ++lineNo);
      start = nl + 1;
    }
    const rest = buf.subarray(start);
    if (final && rest.length > 0) {
      cb(rest.toString('utf8').replace(/\r$/, ''), ++lineNo);
      return Buffer.alloc(0);
    }
    return rest;
  };
  if (file.endsWith('.gz')) {
    emitLines(zlib.gunzipSync(fs.readFileSync(file)), true);
    return;
  }
  const fd = fs.openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(4 << 20);
    let carry: Buffer = Buffer.alloc(0);
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      carry = emitLines(Buffer.concat([carry, chunk.subarray(0, n)]), false);
    }
    emitLines(carry, true);
  } finally {
    fs.closeSync(fd);
  }
}

/** First non-blank line within the first MiB of a file (decompressed for `.gz`), BOM removed; '' when none. */
function firstLine(file: string): string {
  if (!fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `file not found: ${file}`, { file });
  const fd = fs.openSync(file, 'r');
  let head: Buffer;
  try {
    const buf = Buffer.alloc(1 << 20);
    head = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0));
  } finally {
    fs.closeSync(fd);
  }
  if (file.endsWith('.gz')) {
    try {
      head = zlib.gunzipSync(head, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    } catch (e) {
      throw new EoError('DATA_PARSE', `${file}: not a valid gzip file (${(e as Error).message})`, { file });
    }
  }
  for (const line of head.toString('utf8').split('\n')) {
    const t = line.replace(/^\uFEFF/, '').trim();
    if (t !== '') return t;
  }
  return '';
}

class GraphBuilder {
  readonly nodes: KgNode[] = [];
  readonly relationships: KgRelationship[] = [];
  readonly nodeLabelCounts: Record<string, number> = {};
  readonly relationshipTypeCounts: Record<string, number> = {};
  private readonly labels: Set<string> | null;
  private readonly types: Set<string> | null;
  constructor(opts: ReadKgExportOptions) {
    const l = opts.nodeLabels === undefined ? KG_DEFAULT_NODE_LABELS : opts.nodeLabels;
    const t = opts.relationshipTypes === undefined ? KG_DEFAULT_RELATIONSHIP_TYPES : opts.relationshipTypes;
    this.labels = l === null ? null : new Set(l);
    this.types = t === null ? null : new Set(t);
  }

  /** An APOC entry or a plain node/relationship; `kind` forces the kind (plain documents), else `type` decides. */
  add(v: unknown, loc: string, kind?: 'node' | 'relationship', keyId?: string): void {
    if (!isObj(v)) structFail(loc, '(record)', 'must be a JSON object');
    let k = kind;
    if (k === undefined) {
      if (v.type === 'node') k = 'node';
      else if (v.type === 'relationship') k = 'relationship';
      else structFail(loc, 'type', `must be "node" or "relationship" (got ${JSON.stringify(v.type)})`);
    }
    if (k === 'node') this.addNode(v, loc, keyId);
    else this.addRelationship(v, loc, keyId);
  }

  private addNode(v: Obj, loc: string, keyId?: string): void {
    const id = idOf(v.id) ?? idOf(v.elementId) ?? (keyId !== undefined ? keyId : null);
    if (id === null) structFail(loc, 'id', 'is required (a string or number node id)');
    let labels: string[];
    if (Array.isArray(v.labels)) {
      if (v.labels.some((x) => typeof x !== 'string')) structFail(loc, 'labels', 'must be an array of strings');
      labels = v.labels as string[];
    } else if (typeof v.label === 'string') labels = [v.label];
    else structFail(loc, 'labels', 'is required (an array of label strings, or a "label" string)');
    let properties: Obj;
    if (v.properties !== undefined) {
      if (!isObj(v.properties)) structFail(loc, 'properties', 'must be an object');
      properties = v.properties;
    } else {
      properties = {};
      for (const [key, val] of Object.entries(v)) if (!['id', 'elementId', 'labels', 'label', 'type'].includes(key)) properties[key] = val;
    }
    for (const l of labels) this.nodeLabelCounts[l] = (this.nodeLabelCounts[l] ?? 0) + 1;
    if (this.labels && !labels.some((l) => this.labels!.has(l))) return;
    this.nodes.push({ id, labels, properties, loc });
  }

  private endpoint(v: Obj, names: string[], loc: string): string {
    for (const n of names) {
      const e = v[n];
      if (e === undefined || e === null) continue;
      if (isObj(e)) {
        const id = idOf(e.id) ?? idOf(e.elementId);
        if (id === null) structFail(loc, `${n}.id`, 'is required (a string or number node id)');
        return id;
      }
      const id = idOf(e);
      if (id === null) structFail(loc, n, 'must be a node id or an object with an "id"');
      return id;
    }
    structFail(loc, `${names[0]}.id`, `is required (the relationship's ${names[0]} node; also accepted: ${names.slice(1).join(', ')})`);
  }

  private addRelationship(v: Obj, loc: string, keyId?: string): void {
    const rawType = typeof v.type === 'string' && v.type !== 'relationship' && v.type !== 'node' ? v.type : v.label;
    if (typeof rawType !== 'string' || rawType.trim() === '') structFail(loc, 'label', 'is required (the relationship type, e.g. USES_DATASET)');
    const type = rawType.trim();
    const start = this.endpoint(v, ['start', 'startNode', 'source', 'from'], loc);
    const end = this.endpoint(v, ['end', 'endNode', 'target', 'to'], loc);
    let properties: Obj = {};
    if (v.properties !== undefined && v.properties !== null) {
      if (!isObj(v.properties)) structFail(loc, 'properties', 'must be an object');
      properties = v.properties;
    }
    this.relationshipTypeCounts[type] = (this.relationshipTypeCounts[type] ?? 0) + 1;
    if (this.types && !this.types.has(type)) return;
    this.relationships.push({ id: idOf(v.id) ?? keyId ?? null, type, start, end, properties, loc });
  }
}

/** Read a knowledge-graph export (format detected from the content). Structural problems throw naming file:line and field. */
export function readKgExport(file: string, opts: ReadKgExportOptions = {}): KgGraph {
  const g = new GraphBuilder(opts);
  const head = firstLine(file);
  let format: KgExportFormat;
  let jsonl = false;
  if (head.startsWith('{')) {
    try {
      const first = JSON.parse(head);
      // An APOC JSON_LINES entry carries "type"; a one-line document carries "nodes".
      jsonl = isObj(first) && first.type !== undefined && first.nodes === undefined;
    } catch {
      jsonl = false;
    }
  }
  if (jsonl) {
    format = 'apoc-jsonl';
    forEachLine(file, (line, lineNo) => {
      const t = line.replace(/^\uFEFF/, '').trim();
      if (t === '') return;
      let v: unknown;
      try {
        v = JSON.parse(t);
      } catch (e) {
        throw new EoError('DATA_PARSE', `${file}:${lineNo}: invalid JSON (${(e as Error).message})`, { file, line: lineNo });
      }
      g.add(v, `${file}:${lineNo}`);
    });
  } else {
    let text: string;
    try {
      text = readTextFile(file).replace(/^\uFEFF/, '');
    } catch (e) {
      if (e instanceof EoError) throw e;
      throw new EoError('DATA_PARSE', `${file}: too large to read as one JSON document (${(e as Error).message}); export with jsonFormat JSON_LINES`, { file });
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      const m = /position (\d+)/.exec((e as Error).message);
      const line = m ? text.slice(0, Number(m[1])).split('\n').length : 1;
      throw new EoError('DATA_PARSE', `${file}:${line}: invalid JSON (${(e as Error).message})`, { file, line });
    }
    const lines = jsonObjectLines(text, doc);
    const at = (v: unknown) => `${file}:${isObj(v) ? lines.get(v) ?? 1 : 1}`;
    if (Array.isArray(doc)) {
      format = 'apoc-array';
      for (const v of doc) g.add(v, at(v));
    } else if (isObj(doc)) {
      const nodes = doc.nodes;
      const relKey = ['rels', 'relationships', 'edges', 'links'].find((k) => doc[k] !== undefined);
      const rels = relKey === undefined ? [] : doc[relKey];
      if (nodes === undefined) structFail(`${file}:1`, 'nodes', 'is required (an array or map of nodes)');
      const byKeys = isObj(nodes);
      if (!Array.isArray(nodes) && !byKeys) structFail(`${file}:1`, 'nodes', 'must be an array or an object keyed by node id');
      if (!Array.isArray(rels) && !isObj(rels)) structFail(`${file}:1`, relKey ?? 'relationships', 'must be an array or an object keyed by relationship id');
      const apoc = relKey === 'rels';
      format = byKeys ? 'apoc-json-id-as-keys' : apoc ? 'apoc-json' : 'plain-json';
      const visit = (coll: unknown, kind: 'node' | 'relationship') => {
        if (Array.isArray(coll)) for (const v of coll) g.add(v, at(v), kind);
        else for (const [key, v] of Object.entries(coll as Obj)) g.add(v, at(v), kind, key);
      };
      visit(nodes, 'node');
      visit(rels, 'relationship');
    } else structFail(`${file}:1`, '(document)', 'must be JSON lines, an array, or an object with "nodes" and "relationships"/"rels"');
  }
  return { file, format, nodes: g.nodes, relationships: g.relationships, nodeLabelCounts: g.nodeLabelCounts, relationshipTypeCounts: g.relationshipTypeCounts };
}

// ---------------------------------------------------------------------------------------------------------------
// Mapping to a Corpus

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
  /** A Dataset/Publication node with unusable content (no title, wrong types): `error` (default) or `skip` (counted). */
  onInvalid?: 'error' | 'skip';
  /** Keep publications that end up with no link into the corpus. Default false (the snapshot keeps only linked ones). */
  keepUnlinkedPublications?: boolean;
  /**
   * Give each dataset the instruments of its platforms (HAS_PLATFORM → HAS_INSTRUMENT). Default false: in the KG,
   * Platform→Instrument edges are global, so this lists every instrument ever flown on the platform.
   */
  instrumentsFromPlatforms?: boolean;
}

export interface KgCorpusReport {
  format: KgExportFormat;
  nodeLabelCounts: Record<string, number>;
  relationshipTypeCounts: Record<string, number>;
  /** Datasets in the corpus. */
  datasets: number;
  /** Dataset nodes skipped for lack of a concept id. */
  datasetsWithoutConceptId: number;
  /** Dataset nodes skipped as invalid (`onInvalid: 'skip'`). */
  invalidDatasets: number;
  /** Dataset nodes whose concept id repeats an earlier node's (merged into the first). */
  duplicateDatasets: number;
  /** Publications in the corpus. */
  publications: number;
  /** Publication nodes skipped as invalid (`onInvalid: 'skip'`). */
  invalidPublications: number;
  /** Publication nodes whose id (DOI / title hash) repeats an earlier node's (merged into the first). */
  duplicatePublications: number;
  /** Publications dropped because no link into the corpus remained. */
  unlinkedPublicationsDropped: number;
  /** Links in the corpus. */
  links: number;
  /** USES_DATASET edges repeating a (publication, dataset) pair. */
  duplicateLinks: number;
  /** USES_DATASET edges dropped because an end is not in the corpus. */
  danglingLinks: number;
  /** Of those, edges to Dataset nodes skipped for lack of a concept id. */
  danglingLinksToSkippedDatasets: number;
  /** Up to 20 messages about skipped nodes, for a quick look. */
  examples: string[];
}

export interface KgCorpusResult {
  corpus: Corpus;
  report: KgCorpusReport;
}

const CONCEPT_ID_PROPS = ['cmrId', 'cmr_id', 'CMR_ID', 'conceptId', 'concept_id', 'collectionConceptId', 'id', 'globalId'];
const PLACEHOLDER = /^(n\/a|na|none|null|not provided|unknown)$/i;

function nodeLoc(n: KgNode): { file: string; line: number } {
  const k = n.loc.lastIndexOf(':');
  return { file: n.loc.slice(0, k), line: Number(n.loc.slice(k + 1)) };
}

class SkipNode extends Error {}

/** Map a KgGraph to a Corpus (see the module comment for the property mapping). */
export function kgToCorpus(graph: KgGraph, opts: KgToCorpusOptions = {}): KgCorpusResult {
  const onInvalid = opts.onInvalid ?? 'error';
  const onMissing = opts.onMissingConceptId ?? 'skip';
  const report: KgCorpusReport = {
    format: graph.format,
    nodeLabelCounts: graph.nodeLabelCounts,
    relationshipTypeCounts: graph.relationshipTypeCounts,
    datasets: 0,
    datasetsWithoutConceptId: 0,
    invalidDatasets: 0,
    duplicateDatasets: 0,
    publications: 0,
    invalidPublications: 0,
    duplicatePublications: 0,
    unlinkedPublicationsDropped: 0,
    links: 0,
    duplicateLinks: 0,
    danglingLinks: 0,
    danglingLinksToSkippedDatasets: 0,
    examples: [],
  };
  const note = (m: string) => {
    if (report.examples.length < 20) report.examples.push(m);
  };

  const nodeById = new Map<string, KgNode>();
  for (const n of graph.nodes) {
    if (nodeById.has(n.id)) structFail(n.loc, 'id', `repeats node id "${n.id}" of ${nodeById.get(n.id)!.loc}`);
    nodeById.set(n.id, n);
  }
  const has = (n: KgNode | undefined, label: string) => n !== undefined && n.labels.includes(label);

  // Outgoing enrichment edges per node.
  const out = new Map<string, Map<string, string[]>>();
  const inc = new Map<string, Map<string, string[]>>();
  const push = (m: Map<string, Map<string, string[]>>, a: string, type: string, b: string) => {
    let byType = m.get(a);
    if (!byType) m.set(a, (byType = new Map()));
    let list = byType.get(type);
    if (!list) byType.set(type, (list = []));
    list.push(b);
  };
  for (const r of graph.relationships) {
    if (r.type === 'USES_DATASET') continue;
    push(out, r.start, r.type, r.end);
    push(inc, r.end, r.type, r.start);
  }
  const targets = (m: Map<string, Map<string, string[]>>, id: string, type: string) => m.get(id)?.get(type) ?? [];

  // Property readers; `fieldFail` names the property.
  const prop = (n: KgNode, names: readonly string[]): { key: string; value: unknown } | null => {
    for (const k of names) if (n.properties[k] !== undefined && n.properties[k] !== null) return { key: k, value: n.properties[k] };
    return null;
  };
  function fieldFail(n: KgNode, field: string, why: string, skipKind: 'dataset' | 'publication'): never {
    const msg = `${n.loc}: field "${field}" ${why}`;
    if (onInvalid === 'skip') {
      if (skipKind === 'dataset') report.invalidDatasets++;
      else report.invalidPublications++;
      note(msg);
      throw new SkipNode(msg);
    }
    throw new EoError('DATA_INVALID', msg, { ...nodeLoc(n), field, nodeId: n.id });
  }
  const str = (n: KgNode, names: readonly string[], kind: 'dataset' | 'publication'): string | null => {
    const p = prop(n, names);
    if (p === null) return null;
    if (typeof p.value !== 'string') fieldFail(n, `properties.${p.key}`, `must be a string (got ${Array.isArray(p.value) ? 'array' : typeof p.value})`, kind);
    const t = p.value.trim();
    return t === '' || PLACEHOLDER.test(t) ? null : t;
  };
  const strList = (n: KgNode, names: readonly string[], kind: 'dataset' | 'publication'): string[] => {
    const p = prop(n, names);
    if (p === null) return [];
    if (typeof p.value === 'string') return p.value.trim() === '' ? [] : [p.value.trim()];
    if (!Array.isArray(p.value) || p.value.some((x) => typeof x !== 'string')) fieldFail(n, `properties.${p.key}`, 'must be a string or an array of strings', kind);
    return (p.value as string[]).map((s) => s.trim()).filter((s) => s !== '');
  };
  const nameOf = (id: string, names: readonly string[]): string | null => {
    const t = nodeById.get(id);
    if (!t) return null;
    for (const k of names) {
      const v = t.properties[k];
      if (typeof v === 'string' && v.trim() !== '' && !PLACEHOLDER.test(v.trim())) return v.trim();
    }
    return null;
  };
  const addUnique = (list: string[], s: string | null) => {
    if (s !== null && !list.includes(s)) list.push(s);
  };

  // Datasets.
  const datasetIdByNode = new Map<string, string>();
  const skippedDatasetNodes = new Set<string>();
  const datasets = new Map<string, DatasetRecord>();
  for (const n of graph.nodes) {
    if (!has(n, 'Dataset')) continue;
    try {
      let id: string | null = null;
      let badKey: string | null = null;
      for (const k of CONCEPT_ID_PROPS) {
        const v = n.properties[k];
        if (typeof v === 'string' && CONCEPT_ID.test(v.trim())) {
          id = v.trim();
          break;
        }
        if (badKey === null && v !== undefined && v !== null && v !== '' && k !== 'id' && k !== 'globalId') badKey = k;
      }
      if (id === null) {
        const why = badKey
          ? `does not hold a CMR collection concept id (got ${JSON.stringify(n.properties[badKey])})`
          : `is missing: no property (${CONCEPT_ID_PROPS.join(', ')}) holds a CMR collection concept id`;
        const msg = `${n.loc}: field "properties.${badKey ?? 'cmrId'}" ${why}`;
        if (onMissing === 'error') throw new EoError('DATA_INVALID', msg, { ...nodeLoc(n), field: `properties.${badKey ?? 'cmrId'}`, nodeId: n.id });
        report.datasetsWithoutConceptId++;
        skippedDatasetNodes.add(n.id);
        note(msg);
        continue;
      }
      if (datasets.has(id)) {
        report.duplicateDatasets++;
        datasetIdByNode.set(n.id, id);
        continue;
      }
      const shortName = str(n, ['shortName', 'ShortName', 'short_name'], 'dataset');
      const longName = str(n, ['longName', 'LongName', 'entryTitle', 'EntryTitle', 'title'], 'dataset') ?? shortName;
      if (longName === null) fieldFail(n, 'properties.longName', 'is required (a non-empty title; shortName is used when longName is "N/A")', 'dataset');
      const keywords: string[] = [];
      for (const k of strList(n, ['keywords', 'scienceKeywords'], 'dataset')) addUnique(keywords, k.toLowerCase());
      for (const t of targets(out, n.id, 'HAS_SCIENCEKEYWORD')) {
        const name = nameOf(t, ['name', 'shortName']);
        addUnique(keywords, name === null ? null : name.toLowerCase());
      }
      const platforms = strList(n, ['platforms'], 'dataset');
      const platformNodes = targets(out, n.id, 'HAS_PLATFORM');
      for (const t of platformNodes) addUnique(platforms, nameOf(t, ['shortName', 'name']));
      const instruments = strList(n, ['instruments'], 'dataset');
      if (opts.instrumentsFromPlatforms)
        for (const p of platformNodes) for (const t of targets(out, p, 'HAS_INSTRUMENT')) addUnique(instruments, nameOf(t, ['shortName', 'name']));
      const projects = strList(n, ['projects'], 'dataset');
      for (const t of targets(out, n.id, 'OF_PROJECT')) addUnique(projects, nameOf(t, ['shortName', 'name']));
      let publisher = str(n, ['daac', 'publisher', 'dataCenter'], 'dataset');
      if (publisher === null) for (const t of targets(inc, n.id, 'HAS_DATASET')) publisher = publisher ?? nameOf(t, ['shortName', 'longName', 'name']);
      const record = {
        id,
        shortName,
        longName,
        abstract: (str(n, ['abstract', 'Abstract', 'description'], 'dataset') ?? '').replace(/\r\n?/g, '\n'),
        doi: bareDoi(str(n, ['doi', 'DOI'], 'dataset')),
        daac: id.slice(id.indexOf('-') + 1),
        publisher,
        temporalStart: str(n, ['temporalExtentStart', 'temporalStart'], 'dataset'),
        temporalEnd: str(n, ['temporalExtentEnd', 'temporalEnd'], 'dataset'),
        keywords,
        platforms,
        instruments,
        projects,
        processingLevel: str(n, ['processingLevel', 'processingLevelId'], 'dataset'),
        landingPage: str(n, ['landingPage', 'url'], 'dataset'),
        shortNameSource: shortName !== null ? KG_SOURCE : null,
        catalogRecordComplete: true,
        sources: [KG_SOURCE],
      };
      datasets.set(id, validateDataset(record, nodeLoc(n)));
      datasetIdByNode.set(n.id, id);
    } catch (e) {
      if (e instanceof SkipNode) {
        skippedDatasetNodes.add(n.id);
        continue;
      }
      throw e;
    }
  }

  // Publications.
  const pubIdByNode = new Map<string, string>();
  const publications = new Map<string, Publication>();
  for (const n of graph.nodes) {
    if (!has(n, 'Publication')) continue;
    try {
      const doi = bareDoi(str(n, ['doi', 'DOI'], 'publication'));
      const title = str(n, ['title', 'Title'], 'publication');
      if (title === null) fieldFail(n, 'properties.title', 'is required and must be a non-empty string', 'publication');
      const y = prop(n, ['year', 'Year', 'publicationYear']);
      let year: number | null = null;
      if (y !== null) {
        if (typeof y.value === 'number' && Number.isInteger(y.value)) year = y.value;
        else if (typeof y.value === 'string' && /^\d{4}\b/.test(y.value.trim())) year = Number(y.value.trim().slice(0, 4));
        else if (!(typeof y.value === 'string' && (y.value.trim() === '' || PLACEHOLDER.test(y.value.trim()))))
          fieldFail(n, `properties.${y.key}`, `must be a year (got ${JSON.stringify(y.value)})`, 'publication');
      }
      let abstract = str(n, ['abstract', 'Abstract'], 'publication');
      if (abstract !== null && /^no abstract available\.?$/i.test(abstract)) abstract = null;
      const id = publicationIdFor(doi, title);
      if (publications.has(id)) {
        report.duplicatePublications++;
        pubIdByNode.set(n.id, id);
        continue;
      }
      const rec = {
        id,
        doi: doi ? doi.toLowerCase() : null,
        title,
        abstract,
        year,
        venue: str(n, ['venue', 'journal', 'containerTitle', 'publicationVenue'], 'publication'),
        source: KG_SOURCE,
        sources: [KG_SOURCE],
      };
      publications.set(id, validatePublication(rec, nodeLoc(n)));
      pubIdByNode.set(n.id, id);
    } catch (e) {
      if (e instanceof SkipNode) continue;
      throw e;
    }
  }

  // USES_DATASET edges.
  const dropDangling = opts.dropDanglingLinks ?? true;
  const linkKeys = new Set<string>();
  const links: PublicationLink[] = [];
  for (const r of graph.relationships) {
    if (r.type !== 'USES_DATASET') continue;
    let pubNode = r.start;
    let dsNode = r.end;
    if (has(nodeById.get(r.start), 'Dataset') && has(nodeById.get(r.end), 'Publication')) [pubNode, dsNode] = [r.end, r.start];
    const pubId = pubIdByNode.get(pubNode);
    const dsId = datasetIdByNode.get(dsNode);
    if (pubId === undefined || dsId === undefined) {
      const why =
        pubId === undefined
          ? `start node ${pubNode} is not a Publication in the corpus${nodeById.has(pubNode) ? '' : ' (not in the export)'}`
          : `end node ${dsNode} is not a Dataset in the corpus${skippedDatasetNodes.has(dsNode) ? ' (skipped: no concept id or invalid)' : nodeById.has(dsNode) ? '' : ' (not in the export)'}`;
      if (!dropDangling) structFail(r.loc, pubId === undefined ? 'start.id' : 'end.id', `of USES_DATASET relationship ${r.id ?? ''}: ${why}`);
      report.danglingLinks++;
      if (pubId !== undefined && skippedDatasetNodes.has(dsNode)) report.danglingLinksToSkippedDatasets++;
      continue;
    }
    const key = `${pubId}\u0001${dsId}`;
    if (linkKeys.has(key)) {
      report.duplicateLinks++;
      continue;
    }
    linkKeys.add(key);
    links.push({ publicationId: pubId, datasetId: dsId, relation: KG_USES_DATASET_RELATION, source: `${KG_SOURCE}:USES_DATASET`, sources: [`${KG_SOURCE}:USES_DATASET`] });
  }

  const linked = new Set(links.map((l) => l.publicationId));
  let pubs = [...publications.values()];
  if (!opts.keepUnlinkedPublications) {
    const before = pubs.length;
    pubs = pubs.filter((p) => linked.has(p.id));
    report.unlinkedPublicationsDropped = before - pubs.length;
  }
  const byId = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  const ds = [...datasets.values()].sort(byId((d: DatasetRecord) => d.id));
  pubs.sort(byId((p: Publication) => p.id));
  links.sort(byId((l: PublicationLink) => `${l.publicationId}\u0001${l.datasetId}`));
  const corpus = makeCorpus(ds, pubs, links, opts.origin ?? graph.file, { dropDanglingLinks: dropDangling });
  report.datasets = corpus.datasets.length;
  report.publications = corpus.publications.length;
  report.links = corpus.links.length;
  return { corpus, report };
}

/** readKgExport + kgToCorpus. */
export function loadKgCorpus(file: string, opts: KgToCorpusOptions & ReadKgExportOptions = {}): KgCorpusResult {
  return kgToCorpus(readKgExport(file, opts), opts);
}
