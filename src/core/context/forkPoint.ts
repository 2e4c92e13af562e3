import type { SessionInfo } from '../ports/sessionStore';

/** Where a fork starts: a stored session and one of its requests. */
export interface ForkPoint {
  fromSessionId: string;
  fromRequestIndex: number;
}

const PREFIX = 'fork:';

/** The session's `origin` for a fork: the session and request it started from. */
export function forkOrigin(point: ForkPoint): string {
  return `${PREFIX}${encodeURIComponent(point.fromSessionId)}/${point.fromRequestIndex}`;
}

/** The fork point a session's origin states, or undefined for a session that is not a fork. */
export function forkPointOf(info: Pick<SessionInfo, 'origin'>): ForkPoint | undefined {
  const match = info.origin?.startsWith(PREFIX) ? /^([^/]+)\/(\d{1,9})$/.exec(info.origin.slice(PREFIX.length)) : null;
  if (!match) return undefined;
  try {
    return { fromSessionId: decodeURIComponent(match[1]), fromRequestIndex: Number(match[2]) };
  } catch {
    return undefined;
  }
}
