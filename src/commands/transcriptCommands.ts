import { existsSync } from 'fs';
import { basename, join } from 'path';
import * as vscode from 'vscode';
import { replayInWorker } from '../node/transcripts/replayInWorker';
import type { SessionController } from '../lifecycle/sessionController';
import { readConfiguration } from '../config/readSettings';

/** The demo run: brotli-compressed beside the bundles (the package has only that: 26 KB smaller), else as a clone has it. */
const DEMO_RUN = ['dist/demo-run.traj.json.br', 'media/demo/demo-run.traj.json'];
const DEMO_WINDOW = 32_000;

/**
 * Replays a recorded run through the context manager into a new session and opens it in the
 * inspector. Import and replay run in a worker thread (dist/storeWorker.js, beside this bundle),
 * which writes the session into the same store folder, so the extension host stays responsive.
 */
export async function replayIntoSession(sessions: SessionController, file: string, label: string, window: number): Promise<string> {
  await sessions.store(); // the folder exists and the host's store is open before the worker writes
  const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Tally: replaying ${label}…` }, () =>
    replayInWorker(join(__dirname, 'storeWorker.js'), { file, label, window, storeFolder: sessions.storageFolder, wasmPath: join(__dirname, 'sql-wasm.wasm'), settings: readConfiguration().context }),
  );
  await sessions.open(result.sessionId, label);
  await vscode.commands.executeCommand('tally.openInspector');
  return result.sessionId;
}

export async function openTranscriptCommand(sessions: SessionController, file?: string): Promise<string | undefined> {
  if (!file) {
    const picked = await vscode.window.showOpenDialog({
      title: 'Tally: Open Transcript in Inspector',
      canSelectMany: false,
      filters: { 'Agent transcripts': ['json', 'jsonl', 'traj'] },
    });
    file = picked?.[0]?.fsPath;
  }
  if (!file) return undefined;
  const window = vscode.workspace.getConfiguration('tally').get<number | null>('contextWindow') ?? 128_000;
  try {
    return await replayIntoSession(sessions, file, basename(file), window);
  } catch (error) {
    void vscode.window.showErrorMessage(`Tally: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

export function openDemoReplayCommand(sessions: SessionController, extensionUri: vscode.Uri): Promise<string> {
  const paths = DEMO_RUN.map((path) => vscode.Uri.joinPath(extensionUri, path).fsPath);
  const file = paths.find((path) => existsSync(path)) ?? paths[paths.length - 1];
  return replayIntoSession(sessions, file, 'demo: mini-swe-agent run (32K window)', DEMO_WINDOW);
}
