import type { PromptTemplate } from '../util/types';
import type { ChatMessage, ChatRequest, ChatResponse, LlmClient } from '../llm/types';
import type { BackboneList } from './compose';
import { emptyRepairs, parseRanking } from './parse';
import { fillRerankTemplate, loadListwisePrompt, type CandidateXmlOptions } from './prompt';
import type { RerankCandidate, RerankQuery, RerankTrace, Reranker } from './types';

export interface ListwiseRerankerOptions extends CandidateXmlOptions {
  /** Prompt template. Default `loadListwisePrompt()` (prompts/listwise.md). */
  prompt?: PromptTemplate;
  /** Output token limit. Default 1024 (reasoning models that think aloud may need more). */
  maxTokens?: number;
  /** Temperature. Default 0 (the paper's). */
  temperature?: number;
  /** Run tag. Default `llm-<config id>`. */
  id?: string;
  /** Table label. Default `LLM rerank (<config id>)`. */
  label?: string;
}

/** A trace with nothing in it yet (filled by the reranker that owns it). */
export function newTrace(reranker: string, queryId: string, windowSize: number): RerankTrace {
  return {
    reranker, queryId, windowStart: 0, windowSize, calls: 0, repairs: emptyRepairs(), toolCalls: [], toolRounds: 0,
    inputTokens: 0, outputTokens: 0, costUsd: 0, latencyMs: 0, ranked: [], recordKeys: [], notes: [],
  };
}

/** Add one LLM response's usage, cost, latency and record key to a trace. */
export function addCallToTrace(trace: RerankTrace, res: ChatResponse): void {
  trace.calls++;
  trace.inputTokens += res.usage.inputTokens;
  trace.outputTokens += res.usage.outputTokens;
  trace.costUsd += res.costUsd;
  trace.latencyMs += res.latencyMs;
  trace.recordKeys.push(res.recordKey);
}

/** The messages of a single-shot listwise request. */
export function listwiseMessages(tpl: PromptTemplate, query: RerankQuery, window: readonly RerankCandidate[], opts: CandidateXmlOptions = {}): ChatMessage[] {
  const p = fillRerankTemplate(tpl, query.text, window, opts);
  return [
    { role: 'system', content: p.system },
    { role: 'user', content: p.user },
  ];
}

/**
 * The chat request of one listwise window, exactly as the reranker sends it (so a batch run, a cost plan or an
 * imported payload computes the same record key): temperature 0, output limit 1024 unless the options say otherwise.
 */
export function listwiseChatRequest(tpl: PromptTemplate, query: RerankQuery, window: readonly RerankCandidate[], opts: ListwiseRerankerOptions = {}): ChatRequest {
  return { messages: listwiseMessages(tpl, query, window, opts), temperature: opts.temperature ?? 0, maxTokens: opts.maxTokens ?? 1024, stage: 'listwise' };
}

/**
 * The listwise requests of a single-round rerank (the paper's: the top `window` of each backbone list, default 10)
 * for batch submission with `runBatch`; a later replay-mode `listwiseReranker` finds every answer in the store.
 */
export function listwiseBatchRequests(lists: readonly BackboneList[], opts: ListwiseRerankerOptions & { window?: number } = {}): ChatRequest[] {
  const tpl = opts.prompt ?? loadListwisePrompt();
  return lists.filter((l) => l.candidates.length > 0).map((l) => listwiseChatRequest(tpl, l.query, l.candidates.slice(0, opts.window ?? 10), opts));
}

/**
 * Single-shot listwise LLM reranker (the paper's Tables 4–5): one chat call per window with the listwise prompt,
 * the answer parsed by `parseRanking` (every repair counted in the trace). A failed parse leaves the window in
 * retrieval order. Calls go through the client, so they are recorded / replayed by its store.
 */
export function listwiseReranker(client: LlmClient, opts: ListwiseRerankerOptions = {}): Reranker {
  const tpl = opts.prompt ?? loadListwisePrompt();
  const id = opts.id ?? `llm-${client.config.id}`;
  return {
    id,
    label: opts.label ?? `LLM rerank (${client.config.id})`,
    kind: 'llm',
    async rerank(query, window) {
      const trace = newTrace(id, query.id, window.length);
      const res = await client.chat(listwiseChatRequest(tpl, query, window, opts));
      addCallToTrace(trace, res);
      const parsed = parseRanking(res.text, window.length);
      trace.repairs = parsed.repairs;
      trace.ranked = parsed.ranked;
      trace.stopReason = res.stopReason;
      if (parsed.failed) trace.notes.push('unparseable answer: window kept in retrieval order');
      return { ranked: parsed.ranked, trace };
    },
  };
}
