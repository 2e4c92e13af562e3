/** The context inspector webview: renders what the host sends, posts intents back. */
import type { RequestItem } from '../../src/protocol/records';
import { requestViewKey, type CacheMissCause, type CompactionPreviewView, type HostToInspector, type InspectorState, type InspectorToHost, type RequestView } from '../../src/protocol/inspector';
import { applyListPatch, heldListOf, type HeldList } from '../../src/protocol/listPatch';
import { requestItemKeys } from '../../src/protocol/requestItemKeys';
import { button, progressRing, registerControls, setDisabled, textArea, textField, type TextInput } from '../ui/controls';
import { h, replace, replaceIfChanged } from '../ui/dom';
import { channel, onHostMessage } from '../ui/vscodeApi';
import { renderCompactionHistory } from './compactionHistory';
import { renderHeader } from './header';
import { itemTextArrived, renderItemList, type ItemSort } from './itemList';
import { renderOffloadedResults, RESULTS_PAGE, type BlobView } from './offloadedResults';
import { canConfirmPreview, renderPreview } from './preview';
import { renderRequestUsage } from './requestUsage';
import { renderForkAction } from './forkAction';
import { isMessageItem } from '../../src/protocol/forkEntry';
import { renderLegend, renderStackedBar } from './stackedBar';
import { renderTimeline, TIMELINE_PAGE } from './timeline';
import { renderToolTokens } from './toolTokens';
import { renderSubagentBanner, renderSubagents, subagentItemLinks } from './subagents';

interface UiState {
  selectedTurn?: number;
  turnSort: ItemSort;
  currentSort: ItemSort;
  openCompactions: string[];
  openBlobs: string[];
}

const FOCUS_MAX = 2048;

registerControls();
const host = channel<InspectorToHost, UiState>();
const saved = host.loadUiState();
const ui: UiState = {
  selectedTurn: typeof saved.selectedTurn === 'number' ? saved.selectedTurn : undefined,
  turnSort: saved.turnSort === 'size' ? 'size' : 'position',
  currentSort: saved.currentSort === 'size' ? 'size' : 'position',
  openCompactions: Array.isArray(saved.openCompactions) ? saved.openCompactions.filter((x) => typeof x === 'string') : [],
  openBlobs: Array.isArray(saved.openBlobs) ? saved.openBlobs.filter((x) => typeof x === 'string') : [],
};
const openCompactions = new Set(ui.openCompactions);
const openBlobs = new Set(ui.openBlobs);
const blobPages = new Map<string, BlobView>();
let state: InspectorState | undefined;
/** The requests and items as the host sent them; updates change these lists. */
let heldRequests: HeldList<RequestView> = heldListOf<RequestView>([], requestViewKey);
let heldItems: HeldList<RequestItem> = heldListOf<RequestItem>([], (item) => item.messageId);
let heldBlobs: HeldList<InspectorState['blobs'][number]> = heldListOf<InspectorState['blobs'][number]>([], (blob) => blob.id);
let turnItems: { requestIndex: number; items: RequestItem[]; cacheMiss?: CacheMissCause } | undefined;
let preview: CompactionPreviewView | undefined;
/** The context the shown preview was made for (see contextBasis). */
let previewBasis = '';
/** The preview's summary as the user is editing it; the same element across renders, so the edit survives them. */
let previewSummary: TextInput | undefined;
/** The session the shown preview was made for: an edit is carried into a refreshed preview of the same session only. */
let previewSession: string | undefined;
let busy = false;
/** The selected request's heading, kept while it stays selected (so its list is not moved). */
let requestHeading: HTMLElement | undefined;
/** How many of the latest requests the timeline draws, and of the latest offloaded results the list. */
let timelineShown = TIMELINE_PAGE;
let resultsShown = RESULTS_PAGE;

function persist(): void {
  ui.openCompactions = [...openCompactions];
  ui.openBlobs = [...openBlobs];
  host.saveUiState(ui);
}

