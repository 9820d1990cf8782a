/**
 * Which P@K judge a notebook runs, from the environment (the judge's counterpart of lib/rerank/llm-plan.ts):
 * `$EO_JUDGE_MODEL` names a model config; without it, replay uses the config with the most recorded judge calls in
 * the store. No judge → the judge columns say "not configured" and why.
 */
import * as fs from 'node:fs';
import { createLlmClient, defaultLlmStorePath, llmModeFromEnv } from '../llm/client';
import { getModelConfig, loadModelsFile, modelAvailability } from '../llm/models';
import { STAND_IN_LABEL, STAND_IN_MODEL, standInConfigIds } from '../llm/standin';
import { openRecordStore } from '../llm/store';
import type { LlmMode, ModelConfig, RecordStore } from '../llm/types';
import { createLlmJudge } from './judge';
import type { LlmJudge } from './types';
import { repoRelativePath } from '../util/paths';

/** Env var: the model config id of the P@K judge (e.g. qwen3.6-35b-a3b-judge). Default: see `llmJudgePlan`. */
export const JUDGE_MODEL_ENV = 'EO_JUDGE_MODEL';

export interface JudgePlan {
  mode: LlmMode;
  storePath: string;
  store: RecordStore | null;
  /** The judge's model config; null when no judge runs here (then `status` says why). */
  config: ModelConfig | null;
  /** `replay (N recorded judge calls)`, `record (…)`, `not configured: …`. */
  status: string;
  /** Judge-stage records of the chosen config in the store. */
  recordedCalls: number;
  /** The judge's records came from the local stand-in server (plumbing, not a model's judgement). */
  standIn: boolean;
  /** Judge cache file (beside the record store). */
  cachePath: string;
}

/** The judge cache beside an LLM record store: `<store>.judge-cache.jsonl` (the run explorer reads its labels). */
export function judgeCachePath(storePath: string): string {
  return storePath.replace(/\.jsonl$/, '') + '.judge-cache.jsonl';
}

/**
 * The judge of a run (see the module comment). In record/live mode the judge runs only when `$EO_JUDGE_MODEL` is
 * set and its key (if it needs one) is present; in replay, only when the store holds judge calls of that config
 * (or, unnamed, of any config). Never shows a key's value.
 */
export function llmJudgePlan(opts: { env?: Record<string, string | undefined> } = {}): JudgePlan {
  const env = opts.env ?? process.env;
  const mode = llmModeFromEnv(env);
  const storePath = defaultLlmStorePath(env);
  const store = mode !== 'live' && (mode === 'record' || fs.existsSync(storePath)) ? openRecordStore(storePath) : null;
  const judged = store ? store.records().filter((r) => r.stage === 'judge') : [];
  const counts = new Map<string, number>();
  for (const r of judged) counts.set(r.configId, (counts.get(r.configId) ?? 0) + 1);
  const standIn = standInConfigIds({ records: () => judged });
  const models = loadModelsFile(undefined, env).models;
  const wanted = env[JUDGE_MODEL_ENV]?.trim() || null;
  const cachePath = judgeCachePath(storePath);
  const base = { mode, storePath, store, cachePath };
  const none = (status: string): JudgePlan => ({ ...base, config: null, status, recordedCalls: 0, standIn: false });
  let id = wanted;
  if (!id) {
    if (mode !== 'replay') return none(`not configured: set ${JUDGE_MODEL_ENV} (e.g. qwen3.6-35b-a3b-judge on a vLLM server) to judge in ${mode} mode`);
    const best = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    if (!best) return none(`not configured: no judge recordings in ${repoRelativePath(storePath)} (set ${JUDGE_MODEL_ENV} and EO_LLM_MODE=record to record some)`);
    id = best[0];
  }
  const config = getModelConfig(id, models);
  if (config.model === STAND_IN_MODEL) standIn.add(id);
  const recorded = counts.get(id) ?? 0;
  const label = standIn.has(id) ? `; ${STAND_IN_LABEL}` : '';
  if (mode === 'replay') {
    if (recorded === 0) return none(`not configured: no recorded judge calls of ${id} in ${repoRelativePath(storePath)}`);
    return { ...base, config, status: `replay (${recorded} recorded judge calls${label})`, recordedCalls: recorded, standIn: standIn.has(id) };
  }
  const avail = modelAvailability([config], { env })[0];
  if (!avail.keySet) return none(`not configured: ${avail.apiKeyEnv} not set for judge ${id}`);
  return { ...base, config, status: `${mode} (${avail.apiKeyEnv ? `key ${avail.apiKeyEnv} set` : 'no key needed'}${label})`, recordedCalls: recorded, standIn: standIn.has(id) };
}

/** The planned judge (client in the plan's mode and store, verdicts cached beside the store), or null when none runs. */
export function plannedJudge(plan: JudgePlan, opts: { env?: Record<string, string | undefined>; log?: (line: string) => void } = {}): LlmJudge | null {
  if (!plan.config) return null;
  const client = createLlmClient(plan.config, { mode: plan.mode, store: plan.store, env: opts.env, log: opts.log });
  return createLlmJudge({ client, cache: plan.cachePath, log: opts.log });
}
