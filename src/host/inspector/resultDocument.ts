import type { BlobInfo } from '../../core/ports/blobStore';
import type { SessionStore } from '../../core/ports/sessionStore';
import { noResultInSession } from '../../core/toolOutput/resultOwnership';
import { firstRequestAfter, requestsByTime, toolCallLabel, withRequest } from './documentTitles';
import type { SessionActions } from '../sessionState/sessionActions';

const MAX_RESULT_BYTES = 64 * 1024 * 1024;

/**
 * An offloaded result of the session `sessionId` as a document's title and text, named by its
 * tool, what it acted on, and the request; undefined when that session owns no result `refId`
 * (unknown, or another session's: the store is shared by every workspace). `known`: the name the
 * session's view gave it when it was stored; a result stored before the session opened has none
 * (the store keeps no name with a result), so its call is looked up in the session's index.
 */
export async function resultDocument(store: SessionStore, sessionId: string, refId: string, known?: string): Promise<{ title: string; content: string } | undefined> {
  const info = await store.getBlobInfo(sessionId, refId);
  if (!info) return undefined;
  const slice = await store.readBlob(sessionId, refId, 0, Math.min(info.byteSize, MAX_RESULT_BYTES));
  const content = new TextDecoder('utf-8', { fatal: false }).decode(slice.bytes);
  return { title: `${known ?? (await indexedTitle(store, info))} (full result)`, content };
}

async function indexedTitle(store: SessionStore, info: BlobInfo): Promise<string> {
  const [index, usage] = await Promise.all([store.loadToolCallIndex(info.sessionId), store.listRequestUsage(info.sessionId, { items: false })]);
  const call = info.toolCallId ? index.calls.get(info.toolCallId) : undefined;
  const resultTime = info.toolCallId ? index.resultTimes.get(info.toolCallId) : undefined;
  return withRequest(toolCallLabel(info.toolName, call?.arguments), firstRequestAfter(requestsByTime(usage), resultTime));
}

/** What Open result may touch. No `vscode` import: the command passes the real things, tests pass fakes. */
export interface OpenResultDeps<T> {
  sessions: Pick<SessionActions, 'current' | 'store'>;
  open(title: string, content: string): Promise<T>;
  showError(text: string): void;
}

/**
 * Opens a result of the session shown (the chat's and the inspector's): a ref id, whoever sends it,
 * never opens another session's result.
 */
export async function openResult<T>(d: OpenResultDeps<T>, refId: string): Promise<T | undefined> {
  const session = await d.sessions.current();
  const found = await resultDocument(await d.sessions.store(), session.info.id, refId, session.state?.records.blobTitles.get(refId));
  if (!found) {
    d.showError(`Tally: ${noResultInSession(refId).message}.`);
    return undefined;
  }
  return d.open(found.title, found.content);
}
