/** Graded relevance judgements: query id → dataset id → relevance (> 0 is relevant). */
export type Qrels = Map<string, Map<string, number>>;

/** One retrieved dataset with its score. */
export interface RunEntry {
  docId: string;
  score: number;
}

/** A run: query id → retrieved datasets (any order; metrics sort them, see `sortRunEntries`). */
export type Run = Map<string, RunEntry[]>;

/** The metric names the workbench reports, in table order. */
export const METRIC_NAMES = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/** Per-query values of every metric, aligned with `queryIds`. */
export interface PerQueryMetrics {
  queryIds: string[];
  values: Record<MetricName, number[]>;
  /** Queries of the qrels that have no relevant dataset: excluded from every mean (see evaluateRun). */
  skippedNoPositives: string[];
  /** Queries with positives but no entry in the run: scored 0 (trec_eval -c). */
  missingFromRun: string[];
}

/** One table row: a system's macro-averaged metrics. */
export type MetricRow = { system: string } & Record<MetricName, number>;

export interface EvaluateOptions {
  /** Depth at which runs are cut before MAP and MRR (trec_eval -M). Default 100. */
  depth?: number;
}

/** Result of a paired comparison of two systems on the same queries. */
export interface PairedComparison {
  metric: string;
  n: number;
  meanA: number;
  meanB: number;
  /** mean(A − B) */
  meanDiff: number;
  /** Two-sided p-value of the paired randomization (sign-flip) test. */
  pValue: number;
  /** Bootstrap percentile 95% CI of mean(A − B). */
  ciLow: number;
  ciHigh: number;
  permutations: number;
  bootstrapSamples: number;
  seed: number;
  /** Label of system A, where the caller named it (`compareSystems` callers, Table 2). */
  systemA?: string;
  /** Label of system B (the reference), where the caller named it. */
  systemB?: string;
  /** Queries where A − B > 1e-12. */
  improved: number;
  /** Queries where |A − B| ≤ 1e-12. */
  tied: number;
  /** Queries where A − B < −1e-12. */
  worse: number;
  /** Standardised paired effect size, Cohen's d_z = mean(A − B) / sd(A − B) (sd with n − 1; 0 when every difference is 0). */
  effectSize: number;
  /** Percentile bootstrap 95% CI of d_z, from the same resamples as the CI of the mean difference. */
  effectSizeCi95: [number, number];
  /** Holm-adjusted p within `family`, where the comparison is one of several with the same reference. */
  pHolm?: number;
  /** The family the Holm adjustment ran over, in words ("Holm over the 13 rows compared with the best one, MAP"). */
  family?: string;
  /** The correction `pHolm` comes from, where the comparison is one of a corrected family (`withHolm`). */
  correction?: 'Holm';
}
