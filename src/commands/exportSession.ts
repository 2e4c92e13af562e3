import { homedir } from 'os';
import * as vscode from 'vscode';
import { exportFileName } from '../host/export/exportFileName';
import { exportJson, exportMarkdown, readSessionExport } from '../host/export/sessionExport';
import type { SessionActions } from '../host/sessionState/sessionActions';
import type { ReadOnlyDocuments } from '../views/readOnlyDocuments';

export interface ExportArgs {
  format: 'markdown' | 'json';
  /** Write here without asking. */
  target?: string;
  /** Only open the export as a read-only document; write nothing. */
  preview?: boolean;
}

/**
 * Tally: Export Session — Markdown (readable) or JSON (complete records). Interactively, the export
 * opens first as a read-only document (nothing to save by accident), then a dialog asks where to write it.
 */
export async function exportSessionCommand(sessions: SessionActions, docs: ReadOnlyDocuments, args?: ExportArgs): Promise<string | undefined> {
  const session = await sessions.current();
  const store = await sessions.store();
  const format = args?.format ?? (await vscode.window.showQuickPick(['markdown', 'json'], { title: 'Tally: Export Session — format' }));
  if (format !== 'markdown' && format !== 'json') return undefined;
  // The session's subagents go with it, each under the delegate call that started it.
  const tree = await readSessionExport(store, session.info);
  const text = format === 'json' ? exportJson(tree) : exportMarkdown(tree);
  if (args?.target) {
    await vscode.workspace.fs.writeFile(vscode.Uri.file(args.target), Buffer.from(text, 'utf8'));
    return args.target;
  }
  const preview = await docs.open(['export', session.info.id], `Export of ${session.info.title} (not saved yet)`, text, format === 'json' ? 'json' : 'md');
  if (args?.preview) return preview.uri.toString();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(homedir());
  const chosen = await vscode.window.showSaveDialog({
    title: 'Tally: Export Session — save as',
    defaultUri: vscode.Uri.joinPath(folder, exportFileName(session.info.title, new Date(), format)),
    filters: format === 'json' ? { JSON: ['json'] } : { Markdown: ['md'] },
  });
  if (!chosen) return undefined;
  await vscode.workspace.fs.writeFile(chosen, Buffer.from(text, 'utf8'));
  // The preview said "not saved yet": it is saved now, so the preview goes and the file is offered instead.
  const previewTabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === preview.uri.toString());
  if (previewTabs.length) await vscode.window.tabGroups.close(previewTabs);
  void vscode.window.showInformationMessage(`Tally: exported "${session.info.title}" to ${chosen.fsPath}.`, 'Open').then(async (choice) => {
    if (choice === 'Open') await vscode.window.showTextDocument(chosen);
  });
  return chosen.fsPath;
}
