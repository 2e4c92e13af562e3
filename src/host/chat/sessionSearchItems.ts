import type { SessionSearchHit } from '../../core/ports/sessionStore';

/** One result of a session search as the picker lists it. No `vscode` import. */
export interface SessionSearchItem {
  sessionId: string;
  /** The session's title. */
  label: string;
  /** When: the matching message's time, else the session's last change. */
  description: string;
  /** The words around the match, or that the title matched. */
  detail: string;
}

/** The picker's rows for a search's hits, in their order; `when` formats a time for the user. */
export function sessionSearchItems(hits: readonly SessionSearchHit[], when: (at: number) => string): SessionSearchItem[] {
  return hits.map((hit) => ({
    sessionId: hit.session.id,
    label: hit.session.title || 'Untitled',
    description: when(hit.at ?? hit.session.updatedAt),
    detail: hit.snippet ?? (hit.matchedTitle ? 'title matches' : ''),
  }));
}
