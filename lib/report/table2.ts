import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import { performanceIndex } from '../fuse/alpha';
import { judgeColumns, type JudgeColumns } from '../judge/compare';
import type { JudgeRunQuery, LlmJudge } from '../judge/types';
import { isSignificant } from '../metrics/significance';
import { holmChangedConclusions, tukeyHsd, withHolmPerMetric, type TukeyHsd, type TukeyHsdOptions } from '../metrics/multiple';
import { compareSystems, type PairedOptions } from '../metrics/paired';
import { evaluateRun, summarize } from '../metrics/metrics';
import { writeRunFiles } from '../metrics/systems';
import { signedBound } from './numbers';
import { METRIC_NAMES, type MetricName, type MetricRow, type PairedComparison, type PerQueryMetrics, type Qrels, type Run } from '../metrics/types';
import { holmFamilyText, holmNote } from './paired-text';
import type { TableRow } from './types';

/** One row of the paper's Table 2: a system's runs and what it cost. */
export interface Table2System {
  /** One word: run tag and run-file stem. */
  id: string;
  label: string;
  /** Run on the test split; absent when the system is not available (then `note` says why). */
  test?: Run;
  /** Run on the training split (used for α and shown as π(train)); optional. */
  train?: Run;
  /** Fusion weight of a hybrid (null/undefined for single scorers). */
  alpha?: number | null;
  /** How α was set: `analytic (Eq. 7)`, `grid (train)`, `RRF k=60`… */
  alphaMethod?: string;
  trainableParams?: number | null;
  trainingSeconds?: number | null;
  backend?: string | null;
  /** Shown in the notes column, e.g. "not available: run 03-encoder-finetune". */
  note?: string;
}

export interface Table2Options {
  testQrels: Qrels;
  trainQrels?: Qrels;
  /** Which test metric picks "the best row" every row is compared with. Default 'π' (mean of the five). */
  bestBy?: MetricName | 'π';
  /** Metrics compared with the best row (paired randomization p, bootstrap 95% CI). Default all five. */
  pairedMetrics?: readonly MetricName[];
  paired?: PairedOptions;
  /** Run depth. Default 100. */
  depth?: number;
  /** Metric of the randomised Tukey HSD over all pairs of available rows. Default 'MAP'. */
  tukeyMetric?: MetricName;
  /** Tukey HSD permutations and seed (default 10000, seed 42); false skips it. */
  tukey?: TukeyHsdOptions | false;
}

export interface Table2 {
  /** Display rows: metrics on the test split, α, parameters, training time, backend, Δ vs best with CI and p. */
  rows: TableRow[];
  /** Long form: one row per (system, metric) compared with the best row. */
  paired: TableRow[];
  /** Id and label of the best row. */
  best: { id: string; label: string };
  /** Test metrics of the available systems. */
  metrics: MetricRow[];
  /** Per-query test metrics by system id (for gain plots). */
  perQuery: Record<string, PerQueryMetrics>;
  /** π(train) by system id, where a training run was given. */
  trainPi: Record<string, number>;
  /** Every row vs the best row, typed; `pHolm` adjusts per metric over the rows compared with the best one. */
  comparisons: PairedComparison[];
  /** The Holm family in words and the conclusions at .05 that change after Holm (markdown; for the caption). */
  holmNote: string;
  /** Randomised Tukey HSD over all pairs of available rows on `tukeyMetric` (absent with `tukey: false`). */
  tukey?: TukeyHsd & { metric: MetricName };
}

/** A paired difference and its CI as the table shows them: `−0.083 [−0.120, −0.046]`; a value that is not 0 never reads as 0 (`signedBound`). */
const fmtDiffCi = (d: number, lo: number, hi: number) => `${signedBound(d)} [${signedBound(lo)}, ${signedBound(hi)}]`;

/**
 * Build Table 2 from systems' runs: R@10, R@20, R@100, MAP, MRR on the test split, α, trainable parameters,
 * training time and backend, and for every row the paired comparison with the best row (mean difference, bootstrap
 * 95% CI, randomization p) on `pairedMetrics`. Unavailable systems keep their row with the note and empty metrics.
 */
