/**
 * The OpenAI vendor: the chat-completions wire format (shared with every OpenAI-compatible server, see
 * openai-compatible.ts), live calls through the `openai` SDK, and the OpenAI Batch protocol (JSONL file upload with
 * purpose `batch`, `POST /v1/batches`, poll, download `output_file_id` and `error_file_id`).
 */
import OpenAI, { toFile } from 'openai';
import type { ChatMessage, LlmRecord, ModelConfig, ModelParams, ToolCall, ToolSpec, WireOptions } from '../types';
import type { LlmProvider, ProviderAnswer, ProviderBatch, ProviderClientOptions, ProviderChatCall } from './types';

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
 * Request body for `chat.completions.create` (non-streaming), from the request adapted to what the model accepts (`w`, `wireOptions`):
 * the output limit goes as the entry's token-limit field (`max_completion_tokens` for OpenAI, which newer models
 * require; `max_tokens` for compatible servers: vLLM, DeepSeek, Ollama); no `temperature` for models that accept
 * only the default (OpenAI reasoning models); `reasoning_effort` only where accepted.
 */
export function toOpenAIRequest(config: ModelConfig, req: LlmRecord['request'], w: WireOptions): Record<string, unknown> {
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

/** Placeholder key for OpenAI-compatible servers that need none (vLLM, Ollama, llama.cpp). */
const NO_KEY_PLACEHOLDER = 'EMPTY';

/** A chat-completions call through the `openai` SDK (OpenAI, or any compatible server at `opts.baseURL`). */
export function openOpenAIChat(opts: ProviderClientOptions): ProviderChatCall {
  const c = new OpenAI({ ...opts, apiKey: opts.apiKey ?? NO_KEY_PLACEHOLDER });
  return (body) => c.chat.completions.create(body as any) as Promise<unknown>;
}

const OPENAI_ENDED = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** The OpenAI Batch protocol for one entry (its lines are chat-completions bodies, `toOpenAIRequest`). */
export function openOpenAIBatch(config: ModelConfig, opts: ProviderClientOptions): ProviderBatch {
  const sdk = new OpenAI(opts);
  return {
    async submit(sid, items, onUploaded) {
      const jsonl = items.map((it) => JSON.stringify({ custom_id: it.key, method: 'POST', url: '/v1/chat/completions', body: toOpenAIRequest(config, it.request, it.wire) })).join('\n') + '\n';
      const file = await sdk.files.create({ file: await toFile(Buffer.from(jsonl, 'utf8'), `eo-${sid}.jsonl`, { type: 'application/jsonl' }), purpose: 'batch' });
      onUploaded(file.id);
      // no SDK retry here: a retried create could make a second batch; an unanswered create is resolved on resume
      const b = await sdk.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { eo_sid: sid } }, { maxRetries: 0 });
      return b.id;
    },
    async status(id) {
      const b = await sdk.batches.retrieve(id);
      return { status: b.status, ended: OPENAI_ENDED.has(b.status) };
    },
    async results(id) {
      const b = await sdk.batches.retrieve(id);
      const out = new Map<string, { body: unknown } | { error: string }>();
      const read = async (fileId: string | null | undefined) => {
        if (!fileId) return;
        const text = await (await sdk.files.content(fileId)).text();
        for (const line of text.split('\n')) {
          if (line.trim() === '') continue;
          const row = JSON.parse(line) as { custom_id: string; response?: { status_code: number; body: any } | null; error?: { code?: string; message?: string } | null };
          if (row.response && row.response.status_code === 200) out.set(row.custom_id, { body: row.response.body });
          else if (row.response) out.set(row.custom_id, { error: `HTTP ${row.response.status_code}: ${row.response.body?.error?.message ?? 'error'}` });
          else out.set(row.custom_id, { error: `${row.error?.code ?? 'error'}: ${row.error?.message ?? 'no response'}` });
        }
      };
      await read(b.output_file_id);
      await read(b.error_file_id);
      if (b.status === 'failed' && out.size === 0) {
        const why = (b.errors?.data ?? []).map((e) => `${e.code}: ${e.message}`).join('; ') || 'batch failed';
        out.set('*', { error: why });
      }
      return out;
    },
    async find(s, known) {
      for await (const b of sdk.batches.list({ limit: 100 })) {
        if (known.has(b.id)) continue;
        if ((b.metadata as Record<string, string> | null)?.eo_sid === s.sid) return b.id;
        if (b.created_at * 1000 < Date.parse(s.at) - 3_600_000) break; // listed newest first: older ones cannot be it
      }
      return null;
    },
  };
}

/** The check of `params` shared by OpenAI and its compatibles: extended thinking is Anthropic's. */
export function rejectOpenAIParam(name: keyof ModelParams, value: unknown): string | null {
  return name === 'thinking' && value === true ? 'false (extended thinking is an Anthropic parameter)' : null;
}

/** OpenAI (`provider: "openai"`): key `OPENAI_API_KEY`, `max_completion_tokens` (newer models require it), OpenAI Batch. */
export const openaiProvider: LlmProvider = {
  name: 'openai',
  defaultApiKeyEnv: 'OPENAI_API_KEY',
  requiresBaseUrl: false,
  acceptsThinking: false,
  defaultBatchApi: 'openai',
  batchApis: ['openai'],
  tokenLimitField: (params) => params.tokenLimit ?? 'max_completion_tokens',
  rejectParam: rejectOpenAIParam,
  toRequest: toOpenAIRequest,
  fromResponse: fromOpenAIResponse,
  openChat: openOpenAIChat,
  openBatch: openOpenAIBatch,
};