// ---- layout, built once; sections re-render into their containers ----
const app = document.getElementById('app') ?? document.body;
const headerSlot = h('div', { class: 'header-slot' });
const statusLine = h('div', { class: 'status-line', attrs: { 'aria-live': 'polite' } });
const errorLine = h('div', { class: 'error-line', attrs: { role: 'alert' } });
const barSlot = h('div', { class: 'bar-slot' });
const timelineSlot = h('div', { class: 'timeline-slot' });
const requestSlot = h('div', { class: 'turn-slot' });
const currentSlot = h('div', { class: 'current-slot' });
const toolSlot = h('div', { class: 'tool-slot' });
const previewSlot = h('div', { class: 'preview-slot' });
const historySlot = h('div', { class: 'history-slot' });
const blobSlot = h('div', { class: 'blob-slot' });
const bannerSlot = h('div', { class: 'banner-slot' });
const subagentSlot = h('div', { class: 'subagent-slot' });
const focusField = textField({ placeholder: 'Focus (optional): what the summary should keep', maxLength: FOCUS_MAX, class: 'focus-field' });
const previewButton = button('Preview compaction', () => requestPreview(), { attrs: { 'data-action': 'preview' } });
const refreshButton = button('Refresh', () => host.post({ type: 'refresh' }), { appearance: 'secondary' });

function section(id: string, title: string, children: HTMLElement[]): HTMLElement {
  return h('section', { class: 'panel', attrs: { id, 'aria-labelledby': `${id}-title` } }, [h('h2', { attrs: { id: `${id}-title` }, text: title }), ...children]);
}

replace(app, [
  bannerSlot,
  h('div', { class: 'topbar' }, [headerSlot, refreshButton]),
  statusLine,
  errorLine,
  section('window', 'Context window', [barSlot]),
  section('subagents', 'Subagents', [subagentSlot]),
  section('requests', 'Requests', [timelineSlot, requestSlot]),
  section('tools', 'Tokens by tool (next request)', [toolSlot]),
  section('next', 'Next request', [currentSlot]),
  section('preview', 'Compaction preview', [h('div', { class: 'preview-form' }, [focusField.element, previewButton]), previewSlot]),
  section('history', 'Compaction history', [historySlot]),
  section('offloaded', 'Offloaded results', [blobSlot]),
]);

const subagentsSection = app.querySelector<HTMLElement>('#subagents')!;
const previewSection = app.querySelector<HTMLElement>('#preview')!;
const nextTitle = app.querySelector<HTMLElement>('#next-title')!;
const toolsTitle = app.querySelector<HTMLElement>('#tools-title')!;

// ---- intents ----
function openSubagent(sessionId: string): void {
  host.post({ type: 'openSubagent', sessionId });
}

/** The links on the delegate calls and results of the requests shown (none in a subagent's window without subagents). */
function itemLinks() {
  return subagentItemLinks(state, openSubagent);
}

function focusValue(): string | undefined {
  const text = focusField.value.trim().slice(0, FOCUS_MAX);
  return text.length ? text : undefined;
}

function requestPreview(): void {
  const focus = focusValue();
  host.post(focus === undefined ? { type: 'previewCompaction' } : { type: 'previewCompaction', focus });
}

function selectTurn(requestIndex: number): void {
  ui.selectedTurn = requestIndex;
  persist();
  host.post({ type: 'selectTurn', requestIndex });
  renderRequests();
}

function loadBlob(refId: string, offset: number): void {
  // A new object, not a changed one: the list redraws a result when its view object changes.
  blobPages.set(refId, { ...(blobPages.get(refId) ?? { text: '', totalBytes: 0 }), loading: true });
  host.post({ type: 'loadBlob', refId, offset });
}

