/**
 * NASA-EO-Bench records → queries (query text + positive dataset ids + split): the field mapping, the loader of the
 * layouts it may be distributed in (raw records from eobench-read.ts), the import of a copy with unknown field names
 * (guessed, or given by the user: `importEoBench`), and a check of its positives against a Corpus.
 *
 * Accepted layouts (see `loadEoBench`):
 * - JSON Lines (`.jsonl`, `.ndjson`, optionally `.gz`) or a JSON document (`.json`: an array of objects, or an object
 *   holding one under `queries` / `data` / `items` / `rows`; Hugging Face `{row: {...}}` wrappers are unwrapped);
 * - CSV / TSV with a header row;
 * - a BEIR folder: `queries.jsonl`, `qrels/<split>.tsv` (header `query-id\tcorpus-id\tscore`), optional `corpus.jsonl`;
 * - a folder of the per-split files above (`train.jsonl`, `test.csv`, …).
 *
 * Field names are matched case-insensitively: query id `id|query_id|qid|_id`; text `query|text|question`;
 * positives `positives|relevant|relevant_ids|dataset_ids|labels` (array of ids, array of objects with an `id`, or
 * one string of ids separated by `;`, `|`, `,` or whitespace); split `split` ∈ train/test/val/validation/dev.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { EOBENCH_FIELD_NAMES, fail, formatOfFile, isBeirDir, loadBeir, normalizeSplit, pickField, readRawRecords, splitFromFileName, type EoBench, type EoBenchFormat, type EoBenchQuery, type EoBenchSplit, type LoadEoBenchOptions, type Loc } from './eobench-read';
import type { Corpus } from './types';
import { isPlainObject } from './validate';
import { guessEoBenchFields, splitIdList, type EoBenchFieldMapping, type EoBenchRole, type Obj } from './eobench-fields';

// the names of the parts this module was split into, as before
export { formatEoBenchFieldMapping, guessEoBenchFields, type EoBenchFieldChoice, type EoBenchFieldMapping, type EoBenchRole } from './eobench-fields';

const POSITIVE_OBJECT_ID_FIELDS = ['id', '_id', 'concept_id', 'conceptId', 'dataset_id', 'corpus_id'];

function parsePositives(v: unknown, key: string, loc: Loc): string[] {
  let arr: unknown[];
  if (typeof v === 'string') {
    const t = v.trim();
    if (t.startsWith('[')) {
      try {
        const parsed = JSON.parse(t);
        if (!Array.isArray(parsed)) fail(loc, key, 'must be an array of dataset ids');
        arr = parsed;
      } catch (e) {
        if (e instanceof EoError) throw e;
        fail(loc, key, `looks like a JSON array but does not parse (${(e as Error).message})`);
      }
    } else arr = splitIdList(t);
  } else if (Array.isArray(v)) arr = v;
  else fail(loc, key, `must be an array of dataset ids, an array of objects with an "id", or a delimited string (got ${typeof v})`);
  const out: string[] = [];
  arr.forEach((x, i) => {
    let id: unknown = x;
    if (x !== null && typeof x === 'object' && !Array.isArray(x)) {
      const f = pickField(x as Obj, POSITIVE_OBJECT_ID_FIELDS);
      if (!f) fail(loc, `${key}[${i}].id`, 'is required (an object positive needs an "id")');
      id = f.value;
    }
    if (typeof id === 'number' && Number.isFinite(id)) id = String(id);
    if (typeof id !== 'string' || id.trim() === '') fail(loc, `${key}[${i}]`, `must be a non-empty string id (got ${JSON.stringify(x)})`);
    const t = id.trim();
    if (!out.includes(t)) out.push(t);
  });
  return out;
}

/** Which record fields hold what: candidate names per role (first present wins, matched case-insensitively). */
export interface EoBenchFieldNames {
  id: readonly string[];
  query: readonly string[];
  positives: readonly string[];
  split: readonly string[];
}

interface RecordContext {
  file: string;
  defaultSplit: EoBenchSplit | null;
  opts: LoadEoBenchOptions;
  fields: EoBenchFieldNames;
}

