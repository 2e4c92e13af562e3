import * as vscode from 'vscode';
import { sessionSearchItems } from '../host/chat/sessionSearchItems';
import type { SessionActions } from '../host/sessionState/sessionActions';

type SearchPickItem = vscode.QuickPickItem & { sessionId: string };

/**
 * Tally: Search Sessions. A picker searched as the user types (titles and the messages' text, from
 * the store's index); each row names the session, when, and the words that matched; choosing one
 * opens it. `query` fills the box (the chat and tests pass one). Resolves to the opened session's id.
 */
export function searchSessionsCommand(sessions: SessionActions, query?: string): Promise<string | undefined> {
  const picker = vscode.window.createQuickPick<SearchPickItem>();
  picker.title = 'Tally: Search Sessions';
  picker.placeholder = 'Search past sessions by title and text';
  picker.matchOnDescription = true;
  picker.matchOnDetail = true;
  let asked = 0;
  const search = async (text: string) => {
    const ask = ++asked;
    if (!text.trim()) {
      picker.items = [];
      return;
    }
    picker.busy = true;
    try {
      const hits = await (await sessions.store()).searchSessions(text);
      if (ask !== asked) return; // a later search is under way
      const when = (at: number) => new Date(at).toLocaleString();
      picker.items = sessionSearchItems(hits, when).map((item) => ({ ...item, alwaysShow: true }));
      picker.placeholder = hits.length ? 'Search past sessions by title and text' : `No session holds “${text.trim()}”`;
    } catch (error) {
      if (ask === asked) picker.placeholder = `The search failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      if (ask === asked) picker.busy = false;
    }
  };
  return new Promise((resolve, reject) => {
    let accepted = false;
    picker.onDidChangeValue((text) => void search(text));
    picker.onDidAccept(() => {
      const chosen = picker.selectedItems[0] ?? picker.activeItems[0];
      if (!chosen) return;
      accepted = true;
      picker.hide();
      sessions.open(chosen.sessionId).then((session) => resolve(session.info.id), reject);
    });
    picker.onDidHide(() => {
      picker.dispose();
      if (!accepted) resolve(undefined);
    });
    if (query) {
      picker.value = query;
      void search(query);
    }
    picker.show();
  });
}
