import * as path from 'path';
import * as vscode from 'vscode';
import type { ChatAttachments } from '../attachments/chatAttachments';
import type { AttachTarget, ChatAttachmentView } from '../protocol/attachments';

const CHAT_VIEW_FOCUS = 'tally.chat.focus';

/** Tally: Add Selection to Chat — the active editor's selection becomes a chip above the chat's input. */
export async function addSelectionCommand(attachments: ChatAttachments): Promise<ChatAttachmentView[]> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) throw new Error('Select some text in an editor first, then choose Add Selection to Chat.');
  const views = await attachments.add([{ kind: 'selection' }]);
  await vscode.commands.executeCommand(CHAT_VIEW_FOCUS);
  return views;
}

/**
 * Tally: Add File to Chat — from the explorer (every selected file or folder, as VS Code passes
 * them: the clicked one and the selection) or, from the palette, the active editor's file.
 */
export async function addFileCommand(attachments: ChatAttachments, clicked?: unknown, selected?: unknown): Promise<ChatAttachmentView[]> {
  const uris = (Array.isArray(selected) && selected.length ? selected : clicked ? [clicked] : []).filter((u): u is vscode.Uri => u instanceof vscode.Uri);
  if (!uris.length && vscode.window.activeTextEditor) uris.push(vscode.window.activeTextEditor.document.uri);
  if (!uris.length) throw new Error('Choose a file in the explorer (or open one), then Add File to Chat.');
  const targets: AttachTarget[] = [];
  const refused: string[] = [];
  for (const uri of uris) {
    try {
      targets.push(await attachments.draft.targetOf(uri.toString()));
    } catch (error) {
      refused.push(error instanceof Error ? error.message : String(error));
    }
  }
  const views = await attachments.add(targets);
  if (refused.length) void vscode.window.showWarningMessage(`Tally: not attached: ${refused.join('; ')}`);
  if (views.length) await vscode.commands.executeCommand(CHAT_VIEW_FOCUS);
  else if (!refused.length) throw new Error(`Nothing to attach from ${uris.map((u) => path.basename(u.fsPath)).join(', ')}.`);
  return views;
}
