import { createHash } from 'node:crypto';
import { EoError } from '../errors';

/** Hex SHA-256 of a string or bytes. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Short stable hash for cache keys. */
export function shortHash(data: string | Uint8Array, length = 16): string {
  return sha256(data).slice(0, length);
}

/**
 * Content hash of a cache: hex SHA-256 over its parts, each length-prefixed (so moving a boundary changes it).
 * Recorded when the cache is written and checked when it is loaded (`checkContentHash`).
 */
export function contentHash(parts: readonly (string | Uint8Array)[]): string {
  const h = createHash('sha256');
  for (const p of parts) {
    const bytes = typeof p === 'string' ? Buffer.from(p, 'utf8') : p;
    h.update(`${bytes.byteLength}:`).update(bytes);
  }
  return h.digest('hex');
}

/**
 * Refuse a cache whose content hash is not the one recorded at write: CACHE_MISMATCH naming the file, both hashes
 * and the command that rebuilds it. A cache that recorded no hash (written before caches recorded one) is refused
 * the same way: it cannot be shown to be whole.
 */
export function checkContentHash(file: string, recorded: unknown, actual: string, rebuild: string): void {
  if (recorded === actual) return;
  if (typeof recorded !== 'string' || recorded === '')
    throw new EoError('CACHE_MISMATCH', `${file}: records no content hash (written before caches recorded one), so it cannot be trusted (its content hashes to ${actual}); rebuild it: ${rebuild}`, {
      file, recorded: null, actual, rebuild,
    });
  throw new EoError('CACHE_MISMATCH', `${file}: content hash ${actual} differs from ${recorded}, recorded when it was written (the file is damaged or was changed); rebuild it: ${rebuild}`, {
    file, recorded, actual, rebuild,
  });
}

/** The content hash a JSON record stores in its `sha256` field: SHA-256 of its JSON without that field. */
export function jsonRecordHash(fields: object): string {
  return sha256(JSON.stringify(fields));
}

/** A JSON record with its content hash added (`sha256`, last), ready to be written. */
export function withJsonRecordHash<T extends object>(fields: T): T & { sha256: string } {
  return { ...fields, sha256: jsonRecordHash(fields) };
}

/**
 * A JSON record as read, split from its recorded hash: `status` is ok when the hash matches the rest, `none` when it
 * records none (written before records carried one), `mismatch` when the record was changed or damaged.
 */
export function readJsonRecordHash<T extends object>(parsed: T & { sha256?: unknown }): { record: T; recorded: unknown; actual: string; status: 'ok' | 'none' | 'mismatch' } {
  const { sha256: recorded, ...record } = parsed;
  const actual = jsonRecordHash(record);
  const status = recorded === actual ? 'ok' : typeof recorded !== 'string' || recorded === '' ? 'none' : 'mismatch';
  return { record: record as T, recorded, actual, status };
}
