import * as fs from 'node:fs';
import { EoError } from '../errors';
import { packageFile } from '../util/paths';
import { batchApiNames, providerFor, providerNames } from './providers';
import type { BatchApi, LlmProviderName, ModelAvailability, ModelConfig, ModelParams, ModelsFile, RecordStore, TokenLimitField } from './types';

/** Env var naming a models file that replaces lib/llm/models.json. */
export const LLM_MODELS_FILE_ENV = 'LLM_MODELS_FILE';

/** lib/llm/models.json (found beside the TypeScript source also when running from dist/). */
export function defaultModelsFilePath(): string {
  return packageFile('llm', 'models.json');
}

/** Default key variable of a vendor (`LlmProvider.defaultApiKeyEnv`; openai-compatible: none). */
export function defaultApiKeyEnv(provider: LlmProviderName): string | null {
  return providerFor(provider).defaultApiKeyEnv;
}

const TOKEN_LIMIT_FIELDS: readonly TokenLimitField[] = ['max_completion_tokens', 'max_tokens'];

/** Validate an entry's `params` (what the model accepts); errors name the field (`models[2].params.temperature`). */
export function validateModelParams(v: unknown, where: string, provider: LlmProviderName): ModelParams {
  const vendor = providerFor(provider);
  const o = v as Record<string, unknown> | null;
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new EoError('CONFIG', `${where}: expected an object, got ${JSON.stringify(v)}`, { field: 'params' });
  const out: ModelParams = {};
  for (const [k, x] of Object.entries(o)) {
    const bad = (expected: string) => new EoError('CONFIG', `${where}.${k}: expected ${expected}, got ${JSON.stringify(x)}`, { field: `params.${k}` });
    // after the type check of a field: whether the vendor accepts the value
    const vendorCheck = () => {
      const why = vendor.rejectParam?.(k as keyof ModelParams, x) ?? null;
      if (why !== null) throw bad(why);
    };
    if (k === 'temperature') {
      if (x !== 'any' && x !== 'default-only' && x !== 'effort-none-only') throw bad('"any", "default-only" or "effort-none-only"');
      vendorCheck();
      out.temperature = x;
    } else if (k === 'tokenLimit') {
      if (!TOKEN_LIMIT_FIELDS.includes(x as TokenLimitField)) throw bad(TOKEN_LIMIT_FIELDS.map((f) => `"${f}"`).join(' or '));
      vendorCheck();
      out.tokenLimit = x as TokenLimitField;
    } else if (k === 'reasoningEffort') {
      if (!Array.isArray(x) || x.length === 0 || x.some((e) => typeof e !== 'string' || e === '')) throw bad('a non-empty list of effort names');
      vendorCheck();
      out.reasoningEffort = x as string[];
    } else if (k === 'thinking') {
      if (typeof x !== 'boolean') throw bad('true or false');
      vendorCheck();
      if (x && !vendor.acceptsThinking) throw bad(`false (provider ${provider} does not accept extended thinking)`);
      out.thinking = x;
    } else if (k === 'tools') {
      if (typeof x !== 'boolean') throw bad('true or false');
      vendorCheck();
      out.tools = x;
    } else throw new EoError('CONFIG', `${where}.${k}: unknown parameter (known: temperature, tokenLimit, reasoningEffort, thinking, tools)`, { field: `params.${k}` });
  }
  return out;
}

