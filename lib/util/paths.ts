import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Where the workbench keeps its files. The one place that knows the repository layout: the root, the default
 * output folders (checkpoints/, data/bench/, reports/, recordings/) and the package data files that live beside
 * the TypeScript sources under lib/ (prompts, models.json, router data). Every module asks here instead of
 * walking `__dirname` itself, so running from lib/ (tsx) and from dist/lib/ (compiled) find the same files.
 */

/** The repository root: the nearest folder above this module holding package.json named eo-workbench (else the working directory). */
export function repoRoot(): string {
  let dir = __dirname;
  for (;;) {
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj)) {
      try {
        if (JSON.parse(fs.readFileSync(pj, 'utf8')).name === 'eo-workbench') return dir;
      } catch {
        /* keep looking */
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

/**
 * A data file shipped with the sources, named relative to lib/ (e.g. `packageFile('bench', 'prompts',
 * 'query-writer.md')`). tsc does not copy non-TypeScript files into dist/, so from dist/lib/ the file is taken
 * from the lib/ folder beside dist/; the returned path may not exist (the reader's error names it).
 */
export function packageFile(...segments: string[]): string {
  const besideModule = path.join(__dirname, '..', ...segments);
  if (fs.existsSync(besideModule)) return besideModule;
  // dist/lib/util → repo root → lib/
  return path.join(__dirname, '..', '..', '..', 'lib', ...segments);
}

/** `<repo>/checkpoints/<sub…>`: caches and trained weights (embeddings, bm25, hnsw, nnssc, finetune, serve). */
export function checkpointsDir(...sub: string[]): string {
  return path.join(repoRoot(), 'checkpoints', ...sub);
}

/** `<repo>/data/bench/<sub…>`: built benchmarks. */
export function benchDataDir(...sub: string[]): string {
  return path.join(repoRoot(), 'data', 'bench', ...sub);
}

/** `<repo>/reports/<sub…>`: tables, figures and result files written by notebooks and the CLI. */
export function repoReportsDir(...sub: string[]): string {
  return path.join(repoRoot(), 'reports', ...sub);
}

/** `<repo>/recordings/<sub…>`: recorded LLM exchanges replayed by tests and notebooks. */
export function recordingsDir(...sub: string[]): string {
  return path.join(repoRoot(), 'recordings', ...sub);
}

/** Environment variable that names the data folder (the snapshot; default `<repo>/../shared/data/eo`). */
export const DATA_DIR_ENV = 'EO_DATA_DIR';

/** The data folder: $EO_DATA_DIR, else `shared/data/eo` beside the checkout (`<repo>/../shared/data/eo`), absolute. */
export function defaultDataDir(): string {
  return path.resolve(process.env[DATA_DIR_ENV] ?? path.join(repoRoot(), '..', 'shared', 'data', 'eo'));
}

/** `p` relative to `root` when it lies inside it (`.` for the root itself), else null. */
function inside(root: string, p: string): string | null {
  const rel = path.relative(root, p);
  if (rel === '') return '.';
  return path.isAbsolute(rel) || rel === '..' || rel.startsWith(`..${path.sep}`) ? null : rel;
}

/**
 * A path as outputs meant for others name it (reports, run files, judge tables, messages): relative to the repository
 * when inside it (`checkpoints/nnssc/…`); else by its role when it lies in the data folder (`$EO_DATA_DIR/sample`) or
 * the temporary folder (`$TMPDIR/eo-…`); else absolute. Never `../…`: that reads differently from every clone.
 */
export function repoRelativePath(p: string): string {
  if (!path.isAbsolute(p)) return p;
  const inRepo = inside(repoRoot(), p);
  if (inRepo !== null) return inRepo;
  const inData = inside(defaultDataDir(), p);
  if (inData !== null) return inData === '.' ? `$${DATA_DIR_ENV}` : `$${DATA_DIR_ENV}${path.sep}${inData}`;
  const inTmp = inside(path.resolve(os.tmpdir()), p);
  if (inTmp !== null) return inTmp === '.' ? '$TMPDIR' : `$TMPDIR${path.sep}${inTmp}`;
  return p;
}
