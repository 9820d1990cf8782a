// Notebook 05, section 9: Table 2 averaged over NN-SSC training seeds (`npm start -- --seeds N` trains them with
// bench/nnssc-seeds.cjs). Each seed's NN-SSC is loaded, scored on both splits and fused with BM25 at its own α set on
// the training split; rows that do not train NN-SSC repeat their one run: every row as mean ± sd over the seeds, each
// system's per-query metrics averaged over the seeds (so paired tests compare seed-averaged systems, not one draw), and
// the paper's ratio claim checked on the means. The seeds come from `EO_SEEDS` (`npm start -- --seeds N`); the default
// is one seed. Generated text only from the table.
import { checkpointExists } from '../../store/checkpoint';
import { DEFAULT_NNSSC_CONFIG } from '../../train/nnssc';
import { nnsscCheckpointName } from '../../train/artefacts';
import { defaultNnsscDir } from '../../train/nnssc-checkpoint';
import { loadNnsscScorer } from '../../search/nnssc';
import { retrieveSplits, studyHybrid } from '../../study/study';
import { showMarkdown, showTable } from '../../report/display';
import { repoRelativePath, toDataFrame } from '../../report/frame';
import { table2RowId } from '../../report/fusion';
import { f3 } from '../../report/numbers';
import { ciExcludesZero, isSignificant, significanceState, SIGNIFICANCE_LEVEL } from '../../metrics/significance';
import type { TableRow } from '../../report/types';
import type { Table2SectionInputs } from './lesson';
import { EoError } from '../../errors';
import { evaluateRun, summarize } from '../../metrics/metrics';
import { compareSystems, type PairedOptions } from '../../metrics/paired';
import { withHolmPerMetric } from '../../metrics/multiple';
import { holmFamilyText } from '../../report/paired-text';
import { meanPerQueryMetrics, spreadOf, type Spread } from '../../metrics/spread';
import { METRIC_NAMES, type MetricName, type MetricRow, type PairedComparison, type PerQueryMetrics, type Qrels, type Run } from '../../metrics/types';
import { checkRatioClaim, PAPER_TABLE2_CLAIM, type PaperRatioClaim } from '../../report/paper';
import { FUSION_TEXT_KEYS } from './text-keys';

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

/** What section 9's seed table computed (results.json `seedTable2`). */
export interface SeedTable2Result {
  seeds: number[];
  /** `one seed`: nothing to average; `missing`: a seed's checkpoint is absent; `done`: the table was built. */
  status: 'one seed' | 'missing' | 'done';
  missing?: { seed: number; dir: string; why: string }[];
  /** Row ids whose runs change with the seed (the NN-SSC rows); the others repeat their one run. */
  varied?: string[];
  alphas?: { seed: number; analytic: number; grid: number }[];
  rows?: TableRow[];
  means?: TableRow[];
  /** The best row − every other row on seed-averaged per-query metrics, typed, Holm per metric (the table shows them). */
  comparisons?: PairedComparison[];
  best?: { id: string; label: string };
  claim?: { better: string; than: string; metrics: string[]; atLeast: number; ratios: Record<string, number | null>; holds: boolean | null };
  /** Wall time of the section (loading, scoring, fusing, the paired tests). */
  seconds: number;
}

const PAIRED = { seed: 42, permutations: 10000, bootstrapSamples: 10000 };


/** The seed bench command that trains the checkpoints of `seeds` (plain recipe only: the rows of Table 2). */
export function seedTable2Command(seeds: readonly number[], sample: boolean): string {
  return `node bench/nnssc-seeds.cjs${sample ? ' --sample' : ''} --seeds ${seeds.join(',')} --variants plain`;
}

/** What the seed table reads of Table 2 (section 4): the lesson, the planned rows and scores, the hybrids, the base encoder and the systems with their test runs. */
export type SeedTable2Inputs = Table2SectionInputs;

