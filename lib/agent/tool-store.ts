import { EoError } from '../errors';
import { openKeyedJsonlLog, type KeyedJsonlLog } from '../llm/store';
import type { LlmMode } from '../llm/types';
import { sha256 } from '../util/hash';
import type { AgentTool, ToolResult } from './types';

/** One recorded tool call: what a live tool answered, so that agent runs replay exactly (same tool text → same LLM request keys). */
export interface ToolRecord {
  key: string;
  tool: string;
  arguments: Record<string, unknown>;
  result: ToolResult;
  timestamp: string;
}

/** Record key of a tool call: hash of tool name and arguments (keys sorted). */
export function toolRecordKey(name: string, args: Record<string, unknown>): string {
  const sorted = Object.fromEntries(Object.keys(args).sort().map((k) => [k, args[k]]));
  return sha256(JSON.stringify([name, sorted])).slice(0, 32);
}

function validateToolRecord(v: unknown, where: string): ToolRecord {
  const r = v as ToolRecord;
  if (!r || typeof r.key !== 'string') throw new EoError('DATA_INVALID', `${where}: field "key" missing`);
  if (typeof r.tool !== 'string') throw new EoError('DATA_INVALID', `${where}: field "tool" missing`);
  if (!r.result || !Array.isArray(r.result.items)) throw new EoError('DATA_INVALID', `${where}: field "result.items" missing or not a list`);
  return r;
}

/** Open (or create on first append) a tool-record log (append-only JSONL, as the LLM record store). */
export function openToolStore(file: string): KeyedJsonlLog<ToolRecord> {
  return openKeyedJsonlLog<ToolRecord>(file, { validate: validateToolRecord, keyOf: (r) => r.key, label: 'tool record store' });
}

/**
 * Wrap a (live) tool with a record store, in the LLM layer's modes: `record` serves known calls from the store
 * and appends new ones, `replay` serves only from the store (a miss is LLM_REPLAY_MISS naming the call), `live`
 * calls the tool and appends. Results are stored before the leakage guard (the guard runs on replay too).
 */
export function recordedTool(tool: AgentTool, store: KeyedJsonlLog<ToolRecord>, mode: LlmMode): AgentTool {
  return {
    spec: tool.spec,
    mode: tool.mode,
    async run(args, ctx) {
      const key = toolRecordKey(tool.spec.name, args);
      const hit = mode !== 'live' ? store.get(key) : undefined;
      if (hit) return hit.result;
      if (mode === 'replay') throw new EoError('LLM_REPLAY_MISS', `no recorded result for tool ${tool.spec.name}(${JSON.stringify(args)}) in ${store.path}`, { key });
      const result = await tool.run(args, ctx);
      store.append({ key, tool: tool.spec.name, arguments: args, result, timestamp: new Date().toISOString() });
      return result;
    },
  };
}
