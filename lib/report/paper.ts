/**
 * The paper's reported numbers (arXiv 2607.02387): the one home of every number of the paper that a notebook or its
 * generated text puts beside ours (they read them here, never type them). Two parts: the retrieval results of
 * Section 5, Table 2 (notebook 05), and the LLM-rerank results of Tables 4, 5 and 6 and Section 6.5 (notebooks 06/07).
 *
 * Table 2: the paper's headline claim about it (its abstract: fusing the supervised scorer with BM25 "raises both R@10
 * and MRR by over 5×") and its seven rows on the five retrieval metrics (the project's notes, paper-table2.md), which
 * fill the "(paper)" columns of notebook 05 and the comparisons of the generated text of notebooks 02–05.
 */
import type { MetricName, MetricRow } from '../metrics/types';
import { NASA_EO_BENCH } from '../bench/settings';

/** One row of the paper's Table 2: our row label (TABLE2_ROWS) and the paper's values, where recorded. */
export interface PaperTable2Row {
  label: string;
  /** The paper's values by metric; a metric that is missing is not recorded. */
  values: Readonly<Partial<Record<MetricName, number>>>;
  /** Where each recorded value was read, by metric. */
  sources?: Readonly<Partial<Record<MetricName, string>>>;
}

/** The paper's Table 2 rows (labels as in TABLE2_ROWS), all five retrieval metrics. */
/** Where the Table 2 values were read (columns R@10, R@20, R@100, MAP@100, MRR@100 of the NASA-EO-Bench test split). */
const PAPER_TABLE2_SOURCE = 'arXiv 2607.02387 Table 2 (Section 6.2)';
const METRIC_ORDER = ['R@10', 'R@20', 'R@100', 'MAP', 'MRR'] as const;

export const PAPER_TABLE2: readonly PaperTable2Row[] = (
  [
    ['BM25', [0.1083, 0.1529, 0.3026, 0.0643, 0.0805]],
    ['Cosine (base)', [0.0755, 0.1147, 0.2629, 0.0402, 0.0538]],
    ['Cosine (fine-tuned)', [0.3632, 0.4591, 0.6962, 0.2117, 0.2423]],
    ['Cosine (fine-tuned) + BM25', [0.3692, 0.4725, 0.7091, 0.2170, 0.2522]],
    ['Cosine (fine-tuned) + BM25 + R2', [0.3710, 0.4735, 0.7125, 0.2183, 0.2540]],
    ['NN-SSC', [0.3614, 0.4912, 0.7700, 0.2182, 0.2480]],
    ['NN-SSC + BM25', [0.4275, 0.5530, 0.8023, 0.2495, 0.2918]],
  ] as const
).map(([label, v]) => ({
  label,
  values: { 'R@10': v[0], 'R@20': v[1], 'R@100': v[2], MAP: v[3], MRR: v[4] },
  sources: Object.fromEntries(METRIC_ORDER.map((m) => [m, PAPER_TABLE2_SOURCE])),
}));

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
  benchmark: `our benchmark is built from the 725 publications of the offline snapshot, far fewer training queries than the ${NASA_EO_BENCH.train.toLocaleString('en-US')} of NASA-EO-Bench's split`,
} as const;

// ── LLM rerank (Tables 4, 5, 6; Section 6.5)

// The paper's LLM-rerank numbers (Tables 4, 5 and 6 and Section 6.5; N = 200 stratified test queries), as listed in
// shared/notes/paper-llm-protocol.md. Notebooks 06/07 and their generated summaries read them.

/** Which of the paper's backbones a row is on. */
export type PaperBackbone = 'Cosine (base) + BM25' | 'NN-SSC + BM25';

export interface PaperRerankRow {
  table: 4 | 5 | 6;
  backbone: PaperBackbone;
  /** Model config id of lib/llm/models.json; null: the backbone without rerank. */
  model: string | null;
  mode: 'listwise' | 'agentic' | null;
  /** The paper's name of the row. */
  name: string;
  MAP: number;
  MRR: number;
  /** Share of queries with at least one tool call (agentic rows, Section 6.5). */
  toolCallRate?: number;
}

export const PAPER_RERANK_ROWS: readonly PaperRerankRow[] = [
  { table: 4, backbone: 'Cosine (base) + BM25', model: null, mode: null, name: 'Cosine (base)+BM25', MAP: 0.067, MRR: 0.082 },
  { table: 4, backbone: 'Cosine (base) + BM25', model: 'gpt-5.5', mode: 'listwise', name: '+ GPT-5.5', MAP: 0.109, MRR: 0.143 },
  { table: 4, backbone: 'NN-SSC + BM25', model: null, mode: null, name: 'NN-SSC+BM25 (no rerank)', MAP: 0.26, MRR: 0.302 },
  { table: 5, backbone: 'NN-SSC + BM25', model: 'o4-mini', mode: 'listwise', name: '+ o4-mini', MAP: 0.294, MRR: 0.357 },
  { table: 5, backbone: 'NN-SSC + BM25', model: 'gpt-5.4', mode: 'listwise', name: '+ GPT-5.4', MAP: 0.311, MRR: 0.38 },
  { table: 5, backbone: 'NN-SSC + BM25', model: 'deepseek-v4-pro', mode: 'listwise', name: '+ DeepSeek v4 pro', MAP: 0.31, MRR: 0.366 },
  { table: 5, backbone: 'NN-SSC + BM25', model: 'claude-opus-4-7', mode: 'listwise', name: '+ Claude Opus 4.7', MAP: 0.317, MRR: 0.367 },
  { table: 5, backbone: 'NN-SSC + BM25', model: 'gpt-5.5', mode: 'listwise', name: '+ GPT-5.5', MAP: 0.322, MRR: 0.383 },
  { table: 6, backbone: 'NN-SSC + BM25', model: 'claude-opus-4-7', mode: 'agentic', name: 'Opus 4.7 agentic', MAP: 0.323, MRR: 0.388, toolCallRate: 0.41 },
  { table: 6, backbone: 'NN-SSC + BM25', model: 'deepseek-v4-pro', mode: 'agentic', name: 'DeepSeek v4 pro agentic', MAP: 0.313, MRR: 0.374, toolCallRate: 0.995 },
];

/** The paper's agentic / single-shot cost per query (Section 6.5: "about 5-10x"). */
export const PAPER_AGENTIC_COST_RATIO = { low: 5, high: 10 } as const;

/** The paper's number for a (backbone label, model, mode), or null when the paper reports none (e.g. offline rerankers). */
export function paperRerankRow(backboneLabel: string, model: string | null, mode: 'listwise' | 'agentic' | null = model === null ? null : 'listwise'): PaperRerankRow | null {
  return PAPER_RERANK_ROWS.find((r) => r.backbone === backboneLabel && r.model === model && r.mode === (model === null ? null : mode)) ?? null;
}
