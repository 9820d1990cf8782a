/**
 * Every number of the paper (arXiv 2607.02387) that the workbench puts beside its own: NASA-EO-Bench's sizes (§4),
 * Table 2 (retrieval, Section 6.2), Table 3 (complexity), the training settings (Section 6.1), and the LLM-rerank
 * results of Tables 4, 5 and 6 and Section 6.5. The one home of these values: the report, the lessons, the scale
 * model (bench/paper-scale.cjs) and the training configs read them here, never type them.
 *
 * Sources: `../shared/notes/paper-table2.md` (Tables 2 and 3, training settings) and
 * `../shared/notes/paper-llm-protocol.md` (Tables 4–6); test/paper-numbers.test.ts checks this module against them.
 */
import type { MetricName } from '../metrics/types';

/**
 * NASA-EO-Bench as the paper notes give it (`paper-table2.md`: 8,058 datasets, 4,234 test queries;
 * `paper-llm-protocol.md`: the N = 200 rerank subset). Only these: a sentence that gives another NASA-EO-Bench
 * size as the paper's fails the claim check (lib/lessons/text-claims.ts).
 */
export const NASA_EO_BENCH = Object.freeze({
  datasets: 8058,
  test: 4234,
  rerankSubset: 200,
});

/**
 * Sizes the paper-scale model (bench/paper-scale.cjs) assumes where the paper notes give none: all queries, the
 * training split, labelled datasets per query and query-dataset pairs. Not the paper's numbers as far as the notes
 * go, so no lesson sentence quotes them as the paper's; the bench prints them as its assumptions.
 */
export const PAPER_SCALE_ASSUMED = Object.freeze({
  queries: 21272,
  train: 17038,
  labelsPerQuery: 2.24,
  pairs: 47654,
});

/** The LLM-judge precision columns of the paper's Table 2 (Qwen3.6-35B-A3B, physical-variable matching prompt). */
export const PAPER_JUDGE_COLUMNS = ['P@5', 'P@10', 'P@20'] as const;
export type PaperJudgeColumn = (typeof PAPER_JUDGE_COLUMNS)[number];

/** One row of the paper's Table 2 under our row label (TABLE2_ROWS). */
export interface PaperTable2Row {
  label: string;
  /** The paper's name of the row. */
  paperName: string;
  /** Citation-label metrics (R@K, MAP@100, MRR@100) on the paper's 4,234 test queries. */
  values: Readonly<Record<MetricName, number>>;
  /** LLM-judge precision. */
  judge: Readonly<Record<PaperJudgeColumn, number>>;
}

const row = (label: string, paperName: string, v: readonly number[]): PaperTable2Row => ({
  label,
  paperName,
  values: { 'R@10': v[0], 'R@20': v[1], 'R@100': v[2], MAP: v[3], MRR: v[4] },
  judge: { 'P@5': v[5], 'P@10': v[6], 'P@20': v[7] },
});

/** The paper's Table 2 (R@10, R@20, R@100, MAP, MRR, P@5, P@10, P@20), rows as the paper prints them. */
export const PAPER_TABLE2: readonly PaperTable2Row[] = [
  row('Cosine (base)', 'Cosine (base)', [0.0755, 0.1147, 0.2629, 0.0402, 0.0538, 0.1406, 0.1285, 0.114]),
  row('Cosine (fine-tuned)', 'Cosine (fine-tuned)', [0.3632, 0.4591, 0.6962, 0.2117, 0.2423, 0.3033, 0.2678, 0.2279]),
  row('BM25', 'BM25', [0.1083, 0.1529, 0.3026, 0.0643, 0.0805, 0.1848, 0.167, 0.1431]),
  row('Cosine (fine-tuned) + BM25', 'Cosine (fine-tuned) + BM25 (Hybrid)', [0.3692, 0.4725, 0.7091, 0.217, 0.2522, 0.3362, 0.2962, 0.2492]),
  row('Cosine (fine-tuned) + BM25 + R2', 'Cosine (fine-tuned) + BM25 (Hybrid) + R2', [0.371, 0.4735, 0.7125, 0.2183, 0.254, 0.3367, 0.2966, 0.2498]),
  row('NN-SSC', 'NN-SSC', [0.3614, 0.4912, 0.77, 0.2182, 0.248, 0.18, 0.1588, 0.1359]),
  row('NN-SSC + BM25', 'NN-SSC + BM25 (Hybrid)', [0.4275, 0.553, 0.8023, 0.2495, 0.2918, 0.2915, 0.2517, 0.204]),
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

/** The abstract's claim ("more than 5×" over Cosine (base) on R@10, 5.66, and MRR, 5.42). */
export const PAPER_TABLE2_CLAIM: PaperRatioClaim = {
  source: 'abstract and Section 6.2',
  text: 'fusing the supervised scorer with BM25 raises both R@10 and MRR by over 5× over Cosine (base)',
  better: 'NN-SSC + BM25',
  than: 'Cosine (base)',
  metrics: ['R@10', 'MRR'],
  atLeast: 5,
};

/** Table 3 (complexity): trainable parameters and what inference costs. */
export const PAPER_TABLE3 = Object.freeze({
  nnssc: { trainableParams: 460_000, frozenEncoderParams: 110_000_000, backprop: 'MLP only', inference: 'cached embeddings + MLP' },
  finetuned: { trainableParams: 125_000_000, backprop: 'full', inference: 'base cosine' },
  /** NN-SSC's trainable count as a share of the fine-tuned encoder's ("about 1/270"). */
  trainableRatio: 1 / 270,
});

/** The paper's training settings (Section 6.1). PAPER_FINETUNE_CONFIG and PAPER_NNSSC_CONFIG (lib/train) read them. */
export const PAPER_TRAINING = Object.freeze({
  finetune: { loss: 'MNRL', temperature: 0.07, hardNegatives: 5, epochs: 10, batchSize: 256, optimizer: 'AdamW', lr: 2e-5, warmupFraction: 0.1, precision: 'BF16' },
  nnssc: { inputDim: 1536, embeddingDim: 768, hidden: [256, 256], hardNegatives: 10, randomNegatives: 10, epochs: 1000, batchSize: 64, optimizer: 'Adam', lr: 1e-4, seed: 42 },
});

// ── LLM rerank (Tables 4, 5, 6; Section 6.5; N = 200 stratified test queries)

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
