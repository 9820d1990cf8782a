import { EoError } from '../errors';

/**
 * A bounded least-recently-used map: `get` and `set` mark an entry as most recent; inserting beyond `maxEntries`
 * evicts the least recent one. Backed by a Map (its insertion order is the recency order), so every operation is O(1).
 */
export interface Lru<K, V> {
  /** The value, marking it most recent; undefined when absent. */
  get(key: K): V | undefined;
  /** Whether the key is present (does not change recency). */
  has(key: K): boolean;
  /** Store (or replace) a value as most recent, evicting the least recent entry beyond `maxEntries`. */
  set(key: K, value: V): void;
  delete(key: K): boolean;
  clear(): void;
  /** Entries held now. */
  readonly size: number;
  readonly maxEntries: number;
  /** Keys from least to most recent. */
  keys(): K[];
}

/** An LRU holding at most `maxEntries` (an integer ≥ 0; 0 holds nothing, so every `get` misses). */
export function createLru<K, V>(maxEntries: number): Lru<K, V> {
  if (!Number.isInteger(maxEntries) || maxEntries < 0) throw new EoError('INVALID_ARGUMENT', `LRU maxEntries must be an integer ≥ 0, got ${maxEntries}`);
  const map = new Map<K, V>();
  return {
    maxEntries,
    get size() {
      return map.size;
    },
    get(key) {
      if (!map.has(key)) return undefined;
      const v = map.get(key)!;
      map.delete(key);
      map.set(key, v);
      return v;
    },
    has: (key) => map.has(key),
    set(key, value) {
      if (maxEntries === 0) return;
      map.delete(key);
      map.set(key, value);
      while (map.size > maxEntries) map.delete(map.keys().next().value as K);
    },
    delete: (key) => map.delete(key),
    clear: () => map.clear(),
    keys: () => [...map.keys()],
  };
}
