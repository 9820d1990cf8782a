// Notebook 05, section 9: NN-SSC over several training seeds (`bench/nnssc-seeds.cjs` →
// `bench/out/nnssc-seeds[-sample]-p<patience>e<epochs>.json`, format `eo-nnssc-seeds/1`) read from the bench's JSON, then
// shown as tables and generated text: how far Table 2's NN-SSC rows (one seed) move with the seed, what the corpus
// self-supervised pairs do once the seed is averaged out, and what a seed ensemble gives. Read from the JSON, never
// typed; the bench itself (tens of minutes) is not run in a notebook.
import * as path from 'node:path';
import { repoRoot } from '../../util/paths';
import { DEFAULT_NNSSC_CONFIG } from '../../train/nnssc';
import { repoRelativePath } from '../../report/frame';
import { sampleSuffix } from '../../report/lesson';
import { f3 } from '../../report/numbers';
import { pairedText } from '../../report/paired-text';
import type { TableRow } from '../../report/types';
import * as fs from 'node:fs';
import { EoError } from '../../errors';
import { readBenchJson } from '../../report/bench-json';

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

const KINDS: readonly SeedRowKind[] = ['alone', 'analytic', 'grid'];
const KIND_LABEL: Record<SeedRowKind, string> = { alone: 'alone', analytic: '+ BM25 (analytic α)', grid: '+ BM25 (grid α)' };
const METRICS = ['R@10', 'R@100', 'MAP', 'MRR'] as const;
const variantLabel = (v: string) => (v === 'plain' ? 'NN-SSC' : `NN-SSC (corpus ${v})`);
const stoppingText = (s: { maxEpochs: number; patience: number }) => `≤ ${s.maxEpochs} epochs, patience ${s.patience}`;
const ciText = (c: SeedComparison) => pairedText({ metric: '', meanDiff: c.delta, ciLow: c.ci[0], ciHigh: c.ci[1] }, { form: 'interval' });
const excludes0 = (c: SeedComparison) => c.ci[0] > 0 || c.ci[1] < 0;

/** Per variant and row kind: mean ± sd [min, max] over the seeds of R@10, R@100, MAP, MRR, then the seed ensemble's value. */
export function seedSpreadRows(s: SeedSpread): TableRow[] {
  const rows: TableRow[] = [];
  for (const v of s.variants)
    for (const k of KINDS) {
      const sp = s.spread[v]?.[k];
      if (!sp) continue;
      const row: TableRow = { system: `${variantLabel(v)} ${KIND_LABEL[k]}`, stopping: stoppingText(s.stopping), seeds: s.seeds.length };
      for (const m of METRICS) row[`${m} mean ± sd [min, max]`] = `${f3(sp[m].mean)} ± ${sp[m].sd.toFixed(3)} [${f3(sp[m].min)}, ${f3(sp[m].max)}]`;
      const e = s.ensembles[v]?.test[k];
      for (const m of ['MAP', 'MRR'] as const) row[`${m} ensemble`] = e ? Number(e[m].toFixed(4)) : null;
      rows.push(row);
    }
  return rows;
}

/** Per variant and seed: where early stopping kept the weights, the validation MAP, and the hybrid's test MAP. */
export function seedEpochRows(s: SeedSpread): TableRow[] {
  return s.variants.flatMap((v) => (s.perSeed[v] ?? []).map((m) => ({
    system: variantLabel(v), seed: m.seed, 'kept epoch': m.bestEpoch, 'epochs run': m.epochs, 'validation MAP': m.valMAP === null ? null : Number(m.valMAP.toFixed(4)),
    'test MAP alone': Number(m.test.alone.MAP.toFixed(4)), 'test MAP + BM25': Number(m.test.analytic.MAP.toFixed(4)), 'α (analytic)': Number(m.alpha.analytic.toFixed(3)),
  })));
}

/**
 * What the seeds show, as markdown: the spread of the NN-SSC + BM25 row against Table 2's single draw, the corpus
 * pairs' effect averaged over seeds (with its CI), the ensembles, the comparison with another stopping rule when
 * the file has one, and issue 11's R@100 goal for NN-SSC alone.
 */