/** Section 9's seed-averaged Table 2 (see the module comment); one seed prints what the seed run adds. */
export async function seedTable2Section({ lesson, systems, plan, hybrids, base }: SeedTable2Inputs, seeds: readonly number[]): Promise<SeedTable2Result> {
  const t0 = Date.now();
  const { corpus, bench, train, test, sample } = lesson;
  const done = (r: Omit<SeedTable2Result, 'seconds'>): SeedTable2Result => ({ ...r, seconds: (Date.now() - t0) / 1000 });
  if (seeds.length <= 1) {
    showMarkdown(`*Table 2 above is one training run of NN-SSC (seed ${seeds[0] ?? DEFAULT_NNSSC_CONFIG.seed}). \`npm start -- --seeds 5\` trains NN-SSC with five seeds first ` +
      '(`bench/nnssc-seeds.cjs`); this section then shows Table 2 as mean ± sd over the seeds, every row paired with the best one on seed-averaged ' +
      'per-query metrics (with Holm), and the paper\'s ratio claim checked on the means.*', { key: FUSION_TEXT_KEYS.seedTable });
    return done({ seeds: [...seeds], status: 'one seed' });
  }
  const name = nnsscCheckpointName(bench.name);
  const dirs = seeds.map((seed) => ({ seed, dir: defaultNnsscDir(seedCheckpointName(name, seed)) }));
  const absent = dirs.filter((d) => !checkpointExists(d.dir)).map((d) => ({ ...d, why: 'no checkpoint' }));
  const hasRow = systems.some((s) => s.id === 'nnssc+bm25' && s.test) && plan.scored.bm25 && base;
  if (absent.length > 0 || !hasRow) {
    const why = !hasRow ? 'the NN-SSC rows of Table 2 are not available (run 04-nnssc)' : `no checkpoint for seed${absent.length > 1 ? 's' : ''} ${absent.map((m) => `${m.seed} (\`${repoRelativePath(m.dir)}\`)`).join(', ')}`;
    showMarkdown(`*${seeds.length} seeds asked for (${seeds.join(', ')}), but ${why}: train them with \`${seedTable2Command(seeds, sample)}\` and re-run this cell. No seed-averaged table is shown.*`, { key: FUSION_TEXT_KEYS.seedTable });
    return done({ seeds: [...seeds], status: 'missing', missing: absent.map((m) => ({ ...m, dir: repoRelativePath(m.dir) })) });
  }
  const varied = plan.rows.filter((r) => r.scorer === 'nnssc').map(table2RowId);
  const shown = systems.filter((s) => s.test);
  const perSeed: SeedRuns[] = [];
  const alphas: SeedTable2Result['alphas'] = [];
  for (const { seed, dir } of dirs) {
    if (seed === DEFAULT_NNSSC_CONFIG.seed) {
      // the seed of Table 2's rows: its runs are those above (the same checkpoint, the same fusion records)
      perSeed.push({ seed, systems: shown.map((s) => ({ id: s.id, label: s.label, test: s.test! })) });
      const h = hybrids.nnssc;
      alphas.push({ seed, analytic: h.analyticRecord.alpha, grid: h.gridRecord.alpha });
      continue;
    }
    const nn = loadNnsscScorer(corpus, base!.encoder, base!.matrix, { dir, threads: 2, bench, id: `nnssc-seed${seed}`, label: `NN-SSC, seed ${seed}` });
    if (!nn.scorer) {
      showMarkdown(`*Seed ${seed}: ${nn.note}. No seed-averaged table is shown; re-train with \`${seedTable2Command(seeds, sample)}\`.*`, { key: FUSION_TEXT_KEYS.seedTable });
      return done({ seeds: [...seeds], status: 'missing', missing: [{ seed, dir: repoRelativePath(dir), why: nn.note }] });
    }
    const scores = await retrieveSplits(nn.scorer, { train, test }, corpus);
    // α of this seed's hybrid set on the training split (its own fusion record), as for the seed-42 row
    const h = await studyHybrid({ corpus, splits: { train, test }, semantic: { scorer: nn.scorer, scores }, lexical: { scorer: plan.scored.bm25.scorer, scores: plan.scored.bm25.scores } });
    nn.scorer.dispose();
    alphas.push({ seed, analytic: h.analyticRecord.alpha, grid: h.gridRecord.alpha });
    const runOf: Record<string, Run> = { nnssc: scores.test.run, 'nnssc+bm25': h.analytic.test, 'nnssc+bm25-grid': h.grid.test, 'nnssc+bm25-rrf': h.rrf.test };
    perSeed.push({ seed, systems: shown.map((s) => ({ id: s.id, label: s.label, test: varied.includes(s.id) ? runOf[s.id] : s.test! })) });
    console.log(`seed ${seed}: ${nn.note}; analytic α ${h.analyticRecord.alpha.toFixed(3)}`);
  }
  const st = seedAveragedTable2(perSeed, { testQrels: test.qrels, paired: PAIRED });
  const rows = st.rows.map((r, i) => ({ ...r, 'varies with seed': varied.includes(shown[i].id) ? 'yes' : 'no (one run)' }));
  const from = { note: `test split, ${test.queries.length} queries; NN-SSC checkpoints of seeds ${seeds.join(', ')} (${seedTable2Command(seeds, sample)}); α of each seed set on the training split` };
  showTable(toDataFrame(rows), { title: `Table 2 over ${seeds.length} NN-SSC seeds: mean ± sd per row (rows that do not train NN-SSC repeat their one run)`, source: from });
  showTable(toDataFrame(st.paired), { title: `Every row vs ${st.best.label} on seed-averaged per-query metrics (bootstrap 95% CI, paired randomization p, Holm per metric)`, digits: 4, maxRows: 400, source: from });
  const result = done({
    seeds: [...seeds], status: 'done', varied, alphas, rows, means: st.means as unknown as TableRow[], comparisons: st.comparisons, best: st.best,
    claim: { better: st.claim.claim.better, than: st.claim.claim.than, metrics: [...st.claim.claim.metrics], atLeast: st.claim.claim.atLeast, ratios: st.claim.ratios, holds: st.claim.holds },
  });
  showMarkdown(seedTable2Verdict(result), { key: FUSION_TEXT_KEYS.seedTable });
  return result;
}

