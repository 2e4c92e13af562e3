import * as vscode from 'vscode';
import { answeringLocalServer } from '../core/providers/models/localServers';
import { readConfiguration, type ProviderKind } from '../config/readSettings';
import { endpointOrigin, keyForEndpoint, normalizeOrigin, type KeyedProvider } from '../core/providers/http/endpointOrigin';
import { listModels, type CatalogResult } from '../core/providers/models/modelCatalog';
import { formatWindow, type ListedModel } from '../core/providers/models/modelListing';
import { resolveModel } from '../core/providers/models/modelRegistry';
import { planWindow } from '../agents/modelService';
import type { WindowSource } from '../host/sessionState/sessionPorts';
import type { ApiKeys } from '../secrets/apiKeys';

/** The prompts the flow shows; VS Code's own by default, scripted in tests. */
export interface PickerUi {
  pick<T extends vscode.QuickPickItem>(items: T[] | Promise<T[]>, options: { title: string; placeholder?: (items: T[]) => string | undefined }): Promise<T | undefined>;
  input(options: { title: string; prompt: string; value?: string; password?: boolean; validate?: (value: string) => string | undefined }): Promise<string | undefined>;
  /** A short wait shows in the status bar; a long one (loading a model) as a notification. */
  progress<T>(title: string, task: () => Promise<T>, long?: boolean): Promise<T>;
  info(message: string): void;
  warn(message: string): void;
}

export const vscodePickerUi: PickerUi = {
  async pick<T extends vscode.QuickPickItem>(items: T[] | Promise<T[]>, options: { title: string; placeholder?: (items: T[]) => string | undefined }): Promise<T | undefined> {
    // The placeholder depends on the list (an error while listing), so it is set once the items are known.
    const picker = vscode.window.createQuickPick<T>();
    picker.title = options.title;
    picker.matchOnDescription = true;
    picker.matchOnDetail = true;
    picker.busy = true;
    picker.ignoreFocusOut = true;
    picker.show();
    try {
      const resolved = await items;
      picker.items = resolved;
      picker.placeholder = options.placeholder?.(resolved);
      picker.busy = false;
      return await new Promise<T | undefined>((resolve) => {
        picker.onDidAccept(() => resolve(picker.selectedItems[0]));
        picker.onDidHide(() => resolve(undefined));
      });
    } finally {
      picker.dispose();
    }
  },
  async input(options) {
    return vscode.window.showInputBox({ title: options.title, prompt: options.prompt, value: options.value, password: options.password, ignoreFocusOut: true, validateInput: options.validate });
  },
  progress(title, task, long) {
    return Promise.resolve(vscode.window.withProgress({ location: long ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window, title }, task));
  },
  info(message) {
    void vscode.window.showInformationMessage(message);
  },
  warn(message) {
    void vscode.window.showWarningMessage(message);
  },
};

interface ProviderItem extends vscode.QuickPickItem {
  provider: ProviderKind;
}

const PROVIDER_NAMES: Record<ProviderKind, string> = { 'vscode-lm': 'VS Code Language Models', anthropic: 'Anthropic', openai: 'OpenAI', 'openai-compatible': 'OpenAI-compatible server' };

export const PROVIDER_ITEMS: ProviderItem[] = [
  { label: PROVIDER_NAMES['vscode-lm'], provider: 'vscode-lm', detail: 'Models installed in VS Code, e.g. GitHub Copilot' },
  { label: PROVIDER_NAMES.anthropic, provider: 'anthropic', detail: 'Claude models with your Anthropic API key' },
  { label: PROVIDER_NAMES.openai, provider: 'openai', detail: 'OpenAI models with your OpenAI API key' },
  { label: PROVIDER_NAMES['openai-compatible'], provider: 'openai-compatible', detail: 'Ollama, LM Studio, vLLM… on the address you enter' },
];

interface ModelItem extends vscode.QuickPickItem {
  modelId?: string;
}

export const OTHER_MODEL_LABEL = '$(edit) Other model…';

const SOURCE_WORDS: Record<WindowSource, string> = { server: 'reported by the server', registry: 'from the model registry', setting: 'from tally.contextWindow', assumed: 'assumed: the server does not report it; set tally.contextWindow' };

function modelItems(result: CatalogResult): ModelItem[] {
  const other: ModelItem = { label: OTHER_MODEL_LABEL, detail: 'Type a model id' };
  if (!result.ok) return [other];
  const items = result.models.map((m: ListedModel): ModelItem => ({
    label: m.label,
    modelId: m.id,
    description: m.contextWindow ? `window ${formatWindow(m.contextWindow)}` : m.label !== m.id ? m.id : undefined,
    detail: [m.label !== m.id && m.contextWindow ? m.id : undefined, m.windowNote].filter(Boolean).join(' · ') || undefined,
  }));
  return [...items, { label: '', kind: vscode.QuickPickItemKind.Separator }, other];
}

function sayCatalog(result: CatalogResult): string | undefined {
  if (!result.ok) return `${result.message} Choose "Other model…" to type an id.`;
  return result.models.length ? undefined : 'The server lists no models. Choose "Other model…" to type an id.';
}

