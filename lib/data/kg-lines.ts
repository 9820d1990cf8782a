/**
 * Line readers for (possibly gzipped) JSON-lines exports: an async one that streams the file through readline
 * (multi-GB exports, `.gz` decompressed on the fly) and a synchronous one for small files and tests.
 */
import * as fs from 'node:fs';
import * as readline from 'node:readline';
import * as zlib from 'node:zlib';
import { EoError } from '../errors';
import { gunzipFile, gzipFailureCause } from '../util/fs';

/** One line (CR and BOM removed) with its 1-based number. */
export type LineCallback = (line: string, lineNo: number) => void;

function mustExist(file: string): void {
  if (!fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `file not found: ${file}`, { file });
}

/**
 * Stream every line of a text file (`.gz`: gunzipped while reading) through `cb`, holding one line at a time.
 * A corrupt gzip stream throws DATA_PARSE naming the file.
 */
export async function forEachLine(file: string, cb: LineCallback): Promise<void> {
  mustExist(file);
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const input = file.endsWith('.gz') ? raw.pipe(zlib.createGunzip()) : raw;
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let streamError: Error | null = null;
  const onError = (e: Error) => {
    streamError ??= e;
    rl.close();
  };
  raw.on('error', onError);
  if (input !== raw) input.on('error', onError);
  rl.on('error', onError); // readline re-emits its input's errors
  let lineNo = 0;
  const fromCallback = new WeakSet<object>();
  try {
    for await (const line of rl) {
      lineNo++;
      try {
        cb(lineNo === 1 ? line.replace(/^\uFEFF/, '') : line, lineNo);
      } catch (e) {
        if (e !== null && typeof e === 'object') fromCallback.add(e);
        throw e;
      }
    }
  } catch (e) {
    // The callback's errors go through as they are, unless the stream failed first (a corrupt gzip member ends in
    // a cut line): then the stream error is the cause, reported below.
    if (streamError === null && (e === null || typeof e !== 'object' || fromCallback.has(e))) throw e;
    streamError ??= e as Error;
  } finally {
    rl.close();
    raw.destroy();
  }
  if (streamError !== null) throw new EoError('DATA_PARSE', `${file}: cannot read (${(streamError as Error).message})${file.endsWith('.gz') ? `: ${gzipFailureCause(streamError)}` : ''}`, { file, line: lineNo });
}

/** Synchronous line reader in 4 MiB chunks (whole-file gunzip for `.gz`, so meant for small compressed files). */
export function forEachLineSync(file: string, cb: LineCallback): void {
  mustExist(file);
  let lineNo = 0;
  const emit = (s: string) => {
    lineNo++;
    cb((lineNo === 1 ? s.replace(/^\uFEFF/, '') : s).replace(/\r$/, ''), lineNo);
  };
  const emitLines = (buf: Buffer, final: boolean): Buffer => {
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, start);
      if (nl < 0) break;
      emit(buf.toString('utf8', start, nl));
      start = nl + 1;
    }
    const rest = buf.subarray(start);
    if (final && rest.length > 0) {
      emit(rest.toString('utf8'));
      return Buffer.alloc(0);
    }
    return rest;
  };
  if (file.endsWith('.gz')) {
    emitLines(gunzipFile(file, fs.readFileSync(file)), true);
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
export function firstLine(file: string): string {
  mustExist(file);
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
