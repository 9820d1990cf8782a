import * as fs from 'node:fs';
import { splitCsvLine } from '../util/csv';
import * as path from 'node:path';
import { resolveDataDir } from '../data/snapshot';
import { EoError } from '../errors';
import { readRouterJson } from './data';
import { overlaps, phraseMatcher, type PhraseMatcher } from './phrases';
import type { VariableMapping, VariableMatch } from './types';

/** One GCMD science keyword: its own name (upper case) and full path `TOPIC > TERM > ...`. */
export interface GcmdKeyword {
  name: string;
  path: string;
  /** Depth: 0 = Term, 1 = Variable_Level_1, ... 4 = Detailed_Variable. */
  level: number;
}

// one CSV line splitter for the project: lib/util/csv.ts (the router keeps exporting it by name)
export { splitCsvLine } from '../util/csv';

/** The GCMD science keywords CSV of a data folder (`resolveDataDir(dataDir)`: $EO_DATA_DIR, else ../shared/data/eo, when absent). */
export function gcmdKeywordsFile(dataDir?: string): string {
  return path.join(resolveDataDir(dataDir), 'gcmd-sciencekeywords.csv');
}

/**
 * The GCMD keyword file of a loaded snapshot: in its folder, or the folder above it (the sample snapshot lies in
 * `sample/` beside it), so it follows `--data` with the corpus; null when neither has one.
 */
export function corpusGcmdFile(corpus: { origin: string }): string | null {
  for (const dir of [corpus.origin, path.dirname(corpus.origin)]) {
    const f = path.join(dir, 'gcmd-sciencekeywords.csv');
    if (fs.existsSync(f)) return f;
  }
  return null;
}

/**
 * Read the GCMD science keywords CSV (columns Category, Topic, Term, Variable_Level_1..3, Detailed_Variable, UUID):
 * one keyword per distinct name at Term level or below. Default file: `gcmd-sciencekeywords.csv` in the snapshot
 * folder (`resolveDataDir()`).
 */
export function loadGcmdKeywords(file = gcmdKeywordsFile()): GcmdKeyword[] {
  if (!fs.existsSync(file)) throw new EoError('DATA_NOT_FOUND', `GCMD keywords file not found: ${file} (the router reads it from the data folder: copy gcmd-sciencekeywords.csv from the default one, ../shared/data/eo)`, { file });
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
  const header = splitCsvLine(lines[0]);
  const want = ['Category', 'Topic', 'Term', 'Variable_Level_1', 'Variable_Level_2', 'Variable_Level_3', 'Detailed_Variable'];
  const cols = want.map((w) => header.indexOf(w));
  if (cols.some((c) => c < 0)) throw new EoError('DATA_INVALID', `${file}:1: header must have columns ${want.join(', ')}`, { file, line: 1 });
  const seen = new Map<string, GcmdKeyword>();
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const f = splitCsvLine(lines[i]);
    if (f.length < header.length - 1) throw new EoError('DATA_INVALID', `${file}:${i + 1}: expected ${header.length} fields, got ${f.length}`, { file, line: i + 1 });
    const levels = cols.slice(1).map((c) => (f[c] ?? '').trim());
    for (let l = 1; l < levels.length; l++) {
      const name = levels[l];
      if (!name) break;
      if (!seen.has(name)) seen.set(name, { name, path: levels.slice(0, l + 1).filter(Boolean).join(' > '), level: l - 1 });
    }
  }
  return [...seen.values()];
}

/** GCMD names too generic to signal a variable on their own. */
const GENERIC = new Set(['water', 'land', 'ice', 'snow', 'temperature', 'pressure', 'radiation', 'other', 'height', 'depth', 'area', 'surface', 'oceans', 'ocean', 'atmosphere', 'time', 'rate', 'index', 'indices', 'biosphere', 'cryosphere', 'land surface', 'terrestrial hydrosphere', 'spectral/engineering', 'sun-earth interactions', 'solid earth', 'human dimensions', 'paleoclimate', 'agriculture', 'climate indicators', 'data', 'lakes', 'rivers', 'streams', 'soils', 'erosion', 'glaciers', 'vegetation', 'clouds', 'aerosols', 'fire', 'precipitation']);

interface VariablesFile {
  variables: VariableMapping[];
}

export interface VariableIndex {
  mappings: VariableMapping[];
  mappingMatcher: PhraseMatcher<VariableMapping>;
  gcmdMatcher: PhraseMatcher<GcmdKeyword>;
  gcmdCount: number;
}

let cached: VariableIndex | null = null;

/**
 * The variable vocabulary: the mapping file lib/router/data/variables.json (synonyms such as "SST", "AOD",
 * "rainfall", with Worldview layers, Giovanni variables and Harmony collections) and the GCMD science keywords
 * (Term level and below; one-word names that are too generic are left out). Built once per process.
 */
export function loadVariableIndex(opts: { gcmdFile?: string } = {}): VariableIndex {
  if (cached && !opts.gcmdFile) return cached;
  const { variables } = readRouterJson<VariablesFile>('variables.json');
  variables.forEach((v, i) => {
    if (!v.id || !v.gcmd || !Array.isArray(v.synonyms) || !Array.isArray(v.worldviewLayers) || !Array.isArray(v.harmonyShortNames))
      throw new EoError('DATA_INVALID', `lib/router/data/variables.json: variables[${i}] needs id, gcmd, synonyms, worldviewLayers, harmonyShortNames`);
  });
  const gcmd = loadGcmdKeywords(opts.gcmdFile);
  const gcmdEntries: [string, GcmdKeyword][] = gcmd
    .filter((k) => !GENERIC.has(k.name.toLowerCase()) && k.name.length >= 4)
    .map((k) => [k.name, k]);
  const idx: VariableIndex = {
    mappings: variables,
    mappingMatcher: phraseMatcher(variables.flatMap((v) => [v.label, ...v.synonyms].map((s) => [s, v] as [string, VariableMapping]))),
    gcmdMatcher: phraseMatcher(gcmdEntries),
    gcmdCount: gcmd.length,
  };
  if (!opts.gcmdFile) cached = idx;
  return idx;
}

/** Physical variables named in a query: mapping synonyms first, then GCMD keywords in the rest of the text. */
export function findVariables(text: string, idx: VariableIndex = loadVariableIndex()): VariableMatch[] {
  const out: VariableMatch[] = [];
  for (const h of idx.mappingMatcher.find(text)) {
    const m = h.values[0];
    if (!out.some((o) => o.mapping === m)) out.push({ gcmd: m.gcmd, mapping: m, via: 'mapping', span: h.span });
  }
  for (const h of idx.gcmdMatcher.find(text)) {
    if (out.some((o) => overlaps(o.span, h.span))) continue;
    const k = h.values[0];
    const mapping = idx.mappings.find((m) => m.gcmd === k.name) ?? null;
    if (out.some((o) => o.gcmd === k.name)) continue;
    out.push({ gcmd: k.name, mapping, via: 'gcmd', gcmdPath: k.path, span: h.span });
  }
  return out.sort((a, b) => a.span.start - b.span.start);
}
