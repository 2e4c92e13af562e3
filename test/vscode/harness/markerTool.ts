import { existsSync, readFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import * as vscode from 'vscode';
import type { ApprovalRequest } from '../../../src/core/tools/types';
import type { TallyApi } from '../../../src/extension';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { NO_TOOL_CHOICE } from '../../../src/core/tools/toolChoice';

/** The tool the marker-tool test extension registers (test/vscode/markerTool). */
export const MARKER_TOOL = 'tally_test_write_marker';
export const MARKER_EXTENSION = 'tally-test.marker-tool';

export function markerPath(token: string): string {
  return join(tmpdir(), `tally-lm-marker-${token}`);
}

/** How many times the tool ran for `token` (0 when its marker file does not exist). */
export function markerRuns(token: string): number {
  const path = markerPath(token);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).length : 0;
}

/**
 * Tally activated, the marker extension active, its tool turned on in the user's tool choice
 * (`markerOn: false` leaves the default choice), and Tally pointed (user settings) at a local fake
 * OpenAI-compatible server.
 */
export async function withFakeModel(run: (ctx: { api: TallyApi; server: FakeOpenAIServer; approvals: ApprovalRequest[] }) => Promise<void>, options: { markerOn?: boolean } = {}): Promise<void> {
  const api = await vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
  await vscode.extensions.getExtension(MARKER_EXTENSION)?.activate();
  const server = await new FakeOpenAIServer().start();
  const config = vscode.workspace.getConfiguration('tally');
  const approvals = recordApprovals(api);
  try {
    await config.update('provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
    await config.update('model', 'gpt-fake', vscode.ConfigurationTarget.Global);
    await config.update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    if (options.markerOn !== false) await vscode.commands.executeCommand('tally.configureTools', { picked: [...api.agents.pickableTools().filter((t) => t.source === 'builtin').map((t) => t.name), MARKER_TOOL] });
    await run({ api, server, approvals: approvals.requests });
  } finally {
    approvals.dispose();
    await api.agents.toolChoice.set(NO_TOOL_CHOICE);
    for (const key of ['provider', 'model', 'baseUrl']) await config.update(key, undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  }
}

/** The model's reply that calls the marker tool. */
export function callMarker(token: string, id = 'call_0') {
  return { type: 'reply' as const, parts: [{ toolCall: { id, name: MARKER_TOOL, arguments: JSON.stringify({ token }) } }] };
}

/** Every approval Tally asks for from now on, in order. */
export function recordApprovals(api: TallyApi): { requests: ApprovalRequest[]; dispose(): void } {
  const requests: ApprovalRequest[] = [];
  const subscription = api.sessions.onAgentEvent((e) => {
    if (e.type === 'approval_needed') requests.push(e.request);
  });
  return { requests, dispose: () => subscription.dispose() };
}

/** Waits until `requests` holds its `n`th approval. */
export async function nextApproval(requests: readonly ApprovalRequest[], n: number, timeoutMs = 20_000): Promise<ApprovalRequest> {
  const deadline = Date.now() + timeoutMs;
  while (requests.length < n) {
    if (Date.now() > deadline) throw new Error(`approval ${n} was not requested`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return requests[n - 1];
}

/** The tool results of the active session, oldest first. */
export async function toolResults(api: TallyApi): Promise<string[]> {
  const store = await api.sessions.store();
  return (await store.loadTranscript(api.sessions.active!.info.id)).filter((m) => m.role === 'tool').map((m) => m.content);
}

/** Names of the tools a request to the fake server offered. */
export function offeredTools(body: unknown): string[] {
  return ((body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name);
}