/** Turn one flexible record into an EoBenchQuery; every problem names file, line and field. */
function recordToQuery(value: unknown, loc: Loc, ctx: RecordContext): EoBenchQuery {
  const f = ctx.fields;
  const o = unwrapRow(value, loc, f);
  const idF = pickField(o, f.id);
  let id: string;
  if (idF === null) {
    if (!ctx.opts.generateIds) fail(loc, 'id', `is required (accepted names: ${f.id.join(', ')})`);
    id = `${path.basename(ctx.file).replace(/\..*$/, '')}:${loc.line}`;
  } else if (typeof idF.value === 'number' && Number.isFinite(idF.value)) id = String(idF.value);
  else if (typeof idF.value === 'string' && idF.value.trim() !== '') id = idF.value.trim();
  else fail(loc, idF.key, 'must be a non-empty string or a number');

  const textF = pickField(o, f.query);
  if (textF === null) fail(loc, 'query', `is required (accepted names: ${f.query.join(', ')})`);
  if (typeof textF.value !== 'string' || textF.value.trim() === '') fail(loc, textF.key, 'must be a non-empty string');
  const text = textF.value.trim();

  const posF = pickField(o, f.positives);
  if (posF === null) fail(loc, 'positives', `is required (accepted names: ${f.positives.join(', ')})`);
  const positives = parsePositives(posF.value, posF.key, loc);
  if (positives.length === 0 && !ctx.opts.allowEmptyPositives) fail(loc, posF.key, 'must list at least one dataset id');

  const splitF = pickField(o, f.split);
  let split: EoBenchSplit;
  if (splitF !== null) {
    if (typeof splitF.value !== 'string') fail(loc, splitF.key, 'must be a string');
    const s = normalizeSplit(splitF.value);
    if (s === null) fail(loc, splitF.key, `must be one of train, test, val, validation, dev (got "${splitF.value}")`);
    split = s;
  } else if (ctx.defaultSplit !== null) split = ctx.defaultSplit;
  else fail(loc, 'split', 'is missing and no split could be inferred from the file name (pass the split option)');

  return { id, text, split, positives, source: `${loc.file}:${loc.line}` };
}

/** The record as an object; a Hugging Face `{row: {...}}` wrapper (without a query field of its own) is unwrapped. */
function unwrapRow(value: unknown, loc: Loc, fields: EoBenchFieldNames): Obj {
  if (!isPlainObject(value)) fail(loc, '(record)', 'must be a JSON object');
  return isPlainObject(value.row) && pickField(value, fields.query) === null ? value.row : value;
}

function defaultSplitFor(file: string, opts: LoadEoBenchOptions): EoBenchSplit | null {
  if (opts.split === undefined) return splitFromFileName(file);
  const s = normalizeSplit(opts.split);
  if (s === null) throw new EoError('INVALID_ARGUMENT', `split option must be one of train, test, val, validation, dev (got "${opts.split}")`);
  return s;
}

function loadFile(file: string, format: Exclude<EoBenchFormat, 'beir' | 'mixed'>, opts: LoadEoBenchOptions, fields: EoBenchFieldNames = EOBENCH_FIELD_NAMES): EoBenchQuery[] {
  const ctx: RecordContext = { file, defaultSplit: defaultSplitFor(file, opts), opts, fields };
  return readRawRecords(file, format).map((r) => recordToQuery(r.value, { file, line: r.line }, ctx));
}

// ---------------------------------------------------------------------------------------------------------------
// Entry point
function checkUnique(queries: EoBenchQuery[]): void {
  const seen = new Map<string, string>();
  for (const q of queries) {
    const prev = seen.get(q.id);
    if (prev !== undefined) {
      const [file, line] = splitSource(q.source);
      throw new EoError('DATA_INVALID', `${q.source}: field "id" repeats query id "${q.id}" of ${prev}`, { file, line, field: 'id' });
    }
    seen.set(q.id, q.source);
  }
}

function splitSource(source: string): [string, number] {
  const k = source.lastIndexOf(':');
  return [source.slice(0, k), Number(source.slice(k + 1))];
}

/**
 * Load NASA-EO-Bench queries from a file or folder (layouts in the module comment). A folder is read as BEIR when
 * it has `queries.jsonl` and `qrels/`, else every `.jsonl`/`.json`/`.csv`/`.tsv` (optionally `.gz`) file in it is
 * read, with the split taken from each file name when records carry none. Query ids must be unique over all files.
 * Errors: DATA_NOT_FOUND, DATA_PARSE (file:line), DATA_INVALID (file:line and field).
 */