/** Validate one model entry; errors name the file and the field (`models[2].inputPricePerMTok`). */
export function validateModelConfig(v: unknown, where: string): ModelConfig {
  const o = v as Record<string, unknown> | null;
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new EoError('CONFIG', `${where}: model entry is not an object`);
  const str = (k: string, required: boolean) => {
    const x = o[k];
    if (x === undefined && !required) return undefined;
    if (typeof x !== 'string' || x.trim() === '') throw new EoError('CONFIG', `${where}.${k}: expected a non-empty string, got ${JSON.stringify(x)}`, { field: k });
    return x;
  };
  const num = (k: string, required: boolean, positiveInt = false) => {
    const x = o[k];
    if (x === undefined && !required) return undefined;
    if (typeof x !== 'number' || !Number.isFinite(x) || x < 0 || (positiveInt && !(Number.isInteger(x) && x >= 1)))
      throw new EoError('CONFIG', `${where}.${k}: expected ${positiveInt ? 'a positive integer' : 'a number ≥ 0'}, got ${JSON.stringify(x)}`, { field: k });
    return x;
  };
  const provider = str('provider', true) as LlmProviderName;
  if (!providerNames().includes(provider)) throw new EoError('CONFIG', `${where}.provider: expected one of ${providerNames().join(', ')}, got ${JSON.stringify(provider)}`, { field: 'provider' });
  const vendor = providerFor(provider);
  const cfg: ModelConfig = {
    id: str('id', true)!,
    provider,
    model: str('model', true)!,
    inputPricePerMTok: num('inputPricePerMTok', true)!,
    outputPricePerMTok: num('outputPricePerMTok', true)!,
  };
  const baseUrl = str('baseUrl', false);
  if (baseUrl !== undefined) {
    try {
      new URL(baseUrl);
    } catch {
      throw new EoError('CONFIG', `${where}.baseUrl: not a URL: ${JSON.stringify(baseUrl)}`, { field: 'baseUrl' });
    }
    cfg.baseUrl = baseUrl;
  }
  const opt = { baseUrlEnv: str('baseUrlEnv', false), apiKeyEnv: str('apiKeyEnv', false), note: str('note', false) };
  if (opt.baseUrlEnv !== undefined) cfg.baseUrlEnv = opt.baseUrlEnv;
  if (opt.apiKeyEnv !== undefined) cfg.apiKeyEnv = opt.apiKeyEnv;
  if (opt.note !== undefined) cfg.note = opt.note;
  const role = str('paperRole', false);
  if (role !== undefined) cfg.paperRole = role;
  const mc = num('maxConcurrency', false, true);
  if (mc !== undefined) cfg.maxConcurrency = mc;
  const mt = num('maxTokens', false, true);
  if (mt !== undefined) cfg.maxTokens = mt;
  const dt = num('defaultTemperature', false);
  if (dt !== undefined) cfg.defaultTemperature = dt;
  const bi = num('batchInputPricePerMTok', false);
  if (bi !== undefined) cfg.batchInputPricePerMTok = bi;
  const bo = num('batchOutputPricePerMTok', false);
  if (bo !== undefined) cfg.batchOutputPricePerMTok = bo;
  const rt = num('estimatedReasoningTokens', false);
  if (rt !== undefined) cfg.estimatedReasoningTokens = rt;
  if (o.pricesToBeChecked !== undefined) {
    if (typeof o.pricesToBeChecked !== 'boolean') throw new EoError('CONFIG', `${where}.pricesToBeChecked: expected true or false, got ${JSON.stringify(o.pricesToBeChecked)}`, { field: 'pricesToBeChecked' });
    cfg.pricesToBeChecked = o.pricesToBeChecked;
  }
  const batchApi = str('batchApi', false);
  if (batchApi !== undefined) {
    if (!batchApiNames().includes(batchApi)) throw new EoError('CONFIG', `${where}.batchApi: expected one of ${batchApiNames().join(', ')}, got ${JSON.stringify(batchApi)}`, { field: 'batchApi' });
    if (batchApi !== 'none' && !vendor.batchApis.includes(batchApi))
      throw new EoError('CONFIG', `${where}.batchApi: ${batchApi} batches cannot carry provider ${provider} requests`, { field: 'batchApi' });
    cfg.batchApi = batchApi as BatchApi;
  }
  if (o.params !== undefined) cfg.params = validateModelParams(o.params, `${where}.params`, provider);
  const effort = str('reasoningEffort', false);
  if (effort !== undefined) {
    const allowed = cfg.params?.reasoningEffort ?? [];
    if (!allowed.includes(effort))
      throw new EoError('CONFIG', `${where}.reasoningEffort: ${JSON.stringify(effort)} is not one of params.reasoningEffort (${allowed.length > 0 ? allowed.join(', ') : 'none accepted'})`, { field: 'reasoningEffort' });
    cfg.reasoningEffort = effort;
  }
  const known = new Set(['id', 'provider', 'model', 'baseUrl', 'baseUrlEnv', 'apiKeyEnv', 'inputPricePerMTok', 'outputPricePerMTok', 'maxConcurrency', 'maxTokens', 'note', 'params', 'reasoningEffort', 'defaultTemperature', 'batchApi', 'batchInputPricePerMTok', 'batchOutputPricePerMTok', 'pricesToBeChecked', 'estimatedReasoningTokens', 'paperRole']);
  for (const k of Object.keys(o)) if (!known.has(k)) throw new EoError('CONFIG', `${where}.${k}: unknown field (known: ${[...known].join(', ')})`, { field: k });
  if (vendor.requiresBaseUrl && cfg.baseUrl === undefined && cfg.baseUrlEnv === undefined)
    throw new EoError('CONFIG', `${where}: provider ${provider} needs baseUrl or baseUrlEnv`, { field: 'baseUrl' });
  return cfg;
}

