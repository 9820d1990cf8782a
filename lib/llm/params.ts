/**
 * What a model accepts on the wire (ModelConfig.params) and how a normalised request is adapted to it: options the
 * model does not accept are dropped or mapped, each with a note that is kept in the record; they are never sent.
 */
import { EoError } from '../errors';
import type { LlmProvider } from './providers/types';
import type { LlmRecord, ModelConfig, WireOptions } from './types';

/**
 * What the adaptation reads of the entry's vendor (`providerFor(config.provider)`). The caller passes it, so that the
 * vendors, which format the adapted options (`LlmProvider.toRequest`), and this module do not import each other.
 */
export type VendorWireTraits = Pick<LlmProvider, 'acceptsThinking' | 'thinkingLimits' | 'tokenLimitField'>;

/** Adapt a normalised request to what the model accepts (see the module comment); `vendor` is the entry's vendor. */
export function wireOptions(config: ModelConfig, req: LlmRecord['request'], vendor: VendorWireTraits): WireOptions {
  const p = config.params ?? {};
  const notes: string[] = [];
  const out: WireOptions = { tools: p.tools ?? true, notes };
  const thinkingAsked = req.thinking !== undefined;
  const thinkingOk = p.thinking === true && vendor.acceptsThinking;
  if (thinkingAsked && !thinkingOk) notes.push(`thinking (budget ${req.thinking!.budgetTokens}) not sent: ${config.id} does not accept extended thinking`);
  if (thinkingAsked && thinkingOk) out.thinkingBudget = req.thinking!.budgetTokens;
  const tempMode = p.temperature ?? 'any';
  if (tempMode === 'default-only') notes.push(`temperature ${req.temperature} not sent: ${config.id} accepts only its default temperature`);
  else if (tempMode === 'effort-none-only' && req.reasoningEffort !== 'none')
    notes.push(`temperature ${req.temperature} not sent: ${config.id} accepts a temperature only with reasoning_effort none (requested: ${req.reasoningEffort ?? 'the API default'})`);
  else if (out.thinkingBudget !== undefined) notes.push(`temperature ${req.temperature} not sent: Anthropic extended thinking requires the default temperature`);
  else out.temperature = req.temperature;
  if (req.maxTokens !== null) out.tokenLimit = { field: vendor.tokenLimitField(p), value: req.maxTokens };
  if (out.thinkingBudget !== undefined) checkThinkingBudget(config, out.thinkingBudget, out.tokenLimit?.value, vendor);
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
export function checkThinkingBudget(config: ModelConfig, budget: number, maxTokens: number | undefined, vendor: Pick<VendorWireTraits, 'thinkingLimits'>): void {
  const limits = vendor.thinkingLimits;
  if (!limits) return;
  const details = { configId: config.id, budgetTokens: budget };
  if (!Number.isInteger(budget) || budget < limits.minBudget)
    throw new EoError('LLM_CONFIG', `${config.id}: thinking budget_tokens ${budget} is below the vendor's minimum of ${limits.minBudget}`, { ...details, minBudget: limits.minBudget });
  const sent = maxTokens ?? limits.defaultMaxTokens;
  if (limits.belowMaxTokens && budget >= sent)
    throw new EoError('LLM_CONFIG', `${config.id}: thinking budget_tokens ${budget} must be below max_tokens ${sent}${maxTokens === undefined ? ' (the default sent when the request gives none)' : ''}; raise max_tokens or lower the budget`, { ...details, maxTokens: sent });
}
