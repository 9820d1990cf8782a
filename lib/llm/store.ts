import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { appendLineWhole, writeFailure } from '../util/fs';
import type { LlmRecord, RecordStore } from './types';

export interface OpenRecordStoreOptions {
  /** Warnings (torn last line found / repaired). Default console.warn. */
  log?: (line: string) => void;
}

function validateRecord(v: unknown, where: string): LlmRecord {
  const r = v as Partial<LlmRecord> | null;
  if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new EoError('DATA_INVALID', `${where}: record is not an object`);
  if (typeof r.key !== 'string' || r.key === '') throw new EoError('DATA_INVALID', `${where}: field "key" missing or not a string`);
  if (typeof r.configId !== 'string') throw new EoError('DATA_INVALID', `${where}: field "configId" missing or not a string`);
  if (!r.request || !Array.isArray(r.request.messages)) throw new EoError('DATA_INVALID', `${where}: field "request.messages" missing or not a list`);
  if (!r.response || typeof r.response.text !== 'string') throw new EoError('DATA_INVALID', `${where}: field "response.text" missing or not a string`);
  if (!Array.isArray(r.response.toolCalls)) throw new EoError('DATA_INVALID', `${where}: field "response.toolCalls" missing or not a list`);
  if (!r.response.usage || typeof r.response.usage.inputTokens !== 'number') throw new EoError('DATA_INVALID', `${where}: field "response.usage" missing or invalid`);
  return r as LlmRecord;
}

/** An in-memory store (tests, dry runs). */
export function memoryRecordStore(initial: LlmRecord[] = []): RecordStore {
  const byKey = new Map<string, LlmRecord>();
  for (const r of initial) if (!byKey.has(r.key)) byKey.set(r.key, r);
  return {
    path: null,
    get: (k) => byKey.get(k),
    has: (k) => byKey.has(k),
    append(r) {
      if (!byKey.has(r.key)) byKey.set(r.key, r);
    },
    size: () => byKey.size,
    records: () => [...byKey.values()],
  };
}

/** A keyed, append-only JSONL log (the LLM record store and the judge cache are two of these). */
export interface KeyedJsonlLog<T> {
  path: string;
  get(key: string): T | undefined;
  has(key: string): boolean;
  /** Append one value (one line, fsynced); a key already present is not written again. */
  append(value: T): void;
  size(): number;
  /** Values in file order (first occurrence of each key). */
  records(): T[];
  /** Lines skipped when the file was read (a torn last line, a corrupt or invalid line anywhere), with why. */
  skipped(): { line: number; reason: string }[];
}

export interface OpenKeyedJsonlLogOptions<T> extends OpenRecordStoreOptions {
  /** Validates one parsed line (`where` is `file:line`); throws an EoError naming the field. */
  validate: (value: unknown, where: string) => T;
  keyOf: (value: T) => string;
  /** What the file holds, for messages. Default 'log'. */
  label?: string;
}

