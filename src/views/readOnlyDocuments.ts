import * as vscode from 'vscode';
import { ViewTexts } from './documentAddress';

/** The context inspector's panel type (InspectorPanel.viewType). */
const INSPECTOR_VIEW_TYPE = 'tally.inspector';

/** The URI scheme of everything Tally opens: read-only, never untitled, never asks to be saved. */
export const VIEW_SCHEME = 'tally-view';

/** The active tab is the context inspector (its view type, as the tab reports it, ends with the panel's). */
function inspectorIsActive(): boolean {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputWebview && input.viewType.endsWith(INSPECTOR_VIEW_TYPE);
}

/**
 * Serves Tally's read-only views (offloaded results, summaries, instructions, request items,
 * exports) as virtual documents. A content provider's documents are read-only, so closing one
 * never asks to save; the tab shows the title as the document's name, and each thing shown has
 * its own address (see documentAddress.ts).
 */
export class ReadOnlyDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new ViewTexts();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(VIEW_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.text(uri.path) ?? 'This Tally view is no longer available: open it again from the inspector or the chat.';
  }

  /**
   * Opens `content` as a read-only document named `title`, at the address of `key` (what it shows,
   * e.g. ['result', refId]). `.md` is shown as Markdown, `.txt` as plain text.
   */
  async open(key: readonly string[], title: string, content: string, extension: 'txt' | 'md' | 'json' | 'log' = 'txt'): Promise<vscode.TextDocument> {
    const { path, changed } = this.texts.put(key, title, extension, content);
    const uri = vscode.Uri.from({ scheme: VIEW_SCHEME, path });
    if (changed) this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    // Opened from the inspector: beside it, so the inspector stays in view with its place and selection.
    await vscode.window.showTextDocument(doc, { preview: true, ...(inspectorIsActive() ? { viewColumn: vscode.ViewColumn.Beside } : {}) });
    return doc;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
    this.texts.clear();
  }
}
