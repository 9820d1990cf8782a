/**
 * Query repair's vocabulary (see repair.ts): built from the corpus, the GCMD keywords, the gazetteer and `repair.json`,
 * with the SymSpell deletes index, and cached on disk per corpus.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Corpus } from '../data/types';
import { loadGazetteer } from '../router/gazetteer';
import { corpusGcmdFile } from '../router/variables';
import { writeFileAtomic } from '../util/fs';
import { readJsonRecordHash, sha256, shortHash, withJsonRecordHash } from '../util/hash';
import { checkpointsDir } from '../util/paths';
import { vocabularyFile } from './expand';
import type { RepairVocabulary } from './repair-types';
import { DEFAULTS, buildRepairVocabulary, corpusPhraseCounter, readRepairData, repairDataFile } from './repair-build';

// the names of the parts this module was split into, as before
export { PREFIX, TARGET_SLOTS, buildRepairVocabulary, damerauLevenshtein, deleteHashes, findAcronymDefinitions, readRepairData, repairDataFile } from './repair-build';

const cache = new WeakMap<object, RepairVocabulary>();

/** Bump when the cached fields or their meaning change: older cache files are then rebuilt. */
const CACHE_FORMAT = 1;

/** What the cache files hold besides the deletes index (`.bin`, the Float64Array's bytes). */
export interface RepairCacheMeta {
  key: string;
  words: string[];
  counts: number[];
  capitals: [string, number][];
  identifiers: string[];
  placeWords: string[];
  targets: string[];
  acronyms: [string, string, 'corpus' | 'gcmd'][];
  gcmdFile: string | null;
  deletes: number;
  /** SHA-256 of the deletes index (`.bin`); the meta file's own hash is its `sha256` field (`withJsonRecordHash`). */
  binSha256: string;
}

/**
 * The key of a corpus's cached vocabulary: the corpus (its hash), every input file's content (repair.json,
 * vocabulary.json, the GCMD file), the gazetteer's names and the default options, so a change to any rebuilds it.
 */
function repairCacheKey(corpus: Pick<Corpus, 'hash' | 'origin'>): string {
  const gcmd = corpusGcmdFile(corpus);
  const read = (f: string) => (fs.existsSync(f) ? shortHash(fs.readFileSync(f)) : 'absent');
  const places = shortHash(loadGazetteer().places.map((p) => p.names.join('|')).join('\n'));
  return shortHash(JSON.stringify([CACHE_FORMAT, corpus.hash, read(repairDataFile()), read(vocabularyFile()), gcmd ? read(gcmd) : null, places, DEFAULTS]), 16);
}

/** Options of `loadRepairVocabulary`. */
export interface LoadRepairVocabularyOptions {
  /**
   * Folder of the disk cache (one `.json` + `.bin` pair per corpus and inputs, written atomically); `null`: no disk
   * cache. Default `checkpoints/repair/`: a one-shot `eo search` then reads the vocabulary instead of building it.
   */
  cacheDir?: string | null;
}

function readRepairCache(corpus: Corpus, metaFile: string, binFile: string, key: string): RepairVocabulary | null {
  const t0 = performance.now();
  if (!fs.existsSync(metaFile) || !fs.existsSync(binFile)) return null;
  const checked = verifyRepairCache(metaFile, binFile);
  // unreadable, damaged, changed or without hashes: rebuilt and rewritten by the caller, never read wrong
  if (checked.status !== 'ok') return null;
  const { meta, bin: buf } = checked;
  if (meta.key !== key || buf.length !== 8 * meta.deletes || meta.words.length !== meta.counts.length) return null;
  const deletes = new Float64Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  const data = readRepairData();
  const english = new Set(data.functionWords.en);
  const o = DEFAULTS;
  return {
    frequency: new Map(meta.words.map((w, i) => [w, meta.counts[i]])), capitals: new Map(meta.capitals), identifiers: new Set(meta.identifiers),
    deletes, targets: meta.targets, abbreviations: new Map(Object.entries(data.abbreviations)),
    acronyms: new Map(meta.acronyms.map(([a, expansion, source]) => [a, { expansion, source }])), english, placeWords: new Set(meta.placeWords),
    languages: Object.keys(data.functionWords).filter((k) => k !== 'en')
      .map((code) => ({ code, name: data.languageNames[code], words: new Set(data.functionWords[code]), diacritics: data.diacritics[code] })),
    phraseCount: corpusPhraseCounter(corpus), spelling: corpus.datasets.length >= o.minCorpusDatasets, options: o, gcmdFile: meta.gcmdFile,
    source: 'cache', buildMs: performance.now() - t0, buildStages: { cache: performance.now() - t0 },
  };
}