export function buildTable2(systems: readonly Table2System[], opts: Table2Options): Table2 {
  const depth = opts.depth ?? 100;
  const metricsCompared = opts.pairedMetrics ?? METRIC_NAMES;
  const bestBy = opts.bestBy ?? 'π';
  const perQuery: Record<string, PerQueryMetrics> = {};
  const metrics: MetricRow[] = [];
  const trainPi: Record<string, number> = {};
  const byId = new Map<string, MetricRow>();
  for (const s of systems) {
    if (s.train && opts.trainQrels) trainPi[s.id] = performanceIndex(summarize(s.label, evaluateRun(s.train, opts.trainQrels, { depth })));
    if (!s.test) continue;
    perQuery[s.id] = evaluateRun(s.test, opts.testQrels, { depth });
    const row = summarize(s.label, perQuery[s.id]);
    metrics.push(row);
    byId.set(s.id, row);
  }
  const avail = systems.filter((s) => s.test);
  const key = (r: MetricRow) => (bestBy === 'π' ? performanceIndex(r) : r[bestBy]);
  let best = avail[0];
  for (const s of avail) if (key(byId.get(s.id)!) > key(byId.get(best.id)!)) best = s;
  const others = avail.filter((s) => best && s.id !== best.id);
  const raw = others.map((s) => compareSystems(perQuery[s.id], perQuery[best.id], metricsCompared, opts.paired).map((c) => ({ ...c, systemA: s.label, systemB: best.label })));
  // Holm per metric: the family is the rows compared with the best one on that metric
  const adjusted = withHolmPerMetric(raw, (m) => holmFamilyText(others.length, 'the best one', m));
  const bySystem = new Map<string, PairedComparison[]>(others.map((s, i) => [s.id, adjusted[i]]));
  const comparisons = adjusted.flat();
  const paired: TableRow[] = comparisons.map((c) => ({
    system: c.systemA!, 'vs best': c.systemB!, metric: c.metric, 'mean diff': c.meanDiff, 'CI95 low': c.ciLow, 'CI95 high': c.ciHigh, p: c.pValue,
    'p (Holm)': c.pHolm ?? null, n: c.n, improved: c.improved, tied: c.tied, worse: c.worse, 'd_z': c.effectSize,
    'd_z CI95 low': c.effectSizeCi95[0], 'd_z CI95 high': c.effectSizeCi95[1],
  }));
  const rows: TableRow[] = systems.map((s) => {
    const m = byId.get(s.id);
    const row: TableRow = { system: s.label };
    for (const name of METRIC_NAMES) row[name] = m ? m[name] : null;
    row['π'] = m ? performanceIndex(m) : null;
    row['π (train)'] = trainPi[s.id] ?? null;
    row['α'] = s.alpha ?? null;
    row['α from'] = s.alphaMethod ?? '';
    row['trainable params'] = s.trainableParams ?? null;
    row['training time (s)'] = s.trainingSeconds ?? null;
    row.backend = s.backend ?? '';
    const cmp = bySystem.get(s.id);
    if (m && cmp) {
      for (const metric of ['MAP', 'MRR', 'R@10'] as const) {
        const c = cmp.find((x) => x.metric === metric);
        if (!c) continue;
        row[`Δ${metric} vs best [95% CI]`] = fmtDiffCi(c.meanDiff, c.ciLow, c.ciHigh);
        row[`p (${metric})`] = c.pValue;
        row[`p Holm (${metric})`] = c.pHolm ?? null;
        // the one rule (CI and Holm p), so that an export marks what the verdicts call significant
        row[`significant (${metric})`] = isSignificant(c);
        row[`d_z (${metric})`] = c.effectSize;
      }
    } else if (m) {
      for (const metric of ['MAP', 'MRR', 'R@10'] as const) {
        if (!metricsCompared.includes(metric)) continue;
        row[`Δ${metric} vs best [95% CI]`] = 'best row';
        row[`p (${metric})`] = null;
        row[`p Holm (${metric})`] = null;
        row[`significant (${metric})`] = null;
        row[`d_z (${metric})`] = null;
      }
    }
    row.note = s.note ?? '';
    return row;
  });
  const tukeyMetric = opts.tukeyMetric ?? 'MAP';
  const tukey = opts.tukey === false || avail.length < 2 ? undefined : {
    metric: tukeyMetric,
    ...tukeyHsd(avail.map((s) => s.label), avail.map((s) => alignedValues(perQuery[s.id], perQuery[avail[0].id].queryIds, tukeyMetric)), opts.tukey ?? {}),
  };
  const note = holmNote(comparisons, holmChangedConclusions(comparisons));
  return { rows, paired, best: best ? { id: best.id, label: best.label } : { id: '', label: '' }, metrics, perQuery, trainPi, comparisons, holmNote: note, tukey };
}

