import { createAnthropicProvider } from './anthropic';
import type { FetchLike } from './httpStream';
import { createOpenAIProvider, OPENAI_BASE_URL } from './openai';
import type { RetryOptions } from './retry';
import type { ChatProvider } from './types';

export * from './types';
export { ProviderError, redactSecrets, type ProviderErrorKind } from './errors';
export { isContextTooLong } from './classifyError';
export { createAnthropicProvider, type AnthropicProviderOptions } from './anthropic';
export { createOpenAIProvider, type OpenAIProviderOptions } from './openai';
export { withRetry, retryStream, retryDelay, type RetryOptions, type RetryInfo, type Sleep } from './retry';
export { resolveModel, normalizeModelId, type ModelInfo, type ResolvedModel, type ModelOverrides } from './modelRegistry';
export { completeOnce, type CompletedResponse } from './completeOnce';

/** The providers Tally speaks over HTTP (the VS Code LM API adapter lives in the VS Code layer). */
export type HttpProviderKind = 'anthropic' | 'openai' | 'openai-compatible';

export interface HttpProviderConfig {
  kind: HttpProviderKind;
  apiKey?: string;
  /** Empty: the provider's own URL. Required for 'openai-compatible'. */
  baseUrl?: string;
  fetch?: FetchLike;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  retry?: RetryOptions;
}

/** Builds the provider for a `tally.provider` setting. */
export function createHttpProvider(config: HttpProviderConfig): ChatProvider {
  const common = { fetch: config.fetch, timeoutMs: config.timeoutMs, idleTimeoutMs: config.idleTimeoutMs, retry: config.retry };
  switch (config.kind) {
    case 'anthropic':
      return createAnthropicProvider({ ...common, apiKey: config.apiKey ?? '', baseUrl: config.baseUrl || undefined });
    case 'openai':
      return createOpenAIProvider({ ...common, id: 'openai', apiKey: config.apiKey, baseUrl: config.baseUrl || OPENAI_BASE_URL });
    case 'openai-compatible':
      if (!config.baseUrl) throw new Error('An OpenAI-compatible provider needs a base URL (e.g. http://127.0.0.1:11434/v1 for Ollama).');
      return createOpenAIProvider({ ...common, id: 'openai-compatible', apiKey: config.apiKey, baseUrl: config.baseUrl });
  }
}
