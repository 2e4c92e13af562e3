import * as vscode from 'vscode';
import type { ApprovalRequest } from '../core/tools/types';

export const DIFF_SCHEME = 'tally-diff';

/**
 * Shows a proposed edit in VS Code's diff editor while its approval waits: the current text on
 * the left, the proposed text on the right, both read-only documents of a `tally-diff:` URI (never
 * untitled documents that ask to be saved). The editor's title bar offers Accept and Reject; the
 * diff closes once the approval is answered, wherever it was answered.
 */
export class EditApprovalDiffs implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, { before: string; after: string }>();
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const { call, side } = parseQuery(uri);
    const texts = call ? this.texts.get(call) : undefined;
    return side === 'before' ? (texts?.before ?? '') : (texts?.after ?? '');
  }

  /** Opens the diff for an edit approval; does nothing for other approvals. */
  async show(request: ApprovalRequest): Promise<void> {
    if (request.kind !== 'edit' || !request.preview || !request.target) return;
    this.texts.set(request.callId, request.preview);
    const side = (which: 'before' | 'after') => vscode.Uri.from({ scheme: DIFF_SCHEME, path: request.target!, query: `call=${encodeURIComponent(request.callId)}&side=${which}` });
    const name = request.target.split(/[\\/]/).pop() ?? request.target;
    await vscode.commands.executeCommand('vscode.diff', side('before'), side('after'), `${name}: proposed edit (Tally)`, { preview: false, preserveFocus: true });
  }

  /** Closes the diff of an approval once it is answered. */
  async close(callId: string): Promise<void> {
    if (!this.texts.delete(callId)) return;
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && callOf(t.input.modified) === callId);
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
  }

  /** The approval a diff editor's document belongs to (for its Accept and Reject buttons). */
  callOf(uri: vscode.Uri | undefined): string | undefined {
    return callOf(uri);
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}

function parseQuery(uri: vscode.Uri): { call?: string; side?: string } {
  const params = new URLSearchParams(uri.query);
  return { call: params.get('call') ?? undefined, side: params.get('side') ?? undefined };
}

function callOf(uri: vscode.Uri | undefined): string | undefined {
  return uri?.scheme === DIFF_SCHEME ? parseQuery(uri).call : undefined;
}
