import { compactionPreview, type HostToInspector, type InspectorToHost } from '../../protocol/inspector';
import { removedAfter } from '../../protocol/inspectorCompactions';
import type { CompactionResult } from '../../core/compaction/compactor';
import { editedPreviewFigures } from '../../core/compaction/userSummary';
import type { Handlers } from '../../protocol/receive';
import { requestItemText } from '../../core/context/itemText';
import { cacheMissCause } from '../../core/accounting/cacheMissCause';
import { compactionMessage, currentFigures } from '../figures/compactionMessage';
import type { SessionActions } from '../sessionState/sessionActions';
import { forkFromRequest } from './forkFromRequest';

/** Bytes of an offloaded result sent per page. */
export const PAGE_BYTES = 16 * 1024;

/** What the inspector's intents may touch. No `vscode` import: the panel passes the real things, tests pass fakes. */
export interface InspectorIntentDeps {
  sessions: Pick<SessionActions, 'current' | 'store' | 'setPinned' | 'preview' | 'compact'>;
  post(message: HostToInspector): void;
  /** Posts the whole inspector state to the webview (it loaded, or its subject changed; its changes follow as they happen). */
  sendState(): Promise<void>;
  /** Posts a page more of the older requests or results, or every item of the next request. */
  showEarlier(list: 'requests' | 'results' | 'current'): Promise<void>;
  executeCommand(command: string, ...args: unknown[]): PromiseLike<unknown>;
  showInformation(text: string): void;
  /** Switches the inspector to a subagent's window and back (see subagentSubject.ts). */
  subagents?: { open(sessionId: string): Promise<void>; back(): void };
}

/** What each validated message from the inspector webview does. */
export function inspectorHandlers(d: InspectorIntentDeps): Handlers<InspectorToHost> {
  // The summary the last preview proposed: kept here, so the record's original never comes from the webview.
  let proposedSummary: string | undefined;
  // The last preview's record: the items it would remove past the first page are answered from it,
  // and an edited summary is counted in the context it would leave.
  let previewed: Pick<CompactionResult, 'id' | 'removed' | 'messages'> | undefined;
  return {
    ready: () => d.sendState(),
    refresh: () => d.sendState(),
    openSubagent: async (m) => {
      if (!d.subagents) throw new Error("This inspector cannot show a subagent's window.");
      await d.subagents.open(m.sessionId);
      await d.sendState();
    },
    closeSubagent: async () => {
      d.subagents?.back();
      await d.sendState();
    },
    showEarlier: (m) => d.showEarlier(m.list),
    selectRequest: async (m) => {
      const session = await d.sessions.current();
      const store = await d.sessions.store();
      const [turn, previous] = await Promise.all([store.requestUsageAt(session.info.id, m.requestIndex), m.requestIndex > 0 ? store.requestUsageAt(session.info.id, m.requestIndex - 1) : undefined]);
      const cacheMiss = turn && previous ? cacheMissCause(previous, turn) : undefined;
      d.post({ type: 'requestItems', requestIndex: m.requestIndex, items: turn?.items ?? [], ...(cacheMiss ? { cacheMiss } : {}) });
    },
    requestItemText: async (m) => {
      const session = await d.sessions.current();
      const current = m.requestIndex === undefined ? session.state.nextRequestPlan()?.items : undefined;
      const found = await requestItemText({ store: await d.sessions.store(), sessionId: session.info.id, requestIndex: m.requestIndex, itemId: m.itemId, working: session.contextSession.messages, current });
      d.post({ type: 'requestItemText', ...(m.requestIndex === undefined ? {} : { requestIndex: m.requestIndex }), itemId: m.itemId, text: found.text, totalChars: found.totalChars });
    },
    loadBlob: async (m) => {
      // The session shown: a ref id from the webview never reads another session's result.
      const session = await d.sessions.current();
      const slice = await (await d.sessions.store()).readBlob(session.info.id, m.refId, m.offset, PAGE_BYTES);
      const next = slice.offset + slice.bytes.length;
      d.post({
        type: 'blobPage',
        refId: m.refId,
        offset: slice.offset,
        text: new TextDecoder('utf-8', { fatal: false }).decode(slice.bytes),
        totalBytes: slice.totalBytes,
        nextOffset: next < slice.totalBytes ? next : undefined,
      });
    },
    openBlobInEditor: async (m) => {
      await d.executeCommand('tally.openResult', m.refId);
    },
    openRequestItem: async (m) => {
      await d.executeCommand('tally.openRequestItem', m.requestIndex, m.position);
    },
    forkFromRequest: (m) => forkFromRequest(d, m),
    showRemoved: async (m) => {
      // The history holds each compaction's head: its whole list is read from the store when asked for.
      const record = previewed?.id === m.compactionId ? previewed : await (await d.sessions.store()).loadCompactionEvent((await d.sessions.current()).info.id, m.compactionId);
      if (!record) throw new Error('That compaction is not in the history of the session shown: refresh the inspector.');
      d.post({ type: 'removedItems', compactionId: m.compactionId, offset: m.offset, ...removedAfter(record.removed, m.offset) });
    },
    openSummary: async (m) => {
      await d.executeCommand('tally.openSummary', m.compactionId);
    },
    pin: async (m) => {
      await d.sessions.setPinned(m.messageId, m.pinned);
    },
    previewCompaction: async (m) => {
      d.post({ type: 'busy', busy: true, label: 'Computing compaction preview…' });
      const result = await d.sessions.preview(m.focus);
      const preview = compactionPreview(result);
      proposedSummary = result.summary;
      previewed = { id: result.id, removed: result.removed, messages: result.messages };
      d.post({ type: 'busy', busy: false });
      d.post({ type: 'preview', preview });
    },
    countPreviewSummary: async (m) => {
      if (previewed?.id !== m.previewId || proposedSummary === undefined) throw new Error('That preview is no longer the current one: preview the compaction again.');
      const session = await d.sessions.current();
      const figures = editedPreviewFigures(previewed.messages, { text: m.summary, proposed: proposedSummary }, (working) => session.contextSession.measureOf(working));
      d.post({ type: 'previewFigures', previewId: m.previewId, summary: m.summary, ...figures });
    },
    confirmCompaction: async (m) => {
      if (m.summary !== undefined && proposedSummary === undefined) throw new Error('There is no previewed summary to confirm; preview the compaction again.');
      d.post({ type: 'busy', busy: true, label: 'Compacting…' });
      const session = await d.sessions.current();
      const before = await currentFigures(d.sessions, session);
      const result = await d.sessions.compact(m.focus, m.summary === undefined ? undefined : { text: m.summary, proposed: proposedSummary! });
      d.post({ type: 'busy', busy: false });
      d.showInformation(compactionMessage(result, before, await currentFigures(d.sessions, session)));
    },
  };
}
