/**
 * Messages between the extension host and the context inspector webview.
 * The host is the source of truth: it sends whole state; the webview renders it and sends intents.
 * This file has no `vscode` import: the webview bundle uses it too.
 */
import type { ListPatch } from './listPatch';
import type { CompactionEventRecord, RemovedItem, RequestItem, RequestUsageRecord } from '../core/model/records';
import type { BlobInfo } from '../core/ports/blobStore';
import type { WindowFigures } from '../core/accounting/windowFigures';
import type { CacheMissCause } from '../core/accounting/cacheMissCause';
import type { CalibrationView } from '../core/accounting/calibration';
import type { InspectorSubagents, InspectorSubagentSubject } from './inspectorSubagents';
import { removedPage, type CompactionView, type RemovedPage } from './inspectorCompactions';

export type { CacheMissCause } from '../core/accounting/cacheMissCause';
export { REMOVED_FIRST, REMOVED_MORE, compactionView, type CompactionView, type RemovedPage } from './inspectorCompactions';
export { cachedShareFell } from '../core/accounting/cacheMissCause';

export { compactionDelta, compactionEstimate, compactionSaved, formatShare, tokensWithEstimate, type WindowFigures } from '../core/accounting/windowFigures';

export type RequestView = Pick<
  RequestUsageRecord,
  'requestIndex' | 'createdAt' | 'components' | 'estimatedInputTokens' | 'reportedInputTokens' | 'reportedOutputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'reasoningTokens' | 'compactionId'
> & { itemCount?: number };

/** A request's key in the lists host and webview keep in step (see listPatch.ts). */
export function requestViewKey(turn: RequestView): string {
  return `r${turn.requestIndex}`;
}

export interface InspectorState {
  session?: { id: string; title: string; origin?: string };
  /** Set for replays of recorded runs so the UI labels them clearly. */
  replayLabel?: string;
  model?: string;
  /** Used, effective window and thresholds: the numbers every surface shows, computed once by the host. */
  figures?: WindowFigures;
  /** Learned reported ÷ estimated factor for the session's model, with its error, once the provider has reported a count. */
  calibration?: CalibrationView;
  requests: RequestView[];
  /** Newest first; each with its first removed items only (see inspectorCompactions.ts). */
  compactions: CompactionView[];
  /**
   * Counts the compaction histories the webview was sent: an update carries the history only when
   * it changed, and one that names another count than the webview holds finds it behind.
   */
  historySent?: number;
  blobs: BlobInfo[];
  /** Each offloaded result named by its tool, what it acted on and its request ("run_command npm test · request #12"), by ref id. */
  blobTitles?: Record<string, string>;
  /** The working context now, item by item (what the next request would carry). */
  current: RequestItem[];
  /** Tokens an average user turn added (its requests' growth counted to it), over the last `forecastTurns` turns. */
  averageRequestGrowth?: number;
  forecastTurns?: number;
  /** User turns that still fit below the compaction threshold at that average. */
  requestsUntilCompaction?: number;
  /** How many older requests and offloaded results the webview was not sent (it asks with `showEarlier`). */
  earlierRequests?: number;
  earlierResults?: number;
  /**
   * Items of the next request left out of `current`: `count` older conversation items that go at
   * `at` (after the system sections and tool schemas); `showEarlier` with 'current' asks for all.
   */
  currentOmitted?: { at: number; count: number };
  /** The subagents this session started, and what they spared its window. */
  subagents?: InspectorSubagents;
  /** Set when the inspector shows a subagent's window rather than the session open in the chat. */
  subagentOf?: InspectorSubagentSubject;
}

/**
 * What a compaction would record, as the preview shows it: the record's own fields (its id, the
 * figures on the meter's basis and Tally's estimate, strategies, the summary the user may edit
 * before confirming) and the first items it would remove, without the new messages.
 */
const PREVIEW_FIELDS = ['id', 'focus', 'tokensBefore', 'tokensAfter', 'estimatedTokensBefore', 'estimatedTokensAfter', 'strategies', 'status', 'error', 'summary', 'summaryNotes'] as const;
export type CompactionPreviewView = Pick<CompactionEventRecord, (typeof PREVIEW_FIELDS)[number]> & RemovedPage;

