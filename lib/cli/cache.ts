/**
 * `eo cache verify` and `eo cache rebuild bm25|embeddings|all`: check every cache's content hash (one line per file),
 * and rebuild the caches a CACHE_MISMATCH names. The hash checks are the loaders' own (`verifyBm25Cache`,
 * `verifyEmbeddingCacheFile`, `loadCheckpoint`, `loadBenchmark`), so a file this command calls ok is one they accept.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
// Per-module imports, as in eo.ts: loading the `eo` command stays cheap.
import { loadBenchmark } from '../bench/export';
import { cacheRebuildCommand, loadSnapshot } from '../data/snapshot';
import type { Corpus } from '../data/types';
import { datasetEncoderText } from '../data/text';
import { defaultEmbeddingCacheDir, embedCorpusCached, embeddingCachePaths, hashTexts, verifyEmbeddingCacheFile } from '../encode/cache';
import { chosenEncoderSpec, createEncoder } from '../encode/registry';
import { EoError } from '../errors';
import type { SentenceEncoder } from '../encode/types';
import { removePath } from '../util/fs';
import { verifyRepairCache } from '../search/repair-vocabulary';
import { checkContentHash, readJsonRecordHash } from '../util/hash';
import { bm25CacheKey, bm25CachePaths, loadOrBuildBm25, verifyBm25Cache } from '../retrieve/bm25';
import { CHECKPOINT_JSON, checkpointRebuildCommand, loadCheckpoint, readCheckpointManifest } from '../store/checkpoint';
import { benchDataDir, checkpointsDir, repoRoot } from '../util/paths';
import { endProgressLine, EXIT_STATUS, stderrLog } from './exit';
import { CACHE_USAGE } from './usage';
import { CACHE_FLAGS, parseArgsOptions } from './flags';

/** What `verifyCaches` found for one file. */
export interface CacheCheck {
  kind: 'bm25' | 'embeddings' | 'checkpoint' | 'fusion' | 'repair' | 'benchmark';
  /** The file checked (its metadata or manifest file). */
  file: string;
  /** ok: hash as recorded; stale: recorded no hash (rebuilt on next use or refused); mismatch: damaged or unreadable. */
  status: 'ok' | 'stale' | 'mismatch';
  /** The error message (stale, mismatch), else the empty string. */
  detail: string;
  /** Milliseconds the check took (reading and hashing). */
  ms: number;
}

export interface VerifyCachesOptions {
  /** Checkpoints folder. Default `<repo>/checkpoints`. */
  checkpointsDir?: string;
  /** Benchmarks folder. Default `<repo>/data/bench`. */
  benchDir?: string;
}

function listFiles(dir: string, match: (name: string) => boolean, depth = 3): string[] {
  if (depth < 0 || !fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!e.name.endsWith('.partial')) out.push(...listFiles(p, match, depth - 1));
    } else if (match(e.name)) out.push(p);
  }
  return out;
}

function check(kind: CacheCheck['kind'], file: string, fn: () => 'ok' | 'stale'): CacheCheck {
  const t0 = performance.now();
  let status: CacheCheck['status'];
  let detail = '';
  try {
    status = fn();
  } catch (e) {
    if (!(e instanceof EoError)) throw e;
    status = e.code === 'CACHE_MISMATCH' && e.details?.recorded === null ? 'stale' : 'mismatch';
    detail = `[${e.code}] ${e.message}`;
  }
  return { kind, file, status, detail, ms: performance.now() - t0 };
}

/**
 * Check every cache under the checkpoints and benchmark folders: BM25 indexes (`bm25/*.json` + `.bin`), embedding
 * matrices (`embeddings/**.json` + `.f32`), checkpoints (`**\/checkpoint.json` + `weights.bin`), fusion weights
 * (`fusion/*.json`: fixed α and adaptive models), repair vocabularies (`repair/*.json` + `.bin`) and benchmarks
 * (`<bench>/*\/benchmark.json`), each against the content hash it recorded when written.
 */
