import * as vscode from 'vscode';

const comparable = (text: string) => text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');

/**
 * Waits until an open document without unsaved changes shows `text`, which was just written to its
 * file on disk: VS Code reloads such a document when its file changes (one undo step in the
 * editor). False when it has not after `ms` (a file its watcher skips).
 */
export async function editorFollows(doc: vscode.TextDocument, text: string, ms = 5_000): Promise<boolean> {
  const wanted = comparable(text);
  const shows = () => comparable(doc.getText()) === wanted;
  if (shows()) return true;
  return new Promise<boolean>((resolve) => {
    const finish = (result: boolean) => {
      clearTimeout(timer);
      subscription.dispose();
      resolve(result);
    };
    const timer = setTimeout(() => finish(shows()), ms);
    const subscription = vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document === doc && shows()) finish(true);
    });
  });
}

/**
 * Makes an editor with unsaved changes show its file as it is on disk now (its changes stay in its
 * undo history): VS Code reverts only the active editor, so the document is shown first.
 */
export async function revertToDisk(doc: vscode.TextDocument): Promise<void> {
  await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: false });
  if (vscode.window.activeTextEditor?.document === doc) await vscode.commands.executeCommand('workbench.action.files.revert');
}
