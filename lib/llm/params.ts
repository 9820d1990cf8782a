/**
 * What a model accepts on the wire (ModelConfig.params) and how a normalised request is adapted to it: options the
 * model does not accept are dropped or mapped, each with a note that is kept in the record; they are never sent.
 */
import { EoError } from '../errors';
import { providerFor } from './providers';
import type { LlmRecord, ModelConfig, TokenLimitField } from './types';

/** The wire options of one request after adaptation to the model's accepted parameters. */
export interface WireOptions {
  /** Temperature to send (undefined: none sent). */
  temperature?: number;
  /** Token-limit field and value (undefined: none sent; Anthropic then uses its required default). */
  tokenLimit?: { field: TokenLimitField; value: number };
  /** `reasoning_effort` to send (undefined: none). */
  reasoningEffort?: string;
  /** Anthropic `thinking` budget (undefined: thinking off, no field sent). */
  thinkingBudget?: number;
  /** Whether tools may be sent. */
  tools: boolean;
  /** One line per option dropped or mapped (empty when the request was sent as asked). */
  notes: string[];
}

/** The token-limit field of a config: its vendor's choice (`LlmProvider.tokenLimitField`; OpenAI's default `max_completion_tokens`, else `max_tokens`). */
export function tokenLimitField(config: ModelConfig): TokenLimitField {
  return providerFor(config.provider).tokenLimitField(config.params ?? {});
}

/** Adapt a normalised request to what the model accepts (see the module comment). */
export function wireOptions(config: ModelConfig, req: LlmRecord['request']): WireOptions {
  const p = config.params ?? {};
  const notes: string[] = [];
  const out: WireOptions = { tools: p.tools ?? true, notes };
  const thinkingAsked = req.thinking !== undefined;
  const thinkingOk = p.thinking === true && providerFor(config.provider).acceptsThinking;
  if (thinkingAsked && !thinkingOk) notes.push(`thinking (budget ${req.thinking!.budgetTokens}) not sent: ${config.id} does not accept extended thinking`);
  if (thinkingAsked && thinkingOk) out.thinkingBudget = req.thinking!.budgetTokens;
  const tempMode = p.temperature ?? 'any';
  if (tempMode === 'default-only') notes.push(`temperature ${req.temperature} not sent: ${config.id} accepts only its default temperature`);
  else if (tempMode === 'effort-none-only' && req.reasoningEffort !== 'none')
    notes.push(`temperature ${req.temperature} not sent: ${config.id} accepts a temperature only with reasoning_effort none (requested: ${req.reasoningEffort ?? 'the API default'})`);
  else if (out.thinkingBudget !== undefined) notes.push(`temperature ${req.temperature} not sent: Anthropic extended thinking requires the default temperature`);
  else out.temperature = req.temperature;
  if (req.maxTokens !== null) out.tokenLimit = { field: tokenLimitField(config), value: req.maxTokens };
  if (out.thinkingBudget !== undefined) checkThinkingBudget(config, out.thinkingBudget, out.tokenLimit?.value);
  if (req.reasoningEffort !== undefined) {
    const allowed = p.reasoningEffort ?? [];
    if (allowed.includes(req.reasoningEffort)) out.reasoningEffort = req.reasoningEffort;
    else if (allowed.length === 0) notes.push(`reasoning_effort ${req.reasoningEffort} not sent: ${config.id} does not accept reasoning_effort`);
    else notes.push(`reasoning_effort ${req.reasoningEffort} not sent: ${config.id} accepts ${allowed.join(', ')}`);
  }
  if (req.tools.length > 0 && !out.tools) notes.push(`${req.tools.length} tool(s) not sent: ${config.id} does not accept tools`);
  return out;
}

/**
 * A thinking budget the vendor would refuse with a 400 (below its minimum, or not below the output token limit that
 * is sent) is an LLM_CONFIG error before anything is sent, naming the model and both numbers.
 */
export function checkThinkingBudget(config: ModelConfig, budget: number, maxTokens: number | undefined): void {
  const limits = providerFor(config.provider).thinkingLimits;
  if (!limits) return;
  const details = { configId: config.id, budgetTokens: budget };
  if (!Number.isInteger(budget) || budget < limits.minBudget)
    throw new EoError('LLM_CONFIG', `${config.id}: thinking budget_tokens ${budget} is below the vendor's minimum of ${limits.minBudget}`, { ...details, minBudget: limits.minBudget });
  const sent = maxTokens ?? limits.defaultMaxTokens;
  if (limits.belowMaxTokens && budget >= sent)
    throw new EoError('LLM_CONFIG', `${config.id}: thinking budget_tokens ${budget} must be below max_tokens ${sent}${maxTokens === undefined ? ' (the default sent when the request gives none)' : ''}; raise max_tokens or lower the budget`, { ...details, maxTokens: sent });
}
