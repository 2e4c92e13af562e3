import * as vscode from 'vscode';
import { openStore, startSqlWarmUp, type SqlWarmUp } from '../node/store';
import { StoreOpener } from '../node/store/storeOpener';
import type { SessionStore, StoreProblem } from '../core/ports/sessionStore';

/**
 * Opens the sql.js store in global storage on first use (never during activation) and reports
 * problems (a corrupt file set aside, a failed write) to the user without stopping Tally.
 */
export class SessionStoreHost implements vscode.Disposable {
  private readonly opener = new StoreOpener(() => this.open());
  private warming?: SqlWarmUp;

  constructor(private readonly context: vscode.ExtensionContext, private readonly log: vscode.LogOutputChannel) {}

  /** Where the store lives: the extension's global storage. */
  get folder(): string {
    return vscode.Uri.joinPath(this.context.globalStorageUri, 'store').fsPath;
  }

  /** Where the built extension keeps sql.js's WebAssembly. */
  private get wasmPath(): string {
    return vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'sql-wasm.wasm').fsPath;
  }

  /**
   * Makes sql.js ready in the background (see sqlWarmUp.ts) until the store opens, without opening
   * it: called at activation, which does not wait for it, so that the window's first read of a
   * session, once the chat has loaded, finds sql.js compiled.
   */
  warmUp(): void {
    this.warming ??= startSqlWarmUp(this.wasmPath, vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'storeWorker.js').fsPath);
  }

  /** The store; an open that failed is tried again on the next call. */
  get(): Promise<SessionStore> {
    return this.opener.get();
  }

  private async open(): Promise<SessionStore> {
    this.warming?.stop();
    // openStore creates the folder, or falls back to a read-only or in-memory store and says why.
    const store = await openStore(this.folder, { wasmPath: this.wasmPath, log: (line) => this.log.info(line) });
    for (const problem of store.problems) this.report(problem);
    store.onProblem((problem) => this.report(problem));
    return store;
  }

  private report(problem: StoreProblem): void {
    this.log.warn(`store: ${problem.kind} ${problem.file}: ${problem.message}${problem.movedTo ? ` (moved to ${problem.movedTo})` : ''}`);
    void vscode.window.showWarningMessage(problemText(problem));
  }

  async dispose(): Promise<void> {
    this.warming?.stop();
    await (await this.opener.opened())?.close();
  }
}

/**
 * The warning shown for a store problem. The store reports a failed save once per streak of
 * identical failures (not on every retry), so each problem is shown as it comes.
 */
export function problemText(problem: StoreProblem): string {
  switch (problem.kind) {
    case 'corrupt':
      return `Tally found a damaged session file and set it aside${problem.movedTo ? ` (${problem.movedTo})` : ''}. Other sessions are unaffected.`;
    case 'newer-schema':
      return 'Tally found session data written by a newer version; it is left untouched and new data is written separately.';
    case 'read-failed':
      return `Tally could not read a session file (${problem.file}): ${problem.message}. It was left in place; the rest of the session data still loads.`;
    case 'recovered':
      return `Tally restored a session whose details could not be read, from its saved messages (${problem.message}). Its title may differ from before.`;
    case 'write-failed':
      return `Tally could not save session data: ${problem.message}. It keeps the session in memory and retries.`;
    case 'read-only':
      return `Tally cannot save sessions: ${problem.message}.`;
    case 'in-memory':
      return `Tally cannot use its session store: ${problem.message}.`;
  }
}
