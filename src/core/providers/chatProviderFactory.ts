import { createAnthropicProvider } from './anthropic/anthropic';
import type { FetchLike } from './http/httpStream';
import { createOpenAIProvider, OPENAI_BASE_URL } from './openai/openai';
import { createOpenAIResponsesProvider } from './openai/openaiResponses';
import type { RetryOptions } from './http/retry';
import type { ReplyLimits } from './replyLimits';
import type { ChatProvider } from './types';

/** `tally.openai.api`: which API the openai provider speaks. */
export type OpenAIApiSetting = 'auto' | 'responses' | 'chat-completions';

export type HttpProviderKind = 'anthropic' | 'openai' | 'openai-compatible';

export interface ChatProviderConfig {
  provider: HttpProviderKind;
  apiKey?: string;
  /** Empty or absent: the provider's own address. */
  baseUrl?: string;
  /** Only for `openai`; OpenAI-compatible servers always get Chat Completions. */
  openaiApi?: OpenAIApiSetting;
  fetch?: FetchLike;
  retry?: RetryOptions;
  /** What one reply may bring and how long it may take (default DEFAULT_REPLY_LIMITS). */
  limits?: Partial<ReplyLimits>;
}

function isOpenAIOwnAddress(baseUrl: string): boolean {
  return /^https:\/\/api\.openai\.com(\/|$)/.test(baseUrl);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'custom URL';
  }
}

/**
 * Which API an `openai` provider speaks: the setting when it names one, else the Responses API at
 * OpenAI's own address and Chat Completions elsewhere (a proxy may speak only that).
 */
export function openAIApiFor(baseUrl: string | undefined, setting: OpenAIApiSetting | undefined): 'responses' | 'chat-completions' {
  if (setting === 'responses' || setting === 'chat-completions') return setting;
  return isOpenAIOwnAddress(baseUrl || OPENAI_BASE_URL) ? 'responses' : 'chat-completions';
}

/** The one place a chat provider is made from a provider kind, a key and an address. */
export function createChatProvider(config: ChatProviderConfig): ChatProvider {
  const baseUrl = config.baseUrl || undefined;
  if (config.provider === 'anthropic') return createAnthropicProvider({ apiKey: config.apiKey ?? '', baseUrl, fetch: config.fetch, retry: config.retry, limits: config.limits });
  if (config.provider === 'openai' && openAIApiFor(baseUrl, config.openaiApi) === 'responses') {
    const url = baseUrl ?? OPENAI_BASE_URL;
    const label = isOpenAIOwnAddress(url) ? 'OpenAI' : `OpenAI Responses API (${hostOf(url)})`;
    return createOpenAIResponsesProvider({ apiKey: config.apiKey, baseUrl: url, label, fetch: config.fetch, retry: config.retry, limits: config.limits });
  }
  return createOpenAIProvider({ apiKey: config.apiKey, baseUrl, id: config.provider, fetch: config.fetch, retry: config.retry, limits: config.limits });
}
