import * as vscode from 'vscode';
import { openStore } from '../core/persistence';
import type { SessionStore, StoreProblem } from '../core/persistence/types';

/**
 * Opens the sql.js store in global storage on first use (never during activation) and reports
 * problems (a corrupt file set aside, a failed write) to the user without stopping Tally.
 */
export class SessionStoreHost implements vscode.Disposable {
  private opening?: Promise<SessionStore>;
  private store?: SessionStore;

  constructor(private readonly context: vscode.ExtensionContext, private readonly log: vscode.LogOutputChannel) {}

  /** Where the store lives: the extension's global storage. */
  get folder(): string {
    return vscode.Uri.joinPath(this.context.globalStorageUri, 'store').fsPath;
  }

  get(): Promise<SessionStore> {
    this.opening ??= this.open();
    return this.opening;
  }

  private async open(): Promise<SessionStore> {
    const folder = this.folder;
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(folder));
    const wasmPath = vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'sql-wasm.wasm').fsPath;
    const store = await openStore(folder, { wasmPath, log: (line) => this.log.info(line) });
    for (const problem of store.problems) this.report(problem);
    store.onProblem((problem) => this.report(problem));
    this.store = store;
    return store;
  }

  private report(problem: StoreProblem): void {
    this.log.warn(`store: ${problem.kind} ${problem.file}: ${problem.message}${problem.movedTo ? ` (moved to ${problem.movedTo})` : ''}`);
    const text =
      problem.kind === 'corrupt'
        ? `Tally found a damaged session file and set it aside${problem.movedTo ? ` (${problem.movedTo})` : ''}. Other sessions are unaffected.`
        : problem.kind === 'newer-schema'
          ? 'Tally found session data written by a newer version; it is left untouched and new data is written separately.'
          : `Tally could not save session data: ${problem.message}. It keeps the session in memory and retries.`;
    void vscode.window.showWarningMessage(text);
  }

  async dispose(): Promise<void> {
    await this.store?.close();
  }
}
