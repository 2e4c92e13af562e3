import * as vscode from 'vscode';
import { readConfiguration, type ProviderKind } from '../config/readSettings';
import { endpointOrigin } from '../core/providers/endpointOrigin';
import type { ApiKeys } from '../secrets/apiKeys';

const PROVIDERS: Array<{ label: string; provider: ProviderKind; detail: string }> = [
  { label: 'VS Code Language Models', provider: 'vscode-lm', detail: 'Models installed in VS Code, e.g. GitHub Copilot' },
  { label: 'Anthropic', provider: 'anthropic', detail: 'Claude models with your Anthropic API key' },
  { label: 'OpenAI', provider: 'openai', detail: 'OpenAI models with your OpenAI API key' },
  { label: 'OpenAI-compatible server', provider: 'openai-compatible', detail: 'Ollama, LM Studio, vLLM… (set the base URL)' },
];

/** Tally: Select Model — provider, then model; written to the user's settings. */
export async function selectModelCommand(): Promise<void> {
  const provider = await vscode.window.showQuickPick(PROVIDERS, { title: 'Tally: Select Model — provider' });
  if (!provider) return;
  const config = vscode.workspace.getConfiguration('tally');
  let model: string | undefined;
  if (provider.provider === 'vscode-lm') {
    const models = vscode.lm ? await vscode.lm.selectChatModels({}) : [];
    if (models.length === 0) {
      void vscode.window.showWarningMessage('No language model is available in VS Code. Install one (e.g. GitHub Copilot) or pick another provider.');
      return;
    }
    const pick = await vscode.window.showQuickPick(
      models.map((m) => ({ label: m.name, description: `${m.vendor} · ${m.family} · ${m.maxInputTokens.toLocaleString('en-US')} input tokens`, id: m.id })),
      { title: 'Tally: Select Model' },
    );
    model = pick?.id;
  } else {
    if (provider.provider === 'openai-compatible') {
      const baseUrl = await vscode.window.showInputBox({ title: 'Base URL of the server', value: readConfiguration().baseUrl || 'http://127.0.0.1:11434/v1' });
      if (!baseUrl) return;
      await config.update('baseUrl', baseUrl, vscode.ConfigurationTarget.Global);
    }
    const examples = provider.provider === 'anthropic' ? 'claude-sonnet-4-5' : provider.provider === 'openai' ? 'gpt-4.1' : 'qwen2.5-coder:14b';
    model = await vscode.window.showInputBox({ title: 'Tally: Select Model — model id', value: readConfiguration().model || examples, prompt: `e.g. ${examples}` });
  }
  if (!model) return;
  await config.update('provider', provider.provider, vscode.ConfigurationTarget.Global);
  await config.update('model', model, vscode.ConfigurationTarget.Global);
}

/** Tally: Set API Key — stored in SecretStorage only. */
export async function setApiKeyCommand(keys: ApiKeys, args?: { provider: ProviderKind; key: string }): Promise<boolean> {
  const provider = args?.provider ?? (await vscode.window.showQuickPick(PROVIDERS.filter((p) => p.provider !== 'vscode-lm'), { title: 'Tally: Set API Key — provider' }))?.provider;
  if (!provider || provider === 'vscode-lm') return false;
  // The key is bound to the endpoint the user's own settings point this provider at.
  const config = readConfiguration();
  const origin = endpointOrigin(provider, config.provider === provider ? config.baseUrl : '');
  const key = args?.key ?? (await vscode.window.showInputBox({ title: `API key for ${provider}`, password: true, ignoreFocusOut: true, prompt: 'Stored in VS Code SecretStorage; leave empty to remove it.' }));
  if (key === undefined) return false;
  await keys.set(provider, key, origin);
  void vscode.window.showInformationMessage(key.trim() ? `Tally: API key for ${provider} saved in SecretStorage for ${origin ?? 'no endpoint yet (set tally.baseUrl, then set the key again)'}.` : `Tally: API key for ${provider} removed.`);
  return true;
}
