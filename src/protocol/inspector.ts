/**
 * Messages between the extension host and the context inspector webview.
 * The host is the source of truth: it sends whole state; the webview renders it and sends intents.
 * This file has no `vscode` import: the webview bundle uses it too.
 */
import type { CompactionEventRecord, ComponentTokens, RequestItem, TurnUsageRecord } from '../core/model/records';
import type { BlobInfo } from '../core/ports/sessionStore';

export interface BudgetView {
  contextWindow: number;
  maxOutputTokens: number;
  effectiveWindow: number;
  components: ComponentTokens;
  used: number;
  percent: number;
  compactAtTokens: number;
  blockAtTokens: number;
  /** Set when the context window is unknown and 128K is assumed. */
  warning?: string;
  /** Learned reported ÷ estimated factor for this model, with its error. */
  calibration?: { factor: number; error: number; samples: number };
}

export type TurnView = Pick<
  TurnUsageRecord,
  'requestIndex' | 'createdAt' | 'components' | 'estimatedInputTokens' | 'reportedInputTokens' | 'reportedOutputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'compactionId'
> & { itemCount: number };

export interface InspectorState {
  session?: { id: string; title: string; origin?: string };
  /** Set for replays of recorded runs so the UI labels them clearly. */
  replayLabel?: string;
  model?: string;
  budget?: BudgetView;
  turns: TurnView[];
  compactions: CompactionEventRecord[];
  blobs: BlobInfo[];
  /** The working context now, item by item (what the next request would carry). */
  current: RequestItem[];
  averageTurnTokens?: number;
  turnsRemaining?: number;
}

export interface CompactionPreviewView {
  focus?: string;
  tokensBefore: number;
  tokensAfter: number;
  strategies: string[];
  removed: CompactionEventRecord['removed'];
  status: CompactionEventRecord['status'];
  error?: string;
}

export type HostToInspector =
  | { type: 'state'; state: InspectorState }
  | { type: 'turnItems'; requestIndex: number; items: RequestItem[] }
  /** The exact text of one item, asked for when the user expands it (never sent with the state). */
  | { type: 'requestItemText'; requestIndex?: number; itemId: string; text: string; totalChars: number }
  | { type: 'blobPage'; refId: string; offset: number; text: string; totalBytes: number; nextOffset?: number }
  | { type: 'preview'; preview: CompactionPreviewView }
  | { type: 'busy'; busy: boolean; label?: string }
  | { type: 'error'; message: string };

export type InspectorToHost =
  | { type: 'ready' }
  | { type: 'selectTurn'; requestIndex: number }
  /** The text of an item of a stored request, or, without requestIndex, of the working context now. */
  | { type: 'requestItemText'; requestIndex?: number; itemId: string }
  | { type: 'loadBlob'; refId: string; offset: number }
  | { type: 'openBlobInEditor'; refId: string }
  | { type: 'pin'; messageId: string; pinned: boolean }
  | { type: 'previewCompaction'; focus?: string }
  | { type: 'confirmCompaction'; focus?: string }
  | { type: 'refresh' };