/**
 * Read a models file: `{ note?, models: ModelConfig[] }`. Default file: `$LLM_MODELS_FILE`, else
 * lib/llm/models.json. Ids must be unique. Bad entries fail with CONFIG naming file and field.
 */
export function loadModelsFile(file?: string, env: Record<string, string | undefined> = process.env): ModelsFile & { path: string } {
  const f = file ?? (env[LLM_MODELS_FILE_ENV] || defaultModelsFilePath());
  if (!fs.existsSync(f)) throw new EoError('DATA_NOT_FOUND', `models file not found: ${f}`, { file: f });
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(f, 'utf8'));
  } catch (e) {
    throw new EoError('CONFIG', `${f}: invalid JSON (${(e as Error).message})`, { file: f });
  }
  const d = data as { note?: unknown; models?: unknown };
  if (d === null || typeof d !== 'object' || !Array.isArray(d.models)) throw new EoError('CONFIG', `${f}: expected an object with a "models" list`, { file: f });
  const seen = new Set<string>();
  const models = d.models.map((m, i) => {
    const cfg = validateModelConfig(m, `${f}: models[${i}]`);
    if (seen.has(cfg.id)) throw new EoError('CONFIG', `${f}: models[${i}].id: duplicate id ${JSON.stringify(cfg.id)}`, { file: f, field: 'id' });
    seen.add(cfg.id);
    return cfg;
  });
  return { path: f, note: typeof d.note === 'string' ? d.note : undefined, models };
}

/** The model config with this id (from `models`, default: loadModelsFile()). Unknown id → CONFIG listing the known ids. */
export function getModelConfig(id: string, models: readonly ModelConfig[] = loadModelsFile().models): ModelConfig {
  const m = models.find((x) => x.id === id);
  if (!m) throw new EoError('CONFIG', `unknown model id ${JSON.stringify(id)}; known: ${models.map((x) => x.id).join(', ')}`, { id });
  return m;
}

/** The key variable this config reads (null: none needed). */
export function apiKeyEnvOf(config: ModelConfig): string | null {
  return config.apiKeyEnv ?? defaultApiKeyEnv(config.provider);
}

/** The base URL this config would use now (baseUrlEnv when set, else baseUrl; null: the SDK default). */
export function resolveBaseUrl(config: ModelConfig, env: Record<string, string | undefined> = process.env): string | null {
  const fromEnv = config.baseUrlEnv ? env[config.baseUrlEnv] : undefined;
  return fromEnv && fromEnv.trim() !== '' ? fromEnv.trim() : config.baseUrl ?? null;
}

/** USD cost of a call with these token counts (standard prices). */
export function callCostUsd(config: ModelConfig, usage: { inputTokens: number; outputTokens: number }): number {
  return (usage.inputTokens * config.inputPricePerMTok + usage.outputTokens * config.outputPricePerMTok) / 1e6;
}

/** USD cost of a call at the entry's batch prices; null when the entry declares none. */
export function batchCallCostUsd(config: ModelConfig, usage: { inputTokens: number; outputTokens: number }): number | null {
  if (config.batchInputPricePerMTok === undefined || config.batchOutputPricePerMTok === undefined) return null;
  return (usage.inputTokens * config.batchInputPricePerMTok + usage.outputTokens * config.batchOutputPricePerMTok) / 1e6;
}

/** The batch protocol of an entry (default: its vendor's `defaultBatchApi`: openai for OpenAI, anthropic for Anthropic, none otherwise). */
export function batchApiOf(config: ModelConfig): BatchApi {
  return config.batchApi ?? providerFor(config.provider).defaultBatchApi;
}

/**
 * Which models can run here: key variable set (never its value), base URL, and how many calls of each are
 * already recorded in `store` (for notebooks' "replay / not configured" sections).
 */
export function modelAvailability(models: readonly ModelConfig[], opts: { store?: RecordStore | null; env?: Record<string, string | undefined> } = {}): ModelAvailability[] {
  const env = opts.env ?? process.env;
  const counts = new Map<string, number>();
  for (const r of opts.store?.records() ?? []) counts.set(r.configId, (counts.get(r.configId) ?? 0) + 1);
  return models.map((m) => {
    const keyEnv = apiKeyEnvOf(m);
    return {
      id: m.id,
      provider: m.provider,
      model: m.model,
      apiKeyEnv: keyEnv,
      keySet: keyEnv === null ? true : !!env[keyEnv],
      baseUrl: resolveBaseUrl(m, env),
      recordedCalls: counts.get(m.id) ?? 0,
    };
  });
}
