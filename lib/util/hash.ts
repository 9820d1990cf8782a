import { createHash } from 'node:crypto';

/** Hex SHA-256 of a string or bytes. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Short stable hash for cache keys. */
export function shortHash(data: string | Uint8Array, length = 16): string {
  return sha256(data).slice(0, length);
}
