import * as vscode from 'vscode';
import { readConfiguration, type ProviderKind } from '../config/readSettings';
import { endpointOrigin } from '../core/providers/http/endpointOrigin';
import type { ApiKeys } from '../secrets/apiKeys';
import { PROVIDER_ITEMS } from './modelPicker';

/** Tally: Set API Key — stored in SecretStorage only. */
export async function setApiKeyCommand(keys: ApiKeys, args?: { provider: ProviderKind; key: string }): Promise<boolean> {
  const provider = args?.provider ?? (await vscode.window.showQuickPick(PROVIDER_ITEMS.filter((p) => p.provider !== 'vscode-lm'), { title: 'Tally: Set API Key — provider' }))?.provider;
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
