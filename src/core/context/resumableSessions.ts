import type { SessionInfo, SessionStore } from '../ports/sessionStore';

const DEFAULT_TITLE = 'New session';

/**
 * The sessions worth offering to resume, newest first: those with at least one message. Only a
 * session that may be empty (still the default title, or never updated since it was created) has
 * its transcript looked at, and only for its newest message, so a long list stays cheap.
 */
export async function resumableSessions(store: SessionStore, sessions: readonly SessionInfo[]): Promise<SessionInfo[]> {
  const kept = await Promise.all(
    sessions.map(async (session) => {
      const mayBeEmpty = session.title === DEFAULT_TITLE || session.updatedAt <= session.createdAt;
      if (!mayBeEmpty) return session;
      const recent = await store.loadRecentTranscript(session.id, 1);
      return recent.messages.length > 0 ? session : undefined;
    }),
  );
  return kept.filter((s): s is SessionInfo => s !== undefined).sort((a, b) => b.updatedAt - a.updatedAt);
}