/** What `openKeyedJsonlLog` loads from an existing log (see there): values by key, skipped lines, the torn tail. */
function readKeyedJsonl<T>(
  file: string, opts: OpenKeyedJsonlLogOptions<T>, log: (line: string) => void, label: string,
): { byKey: Map<string, T>; skipped: { line: number; reason: string }[]; tornAt: number | null; needsNewline: boolean } {
  const byKey = new Map<string, T>();
  /** Byte offset where a torn tail starts (null: none). */
  let tornAt: number | null = null;
  /** Whether the file ends without a newline after a complete last line (append must add one). */
  let needsNewline = false;
  const skipped: { line: number; reason: string }[] = [];
  if (!fs.existsSync(file)) return { byKey, skipped, tornAt, needsNewline };
  const buf = fs.readFileSync(file);
  let offset = 0;
  let lineNo = 0;
  while (offset < buf.length) {
    const nl = buf.indexOf(0x0a, offset);
    const end = nl === -1 ? buf.length : nl;
    lineNo++;
    const raw = buf.subarray(offset, end).toString('utf8').trim();
    if (raw !== '') {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (e) {
        if (nl === -1) {
          tornAt = offset;
          skipped.push({ line: lineNo, reason: 'torn last line' });
          log(`${label} ${file}:${lineNo}: torn last line (${end - offset} bytes, interrupted write) ignored; it is moved to ${file}.torn before the next append`);
          break;
        }
        skipped.push({ line: lineNo, reason: `invalid JSON (${(e as Error).message})` });
        log(`${label} ${file}:${lineNo}: corrupt line skipped: invalid JSON (${(e as Error).message})`);
        offset = nl + 1;
        continue;
      }
      let v: T;
      try {
        v = opts.validate(value, `${file}:${lineNo}`);
      } catch (e) {
        if (!(e instanceof EoError)) throw e;
        skipped.push({ line: lineNo, reason: e.message });
        log(`${label} ${file}:${lineNo}: invalid line skipped: ${e.message}`);
        if (nl === -1) {
          needsNewline = true;
          break;
        }
        offset = nl + 1;
        continue;
      }
      const k = opts.keyOf(v);
      if (!byKey.has(k)) byKey.set(k, v);
      if (nl === -1) needsNewline = true;
    }
    if (nl === -1) break;
    offset = nl + 1;
  }
  return { byKey, skipped, tornAt, needsNewline };
}

/**
 * Open (or create on first append) a keyed append-only JSONL log.
 *
 * Load: every line is one value; a key seen twice keeps its first value. A last line that is not complete
 * JSON (the process died mid-write) is ignored with a warning; before the next append it is moved to
 * `<file>.torn` and cut from the file, so no earlier line is ever lost. A bad line anywhere else (not JSON, or not a
 * valid value) is skipped with a warning naming file, line and cause, and listed by `skipped()`: never a crash, never
 * a value read wrong.
 * Append: one `JSON.stringify(value) + '\n'` write on an O_APPEND descriptor, then fsync (`appendLineWhole`: a
 * full disk leaves the log as it was and throws DISK_FULL naming the file).
 */
export function openKeyedJsonlLog<T>(file: string, opts: OpenKeyedJsonlLogOptions<T>): KeyedJsonlLog<T> {
  const log = opts.log ?? ((l: string) => console.warn(l));
  const label = opts.label ?? 'log';
  const loaded = readKeyedJsonl(file, opts, log, label);
  const { byKey, skipped } = loaded;
  let { tornAt, needsNewline } = loaded;

  function repairTail(): void {
    if (tornAt === null) return;
    const buf = fs.readFileSync(file);
    appendLineWhole(`${file}.torn`, buf.subarray(tornAt));
    try {
      fs.truncateSync(file, tornAt);
    } catch (e) {
      throw writeFailure(file, e, 'cut the torn last line from');
    }
    log(`${label} ${file}: torn last line moved to ${file}.torn`);
    tornAt = null;
  }

  return {
    path: file,
    get: (k) => byKey.get(k),
    has: (k) => byKey.has(k),
    append(value) {
      const k = opts.keyOf(value);
      if (byKey.has(k)) return;
      repairTail();
      appendLineWhole(file, (needsNewline ? '\n' : '') + JSON.stringify(value) + '\n');
      needsNewline = false;
      byKey.set(k, value);
    },
    size: () => byKey.size,
    records: () => [...byKey.values()],
    skipped: () => skipped.slice(),
  };
}

/** Open (or create on first append) the LLM record store: a keyed append-only JSONL log of LlmRecord (see openKeyedJsonlLog). */
export function openRecordStore(file: string, opts: OpenRecordStoreOptions = {}): RecordStore & Pick<KeyedJsonlLog<LlmRecord>, 'skipped'> {
  return openKeyedJsonlLog<LlmRecord>(file, { ...opts, validate: validateRecord, keyOf: (r) => r.key, label: 'LLM record store' });
}
