import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { readJsonl } from '../util/fs';
import { DATA_DIR_ENV, defaultDataDir } from '../util/paths';
import { makeCorpus } from './corpus';
import { gcmdDirFor, inferCorpusGcmd } from './gcmd-infer';
import type { Corpus } from './types';
import { validateDataset, validateLink, validatePublication } from './validate';
import { resolveDataDir } from './data-dir';

export { DATA_DIR_ENV, resolveDataDir };

function pick(dir: string, stem: string): string {
  for (const name of [`${stem}.jsonl.gz`, `${stem}.jsonl`]) {
    const f = path.join(dir, name);
    if (fs.existsSync(f)) return f;
  }
  throw new EoError('DATA_NOT_FOUND', `${dir}: neither ${stem}.jsonl.gz nor ${stem}.jsonl exists`, { dir, stem });
}

export interface LoadSnapshotOptions {
  /** Snapshot folder; default: resolveDataDir(). */
  dir?: string;
  /** Read the `sample/` sub-folder instead of the full files. Default false. */
  sample?: boolean;
}

/**
 * Load datasets, publications and links (`.jsonl.gz` or `.jsonl`), validating every record; each dataset gets its
 * `inferred` GCMD names when the snapshot (or the folder above a sample) has the GCMD files.
 */
export function loadSnapshot(opts: LoadSnapshotOptions = {}): Corpus {
  const dir = resolveDataDir(opts.dir, { sample: opts.sample });
  const dsFile = pick(dir, 'datasets');
  const pubFile = pick(dir, 'publications');
  const linkFile = pick(dir, 'links');
  const datasets = readJsonl(dsFile).map((r) => validateDataset(r.value, { file: dsFile, line: r.line }));
  const publications = readJsonl(pubFile).map((r) => validatePublication(r.value, { file: pubFile, line: r.line }));
  const links = readJsonl(linkFile).map((r) => validateLink(r.value, { file: linkFile, line: r.line }));
  // platforms, instruments and projects inferred from each record's title (most records have none from CMR)
  const gcmdDir = gcmdDirFor(dir);
  if (gcmdDir) inferCorpusGcmd(datasets, gcmdDir);
  return makeCorpus(datasets, publications, links, dir);
}

/**
 * The `eo` flags that load the snapshot in `dir` (a corpus's `origin`): none for the default folder, `--sample` for
 * its sample, else `--data <dir>`. Used in the commands that error messages name.
 */
export function snapshotFlags(dir: string): string {
  const base = defaultDataDir();
  const d = path.resolve(dir);
  if (d === base) return '';
  if (d === path.join(base, 'sample')) return ' --sample';
  return ` --data ${dir}`;
}

/** The command that rebuilds a corpus's cache: `eo cache rebuild bm25|embeddings [--sample | --data DIR]`. */
export function cacheRebuildCommand(what: 'bm25' | 'embeddings' | 'all', corpusOrigin?: string): string {
  return `eo cache rebuild ${what}${corpusOrigin === undefined ? '' : snapshotFlags(corpusOrigin)}`;
}
