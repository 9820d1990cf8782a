/**
 * The paper's retrieval results (arXiv 2607.02387, Section 5, Table 2): the one home of the numbers notebook 05 puts
 * beside ours. Notebooks and generated text read them here, never type them.
 *
 * What is recorded: the paper's headline claim about Table 2 (its abstract: fusing the supervised scorer with BM25
 * "raises both R@10 and MRR by over 5×"), and the one per-row value quoted in this project's records: NN-SSC's R@10,
 * 0.361 (issue 11, "NN-SSC alone reaches R@10 0.175 (paper 0.361)"). The paper's text was not reachable offline and
 * `../shared/notes/` lists only its LLM tables (those live in paper-llm.ts), so the other values are empty; copying
 * them from the paper into `values` (with their `sources`) fills the "(paper)" columns of notebook 05 and the
 * comparisons of its generated text, with no other change.
 */
import type { MetricName, MetricRow } from '../metrics/types';

/** One row of the paper's Table 2: our row label (TABLE2_ROWS) and the paper's values, where recorded. */
export interface PaperTable2Row {
  label: string;
  /** The paper's values by metric; a metric that is missing is not recorded. */
  values: Readonly<Partial<Record<MetricName, number>>>;
  /** Where each recorded value was read, by metric. */
  sources?: Readonly<Partial<Record<MetricName, string>>>;
}

/** The paper's Table 2 rows (labels as in TABLE2_ROWS). Only NN-SSC's R@10 is recorded (see the module comment). */
export const PAPER_TABLE2: readonly PaperTable2Row[] = [
  { label: 'BM25', values: {} },
  { label: 'Cosine (base)', values: {} },
  { label: 'Cosine (fine-tuned)', values: {} },
  { label: 'Cosine (fine-tuned) + BM25', values: {} },
  { label: 'Cosine (fine-tuned) + BM25 + R2', values: {} },
  {
    label: 'NN-SSC',
    values: { 'R@10': 0.361 },
    sources: { 'R@10': 'arXiv 2607.02387 Table 2, as quoted in issue 11 ("NN-SSC alone reaches R@10 0.175 (paper 0.361)")' },
  },
  { label: 'NN-SSC + BM25', values: {} },
];

/** A ratio the paper states between two of its rows. */
export interface PaperRatioClaim {
  /** Where the paper says it. */
  source: string;
  /** The paper's words, paraphrased. */
  text: string;
  better: string;
  than: string;
  metrics: readonly MetricName[];
  /** "by over N×": better ≥ N × than on every metric. */
  atLeast: number;
}

/**
 * The abstract's claim. The abstract does not name the baseline; we read it, as the paper's Table 2 suggests, as the
 * untrained semantic scorer (Cosine (base)).
 */
export const PAPER_TABLE2_CLAIM: PaperRatioClaim = {
  source: 'abstract',
  text: 'fusing the supervised scorer with BM25 raises both R@10 and MRR by over 5×',
  better: 'NN-SSC + BM25',
  than: 'Cosine (base)',
  metrics: ['R@10', 'MRR'],
  atLeast: 5,
};

/** The paper's value of a Table 2 row on a metric, or null when the paper's row or value is not recorded. */
export function paperTable2Value(label: string, metric: MetricName, rows: readonly PaperTable2Row[] = PAPER_TABLE2): number | null {
  const v = rows.find((r) => r.label === label)?.values[metric];
  return typeof v === 'number' ? v : null;
}

/** Whether the paper reports a row of this label in Table 2. */
export function paperReportsRow(label: string, rows: readonly PaperTable2Row[] = PAPER_TABLE2): boolean {
  return rows.some((r) => r.label === label);
}

/** The claim checked on our rows: the ratio per metric and whether it holds; null ratios when a row is missing or 0. */
export function checkRatioClaim(claim: PaperRatioClaim, rows: readonly MetricRow[]): { ratios: Record<string, number | null>; holds: boolean | null } {
  const a = rows.find((r) => r.system === claim.better);
  const b = rows.find((r) => r.system === claim.than);
  const ratios: Record<string, number | null> = {};
  for (const m of claim.metrics) ratios[m] = a && b && b[m] > 0 ? a[m] / b[m] : null;
  const vals = Object.values(ratios);
  return { ratios, holds: vals.some((v) => v === null) ? null : vals.every((v) => (v as number) >= claim.atLeast) };
}

/**
 * Why our Table 2 numbers may differ from the paper's, by cause (named by the generated text of notebooks 03–05).
 * Facts about our setup, kept here beside the paper's numbers.
 */
export const TABLE2_DIFFERENCES = {
  queries: 'our queries are publication titles written offline, not the paper\'s LLM-written "I want to …" task queries; titles share words with dataset titles, which favours BM25',
  encoder: 'our encoder is USE-lite (512-d, CPU), not the paper\'s 768-d sentence encoder',
  finetune: 'fine-tuning here trains the upper layer and head for a fixed number of CPU steps (CPU_FINETUNE_CONFIG), not the paper\'s 10 full epochs at batch 256 (PAPER_FINETUNE_CONFIG)',
  nnssc: 'NN-SSC here stops early on a validation slice of the training split (tens of epochs), not after the paper\'s 1000 epochs',
  benchmark: 'our benchmark is built from the 725 publications of the offline snapshot, far fewer training queries than NASA-EO-Bench\'s 21k',
} as const;
