import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';
import type { ToolRunResult } from '../../../src/core/agent/toolRunner';
import { FakeOpenAIServer } from '../../fakes/openaiServer';

/** Tally's API, activating it first if needed. */
export async function tallyApi(): Promise<TallyApi> {
  return vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
}

/** Polls `check` every 50 ms until it holds; fails naming `what` after `ms`. */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Runs a built-in tool outside a turn and says whether it asked the user: the approval card's event
 * came before the call settled. When it asked, the user's answer is "deny".
 */
export async function runAndDeny(agents: TallyApi['agents'], id: string, name: string, args: Record<string, unknown>): Promise<{ asked: boolean; output: string }> {
  let asked!: () => void;
  const askedEvent = new Promise<'asked'>((resolve) => (asked = () => resolve('asked')));
  const pending = agents.runWorkspaceTool({ id, name, arguments: JSON.stringify(args) }, () => asked());
  const first = await Promise.race([askedEvent, pending.then((): 'settled' => 'settled')]);
  if (first === 'asked') agents.resolveApproval(id, false);
  const result: ToolRunResult = await pending;
  return { asked: first === 'asked', output: String(result.output) };
}

/** The settings the window-figure suites run with: a scripted OpenAI-compatible model that compacts eagerly. */
export const SCRIPTED_WINDOW_SETTINGS: Readonly<Record<string, unknown>> = {
  provider: 'openai-compatible',
  model: 'scripted-model',
  contextWindow: 64_000,
  'compaction.keepToolResults': 0,
  'compaction.minBatchTokens': 0,
};

/**
 * Starts a keyless fake OpenAI server for the suite and points Tally's user settings at it (with
 * `settings`) before the suite's tests, and puts both back after them. The server is read through
 * the returned function once the suite runs.
 */
export function scriptedModelForSuite(settings: Readonly<Record<string, unknown>>): () => FakeOpenAIServer {
  const config = () => vscode.workspace.getConfiguration('tally');
  let server: FakeOpenAIServer | undefined;
  before(async () => {
    server = await new FakeOpenAIServer({ apiKey: undefined }).start();
    for (const [key, value] of Object.entries(settings)) await config().update(key, value, vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    for (const key of [...Object.keys(settings), 'baseUrl']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });
  return () => {
    if (!server) throw new Error('the scripted model server starts before the suite runs');
    return server;
  };
}
