import * as vscode from 'vscode';
import type { RestoreTarget } from '../core/ports/checkpointStore';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function openDocument(absolute: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && !d.isClosed && d.uri.fsPath === absolute);
}

/**
 * Restores through VS Code: a file open in an editor is replaced with one edit (an undo step, the
 * editor shows it at once) and saved; any other file is written or deleted through VS Code's file
 * system, so its watchers and explorer follow.
 */
export const vscodeRestoreTarget: RestoreTarget = {
  async writeFile(absolute, bytes) {
    const uri = vscode.Uri.file(absolute);
    const doc = openDocument(absolute);
    let text: string | undefined;
    try {
      text = doc && strictUtf8.decode(bytes).replace(/^\uFEFF/, '');
    } catch {
      text = undefined; // not text: written as bytes
    }
    if (doc && text !== undefined) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
      if (!(await vscode.workspace.applyEdit(edit))) throw new Error('VS Code did not apply the edit');
      if (!(await doc.save())) throw new Error('VS Code could not save it');
      return;
    }
    await vscode.workspace.fs.writeFile(uri, bytes);
  },
  async deleteFile(absolute) {
    await vscode.workspace.fs.delete(vscode.Uri.file(absolute), { useTrash: false });
  },
};
