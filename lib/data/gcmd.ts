/**
 * The snapshot's GCMD vocabularies (`gcmd-instruments.csv`, `gcmd-platforms.csv`, `gcmd-sciencekeywords.csv` beside
 * the datasets): what a record's short instrument and platform names stand for (long name, class, type), and the
 * science keyword hierarchy. Errors name the file and the line.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { splitCsvLine } from '../util/csv';
import { resolveDataDir } from './data-dir';

/** One instrument or platform of GCMD: its short name and what it is. */
export interface GcmdEntity {
  shortName: string;
  longName: string;
  /** The hierarchy above it, most general first (instruments: category, class, type, subtype; platforms: category, series). */
  path: string[];
}

/** One science keyword: the hierarchy from the topic down, e.g. [ATMOSPHERE, AEROSOLS, AEROSOL OPTICAL DEPTH/THICKNESS]. */
export type GcmdKeywordPath = string[];

/**
 * The rows of a GCMD CSV as header name → cell. The platform and instrument files have ragged rows (a hierarchy level
 * more than the header in some categories): their last three fields are always Short_Name, Long_Name, UUID, and the
 * extra level joins the hierarchy (`extra` cell). Fewer fields than the header is an error naming the line.
 */
function readRows(file: string, header: string[]): { line: number; cells: Record<string, string> }[] {
  if (!fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `GCMD file not found: ${file}`, { file });
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
  const at = lines.findIndex((l) => header.every((h) => splitCsvLine(l).includes(h)));
  if (at < 0) throw new EoError('DATA_INVALID', `${file}: no header line with ${header.join(', ')}`, { file });
  const names = splitCsvLine(lines[at]);
  const out: { line: number; cells: Record<string, string> }[] = [];
  for (let i = at + 1; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    const f = splitCsvLine(lines[i]);
    if (f.length < names.length) throw new EoError('DATA_INVALID', `${file}:${i + 1}: ${f.length} fields, the header has ${names.length}`, { file, line: i + 1 });
    const cells: Record<string, string> = Object.fromEntries(names.map((n, k) => [n, f[k].trim()]));
    if (f.length > names.length) {
      if (names.slice(-3).join() !== 'Short_Name,Long_Name,UUID') throw new EoError('DATA_INVALID', `${file}:${i + 1}: ${f.length} fields, the header has ${names.length}`, { file, line: i + 1 });
      const tail = f.slice(-3).map((x) => x.trim());
      [cells.Short_Name, cells.Long_Name, cells.UUID] = tail;
      cells.extra = f.slice(names.length - 3, f.length - 3).map((x) => x.trim()).filter(Boolean).join(' > ');
    }
    out.push({ line: i + 1, cells });
  }
  return out;
}

/** The entities of a GCMD file by upper-cased short name (the first entry of a name wins), with `levels` as the path. */
function readGcmdEntities(dataDir: string | undefined, fileName: string, header: string[], levels: string[]): Map<string, GcmdEntity> {
  const file = path.join(resolveDataDir(dataDir), fileName);
  const out = new Map<string, GcmdEntity>();
  for (const { cells } of readRows(file, header)) {
    if (!cells.Short_Name) continue;
    const key = cells.Short_Name.toUpperCase();
    if (!out.has(key)) out.set(key, { shortName: cells.Short_Name, longName: cells.Long_Name, path: [...levels, 'extra'].map((l) => cells[l]).filter(Boolean) });
  }
  return out;
}

/** GCMD instruments by upper-cased short name (the first entry of a name wins). */
export function readGcmdInstruments(dataDir?: string): Map<string, GcmdEntity> {
  return readGcmdEntities(dataDir, 'gcmd-instruments.csv', ['Category', 'Class', 'Type', 'Short_Name', 'Long_Name'], ['Category', 'Class', 'Type', 'Subtype']);
}

/** GCMD platforms by upper-cased short name (the first entry of a name wins). */
export function readGcmdPlatforms(dataDir?: string): Map<string, GcmdEntity> {
  return readGcmdEntities(dataDir, 'gcmd-platforms.csv', ['Category', 'Short_Name', 'Long_Name'], ['Category', 'Series_Entity']);
}

/** GCMD projects by upper-cased short name (the first entry of a name wins); their path is the file's alphabetical bucket. */
export function readGcmdProjects(dataDir?: string): Map<string, GcmdEntity> {
  return readGcmdEntities(dataDir, 'gcmd-projects.csv', ['Bucket', 'Short_Name', 'Long_Name'], ['Bucket']);
}

/** Every GCMD science keyword path (Topic down to the deepest filled level), in file order. */
export function readGcmdScienceKeywords(dataDir?: string): GcmdKeywordPath[] {
  const file = path.join(resolveDataDir(dataDir), 'gcmd-sciencekeywords.csv');
  const levels = ['Topic', 'Term', 'Variable_Level_1', 'Variable_Level_2', 'Variable_Level_3', 'Detailed_Variable'];
  return readRows(file, ['Category', 'Topic', 'Term']).map(({ cells }) => levels.map((l) => cells[l]).filter(Boolean)).filter((p) => p.length > 0);
}
