import * as vscode from 'vscode';
import type { RestoreTarget } from '../core/ports/checkpointStore';
import { confinedRestoreTarget } from '../node/checkpoints/nodeRestoreTarget';
import { editorFollows, revertToDisk } from './editorFollows';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function openDocument(absolute: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && !d.isClosed && d.uri.fsPath === absolute);
}

/**
 * Restores through the folders held open from the workspace folders open now (`folders`), never by
 * path, so a folder swapped for a link while the Restore dialog was open cannot lead a write or a
 * delete outside. An editor showing a restored file shows its restored text: one without unsaved
 * changes reloads it, one with unsaved changes is reverted to it (those changes stay in its undo).
 */
export function vscodeRestoreTarget(folders: () => readonly string[]): RestoreTarget {
  const disk = confinedRestoreTarget(folders);
  return {
    async writeFile(absolute, bytes) {
      const doc = openDocument(absolute);
      const dirty = doc?.isDirty ?? false;
      await disk.writeFile(absolute, bytes);
      if (!doc) return;
      if (dirty) return revertToDisk(doc);
      let text: string;
      try {
        text = strictUtf8.decode(bytes);
      } catch {
        return; // not text: the editor shows what VS Code makes of it
      }
      if (!(await editorFollows(doc, text))) throw new Error('it was restored on disk, but the editor showing it has not reloaded it');
    },
    deleteFile: (absolute) => disk.deleteFile(absolute),
  };
}