// ---- renderers ----
function renderAll(): void {
  if (!state) return;
  // The small sections are drawn again only when what they show changed.
  const { turns: _turns, current: _current, blobs: _blobs, blobTitles: _titles, compactions: _compactions, ...small } = state;
  replaceIfChanged(headerSlot, JSON.stringify(small), () => [renderHeader(state!)]);
  replaceIfChanged(bannerSlot, JSON.stringify(state.subagentOf ?? null), () => (state!.subagentOf ? [renderSubagentBanner(state!.subagentOf, () => host.post({ type: 'closeSubagent' }))] : []));
  subagentsSection.hidden = !state.subagents;
  replaceIfChanged(subagentSlot, JSON.stringify(state.subagents ?? null), () => (state!.subagents ? [renderSubagents(state!.subagents, openSubagent)] : []));
  // A subagent's window is read-only: no compaction of it, and its next request is where it ended.
  previewSection.hidden = Boolean(state.subagentOf);
  nextTitle.textContent = state.subagentOf ? 'Its context when it ended' : 'Next request';
  toolsTitle.textContent = state.subagentOf ? 'Tokens by tool (its context when it ended)' : 'Tokens by tool (next request)';
  replaceIfChanged(barSlot, JSON.stringify(state.figures ?? null), () => (state!.figures ? [renderStackedBar(state!.figures), renderLegend(state!.figures)] : [h('p', { class: 'empty', text: 'No budget yet: open a session.' })]));
  renderRequests();
  renderCurrent();
  replace(toolSlot, [renderToolTokens(state.current, state.figures?.components.tools ?? 0)]);
  // A compaction's record does not change once written: its id, outcome and size stand for it.
  const history = state.compactions.map((c) => [c.id, c.status, c.tokensAfter, c.removed.length]);
  replaceIfChanged(historySlot, JSON.stringify([history, [...openCompactions]]), historyChildren);
  renderBlobs();
  renderPreviewSlot();
}

function renderRequests(): void {
  if (!state) return;
  // A selected request (restored with the view) is always among those drawn.
  const selectedAt = ui.selectedTurn === undefined ? -1 : state.turns.filter((t) => t.requestIndex > ui.selectedTurn!).length;
  if (selectedAt >= timelineShown) timelineShown = (Math.floor(selectedAt / TIMELINE_PAGE) + 1) * TIMELINE_PAGE;
  replace(timelineSlot, [
    renderTimeline(state.turns, {
      effectiveWindow: state.figures?.effectiveWindow ?? 0,
      selected: ui.selectedTurn,
      onSelect: selectTurn,
      shown: timelineShown,
      notSent: state.earlierTurns,
      onShowOlder: () => {
        timelineShown += TIMELINE_PAGE;
        // Past what this webview holds: the host sends a page more of the older requests.
        if (timelineShown > (state?.turns.length ?? 0) && state?.earlierTurns) host.post({ type: 'showEarlier', list: 'turns' });
        renderRequests();
      },
    }),
  ]);
  if (ui.selectedTurn === undefined) {
    replace(requestSlot, [h('p', { class: 'hint', text: 'Select a request to see exactly what it carried.' })]);
  } else if (!turnItems || turnItems.requestIndex !== ui.selectedTurn) {
    replace(requestSlot, [h('div', { class: 'loading' }, [progressRing('Loading'), `Loading request #${ui.selectedTurn}…`])]);
  } else {
    if (requestHeading?.dataset.request !== String(turnItems.requestIndex)) requestHeading = h('h3', { text: `Request #${turnItems.requestIndex}`, attrs: { 'data-request': turnItems.requestIndex } });
    replace(requestSlot, [
      requestHeading,
      renderRequestUsage(state.turns.find((t) => t.requestIndex === turnItems!.requestIndex), state.turns.find((t) => t.requestIndex === turnItems!.requestIndex - 1), turnItems.cacheMiss),
      forkAction(turnItems),
      renderItemList(turnItems.items, {
        label: 'turn',
        requestIndex: turnItems.requestIndex,
        shownTotal: state.turns.find((t) => t.requestIndex === turnItems!.requestIndex)?.reportedInputTokens,
        onRequestText: (itemId) => host.post({ type: 'requestItemText', requestIndex: turnItems!.requestIndex, itemId }),
        onOpenInEditor: state.subagentOf ? undefined : (position) => host.post({ type: 'openRequestItem', requestIndex: turnItems!.requestIndex, position }),
        links: itemLinks(),
        sort: ui.turnSort,
        onSort: (sort) => {
          ui.turnSort = sort;
          persist();
          renderRequests();
        },
      }),
    ]);
  }
}

/** Fork from the selected request: offered for a stored chat session's request that carried messages. */
function forkAction(turn: { requestIndex: number; items: RequestItem[] }): HTMLElement | null {
  const sessionId = state?.session?.id;
  const messages = turn.items.filter(isMessageItem).length;
  if (!sessionId || state?.replayLabel || messages === 0) return null;
  return renderForkAction(turn.requestIndex, messages, () => host.post({ type: 'forkFromRequest', sessionId, requestIndex: turn.requestIndex }));
}

