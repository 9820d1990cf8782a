/**
 * The registry of LLM vendors: `provider` in a models.json entry names one of them. The three built in are OpenAI,
 * Anthropic and OpenAI-compatible servers; `registerProvider` adds another (a plugin, or a test's fake vendor), so
 * a new vendor is one file implementing `LlmProvider` plus its models.json entries.
 */
import { EoError } from '../../errors';
import { wireOptions } from '../params';
import type { LlmRecord, ModelConfig, TokenLimitField, WireOptions } from '../types';
import { anthropicProvider } from './anthropic';
import { openaiProvider } from './openai';
import { openaiCompatibleProvider } from './openai-compatible';
import type { LlmProvider } from './types';

export * from './types';
export * from './openai';
export * from './anthropic';
export * from './openai-compatible';

const REGISTRY = new Map<string, LlmProvider>([openaiProvider, anthropicProvider, openaiCompatibleProvider].map((p) => [p.name, p]));

/** Names of the registered vendors, in registration order (the built-in ones first). */
export function providerNames(): string[] {
  return [...REGISTRY.keys()];
}

/** The vendor registered under `name`; an unknown name → CONFIG listing the registered ones. */
export function providerFor(name: string): LlmProvider {
  const p = REGISTRY.get(name);
  if (!p) throw new EoError('CONFIG', `unknown LLM provider ${JSON.stringify(name)}; registered: ${providerNames().join(', ')}`, { provider: name });
  return p;
}

/** The token-limit field of a config: its vendor's choice (`LlmProvider.tokenLimitField`; OpenAI's default `max_completion_tokens`, else `max_tokens`). */
export function tokenLimitField(config: ModelConfig): TokenLimitField {
  return providerFor(config.provider).tokenLimitField(config.params ?? {});
}

/** A normalised request adapted to what the entry accepts, with the entry's own vendor (`wireOptions`). */
export function entryWireOptions(config: ModelConfig, req: LlmRecord['request']): WireOptions {
  return wireOptions(config, req, providerFor(config.provider));
}

/** Names of the batch protocols an entry's `batchApi` may name: vendors with `openBatch`, then `none` (live calls). */
export function batchApiNames(): string[] {
  return [...[...REGISTRY.values()].filter((p) => p.openBatch).map((p) => p.name), 'none'];
}

/**
 * Add a vendor (see `LlmProvider`). Its name must be new and not `none`, and its batch protocol names must be
 * registered vendors with a batch protocol (or its own name, when it has one). Returns a function that removes it
 * again (for tests). A bad provider → INVALID_ARGUMENT naming the member.
 */
export function registerProvider(p: LlmProvider): () => void {
  const bad = (what: string) => new EoError('INVALID_ARGUMENT', `registerProvider(${JSON.stringify(p?.name)}): ${what}`);
  if (p === null || typeof p !== 'object') throw new EoError('INVALID_ARGUMENT', `registerProvider: expected an LlmProvider object, got ${JSON.stringify(p)}`);
  if (typeof p.name !== 'string' || p.name.trim() === '' || p.name === 'none') throw bad('name must be a non-empty string other than "none"');
  if (REGISTRY.has(p.name)) throw bad(`a provider named ${p.name} is already registered`);
  for (const m of ['tokenLimitField', 'toRequest', 'fromResponse', 'openChat'] as const) if (typeof p[m] !== 'function') throw bad(`${m} must be a function`);
  if (p.openBatch !== undefined && typeof p.openBatch !== 'function') throw bad('openBatch must be a function when given');
  if (p.rejectParam !== undefined && typeof p.rejectParam !== 'function') throw bad('rejectParam must be a function when given');
  if (p.defaultApiKeyEnv !== null && (typeof p.defaultApiKeyEnv !== 'string' || p.defaultApiKeyEnv === '')) throw bad('defaultApiKeyEnv must be a variable name or null');
  const protocols = new Set([...batchApiNames(), ...(p.openBatch ? [p.name] : [])]);
  if (!Array.isArray(p.batchApis)) throw bad('batchApis must be a list of batch protocol names');
  for (const b of p.batchApis) if (b === 'none' || !protocols.has(b)) throw bad(`batchApis: ${JSON.stringify(b)} is not a batch protocol (known: ${[...protocols].filter((x) => x !== 'none').join(', ')})`);
  if (!protocols.has(p.defaultBatchApi) || (p.defaultBatchApi !== 'none' && !p.batchApis.includes(p.defaultBatchApi))) throw bad(`defaultBatchApi: ${JSON.stringify(p.defaultBatchApi)} must be none or one of batchApis`);
  REGISTRY.set(p.name, p);
  return () => {
    if (REGISTRY.get(p.name) === p) REGISTRY.delete(p.name);
  };
}
