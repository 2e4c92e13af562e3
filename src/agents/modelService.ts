import * as vscode from 'vscode';
import { LlmSummarizer } from '../core/compaction/llmSummarizer';
import { hiddenUserMessage } from '../core/model/factories';
import { completeOnce } from '../core/providers/completeOnce';
import { keyForEndpoint } from '../core/providers/http/endpointOrigin';
import { resolveModel } from '../core/providers/models/modelRegistry';
import { createChatProvider } from '../core/providers/chatProviderFactory';
import { servedWindow } from '../core/providers/models/servedWindow';
import { planReasoning } from '../core/providers/reasoningPlan';
import { withReplyLimits } from '../core/providers/replyLimits';
import type { ChatProvider } from '../core/providers/types';
import type { TallyConfiguration } from '../config/readSettings';
import { VsCodeLmProvider } from '../vscodeLm/vscodeLmProvider';
import type { ApiKeys } from '../secrets/apiKeys';
import type { ChatModel } from '../host/sessionState/sessionPorts';



export type ModelResolution = { ok: true; chat: ChatModel } | { ok: false; reason: string };

/** One summarization request to the chat provider, returning its text. */
async function completeText(provider: ChatProvider, model: string, prompt: { system: string; user: string; maxTokens: number; signal?: AbortSignal }): Promise<string> {
  const request = {
    model,
    system: [{ text: prompt.system }],
    messages: [hiddenUserMessage(prompt.user, { id: 'summary-request' })],
    tools: [],
    maxOutputTokens: prompt.maxTokens,
  };
  return (await completeOnce(provider, request, prompt.signal)).text;
}

/** Turns the `tally.provider` / `tally.model` settings and the stored key into a ready chat model. */
export async function resolveChatModel(config: TallyConfiguration, keys: ApiKeys): Promise<ModelResolution> {
  const overrides = { contextWindow: config.context.contextWindow, maxOutputTokens: config.context.maxOutputTokens, encoding: config.tokenizer === 'auto' ? undefined : config.tokenizer };
  if (config.provider === 'vscode-lm') {
    if (!vscode.lm) return { ok: false, reason: 'This VS Code has no Language Model API. Pick another provider in the settings (tally.provider).' };
    const selector = config.model ? { id: config.model } : {};
    let models = await vscode.lm.selectChatModels(selector);
    if (models.length === 0 && config.model) models = await vscode.lm.selectChatModels({ family: config.model });
    if (models.length === 0) {
      return { ok: false, reason: 'No language model is available in VS Code (e.g. GitHub Copilot). Install one, or choose Anthropic, OpenAI or a local server with "Tally: Select Model".' };
    }
    const lm = models[0];
    const reserve = Math.min(config.context.maxOutputTokens ?? 4_096, Math.floor(lm.maxInputTokens / 4));
    const model = resolveModel(lm.id, { ...overrides, contextWindow: config.context.contextWindow ?? lm.maxInputTokens + reserve });
    const provider = withReplyLimits(new VsCodeLmProvider(lm), `${lm.name} (${lm.vendor})`);
    const window = config.context.contextWindow ? { source: 'setting' as const } : { source: 'server' as const, note: `maxInputTokens ${lm.maxInputTokens.toLocaleString('en-US')} reported by VS Code, plus the output reserve` };
    return { ok: true, chat: { provider, model, window, maxOutputTokens: reserve, label: `${lm.name} (${lm.vendor})`, summarizer: new LlmSummarizer((p) => completeText(provider, lm.id, p), lm.id) } };
  }
  if (!config.model) return { ok: false, reason: `Set the model id for ${config.provider} with "Tally: Select Model" (setting tally.model).` };
  if (config.provider === 'openai-compatible' && !config.baseUrl) return { ok: false, reason: 'Set tally.baseUrl to your server, e.g. http://127.0.0.1:11434/v1 for Ollama.' };
  // A key goes only to the endpoint origin it was entered for.
  const bound = keyForEndpoint(config.provider, config.baseUrl, await keys.getBound(config.provider));
  if (!bound.ok) return bound;
  const apiKey = bound.key;
  const planned = await planWindow(config, apiKey);
  const model = resolveModel(config.model, { ...overrides, contextWindow: planned.tokens });
  const plan = planReasoning(config.provider, config.model, config.reasoning);
  const reasoning = plan.reasoning;
  const maxOutputTokens = (config.context.maxOutputTokens ?? model.defaultOutputReserve) + plan.extraOutputTokens;
  if (config.provider === 'anthropic' && !apiKey) return { ok: false, reason: 'No Anthropic API key: run "Tally: Set API Key".' };
  if (config.provider === 'openai' && !apiKey) return { ok: false, reason: 'No OpenAI API key: run "Tally: Set API Key".' };
  const provider: ChatProvider = createChatProvider({ provider: config.provider, apiKey, baseUrl: config.baseUrl, openaiApi: config.openaiApi });
  const summaryModel = config.summaryModel || config.model;
  return {
    ok: true,
    chat: {
      provider,
      model,
      window: planned.window,
      maxOutputTokens,
      reasoning,
      label: `${config.model} (${config.provider})`,
      summarizer: new LlmSummarizer((p) => completeText(provider, summaryModel, p), summaryModel),
    },
  };
}

/**
 * The window to plan for: the user's tally.contextWindow, else what the server says it serves
 * (an OpenAI-compatible server: Ollama, vLLM, LM Studio), else the model registry, else assumed.
 */
export async function planWindow(config: TallyConfiguration, apiKey: string | undefined): Promise<{ tokens?: number; window: ChatModel['window'] }> {
  if (config.context.contextWindow) return { tokens: config.context.contextWindow, window: { source: 'setting', note: 'tally.contextWindow' } };
  const served = config.provider === 'openai-compatible' ? await servedWindow({ baseUrl: config.baseUrl, model: config.model, apiKey }) : undefined;
  if (served?.tokens) return { tokens: served.tokens, window: { source: 'server', note: served.note } };
  const registry = resolveModel(config.model);
  if (registry.known) return { window: { source: 'registry', note: served?.note ?? registry.family } };
  return { window: { source: 'assumed', note: served?.note } };
}
