/** The context inspector webview: takes what the host sends (whole states and updates), draws it, posts intents back. */
import type { RequestItem } from '../../src/protocol/records';
import { requestViewKey, type HostToInspector, type InspectorState, type RequestView } from '../../src/protocol/inspector';
import { applyListPatch, heldListOf, type HeldList } from '../../src/protocol/listPatch';
import { requestItemKeys } from '../../src/protocol/requestItemKeys';
import { onHostMessage } from '../ui/vscodeApi';
import { itemTextArrived } from './itemList';
import { countPreviewSummary, renderAll, renderBlobs, renderBusy, renderCurrent, renderHistory, renderPreviewSlot, renderRequests, showError, summaryEditor, takePreviewFigures } from './render';
import { blobPages, contextBasis, host, removedMore, takeState, ui, view } from './viewState';

/** The requests and items as the host sent them; updates change these lists. */
let heldRequests: HeldList<RequestView> = heldListOf<RequestView>([], requestViewKey);
let heldItems: HeldList<RequestItem> = heldListOf<RequestItem>([], (item) => item.messageId);
let heldBlobs: HeldList<InspectorState['blobs'][number]> = heldListOf<InspectorState['blobs'][number]>([], (blob) => blob.id);

/** A new state from the host, whole or rebuilt from an update. */
function stateArrived(next: InspectorState): void {
  takeState(next);
  showError(undefined);
  renderAll();
}

// ---- host messages ----
onHostMessage<HostToInspector>((message) => {
  switch (message.type) {
    case 'update': {
      const requests = applyListPatch(heldRequests, message.requests, requestViewKey);
      const current = applyListPatch(heldItems, message.current, (item) => item.messageId);
      const blobs = applyListPatch(heldBlobs, message.blobs, (blob) => blob.id);
      // The history comes only when it changed: one this webview missed leaves it behind.
      const compactions = message.compactions ?? (view.state && view.state.historySent === message.state.historySent ? view.state.compactions : undefined);
      // An update that does not fit what this webview holds: ask for the whole state again.
      if (requests.missing.length > 0 || current.missing.length > 0 || blobs.missing.length > 0 || !view.state || !compactions) host.post({ type: 'ready' });
      else stateArrived({ ...message.state, requests: requests.list, current: current.list, blobs: blobs.list, blobTitles: message.blobTitles ? { ...view.state.blobTitles, ...message.blobTitles } : view.state.blobTitles, compactions });
      return;
    }
    case 'state': {
      heldRequests = heldListOf(message.state.requests, requestViewKey);
      heldItems = heldListOf(message.state.current, (item) => item.messageId, requestItemKeys(message.state.current));
      heldBlobs = heldListOf(message.state.blobs, (blob) => blob.id);
      stateArrived(message.state);
      // A reloaded webview restores which request was selected; ask for its items again.
      if (ui.selectedRequest !== undefined && !view.requestItems) host.post({ type: 'selectRequest', requestIndex: ui.selectedRequest });
      return;
    }
    case 'requestItems':
      if (message.requestIndex !== ui.selectedRequest) return;
      view.requestItems = { requestIndex: message.requestIndex, items: message.items, cacheMiss: message.cacheMiss };
      renderRequests();
      return;
    case 'requestItemText':
      itemTextArrived(message);
      renderRequests();
      renderCurrent();
      return;
    case 'blobPage': {
      const previous = blobPages.get(message.refId);
      const text = message.offset === 0 || !previous ? message.text : previous.text + message.text;
      blobPages.set(message.refId, { text, totalBytes: message.totalBytes, nextOffset: message.nextOffset, loading: false });
      renderBlobs();
      return;
    }
    case 'preview': {
      // A refreshed preview proposes a new summary; what the user wrote on the last one is not thrown away.
      const edit = view.previewSummary && view.preview && view.previewSession === view.state?.session?.id && view.previewSummary.value !== view.preview.summary ? view.previewSummary.value : undefined;
      view.preview = message.preview;
      view.previewBasis = contextBasis(view.state);
      view.previewSession = view.state?.session?.id;
      view.previewSummary = message.preview.summary === undefined ? undefined : summaryEditor(edit ?? message.preview.summary);
      renderPreviewSlot();
      // The new preview counted its own summary: the edit carried into it is counted now.
      if (edit !== undefined) countPreviewSummary(0);
      return;
    }
    case 'previewFigures':
      takePreviewFigures(message);
      return;
    case 'removedItems': {
      const held = removedMore.get(message.compactionId);
      // Only the page asked for last is taken: a late answer to an earlier ask is dropped.
      if (!held || held.from + held.items.length !== message.offset) return;
      removedMore.set(message.compactionId, { from: held.from, items: [...held.items, ...message.items], loading: false });
      if (view.preview?.id === message.compactionId) renderPreviewSlot();
      else renderHistory();
      return;
    }
    case 'busy':
      view.busy = message.busy;
      renderBusy(message.label);
      return;
    case 'error': {
      showError(message.message);
      // An ask for more removed items that failed lets its button be used again.
      let asked = false;
      for (const [id, held] of removedMore) {
        if (!held.loading) continue;
        removedMore.set(id, { ...held, loading: false });
        asked = true;
      }
      if (asked) {
        renderHistory();
        renderPreviewSlot();
      }
      return;
    }
  }
});

host.post({ type: 'ready' });
