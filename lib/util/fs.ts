import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { EoError } from '../errors';

/** System error codes of a full disk or quota: DISK_FULL. Every other write failure is NOT_WRITABLE. */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);
/** Codes the write fault hook raises when a file is opened (permission-like) rather than after N bytes. */
const OPEN_FAULT_CODES = new Set(['EACCES', 'EPERM', 'EROFS']);

/** A simulated write failure (tests only): see `setWriteFaultForTests`. */
export interface WriteFault {
  /**
   * Bytes that may still be written (by `writeFileAtomic` and `appendLineWhole`, all files together) before the
   * fault strikes: the write that crosses it is cut short at the limit, as a full disk does, and the next one throws.
   * Default 0.
   */
  failAfterBytes?: number;
  /**
   * The system error raised. ENOSPC / EDQUOT strike after `failAfterBytes`; EACCES / EPERM / EROFS strike when the
   * next file is opened for writing, as a permission or read-only file system does. Default 'ENOSPC'.
   */
  code?: 'ENOSPC' | 'EDQUOT' | 'EACCES' | 'EPERM' | 'EROFS' | 'EIO';
}

let writeFault: { remaining: number; code: string } | null = null;

/**
 * Make the project's writers fail as a full disk or a read-only folder would, where a test cannot mount a small
 * file system or drop permissions (tests run as root). `null` switches it off. Not for use outside tests.
 */
export function setWriteFaultForTests(fault: WriteFault | null): void {
  writeFault = fault === null ? null : { remaining: Math.max(0, fault.failAfterBytes ?? 0), code: fault.code ?? 'ENOSPC' };
}

function systemError(code: string, syscall: string, file: string): NodeJS.ErrnoException {
  const e = new Error(`${code}: simulated failure, ${syscall} '${file}'`) as NodeJS.ErrnoException;
  e.code = code;
  e.syscall = syscall;
  return e;
}

function openForWrite(file: string, flags: string): number {
  if (writeFault && OPEN_FAULT_CODES.has(writeFault.code)) throw systemError(writeFault.code, 'open', file);
  return fs.openSync(file, flags);
}

/** One write call (the fault hook may cut it short or fail it); returns the bytes written. */
function writeOnce(fd: number, bytes: Uint8Array, offset: number, file: string): number {
  let length = bytes.byteLength - offset;
  if (writeFault && !OPEN_FAULT_CODES.has(writeFault.code)) {
    if (writeFault.remaining === 0) throw systemError(writeFault.code, 'write', file);
    length = Math.min(length, writeFault.remaining);
    writeFault.remaining -= length;
  }
  return fs.writeSync(fd, bytes, offset, length);
}

/**
 * The EoError of a failed write of `file`: DISK_FULL for ENOSPC / EDQUOT, NOT_WRITABLE for everything else, naming
 * the file and the system's code. An EoError passes through unchanged.
 */
export function writeFailure(file: string, e: unknown, what = 'write'): EoError {
  if (e instanceof EoError) return e;
  const err = e as NodeJS.ErrnoException;
  const code = err?.code ?? 'EIO';
  const cause = `${code}${err?.syscall ? ` on ${err.syscall}` : ''}`;
  if (DISK_FULL_CODES.has(code))
    return new EoError('DISK_FULL', `cannot ${what} ${file}: the disk is full (${cause}); nothing partial was left in its place — free some space and run again`, { file, cause: code });
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'read-only file system' : code === 'ENOTDIR' || code === 'EEXIST' ? 'a file stands where a folder is needed' : code === 'EISDIR' ? 'a folder stands at the file\'s path' : (err?.message ?? String(e));
  return new EoError('NOT_WRITABLE', `cannot ${what} ${file}: ${why} (${cause}); nothing partial was left in its place`, { file, cause: code });
}

let tmpCounter = 0;

/** Create a folder (and its parents) to write into; a failure is NOT_WRITABLE / DISK_FULL naming the folder and the cause. */
export function ensureWritableDir(dir: string): void {
  try {
    mkdirp(dir);
  } catch (e) {
    throw writeFailure(dir, e, 'create the folder');
  }
}

/**
 * `mkdir -p`, surfacing the real cause: a recursive mkdir on a read-only file system reports ENOENT, so the first
 * missing folder is made on its own to raise EROFS / EACCES / ENOTDIR instead.
 */
function mkdirp(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    let missing = dir;
    while (!fs.existsSync(path.dirname(missing)) && path.dirname(missing) !== missing) missing = path.dirname(missing);
    fs.mkdirSync(missing); // throws the real cause
    fs.mkdirSync(dir, { recursive: true }); // (a folder made meanwhile: carry on)
  }
}

/**
 * Remove a file or folder (nothing when absent); a failure is NOT_WRITABLE naming it and the cause (`writeFailure`),
 * as for a write: a read-only folder refuses both.
 */
export function removePath(file: string): void {
  try {
    if (writeFault && OPEN_FAULT_CODES.has(writeFault.code) && fs.existsSync(file)) throw systemError(writeFault.code, 'unlink', file);
    fs.rmSync(file, { recursive: true, force: true });
  } catch (e) {
    throw writeFailure(file, e, 'remove');
  }
}

