/**
 * Loader for the NASA-EO-Bench retrieval benchmark (query text + positive dataset ids + split) in the layouts it
 * may be distributed in, plus a check of its positives against a Corpus.
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
import { readJsonl, readTextFile } from '../util/fs';
import type { Corpus } from './types';

/** Canonical split names; `validation` and `dev` are read as `val`. */
export type EoBenchSplit = 'train' | 'val' | 'test';

/** Layout read; `mixed` for a folder of per-split files in more than one of the other formats. */
export type EoBenchFormat = 'jsonl' | 'json' | 'csv' | 'tsv' | 'beir' | 'mixed';

export interface EoBenchQuery {
  /** Query id as given (numbers are turned into strings). */
  id: string;
  text: string;
  split: EoBenchSplit;
  /** Positive (relevant) dataset ids, de-duplicated, in file order. */
  positives: string[];
  /** Where the query was read from: `file:line`. */
  source: string;
}

/** One BEIR corpus document (only present for the BEIR layout with a `corpus.jsonl`). */
export interface BeirDocument {
  id: string;
  title: string;
  text: string;
}

export interface EoBench {
  queries: EoBenchQuery[];
  format: EoBenchFormat;
  /** Files read. */
  files: string[];
  /** Non-fatal findings (e.g. BEIR queries without judgements, qrels ids missing from corpus.jsonl). */
  warnings: string[];
  /** BEIR `corpus.jsonl`, when present. */
  beirCorpus?: BeirDocument[];
}

export interface LoadEoBenchOptions {
  /** Layout; `auto` (default) decides by folder contents and file extension (and content for `.json`). */
  format?: 'auto' | Exclude<EoBenchFormat, 'mixed'>;
  /**
   * Split for records that have none. Default: inferred from the file name (`train`, `test`, `val`, `validation`,
   * `dev` as a word in it), else a record without a split is an error.
   */
  split?: string;
  /** Give records without an id the id `<file stem>:<line>` instead of failing. Default false. */
  generateIds?: boolean;
  /** Keep queries with no positives instead of failing (JSON/CSV) or dropping them with a warning (BEIR). Default false. */
  allowEmptyPositives?: boolean;
  /** BEIR qrels: a corpus id is a positive when its score is >= this. Default 1. */
  minScore?: number;
}

type Obj = Record<string, unknown>;

/** Location of a record: file and 1-based line. */
interface Loc {
  file: string;
  line: number;
}

function fail(loc: Loc, field: string, why: string): never {
  throw new EoError('DATA_INVALID', `${loc.file}:${loc.line}: field "${field}" ${why}`, { ...loc, field });
}

const ID_FIELDS = ['id', 'query_id', 'qid', '_id'];
const TEXT_FIELDS = ['query', 'text', 'question'];
const POSITIVE_FIELDS = ['positives', 'relevant', 'relevant_ids', 'dataset_ids', 'labels'];
const POSITIVE_OBJECT_ID_FIELDS = ['id', '_id', 'concept_id', 'conceptId', 'dataset_id', 'corpus_id'];

/** Normalise a split name: train; val/validation/dev → val; test. Null for anything else. */
export function normalizeSplit(s: string): EoBenchSplit | null {
  const v = s.trim().toLowerCase();
  if (v === 'train') return 'train';
  if (v === 'test') return 'test';
  if (v === 'val' || v === 'validation' || v === 'dev') return 'val';
  return null;
}

/** Split named by a file name (`train.jsonl`, `nasa_eo_bench-test.csv`, …), or null. */
export function splitFromFileName(file: string): EoBenchSplit | null {
  const stem = path.basename(file).replace(/\.gz$/i, '').replace(/\.[a-z]+$/i, '');
  const words = stem.toLowerCase().split(/[^a-z]+/).filter((w) => w !== '');
  const found = new Set(words.map(normalizeSplit).filter((x): x is EoBenchSplit => x !== null));
  return found.size === 1 ? [...found][0] : null;
}

