import * as vscode from 'vscode';
import type { Message, ToolCall } from '../core/model/message';
import type { RequestItem, RequestUsageRecord } from '../core/model/records';
import { answeredCall } from '../core/context/answeredCall';
import { inConversation, messageText, requestItemFullText } from '../core/context/itemText';
import { toolCallLabel, withRequest } from '../host/inspector/documentTitles';
import { openResult } from '../host/inspector/resultDocument';
import type { SessionActions } from '../host/sessionState/sessionActions';
import { requestItemKeys } from '../protocol/requestItemKeys';
import type { ReadOnlyDocuments } from '../views/readOnlyDocuments';

/** Opens an offloaded result of the session shown as a read-only document (see resultDocument.ts). */
export function openResultCommand(sessions: SessionActions, docs: ReadOnlyDocuments, refId: string): Promise<vscode.TextDocument | undefined> {
  return openResult({ sessions, open: (title, content) => docs.open(['result', refId], title, content, 'txt'), showError: (text) => void vscode.window.showErrorMessage(text) }, refId);
}

function itemTitle(item: RequestItem, call: ToolCall | undefined, requestIndex: number | undefined): string {
  const what = item.toolName ? toolCallLabel(item.toolName, call?.arguments) : item.label ?? (item.kind === item.role ? item.kind : `${item.role} ${item.kind}`);
  return requestIndex === undefined ? `${what} · next request` : withRequest(what, requestIndex);
}

/** Opens one item of a request (by its position in wire order; no request: the next one) as a read-only document. */
export async function openRequestItemCommand(sessions: SessionActions, docs: ReadOnlyDocuments, requestIndex: number | undefined, position: number): Promise<vscode.TextDocument | undefined> {
  const session = await sessions.current();
  const store = await sessions.store();
  let items: RequestItem[];
  let planned: readonly Message[] = [];
  let record: RequestUsageRecord | undefined;
  if (requestIndex === undefined) {
    const plan = session.contextSession.planNextRequest();
    items = plan.items;
    planned = plan.messages;
  } else {
    record = await store.requestUsageAt(session.info.id, requestIndex);
    items = record?.items ?? [];
  }
  const item = items[position];
  if (!item) {
    void vscode.window.showErrorMessage(`Tally: request ${requestIndex === undefined ? '(next)' : `#${requestIndex}`} has no item ${position + 1}.`);
    return undefined;
  }
  // The item's own message, and for a tool result the call it answers (for its title): never the whole transcript.
  const message = planned.find((m) => m.id === item.messageId) ?? (inConversation(item) ? (await store.loadMessages(session.info.id, [item.messageId]))[0] : undefined);
  const call = item.toolName && message ? await answeredCall(store, session.info.id, message, planned) : undefined;
  // The same text the inspector shows when the item is expanded, whole: a message as it was sent,
  // a prompt part from the text its request stored.
  const text = message ? messageText(message) : await requestItemFullText({ store, sessionId: session.info.id, requestIndex, itemId: item.messageId, working: session.contextSession.messages, current: requestIndex === undefined ? items : undefined, record }).then(
    (found) => found.text,
    (error: unknown) => `${item.label ?? item.kind}: ${item.preview}\n\n(${error instanceof Error ? error.message : String(error)})`,
  );
  return docs.open(['item', session.info.id, requestIndex === undefined ? 'next' : String(requestIndex), requestItemKeys(items)[position]], itemTitle(item, call, requestIndex), text, 'txt');
}

/** Opens the summary a compaction wrote, named by when it ran and the request it preceded. */
export async function openSummaryCommand(sessions: SessionActions, docs: ReadOnlyDocuments, compactionId: string): Promise<vscode.TextDocument | undefined> {
  const session = await sessions.current();
  const store = await sessions.store();
  const [events, usage] = await Promise.all([store.listCompactionEvents(session.info.id), store.listRequestUsage(session.info.id, { items: false })]);
  const event = events.find((e) => e.id === compactionId);
  if (!event?.summary) {
    void vscode.window.showErrorMessage('Tally: this compaction wrote no summary.');
    return undefined;
  }
  const next = usage.find((u) => u.compactionId === compactionId)?.requestIndex;
  const when = new Date(event.startedAt).toLocaleString();
  return docs.open(['summary', compactionId], `Summary of the ${event.trigger} compaction at ${when}${next === undefined ? '' : ` · before request #${next}`}`, event.summary, 'md');
}