/** Every available row of Table 2 against one reference row (e.g. the strong short baseline `bm25-stop`). */
export interface Table2VsReference {
  reference: { id: string; label: string };
  /** Typed comparisons, row − reference; `pHolm` adjusts per metric over the rows compared with the reference. */
  comparisons: PairedComparison[];
  /** Long form, one row per (system, metric): Δ, bootstrap 95% CI, p, p (Holm), wins/ties/losses, d_z. */
  rows: TableRow[];
  holmNote: string;
}

/**
 * Every other available row of a built Table 2 against the row `referenceId` (its per-query test metrics), paired
 * (bootstrap 95% CI, randomization p, as `buildTable2`'s options) with Holm per metric over the rows compared. Null
 * when the reference row has no test run.
 */
export function table2VsReference(table: Pick<Table2, 'perQuery'>, systems: readonly Pick<Table2System, 'id' | 'label' | 'test'>[], referenceId: string, opts: Pick<Table2Options, 'pairedMetrics' | 'paired'> = {}): Table2VsReference | null {
  const ref = systems.find((s) => s.id === referenceId);
  if (!ref || !table.perQuery[referenceId]) return null;
  const metricsCompared = opts.pairedMetrics ?? METRIC_NAMES;
  const others = systems.filter((s) => s.id !== referenceId && table.perQuery[s.id]);
  const raw = others.map((s) => compareSystems(table.perQuery[s.id], table.perQuery[referenceId], metricsCompared, opts.paired).map((c) => ({ ...c, systemA: s.label, systemB: ref.label })));
  const comparisons = withHolmPerMetric(raw, (m) => holmFamilyText(others.length, ref.label, m)).flat();
  const rows: TableRow[] = comparisons.map((c) => ({
    system: c.systemA!, vs: c.systemB!, metric: c.metric, 'mean diff': c.meanDiff, 'CI95 low': c.ciLow, 'CI95 high': c.ciHigh, p: c.pValue,
    'p (Holm)': c.pHolm ?? null, n: c.n, improved: c.improved, tied: c.tied, worse: c.worse, 'd_z': c.effectSize,
  }));
  return { reference: { id: ref.id, label: ref.label }, comparisons, rows, holmNote: holmNote(comparisons, holmChangedConclusions(comparisons)) };
}

/** One system's per-query values of `metric` in the order of `queryIds` (the systems of one table share their queries). */
function alignedValues(pq: PerQueryMetrics, queryIds: readonly string[], metric: MetricName): number[] {
  const pos = new Map(pq.queryIds.map((q, i) => [q, i]));
  return queryIds.map((q) => {
    const i = pos.get(q);
    if (i === undefined) throw new EoError('INVALID_ARGUMENT', `Table 2: query ${q} is missing from one system's run evaluation`);
    return pq.values[metric][i];
  });
}