/**
 * Check a repair cache against the hashes it recorded (its meta file's own `sha256`, the index's `binSha256`): what
 * `loadRepairVocabulary` reads and `eo cache verify` reports. `detail` says what is wrong when the status is not ok.
 */
export function verifyRepairCache(metaFile: string, binFile: string): { status: 'ok'; meta: RepairCacheMeta; bin: Buffer } | { status: 'none' | 'mismatch'; detail: string } {
  let parsed: RepairCacheMeta & { sha256?: unknown };
  try {
    parsed = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
  } catch (e) {
    return { status: 'mismatch', detail: `${metaFile}: unreadable (${(e as Error).message})` };
  }
  const { record: meta, recorded, actual, status } = readJsonRecordHash(parsed);
  if (status === 'none' || typeof meta.binSha256 !== 'string') return { status: 'none', detail: `${metaFile}: records no content hash (written before repair caches recorded one)` };
  if (status === 'mismatch') return { status, detail: `${metaFile}: content hash ${actual} differs from ${recorded}, recorded when it was written (damaged or changed)` };
  if (!fs.existsSync(binFile)) return { status: 'mismatch', detail: `${binFile}: missing beside ${path.basename(metaFile)}` };
  const bin = fs.readFileSync(binFile);
  const binHash = sha256(bin);
  if (binHash !== meta.binSha256) return { status: 'mismatch', detail: `${binFile}: content hash ${binHash} differs from ${meta.binSha256}, recorded when it was written (damaged or changed)` };
  return { status: 'ok', meta, bin };
}

function writeRepairCache(v: RepairVocabulary, metaFile: string, binFile: string, key: string): void {
  const bin = new Uint8Array(v.deletes.buffer, v.deletes.byteOffset, v.deletes.byteLength);
  const meta: RepairCacheMeta = {
    key, words: [...v.frequency.keys()], counts: [...v.frequency.values()], capitals: [...v.capitals], identifiers: [...v.identifiers],
    placeWords: [...v.placeWords], targets: v.targets, acronyms: [...v.acronyms].map(([a, x]) => [a, x.expansion, x.source]), gcmdFile: v.gcmdFile,
    deletes: v.deletes.length, binSha256: sha256(bin),
  };
  // the index first: a meta file is only ever beside its own index
  writeFileAtomic(binFile, bin);
  writeFileAtomic(metaFile, JSON.stringify(withJsonRecordHash(meta)));
}

/**
 * The repair vocabulary of a corpus with the default options: kept in memory per corpus object; across processes
 * read from the disk cache (`cacheDir`), or built (`buildRepairVocabulary`) and written there on the first call.
 */
export function loadRepairVocabulary(corpus: Corpus, opts: LoadRepairVocabularyOptions = {}): RepairVocabulary {
  let v = cache.get(corpus);
  if (v) return v;
  const dir = opts.cacheDir === undefined ? checkpointsDir('repair') : opts.cacheDir;
  if (dir === null) v = buildRepairVocabulary(corpus);
  else {
    const key = repairCacheKey(corpus);
    const metaFile = path.join(dir, `repair-${key}.json`);
    const binFile = path.join(dir, `repair-${key}.bin`);
    v = readRepairCache(corpus, metaFile, binFile, key) ?? undefined;
    if (!v) {
      v = buildRepairVocabulary(corpus);
      writeRepairCache(v, metaFile, binFile, key);
    }
  }
  cache.set(corpus, v);
  return v;
}
