import { loadPromptTemplate } from '../util/prompt';
import type { PromptTemplate } from '../util/types';
import { packageFile } from '../util/paths';
import { EoError } from '../errors';
import { decideTools } from './decide';
import { parseQuery } from './parse';
import { finishRoute, type RouterConfig } from './route';
import { TOOL_NAMES, type ParsedQuery, type RouteOptions, type RouteResult, type RouterLlmClient, type ToolDecision, type ToolName } from './types';

/** One line per tool, shown to the LLM. */
export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  worldview: 'worldview: NASA Worldview, interactive satellite imagery maps for a date and area (visualise, look at an event).',
  giovanni: 'giovanni: NASA Giovanni, maps and time series of a geophysical variable over an area and period (trends, averages).',
  harmony: 'harmony: NASA Harmony, subsetting/reformatting/downloading a collection by area, time and variable.',
  sde: 'sde: NASA Science Discovery Engine, background, explanations, events, publications and documents.',
  'earthdata-search': 'earthdata-search: NASA Earthdata Search, finding and downloading data collections and granules.',
};

/**
 * The LLM router prompt, lib/router/prompts/router.md, in the one prompt-file format (===SYSTEM=== and
 * ===USER=== sections, HTML comments dropped; lib/util/prompt.ts).
 */
export function loadRouterPrompt(file = packageFile('router', 'prompts', 'router.md')): PromptTemplate {
  return loadPromptTemplate(file);
}

/**
 * Parse the LLM's reply: the first JSON object in the text (code fences and chatter around it are ignored), with a
 * `tools` array of `{tool, confidence, fullyAnswers, why}`; unknown tool names are dropped, confidences clamped.
 * Throws INVALID_ARGUMENT when there is no usable object.
 */
export function parseRouterReply(text: string): { tool: ToolName; confidence: number; fullyAnswers: boolean; why: string }[] {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new EoError('INVALID_ARGUMENT', 'LLM router reply has no JSON object');
  let obj: any;
  try {
    obj = JSON.parse(text.slice(start, end + 1));
  } catch (e) {
    throw new EoError('INVALID_ARGUMENT', `LLM router reply is not valid JSON (${(e as Error).message})`);
  }
  if (!obj || !Array.isArray(obj.tools)) throw new EoError('INVALID_ARGUMENT', 'LLM router reply lacks a "tools" array');
  const out: { tool: ToolName; confidence: number; fullyAnswers: boolean; why: string }[] = [];
  for (const t of obj.tools) {
    const name = typeof t === 'string' ? t : t?.tool;
    if (!TOOL_NAMES.includes(name) || out.some((o) => o.tool === name)) continue;
    const c = Number(t?.confidence);
    out.push({ tool: name, confidence: Number.isFinite(c) ? Math.max(0, Math.min(1, c)) : 0.7, fullyAnswers: t?.fullyAnswers === true, why: typeof t?.why === 'string' ? t.why.slice(0, 300) : '' });
  }
  return out;
}

export interface LlmRouteOptions extends RouteOptions, RouterConfig {
  /** The LLM client (lib/llm's LlmClient, or any object with `chat({messages, temperature}) → {text}`). */
  client: RouterLlmClient;
  /** Sampling temperature. Default 0. */
  temperature?: number;
  /** Prompt; default loadRouterPrompt(). */
  prompt?: PromptTemplate;
}

/**
 * The LLM's tool decisions for an already parsed query (routing before retrieval: no candidates are needed). A reply
 * that cannot be parsed falls back to the rule decisions, and `notes` says so. Calls go through the injected client
 * (which records them).
 */
export async function decideToolsLlm(
  parsed: ParsedQuery, opts: Omit<LlmRouteOptions, 'now'> & { retrievalFollows?: boolean },
): Promise<{ decisions: ToolDecision[]; notes: string[]; router: string }> {
  const prompt = opts.prompt ?? loadRouterPrompt();
  const tools = TOOL_NAMES.map((t) => `- ${TOOL_DESCRIPTIONS[t]}`).join('\n');
  const fill = (s: string) => s.replace(/\{\{TOOLS\}\}/g, tools).replace(/\{\{QUERY\}\}/g, parsed.text);
  const reply = await opts.client.chat({
    messages: [{ role: 'system', content: fill(prompt.system) }, { role: 'user', content: fill(prompt.user) }],
    temperature: opts.temperature ?? 0,
  });
  const notes: string[] = [];
  const minConf = opts.minConfidence ?? 0.5;
  let decisions: ToolDecision[];
  try {
    const chosen = parseRouterReply(reply.text);
    decisions = TOOL_NAMES.map((tool) => {
      const c = chosen.find((x) => x.tool === tool);
      return c
        ? { tool, applies: c.confidence >= minConf, confidence: c.confidence, fullyAnswers: c.fullyAnswers && c.confidence >= minConf, rule: 'llm', evidence: [{ kind: 'llm' as const, detail: c.why || 'chosen by the LLM' }] }
        : { tool, applies: false, confidence: 0, fullyAnswers: false, rule: 'llm.none', evidence: [] };
    });
  } catch (e) {
    notes.push(`LLM reply unusable (${(e as Error).message}); rule-based decisions used instead`);
    decisions = decideTools(parsed, { resolveShortName: opts.resolveShortName, candidates: opts.candidates ?? [], retrievalFollows: opts.retrievalFollows, minConfidence: minConf });
  }
  return { decisions, notes, router: `llm${reply.model ? `:${reply.model}` : ''}` };
}

/**
 * LLM router: the LLM chooses the tools (and whether they fully answer); the rule-based parser still supplies the
 * period, places and variables that the actions are built from. A reply that cannot be parsed falls back to the
 * rule decisions, and the result's notes say so. Calls go through the injected client (which records them).
 */
export async function routeQueryLlm(text: string, opts: LlmRouteOptions): Promise<RouteResult> {
  const now = opts.now ?? new Date();
  const parsed = parseQuery(text, { now });
  const candidates = opts.candidates ?? [];
  const { decisions, notes, router } = await decideToolsLlm(parsed, { ...opts, candidates });
  return finishRoute(parsed, decisions, { ...opts, now, candidates, router, notes });
}
