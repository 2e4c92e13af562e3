import type { InspectorToHost } from '../../protocol/inspector';
import type { InspectorIntentDeps } from './inspectorIntents';

/**
 * "Fork from request #N": the webview names the session it shows and the request; the fork is made
 * only from the session the inspector shows now (a webview never chooses another session to read).
 */
export async function forkFromRequest(d: Pick<InspectorIntentDeps, 'sessions' | 'executeCommand'>, m: Extract<InspectorToHost, { type: 'forkFromRequest' }>): Promise<void> {
  const session = await d.sessions.current();
  if (session.info.id !== m.sessionId) throw new Error(`The inspector now shows "${session.info.title}"; select the request to fork from again.`);
  await d.executeCommand('tally.forkFromRequest', m.sessionId, m.requestIndex);
}
