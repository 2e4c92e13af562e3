import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';

/** The extension's API, activated. */
export async function api(): Promise<TallyApi> {
  return vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
}

/** Waits until `check` holds, polling every 50 ms; fails naming `what` after `ms`. */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const MODEL_KEYS = ['provider', 'model', 'baseUrl'];

/** Points Tally at a fake OpenAI-compatible server (user settings) and waits until the session has an agent. */
export async function useScriptedModel(baseUrl: string): Promise<void> {
  const config = vscode.workspace.getConfiguration('tally');
  await config.update('provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
  await config.update('baseUrl', baseUrl, vscode.ConfigurationTarget.Global);
  await config.update('model', 'scripted-model', vscode.ConfigurationTarget.Global);
  const { sessions } = await api();
  await until('the model is ready', async () => Boolean((await sessions.current()).agent));
}

/** Removes the model settings useScriptedModel wrote. */
export async function forgetScriptedModel(): Promise<void> {
  for (const key of MODEL_KEYS) await vscode.workspace.getConfiguration('tally').update(key, undefined, vscode.ConfigurationTarget.Global);
}
