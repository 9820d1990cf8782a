import * as fs from 'node:fs';
import * as path from 'node:path';
import { HierarchicalNSW } from 'hnswlib-node';
import { checkpointsDir } from '../util/paths';
import { EoError } from '../errors';
import { ensureWritableDir, writeFailure, writeJsonAtomic } from '../util/fs';
import { checkContentHash, sha256 } from '../util/hash';
import type { ScoredHit } from './topk';

/** Build parameters of an HNSW index. */
export interface HnswOptions {
  /** Graph degree M. Default 16. */
  m?: number;
  /** Candidate list size while building. Default 200. */
  efConstruction?: number;
  /** Random seed of level assignment (same seed + same data = same index). Default 100. */
  seed?: number;
  /** Candidate list size while searching (see `annSearch` for how k raises it). Default 128. */
  efSearch?: number;
}

/** Metadata stored next to a saved index (`<name>.hnsw` + `<name>.json`). */
export interface HnswMeta {
  format: 'eo-hnsw/1';
  /** Inner product over unit vectors (= cosine); hnswlib distance is 1 − dot. */
  space: 'ip';
  dim: number;
  count: number;
  m: number;
  efConstruction: number;
  seed: number;
  /** 16-hex hash of the matrix bytes it was built from. */
  matrixHash: string;
  /** Caller key (e.g. encoder + corpus hash). */
  key: string;
  created: string;
  /** SHA-256 of the `.hnsw` file, checked on load (absent in indexes saved before it was recorded: stale, rebuilt). */
  sha256?: string;
}

/** A loaded or built index (labels are row numbers in corpus order). */
export interface HnswIndex {
  index: HierarchicalNSW;
  meta: HnswMeta;
  /** Current search ef. */
  efSearch: number;
}

const DEFAULTS = { m: 16, efConstruction: 200, seed: 100, efSearch: 128 };

/** 16-hex hash of a Float32Array's bytes. */
export function hashMatrix(matrix: Float32Array): string {
  return sha256(new Uint8Array(matrix.buffer, matrix.byteOffset, matrix.byteLength)).slice(0, 16);
}

/** Build an HNSW index (inner-product space) over the rows of an L2-normalised N×dim matrix. */
export function buildHnsw(matrix: Float32Array, dim: number, opts: HnswOptions & { key?: string } = {}): HnswIndex {
  if (!Number.isInteger(dim) || dim < 1 || matrix.length % dim !== 0)
    throw new EoError('INVALID_ARGUMENT', `buildHnsw: matrix length ${matrix.length} is not a multiple of dim ${dim}`);
  const count = matrix.length / dim;
  if (count === 0) throw new EoError('INVALID_ARGUMENT', 'buildHnsw: empty matrix');
  const m = opts.m ?? DEFAULTS.m;
  const efConstruction = opts.efConstruction ?? DEFAULTS.efConstruction;
  const seed = opts.seed ?? DEFAULTS.seed;
  const index = new HierarchicalNSW('ip', dim);
  index.initIndex(count, m, efConstruction, seed);
  for (let i = 0; i < count; i++) index.addPoint(Array.from(matrix.subarray(i * dim, (i + 1) * dim)), i);
  const efSearch = opts.efSearch ?? DEFAULTS.efSearch;
  index.setEf(efSearch);
  const meta: HnswMeta = {
    format: 'eo-hnsw/1',
    space: 'ip',
    dim,
    count,
    m,
    efConstruction,
    seed,
    matrixHash: hashMatrix(matrix),
    key: opts.key ?? '',
    created: new Date().toISOString(),
  };
  return { index, meta, efSearch };
}

/** Save an index as `<file>` plus `<file minus .hnsw>.json`, each atomically (temp file, fsync, rename). */
export function saveHnsw(idx: HnswIndex, file: string): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    ensureWritableDir(path.dirname(file));
    // hnswlib writes the file itself, so the bytes go through its writer; the rename and the errors follow writeFileAtomic's
    idx.index.writeIndexSync(tmp);
    idx.meta.sha256 = sha256(fs.readFileSync(tmp));
    const fd = fs.openSync(tmp, 'r+');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    throw writeFailure(file, e);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  writeJsonAtomic(metaFileOf(file), idx.meta);
}

function metaFileOf(file: string): string {
  return file.replace(/\.hnsw$/, '') + '.json';
}

/**
 * Load a saved index. `expect` fields that are given must match its metadata, and the file its recorded SHA-256 (else
 * CACHE_MISMATCH); pass the matrix hash to be sure the index belongs to the embeddings in hand. Returns null when the
 * files are absent or the index is stale (saved before indexes recorded a hash).
 */
