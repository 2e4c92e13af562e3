import * as vscode from 'vscode';
import { compactionMessage, currentFigures } from '../host/figures/compactionMessage';
import type { SessionActions } from '../host/sessionState/sessionActions';

/** Tally: Compact Context — optional focus, progress while it runs, tokens before → after. */
export async function compactContextCommand(sessions: SessionActions, focusArg?: string): Promise<string> {
  const focus =
    focusArg ??
    (await vscode.window.showInputBox({
      title: 'Tally: Compact Context',
      prompt: 'Optional focus: what the summary should keep in mind (leave empty for none)',
      placeHolder: 'e.g. the failing parser test and the API decisions',
    }));
  if (focus === undefined) return 'cancelled';
  const session = await sessions.current();
  const before = await currentFigures(sessions, session);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Tally: compacting context…', cancellable: false },
    () => sessions.compact(focus?.trim() || undefined),
  );
  const text = compactionMessage(result, before, await currentFigures(sessions, session));
  if (result.status === 'error') void vscode.window.showErrorMessage(text);
  else void vscode.window.showInformationMessage(text);
  return text;
}
