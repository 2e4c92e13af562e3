import { homedir } from 'os';
import * as vscode from 'vscode';
import type { Message } from '../core/model/message';
import type { CompactionEventRecord, TurnUsageRecord } from '../core/model/records';
import type { SessionInfo } from '../core/ports/sessionStore';
import { exportFileName } from '../host/session/exportFileName';
import type { SessionController } from '../session/sessionController';
import type { ReadOnlyDocuments } from '../views/readOnlyDocuments';

export function sessionToMarkdown(info: SessionInfo, transcript: Message[], compactions: CompactionEventRecord[], usage: TurnUsageRecord[]): string {
  const lines = [`# ${info.title}`, '', `Session ${info.id} · ${new Date(info.createdAt).toISOString()} · ${usage.length} requests · ${compactions.length} compactions`, ''];
  const events = [...compactions].sort((a, b) => a.startedAt - b.startedAt);
  let e = 0;
  for (const m of transcript) {
    while (e < events.length && events[e].startedAt <= m.createdAt) {
      const c = events[e++];
      lines.push(`> **Compaction** (${c.trigger}, ${c.status}): ${c.tokensBefore} → ${c.tokensAfter} tokens; ${c.strategies.join(', ')}`, '');
    }
    if (m.role === 'user' && m.kind === 'user') lines.push('## User', '', m.content, '');
    else if (m.role === 'assistant') {
      lines.push('## Assistant', '', m.content, '');
      for (const c of m.toolCalls ?? []) lines.push(`- tool call \`${c.name}\` \`${c.arguments}\``);
      if (m.toolCalls?.length) lines.push('');
    } else if (m.role === 'tool') {
      lines.push(`### Result of ${m.toolName ?? 'tool'}${m.meta?.offloadRef ? ` (full output: ${m.meta.offloadRef})` : ''}`, '', '```', m.content, '```', '');
    }
  }
  return lines.join('\n');
}

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
export async function exportSessionCommand(sessions: SessionController, docs: ReadOnlyDocuments, args?: ExportArgs): Promise<string | undefined> {
  const session = await sessions.current();
  const store = await sessions.store();
  const format = args?.format ?? (await vscode.window.showQuickPick(['markdown', 'json'], { title: 'Tally: Export Session — format' }));
  if (format !== 'markdown' && format !== 'json') return undefined;
  const [transcript, compactions, usage] = await Promise.all([
    store.loadTranscript(session.info.id),
    store.listCompactionEvents(session.info.id),
    store.listTurnUsage(session.info.id),
  ]);
  const text =
    format === 'json'
      ? JSON.stringify({ session: session.info, transcript, compactions, usage }, null, 2)
      : sessionToMarkdown(session.info, transcript, compactions, usage);
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
