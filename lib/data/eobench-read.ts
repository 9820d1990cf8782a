/**
 * Format readers for NASA-EO-Bench copies: raw records (with line numbers) from JSON Lines, JSON documents and
 * CSV/TSV, and the BEIR folder layout. Turning a record into a query (field names, positives, split) is
 * eobench.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { readJsonl, readTextFile } from '../util/fs';
import { failAt, isPlainObject } from './validate';

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
export interface Loc {
  file: string;
  line: number;
}

/** Throws DATA_INVALID naming file, line and field. */
export function fail(loc: Loc, field: string, why: string): never {
  return failAt(loc)(field, why);
}

/** Field names read by `loadEoBench` (matched case-insensitively, first present wins). */
export const EOBENCH_FIELD_NAMES = {
  id: ['id', 'query_id', 'qid', '_id'],
  query: ['query', 'text', 'question'],
  positives: ['positives', 'relevant', 'relevant_ids', 'dataset_ids', 'labels'],
  split: ['split'],
} as const;
const ID_FIELDS = EOBENCH_FIELD_NAMES.id;

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

/** The first of `names` present (case-insensitive) with a non-null value. */
export function pickField(o: Obj, names: readonly string[]): { key: string; value: unknown } | null {
  const lower = new Map<string, string>();
  for (const k of Object.keys(o)) if (!lower.has(k.toLowerCase())) lower.set(k.toLowerCase(), k);
  for (const n of names) {
    const k = lower.get(n.toLowerCase());
    if (k !== undefined && o[k] !== undefined && o[k] !== null) return { key: k, value: o[k] };
  }
  return null;
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

/** Whether a folder is in the BEIR layout (queries.jsonl and qrels/). */
export function isBeirDir(dir: string): boolean {
  return pickExisting(dir, ['queries.jsonl', 'queries.jsonl.gz']) !== null && fs.existsSync(path.join(dir, 'qrels'));
}

/** Read a BEIR folder: queries.jsonl, qrels/<split>.tsv and, when present, corpus.jsonl. */
export function loadBeir(dir: string, opts: LoadEoBenchOptions): EoBench {
  const warnings: string[] = [];
  const minScore = opts.minScore ?? 1;
  const qFile = pickExisting(dir, ['queries.jsonl', 'queries.jsonl.gz'])!;
  const files: string[] = [qFile];
  const texts = readBeirQueries(qFile);
  const cFile = pickExisting(dir, ['corpus.jsonl', 'corpus.jsonl.gz']);
  let beirCorpus: BeirDocument[] | undefined;
  if (cFile) {
    files.push(cFile);
    beirCorpus = readBeirCorpus(cFile);
  } else warnings.push(`${dir}: no corpus.jsonl; qrels corpus ids were not checked`);
  const corpusIds = beirCorpus ? new Set(beirCorpus.map((d) => d.id)) : null;
  const { judged, unknownCorpus, qrelFiles } = readBeirQrels(path.join(dir, 'qrels'), qFile, texts, corpusIds, minScore);
  files.push(...qrelFiles);
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

/** BEIR queries.jsonl: query id → text and the line it is on (ids unique, texts non-empty). */
function readBeirQueries(qFile: string): Map<string, { text: string; line: number }> {
  const texts = new Map<string, { text: string; line: number }>();
  for (const r of readJsonl(qFile)) {
    const loc = { file: qFile, line: r.line };
    if (!isPlainObject(r.value)) fail(loc, '(record)', 'must be a JSON object');
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
  return texts;
}

/** BEIR corpus.jsonl: one document per line with an id and string title/text. */
function readBeirCorpus(cFile: string): BeirDocument[] {
  return readJsonl(cFile).map((r) => {
    const loc = { file: cFile, line: r.line };
    if (!isPlainObject(r.value)) fail(loc, '(record)', 'must be a JSON object');
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
}

/**
 * BEIR qrels/<split>.tsv files (in name order): per judged query its split and the corpus ids scored ≥ `minScore`;
 * a query judged in two splits, an unknown query id or a malformed row is an error; corpus ids missing from the
 * corpus (when there is one) are counted.
 */
function readBeirQrels(
  qrelsDir: string, qFile: string, texts: ReadonlyMap<string, unknown>, corpusIds: ReadonlySet<string> | null, minScore: number,
): { judged: Map<string, { split: EoBenchSplit; positives: string[]; source: string }>; unknownCorpus: number; qrelFiles: string[] } {
  const qrelFiles = fs
    .readdirSync(qrelsDir)
    .filter((n) => /\.tsv(\.gz)?$/i.test(n))
    .sort();
  if (qrelFiles.length === 0) throw new EoError('DATA_NOT_FOUND', `${qrelsDir}: no qrels/<split>.tsv files`, { dir: qrelsDir });
  const judged = new Map<string, { split: EoBenchSplit; positives: string[]; source: string }>();
  let unknownCorpus = 0;
  const read: string[] = [];
  for (const name of qrelFiles) {
    const file = path.join(qrelsDir, name);
    read.push(file);
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
  return { judged, unknownCorpus, qrelFiles: read };
}


/** One raw record of a file, with the 1-based line it starts on. */
export interface RawRecord {
  value: unknown;
  line: number;
}

/** The format of a file from its extension (`.gz` ignored), or null. */
export function formatOfFile(file: string): Exclude<EoBenchFormat, 'beir' | 'mixed'> | null {
  const n = file.toLowerCase().replace(/\.gz$/, '');
  if (n.endsWith('.jsonl') || n.endsWith('.ndjson')) return 'jsonl';
  if (n.endsWith('.json')) return 'json';
  if (n.endsWith('.csv')) return 'csv';
  if (n.endsWith('.tsv')) return 'tsv';
  return null;
}

/** The raw records of one file: JSON lines, a JSON document (or JSON lines named `.json`), or CSV/TSV rows as objects. */
export function readRawRecords(file: string, format: Exclude<EoBenchFormat, 'beir' | 'mixed'>): RawRecord[] {
  if (format === 'jsonl') return readJsonl(file);
  if (format === 'json') {
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
    return looksJsonl ? readJsonl(file) : jsonRecords(file);
  }
  return delimitedRecords(file, format === 'csv' ? ',' : '\t');
}
