/**
 * The paper's reported LLM-rerank numbers (arXiv 2607.02387, Tables 4, 5 and 6 and Section 6.5; N = 200 stratified
 * test queries), as listed in shared/notes/paper-llm-protocol.md. The one home of these numbers: notebooks 06/07
 * and their generated summaries read them here, never type them.
 */

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