export function loadEoBench(p: string, opts: LoadEoBenchOptions = {}): EoBench {
  if (!fs.existsSync(p)) throw new EoError('DATA_NOT_FOUND', `benchmark path not found: ${p}`, { path: p });
  const format = opts.format ?? 'auto';
  let bench: EoBench;
  if (fs.statSync(p).isDirectory()) {
    if (format === 'beir' || (format === 'auto' && isBeirDir(p))) {
      if (!isBeirDir(p)) throw new EoError('DATA_NOT_FOUND', `${p}: a BEIR folder needs queries.jsonl and qrels/`, { path: p });
      bench = loadBeir(p, opts);
    } else {
      const files = fs
        .readdirSync(p)
        .sort()
        .map((n) => path.join(p, n))
        .filter((f) => fs.statSync(f).isFile() && formatOfFile(f) !== null && (format === 'auto' || formatOfFile(f) === format));
      if (files.length === 0) throw new EoError('DATA_NOT_FOUND', `${p}: no .jsonl, .json, .csv or .tsv files`, { path: p });
      const queries = files.flatMap((f) => loadFile(f, formatOfFile(f)!, opts));
      const formats = new Set(files.map((f) => formatOfFile(f)!));
      bench = { queries, format: formats.size === 1 ? [...formats][0] : 'mixed', files, warnings: [] };
    }
  } else {
    if (format === 'beir') throw new EoError('INVALID_ARGUMENT', `format "beir" needs a folder, got the file ${p}`);
    const f = format === 'auto' ? formatOfFile(p) : format;
    if (f === null) throw new EoError('INVALID_ARGUMENT', `${p}: cannot tell the format from the extension; pass format (jsonl, json, csv, tsv)`);
    bench = { queries: loadFile(p, f, opts), format: f, files: [p], warnings: [] };
  }
  checkUnique(bench.queries);
  return bench;
}

// ---------------------------------------------------------------------------------------------------------------
// Using a benchmark with a corpus

/** The queries of one split. */
export function eoBenchSplit(bench: EoBench, split: string): EoBenchQuery[] {
  const s = normalizeSplit(split);
  if (s === null) throw new EoError('INVALID_ARGUMENT', `unknown split "${split}"`);
  return bench.queries.filter((q) => q.split === s);
}

/** Relevance judgements (query id → dataset id → 1) for all queries or one split. */
export function eoBenchQrels(bench: EoBench, split?: string): Map<string, Map<string, number>> {
  const qs = split === undefined ? bench.queries : eoBenchSplit(bench, split);
  return new Map(qs.map((q) => [q.id, new Map(q.positives.map((p) => [p, 1]))]));
}

export interface EoBenchUnknownPositive {
  queryId: string;
  /** The positive id as given. */
  id: string;
  /** Where the query was read. */
  source: string;
  /** A corpus dataset id the positive probably means (same id ignoring case, same DOI, or unique shortName), else null. */
  suggestion: string | null;
}

export interface EoBenchCheckReport {
  queries: number;
  /** Positive ids over all queries (with repeats across queries). */
  positives: number;
  /** Positives that are corpus dataset ids. */
  known: number;
  unknown: EoBenchUnknownPositive[];
  /** Queries none of whose positives is in the corpus. */
  queriesWithoutKnownPositives: string[];
}