/** Whether process `pid` is alive on this machine: only "no such process" (ESRCH) says it is gone. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Remove the temp files `writeFileAtomic` left beside `file` when its writer was killed (`<name>.<pid>.<time>.<n>.tmp`
 * of a process that is gone), so a kill -9 mid-write leaves nothing behind for long: the next write of the same file
 * removes them. Temp files of live writers are kept; a failure to remove one is left for the next time.
 */
function removeDeadWritersTemps(file: string): void {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // no folder yet
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const m = /^(\d+)\.\d+\.\d+\.tmp$/.exec(name.slice(prefix.length));
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    try {
      fs.rmSync(path.join(dir, name), { force: true });
    } catch {
      /* left for the next write */
    }
  }
}

/**
 * Write a file whole or not at all: the bytes go to a temp file in the same folder (every byte: short writes are
 * continued), which is fsynced and renamed over the target. On any failure the temp file is removed and the target
 * is left as it was; the error is DISK_FULL or NOT_WRITABLE naming the file and the cause (`writeFailure`). Temp
 * files of the same target left by a killed writer are removed first (`removeDeadWritersTemps`).
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const tmp = `${file}.${process.pid}.${Date.now()}.${tmpCounter++}.tmp`;
  let fd: number | null = null;
  try {
    mkdirp(path.dirname(file));
    removeDeadWritersTemps(file);
    fd = openForWrite(tmp, 'wx');
    let offset = 0;
    while (offset < bytes.byteLength) {
      const n = writeOnce(fd, bytes, offset, tmp);
      if (n === 0) throw systemError('ENOSPC', 'write', tmp); // no progress and no error: the disk took nothing
      offset += n;
    }
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = null;
    fs.renameSync(tmp, file);
  } catch (e) {
    if (fd !== null) {
      try {
        fs.closeSync(fd);
      } catch {
        /* the write error is the one to report */
      }
    }
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      /* no temp file could be made (e.g. its folder is a file) */
    }
    throw writeFailure(file, e);
  }
}

export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

/**
 * Append one line (or a block of whole lines; a final newline is added when missing) to an append-only log with a
 * single write call on an O_APPEND descriptor, then fsync. A write cut short (full disk) is undone (the file cut back
 * to its old length when no other writer appended meanwhile), so the log keeps only whole lines; the error is
 * DISK_FULL / NOT_WRITABLE naming the file. Readers of such logs skip an incomplete last line, which only a kill
 * mid-write can leave.
 */
export function appendLineWhole(file: string, text: string | Uint8Array): void {
  const raw = typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text);
  const bytes = raw.length > 0 && raw[raw.length - 1] === 0x0a ? raw : Buffer.concat([raw, Buffer.from('\n')]);
  let fd: number | null = null;
  try {
    mkdirp(path.dirname(file));
    fd = openForWrite(file, 'a');
    const before = fs.fstatSync(fd).size;
    let written = 0;
    try {
      written = writeOnce(fd, bytes, 0, file);
      if (written < bytes.byteLength) throw systemError('ENOSPC', 'write', file); // a short append is a full disk
      fs.fsyncSync(fd);
    } catch (e) {
      try {
        if (fs.fstatSync(fd).size === before + written) fs.ftruncateSync(fd, before);
      } catch {
        /* the write error is the one to report */
      }
      throw e;
    }
  } catch (e) {
    throw writeFailure(file, e, 'append to');
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/**
 * A file that must be there to be read: DATA_NOT_FOUND naming it (after `flag`, e.g. `--run`, when one gave it) when
 * nothing is at its path or when a folder is (Node's own EISDIR names neither the path nor the flag).
 */
export function requireFile(file: string, flag?: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new EoError('DATA_NOT_FOUND', flag ? `${flag}: no such file: ${file}` : `file not found: ${file}`, { file });
  }
  if (st.isDirectory()) throw new EoError('DATA_NOT_FOUND', `${flag ? `${flag}: ` : 'file '}${file} is a folder, not a file`, { file });
}

/** Read a text file, transparently gunzipping `.gz`. */
export function readTextFile(file: string): string {
  requireFile(file);
  const buf = fs.readFileSync(file);
  return file.endsWith('.gz') ? gunzipFile(file, buf).toString('utf8') : buf.toString('utf8');
}

/** Gunzip a file's bytes; a truncated or non-gzip file is DATA_PARSE naming the file and the cause. */
export function gunzipFile(file: string, buf: Buffer): Buffer {
  try {
    return zlib.gunzipSync(buf);
  } catch (e) {
    throw new EoError('DATA_PARSE', `${file}: cannot read (${(e as Error).message}): ${gzipFailureCause(e)}; replace it with a complete copy`, {
      file, cause: (e as NodeJS.ErrnoException).code ?? null,
    });
  }
}

/** Words for a zlib error: "the gzip file is truncated" (the stream ends early), "not a gzip file" (bad header), else corrupt. */
export function gzipFailureCause(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const msg = err?.message ?? String(e);
  if (err?.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(msg)) return 'the gzip file is truncated';
  if (/incorrect header check|not in gzip format/i.test(msg)) return 'not a gzip file';
  return 'the gzip data is corrupt';
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
