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
import {
  EOBENCH_FIELD_NAMES, fail, formatOfFile, isBeirDir, loadBeir, normalizeSplit, pickField, readRawRecords, splitFromFileName,
  type EoBench, type EoBenchFormat, type EoBenchQuery, type EoBenchSplit, type LoadEoBenchOptions, type Loc,
} from './eobench-read';
import type { Corpus } from './types';
import { isConceptId, isPlainObject } from './validate';

type Obj = Record<string, unknown>;

const POSITIVE_OBJECT_ID_FIELDS = ['id', '_id', 'concept_id', 'conceptId', 'dataset_id', 'corpus_id'];

function splitIdList(s: string): string[] {
  return s
    .split(/[;|,\s]+/)
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

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

// ---------------------------------------------------------------------------------------------------------------
// Importing a copy with unknown field names: guess which field holds what, or take the user's mapping

/** The roles a field can play in a NASA-EO-Bench record. */
export type EoBenchRole = 'id' | 'query' | 'positives' | 'split';
const ROLES: readonly EoBenchRole[] = ['query', 'positives', 'split', 'id'];

/** Extra names (beyond EOBENCH_FIELD_NAMES) a field is recognised by when guessing. */
const GUESS_NAMES: Record<EoBenchRole, readonly string[]> = {
  id: [...EOBENCH_FIELD_NAMES.id, 'query-id', 'queryid', 'uid', 'key'],
  query: [...EOBENCH_FIELD_NAMES.query, 'query_text', 'querytext', 'task', 'prompt', 'request', 'information_need', 'search_query'],
  positives: [
    ...EOBENCH_FIELD_NAMES.positives, 'relevant_datasets', 'datasets', 'dataset_id', 'dataset', 'concept_ids', 'cmr_ids', 'cmr_id',
    'gold', 'gold_ids', 'answers', 'targets', 'qrels', 'positive_ids', 'corpus_ids',
  ],
  split: [...EOBENCH_FIELD_NAMES.split, 'subset', 'fold', 'partition', 'set'],
};

/** How one role's field was chosen. */
export interface EoBenchFieldChoice {
  /** The record field, or null (id: generated `<file>:<line>`; split: the default split). */
  field: string | null;
  how: 'override' | 'name' | 'content' | 'none';
  /** One line for the user: what was chosen and why. */
  why: string;
}

export type EoBenchFieldMapping = Record<EoBenchRole, EoBenchFieldChoice>;

interface FieldStats {
  key: string;
  present: number;
  strings: number;
  meanWords: number;
  /** Records whose value holds at least one CMR concept id (array, object list or delimited string). */
  withConceptIds: number;
  /** Records whose value is a split name. */
  splitNames: number;
}

function conceptIdsIn(v: unknown): number {
  const ids: string[] = [];
  const visit = (x: unknown) => {
    if (typeof x === 'string') ids.push(...splitIdList(x.replace(/[[\]"']/g, ' ')));
    else if (Array.isArray(x)) x.forEach(visit);
    else if (isPlainObject(x)) Object.values(x).forEach(visit);
  };
  visit(v);
  return ids.filter(isConceptId).length;
}

function fieldStats(records: readonly Obj[]): FieldStats[] {
  const byKey = new Map<string, FieldStats & { words: number }>();
  for (const o of records)
    for (const [key, v] of Object.entries(o)) {
      if (v === undefined || v === null || v === '') continue;
      let s = byKey.get(key);
      if (!s) byKey.set(key, (s = { key, present: 0, strings: 0, meanWords: 0, withConceptIds: 0, splitNames: 0, words: 0 }));
      s.present++;
      if (typeof v === 'string') {
        s.strings++;
        s.words += v.trim().split(/\s+/).length;
        if (normalizeSplit(v) !== null) s.splitNames++;
      }
      if (conceptIdsIn(v) > 0) s.withConceptIds++;
    }
  return [...byKey.values()].map(({ words, ...s }) => ({ ...s, meanWords: s.strings > 0 ? words / s.strings : 0 }));
}

/**
 * Decide which field holds the query, the positives, the split and the id. Per role, in order: the user's
 * override (must name a field that occurs), a field with a known name, a field whose content fits (query: the
 * string field with the most words among those of 2-60 words on average, else the wordiest; positives: the field
 * whose values hold CMR concept ids in most records; split: a string field of split names only); id and split
 * may stay unset. No query or positives field → DATA_INVALID naming the fields seen and the override to pass.
 */
export function guessEoBenchFields(records: readonly unknown[], file: string, overrides: Partial<Record<EoBenchRole, string>> = {}): EoBenchFieldMapping {
  const objs = records
    .slice(0, 1000)
    .filter(isPlainObject)
    .map((o) => (isPlainObject(o.row) && pickField(o, GUESS_NAMES.query) === null ? o.row : o));
  const stats = fieldStats(objs);
  const seen = stats.map((s) => s.key);
  const seenText = seen.length > 0 ? seen.join(', ') : '(none)';
  const taken = new Set<string>();
  const out = {} as EoBenchFieldMapping;
  const byName = (role: EoBenchRole) => {
    for (const n of GUESS_NAMES[role]) {
      const s = stats.find((x) => x.key.toLowerCase() === n.toLowerCase() && !taken.has(x.key));
      if (s) return s.key;
    }
    return null;
  };
  const n = Math.max(1, objs.length);
  for (const role of ROLES) {
    const o = overrides[role];
    if (o !== undefined) {
      const s = stats.find((x) => x.key === o) ?? stats.find((x) => x.key.toLowerCase() === o.toLowerCase());
      if (!s) throw new EoError('INVALID_ARGUMENT', `--field ${role}=${o}: no record of ${file} has a field "${o}" (fields seen: ${seenText})`, { file, field: o });
      out[role] = { field: s.key, how: 'override', why: `"${s.key}" (given with --field ${role}=${o})` };
      taken.add(s.key);
      continue;
    }
    const named = byName(role);
    if (named !== null) {
      out[role] = { field: named, how: 'name', why: `"${named}" (by its name)` };
      taken.add(named);
      continue;
    }
    let pick: FieldStats | undefined;
    let why = '';
    const free = stats.filter((s) => !taken.has(s.key));
    if (role === 'query') {
      const texts = free.filter((s) => s.strings >= 0.9 * n && s.meanWords >= 2 && s.withConceptIds < 0.5 * n);
      const short = texts.filter((s) => s.meanWords <= 60);
      pick = (short.length > 0 ? short : texts).sort((a, b) => b.meanWords - a.meanWords)[0];
      if (pick) why = `"${pick.key}" (by content: text of ${pick.meanWords.toFixed(1)} words on average)`;
    } else if (role === 'positives') {
      pick = free.filter((s) => s.withConceptIds >= 0.5 * n).sort((a, b) => b.withConceptIds - a.withConceptIds)[0];
      if (pick) why = `"${pick.key}" (by content: CMR concept ids in ${pick.withConceptIds} of ${objs.length} records)`;
    } else if (role === 'split') {
      pick = free.find((s) => s.strings > 0 && s.splitNames === s.present);
      if (pick) why = `"${pick.key}" (by content: only split names)`;
    }
    if (pick) {
      out[role] = { field: pick.key, how: 'content', why };
      taken.add(pick.key);
      continue;
    }
    if (role === 'query' || role === 'positives') {
      const what = role === 'query' ? `named ${GUESS_NAMES.query.join('/')} or holding text of 2+ words` : `named ${GUESS_NAMES.positives.slice(0, 8).join('/')}/… or holding CMR concept ids`;
      throw new EoError('DATA_INVALID', `${file}: no ${role} field could be guessed (fields seen: ${seenText}; none is ${what}); pass --field ${role}=NAME`, { file, field: role });
    }
    out[role] = { field: null, how: 'none', why: role === 'id' ? 'none: ids are generated as <file>:<line>' : 'none: every query gets the default split' };
  }
  return out;
}

/** The mapping as lines to print: `query     <- "task" (given with --field query=task)`. */
export function formatEoBenchFieldMapping(m: EoBenchFieldMapping): string[] {
  return (['query', 'positives', 'split', 'id'] as const).map((r) => `${r.padEnd(9)} <- ${m[r].why}`);
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