export function verifyCaches(opts: VerifyCachesOptions = {}): CacheCheck[] {
  const ck = opts.checkpointsDir ?? checkpointsDir();
  const out: CacheCheck[] = [];
  for (const meta of listFiles(path.join(ck, 'bm25'), (n) => /^bm25-.*\.json$/.test(n), 0))
    out.push(check('bm25', meta, () => (verifyBm25Cache(meta, meta.replace(/\.json$/, '.bin'), cacheRebuildCommand('bm25')) ? 'ok' : 'stale')));
  for (const meta of listFiles(path.join(ck, 'embeddings'), (n) => n.endsWith('.json') && n.includes('__')))
    out.push(check('embeddings', meta, () => verifyEmbeddingCacheFile(meta)));
  for (const manifest of listFiles(ck, (n) => n === CHECKPOINT_JSON)) {
    const dir = path.dirname(manifest);
    out.push(check('checkpoint', manifest, () => {
      let rebuild: string | undefined;
      try {
        rebuild = checkpointRebuildCommand(readCheckpointManifest(dir), dir);
      } catch {
        /* loadCheckpoint reports it */
      }
      loadCheckpoint(dir, { rebuild });
      return 'ok';
    }));
  }
  // fusion weights (fixed α and adaptive models) and repair vocabularies are recomputed on their next use when they do
  // not match their hashes; reported here so that a damaged one is seen
  for (const file of listFiles(path.join(ck, 'fusion'), (n) => n.endsWith('.json'), 0))
    out.push(check('fusion', file, () => jsonRecordStatus(file, 'the next search that needs this fusion weight sets it again')));
  for (const meta of listFiles(path.join(ck, 'repair'), (n) => /^repair-.*\.json$/.test(n), 0))
    out.push(check('repair', meta, () => {
      const r = verifyRepairCache(meta, meta.replace(/\.json$/, '.bin'));
      if (r.status === 'ok') return 'ok';
      throw new EoError('CACHE_MISMATCH', `${r.detail}; the next search rebuilds this repair vocabulary`, { file: meta, recorded: r.status === 'none' ? null : 'recorded' });
    }));
  for (const file of listFiles(opts.benchDir ?? benchDataDir(), (n) => n === 'benchmark.json', 1))
    out.push(check('benchmark', file, () => (loadBenchmark(file), 'ok')));
  return out;
}

/** A JSON record's own content hash (`readJsonRecordHash`): ok, else CACHE_MISMATCH (stale when it records none). */
function jsonRecordStatus(file: string, rebuild: string): 'ok' {
  let parsed: object;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EoError('CACHE_MISMATCH', `${file}: unreadable (${(e as Error).message}); ${rebuild}`, { file });
  }
  const r = readJsonRecordHash(parsed);
  checkContentHash(file, r.recorded, r.actual, rebuild);
  return 'ok';
}

/** One line per check: `ok|STALE|MISMATCH  <kind>  <file relative to the repo>  <ms>  [detail]`. */
export function formatCacheCheck(c: CacheCheck): string {
  const rel = path.relative(repoRoot(), c.file);
  const file = rel.startsWith('..') ? c.file : rel;
  return `${c.status === 'ok' ? 'ok' : c.status.toUpperCase()}\t${c.kind}\t${file}\t${c.ms.toFixed(1)} ms${c.detail ? `\t${c.detail}` : ''}`;
}

/** Remove damaged cache files (NOT_WRITABLE naming the file when the folder is read-only), saying which. */
function removeCache(files: string[], log: (l: string) => void): void {
  for (const f of files)
    if (fs.existsSync(f)) {
      removePath(f);
      log(`removed ${path.relative(repoRoot(), f) || f}`);
    }
}

/**
 * Rebuild the BM25 index of `corpus`: built and written in place of its cache files, which stay as they were until
 * the new ones are whole (a full disk leaves the old index usable); every other BM25 cache that fails its check
 * (another snapshot's, then rebuilt on its next use) is removed first. Returns the index's metadata file.
 */
export function rebuildBm25Cache(corpus: Corpus, opts: { cacheDir?: string; log?: (l: string) => void } = {}): string {
  const log = opts.log ?? (() => {});
  const dir = opts.cacheDir ?? checkpointsDir('bm25');
  const bad = verifyCaches({ checkpointsDir: path.dirname(dir), benchDir: path.join(dir, '.none') }).filter((c) => c.kind === 'bm25' && c.status !== 'ok');
  const paths = bm25CachePaths(dir, bm25CacheKey(corpus));
  removeCache(bad.flatMap((c) => [c.file, c.file.replace(/\.json$/, '.bin')]).filter((f) => f !== paths.meta && f !== paths.bin), log);
  loadOrBuildBm25(corpus, { cacheDir: dir, replace: true });
  return paths.meta;
}

