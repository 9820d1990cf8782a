import type { DataFrame } from 'danfojs-node';
import { repoRelativePath } from '../util/paths';
import { EoError } from '../errors';
import type { BestSpec, TableInput, TableRow, TableSource } from './types';

type Danfo = typeof import('danfojs-node');
let danfo: Danfo | null = null;

/**
 * Packages danfojs requires when it loads but uses only inside a few methods: mathjs (median, mode, std, variance;
 * ~2.5 CPU s to load, as it builds every mathjs function up front), xlsx (readExcel/toExcel) and request (reading a
 * URL). Loading them costs each notebook more than all its tables; `loadDanfo` hands danfojs stand-ins that load
 * the real package on first use.
 */
const DANFO_LAZY_PACKAGES: ReadonlySet<string> = new Set(['mathjs', 'xlsx', 'request']);

/**
 * A stand-in for module `request` as `parent` would require it: loaded on first property access, call or `new`.
 * `__esModule` is answered without loading (these are CommonJS packages), so `__importDefault` wraps it lazily too.
 */
function lazyModule(load: () => any): unknown {
  let real: any = null;
  const get = () => (real ??= load());
  return new Proxy(function lazyModuleStandIn() {}, {
    get: (_t, key) => (key === '__esModule' && real === null ? undefined : get()[key]),
    has: (_t, key) => key in get(),
    apply: (_t, self, args) => get().apply(self, args),
    construct: (_t, args) => new (get())(...args),
  });
}

/**
 * danfojs-node, loaded on first use: it pulls in tfjs (a second or two), which a notebook that shows no table
 * should not pay for. Its tfjs is the project's own copy (package.json `overrides`), so loading it after
 * lib/tensor's backend init leaves the chosen backend in place. DANFO_LAZY_PACKAGES load when danfojs first uses them.
 */
export function loadDanfo(): Danfo {
  if (danfo !== null) return danfo;
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const Module = require('node:module') as { _load: (request: string, parent: unknown, isMain: boolean) => unknown };
  const load = Module._load;
  Module._load = function (this: unknown, request: string, parent: unknown, isMain: boolean) {
    if (DANFO_LAZY_PACKAGES.has(request)) return lazyModule(() => load.call(Module, request, parent, false));
    return load.call(this, request, parent, isMain);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    danfo = require('danfojs-node') as Danfo;
  } finally {
    Module._load = load;
  }
  return danfo;
}

/** True for a danfojs DataFrame (checked by shape, so that no copy of danfojs needs loading to tell). */
export function isDataFrame(v: unknown): v is DataFrame {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const d = v as { columns?: unknown; values?: unknown; sortValues?: unknown; shape?: unknown };
  return Array.isArray(d.columns) && Array.isArray(d.values) && typeof d.sortValues === 'function' && Array.isArray(d.shape);
}

/** Columns of rows: `columns` when given, else every key in order of first appearance. */
export function rowColumns(rows: readonly TableRow[], columns?: readonly string[]): string[] {
  return columns ? [...columns] : [...new Set(rows.flatMap((r) => Object.keys(r)))];
}

/** A cell value danfojs can hold: numbers, strings, booleans and null as they are; dates as ISO text; other objects as JSON. */
function frameCell(v: unknown): number | string | boolean | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

/**
 * Table rows (metric rows, per-query rows, paired-statistics rows...) as a danfojs DataFrame, one column per key
 * (or per `columns`, in that order). Missing keys become null, so rows with different keys line up (danfojs itself
 * would shift them). A DataFrame passes through unchanged (or narrowed to `columns`).
 */
export function toDataFrame(input: TableInput, columns?: readonly string[]): DataFrame {
  if (isDataFrame(input)) {
    if (!columns) return input;
    const missing = columns.filter((c) => !input.columns.includes(c));
    if (missing.length > 0) throw new EoError('INVALID_ARGUMENT', `toDataFrame: no column ${missing.map((c) => JSON.stringify(c)).join(', ')} (have ${input.columns.join(', ')})`, { missing });
    return input.loc({ columns: [...columns] });
  }
  if (!Array.isArray(input)) throw new EoError('INVALID_ARGUMENT', `toDataFrame: expected an array of rows or a DataFrame, got ${typeof input}`);
  const cols = rowColumns(input, columns);
  const { DataFrame: Frame } = loadDanfo();
  if (input.length === 0) return new Frame([], { columns: cols });
  return new Frame(
    input.map((r) => cols.map((c) => frameCell(r[c]))),
    { columns: cols },
  );
}

/** A DataFrame's rows as plain objects (column → value), in its current row order. */
export function frameRows(df: DataFrame): TableRow[] {
  const cols = df.columns;
  return (df.values as unknown[][]).map((vals) => Object.fromEntries(cols.map((c, j) => [c, (Array.isArray(vals) ? vals[j] : vals) ?? null])));
}