export function loadHnsw(file: string, expect: Partial<Pick<HnswMeta, 'dim' | 'count' | 'matrixHash' | 'm' | 'efConstruction' | 'seed' | 'key'>> = {}, efSearch = DEFAULTS.efSearch): HnswIndex | null {
  const metaFile = metaFileOf(file);
  if (!fs.existsSync(file) || !fs.existsSync(metaFile)) return null;
  let meta: HnswMeta;
  try {
    meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
  } catch (e) {
    throw new EoError('CACHE_MISMATCH', `${metaFile}: unreadable index metadata (${(e as Error).message}); delete it to rebuild`, { file: metaFile });
  }
  if (meta.format !== 'eo-hnsw/1') throw new EoError('CACHE_MISMATCH', `${metaFile}: format ${JSON.stringify(meta.format)}, expected "eo-hnsw/1"`, { file: metaFile });
  for (const [k, v] of Object.entries(expect)) {
    if (v !== undefined && (meta as unknown as Record<string, unknown>)[k] !== v)
      throw new EoError('CACHE_MISMATCH', `${metaFile}: ${k} is ${JSON.stringify((meta as unknown as Record<string, unknown>)[k])}, expected ${JSON.stringify(v)} — the index was built from other embeddings or settings; delete it to rebuild`, { file: metaFile, what: k });
  }
  if (typeof meta.sha256 !== 'string') return null; // saved before indexes recorded a hash: stale, never trusted
  checkContentHash(file, meta.sha256, sha256(fs.readFileSync(file)), `delete ${file} (hnswCached builds it again)`);
  const index = new HierarchicalNSW('ip', meta.dim);
  index.readIndexSync(file);
  if (index.getCurrentCount() !== meta.count)
    throw new EoError('CACHE_MISMATCH', `${file}: holds ${index.getCurrentCount()} points, metadata says ${meta.count}; delete it to rebuild`, { file });
  index.setEf(efSearch);
  return { index, meta, efSearch };
}

/** Options of `hnswCached`. */
export interface HnswCachedOptions extends HnswOptions {
  matrix: Float32Array;
  dim: number;
  /** Names the files, e.g. `${encoderSlug(encoder.id)}__${corpus.hash}`; [A-Za-z0-9_.-]. */
  key: string;
  /** Folder. Default `<repo>/checkpoints/hnsw`. */
  cacheDir?: string;
  /** When a stored index does not match: 'error' throws CACHE_MISMATCH, 'rebuild' replaces it. Default 'rebuild'. */
  onMismatch?: 'error' | 'rebuild';
}

/** Default folder of saved indexes: `<repo>/checkpoints/hnsw`. */
export function defaultHnswDir(): string {
  return checkpointsDir('hnsw');
}

/** Load the index for these embeddings from the cache folder, or build and save it. */
export function hnswCached(opts: HnswCachedOptions): HnswIndex {
  if (!/^[A-Za-z0-9_.-]{1,120}$/.test(opts.key)) throw new EoError('INVALID_ARGUMENT', `hnsw cache key must match [A-Za-z0-9_.-]{1,120}, got ${JSON.stringify(opts.key)}`);
  const m = opts.m ?? DEFAULTS.m;
  const efConstruction = opts.efConstruction ?? DEFAULTS.efConstruction;
  const seed = opts.seed ?? DEFAULTS.seed;
  const file = path.join(opts.cacheDir ?? defaultHnswDir(), `${opts.key}__M${m}-ef${efConstruction}-s${seed}.hnsw`);
  const expect = { dim: opts.dim, count: opts.matrix.length / opts.dim, matrixHash: hashMatrix(opts.matrix), m, efConstruction, seed, key: opts.key };
  try {
    const hit = loadHnsw(file, expect, opts.efSearch ?? DEFAULTS.efSearch);
    if (hit) return hit;
  } catch (e) {
    if ((opts.onMismatch ?? 'rebuild') === 'error' || !(e instanceof EoError && e.code === 'CACHE_MISMATCH')) throw e;
  }
  const idx = buildHnsw(opts.matrix, opts.dim, { ...opts, key: opts.key });
  saveHnsw(idx, file);
  return idx;
}

/** Options of `annSearch`. */
export interface AnnSearchOptions {
  /** Dataset ids in corpus order; equal scores are then ordered by id descending (trec_eval order). Default: by index. */
  ids?: readonly string[];
  /**
   * Candidate list size for this search (raised to k + extra when smaller). Default: max(index `efSearch` (128),
   * 4·k) — on the 10k-dataset USE-lite matrix that keeps ~99% of the exact top-100.
   */
  efSearch?: number;
  /** Extra neighbours fetched so that ties at the k-th place are ordered correctly before cutting. Default 16. */
  extra?: number;
}

/**
 * Approximate top-k by inner product (cosine for unit vectors): best first, score = dot product. Ties are ordered
 * by `ids` descending when given (trec_eval order), else by index.
 */
export function annSearch(idx: HnswIndex, queryVec: ArrayLike<number>, k: number, opts: AnnSearchOptions = {}): ScoredHit[] {
  if (queryVec.length !== idx.meta.dim) throw new EoError('INVALID_ARGUMENT', `annSearch: query has ${queryVec.length} dimensions, index has ${idx.meta.dim}`);
  const count = idx.index.getCurrentCount();
  const want = Math.min(Math.max(0, Math.floor(k)), count);
  if (want === 0) return [];
  const n = Math.min(want + Math.max(0, opts.extra ?? 16), count);
  const ef = Math.max(n, opts.efSearch ?? Math.max(idx.efSearch, 4 * want));
  if (ef !== idx.index.getEf()) idx.index.setEf(ef);
  const res = idx.index.searchKnn(Array.from(queryVec), n);
  const hits = res.neighbors.map((index, i) => ({ index, score: 1 - res.distances[i] }));
  const ids = opts.ids;
  hits.sort((a, b) => b.score - a.score || (ids ? (ids[a.index] < ids[b.index] ? 1 : ids[a.index] > ids[b.index] ? -1 : 0) : 0) || a.index - b.index);
  return hits.slice(0, want);
}