function suggester(corpus: Corpus): (id: string) => string | null {
  const byLowerId = new Map<string, string>();
  const byDoi = new Map<string, string>();
  const byShort = new Map<string, string | null>();
  for (const d of corpus.datasets) {
    byLowerId.set(d.id.toLowerCase(), d.id);
    if (d.doi) byDoi.set(d.doi.toLowerCase(), d.id);
    if (d.shortName) {
      const k = d.shortName.toLowerCase();
      byShort.set(k, byShort.has(k) ? null : d.id);
    }
  }
  return (raw) => {
    const k = raw
      .trim()
      .toLowerCase()
      .replace(/^doi:\s*/, '')
      .replace(/^https?:\/\/(dx\.)?doi\.org\//, '');
    return byLowerId.get(k) ?? byDoi.get(k) ?? byShort.get(k) ?? null;
  };
}

/** Check every positive against the corpus; unknown ids are reported (with a likely match), never thrown. */
export function checkEoBenchPositives(bench: EoBench, corpus: Corpus): EoBenchCheckReport {
  const suggest = suggester(corpus);
  const report: EoBenchCheckReport = { queries: bench.queries.length, positives: 0, known: 0, unknown: [], queriesWithoutKnownPositives: [] };
  for (const q of bench.queries) {
    let known = 0;
    for (const id of q.positives) {
      report.positives++;
      if (corpus.indexById.has(id)) known++;
      else report.unknown.push({ queryId: q.id, id, source: q.source, suggestion: suggest(id) });
    }
    report.known += known;
    if (known === 0) report.queriesWithoutKnownPositives.push(q.id);
  }
  return report;
}

/**
 * A copy of the benchmark whose positives are all corpus dataset ids: unknown ids are dropped (or, with
 * `resolve: true` (default false), replaced by their suggestion when there is one), and queries left without
 * positives are dropped. Returns the check report of the original benchmark too.
 */
export function restrictEoBenchToCorpus(bench: EoBench, corpus: Corpus, opts: { resolve?: boolean } = {}): { bench: EoBench; report: EoBenchCheckReport; droppedQueries: string[] } {
  const report = checkEoBenchPositives(bench, corpus);
  const suggest = suggester(corpus);
  const droppedQueries: string[] = [];
  const queries: EoBenchQuery[] = [];
  for (const q of bench.queries) {
    const positives: string[] = [];
    for (const id of q.positives) {
      const mapped = corpus.indexById.has(id) ? id : opts.resolve ? suggest(id) : null;
      if (mapped !== null && !positives.includes(mapped)) positives.push(mapped);
    }
    if (positives.length === 0) droppedQueries.push(q.id);
    else queries.push({ ...q, positives });
  }
  return { bench: { ...bench, queries }, report, droppedQueries };
}

export interface ImportEoBenchOptions {
  /** Field overrides per role (`--field query=…`). Default: guessed. */
  fields?: Partial<Record<EoBenchRole, string>>;
  /** Split of records without one. Default: from the file name, else `test`. */
  split?: string;
  /** Keep queries with no positives. Default false (an error naming the record). */
  allowEmptyPositives?: boolean;
}

export interface ImportedEoBench {
  bench: EoBench;
  /** The field mapping used (null for a BEIR folder or a folder of per-split files, whose layout is fixed). */
  mapping: EoBenchFieldMapping | null;
}

/**
 * Read a user's copy of NASA-EO-Bench whose field names are unknown: JSON / JSON lines / CSV / TSV (a parquet file
 * converted to JSON reads as JSON), guessing the fields (see guessEoBenchFields) unless overridden. A folder is
 * read with loadEoBench (BEIR or per-split files).
 */
export function importEoBench(p: string, opts: ImportEoBenchOptions = {}): ImportedEoBench {
  if (!fs.existsSync(p)) throw new EoError('DATA_NOT_FOUND', `benchmark path not found: ${p}`, { path: p });
  if (fs.statSync(p).isDirectory()) return { bench: loadEoBench(p, { split: opts.split, generateIds: true, allowEmptyPositives: opts.allowEmptyPositives }), mapping: null };
  const format = formatOfFile(p);
  if (format === null) throw new EoError('INVALID_ARGUMENT', `${p}: cannot tell the format from the extension (.json, .jsonl, .ndjson, .csv, .tsv, optionally .gz)`);
  const records = readRawRecords(p, format);
  const mapping = guessEoBenchFields(records.map((r) => r.value), p, opts.fields ?? {});
  const names = (r: EoBenchRole): readonly string[] => (mapping[r].field === null ? [] : [mapping[r].field!]);
  const fields: EoBenchFieldNames = { id: names('id'), query: names('query'), positives: names('positives'), split: names('split') };
  const loadOpts: LoadEoBenchOptions = { split: opts.split, generateIds: true, allowEmptyPositives: opts.allowEmptyPositives };
  const ctx: RecordContext = { file: p, defaultSplit: defaultSplitFor(p, loadOpts) ?? 'test', opts: loadOpts, fields };
  const queries = records.map((r) => recordToQuery(r.value, { file: p, line: r.line }, ctx));
  const bench: EoBench = { queries, format, files: [p], warnings: [] };
  checkUnique(queries);
  return { bench, mapping };
}
