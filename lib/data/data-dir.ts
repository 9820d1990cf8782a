/**
 * Where the snapshot lies: here, not in snapshot.ts, because the GCMD readers need it and snapshot.ts reads the GCMD
 * inference (a file circle otherwise).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { DATA_DIR_ENV, defaultDataDir } from '../util/paths';

/**
 * Resolve the snapshot folder: explicit argument, else $EO_DATA_DIR, else `<repo>/../shared/data/eo`.
 * `sample: true` selects its `sample/` sub-folder (200 datasets, 60 publications).
 */
export function resolveDataDir(dir?: string, opts: { sample?: boolean } = {}): string {
  const base = dir ?? defaultDataDir();
  const resolved = opts.sample ? path.join(base, 'sample') : base;
  if (!fs.existsSync(resolved))
    throw new EoError('DATA_NOT_FOUND', `snapshot folder not found: ${resolved} (set ${DATA_DIR_ENV} or pass a folder)`, { dir: resolved });
  return resolved;
}
