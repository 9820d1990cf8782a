/**
 * NN-SSC over several training seeds (`bench/nnssc-seeds.cjs` → `bench/out/nnssc-seeds[-sample]-p<patience>e<epochs>.json`,
 * format `eo-nnssc-seeds/1`) as read from the bench's JSON (its tables and text for notebook 05 are in lib/lessons/fusion/seed-spread.ts): how far Table 2's NN-SSC rows (one seed)
 * move with the seed, what the corpus self-supervised pairs do once the seed is averaged out, and what a seed
 * ensemble gives. Read from the JSON, never typed; the bench itself (tens of minutes) is not run in a notebook.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EoError } from '../errors';
import { repoRoot } from '../util/paths';
import { readBenchJson } from './bench-json';
import { DEFAULT_NNSSC_CONFIG } from '../train/nnssc';

/** Row kinds of the bench: NN-SSC alone, + BM25 with the analytic α (Eq. 7), + BM25 with the grid α. */
export type SeedRowKind = 'alone' | 'analytic' | 'grid';

/** A paired comparison as the bench stores it. */
export interface SeedComparison { metric: string; delta: number; ci: [number, number]; p: number; a?: number; b?: number }

/** The JSON the seed bench writes. */
export interface SeedSpread {
  format: 'eo-nnssc-seeds/1';
  created: string;
  sample: boolean;
  seeds: number[];
  variants: string[];
  stopping: { maxEpochs: number; patience: number };
  perSeed: Record<string, { seed: number; bestEpoch: number; epochs: number; valMAP: number | null; alpha: { analytic: number; grid: number }; test: Record<SeedRowKind, Record<string, number>> }[]>;
  spread: Record<string, Record<SeedRowKind, Record<string, { mean: number; sd: number; min: number; max: number }>>>;
  seedAveraged: Record<string, Record<SeedRowKind, SeedComparison[]>>;
  ensembles: Record<string, { alpha: { analytic: number; grid: number }; test: Record<SeedRowKind, Record<string, number>> }>;
  ensembleComparisons: { label: string; cmp: SeedComparison[] }[];
  vsBm25R100: Record<string, { delta: number; ci: [number, number]; p: number; met: boolean }>;
  /** `--against` another run: each variant's row kind, seed-averaged or as an ensemble, paired with the same one there. */
  against?: { file: string; stopping: { maxEpochs: number; patience: number }; rows: { variant: string; kind: SeedRowKind; pooling: 'seed-averaged' | 'ensemble'; label: string; cmp: SeedComparison[] }[] };
}

/**
 * The bench's command (what a reader runs to make the file), for the default stopping rule or another one; with `ran`
 * (a file's seeds and variants) the command that made that file, else the bench's defaults.
 */
export function seedSpreadCommand(stopping?: { maxEpochs: number; patience: number }, sample = false, ran?: Pick<SeedSpread, 'seeds' | 'variants'>): string {
  const isDefault = !stopping || (stopping.maxEpochs === DEFAULT_NNSSC_CONFIG.maxEpochs && stopping.patience === DEFAULT_NNSSC_CONFIG.patience);
  const rule = isDefault ? '' : ` --max-epochs ${stopping!.maxEpochs} --patience ${stopping!.patience}`;
  const seeds = (ran?.seeds ?? [42, 43, 44, 45, 46]).join(',');
  const variants = (ran?.variants ?? ['plain', 'mix']).join(',');
  return `npm run build && node bench/nnssc-seeds.cjs${sample ? ' --sample' : ''} --seeds ${seeds} --variants ${variants}${rule}`;
}

/** The seed-bench files present for this snapshot, one per stopping rule, in order of the rule (shorter training first). */
export function seedSpreadFiles(sample = false, dir = path.join(repoRoot(), 'bench', 'out')): string[] {
  if (!fs.existsSync(dir)) return [];
  const re = new RegExp(`^nnssc-seeds${sample ? '-sample' : ''}-p(\\d+)e(\\d+)\\.json$`);
  const rule = (f: string) => re.exec(f)!.slice(1).map(Number);
  return fs.readdirSync(dir).filter((f) => re.test(f))
    .sort((a, b) => rule(a)[1] - rule(b)[1] || rule(a)[0] - rule(b)[0])
    .map((f) => path.join(dir, f));
}

/** One file of the seed bench; a file of another format is an error naming the file and the field. */
export function readSeedSpread(file: string): SeedSpread {
  const o = readBenchJson(file, 'eo-nnssc-seeds/1') as Partial<SeedSpread>;
  for (const field of ['seeds', 'variants'] as const) if (!Array.isArray(o[field])) throw new EoError('REPORT', `${file}: field "${field}" must be an array`, { file, field });
  for (const field of ['stopping', 'perSeed', 'spread', 'seedAveraged', 'ensembles', 'vsBm25R100'] as const)
    if (typeof o[field] !== 'object' || o[field] === null) throw new EoError('REPORT', `${file}: field "${field}" must be an object`, { file, field });
  if (!Array.isArray(o.ensembleComparisons)) throw new EoError('REPORT', `${file}: field "ensembleComparisons" must be an array`, { file, field: 'ensembleComparisons' });
  return o as SeedSpread;
}
