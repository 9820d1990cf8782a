/**
 * The Anthropic vendor: the messages wire format, live calls through `@anthropic-ai/sdk`, and Message Batches
 * (`POST /v1/messages/batches`, poll `processing_status`, stream the `results_url` JSONL).
 */
import Anthropic from '@anthropic-ai/sdk';
import { EoError } from '../../errors';
import { shortHash } from '../../util/hash';
import type { ChatMessage, LlmRecord, ModelConfig, ToolCall, ToolSpec, WireOptions } from '../types';
import { describeBody } from './openai';
import type { LlmProvider, ProviderAnswer, ProviderBatch, ProviderClientOptions, ProviderChatCall } from './types';

/** Anthropic requires `max_tokens`; used when neither the request nor the config sets one. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type Block = Record<string, unknown>;
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
}

/**
 * Anthropic `system` + `messages` from ours: system messages join into `system`; assistant tool calls become
 * `tool_use` blocks; tool results become `tool_result` blocks in a user message (consecutive results, and a user
 * text right after them, share one user message, as the API requires).
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): { system: string | null; messages: AnthropicMessage[] } {
  const system: string[] = [];
  const out: AnthropicMessage[] = [];
  const pushUserBlocks = (blocks: Block[]) => {
    const last = out[out.length - 1];
    if (last && last.role === 'user' && Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result')) {
      last.content.push(...blocks);
    } else out.push({ role: 'user', content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'system') system.push(m.content);
    else if (m.role === 'user') {
      const last = out[out.length - 1];
      if (last && last.role === 'user' && Array.isArray(last.content)) pushUserBlocks([{ type: 'text', text: m.content }]);
      else out.push({ role: 'user', content: m.content });
    } else if (m.role === 'tool') {
      pushUserBlocks([{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }]);
    } else if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      if (calls.length === 0) out.push({ role: 'assistant', content: m.content });
      else {
        const blocks: Block[] = [];
        if (m.content !== '') blocks.push({ type: 'text', text: m.content });
        for (const c of calls) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments });
        out.push({ role: 'assistant', content: blocks });
      }
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : null, messages: out };
}

export function toAnthropicTools(tools: readonly ToolSpec[]): Block[] {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}

/**
 * Request body for `messages.create` (non-streaming), from the request adapted to what the model accepts (`w`, `wireOptions`):
 * `max_tokens` is required (default 4096); extended thinking is off (no `thinking` field) unless the request asks
 * for it and the entry accepts it, and then no temperature is sent (thinking requires the default).
 */
export function toAnthropicRequest(config: ModelConfig, req: LlmRecord['request'], w: WireOptions): Record<string, unknown> {
  const { system, messages } = toAnthropicMessages(req.messages);
  const body: Record<string, unknown> = {
    model: config.model,
    max_tokens: w.tokenLimit?.value ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
  };
  if (w.temperature !== undefined) body.temperature = w.temperature;
  if (w.thinkingBudget !== undefined) body.thinking = { type: 'enabled', budget_tokens: w.thinkingBudget };
  if (system !== null) body.system = system;
  if (req.tools.length > 0 && w.tools) body.tools = toAnthropicTools(req.tools);
  return body;
}

/** Our answer from a `message` body: text blocks joined, `tool_use` blocks → tool calls (thinking blocks skipped). */
export function fromAnthropicResponse(body: any, requestedModel: string): ProviderAnswer {
  if (body === null || typeof body !== 'object' || !Array.isArray(body.content))
    throw new Error(`not a message body (expected an object with a "content" list, got ${describeBody(body)})`);
  const blocks: any[] = body.content;
  const text = blocks.filter((b) => b?.type === 'text').map((b) => String(b.text ?? '')).join('');
  const toolCalls: ToolCall[] = blocks
    .filter((b) => b?.type === 'tool_use')
    .map((b, i) => {
      const input = b.input;
      const ok = input !== null && typeof input === 'object' && !Array.isArray(input);
      return ok
        ? { id: String(b.id ?? `toolu_${i}`), name: String(b.name ?? ''), arguments: input as Record<string, unknown> }
        : { id: String(b.id ?? `toolu_${i}`), name: String(b.name ?? ''), arguments: {}, argumentsError: 'tool_use input is not an object', rawArguments: JSON.stringify(input) };
    });
  const u = body?.usage ?? {};
  return {
    text,
    toolCalls,
    stopReason: String(body?.stop_reason ?? 'unknown'),
    model: typeof body?.model === 'string' && body.model !== '' ? body.model : requestedModel,
    usage: {
      inputTokens: Number(u.input_tokens ?? 0) + Number(u.cache_creation_input_tokens ?? 0) + Number(u.cache_read_input_tokens ?? 0),
      outputTokens: Number(u.output_tokens ?? 0),
    },
  };
}

/** A messages call through `@anthropic-ai/sdk`. */
export function openAnthropicChat(opts: ProviderClientOptions): ProviderChatCall {
  const c = new Anthropic({ ...opts, apiKey: opts.apiKey! });
  return (body) => c.messages.create(body as any) as Promise<unknown>;
}

