import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { EoError } from '../errors';

/** Write a file atomically: write to a temp file in the same folder, fsync, then rename over the target. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, data as any);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

/** Read a text file, transparently gunzipping `.gz`. */
export function readTextFile(file: string): string {
  if (!fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `file not found: ${file}`, { file });
  const buf = fs.readFileSync(file);
  return file.endsWith('.gz') ? zlib.gunzipSync(buf).toString('utf8') : buf.toString('utf8');
}

/** One parsed JSON Lines row with its 1-based line number (for error messages). */
export interface JsonlRow {
  line: number;
  value: unknown;
}

/** Parse JSON Lines; blank lines are skipped; a bad line throws DATA_PARSE naming file and line. */
export function readJsonl(file: string): JsonlRow[] {
  const text = readTextFile(file);
  const rows: JsonlRow[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === '') continue;
    try {
      rows.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (e) {
      throw new EoError('DATA_PARSE', `${file}:${i + 1}: invalid JSON (${(e as Error).message})`, { file, line: i + 1 });
    }
  }
  return rows;
}

export function writeJsonl(file: string, rows: Iterable<unknown>): void {
  let out = '';
  for (const r of rows) out += JSON.stringify(r) + '\n';
  writeFileAtomic(file, out);
}