/** What the seed-averaged Table 2 shows: the best row by mean MAP, the rows below it (CI and Holm p), the spread of NN-SSC + BM25, the paper's claim on the means. Markdown. */
export function seedTable2Verdict(r: SeedTable2Result): string {
  if (r.status !== 'done' || !r.best || !r.means || !r.comparisons || !r.claim) return '';
  const n = r.seeds.length;
  const mean = (label: string) => r.means!.find((m) => m.system === label);
  const best = mean(r.best.label)!;
  // best − row: a row below the best has a positive difference
  const map = r.comparisons.filter((c) => c.metric === 'MAP');
  const row = (c: PairedComparison) => String(c.systemB);
  const below = map.filter((c) => c.meanDiff > 0 && isSignificant(c)).map(row);
  const ciBelow = map.filter((c) => c.ciLow > 0).length;
  const pBelow = map.filter((c) => c.pValue < SIGNIFICANCE_LEVEL).length;
  const disagree = map.filter((c) => significanceState(c) === 'tests disagree').length;
  const tied = map.filter((c) => !ciExcludesZero(c)).map(row);
  const out = [`### Table 2 over ${n} seeds`, ''];
  out.push(`**Best row by mean MAP over the ${n} seeds** (${r.seeds.join(', ')}): **${r.best.label}** (MAP ${f3(Number(best.MAP))}).`);
  out.push(`**Against it** (MAP, each test query's value averaged over the seeds, then paired; Holm over the ${map.length} rows): ` +
    `${below.length} row(s) are significantly below it (bootstrap CI excludes 0 and p Holm < ${SIGNIFICANCE_LEVEL}). ` +
    `Before the correction, the bootstrap CI excludes 0 for ${ciBelow} row(s) and the randomization test gives p < ${SIGNIFICANCE_LEVEL} for ${pBelow} row(s)` +
    `${disagree ? ` (the two tests disagree on ${disagree}: read those as borderline)` : ''}` +
    (tied.length ? `; the CI includes 0 for ${tied.length} row(s): ${tied.join('; ')}.` : '.'));
  const hybrid = r.rows?.find((x) => x.system === 'NN-SSC + BM25');
  if (hybrid) out.push(`**NN-SSC + BM25 over the seeds:** MAP ${hybrid.MAP}, MRR ${hybrid.MRR} (mean ± sd); analytic α per seed ${r.alphas!.map((a) => `${a.seed}: ${a.analytic.toFixed(3)}`).join(', ')}.`);
  const ratios = Object.entries(r.claim.ratios).map(([m, x]) => `${m} ${x === null ? 'n/a' : `${x.toFixed(2)}×`}`).join(', ');
  out.push(`**The paper's claim on the means** (${r.claim.better} ≥ ${r.claim.atLeast}× ${r.claim.than} on ${r.claim.metrics.join(' and ')}): ${ratios}; ` +
    (r.claim.holds === null ? 'not checkable (a row is missing).' : r.claim.holds ? 'the claim **holds** on the seed means.' : 'the claim does **not** hold on the seed means.'));
  return out.join('\n');
}
