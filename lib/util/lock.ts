/**
 * A lock file that one process at a time holds while it builds something others would build too (a corpus's
 * embeddings, a trained model), so that a second process waits for the first and reuses its result instead of doing
 * the same work beside it. Taken atomically (`wx`); a lock whose process is gone (same host) or that has not been
 * touched for `LOCK_STALE_MS` (another host) is stale and taken over.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureWritableDir, processAlive, writeFailure } from './fs';

/** A lock untouched for this long is stale even when its process cannot be checked (another host). */
export const LOCK_STALE_MS = 10 * 60 * 1000;

/** What a lock file holds. */
export interface LockInfo {
  pid: number;
  host: string;
  started: string;
}

/** The live process holding `lockFile`, or null when it is free (absent, half-written, stale, or held by this process). */
export function lockHolder(lockFile: string): LockInfo | null {
  let info: LockInfo;
  let mtime: number;
  try {
    info = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    mtime = fs.statSync(lockFile).mtimeMs;
  } catch {
    return null; // absent, or half-written by a process that died: treat as free
  }
  if (info.host === os.hostname()) {
    if (info.pid === process.pid || !processAlive(info.pid)) return null; // its process is gone
  }
  return Date.now() - mtime > LOCK_STALE_MS ? null : info;
}

/** Take the lock (atomically, `wx`); returns false when a live process holds it. */
export function tryLock(lockFile: string): boolean {
  ensureWritableDir(path.dirname(lockFile));
  const body = JSON.stringify({ pid: process.pid, host: os.hostname(), started: new Date().toISOString() } satisfies LockInfo);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, body, { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw writeFailure(lockFile, e);
      if (lockHolder(lockFile)) return false;
      fs.rmSync(lockFile, { force: true }); // stale: take it over
    }
  }
  return false;
}

/** Mark the lock as still in use (a long job on another host would otherwise look stale after `LOCK_STALE_MS`). */
export function touchLock(lockFile: string): void {
  const now = new Date();
  try {
    fs.utimesSync(lockFile, now, now);
  } catch {
    /* removed under us; harmless */
  }
}

export function releaseLock(lockFile: string): void {
  fs.rmSync(lockFile, { force: true });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
