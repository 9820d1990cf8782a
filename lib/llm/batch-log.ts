/**
 * The batch log of `runBatch` (batch.ts): one append-only JSONL file of submission events, written before and after
 * every remote call so that nothing is submitted twice; read back tolerating a torn or corrupt line.
 */
import * as fs from 'node:fs';
import { appendLineWhole, writeFailure } from '../util/fs';
import type { BatchApi, LlmRecord } from './types';

/** One line of the batch log. */
export type BatchLogEvent =
  | { type: 'intent'; sid: string; configId: string; api: BatchApi; attempt: number; at: string; keys: string[]; requests: LlmRecord['request'][]; stages: (string | null)[] }
  | { type: 'uploaded'; sid: string; fileId: string }
  | { type: 'submitted'; sid: string; batchId: string; adopted?: boolean }
  | { type: 'abandoned'; sid: string; reason: string }
  | { type: 'ended'; sid: string; status: string }
  | { type: 'collected'; sid: string; succeeded: number; failed: { key: string; reason: string }[] };

/** What the log says about one submission. */
export interface BatchSubmission {
  sid: string;
  configId: string;
  api: BatchApi;
  attempt: number;
  at: string;
  keys: string[];
  requests: LlmRecord['request'][];
  stages: (string | null)[];
  fileId: string | null;
  batchId: string | null;
  status: string | null;
  abandoned: string | null;
  collected: { succeeded: number; failed: { key: string; reason: string }[] } | null;
}

/** Default batch log beside a record store: `<store>.batches.jsonl`. */
export function defaultBatchLogPath(storePath: string): string {
  return `${storePath}.batches.jsonl`;
}

/**
 * Read the batch log. A torn last line (an interrupted write) and a corrupt line anywhere (not JSON, or an event of a
 * submission the log never opened) are skipped, each with one warning naming file, line and cause (`log`, default
 * console.warn), and returned in `skipped`: never a crash, never an event read wrong.
 */
export function readBatchLogChecked(file: string, opts: { log?: (line: string) => void } = {}): { submissions: BatchSubmission[]; skipped: { line: number; reason: string }[] } {
  const log = opts.log ?? ((l: string) => console.warn(l));
  const skipped: { line: number; reason: string }[] = [];
  if (!fs.existsSync(file)) return { submissions: [], skipped };
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const bySid = new Map<string, BatchSubmission>();
  const skip = (i: number, reason: string) => {
    skipped.push({ line: i + 1, reason });
    log(`batch log ${file}:${i + 1}: ${reason}; line skipped`);
  };
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    let e: BatchLogEvent;
    try {
      e = JSON.parse(raw);
    } catch (err) {
      // a torn last line: the event was never acted on
      skip(i, i === lines.length - 1 ? 'torn last line (interrupted write)' : `invalid JSON (${(err as Error).message})`);
      return;
    }
    if (e === null || typeof e !== 'object' || typeof e.sid !== 'string') return skip(i, 'not a batch log event');
    if (e.type === 'intent') {
      bySid.set(e.sid, { sid: e.sid, configId: e.configId, api: e.api, attempt: e.attempt, at: e.at, keys: e.keys, requests: e.requests, stages: e.stages ?? e.keys.map(() => null), fileId: null, batchId: null, status: null, abandoned: null, collected: null });
      return;
    }
    const s = bySid.get(e.sid);
    if (!s) return skip(i, `event ${e.type} for unknown submission ${e.sid}`);
    if (e.type === 'uploaded') s.fileId = e.fileId;
    else if (e.type === 'submitted') s.batchId = e.batchId;
    else if (e.type === 'abandoned') s.abandoned = e.reason;
    else if (e.type === 'ended') s.status = e.status;
    else if (e.type === 'collected') s.collected = { succeeded: e.succeeded, failed: e.failed };
  });
  return { submissions: [...bySid.values()], skipped };
}

/** The batch log's submissions (`readBatchLogChecked`, skipped lines warned about). */
export function readBatchLog(file: string, opts: { log?: (line: string) => void } = {}): BatchSubmission[] {
  return readBatchLogChecked(file, opts).submissions;
}

/**
 * Append one event (one line, one write call, fsynced: `appendLineWhole`). A torn last line (a write cut short by a
 * kill) is first moved to `<file>.torn`.
 */
export function appendBatchEvent(file: string, e: BatchLogEvent): void {
  if (fs.existsSync(file)) {
    const buf = fs.readFileSync(file);
    if (buf.length > 0 && buf[buf.length - 1] !== 0x0a) {
      const start = buf.lastIndexOf(0x0a) + 1;
      appendLineWhole(`${file}.torn`, buf.subarray(start));
      try {
        fs.truncateSync(file, start);
      } catch (err) {
        throw writeFailure(file, err, 'cut the torn last line from');
      }
    }
  }
  appendLineWhole(file, JSON.stringify(e) + '\n');
}
