/**
 * The tuning log: every configuration tried on a benchmark's DEV half, with its settings, scores, date and commit, in
 * one committed JSON file (`bench/tuning-log.json`). A number reported on a test half is honest only when a reader can
 * see how many configurations were tried on dev to choose it; notebooks that report a test half name this file and its
 * size. Entries are only ever appended (a tuning run is never rewritten), and the file is written atomically.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { writeJsonAtomic } from '../util/fs';
import { repoRoot } from '../util/paths';

/** Format version of the log file. */
export const TUNING_LOG_VERSION = 1;

/** One configuration tried on a dev half. */
export interface TuningLogEntry {
  /** What was tuned, e.g. `bm25-stop`, `adaptive-fusion`. */
  system: string;
  /** The benchmark, e.g. `eo-styles`. */
  benchmark: string;
  /** Always `dev`: the log refuses anything else (a test half is reported, never tuned on). */
  half: 'dev';
  /** Queries scored. */
  queries: number;
  /** The settings of this configuration. */
  settings: Record<string, unknown>;
  /** Its scores (metric → mean, or `style/metric` → mean). */
  scores: Record<string, number>;
  /** The script or command that ran it (repository-relative). */
  script: string;
  /** ISO date of the run. */
  date: string;
  /** `git describe` of the checkout, or null. */
  commit: string | null;
  /** Id of the tuning run this entry belongs to (one run tries many configurations). */
  run: string;
  /** True on the configuration the run chose (at most one per run). */
  chosen?: boolean;
  /** Why it was chosen, or anything else a reader needs. */
  note?: string;
}

export interface TuningLog {
  version: number;
  entries: TuningLogEntry[];
}

/** The committed tuning log: `bench/tuning-log.json`. */
export function defaultTuningLogFile(): string {
  return path.join(repoRoot(), 'bench', 'tuning-log.json');
}

function checkEntry(e: unknown, where: string): TuningLogEntry {
  const bad = (field: string, why: string) => new EoError('DATA_INVALID', `${where}.${field}: ${why}`, { field });
  if (!e || typeof e !== 'object' || Array.isArray(e)) throw new EoError('DATA_INVALID', `${where}: not an object`);
  const x = e as Record<string, unknown>;
  for (const f of ['system', 'benchmark', 'script', 'date', 'run'] as const) if (typeof x[f] !== 'string' || !x[f]) throw bad(f, 'must be a non-empty string');
  if (x.half !== 'dev') throw bad('half', `must be "dev" (the log holds tuning on dev halves only), got ${JSON.stringify(x.half)}`);
  if (!(Number.isInteger(x.queries) && (x.queries as number) > 0)) throw bad('queries', `must be an integer > 0, got ${JSON.stringify(x.queries)}`);
  if (!x.settings || typeof x.settings !== 'object' || Array.isArray(x.settings)) throw bad('settings', 'must be an object');
  if (!x.scores || typeof x.scores !== 'object' || Array.isArray(x.scores)) throw bad('scores', 'must be an object');
  for (const [k, v] of Object.entries(x.scores as Record<string, unknown>)) if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(`scores.${k}`, `must be a finite number, got ${JSON.stringify(v)}`);
  if (x.commit !== null && typeof x.commit !== 'string') throw bad('commit', 'must be a string or null');
  if (x.chosen !== undefined && typeof x.chosen !== 'boolean') throw bad('chosen', 'must be true or false');
  return x as unknown as TuningLogEntry;
}

/** Read and check the log (an absent file is an empty log). Errors name the file, the entry and the field. */
export function readTuningLog(file = defaultTuningLogFile()): TuningLog {
  if (!fs.existsSync(file)) return { version: TUNING_LOG_VERSION, entries: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EoError('DATA_INVALID', `${file}: not JSON (${(e as Error).message})`, { file });
  }
  const log = raw as Partial<TuningLog>;
  if (!log || log.version !== TUNING_LOG_VERSION || !Array.isArray(log.entries)) throw new EoError('DATA_INVALID', `${file}: not a tuning log of version ${TUNING_LOG_VERSION}`, { file });
  log.entries.forEach((e, i) => checkEntry(e, `${file} entries[${i}]`));
  checkOneChosen(log.entries, file);
  return log as TuningLog;
}

/** At most one chosen configuration per tuning run. */
function checkOneChosen(entries: readonly TuningLogEntry[], file: string): void {
  const chosen = new Map<string, number>();
  for (const e of entries) if (e.chosen) chosen.set(e.run, (chosen.get(e.run) ?? 0) + 1);
  for (const [run, n] of chosen) if (n > 1) throw new EoError('DATA_INVALID', `${file}: run ${run} marks ${n} configurations chosen (at most one)`, { file });
}

/** Append entries (checked; none may claim a test half) and write the log atomically. Returns the log's new size. */
export function appendTuningLog(entries: readonly TuningLogEntry[], file = defaultTuningLogFile()): number {
  const log = readTuningLog(file);
  entries.forEach((e, i) => checkEntry(e, `new entry ${i}`));
  const next = { version: TUNING_LOG_VERSION, entries: [...log.entries, ...entries] };
  checkOneChosen(next.entries, file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeJsonAtomic(file, next);
  return next.entries.length;
}

/** What a notebook reporting a test half says of the log: how many configurations of which systems were tried on dev. */
export function tuningLogSummary(log: TuningLog, systems?: readonly string[]): { file: string; entries: number; bySystem: Record<string, number> } {
  const bySystem: Record<string, number> = {};
  for (const e of log.entries) if (!systems || systems.includes(e.system)) bySystem[e.system] = (bySystem[e.system] ?? 0) + 1;
  return { file: 'bench/tuning-log.json', entries: Object.values(bySystem).reduce((s, n) => s + n, 0), bySystem };
}

/** The sentence a notebook shows under a test-half table: where its settings were chosen, and how many were tried. Markdown. */
export function tuningLogSentence(log: TuningLog): string {
  const sum = tuningLogSummary(log);
  const per = Object.entries(sum.bySystem).map(([k, n]) => `${k} ${n}`).join(', ');
  return `Settings chosen on the style benchmark's **dev** half only: \`${sum.file}\` logs ${sum.entries} configuration${sum.entries === 1 ? '' : 's'} tried there (${per || 'none'}); this test half was never tuned on.`;
}

/**
 * Mark the entry of best `scores[metric]` as chosen (ties to the earlier entry, the grid's order) with a note saying
 * so; returns its index. The entries are one tuning run's, not yet appended.
 */
export function markBestChosen(entries: TuningLogEntry[], metric: string): number {
  if (entries.length === 0) throw new EoError('INVALID_ARGUMENT', 'markBestChosen: no entries');
  let best = 0;
  entries.forEach((e, i) => {
    if (!(metric in e.scores)) throw new EoError('INVALID_ARGUMENT', `markBestChosen: entry ${i} has no score "${metric}"`);
    if (e.scores[metric] > entries[best].scores[metric] + 1e-12) best = i;
  });
  entries[best].chosen = true;
  entries[best].note = `best ${metric} over all ${entries[best].queries} ${entries[best].half} queries of ${entries.length} configurations`;
  return best;
}
