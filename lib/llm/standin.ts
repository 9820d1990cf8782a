/**
 * The local stand-in server (scripts/record-standin.cjs, test/servers/stand-in.ts): an OpenAI-compatible server
 * that answers listwise, agentic and judge prompts by word overlap, so that a recording made against it exercises
 * every LLM code path of notebooks 06/07 (record, replay, parse, judge columns) with no key. Its answers are
 * plumbing, not a model's judgement: it reports STAND_IN_MODEL as its model name, and every table built from its
 * records says so (STAND_IN_LABEL).
 */
import type { LlmRecord, RecordStore } from './types';

/** Model name the stand-in server reports in every response (and the `stand-in` entry of models.json requests). */
export const STAND_IN_MODEL = 'eo-stand-in-plumbing';

/** Model config id of the stand-in server in lib/llm/models.json. */
export const STAND_IN_CONFIG_ID = 'stand-in';

/** What rows built from stand-in records are labelled with. */
export const STAND_IN_LABEL = "stand-in server: plumbing, not a model's judgement";

/** Whether a record came from the stand-in server (by the model it requested or the model the server reported). */
export function isStandInRecord(r: Pick<LlmRecord, 'requestedModel' | 'response'>): boolean {
  return r.requestedModel === STAND_IN_MODEL || r.response?.model === STAND_IN_MODEL;
}

/** Config ids whose records in the store came from the stand-in server (empty without a store). */
export function standInConfigIds(store: Pick<RecordStore, 'records'> | null | undefined): Set<string> {
  const out = new Set<string>();
  for (const r of store?.records() ?? []) if (isStandInRecord(r)) out.add(r.configId);
  return out;
}