function renderCurrent(): void {
  if (!state) return;
  const omitted = state.currentOmitted;
  // Positions are in wire order: the items after the ones left out stand `count` further on.
  const wirePosition = (position: number) => (omitted && position >= omitted.at ? position + omitted.count : position);
  replace(currentSlot, [
    ...(omitted
      ? [
          h('p', { class: 'hint omitted-items' }, [
            `${omitted.count.toLocaleString('en-US')} older messages of the conversation are not loaded: the list and the tokens by tool show the newest ones. `,
            button('Load all items', () => host.post({ type: 'showEarlier', list: 'current' }), { appearance: 'secondary', attrs: { 'data-action': 'load-all-items' } }),
          ]),
        ]
      : []),
    renderItemList(state.current, {
      label: 'current',
      shownTotal: state.figures?.used,
      sort: ui.currentSort,
      onSort: (sort) => {
        ui.currentSort = sort;
        persist();
        renderCurrent();
      },
      onPin: state.subagentOf ? undefined : (messageId, pinned) => host.post({ type: 'pin', messageId, pinned }),
      onRequestText: (itemId) => host.post({ type: 'requestItemText', itemId }),
      onOpenInEditor: state.subagentOf ? undefined : (position) => host.post({ type: 'openRequestItem', position: wirePosition(position) }),
      links: itemLinks(),
    }),
  ]);
}

function historyChildren(): HTMLElement[] {
  return [
    renderCompactionHistory(state?.compactions ?? [], openCompactions, (id, open) => {
      if (open) openCompactions.add(id);
      else openCompactions.delete(id);
      persist();
    }, (compactionId) => host.post({ type: 'openSummary', compactionId })),
  ];
}

function renderBlobs(): void {
  if (!state) return;
  replace(blobSlot, [
    renderOffloadedResults(state.blobs, state.blobTitles ?? {}, {
      shown: resultsShown,
      notSent: state.earlierResults,
      onShowEarlier: () => {
        resultsShown += RESULTS_PAGE;
        if (resultsShown > (state?.blobs.length ?? 0) && state?.earlierResults) host.post({ type: 'showEarlier', list: 'results' });
        renderBlobs();
      },
      open: openBlobs,
      pages: blobPages,
      onToggle: (refId, open) => {
        if (open) {
          openBlobs.add(refId);
          const view = blobPages.get(refId);
          if (!view || (!view.loading && view.text.length === 0 && view.totalBytes === 0)) {
            loadBlob(refId, 0);
            renderBlobs();
          }
        } else openBlobs.delete(refId);
        persist();
      },
      onLoadMore: (refId, offset) => {
        loadBlob(refId, offset);
        renderBlobs();
      },
      onOpenInEditor: state.subagentOf ? undefined : (refId) => host.post({ type: 'openBlobInEditor', refId }),
    }),
  ]);
}

/** What the context was when a preview arrived: the session, its latest request and its compactions. */
function contextBasis(s: InspectorState | undefined): string {
  if (!s) return '';
  const latest = s.turns.reduce((at, t) => Math.max(at, t.requestIndex), -1);
  return JSON.stringify([s.session?.id, latest, s.compactions.length]);
}

function renderPreviewSlot(): void {
  setDisabled(previewButton, busy);
  if (!preview) {
    replace(previewSlot, []);
    return;
  }
  const shown = preview;
  const stale = previewBasis !== contextBasis(state);
  replace(previewSlot, [
    renderPreview(shown, busy, stale, previewSummary, {
      onConfirm: () => {
        const confirm: Extract<InspectorToHost, { type: 'confirmCompaction' }> = { type: 'confirmCompaction' };
        if (shown.focus !== undefined) confirm.focus = shown.focus;
        if (previewSummary) confirm.summary = previewSummary.value;
        host.post(confirm);
        preview = undefined;
        previewSummary = undefined;
        renderPreviewSlot();
      },
      onCancel: () => {
        preview = undefined;
        previewSummary = undefined;
        renderPreviewSlot();
      },
      onRestoreSummary: () => {
        if (previewSummary && shown.summary !== undefined) previewSummary.value = shown.summary;
        renderPreviewSlot();
      },
      onRefresh: () => host.post(shown.focus === undefined ? { type: 'previewCompaction' } : { type: 'previewCompaction', focus: shown.focus }),
    }),
  ]);
}

