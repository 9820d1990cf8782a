import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageFile } from '../util/paths';
import { EoError } from '../errors';

/** Folder of the router's data files (gazetteer, variable mapping, intent cues, labelled queries, prompt). */
export function routerDataDir(): string {
  return packageFile('router', 'data');
}

/** Read and parse one JSON data file of the router; errors name the file. */
export function readRouterJson<T>(name: string, dir = routerDataDir()): T {
  const file = path.join(dir, name);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new EoError('DATA_NOT_FOUND', `router data file not found: ${file}`, { file });
  }
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new EoError('DATA_PARSE', `${file}: invalid JSON (${(e as Error).message})`, { file });
  }
}
