/**
 * The paper's numbers put beside ours: lookups and claim checks over lib/bench/paper.ts (the one home of every number
 * of the paper), and the reasons our Table 2 differs from the paper's.
 */
import type { MetricName, MetricRow } from '../metrics/types';
import { NASA_EO_BENCH, PAPER_RERANK_ROWS, PAPER_TABLE2, PAPER_TRAINING, type PaperRatioClaim, type PaperRerankRow, type PaperTable2Row } from '../bench/paper';

export {
  NASA_EO_BENCH, PAPER_AGENTIC_COST_RATIO, PAPER_JUDGE_COLUMNS, PAPER_RERANK_ROWS, PAPER_TABLE2, PAPER_TABLE2_CLAIM, PAPER_TABLE3, PAPER_TRAINING,
  type PaperBackbone, type PaperJudgeColumn, type PaperRatioClaim, type PaperRerankRow, type PaperTable2Row,
} from '../bench/paper';

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
  encoder: `our encoder is USE-lite (512-d, CPU), not the paper's ${PAPER_TRAINING.nnssc.embeddingDim}-d sentence encoder`,
  finetune: `fine-tuning here trains the upper layer and head for a fixed number of CPU steps (CPU_FINETUNE_CONFIG), not the paper's ${PAPER_TRAINING.finetune.epochs} full epochs at batch ${PAPER_TRAINING.finetune.batchSize} (PAPER_FINETUNE_CONFIG)`,
  nnssc: `NN-SSC here stops early on a validation slice of the training split (tens of epochs), not after the paper's ${PAPER_TRAINING.nnssc.epochs} epochs`,
  benchmark: `our benchmark is built from the 725 publications of the offline snapshot, far fewer queries than NASA-EO-Bench, whose test split alone has ${NASA_EO_BENCH.test.toLocaleString('en-US')} queries`,
} as const;

/** The paper's number for a (backbone label, model, mode), or null when the paper reports none (e.g. offline rerankers). */
export function paperRerankRow(backboneLabel: string, model: string | null, mode: 'listwise' | 'agentic' | null = model === null ? null : 'listwise'): PaperRerankRow | null {
  return PAPER_RERANK_ROWS.find((r) => r.backbone === backboneLabel && r.model === model && r.mode === (model === null ? null : mode)) ?? null;
}
