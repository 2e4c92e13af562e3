import * as vscode from 'vscode';
import type { ApprovalRequest } from '../core/tools/types';
import { revealCharacters } from '../protocol/hiddenCharacters';
import { diffQuery, PendingEditDiffs, type DiffSide } from './pendingEditDiffs';

export const DIFF_SCHEME = 'tally-diff';

/**
 * Shows a proposed edit in VS Code's diff editor while its approval waits: the current text on
 * the left, the proposed text on the right, both read-only documents of a `tally-diff:` URI (never
 * untitled documents that ask to be saved). The editor's title bar offers Accept and Reject, which
 * answer only the edit that diff shows (its URI carries an unguessable token); the diff closes
 * once the approval is answered, wherever it was answered.
 */
export class EditApprovalDiffs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly diffs = new PendingEditDiffs();
  /** Diffs still opening, by call: an answer that comes first waits for its diff, then closes it. */
  private readonly opening = new Map<string, Promise<unknown>>();
  /** The decoded query (its token) of each pending diff's proposed side, by call. */
  private readonly proposedSide = new Map<string, string>();
  /**
   * Diffs answered before their tab reached this window's list of tabs (it is told of a tab a
   * moment after the diff command returns): each is closed as soon as its tab appears.
   */
  private readonly closeWhenOpened = new Set<string>();
  private readonly registration: vscode.Disposable;
  private readonly tabWatch: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this);
    this.tabWatch = vscode.window.tabGroups.onDidChangeTabs((change) => {
      // Compared by the decoded query (the diff's token): a tab's URI comes back from the window and its text form may be encoded differently.
      const late = [...change.opened, ...change.changed].filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === DIFF_SCHEME && this.closeWhenOpened.delete(t.input.modified.query));
      if (late.length) void vscode.window.tabGroups.close(late, true);
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.diffs.text(uri.query);
  }

  /** Opens the diff for an edit approval; does nothing for other approvals. */
  async show(request: ApprovalRequest): Promise<void> {
    if (request.kind !== 'edit' || !request.preview || !request.target) return;
    const token = this.diffs.add(request.callId, request.preview);
    const side = (which: DiffSide) => vscode.Uri.from({ scheme: DIFF_SCHEME, path: request.target!, query: diffQuery(token, which) });
    const name = revealCharacters(request.target.split(/[\\/]/).pop() ?? request.target);
    this.proposedSide.set(request.callId, side('after').query);
    const opened = Promise.resolve(vscode.commands.executeCommand('vscode.diff', side('before'), side('after'), `${name}: proposed edit (Tally)`, { preview: false, preserveFocus: true }));
    this.opening.set(request.callId, opened);
    try {
      await opened;
    } finally {
      if (this.opening.get(request.callId) === opened) this.opening.delete(request.callId);
    }
  }

  /** Closes the diff of an approval once it is answered, also when the answer came while it was opening. */
  async close(callId: string): Promise<void> {
    await this.opening.get(callId)?.catch(() => undefined);
    const proposed = this.proposedSide.get(callId);
    this.proposedSide.delete(callId);
    if (!this.diffs.remove(callId) || !proposed) return;
    const listed = this.tabsShowing(proposed);
    if (listed.length) await this.closeTabs(listed);
    // A tab not yet in the window's list, or one still opening when it was closed (the close can
    // miss it), is closed when the window next reports it, and now if it is listed already.
    const left = this.tabsShowing(proposed);
    if (left.length) await this.closeTabs(left);
    if (!listed.length || this.tabsShowing(proposed).length) this.closeWhenOpened.add(proposed);
  }

  private closeTabs(tabs: readonly vscode.Tab[]): Thenable<boolean> {
    return vscode.window.tabGroups.close(tabs, true).then(undefined, () => false);
  }

  private tabsShowing(proposedQuery: string): vscode.Tab[] {
    return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === DIFF_SCHEME && t.input.modified.query === proposedQuery);
  }

  /** The call an open diff's document belongs to (undefined for any other address). */
  callOf(uri: vscode.Uri | undefined): string | undefined {
    return uri?.scheme === DIFF_SCHEME ? this.diffs.callOf(uri.query) : undefined;
  }

  /** The pending edit Accept or Reject from this document answers, or undefined when it answers none. */
  answerable(uri: vscode.Uri | undefined, pendingKind: (callId: string) => string | undefined): string | undefined {
    return uri?.scheme === DIFF_SCHEME ? this.diffs.answerable(uri.query, pendingKind) : undefined;
  }

  dispose(): void {
    this.registration.dispose();
    this.tabWatch.dispose();
    this.diffs.clear();
  }
}