/** Rows of any table input (rows pass through; a DataFrame is read back). */
export function tableRows(input: TableInput): readonly TableRow[] {
  return isDataFrame(input) ? frameRows(input) : input;
}

/**
 * Which cells hold each column's best value, by column: `best: true` takes the largest number of every numeric
 * column; a list names columns where larger is better; a record says 'max' or 'min' per column. Values are
 * compared as shown (rounded to `digits`), so rows that tie on screen are all marked; a column where every value
 * ties is not marked.
 */
export function bestCells(rows: readonly TableRow[], columns: readonly string[], best: BestSpec | undefined, digits: number): Map<string, Set<number>> {
  const marked = new Map<string, Set<number>>();
  if (!best) return marked;
  const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  let wanted: [string, 'max' | 'min'][];
  if (best === true) wanted = columns.filter((c) => rows.some((r) => isNum(r[c])) && rows.every((r) => r[c] == null || typeof r[c] === 'number')).map((c) => [c, 'max']);
  else if (Array.isArray(best)) wanted = (best as readonly string[]).map((c) => [c, 'max']);
  else wanted = Object.entries(best as Readonly<Record<string, 'max' | 'min'>>);
  for (const [c, dir] of wanted) {
    if (!columns.includes(c)) throw new EoError('INVALID_ARGUMENT', `best: no column ${JSON.stringify(c)} in the table (have ${columns.join(', ')})`, { column: c });
    if (dir !== 'max' && dir !== 'min') throw new EoError('INVALID_ARGUMENT', `best: column ${JSON.stringify(c)} must be 'max' or 'min' (got ${JSON.stringify(dir)})`, { column: c });
    const shown = rows.map((r) => (isNum(r[c]) ? Number((r[c] as number).toFixed(digits)) : null));
    const vals = shown.filter((v): v is number => v !== null);
    if (vals.length < 2) continue; // one value is no contest
    const target = dir === 'max' ? Math.max(...vals) : Math.min(...vals);
    const best = shown.flatMap((v, i) => (v === target ? [i] : []));
    if (best.length < vals.length) marked.set(c, new Set(best)); // all tied: nothing stands out
  }
  return marked;
}

/** Re-exported from lib/util/paths.ts (its home), where the report modules have always imported it. */
export { repoRelativePath };

function settingValue(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  if (typeof v === 'string') return repoRelativePath(v); // a checkpoint folder reads as checkpoints/…, not /home/…
  return JSON.stringify(v);
}

/**
 * The footer lines of a table: which run and qrels files and which settings its numbers came from, so that a
 * reader can re-derive them (`runs: reports/02-baselines/bm25.test.run, ...`).
 */
export function sourceLines(source: TableSource | undefined, marked: readonly string[] = []): string[] {
  const lines: string[] = [];
  if (source) {
    const runs = source.runFiles ?? [];
    if (runs.length > 0) lines.push(`runs: ${runs.map(repoRelativePath).join(', ')}`);
    const qrels = source.qrels === undefined ? [] : typeof source.qrels === 'string' ? [source.qrels] : source.qrels;
    if (qrels.length > 0) lines.push(`qrels: ${qrels.map(repoRelativePath).join(', ')}`);
    const settings = Object.entries(source.settings ?? {}).filter(([, v]) => v !== undefined);
    if (settings.length > 0) lines.push(`settings: ${settings.map(([k, v]) => `${k}=${settingValue(v)}`).join(', ')}`);
    if (source.note) lines.push(source.note);
  }
  // names the marked columns: a footnote promising every column's best would be false for the unmarked ones
  if (marked.length > 0) lines.push(`bold (text: *) = best value of ${marked.length === 1 ? 'the column' : 'each column'} ${marked.join(', ')}`);
  return lines;
}

/** What the reference column of `settingRows` shows for a setting its source does not state. */
export const NOT_STATED = 'not stated';

/**
 * A configuration as table rows `{ setting, value }`, or `{ setting, "this run", <referenceLabel> }` beside a
 * reference configuration (e.g. the paper's), one row per key of the reference (default: of the config).
 * `reference.stated`: the keys its source states (e.g. the paper notes); the others read `NOT_STATED` in its column,
 * so that no value is shown as the paper's that the paper does not give. Default: every key.
 */
export function settingRows(config: object, reference?: { config: object; label: string; stated?: readonly string[] }): Record<string, string>[] {
  const c = config as Record<string, unknown>;
  // an unset limit reads as "none" (no cap), never as a raw null
  const shown = (v: unknown) => (v === null || v === undefined ? 'none' : String(v));
  if (!reference) return Object.entries(c).map(([setting, v]) => ({ setting, value: shown(v) }));
  const r = reference.config as Record<string, unknown>;
  const stated = (k: string) => reference.stated === undefined || reference.stated.includes(k);
  return Object.keys(r).map((setting) => ({ setting, 'this run': shown(c[setting]), [reference.label]: stated(setting) ? shown(r[setting]) : NOT_STATED }));
}
