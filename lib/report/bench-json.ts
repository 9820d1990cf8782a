import * as fs from 'node:fs';
import { EoError } from '../errors';

/**
 * A benchmark's JSON output (bench/out/*.json) checked for its `format` marker: the parsed object, or an error
 * naming the file (not JSON) or the file and field (another format). What the notebooks read from a bench run.
 */
export function readBenchJson(file: string, format: string): Record<string, unknown> {
  let j: unknown;
  try {
    j = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EoError('REPORT', `${file}: not JSON (${(e as Error).message})`, { file });
  }
  const o = (j ?? {}) as Record<string, unknown>;
  if (o.format !== format) throw new EoError('REPORT', `${file}: field "format" is ${JSON.stringify(o.format)}, expected "${format}"`, { file, field: 'format' });
  return o;
}
