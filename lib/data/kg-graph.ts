/**
 * Reading a NASA EO Knowledge Graph export (Neo4j) into a slim in-memory graph: only the node labels,
 * properties and relationship types asked for are kept; everything is counted.
 *
 * Accepted files (`.gz` allowed): Neo4j APOC `apoc.export.json.*` in every `jsonFormat` — JSON_LINES (default; one
 * `{"type":"node"|"relationship",…}` per line; streamed by `streamKgExport`, so multi-GB exports work), ARRAY_JSON,
 * JSON (`{nodes, rels}`), JSON_ID_AS_KEYS (`{nodes: {id: …}, rels: {id: …}}`) — and a plain
 * `{nodes: […], relationships: […]}` document (node `{id, labels|label, properties}` or flat properties;
 * relationship `{id, type|label, start|startNode|source, end|endNode|target, properties}` with endpoints as ids or
 * `{id}` objects; APOC 4.3+ endpoints `{id, labels, properties}` are read by their id). Nodes link by the export's
 * node `id`, not by `globalId`.
 */
import { EoError } from '../errors';
import { readTextFile } from '../util/fs';
import { jsonObjectLines } from './eobench-read';
import { firstLine, forEachLine, forEachLineSync } from './kg-lines';
import { isPlainObject as isObj } from './validate';

type Obj = Record<string, unknown>;

export type KgExportFormat = 'apoc-jsonl' | 'apoc-array' | 'apoc-json' | 'apoc-json-id-as-keys' | 'plain-json';

export interface KgNode {
  id: string;
  labels: string[];
  /** The kept properties (see `ReadKgExportOptions.nodeProperties`). */
  properties: Obj;
  /** 1-based line of the node in the export, for messages. */
  line: number;
}

