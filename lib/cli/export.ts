/**
 * `eo export latex FILE`: any results table (a JSON array of rows, or an array inside a results.json reached by
 * `--key`) as a LaTeX booktabs table on stdout.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { EoError } from '../errors';
import { latexTable } from '../report/latex';
import type { TableRow } from '../report/types';
import { numberFlag } from './usage';
import { commandHelp, EXPORT_FLAGS, parseArgsOptions } from './flags';

export const EXPORT_USAGE = commandHelp('export');

/** The short default column set of a results table, when its rows have it: Table 2's headline metrics. */
export const DEFAULT_LATEX_COLUMNS: readonly string[] = ['R@10', 'MAP', 'MRR'];

/**
 * The columns to print: the given ones (else the default set the rows have, else all), with the system column (the
 * first text column, `system` when there is one) first whenever it is not listed.
 */
export function latexColumns(rows: readonly TableRow[], given?: readonly string[]): string[] | undefined {
  const keys = Object.keys(rows[0] ?? {});
  const systemCol = keys.includes('system') ? 'system' : keys.find((k) => rows.every((r) => typeof r[k] === 'string'));
  const defaults = DEFAULT_LATEX_COLUMNS.filter((c) => keys.includes(c));
  const chosen = given ?? (defaults.length ? defaults : undefined);
  if (!chosen) return undefined;
  return systemCol && !chosen.includes(systemCol) ? [systemCol, ...chosen] : [...chosen];
}

/**
 * Significance marks of the printed columns: each with a `significant (<column>)` column in the rows (the one rule:
 * CI and Holm p, as Table 2 writes it), else a `p Holm (<column>)` column (p below α).
 */
export function significanceColumns(rows: readonly TableRow[], columns: readonly string[]): Record<string, string> {
  const keys = new Set(Object.keys(rows[0] ?? {}));
  return Object.fromEntries(columns.flatMap((c) => (keys.has(`significant (${c})`) ? [[c, `significant (${c})`]] : keys.has(`p Holm (${c})`) ? [[c, `p Holm (${c})`]] : [])));
}

/** The rows at `key` (dot path) of a parsed JSON value; a clear error naming the file and the key otherwise. */
export function rowsAt(value: unknown, file: string, key?: string): TableRow[] {
  let v = value;
  for (const k of key ? key.split('.') : []) {
    if (typeof v !== 'object' || v === null || !(k in v)) throw new EoError('REPORT', `${file}: no field "${k}" on the path "${key}"`, { file, field: key });
    v = (v as Record<string, unknown>)[k];
  }
  if (!Array.isArray(v) || v.some((r) => typeof r !== 'object' || r === null || Array.isArray(r)))
    throw new EoError('REPORT', `${file}: ${key ? `field "${key}"` : 'the file'} must be an array of row objects`, { file, field: key ?? '' });
  return v as TableRow[];
}

const list = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined);

export function runExportCommand(argv: string[]): void {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: parseArgsOptions(EXPORT_FLAGS),
  }) as { values: { key?: string; columns?: string; best?: string; ci?: string[]; 'ci-column'?: boolean; digits?: string; caption?: string; label?: string; help?: boolean }; positionals: string[] };
  const [format, file] = positionals;
  if (values.help || !format) {
    process.stdout.write(EXPORT_USAGE + '\n');
    return;
  }
  if (format !== 'latex') throw new EoError('INVALID_ARGUMENT', `eo export: unknown format "${format}" (latex)\n${EXPORT_USAGE}`);
  if (!file) throw new EoError('INVALID_ARGUMENT', `eo export latex needs a FILE\n${EXPORT_USAGE}`);
  if (!fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `eo export: no such file: ${file}`, { file });
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EoError('REPORT', `${file}: not JSON (${e instanceof Error ? e.message : String(e)})`, { file });
  }
  const ci: Record<string, [string, string]> = {};
  for (const spec of values.ci ?? []) {
    const parts = spec.split(':');
    if (parts.length !== 3 || parts.some((p) => !p)) throw new EoError('INVALID_ARGUMENT', `--ci "${spec}": expected COL:LOW:HIGH, e.g. "mean diff:CI95 low:CI95 high"`, { field: 'ci' });
    ci[parts[0]] = [parts[1], parts[2]];
  }
  const rows = rowsAt(parsed, file, values.key);
  const columns = latexColumns(rows, list(values.columns));
  process.stdout.write(latexTable(rows, {
    columns, significance: significanceColumns(rows, columns ?? Object.keys(rows[0] ?? {})), best: Object.fromEntries((list(values.best) ?? []).map((c) => [c, 'max' as const])),
    ci, ciStyle: values['ci-column'] ? 'column' : 'inline',
    digits: numberFlag(values.digits, 'digits', 3, { integer: true, min: 0 }), caption: values.caption, label: values.label,
  }));
}