/** An editable copy of a preview's summary; Confirm follows what it holds (a blank summary cannot be confirmed). */
function summaryEditor(text: string): TextInput {
  const editor = textArea({ label: 'Summary that would replace the summarized messages', rows: 10, class: 'summary-editor' });
  editor.value = text;
  editor.element.addEventListener('input', () => {
    const confirm = previewSlot.querySelector<HTMLElement>('[data-action="confirm"]');
    if (confirm && preview) setDisabled(confirm, busy || !canConfirmPreview(preview, previewBasis !== contextBasis(state), editor));
    previewSlot.querySelector('[data-preview="summary-edited"]')?.toggleAttribute('hidden', editor.value === preview?.summary);
  });
  return editor;
}

function renderBusy(label: string | undefined): void {
  replace(statusLine, busy ? [progressRing(label), h('span', { text: label ?? 'Working…' })] : []);
  statusLine.classList.toggle('active', busy);
  renderPreviewSlot();
}

/** A new state from the host, whole or rebuilt from an update. */
function stateArrived(next: InspectorState): void {
  const sessionChanged = state?.session?.id !== next.session?.id;
  // Into or out of a subagent's window: the request selected belongs to the other session.
  const subjectChanged = sessionChanged && state !== undefined && (Boolean(state.subagentOf) || Boolean(next.subagentOf));
  state = next;
  if (sessionChanged) {
    timelineShown = TIMELINE_PAGE;
    resultsShown = RESULTS_PAGE;
  }
  if (subjectChanged) {
    ui.selectedTurn = undefined;
    turnItems = undefined;
    preview = undefined;
    previewSummary = undefined;
    persist();
  }
  if (sessionChanged && ui.selectedTurn !== undefined && !state.turns.some((t) => t.requestIndex === ui.selectedTurn)) {
    ui.selectedTurn = undefined;
    turnItems = undefined;
  }
  const known = new Set(state.blobs.map((b) => b.id));
  for (const id of [...openBlobs]) if (!known.has(id)) openBlobs.delete(id);
  replace(errorLine, []);
  renderAll();
}

// ---- host messages ----
onHostMessage<HostToInspector>((message) => {
  switch (message.type) {
    case 'update': {
      const turns = applyListPatch(heldRequests, message.turns, requestViewKey);
      const current = applyListPatch(heldItems, message.current, (item) => item.messageId);
      const blobs = applyListPatch(heldBlobs, message.blobs, (blob) => blob.id);
      // An update that does not fit what this webview holds: ask for the whole state again.
      if (turns.missing.length > 0 || current.missing.length > 0 || blobs.missing.length > 0 || !state) host.post({ type: 'ready' });
      else stateArrived({ ...message.state, turns: turns.list, current: current.list, blobs: blobs.list, blobTitles: message.blobTitles ?? state.blobTitles });
      return;
    }
    case 'state': {
      heldRequests = heldListOf(message.state.turns, requestViewKey);
      heldItems = heldListOf(message.state.current, (item) => item.messageId, requestItemKeys(message.state.current));
      heldBlobs = heldListOf(message.state.blobs, (blob) => blob.id);
      stateArrived(message.state);
      // A reloaded webview restores which turn was selected; ask for its items again.
      if (ui.selectedTurn !== undefined && !turnItems) host.post({ type: 'selectTurn', requestIndex: ui.selectedTurn });
      return;
    }
    case 'turnItems':
      if (message.requestIndex !== ui.selectedTurn) return;
      turnItems = { requestIndex: message.requestIndex, items: message.items, cacheMiss: message.cacheMiss };
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
      const edit = previewSummary && preview && previewSession === state?.session?.id && previewSummary.value !== preview.summary ? previewSummary.value : undefined;
      preview = message.preview;
      previewBasis = contextBasis(state);
      previewSession = state?.session?.id;
      previewSummary = message.preview.summary === undefined ? undefined : summaryEditor(edit ?? message.preview.summary);
      renderPreviewSlot();
      return;
    }
    case 'busy':
      busy = message.busy;
      renderBusy(message.label);
      return;
    case 'error':
      replace(errorLine, [h('span', { text: message.message })]);
      return;
  }
});

host.post({ type: 'ready' });