export interface KgRelationship {
  id: string | null;
  type: string;
  start: string;
  end: string;
  /** 1-based line of the relationship in the export, for messages. */
  line: number;
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

/** Node labels of the real export (nasa/edgraph data model). */
export const KG_NODE_LABELS = ['Dataset', 'Publication', 'ScienceKeyword', 'Platform', 'Instrument', 'Project', 'DataCenter'] as const;
/** Relationship types of the real export. */
export const KG_RELATIONSHIP_TYPES = [
  'USES_DATASET', 'CITES', 'HAS_DATASET', 'HAS_PLATFORM', 'OF_PROJECT', 'HAS_SCIENCEKEYWORD', 'HAS_INSTRUMENT', 'HAS_SUBCATEGORY', 'HAS_APPLIEDRESEARCHAREA',
] as const;
/** Node labels read by default (everything the Corpus mapping uses). */
export const KG_DEFAULT_NODE_LABELS = KG_NODE_LABELS;
/** Relationship types read by default (everything the Corpus mapping uses). */
export const KG_DEFAULT_RELATIONSHIP_TYPES = ['USES_DATASET', 'CITES', 'HAS_SCIENCEKEYWORD', 'HAS_PLATFORM', 'HAS_INSTRUMENT', 'OF_PROJECT', 'HAS_DATASET'] as const;

export interface ReadKgExportOptions {
  /** Keep only nodes with one of these labels (others are counted, not stored). Default KG_DEFAULT_NODE_LABELS; `null` keeps all. */
  nodeLabels?: readonly string[] | null;
  /** Keep only relationships of these types. Default KG_DEFAULT_RELATIONSHIP_TYPES; `null` keeps all. */
  relationshipTypes?: readonly string[] | null;
  /**
   * Properties kept per label (a node keeps the union over its listed labels; a node none of whose labels is
   * listed keeps all). Default null: every property. The corpus loaders pass `KG_CORPUS_PROPERTIES`, so a
   * 150k-node export is not held with every property.
   */
  nodeProperties?: Readonly<Record<string, readonly string[]>> | null;
}

function structFail(file: string, line: number, field: string, why: string): never {
  throw new EoError('DATA_INVALID', `${file}:${line}: field "${field}" ${why}`, { file, line, field });
}

function idOf(v: unknown): string | null {
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

const NODE_META_KEYS = new Set(['id', 'elementId', 'labels', 'label', 'type']);

/** Builds the slim graph from parsed entries; shared by every reader. */
class GraphBuilder {
  readonly nodes: KgNode[] = [];
  readonly relationships: KgRelationship[] = [];
  readonly nodeLabelCounts: Record<string, number> = {};
  readonly relationshipTypeCounts: Record<string, number> = {};
  private readonly labels: Set<string> | null;
  private readonly types: Set<string> | null;
  private readonly props: Map<string, readonly string[]> | null;
  constructor(
    readonly file: string,
    opts: ReadKgExportOptions,
  ) {
    const l = opts.nodeLabels === undefined ? KG_DEFAULT_NODE_LABELS : opts.nodeLabels;
    const t = opts.relationshipTypes === undefined ? KG_DEFAULT_RELATIONSHIP_TYPES : opts.relationshipTypes;
    this.labels = l === null ? null : new Set(l);
    this.types = t === null ? null : new Set(t);
    this.props = opts.nodeProperties ? new Map(Object.entries(opts.nodeProperties)) : null;
  }

  /** An APOC entry or a plain node/relationship; `kind` forces the kind (plain documents), else `type` decides. */
  add(v: unknown, line: number, kind?: 'node' | 'relationship', keyId?: string): void {
    if (!isObj(v)) structFail(this.file, line, '(record)', 'must be a JSON object');
    let k = kind;
    if (k === undefined) {
      if (v.type === 'node') k = 'node';
      else if (v.type === 'relationship') k = 'relationship';
      else structFail(this.file, line, 'type', `must be "node" or "relationship" (got ${JSON.stringify(v.type)})`);
    }
    if (k === 'node') this.addNode(v, line, keyId);
    else this.addRelationship(v, line, keyId);
  }

  /** Kept property names per label combination (null: keep all), computed once per combination. */
  private readonly keepFor = new Map<string, readonly string[] | null>();

  private project(labels: string[], all: Obj): Obj {
    if (this.props === null) return all;
    const key = labels.length === 1 ? labels[0] : labels.join('\u0001');
    let keep = this.keepFor.get(key);
    if (keep === undefined) {
      const lists = labels.map((l) => this.props!.get(l)).filter((x): x is readonly string[] => x !== undefined);
      keep = lists.length === 0 ? null : [...new Set(lists.flat())];
      this.keepFor.set(key, keep);
    }
    if (keep === null) return all;
    const out: Obj = {};
    for (const p of keep) if (all[p] !== undefined) out[p] = all[p];
    return out;
  }

  private addNode(v: Obj, line: number, keyId?: string): void {
    const id = idOf(v.id) ?? idOf(v.elementId) ?? (keyId !== undefined ? keyId : null);
    if (id === null) structFail(this.file, line, 'id', 'is required (a string or number node id)');
    let labels: string[];
    if (Array.isArray(v.labels)) {
      if (v.labels.some((x) => typeof x !== 'string')) structFail(this.file, line, 'labels', 'must be an array of strings');
      labels = v.labels as string[];
    } else if (typeof v.label === 'string') labels = [v.label];
    else structFail(this.file, line, 'labels', 'is required (an array of label strings, or a "label" string)');
    for (const l of labels) this.nodeLabelCounts[l] = (this.nodeLabelCounts[l] ?? 0) + 1;
    if (this.labels && !labels.some((l) => this.labels!.has(l))) return;
    let properties: Obj;
    if (v.properties !== undefined) {
      if (!isObj(v.properties)) structFail(this.file, line, 'properties', 'must be an object');
      properties = v.properties;
    } else {
      properties = {};
      for (const [key, val] of Object.entries(v)) if (!NODE_META_KEYS.has(key)) properties[key] = val;
    }
    this.nodes.push({ id, labels, properties: this.project(labels, properties), line });
  }

  private endpoint(v: Obj, names: string[], line: number): string {
    for (const n of names) {
      const e = v[n];
      if (e === undefined || e === null) continue;
      if (isObj(e)) {
        const id = idOf(e.id) ?? idOf(e.elementId);
        if (id === null) structFail(this.file, line, `${n}.id`, 'is required (a string or number node id)');
        return id;
      }
      const id = idOf(e);
      if (id === null) structFail(this.file, line, n, 'must be a node id or an object with an "id"');
      return id;
    }
    structFail(this.file, line, `${names[0]}.id`, `is required (the relationship's ${names[0]} node; also accepted: ${names.slice(1).join(', ')})`);
  }

  private addRelationship(v: Obj, line: number, keyId?: string): void {
    const rawType = typeof v.type === 'string' && v.type !== 'relationship' && v.type !== 'node' ? v.type : v.label;
    if (typeof rawType !== 'string' || rawType.trim() === '') structFail(this.file, line, 'label', 'is required (the relationship type, e.g. USES_DATASET)');
    const type = rawType.trim();
    const start = this.endpoint(v, ['start', 'startNode', 'source', 'from'], line);
    const end = this.endpoint(v, ['end', 'endNode', 'target', 'to'], line);
    if (v.properties !== undefined && v.properties !== null && !isObj(v.properties)) structFail(this.file, line, 'properties', 'must be an object');
    this.relationshipTypeCounts[type] = (this.relationshipTypeCounts[type] ?? 0) + 1;
    if (this.types && !this.types.has(type)) return;
    this.relationships.push({ id: idOf(v.id) ?? keyId ?? null, type, start, end, line });
  }

  /** One JSON-lines line. */
  addLine(line: string, lineNo: number): void {
    const t = line.trim();
    if (t === '') return;
    let v: unknown;
    try {
      v = JSON.parse(t);
    } catch (e) {
      throw new EoError('DATA_PARSE', `${this.file}:${lineNo}: invalid JSON (${(e as Error).message})`, { file: this.file, line: lineNo });
    }
    this.add(v, lineNo);
  }

  graph(format: KgExportFormat): KgGraph {
    const { file, nodes, relationships, nodeLabelCounts, relationshipTypeCounts } = this;
    return { file, format, nodes, relationships, nodeLabelCounts, relationshipTypeCounts };
  }
}

/** Whether the export is APOC JSON lines: its first line is an entry with a "type" (a one-line document has "nodes"). */
function isJsonLines(file: string): boolean {
  const head = firstLine(file);
  if (!head.startsWith('{')) return false;
  try {
    const first = JSON.parse(head);
    return isObj(first) && first.type !== undefined && first.nodes === undefined;
  } catch {
    return false;
  }
}

/** A whole-document export (APOC ARRAY_JSON / JSON / JSON_ID_AS_KEYS, or plain `{nodes, relationships}`). */
function readKgDocument(g: GraphBuilder): KgGraph {
  const file = g.file;
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
  const at = (v: unknown) => (isObj(v) ? lines.get(v) ?? 1 : 1);
  if (Array.isArray(doc)) {
    for (const v of doc) g.add(v, at(v));
    return g.graph('apoc-array');
  }
  if (!isObj(doc)) structFail(file, 1, '(document)', 'must be JSON lines, an array, or an object with "nodes" and "relationships"/"rels"');
  const nodes = doc.nodes;
  const obj: Obj = doc;
  const relKey = ['rels', 'relationships', 'edges', 'links'].find((k) => obj[k] !== undefined);
  const rels = relKey === undefined ? [] : obj[relKey];
  if (nodes === undefined) structFail(file, 1, 'nodes', 'is required (an array or map of nodes)');
  const byKeys = isObj(nodes);
  if (!Array.isArray(nodes) && !byKeys) structFail(file, 1, 'nodes', 'must be an array or an object keyed by node id');
  if (!Array.isArray(rels) && !isObj(rels)) structFail(file, 1, relKey ?? 'relationships', 'must be an array or an object keyed by relationship id');
  const visit = (coll: unknown, kind: 'node' | 'relationship') => {
    if (Array.isArray(coll)) for (const v of coll) g.add(v, at(v), kind);
    else for (const [key, v] of Object.entries(coll as Obj)) g.add(v, at(v), kind, key);
  };
  visit(nodes, 'node');
  visit(rels, 'relationship');
  return g.graph(byKeys ? 'apoc-json-id-as-keys' : relKey === 'rels' ? 'apoc-json' : 'plain-json');
}

/** Read a knowledge-graph export synchronously (format detected from the content). Structural problems throw naming file:line and field. */
export function readKgExport(file: string, opts: ReadKgExportOptions = {}): KgGraph {
  const g = new GraphBuilder(file, opts);
  if (!isJsonLines(file)) return readKgDocument(g);
  forEachLineSync(file, (line, n) => g.addLine(line, n));
  return g.graph('apoc-jsonl');
}

/**
 * readKgExport for large files: JSON lines (plain or `.gz`) are streamed through readline, one line in memory at
 * a time; the document formats are read whole, as they must be.
 */
export async function streamKgExport(file: string, opts: ReadKgExportOptions = {}): Promise<KgGraph> {
  const g = new GraphBuilder(file, opts);
  if (!isJsonLines(file)) return readKgDocument(g);
  await forEachLine(file, (line, n) => g.addLine(line, n));
  return g.graph('apoc-jsonl');
}