async function askKey(ui: PickerUi, provider: KeyedProvider, origin: string | undefined, why: string): Promise<string | undefined> {
  return ui.input({
    title: `Tally: API key for ${PROVIDER_NAMES[provider]}`,
    prompt: `${why} It is kept in VS Code's SecretStorage and sent only to ${origin ?? 'this server'}.`,
    password: true,
    validate: (value) => (value.trim() ? undefined : 'Enter the key (Escape cancels).'),
  });
}

async function pickVsCodeModel(ui: PickerUi): Promise<{ model: string; confirm: string } | undefined> {
  const models = vscode.lm ? await vscode.lm.selectChatModels({}) : [];
  if (models.length === 0) {
    ui.warn('No language model is available in VS Code. Install one (e.g. GitHub Copilot) or pick another provider.');
    return undefined;
  }
  const pick = await ui.pick(
    models.map((m): ModelItem => ({ label: m.name, modelId: m.id, description: `${m.vendor} · ${formatWindow(m.maxInputTokens)} input`, detail: m.id })),
    { title: 'Tally: Select Model — VS Code language models' },
  );
  const chosen = models.find((m) => m.id === pick?.modelId);
  if (!chosen) return undefined;
  return { model: chosen.id, confirm: `Tally will use ${chosen.name} (${chosen.vendor}) through VS Code, window ${formatWindow(chosen.maxInputTokens)} of input (reported by VS Code).` };
}

/**
 * Tally: Select Model — provider, the server's address for a local server, the API key when the
 * provider needs one and none is stored for that address, then the server's own model list.
 * Everything is written to the user's settings (the address is a user-only setting).
 */
export async function runModelPicker(keys: ApiKeys, ui: PickerUi = vscodePickerUi): Promise<boolean> {
  const current = readConfiguration();
  const chosen = await ui.pick(
    PROVIDER_ITEMS.map((p) => ({ ...p, description: p.provider === current.provider ? 'current' : undefined })),
    { title: 'Tally: Select Model — provider' },
  );
  if (!chosen) return false;
  const provider = chosen.provider;
  const config = vscode.workspace.getConfiguration('tally');
  if (provider === 'vscode-lm') {
    const picked = await pickVsCodeModel(ui);
    if (!picked) return false;
    await config.update('provider', provider, vscode.ConfigurationTarget.Global);
    await config.update('model', picked.model, vscode.ConfigurationTarget.Global);
    ui.info(picked.confirm);
    return true;
  }

  let baseUrl = current.provider === provider ? current.baseUrl : '';
  if (provider === 'openai-compatible') {
    const entered = await ui.input({
      title: 'Tally: Select Model — server address',
      prompt: 'Base URL of the OpenAI-compatible API: Ollama http://127.0.0.1:11434/v1, LM Studio http://127.0.0.1:1234/v1, vLLM http://127.0.0.1:8000/v1',
      value: baseUrl || (await answeringLocalServer()),
      validate: (value) => (normalizeOrigin(value) ? undefined : 'Enter an http:// or https:// address.'),
    });
    if (!entered) return false;
    baseUrl = entered.trim();
  }
  const origin = endpointOrigin(provider, baseUrl);
  const bound = keyForEndpoint(provider, baseUrl, await keys.getBound(provider));
  let apiKey = bound.ok ? bound.key : undefined;
  if (!apiKey && provider !== 'openai-compatible') {
    const key = await askKey(ui, provider, origin, `No ${PROVIDER_NAMES[provider]} key is stored for ${origin}.`);
    if (!key) return false;
    await keys.set(provider, key, origin);
    apiKey = key.trim();
  }

  const list = () => listModels({ provider, baseUrl, apiKey });
  let catalog = await ui.progress(`Tally: listing the models of ${origin}`, list);
  if (!catalog.ok && catalog.failure === 'unauthorized') {
    const key = await askKey(ui, provider, origin, `${catalog.message}`);
    if (!key) return false;
    await keys.set(provider, key, origin);
    apiKey = key.trim();
    catalog = await ui.progress(`Tally: listing the models of ${origin}`, list);
  }
  const pick = await ui.pick(modelItems(catalog), { title: `Tally: Select Model — ${PROVIDER_NAMES[provider]} at ${origin}`, placeholder: () => sayCatalog(catalog) });
  if (!pick) return false;
  let model = pick.modelId;
  if (!model) {
    model = (await ui.input({ title: 'Tally: Select Model — model id', prompt: `The id ${PROVIDER_NAMES[provider]} knows the model by`, value: current.provider === provider ? current.model : '', validate: (v) => (v.trim() ? undefined : 'Enter a model id.') }))?.trim();
    if (!model) return false;
  }

  await config.update('baseUrl', baseUrl || undefined, vscode.ConfigurationTarget.Global);
  await config.update('provider', provider, vscode.ConfigurationTarget.Global);
  await config.update('model', model, vscode.ConfigurationTarget.Global);
  const planned = await ui.progress(`Tally: asking ${origin} for the context window of ${model}`, () => planWindow({ ...readConfiguration(), provider, model, baseUrl }, apiKey), true);
  const window = planned.tokens ?? resolveModel(model).contextWindow;
  ui.info(`Tally will use ${model} on ${PROVIDER_NAMES[provider]} (${origin}), window ${formatWindow(window)} (${SOURCE_WORDS[planned.window.source]}).`);
  return true;
}
