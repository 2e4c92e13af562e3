import type { BlobInfo } from '../ports/blobStore';

/**
 * Whether `sessionId` may read a stored result. Every workspace shares the store, so a ref id
 * alone (which a model can learn or guess) never reads a result: only the session that stored it
 * does, or a session it is shared with (a forked session will read its parent's results).
 */
export function ownsResult(sessionId: string, info: Pick<BlobInfo, 'sessionId' | 'sharedWith'>): boolean {
  return info.sessionId === sessionId || (info.sharedWith?.includes(sessionId) ?? false);
}

/** The one answer for a ref the asking session cannot read, whether it exists elsewhere or not at all. */
export function noResultInSession(refId: string): Error {
  return new Error(`no stored result ${refId} in this session`);
}