/** The identity of a batch's requests: a hash of its custom ids (record keys), in any order. */
export function requestKeysHash(keys: Iterable<string>): string {
  return shortHash([...keys].sort().join('\n'), 16);
}

/**
 * Message Batches for one entry. There is no metadata and the list shows no request ids, so `find` takes the batches
 * of the intent's size created since a minute before it, waits for each to end (its results name its custom ids),
 * and adopts the one whose request ids hash to the intent's keys; another store's or model's batch of the same size
 * is never taken.
 */
export function openAnthropicBatch(config: ModelConfig, opts: ProviderClientOptions): ProviderBatch {
  const sdk = new Anthropic({ ...opts, apiKey: opts.apiKey! });
  return {
    async submit(_sid, items) {
      // no SDK retry here (see ProviderBatch.submit)
      const b = await sdk.messages.batches.create({ requests: items.map((it) => ({ custom_id: it.key, params: toAnthropicRequest(config, it.request, it.wire) as any })) }, { maxRetries: 0 });
      return b.id;
    },
    async status(id) {
      const b = await sdk.messages.batches.retrieve(id);
      return { status: b.processing_status, ended: b.processing_status === 'ended' };
    },
    async results(id) {
      const out = new Map<string, { body: unknown } | { error: string }>();
      for await (const r of await sdk.messages.batches.results(id)) {
        const res = r.result as any;
        if (res.type === 'succeeded') out.set(r.custom_id, { body: res.message });
        else if (res.type === 'errored') out.set(r.custom_id, { error: `errored: ${res.error?.error?.message ?? res.error?.message ?? 'error'}` });
        else out.set(r.custom_id, { error: String(res.type) });
      }
      return out;
    },
    async find(s, known, poll) {
      const since = Date.parse(s.at) - 60_000;
      const sized: string[] = [];
      for await (const b of sdk.messages.batches.list({ limit: 100 })) {
        if (Date.parse(b.created_at) < since) break; // newest first
        if (known.has(b.id)) continue;
        const c = b.request_counts;
        if (c.processing + c.succeeded + c.errored + c.canceled + c.expired === s.keys.length) sized.push(b.id);
      }
      const want = requestKeysHash(s.keys);
      /** 'ours' / 'other' from the ended batch's custom ids; 'open' when it did not end within the poll limit. */
      const identify = async (id: string): Promise<'ours' | 'other' | 'open'> => {
        for (let i = 0; ; i++) {
          if ((await sdk.messages.batches.retrieve(id)).processing_status === 'ended') break;
          if (!poll || i + 1 >= poll.maxPolls) return 'open';
          await poll.sleep(poll.intervalMs);
        }
        const ids: string[] = [];
        for await (const r of await sdk.messages.batches.results(id)) ids.push(r.custom_id);
        return requestKeysHash(ids) === want ? 'ours' : 'other';
      };
      const ours: string[] = [];
      const open: string[] = [];
      for (const id of sized) {
        const who = await identify(id);
        if (who === 'ours') ours.push(id);
        else if (who === 'open') open.push(id);
      }
      const fix = `add {"type":"submitted","sid":"${s.sid}","batchId":"<id>"} or {"type":"abandoned","sid":"${s.sid}","reason":"checked"} to the batch log after checking, then resume`;
      if (ours.length > 1) throw new EoError('LLM_BATCH_UNCERTAIN', `batch submission ${s.sid} (${s.keys.length} requests, ${s.at}): batches ${ours.join(', ')} all carry its request ids; ${fix}`, { sid: s.sid, candidates: ours });
      if (ours.length === 1) return ours[0];
      if (open.length > 0)
        throw new EoError('LLM_BATCH_UNCERTAIN', `batch submission ${s.sid} (${s.keys.length} requests, ${s.at}) may have been accepted as ${open.join(', ')}, still in progress: Message Batches show a batch's request ids only when it has ended; resume after it ends, or ${fix}`, { sid: s.sid, candidates: open });
      return null;
    },
  };
}

/**
 * Anthropic (`provider: "anthropic"`): key `ANTHROPIC_API_KEY`, always `max_tokens`, extended thinking instead of
 * `reasoning_effort`, Message Batches.
 */
export const anthropicProvider: LlmProvider = {
  name: 'anthropic',
  defaultApiKeyEnv: 'ANTHROPIC_API_KEY',
  requiresBaseUrl: false,
  acceptsThinking: true,
  // Anthropic: budget_tokens ≥ 1024 and < max_tokens (else a 400 from the API)
  thinkingLimits: { minBudget: 1024, belowMaxTokens: true, defaultMaxTokens: ANTHROPIC_DEFAULT_MAX_TOKENS },
  defaultBatchApi: 'anthropic',
  batchApis: ['anthropic'],
  tokenLimitField: () => 'max_tokens',
  rejectParam(name, value) {
    if (name === 'tokenLimit' && value !== 'max_tokens') return '"max_tokens" (the Anthropic API has no other limit field)';
    if (name === 'reasoningEffort') return 'no reasoningEffort (not an Anthropic parameter; use thinking)';
    return null;
  },
  toRequest: toAnthropicRequest,
  fromResponse: fromAnthropicResponse,
  openChat: openAnthropicChat,
  openBatch: openAnthropicBatch,
};
