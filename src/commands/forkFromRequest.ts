import * as vscode from 'vscode';
import { ChatViewProvider } from '../views/chatViewProvider';
import type { SessionActions } from '../host/sessionState/sessionActions';

/**
 * Tally: Fork from Request — a new session from what request #N of a stored session carried,
 * opened in the chat. Its arguments come from the inspector (or a caller): checked here before
 * the store is asked anything. Returns the new session's id.
 */
export async function forkFromRequestCommand(sessions: SessionActions, sessionId: unknown, requestIndex: unknown): Promise<string> {
  if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > 200) throw new Error('Fork from request: no session was named.');
  if (typeof requestIndex !== 'number' || !Number.isSafeInteger(requestIndex) || requestIndex < 0) throw new Error(`Fork from request: "${String(requestIndex)}" is not a request number.`);
  const forked = await sessions.fork({ fromSessionId: sessionId, fromRequestIndex: requestIndex });
  await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
  void vscode.window.showInformationMessage(`Tally: "${forked.info.title}" starts with the ${forked.contextSession.messages.length} messages request #${requestIndex} carried.`);
  return forked.info.id;
}
