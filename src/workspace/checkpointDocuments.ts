import * as vscode from 'vscode';
import type { CheckpointStore } from '../core/ports/checkpointStore';

/** The scheme of a checkpoint's stored file shown in a restore's diff: read-only, never saved. */
export const CHECKPOINT_SCHEME = 'tally-checkpoint';

/** The address of a stored file's bytes (`hash`), or of an absent file (empty), named after the file. */
export function checkpointDiffUri(hash: string | undefined, relative: string): vscode.Uri {
  const name = relative.split('/').pop() || 'file';
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${hash ?? 'absent'}/${name}` });
}

/** Serves the stored bytes of checkpoints as read-only documents for the restore's diffs. */
export class CheckpointDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly registration: vscode.Disposable;

  constructor(private readonly store: Pick<CheckpointStore, 'read'>) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const hash = uri.path.split('/')[1] ?? '';
    if (hash === 'absent') return '';
    try {
      return new TextDecoder().decode(await this.store.read(hash));
    } catch (error) {
      return `This file's saved content could not be read: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  dispose(): void {
    this.registration.dispose();
  }
}
