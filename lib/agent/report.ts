import { createLlmClient } from '../llm/client';
import type { LlmMode, ModelConfig, RecordStore } from '../llm/types';
import type { Qrels } from '../metrics/types';
import type { Backbone } from '../rerank/candidate-lists';
import { listwiseReranker } from '../rerank/listwise';
import { mergeRerankTables, rerankTable, type RerankOutcome, type RerankTable } from '../rerank/evaluate';
import type { RerankQuery } from '../rerank/types';
import { agenticReranker } from './harness';
import type { AgentTool, SourcePublication } from './types';

/** One model's Table 6 pair: single-shot and agentic outcomes on the same backbone. */
export interface AgenticPair {
  model: string;
  singleShot: RerankOutcome;
  agentic: RerankOutcome;
}

export interface SingleVsAgenticOptions {
  mode: LlmMode;
  store: RecordStore | null;
  backbone: Backbone;
  qrels: Qrels;
  tools: AgentTool[];
  sourceOf: (q: RerankQuery) => SourcePublication | null;
  /** Environment for keys and base URLs. Default process.env. */
  env?: Record<string, string | undefined>;
  /** Client warnings. Default console.warn. */
  log?: (line: string) => void;
  /** Row label per model and kind. Default the rerankers' own (`LLM rerank (<id>)`, `agentic rerank (<id>)`). */
  label?: (configId: string, kind: 'listwise' | 'agentic') => string;
}

/**
 * Table 6 for any configured model, whatever its vendor (OpenAI, Anthropic, OpenAI-compatible: the harness speaks
 * each one's tool calling): per model, the single-shot listwise reranker and the agentic one on the same backbone.
 * A model that cannot run (e.g. a replay miss) is listed in `errors` and left out; the others go on.
 */
export async function singleShotVsAgentic(configs: readonly ModelConfig[], o: SingleVsAgenticOptions): Promise<{ pairs: AgenticPair[]; errors: string[]; table: RerankTable }> {
  const runs: { model: string; table: RerankTable }[] = [];
  for (const c of configs) {
    const client = createLlmClient(c, { mode: o.mode, store: o.store, env: o.env, log: o.log });
    const t = await rerankTable(
      [o.backbone],
      [listwiseReranker(client, { label: o.label?.(c.id, 'listwise') }), agenticReranker(client, { tools: o.tools, sourceOf: o.sourceOf, label: o.label?.(c.id, 'agentic') })],
      o.qrels,
      { onError: 'skip' },
    );
    runs.push({ model: c.id, table: t });
  }
  return agenticPairsOf(runs);
}

/** Table 6 from per-model tables of [single-shot, agentic] (in that order): the models where both ran, the errors of the rest, and their tables merged. */
export function agenticPairsOf(runs: readonly { model: string; table: RerankTable }[]): { pairs: AgenticPair[]; errors: string[]; table: RerankTable } {
  const pairs: AgenticPair[] = [];
  const errors: string[] = [];
  const tables: RerankTable[] = [];
  for (const { model, table: t } of runs) {
    for (const e of t.errors) errors.push(`${e.label}: ${e.error}`);
    if (t.outcomes.length === 2) {
      pairs.push({ model, singleShot: t.outcomes[0], agentic: t.outcomes[1] });
      tables.push(t);
    }
  }
  return { pairs, errors, table: tables.length > 0 ? mergeRerankTables(...tables) : { backbones: [], outcomes: [], errors: [] } };
}