function pickField(o: Obj, names: readonly string[]): { key: string; value: unknown } | null {
  const lower = new Map<string, string>();
  for (const k of Object.keys(o)) if (!lower.has(k.toLowerCase())) lower.set(k.toLowerCase(), k);
  for (const n of names) {
    const k = lower.get(n.toLowerCase());
    if (k !== undefined && o[k] !== undefined && o[k] !== null) return { key: k, value: o[k] };
  }
  return null;
}

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

interface RecordContext {
  file: string;
  defaultSplit: EoBenchSplit | null;
  opts: LoadEoBenchOptions;
}

/** Turn one flexible record into an EoBenchQuery; every problem names file, line and field. */
function recordToQuery(value: unknown, loc: Loc, ctx: RecordContext): EoBenchQuery {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(loc, '(record)', 'must be a JSON object');
  let o = value as Obj;
  if (o.row !== null && typeof o.row === 'object' && !Array.isArray(o.row) && pickField(o, TEXT_FIELDS) === null) o = o.row as Obj;

  const idF = pickField(o, ID_FIELDS);
  let id: string;
  if (idF === null) {
    if (!ctx.opts.generateIds) fail(loc, 'id', `is required (accepted names: ${ID_FIELDS.join(', ')})`);
    id = `${path.basename(ctx.file).replace(/\..*$/, '')}:${loc.line}`;
  } else if (typeof idF.value === 'number' && Number.isFinite(idF.value)) id = String(idF.value);
  else if (typeof idF.value === 'string' && idF.value.trim() !== '') id = idF.value.trim();
  else fail(loc, idF.key, 'must be a non-empty string or a number');

  const textF = pickField(o, TEXT_FIELDS);
  if (textF === null) fail(loc, 'query', `is required (accepted names: ${TEXT_FIELDS.join(', ')})`);
  if (typeof textF.value !== 'string' || textF.value.trim() === '') fail(loc, textF.key, 'must be a non-empty string');
  const text = textF.value.trim();

  const posF = pickField(o, POSITIVE_FIELDS);
  if (posF === null) fail(loc, 'positives', `is required (accepted names: ${POSITIVE_FIELDS.join(', ')})`);
  const positives = parsePositives(posF.value, posF.key, loc);
  if (positives.length === 0 && !ctx.opts.allowEmptyPositives) fail(loc, posF.key, 'must list at least one dataset id');

  const splitF = pickField(o, ['split']);
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

// ---------------------------------------------------------------------------------------------------------------
// JSON documents with line numbers

/**
 * Line numbers of every JSON object in a document, keyed by the parsed object: the k-th `{` outside strings opens
 * the k-th object of a pre-order walk of `JSON.parse(text)`. (Objects with integer-like keys, whose order
 * JSON.parse changes, or repeated keys may shift the numbers; they are for messages only.)
 */
export function jsonObjectLines(text: string, parsed: unknown): Map<object, number> {
  const lines: number[] = [];
  let line = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character (never a newline in valid JSON)
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123) lines.push(line);
  }
  const out = new Map<object, number>();
  let k = 0;
  const walk = (v: unknown) => {
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    out.set(v, lines[k++] ?? 1);
    for (const x of Object.values(v as Obj)) walk(x);
  };
  walk(parsed);
  return out;
}

function parseJsonDocument(file: string): { parsed: unknown; text: string } {
  const text = readTextFile(file).replace(/^\uFEFF/, '');
  try {
    return { parsed: JSON.parse(text), text };
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    const line = m ? text.slice(0, Number(m[1])).split('\n').length : 1;
    throw new EoError('DATA_PARSE', `${file}:${line}: invalid JSON (${(e as Error).message})`, { file, line });
  }
}

function jsonRecords(file: string): { value: unknown; line: number }[] {
  const { parsed, text } = parseJsonDocument(file);
  let arr: unknown;
  if (Array.isArray(parsed)) arr = parsed;
  else if (parsed !== null && typeof parsed === 'object') {
    const f = pickField(parsed as Obj, ['queries', 'data', 'items', 'rows']);
    arr = f?.value;
  }
  if (!Array.isArray(arr))
    throw new EoError('DATA_INVALID', `${file}:1: field "(document)" must be an array of query objects, or an object with one under "queries", "data", "items" or "rows"`, {
      file,
      line: 1,
      field: '(document)',
    });
  const lines = jsonObjectLines(text, parsed);
  return arr.map((v) => ({ value: v, line: v !== null && typeof v === 'object' ? lines.get(v as object) ?? 1 : 1 }));
}