/** Write `<dir>/<id>.test.run` (and `.train.run` where given) for every available row, plus the qrels files. */
export function writeTable2RunFiles(dir: string, systems: readonly Table2System[], testQrels: Qrels, trainQrels?: Qrels): string[] {
  const files = writeRunFiles(dir, systems.filter((s) => s.test).map((s) => ({ id: s.id, label: s.label, run: s.test! })), testQrels, 'test');
  const withTrain = systems.filter((s) => s.train);
  if (trainQrels && withTrain.length > 0) files.push(...writeRunFiles(dir, withTrain.map((s) => ({ id: s.id, label: s.label, run: s.train! })), trainQrels, 'train'));
  return files;
}

/** The columns a judge adds to Table 2 (the paper's P@K, Section 4). */
export const JUDGE_COLUMNS = ['P@5', 'P@10', 'P@20'] as const;

/**
 * Table 2's display rows with the paper's number beside ours: after each metric `m`, a column `m (paper)` holding the
 * paper's value for rows the paper reports (null where not recorded), and a column `in paper` (`yes` / `ours`).
 * `paperValue(label, metric)` looks a value up (default: none recorded).
 */
export function withPaperColumns(
  rows: readonly TableRow[],
  opts: { metrics?: readonly MetricName[]; inPaper: (label: string) => boolean; paperValue: (label: string, metric: MetricName) => number | null },
): TableRow[] {
  const metrics = opts.metrics ?? METRIC_NAMES;
  return rows.map((r) => {
    const label = String(r.system);
    const out: TableRow = { system: label, 'in paper': opts.inPaper(label) ? 'yes' : 'ours' };
    for (const m of metrics) {
      out[m] = r[m] ?? null;
      out[`${m} (paper)`] = opts.inPaper(label) ? opts.paperValue(label, m) : null;
    }
    for (const [k, v] of Object.entries(r)) if (!(k in out)) out[k] = v;
    return out;
  });
}

/**
 * Table 2's rows with the judge's P@5/10/20 beside them (rows of `judgeColumns`, matched by system label) and a
 * `judge` column naming the judge, or why there is none ("not configured: …"), and `judge calls` (refused or
 * unreadable answers, scored NO) when judged; P@K stay null without a judge.
 */
export function withJudgeColumns(rows: readonly TableRow[], judged: readonly ({ system: string; judge: string } & Record<string, number | string>)[]): TableRow[] {
  const by = new Map(judged.map((j) => [j.system, j]));
  return rows.map((r) => {
    const j = by.get(String(r.system));
    const out: TableRow = { ...r };
    for (const k of JUDGE_COLUMNS) out[k] = j && typeof j[k] === 'number' ? j[k] : null;
    out.judge = j ? j.judge : 'not judged';
    // refusals and unreadable answers (scored NO) beside the P@K they lower
    if (j && typeof j['judge calls'] === 'string') out['judge calls'] = j['judge calls'];
    return out;
  });
}

/** Which columns of a Table 2 view mark their best value (larger is better): our metrics, π and the judge's P@K. */
export function table2BestColumns(columns: readonly string[]): Record<string, 'max'> {
  const ours = [...METRIC_NAMES, 'π', ...JUDGE_COLUMNS];
  return Object.fromEntries(columns.filter((c) => ours.includes(c)).map((c) => [c, 'max' as const]));
}

/**
 * The judge's P@K columns for the rows of Table 2 that have a test run (`judgeColumns`): numbers with a judge, rows
 * saying `notConfigured` without one. Judgements are cached by the judge, so rows sharing datasets cost one call each.
 */
export async function table2JudgeColumns(opts: {
  systems: readonly Table2System[]; queries: readonly JudgeRunQuery[]; corpus: Pick<Corpus, 'datasets' | 'indexById'>;
  judge: LlmJudge | null; notConfigured?: string; onProgress?: (system: string, done: number, total: number) => void;
}): Promise<JudgeColumns> {
  const byId = (id: string) => {
    const i = opts.corpus.indexById.get(id);
    return i === undefined ? undefined : opts.corpus.datasets[i];
  };
  return judgeColumns({
    systems: opts.systems.filter((s) => s.test).map((s) => ({ system: s.label, run: s.test! })), queries: opts.queries, datasets: byId,
    judge: opts.judge, notConfigured: opts.notConfigured, onProgress: opts.onProgress,
  });
}
