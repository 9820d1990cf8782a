/**
 * Any OpenAI-compatible server (DeepSeek, vLLM, Ollama, llama.cpp server): the OpenAI chat-completions wire format
 * and the `openai` SDK at the entry's base URL. What differs from OpenAI is configuration: a base URL is required
 * (`baseUrl`, or `baseUrlEnv` for a host named at run time), the key variable is the entry's `apiKeyEnv` (none by
 * default: local servers get the placeholder key `EMPTY`), the token limit goes as `max_tokens` (what these
 * servers read), and there is no batch protocol unless the entry declares `batchApi: "openai"` (a server that
 * implements OpenAI Batch).
 */
import { fromOpenAIResponse, openOpenAIChat, rejectOpenAIParam, toOpenAIRequest } from './openai';
import type { LlmProvider } from './types';

/** `provider: "openai-compatible"` entries. */
export const openaiCompatibleProvider: LlmProvider = {
  name: 'openai-compatible',
  defaultApiKeyEnv: null,
  requiresBaseUrl: true,
  acceptsThinking: false,
  defaultBatchApi: 'none',
  batchApis: ['openai'],
  tokenLimitField: (params) => params.tokenLimit ?? 'max_tokens',
  rejectParam: rejectOpenAIParam,
  toRequest: toOpenAIRequest,
  fromResponse: fromOpenAIResponse,
  openChat: openOpenAIChat,
};
