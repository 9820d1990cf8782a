/** Mapping between the normalised chat types and the OpenAI chat-completions wire format (OpenAI and compatibles). */
import { wireOptions } from './params';
import type { ChatMessage, LlmRecord, ModelConfig, ToolCall, ToolSpec, Usage } from './types';

/** What a provider answer maps to. */
export interface ProviderAnswer {
  text: string;
  toolCalls: ToolCall[];
  stopReason: string;
  model: string;
  usage: Usage;
}

/** OpenAI `messages` from ours: assistant tool calls → `tool_calls` (arguments as JSON strings), tool → `role: tool`. */
export function toOpenAIMessages(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  return messages.map((m) => {
    if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        content: m.content === '' ? null : m.content,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
      };
    }
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    return { role: m.role, content: m.content };
  });
}

export function toOpenAITools(tools: readonly ToolSpec[]): Record<string, unknown>[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

/**
 * Request body for `chat.completions.create` (non-streaming), adapted to what the model accepts (`wireOptions`):
 * the output limit goes as the entry's token-limit field (`max_completion_tokens` for OpenAI, which newer models
 * require; `max_tokens` for compatible servers: vLLM, DeepSeek, Ollama); no `temperature` for models that accept
 * only the default (OpenAI reasoning models); `reasoning_effort` only where accepted.
 */
export function toOpenAIRequest(config: ModelConfig, req: LlmRecord['request']): Record<string, unknown> {
  const w = wireOptions(config, req);
  const body: Record<string, unknown> = {
    model: config.model,
    messages: toOpenAIMessages(req.messages),
  };
  if (w.temperature !== undefined) body.temperature = w.temperature;
  if (req.tools.length > 0 && w.tools) body.tools = toOpenAITools(req.tools);
  if (w.tokenLimit) body[w.tokenLimit.field] = w.tokenLimit.value;
  if (w.reasoningEffort !== undefined) body.reasoning_effort = w.reasoningEffort;
  return body;
}

/** Parse OpenAI tool-call arguments (a JSON string); a non-object or bad JSON gives `{}` plus `argumentsError`. */
export function parseToolArguments(raw: unknown): Pick<ToolCall, 'arguments' | 'argumentsError' | 'rawArguments'> {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) return { arguments: raw as Record<string, unknown> };
  const s = typeof raw === 'string' ? raw : JSON.stringify(raw ?? '');
  if (s.trim() === '') return { arguments: {} };
  try {
    const v = JSON.parse(s);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return { arguments: v };
    return { arguments: {}, argumentsError: 'arguments are JSON but not an object', rawArguments: s };
  } catch (e) {
    return { arguments: {}, argumentsError: `arguments are not valid JSON (${(e as Error).message})`, rawArguments: s };
  }
}

/** Our answer from a `chat.completion` body (first choice). */
export function fromOpenAIResponse(body: any, requestedModel: string): ProviderAnswer {
  if (body === null || typeof body !== 'object' || !Array.isArray(body.choices) || body.choices.length === 0)
    throw new Error(`not a chat.completion body (expected an object with a non-empty "choices" list, got ${describeBody(body)})`);
  const choice = body.choices[0];
  const msg = choice?.message ?? {};
  const content = msg.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: any) => (typeof p?.text === 'string' ? p.text : '')).join('') : '';
  const toolCalls: ToolCall[] = (Array.isArray(msg.tool_calls) ? msg.tool_calls : [])
    .filter((c: any) => c && (c.type === 'function' || c.function))
    .map((c: any, i: number) => ({ id: String(c.id ?? `call_${i}`), name: String(c.function?.name ?? ''), ...parseToolArguments(c.function?.arguments) }));
  return {
    text,
    toolCalls,
    stopReason: String(choice?.finish_reason ?? 'unknown'),
    model: typeof body?.model === 'string' && body.model !== '' ? body.model : requestedModel,
    usage: { inputTokens: Number(body?.usage?.prompt_tokens ?? 0), outputTokens: Number(body?.usage?.completion_tokens ?? 0) },
  };
}

/** A short description of an unexpected response body for error messages. */
export function describeBody(body: unknown): string {
  if (typeof body === 'string') return `text ${JSON.stringify(body.length > 80 ? body.slice(0, 80) + '…' : body)}`;
  if (body === null || typeof body !== 'object') return String(body);
  return `object with keys ${Object.keys(body).slice(0, 8).join(', ') || '(none)'}`;
}