/**
 * Rebuild the corpus embeddings of `corpus` with the chosen encoder (`--encoder` / $EO_ENCODER, default USE-lite; a
 * caller may pass its own `encoder`): embedded and written in place of its cache files, which stay as they were
 * until the new matrix is whole (a full disk leaves the old matrix usable, and the chunks done so far are resumed by
 * the next rebuild); every other embedding cache that fails its check is removed first (a fine-tuned encoder's is
 * rebuilt by the notebook that uses it). Returns the matrix's metadata file.
 */
export async function rebuildEmbeddingCache(corpus: Corpus, opts: { cacheDir?: string; workers?: number; log?: (l: string) => void; encoder?: SentenceEncoder } = {}): Promise<string> {
  const log = opts.log ?? (() => {});
  const dir = opts.cacheDir ?? defaultEmbeddingCacheDir();
  const bad = verifyCaches({ checkpointsDir: path.dirname(dir), benchDir: path.join(dir, '.none') }).filter((c) => c.kind === 'embeddings' && c.status !== 'ok');
  const encoder = opts.encoder ?? (await createEncoder(chosenEncoderSpec()));
  try {
    const texts = corpus.datasets.map((d) => datasetEncoderText(d));
    const paths = embeddingCachePaths(dir, encoder.id, corpus.hash, hashTexts(texts));
    removeCache(bad.flatMap((c) => [c.file, c.file.replace(/\.json$/, '.f32')]).filter((f) => f !== paths.meta && f !== paths.data), log);
    await embedCorpusCached({
      encoder, texts, key: corpus.hash, cacheDir: dir, workers: opts.workers ?? 2, replace: true, onMismatch: 'rebuild', onProgress: (d, t) => log(`embedding corpus ${d}/${t}`),
    });
    return paths.meta;
  } finally {
    if (!opts.encoder) encoder.dispose?.();
  }
}

/** `eo cache …` (argv after `cache`). */
export async function runCacheCommand(argv: string[]): Promise<void> {
  // a usage error exits 2, as every `eo` usage error does
  const usage = (msg: string): never => {
    process.stderr.write(`eo: [INVALID_ARGUMENT] ${msg}\n${CACHE_USAGE}\n`);
    process.exit(2);
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: parseArgsOptions(CACHE_FLAGS),
    });
  } catch (e) {
    return usage((e as Error).message);
  }
  const { positionals } = parsed;
  const values = parsed.values as { sample?: boolean; data?: string; help?: boolean };
  const [cmd, what, ...extra] = positionals;
  if (values.help || !cmd) {
    process.stdout.write(CACHE_USAGE + '\n');
    return;
  }
  if (cmd === 'verify') {
    if (what !== undefined) usage(`eo cache verify takes no argument (got "${what}")`);
    const t0 = performance.now();
    const checks = verifyCaches();
    for (const c of checks) process.stdout.write(formatCacheCheck(c) + '\n');
    const bad = checks.filter((c) => c.status !== 'ok');
    process.stdout.write(`${checks.length} cache files checked in ${(performance.now() - t0).toFixed(0)} ms: ${checks.length - bad.length} ok, ${bad.filter((c) => c.status === 'stale').length} stale, ${bad.filter((c) => c.status === 'mismatch').length} damaged\n`);
    if (bad.length > 0) process.exitCode = EXIT_STATUS.data; // a damaged or stale cache is a data failure (3), as the loaders report it
    return;
  }
  if (cmd !== 'rebuild') return usage(`unknown cache command "${cmd}" (verify or rebuild)`);
  if (what !== 'bm25' && what !== 'embeddings' && what !== 'all') return usage(`eo cache rebuild needs bm25, embeddings or all (got ${what === undefined ? 'nothing' : `"${what}"`})`);
  if (extra.length > 0) usage(`unexpected argument "${extra[0]}"`);
  const corpus = loadSnapshot({ dir: values.data, sample: values.sample });
  const log = stderrLog;
  const done = (kind: string, file: string, t0: number) => {
    endProgressLine();
    process.stdout.write(`rebuilt ${kind} ${path.relative(repoRoot(), file) || file} (${corpus.datasets.length} datasets, ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
  };
  if (what === 'bm25' || what === 'all') {
    const t0 = performance.now();
    done('bm25', rebuildBm25Cache(corpus, { log }), t0);
  }
  if (what === 'embeddings' || what === 'all') {
    const t0 = performance.now();
    done('embeddings', await rebuildEmbeddingCache(corpus, { log }), t0);
  }
}
