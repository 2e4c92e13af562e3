/**
 * What the inspector shows and remembers: the host's state, the request selected and its items,
 * the preview, how many requests and results are drawn, and what the view keeps across reloads.
 */
import type { RequestItem } from '../../src/protocol/records';
import type { CacheMissCause, CompactionPreviewView, InspectorState, InspectorToHost } from '../../src/protocol/inspector';
import type { TextInput } from '../ui/controls';
import { channel } from '../ui/vscodeApi';
import type { ItemSort } from './itemList';
import { RESULTS_PAGE, type BlobView } from './offloadedResults';
import { TIMELINE_PAGE } from './timeline';
import type { MoreRemoved } from './removedItems';

interface UiState {
  selectedRequest?: number;
  turnSort: ItemSort;
  currentSort: ItemSort;
  openCompactions: string[];
  openBlobs: string[];
}

export const host = channel<InspectorToHost, UiState>();
const saved = host.loadUiState();
/** What the view keeps across reloads (saved with persist). */
export const ui: UiState = {
  selectedRequest: typeof saved.selectedRequest === 'number' ? saved.selectedRequest : undefined,
  turnSort: saved.turnSort === 'size' ? 'size' : 'position',
  currentSort: saved.currentSort === 'size' ? 'size' : 'position',
  openCompactions: Array.isArray(saved.openCompactions) ? saved.openCompactions.filter((x) => typeof x === 'string') : [],
  openBlobs: Array.isArray(saved.openBlobs) ? saved.openBlobs.filter((x) => typeof x === 'string') : [],
};
export const openCompactions = new Set(ui.openCompactions);
export const openBlobs = new Set(ui.openBlobs);
export const blobPages = new Map<string, BlobView>();
/** Removed items asked for past those a compaction (or the preview) carries, by its id. */
export const removedMore = new Map<string, MoreRemoved>();

export const view: {
  state?: InspectorState;
  requestItems?: { requestIndex: number; items: RequestItem[]; cacheMiss?: CacheMissCause };
  preview?: CompactionPreviewView;
  /** The context the shown preview was made for (see contextBasis). */
  previewBasis: string;
  /** The preview's summary as the user is editing it; the same element across renders, so the edit survives them. */
  previewSummary?: TextInput;
  /** The session the shown preview was made for: an edit is carried into a refreshed preview of the same session only. */
  previewSession?: string;
  busy: boolean;
  /** How many of the latest requests the timeline draws, and of the latest offloaded results the list. */
  timelineShown: number;
  resultsShown: number;
} = { previewBasis: '', busy: false, timelineShown: TIMELINE_PAGE, resultsShown: RESULTS_PAGE };

export function persist(): void {
  ui.openCompactions = [...openCompactions];
  ui.openBlobs = [...openBlobs];
  host.saveUiState(ui);
}

/** What the context was when a preview arrived: the session, its latest request and its compactions. */
export function contextBasis(s: InspectorState | undefined): string {
  if (!s) return '';
  const latest = s.requests.reduce((at, t) => Math.max(at, t.requestIndex), -1);
  return JSON.stringify([s.session?.id, latest, s.compactions.length]);
}

/**
 * Takes a new state from the host: another session starts at the first page of requests and
 * results; another subject (into or out of a subagent's window) drops the selection and the preview.
 */
export function takeState(next: InspectorState): void {
  const sessionChanged = view.state?.session?.id !== next.session?.id;
  // Into or out of a subagent's window: the request selected belongs to the other session.
  const subjectChanged = sessionChanged && view.state !== undefined && (Boolean(view.state.subagentOf) || Boolean(next.subagentOf));
  view.state = next;
  if (sessionChanged) {
    view.timelineShown = TIMELINE_PAGE;
    view.resultsShown = RESULTS_PAGE;
  }
  if (subjectChanged) {
    ui.selectedRequest = undefined;
    view.requestItems = undefined;
    view.preview = undefined;
    view.previewSummary = undefined;
    persist();
  }
  if (sessionChanged && ui.selectedRequest !== undefined && !next.requests.some((t) => t.requestIndex === ui.selectedRequest)) {
    ui.selectedRequest = undefined;
    view.requestItems = undefined;
  }
  if (sessionChanged) removedMore.clear();
  const compactions = new Set([...next.compactions.map((c) => c.id), view.preview?.id]);
  for (const id of [...removedMore.keys()]) if (!compactions.has(id)) removedMore.delete(id);
  const known = new Set(next.blobs.map((b) => b.id));
  for (const id of [...openBlobs]) if (!known.has(id)) openBlobs.delete(id);
}