export function seedSpreadVerdict(s: SeedSpread): string {
  const out: string[] = [];
  const n = s.seeds.length;
  const plain = s.spread.plain;
  if (plain) {
    const a = plain.analytic.MAP;
    const seed42 = s.perSeed.plain?.find((m) => m.seed === 42);
    out.push(`- **One training run is one draw.** Over ${n} seeds (${s.seeds.join(', ')}; ${stoppingText(s.stopping)}), NN-SSC + BM25's test MAP is ` +
      `${f3(a.mean)} ± ${a.sd.toFixed(3)} (from ${f3(a.min)} to ${f3(a.max)})${seed42 ? `; seed 42, the seed of Table 2's row under this rule, gives ${f3(seed42.test.analytic.MAP)}` : ''}. ` +
      `Differences between single trainings smaller than that spread say little about a recipe.`);
    const epochs = (s.perSeed.plain ?? []).map((m) => m.bestEpoch);
    if (epochs.length) out.push(`- Early stopping kept epochs ${epochs.join(', ')} of at most ${s.stopping.maxEpochs}; validation MAP of the kept weights ` +
      `${(s.perSeed.plain ?? []).map((m) => (m.valMAP === null ? 'n/a' : f3(m.valMAP))).join(', ')}.`);
  }
  for (const v of s.variants.filter((x) => x !== 'plain')) {
    const c = s.seedAveraged[v]?.analytic;
    if (!c) continue;
    const map = c.find((x) => x.metric === 'MAP');
    const mrr = c.find((x) => x.metric === 'MRR');
    if (!map || !mrr) continue;
    const both = excludes0(map) && excludes0(mrr) && map.delta > 0 && mrr.delta > 0;
    const worse = (excludes0(map) && map.delta < 0) || (excludes0(mrr) && mrr.delta < 0);
    out.push(`- **Corpus pairs (${v}), seed-averaged** (each test query's metric averaged over the ${n} seeds, then paired): NN-SSC + BM25 ΔMAP ${ciText(map)}, ` +
      `ΔMRR ${ciText(mrr)} — ${both ? '**both rise with a CI that excludes 0**' : worse ? '**they lower the hybrid** (a CI excludes 0 below it)' : 'neither CI excludes 0: no measurable effect'}.`);
  }
  for (const v of s.variants) {
    const e = s.ensembles[v];
    if (e) out.push(`- **Ensemble of the ${n} ${variantLabel(v)} seeds** (mean logit): alone MAP ${f3(e.test.alone.MAP)}, + BM25 MAP ${f3(e.test.analytic.MAP)} / MRR ${f3(e.test.analytic.MRR)} (analytic α ${e.alpha.analytic.toFixed(3)}).`);
  }
  if (s.against) {
    for (const r of s.against.rows.filter((x) => x.kind === 'analytic' && x.pooling === 'seed-averaged')) {
      const map = r.cmp.find((x) => x.metric === 'MAP');
      if (!map || map.a === undefined || map.b === undefined) continue;
      out.push(`- **Stopping rule** (${stoppingText(s.stopping)} vs ${stoppingText(s.against.stopping)}), ${r.variant} seed-averaged, ${KIND_LABEL[r.kind]}: MAP ${f3(map.a)} vs ${f3(map.b)}, Δ ${ciText(map)}` +
        `${excludes0(map) ? ' — the CI excludes 0' : ' — the CI includes 0'}.`);
    }
  }
  const r100 = Object.entries(s.vsBm25R100);
  if (r100.length) {
    const best = r100.reduce((a, b) => (b[1].delta > a[1].delta ? b : a));
    const d4 = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(4)}`;
    out.push(`- **NN-SSC alone vs BM25's R@100** (issue 11's goal: reach it): ${best[1].met ? 'met' : 'not met'} by the best of these rows ` +
      `(${best[0]}: R@100 − BM25's ${d4(best[1].delta)} [${d4(best[1].ci[0])}, ${d4(best[1].ci[1])}]).`);
  }
  out.push(`\n*Measured ${s.created.slice(0, 16).replace('T', ' ')} UTC by \`${seedSpreadCommand(s.stopping, s.sample, s)}\`; ` +
    'α of every row set on the training split; which recipe is better is read from the test split only here, after all of them were trained.*' + sampleSuffix(s.sample));
  return out.join('\n');
}

/** The note shown when the seed bench has not been run: the file it would write and the command. */
export function seedSpreadMissing(sample = false, dir = path.join(repoRoot(), 'bench', 'out')): string {
  const d = DEFAULT_NNSSC_CONFIG;
  return `*No seed-bench output in \`${repoRelativePath(dir)}\` (\`nnssc-seeds${sample ? '-sample' : ''}-p*e*.json\`): it trains NN-SSC ten times (five seeds, plain and with the corpus pairs), ` +
    `~30–70 minutes on 2 cores, so this notebook does not run it. Run \`${seedSpreadCommand({ maxEpochs: 60, patience: 5 }, sample)}\` (the earlier stopping rule), then ` +
    `\`${seedSpreadCommand(undefined, sample)} --against bench/out/nnssc-seeds${sample ? '-sample' : ''}-p5e60.json\` (notebook 04's: ≤ ${d.maxEpochs} epochs, patience ${d.patience}), then re-run this cell.*`;
}
