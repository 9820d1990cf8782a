import { loadPromptTemplate } from '../util/prompt';
import type { PromptTemplate } from '../util/types';
import { packageFile } from '../util/paths';
import type { Corpus } from '../data/types';
import { EoError } from '../errors';
import type { ChatMessage, LlmClient, ToolCall } from '../llm/types';
import { addCallToTrace, newTrace } from '../rerank/listwise';
import { parseRanking } from '../rerank/parse';
import { fillRerankTemplate, loadListwisePrompt, type CandidateXmlOptions } from '../rerank/prompt';
import type { RerankCandidate, RerankQuery, RerankTrace, Reranker, ToolCallTrace } from '../rerank/types';
import { sha256 } from '../util/hash';
import { applyLeakageGuard, type LeakageGuardOptions } from './guard';
import type { AgentTool, SourcePublication, ToolItem } from './types';

/** The agentic routine prompt (prompts/agentic.md; written from the paper's description, see its header). */
export function loadAgenticPrompt(file = packageFile('agent', 'prompts', 'agentic.md')): PromptTemplate {
  return loadPromptTemplate(file);
}

/** Source publication of a benchmark query, looked up in the corpus (for the leakage guard). */
export function sourcePublicationLookup(corpus: Corpus): (q: RerankQuery) => SourcePublication | null {
  const byId = new Map(corpus.publications.map((p) => [p.id, p]));
  return (q) => {
    const p = q.publicationId ? byId.get(q.publicationId) : undefined;
    return p ? { doi: p.doi, title: p.title } : null;
  };
}

/** Tool items as the model reads them: JSON with title, snippet (cut), DOI, URL, year. */
export function toolItemsText(source: string, items: readonly ToolItem[], snippetChars = 500): string {
  return JSON.stringify({
    source,
    results: items.map((i) => ({
      title: i.title, snippet: i.snippet.length > snippetChars ? `${i.snippet.slice(0, snippetChars)}…` : i.snippet,
      ...(i.doi ? { doi: i.doi } : {}), ...(i.url ? { url: i.url } : {}), ...(i.year ? { year: i.year } : {}),
    })),
  });
}

/** Outcome of one guarded tool call. */
export interface GuardedToolCall {
  items: ToolItem[];
  /** What the model reads. */
  text: string;
  trace: ToolCallTrace;
}

/**
 * Run one tool with the leakage guard: results identifying the query's source publication are removed before
 * anyone sees them (counted in the trace). A failing tool yields an `error:` text, never a thrown error.
 */
export async function callToolGuarded(
  tool: AgentTool | undefined,
  name: string,
  args: Record<string, unknown>,
  ctx: { queryId: string; source: SourcePublication | null; guard?: boolean; guardOptions?: LeakageGuardOptions; signal?: AbortSignal },
): Promise<GuardedToolCall> {
  const t0 = performance.now();
  const done = (items: ToolItem[], text: string, removed: number, error?: string): GuardedToolCall => ({
    items, text,
    trace: { name, arguments: args, resultDigest: sha256(text).slice(0, 16), results: items.length, removedByGuard: removed, latencyMs: performance.now() - t0, ...(error ? { error } : {}) },
  });
  if (!tool) return done([], `error: unknown tool "${name}"`, 0, 'unknown tool');
  try {
    const res = await tool.run(args, { queryId: ctx.queryId, signal: ctx.signal });
    const { kept, removed } = ctx.guard === false ? { kept: res.items, removed: [] } : applyLeakageGuard(res.items, ctx.source, ctx.guardOptions);
    return done(kept, toolItemsText(res.source, kept), removed.length);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return done([], `error: ${msg}`, 0, msg);
  }
}

export interface AgentOptions extends CandidateXmlOptions {
  /** Tools offered to the model (native tool calling). */
  tools: AgentTool[];
  /** Source publication of a query (leakage guard); default none (guard inactive). */
  sourceOf?: (q: RerankQuery) => SourcePublication | null;
  /** Apply the leakage guard. Default true. */
  guard?: boolean;
  guardOptions?: LeakageGuardOptions;
  /** Most assistant turns that may call tools; then one final call without tools. Default 4. */
  maxToolRounds?: number;
  /** Stop offering tools once input + output tokens of this query exceed this. Default 60000. */
  maxTokens?: number;
  /** Stop offering tools after this much wall time per query (ms). Default 120000. */
  maxWallMs?: number;
  /** Output token limit per call. Default 2048. */
  maxOutputTokens?: number;
  /** Listwise prompt. Default loadListwisePrompt(). */
  listwisePrompt?: PromptTemplate;
  /** Routine prompt. Default loadAgenticPrompt(). */
  agenticPrompt?: PromptTemplate;
  id?: string;
  label?: string;
}