/** The preview of a compaction run (a dry run's record). */
export function compactionPreview(record: CompactionEventRecord): CompactionPreviewView {
  const preview: Partial<CompactionPreviewView> = {};
  for (const field of PREVIEW_FIELDS) if (record[field] !== undefined) Object.assign(preview, { [field]: record[field] });
  return { ...(preview as Pick<CompactionEventRecord, (typeof PREVIEW_FIELDS)[number]>), ...removedPage(record.removed) };
}

export type HostToInspector =
  | { type: 'state'; state: InspectorState }
  /** After the first state: its small parts whole, and only the requests and items that changed (see listPatch.ts). */
  | {
      type: 'update';
      state: Omit<InspectorState, 'requests' | 'current' | 'blobs' | 'blobTitles' | 'compactions'>;
      requests: ListPatch<RequestView>;
      current: ListPatch<RequestItem>;
      blobs: ListPatch<BlobInfo>;
      /** Present when titles changed or were added: those the webview does not hold yet, added to the ones it has. */
      blobTitles?: Record<string, string>;
      /** Present when the compaction history changed (`state.historySent` counts it); otherwise the webview keeps the one it has. */
      compactions?: CompactionView[];
    }
  /** A request's items, and why it read less from the cache than the request before it, when it did. */
  | { type: 'requestItems'; requestIndex: number; items: RequestItem[]; cacheMiss?: CacheMissCause }
  /** The exact text of one item, asked for when the user expands it (never sent with the state). */
  | { type: 'requestItemText'; requestIndex?: number; itemId: string; text: string; totalChars: number }
  | { type: 'blobPage'; refId: string; offset: number; text: string; totalBytes: number; nextOffset?: number }
  | { type: 'preview'; preview: CompactionPreviewView }
  /** The preview's after-figures with `summary` (the text the user is editing) in place of the proposed one, counted by the host. */
  | { type: 'previewFigures'; previewId: string; summary: string; tokensAfter: number; estimatedTokensAfter: number }
  /** Removed items of a compaction (or of the preview, by its id) from `offset`, answering `showRemoved`; `total`: how many it removed. */
  | { type: 'removedItems'; compactionId: string; offset: number; items: RemovedItem[]; total: number }
  | { type: 'busy'; busy: boolean; label?: string }
  | { type: 'error'; message: string };

export type InspectorToHost =
  | { type: 'ready' }
  | { type: 'selectRequest'; requestIndex: number }
  /** The text of an item of a stored request, or, without requestIndex, of the working context now. */
  | { type: 'requestItemText'; requestIndex?: number; itemId: string }
  | { type: 'loadBlob'; refId: string; offset: number }
  | { type: 'openBlobInEditor'; refId: string }
  /** Opens one item of a request (position in wire order) as a read-only document; no requestIndex: the next request. */
  | { type: 'openRequestItem'; requestIndex?: number; position: number }
  /** A page more of a compaction's removed items (or the preview's, by its id), from `offset`. */
  | { type: 'showRemoved'; compactionId: string; offset: number }
  /** Opens a compaction's summary as a read-only document. */
  | { type: 'openSummary'; compactionId: string }
  /** Starts a new session from what request `requestIndex` of the session shown (`sessionId`) carried. */
  | { type: 'forkFromRequest'; sessionId: string; requestIndex: number }
  | { type: 'pin'; messageId: string; pinned: boolean }
  | { type: 'previewCompaction'; focus?: string }
  /** `summary`: the preview's summary as the user left it (edited or not); it is what replaces the history. */
  | { type: 'confirmCompaction'; focus?: string; summary?: string }
  /** Asks what the preview `previewId` would leave with `summary` (the text being edited) in place of the proposed one. */
  | { type: 'countPreviewSummary'; previewId: string; summary: string }
  | { type: 'refresh' }
  /** A page more of the older requests or offloaded results. */
  | { type: 'showEarlier'; list: 'requests' | 'results' | 'current' }
  /** Shows a subagent's window: only a subagent of the session shown now is opened. */
  | { type: 'openSubagent'; sessionId: string }
  /** Back from a subagent's window to the session that started it. */
  | { type: 'closeSubagent' };
