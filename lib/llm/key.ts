import { sha256 } from '../util/hash';
import type { ChatMessage, ChatRequest, LlmRecord, ModelConfig, ToolSpec } from './types';

/** JSON with object keys sorted at every level and `undefined` members dropped: equal values → equal strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : sortKeys(x)));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as Record<string, unknown>).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/**
 * The request as recorded and hashed: defaults resolved (temperature: the config's `defaultTemperature`, else 0;
 * sample 0; maxTokens from the config or null; reasoning effort from the config when it sets one).
 */
export function normalizeChatRequest(config: ModelConfig, req: ChatRequest): LlmRecord['request'] {
  const messages: ChatMessage[] = req.messages.map((m) => {
    if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      return calls.length > 0
        ? { role: 'assistant', content: m.content, toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) }
        : { role: 'assistant', content: m.content };
    }
    if (m.role === 'tool') return { role: 'tool', toolCallId: m.toolCallId, name: m.name, content: m.content };
    return { role: m.role, content: m.content };
  });
  const tools: ToolSpec[] = (req.tools ?? []).map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  const out: LlmRecord['request'] = {
    messages,
    tools,
    temperature: req.temperature ?? config.defaultTemperature ?? 0,
    maxTokens: req.maxTokens ?? config.maxTokens ?? null,
    sample: req.sample ?? 0,
  };
  // optional members only when set, so that requests without them keep their record keys
  const effort = req.reasoningEffort ?? config.reasoningEffort;
  if (effort !== undefined) out.reasoningEffort = effort;
  if (req.thinking !== undefined) out.thinking = { budgetTokens: req.thinking.budgetTokens };
  return out;
}

/**
 * Record key of a request: SHA-256 (first 32 hex) over the model config id, the snapshot id and the normalised
 * request (messages, tools, temperature, maxTokens, sample). The base URL and the key are not part of it.
 */
export function llmRecordKey(config: ModelConfig, req: ChatRequest | LlmRecord['request']): string {
  const n = normalizeChatRequest(config, req as ChatRequest);
  return sha256(canonicalJson({ v: 1, configId: config.id, model: config.model, request: n })).slice(0, 32);
}

/** A short human description of a request for error messages: key, config and the first user message (excerpt). */
export function describeChatRequest(config: ModelConfig, req: ChatRequest, key: string, excerptChars = 120): string {
  const firstUser = req.messages.find((m) => m.role === 'user');
  const text = firstUser ? firstUser.content.replace(/\s+/g, ' ').trim() : '';
  const excerpt = text.length > excerptChars ? `${text.slice(0, excerptChars)}…` : text;
  return `key ${key}, model ${config.id} (${config.model}), sample ${req.sample ?? 0}, ${req.messages.length} message(s), first user message: "${excerpt}"`;
}