/**
 * The messages the agent starts from: the listwise system prompt (role, rules, output contract) followed by the
 * five-step routine; the listwise user prompt followed by the routine's reminder.
 */
export function agentMessages(listwise: PromptTemplate, routine: PromptTemplate, query: RerankQuery, window: readonly RerankCandidate[], opts: CandidateXmlOptions = {}): ChatMessage[] {
  const p = fillRerankTemplate(listwise, query.text, window, opts);
  return [
    { role: 'system', content: `${p.system}\n\n${routine.system}` },
    { role: 'user', content: `${p.user}\n\n${routine.user}` },
  ];
}

/**
 * Agentic listwise reranker (the paper's Table 6): the listwise prompt with the five-step routine, tools through
 * the provider's native tool calling, a bounded loop (tool rounds, tokens, wall time), then the same output
 * contract and parser as single-shot. Every tool result passes the leakage guard; everything goes in the trace.
 */
export function agenticReranker(client: LlmClient, opts: AgentOptions): Reranker {
  const listwise = opts.listwisePrompt ?? loadListwisePrompt();
  const routine = opts.agenticPrompt ?? loadAgenticPrompt();
  const id = opts.id ?? `agent-${client.config.id}`;
  const tools = new Map(opts.tools.map((t) => [t.spec.name, t]));
  if (tools.size !== opts.tools.length) throw new EoError('CONFIG', 'agenticReranker: two tools with the same name');
  const maxRounds = opts.maxToolRounds ?? 4;
  const maxTokens = opts.maxTokens ?? 60000;
  const maxWall = opts.maxWallMs ?? 120000;
  return {
    id,
    label: opts.label ?? `agentic rerank (${client.config.id})`,
    kind: 'agent',
    async rerank(query, window) {
      const trace: RerankTrace = newTrace(id, query.id, window.length);
      const source = opts.sourceOf?.(query) ?? null;
      const messages = agentMessages(listwise, routine, query, window, opts);
      const t0 = Date.now();
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), maxWall);
      try {
        const exhausted = () =>
          trace.toolRounds >= maxRounds ? 'max-rounds' : trace.inputTokens + trace.outputTokens >= maxTokens ? 'max-tokens' : Date.now() - t0 >= maxWall ? 'wall-time' : null;
        for (;;) {
          const budget = exhausted();
          const res = await client.chat({
            messages,
            tools: budget ? undefined : opts.tools.map((t) => t.spec),
            temperature: 0,
            maxTokens: opts.maxOutputTokens ?? 2048,
            stage: 'agentic', // not part of the record key: recordings made before keep replaying
          });
          addCallToTrace(trace, res);
          if (res.toolCalls.length === 0 || budget) {
            const parsed = parseRanking(res.text, window.length);
            trace.repairs = parsed.repairs;
            trace.ranked = parsed.ranked;
            trace.stopReason = budget ?? 'final';
            if (parsed.failed) trace.notes.push('unparseable final answer: window kept in retrieval order');
            return { ranked: parsed.ranked, trace };
          }
          trace.toolRounds++;
          messages.push({ role: 'assistant', content: res.text, toolCalls: res.toolCalls });
          for (const call of res.toolCalls as ToolCall[]) {
            const args = call.argumentsError ? {} : call.arguments;
            const out = call.argumentsError
              ? { text: `error: could not parse the arguments (${call.argumentsError})`, trace: { name: call.name, arguments: {}, resultDigest: '', results: 0, removedByGuard: 0, latencyMs: 0, error: call.argumentsError } as ToolCallTrace }
              : await callToolGuarded(tools.get(call.name), call.name, args, { queryId: query.id, source, guard: opts.guard, guardOptions: opts.guardOptions, signal: abort.signal });
            trace.toolCalls.push(out.trace);
            messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: out.text });
          }
          const next = exhausted();
          if (next) messages.push({ role: 'user', content: `Tool budget exhausted (${next}). Give your final answer now: only the JSON object {"ranked": [ids]}.` });
        }
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
