import * as vscode from 'vscode';

/** The URI scheme of everything Tally opens: read-only, never untitled, never asks to be saved. */
export const VIEW_SCHEME = 'tally-view';
const TITLE_CHARS = 100;

/** A file name from a title: path separators and control characters replaced, length bounded. */
export function documentName(title: string, extension: string): string {
  const safe = title
    .replace(/[/\\]/g, '∕')
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const bounded = safe.length > TITLE_CHARS ? `${safe.slice(0, TITLE_CHARS - 1)}…` : safe;
  return `${bounded || 'Tally'}.${extension}`;
}

/**
 * Serves Tally's read-only views (offloaded results, summaries, instructions, request items,
 * exports) as virtual documents. A content provider's documents are read-only, so closing one
 * never asks to save; the tab shows the title as the document's name.
 */
export class ReadOnlyDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(VIEW_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? 'This Tally view is no longer available: open it again from the inspector or the chat.';
  }

  /** Opens `content` as a read-only document named `title` (`.md` is shown as Markdown, `.txt` as plain text). */
  async open(title: string, content: string, extension: 'txt' | 'md' | 'json' | 'log' = 'txt'): Promise<vscode.TextDocument> {
    const uri = vscode.Uri.from({ scheme: VIEW_SCHEME, path: `/${documentName(title, extension)}` });
    const key = uri.toString();
    const previous = this.contents.get(key);
    this.contents.set(key, content);
    if (previous !== undefined && previous !== content) this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
    return doc;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
    this.contents.clear();
  }
}
