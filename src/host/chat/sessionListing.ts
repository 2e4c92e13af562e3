import { subagentLinkOf } from '../../core/agent/subagents/sessionLink';
import type { SessionInfo, SessionStore } from '../../core/ports/sessionStore';
import type { ChatState } from '../../protocol/chat';

/** The title a session keeps until its first message names it. */
const UNNAMED = 'New session';

/**
 * The header's list of sessions: the 50 most recent the user can go back to. A subagent's session
 * opens from its card, not from here; a session still unnamed has no message (its first message
 * names it) and is left out, but for the one shown.
 */
export function headerSessions(sessions: readonly SessionInfo[], shownId?: string): ChatState['sessions'] {
  return [...sessions]
    .filter((s) => s.id === shownId || (!subagentLinkOf(s) && s.title !== UNNAMED))
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .slice(0, 50)
    .map((s) => ({ id: s.id, title: s.title, updatedAt: s.updatedAt }));
}

/**
 * The list of sessions the chat's header offers, kept while it holds: listing merges every
 * window's session index and reads the folder of sessions, which costs more the more sessions
 * there are. The list is read again only after this window created, updated or deleted a session,
 * or when `stale()` is called (the chat reloaded: another window may have changed the list meanwhile).
 */
export class SessionListing {
  private listed?: Promise<SessionInfo[]>;
  private readonly unsubscribe: () => void;

  /** `changed`: this window created, updated or deleted a session (the list is read again when next asked for). */
  constructor(readonly store: SessionStore, changed?: () => void) {
    this.unsubscribe = store.onSessionsChanged(() => {
      this.stale();
      changed?.();
    });
  }

  sessions(): Promise<SessionInfo[]> {
    if (!this.listed) {
      const listing = this.store.listSessions();
      this.listed = listing;
      // A failed listing is not kept: the next refresh lists again.
      listing.catch(() => {
        if (this.listed === listing) this.listed = undefined;
      });
    }
    return this.listed;
  }

  stale(): void {
    this.listed = undefined;
  }

  dispose(): void {
    this.unsubscribe();
  }
}
