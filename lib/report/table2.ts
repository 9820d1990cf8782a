import { performanceIndex } from '../fuse/alpha';
import { compareSystems, type PairedOptions } from '../metrics/paired';
import { evaluateRun, summarize } from '../metrics/metrics';
import { writeRunFiles } from '../metrics/systems';
import { METRIC_NAMES, type MetricName, type MetricRow, type PerQueryMetrics, type Qrels, type Run } from '../metrics/types';
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
}

const fmtCi = (lo: number, hi: number) => `[${lo >= 0 ? '+' : ''}${lo.toFixed(3)}, ${hi >= 0 ? '+' : ''}${hi.toFixed(3)}]`;

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
  const paired: TableRow[] = [];
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
    if (m && best && s.id !== best.id) {
      const cmp = compareSystems(perQuery[s.id], perQuery[best.id], metricsCompared, opts.paired);
      for (const c of cmp) {
        paired.push({ system: s.label, 'vs best': best.label, metric: c.metric, 'mean diff': c.meanDiff, 'CI95 low': c.ciLow, 'CI95 high': c.ciHigh, p: c.pValue, n: c.n });
      }
      for (const metric of ['MAP', 'MRR', 'R@10'] as const) {
        const c = cmp.find((x) => x.metric === metric);
        if (!c) continue;
        row[`Δ${metric} vs best [95% CI]`] = `${c.meanDiff >= 0 ? '+' : ''}${c.meanDiff.toFixed(3)} ${fmtCi(c.ciLow, c.ciHigh)}`;
        row[`p (${metric})`] = c.pValue;
      }
    } else if (m) {
      for (const metric of ['MAP', 'MRR', 'R@10'] as const) {
        if (!metricsCompared.includes(metric)) continue;
        row[`Δ${metric} vs best [95% CI]`] = 'best row';
        row[`p (${metric})`] = null;
      }
    }
    row.note = s.note ?? '';
    return row;
  });
  return { rows, paired, best: best ? { id: best.id, label: best.label } : { id: '', label: '' }, metrics, perQuery, trainPi };
}

/** Write `<dir>/<id>.test.run` (and `.train.run` where given) for every available row, plus the qrels files. */
export function writeTable2RunFiles(dir: string, systems: readonly Table2System[], testQrels: Qrels, trainQrels?: Qrels): string[] {
  const files = writeRunFiles(dir, systems.filter((s) => s.test).map((s) => ({ id: s.id, label: s.label, run: s.test! })), testQrels, 'test');
  const withTrain = systems.filter((s) => s.train);
  if (trainQrels && withTrain.length > 0) files.push(...writeRunFiles(dir, withTrain.map((s) => ({ id: s.id, label: s.label, run: s.train! })), trainQrels, 'train'));
  return files;
}
