import * as fs from 'node:fs';
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

/**
 * A path as outputs meant for others name it (reports, run files, judge tables, messages): relative to the repository
 * when inside it (`checkpoints/nnssc/…`), relative to it as well when it is beside the repository under the same
 * parent (the default data folder `../shared/data/eo/…`), else as given (a temporary folder, another disk).
 */
export function repoRelativePath(p: string): string {
  if (!path.isAbsolute(p)) return p;
  const root = repoRoot();
  const rel = path.relative(root, p);
  if (path.isAbsolute(rel)) return p;
  if (!rel.startsWith('..')) return rel === '' ? '.' : rel;
  // one level up at most: a sibling folder of the clone travels with it (../shared/data/eo), /tmp does not
  return path.relative(path.dirname(root), p).startsWith('..') ? p : rel;
}
