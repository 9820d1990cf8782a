import { defaultLlmStorePath, llmModeFromEnv, LLM_MODE_ENV, LLM_STORE_ENV } from '../llm/client';
import { loadModelsFile, modelAvailability } from '../llm/models';
import { STAND_IN_LABEL, STAND_IN_MODEL, standInConfigIds } from '../llm/standin';
import { openRecordStore } from '../llm/store';
import type { LlmMode, ModelConfig, RecordStore } from '../llm/types';
import * as fs from 'node:fs';

/** Env var: comma-separated model ids to rerank with. Default: see `llmRerankPlan`. */
export const RERANK_MODELS_ENV = 'EO_RERANK_MODELS';

/** One model's row in a notebook's "which LLMs run here" table. */
export interface LlmPlanRow {
  model: string;
  provider: string;
  snapshot: string;
  /** `replay (N recorded calls)`, `record (key set)`, `not configured: …`. */
  status: string;
  runs: boolean;
  /** Recorded calls of rerank stages (listwise, agentic, or no stage given; judge and writer calls not counted). */
  recordedCalls: number;
  /** The model is the local stand-in server, or its records came from it (plumbing, not a model's judgement). */
  standIn: boolean;
}

export interface LlmPlan {
  mode: LlmMode;
  storePath: string;
  /** Store opened when it exists (or when recording); null otherwise. */
  store: RecordStore | null;
  rows: LlmPlanRow[];
  /** Configs of the models that run. */
  configs: ModelConfig[];
  /** Shell commands that fill the LLM rows with one's own keys. */
  howTo: string[];
}

/**
 * Which models a rerank notebook runs, from the environment: mode `$EO_LLM_MODE` (default replay), store
 * `$EO_LLM_STORE`, models `$EO_RERANK_MODELS` (comma list). Default selection: in replay, every model with
 * recorded calls; in record/live, every model whose key variable is set (keyless local servers only when named in
 * `$EO_RERANK_MODELS`). Never shows a key's value.
 */
export function llmRerankPlan(opts: { env?: Record<string, string | undefined>; notebook?: string } = {}): LlmPlan {
  const env = opts.env ?? process.env;
  const mode = llmModeFromEnv(env);
  const storePath = defaultLlmStorePath(env);
  const store = mode !== 'live' && (mode === 'record' || fs.existsSync(storePath)) ? openRecordStore(storePath) : null;
  const models = loadModelsFile(undefined, env).models;
  // judge and writer calls in the same store do not make a model a reranker
  const rerankStore = store ? { records: () => store.records().filter((r) => r.stage !== 'judge' && r.stage !== 'writer') } : null;
  const avail = modelAvailability(models, { store: rerankStore as RecordStore | null, env });
  // the stand-in's records, or the stand-in itself (recording against it)
  const standIn = standInConfigIds(rerankStore);
  for (const m of models) if (m.model === STAND_IN_MODEL) standIn.add(m.id);
  const wanted = env[RERANK_MODELS_ENV]?.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const rows: LlmPlanRow[] = avail.map((a) => {
    // default in record/live: models whose key is set; keyless local servers (vLLM, Ollama) only when named
    const selected = wanted ? wanted.includes(a.id) : mode === 'replay' ? a.recordedCalls > 0 : a.keySet && a.apiKeyEnv !== null;
    let status: string;
    if (mode === 'replay') status = a.recordedCalls > 0 ? `replay (${a.recordedCalls} recorded calls${standIn.has(a.id) ? `; ${STAND_IN_LABEL}` : ''})` : `not configured: no recordings (record with ${a.apiKeyEnv ?? 'a local server'})`;
    else status = a.keySet ? `${mode} (${a.apiKeyEnv ? `key ${a.apiKeyEnv} set` : 'no key needed'})` : `not configured: ${a.apiKeyEnv} not set`;
    const runs = selected && (mode === 'replay' ? a.recordedCalls > 0 : a.keySet);
    return { model: a.id, provider: a.provider, snapshot: a.model, status: wanted && !wanted.includes(a.id) ? `not selected (${status})` : status, runs, recordedCalls: a.recordedCalls, standIn: standIn.has(a.id) };
  });
  const nb = opts.notebook ?? '06-llm-rerank';
  return {
    mode, storePath, store, rows,
    configs: models.filter((m) => rows.find((r) => r.model === m.id)?.runs),
    howTo: [
      `export OPENAI_API_KEY=…            # and/or ANTHROPIC_API_KEY=…, DEEPSEEK_API_KEY=…; local vLLM/Ollama need none`,
      `EO_LLM_MODE=record ${RERANK_MODELS_ENV}=gpt-5.5,claude-opus-4-7 npm start -- --only ${nb}   # calls the APIs, records every call (resumable)`,
      `npm start -- --only ${nb}           # afterwards: replay from ${process.env[LLM_STORE_ENV] ? `$${LLM_STORE_ENV}` : 'recordings/llm/records.jsonl'}, no key, no cost`,
      `(${LLM_MODE_ENV}=replay|record|live, ${LLM_STORE_ENV}=/path/records.jsonl, LLM_MODELS_FILE=/path/models.json)`,
    ],
  };
}

/**
 * The table label of a model's listwise (or agentic) reranker: `LLM rerank (<id>)`, and for a model whose records
 * came from the stand-in server, `… (<id>: stand-in server: plumbing, not a model's judgement)`.
 */
export function llmRerankerLabel(plan: Pick<LlmPlan, 'rows'>, configId: string, kind: 'listwise' | 'agentic' = 'listwise'): string {
  const what = kind === 'agentic' ? 'agentic rerank' : 'LLM rerank';
  return plan.rows.find((r) => r.model === configId)?.standIn ? `${what} (${configId}: ${STAND_IN_LABEL})` : `${what} (${configId})`;
}