// ---------------------------------------------------------------------------------------------------------------
// CSV / TSV

export interface CsvRow {
  /** 1-based line on which the row starts. */
  line: number;
  cells: string[];
}

/**
 * RFC 4180 CSV (or TSV with `delimiter: '\t'`): quoted fields may hold delimiters, `""` and newlines; CRLF or LF
 * line ends; a leading BOM is dropped; blank lines are skipped. An unterminated quote throws DATA_PARSE naming the
 * line where the field starts.
 */
export function parseDelimited(text: string, file: string, delimiter = ','): CsvRow[] {
  const rows: CsvRow[] = [];
  const s = text.replace(/^\uFEFF/, '');
  let line = 1;
  let i = 0;
  while (i < s.length) {
    const startLine = line;
    const cells: string[] = [];
    let cell = '';
    let quotedStartLine = 0;
    let endOfRow = false;
    while (i < s.length && !endOfRow) {
      const c = s[i];
      if (c === '"' && cell === '' && quotedStartLine === 0) {
        quotedStartLine = line;
        i++;
        let closed = false;
        while (i < s.length) {
          const d = s[i];
          if (d === '"') {
            if (s[i + 1] === '"') {
              cell += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          if (d === '\n') line++;
          cell += d;
          i++;
        }
        if (!closed) throw new EoError('DATA_PARSE', `${file}:${quotedStartLine}: unterminated quoted field`, { file, line: quotedStartLine });
        // After a closing quote only a delimiter or a line end may follow.
        if (i < s.length && s[i] !== delimiter && s[i] !== '\n' && s[i] !== '\r')
          throw new EoError('DATA_PARSE', `${file}:${line}: unexpected character after a closing quote`, { file, line });
      } else if (c === delimiter) {
        cells.push(cell);
        cell = '';
        quotedStartLine = 0;
        i++;
      } else if (c === '\r' || c === '\n') {
        if (c === '\r' && s[i + 1] === '\n') i++;
        i++;
        line++;
        endOfRow = true;
      } else {
        cell += c;
        i++;
      }
    }
    cells.push(cell);
    if (!(cells.length === 1 && cells[0] === '' && quotedStartLine === 0)) rows.push({ line: startLine, cells });
  }
  return rows;
}

function delimitedRecords(file: string, delimiter: string): { value: unknown; line: number }[] {
  const rows = parseDelimited(readTextFile(file), file, delimiter);
  if (rows.length === 0) return [];
  const header = rows[0].cells.map((h) => h.trim());
  if (header.some((h) => h === '')) throw new EoError('DATA_INVALID', `${file}:${rows[0].line}: field "(header)" has an empty column name`, { file, line: rows[0].line, field: '(header)' });
  return rows.slice(1).map((r) => {
    if (r.cells.length !== header.length)
      throw new EoError('DATA_INVALID', `${file}:${r.line}: field "(row)" has ${r.cells.length} column(s), the header has ${header.length}`, {
        file,
        line: r.line,
        field: '(row)',
      });
    const o: Obj = {};
    header.forEach((h, k) => {
      const v = r.cells[k].trim();
      if (v !== '') o[h] = v;
    });
    return { value: o, line: r.line };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// BEIR

function pickExisting(dir: string, names: string[]): string | null {
  for (const n of names) {
    const f = path.join(dir, n);
    if (fs.existsSync(f)) return f;
  }
  return null;
}

function isBeirDir(dir: string): boolean {
  return pickExisting(dir, ['queries.jsonl', 'queries.jsonl.gz']) !== null && fs.existsSync(path.join(dir, 'qrels'));
}

function loadBeir(dir: string, opts: LoadEoBenchOptions): EoBench {
  const warnings: string[] = [];
  const files: string[] = [];
  const minScore = opts.minScore ?? 1;
  const qFile = pickExisting(dir, ['queries.jsonl', 'queries.jsonl.gz'])!;
  files.push(qFile);
  const texts = new Map<string, { text: string; line: number }>();
  for (const r of readJsonl(qFile)) {
    const loc = { file: qFile, line: r.line };
    if (r.value === null || typeof r.value !== 'object' || Array.isArray(r.value)) fail(loc, '(record)', 'must be a JSON object');
    const o = r.value as Obj;
    const idF = pickField(o, ['_id', ...ID_FIELDS]);
    if (idF === null) fail(loc, '_id', 'is required');
    const id = typeof idF.value === 'number' ? String(idF.value) : idF.value;
    if (typeof id !== 'string' || id.trim() === '') fail(loc, idF.key, 'must be a non-empty string');
    const tF = pickField(o, ['text', 'query', 'question']);
    if (tF === null || typeof tF.value !== 'string' || tF.value.trim() === '') fail(loc, tF?.key ?? 'text', 'is required and must be a non-empty string');
    const prev = texts.get(id.trim());
    if (prev) fail(loc, idF.key, `repeats query id "${id}" of line ${prev.line}`);
    texts.set(id.trim(), { text: tF.value.trim(), line: r.line });
  }

  let beirCorpus: BeirDocument[] | undefined;
  const cFile = pickExisting(dir, ['corpus.jsonl', 'corpus.jsonl.gz']);
  if (cFile) {
    files.push(cFile);
    beirCorpus = readJsonl(cFile).map((r) => {
      const loc = { file: cFile, line: r.line };
      if (r.value === null || typeof r.value !== 'object' || Array.isArray(r.value)) fail(loc, '(record)', 'must be a JSON object');
      const o = r.value as Obj;
      const idF = pickField(o, ['_id', 'id']);
      const id = typeof idF?.value === 'number' ? String(idF.value) : idF?.value;
      if (typeof id !== 'string' || id.trim() === '') fail(loc, idF?.key ?? '_id', 'is required and must be a non-empty string');
      const title = o.title ?? '';
      const text = o.text ?? '';
      if (typeof title !== 'string') fail(loc, 'title', 'must be a string');
      if (typeof text !== 'string') fail(loc, 'text', 'must be a string');
      return { id: id.trim(), title, text };
    });
  } else warnings.push(`${dir}: no corpus.jsonl; qrels corpus ids were not checked`);
  const corpusIds = beirCorpus ? new Set(beirCorpus.map((d) => d.id)) : null;

  const qrelsDir = path.join(dir, 'qrels');
  const qrelFiles = fs
    .readdirSync(qrelsDir)
    .filter((n) => /\.tsv(\.gz)?$/i.test(n))
    .sort();
  if (qrelFiles.length === 0) throw new EoError('DATA_NOT_FOUND', `${qrelsDir}: no qrels/<split>.tsv files`, { dir: qrelsDir });
  const judged = new Map<string, { split: EoBenchSplit; positives: string[]; source: string }>();
  let unknownCorpus = 0;
  for (const name of qrelFiles) {
    const file = path.join(qrelsDir, name);
    files.push(file);
    const split = normalizeSplit(name.replace(/\.tsv(\.gz)?$/i, ''));
    if (split === null) throw new EoError('DATA_INVALID', `${file}: qrels file name must be train.tsv, test.tsv, val.tsv, validation.tsv or dev.tsv`, { file });
    const rows = parseDelimited(readTextFile(file), file, '\t');
    if (rows.length === 0) continue;
    const header = rows[0].cells.map((h) => h.trim().toLowerCase());
    const expected = ['query-id', 'corpus-id', 'score'];
    if (header.length !== 3 || header.some((h, k) => h !== expected[k]))
      throw new EoError('DATA_INVALID', `${file}:${rows[0].line}: field "(header)" must be "query-id<TAB>corpus-id<TAB>score" (got "${rows[0].cells.join('\\t')}")`, {
        file,
        line: rows[0].line,
        field: '(header)',
      });
    for (const r of rows.slice(1)) {
      const loc = { file, line: r.line };
      if (r.cells.length !== 3) fail(loc, '(row)', `must have 3 tab-separated columns (got ${r.cells.length})`);
      const [qid, cid, scoreText] = r.cells.map((c) => c.trim());
      if (qid === '') fail(loc, 'query-id', 'must not be empty');
      if (cid === '') fail(loc, 'corpus-id', 'must not be empty');
      const score = Number(scoreText);
      if (scoreText === '' || !Number.isFinite(score)) fail(loc, 'score', `must be a number (got "${scoreText}")`);
      if (!texts.has(qid)) fail(loc, 'query-id', `"${qid}" is not in ${path.basename(qFile)}`);
      let j = judged.get(qid);
      if (!j) judged.set(qid, (j = { split, positives: [], source: `${file}:${r.line}` }));
      else if (j.split !== split) fail(loc, 'query-id', `"${qid}" is also judged in the ${j.split} split (${j.source})`);
      if (corpusIds && !corpusIds.has(cid)) unknownCorpus++;
      if (score >= minScore && !j.positives.includes(cid)) j.positives.push(cid);
    }
  }
  if (unknownCorpus > 0) warnings.push(`${unknownCorpus} qrels row(s) name a corpus-id that is not in corpus.jsonl`);
  const queries: EoBenchQuery[] = [];
  let unjudged = 0;
  let noPositive = 0;
  for (const [id, q] of texts) {
    const j = judged.get(id);
    if (!j) {
      unjudged++;
      continue;
    }
    if (j.positives.length === 0 && !opts.allowEmptyPositives) {
      noPositive++;
      continue;
    }
    queries.push({ id, text: q.text, split: j.split, positives: j.positives, source: `${qFile}:${q.line}` });
  }
  const queriesHave = (n: number) => (n === 1 ? '1 query has' : `${n} queries have`);
  const wasWere = (n: number) => (n === 1 ? 'was' : 'were');
  if (unjudged > 0) warnings.push(`${queriesHave(unjudged)} no qrels (in ${path.basename(qFile)}) and ${wasWere(unjudged)} dropped`);
  if (noPositive > 0) warnings.push(`${queriesHave(noPositive)} no judgement with score >= ${minScore} and ${wasWere(noPositive)} dropped`);
  return { queries, format: 'beir', files, warnings, beirCorpus };
}

// ---------------------------------------------------------------------------------------------------------------
// Entry point

function formatOfFile(file: string): Exclude<EoBenchFormat, 'beir' | 'mixed'> | null {
  const n = file.toLowerCase().replace(/\.gz$/, '');
  if (n.endsWith('.jsonl') || n.endsWith('.ndjson')) return 'jsonl';
  if (n.endsWith('.json')) return 'json';
  if (n.endsWith('.csv')) return 'csv';
  if (n.endsWith('.tsv')) return 'tsv';
  return null;
}

function loadFile(file: string, format: Exclude<EoBenchFormat, 'beir' | 'mixed'>, opts: LoadEoBenchOptions): EoBenchQuery[] {
  let defaultSplit: EoBenchSplit | null = null;
  if (opts.split !== undefined) {
    defaultSplit = normalizeSplit(opts.split);
    if (defaultSplit === null) throw new EoError('INVALID_ARGUMENT', `split option must be one of train, test, val, validation, dev (got "${opts.split}")`);
  } else defaultSplit = splitFromFileName(file);
  let records: { value: unknown; line: number }[];
  if (format === 'jsonl') records = readJsonl(file);
  else if (format === 'json') {
    // Some ".json" files are really JSON Lines.
    const head = readTextFile(file).replace(/^\uFEFF/, '').trimStart();
    const firstLine = head.split('\n', 1)[0].trim();
    let looksJsonl = false;
    if (head.startsWith('{') && firstLine.endsWith('}') && head.length > firstLine.length) {
      try {
        JSON.parse(firstLine);
        looksJsonl = true;
      } catch {
        looksJsonl = false;
      }
    }
    records = looksJsonl ? readJsonl(file) : jsonRecords(file);
  } else records = delimitedRecords(file, format === 'csv' ? ',' : '\t');
  const ctx: RecordContext = { file, defaultSplit, opts };
  return records.map((r) => recordToQuery(r.value, { file, line: r.line }, ctx));
}

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
