import * as vscode from 'vscode';
import { resumableSessions } from '../core/context/resumableSessions';
import { subagentLinkOf } from '../core/agent/subagents/sessionLink';
import type { SessionActions } from '../host/sessionState/sessionActions';

export async function resumeSessionCommand(sessions: SessionActions, id?: string): Promise<string | undefined> {
  const store = await sessions.store();
  if (!id) {
    const list = await resumableSessions(store, await store.listSessions());
    if (list.length === 0) {
      void vscode.window.showInformationMessage('Tally has no saved sessions yet.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      list.map((s) => ({ label: s.title, description: new Date(s.updatedAt).toLocaleString(), detail: s.origin?.startsWith('replay:') ? 'replay of a recorded run' : subagentLinkOf(s) ? `a subagent's session (${subagentLinkOf(s)!.agent})` : undefined, id: s.id })),
      { title: 'Tally: Resume Session', matchOnDescription: true },
    );
    id = pick?.id;
  }
  if (!id) return undefined;
  const info = await store.getSession(id);
  const session = await sessions.open(id, info?.origin?.startsWith('replay:') ? info.origin.slice('replay:'.length) : undefined);
  return session.info.id;
}
