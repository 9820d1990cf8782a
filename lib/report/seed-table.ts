/**
 * Table 2 over several training seeds: every row as mean ± sd over the seeds, each system's per-query metrics
 * averaged over the seeds (so paired tests compare seed-averaged systems, not one draw), and the paper's ratio
 * claim checked on the means. The seeds come from `EO_SEEDS` (`npm start -- --seeds N`); the default is one seed.
 */
import { EoError } from '../errors';
import { evaluateRun, summarize } from '../metrics/metrics';
import { compareSystems, type PairedOptions } from '../metrics/paired';
import { withHolmPerMetric } from '../metrics/multiple';
import { holmFamilyText } from './paired-text';
import { meanPerQueryMetrics, spreadOf, type Spread } from '../metrics/spread';
import { METRIC_NAMES, type MetricName, type MetricRow, type PairedComparison, type PerQueryMetrics, type Qrels, type Run } from '../metrics/types';
import { DEFAULT_NNSSC_CONFIG } from '../train/nnssc';
import { checkRatioClaim, PAPER_TABLE2_CLAIM, type PaperRatioClaim } from './paper';
import type { TableRow } from './types';

/** Environment variable with the number of NN-SSC training seeds a notebook trains (set by `npm start -- --seeds N`). */
export const SEEDS_ENV = 'EO_SEEDS';

/**
 * The training seeds a notebook uses: `EO_SEEDS` = N gives N consecutive seeds from `base` (default the NN-SSC
 * config's seed, 42); unset gives `[base]`. Anything but a positive integer is a CONFIG error naming the variable.
 */
export function notebookSeeds(env: Record<string, string | undefined> = process.env, base = DEFAULT_NNSSC_CONFIG.seed): number[] {
  const raw = env[SEEDS_ENV];
  if (raw === undefined || raw === '') return [base];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new EoError('CONFIG', `${SEEDS_ENV} must be a positive integer (got "${raw}")`, { variable: SEEDS_ENV, value: raw });
  return Array.from({ length: n }, (_, i) => base + i);
}

/**
 * Checkpoint name of one seed's NN-SSC: the default seed keeps the one-seed name (notebook 04's checkpoint), any
 * other gets `-seed<N>`, so a five-seed run reuses the one-seed checkpoint and adds four.
 */
export function seedCheckpointName(name: string, seed: number, defaultSeed = DEFAULT_NNSSC_CONFIG.seed): string {
  return seed === defaultSeed ? name : `${name}-seed${seed}`;
}

/** One seed's test runs of the Table 2 systems (systems that do not train repeat the same run). */
export interface SeedRuns {
  seed: number;
  systems: { id: string; label: string; test: Run }[];
}

export interface SeedTable2Options {
  testQrels: Qrels;
  /** Metric that picks the best row every other row is paired with. Default 'MAP'. */
  bestBy?: MetricName;
  /** Metrics of the paired tests. Default all five. */
  pairedMetrics?: readonly MetricName[];
  paired?: PairedOptions;
  /** Claim checked on the mean rows. Default `PAPER_TABLE2_CLAIM` (NN-SSC + BM25 over 5× Cosine (base), R@10 and MRR). */
  claim?: PaperRatioClaim;
}

export interface SeedTable2 {
  seeds: number[];
  /** Display rows: per metric `mean ± sd`, and the number of seeds. */
  rows: TableRow[];
  /** Mean rows (numbers) by label, in input order. */
  means: MetricRow[];
  /** System id → metric → spread over the seeds. */
  spread: Record<string, Record<MetricName, Spread>>;
  /** System id → per-query metrics averaged over the seeds. */
  perQuery: Record<string, PerQueryMetrics>;
  best: { id: string; label: string };
  /** The best row − every other row, on seed-averaged per-query metrics, typed; `pHolm`: Holm per metric over these rows. */
  comparisons: PairedComparison[];
  /** `comparisons` as display rows (Δ (best − row), CI, p, p Holm). */
  paired: TableRow[];
  claim: { claim: PaperRatioClaim; ratios: Record<string, number | null>; holds: boolean | null };
}

/** Table 2 from N seeds' runs (see the module comment). Every seed must have the same systems. */
export function seedAveragedTable2(perSeed: readonly SeedRuns[], opts: SeedTable2Options): SeedTable2 {
  if (perSeed.length === 0) throw new EoError('INVALID_ARGUMENT', 'seedAveragedTable2 needs the runs of at least one seed');
  const systems = perSeed[0].systems.map((s) => ({ id: s.id, label: s.label }));
  for (const r of perSeed) {
    const ids = r.systems.map((s) => s.id).join(',');
    if (ids !== systems.map((s) => s.id).join(',')) throw new EoError('INVALID_ARGUMENT', `seed ${r.seed} has systems ${ids}, seed ${perSeed[0].seed} has ${systems.map((s) => s.id).join(',')}`, { seed: r.seed });
  }
  const spread: SeedTable2['spread'] = {};
  const perQuery: SeedTable2['perQuery'] = {};
  const means: MetricRow[] = [];
  const rows: TableRow[] = [];
  systems.forEach((s, i) => {
    const evals = perSeed.map((r) => evaluateRun(r.systems[i].test, opts.testQrels));
    const byMetric = Object.fromEntries(METRIC_NAMES.map((m) => [m, spreadOf(evals.map((e) => summarize(s.label, e)[m]))])) as Record<MetricName, Spread>;
    spread[s.id] = byMetric;
    perQuery[s.id] = meanPerQueryMetrics(evals);
    means.push(summarize(s.label, perQuery[s.id]));
    const row: TableRow = { system: s.label };
    for (const m of METRIC_NAMES) row[m] = `${byMetric[m].mean.toFixed(3)} ± ${byMetric[m].sd.toFixed(3)}`;
    row.seeds = perSeed.length;
    rows.push(row);
  });
  const bestBy = opts.bestBy ?? 'MAP';
  const bi = means.reduce((b, r, i) => (r[bestBy] > means[b][bestBy] ? i : b), 0);
  const best = systems[bi];
  const others = systems.filter((_, i) => i !== bi);
  const metrics = opts.pairedMetrics ?? METRIC_NAMES;
  const raw = others.map((s) => compareSystems(perQuery[best.id], perQuery[s.id], metrics, opts.paired).map((c) => ({ ...c, systemA: best.label, systemB: s.label })));
  // Holm per metric over the rows compared with the best one (one reference, several comparisons)
  const comparisons = withHolmPerMetric(raw, (m) => holmFamilyText(others.length, best.label, m)).flat();
  const paired: TableRow[] = comparisons.map((c) => ({
    system: c.systemB!, vs: c.systemA!, metric: c.metric, 'Δ (best − row)': c.meanDiff, 'CI95 low': c.ciLow, 'CI95 high': c.ciHigh, p: c.pValue, 'p Holm': c.pHolm ?? null, n: c.n, seeds: perSeed.length,
  }));
  const claim = opts.claim ?? PAPER_TABLE2_CLAIM;
  return { seeds: perSeed.map((r) => r.seed), rows, means, spread, perQuery, best, comparisons, paired, claim: { claim, ...checkRatioClaim(claim, means) } };
}
