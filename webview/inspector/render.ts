/** The inspector's layout, built once, and its sections drawn into it from the view's state. */
import type { RequestItem } from '../../src/protocol/records';
import type { InspectorToHost } from '../../src/protocol/inspector';
import { isMessageItem } from '../../src/protocol/forkEntry';
import { button, progressRing, registerControls, setDisabled, textArea, textField, type TextInput } from '../ui/controls';
import { h, replace, replaceIfChanged } from '../ui/dom';
import { renderCompactionHistory } from './compactionHistory';
import { renderForkAction } from './forkAction';
import { renderHeader } from './header';
import { renderItemList } from './itemList';
import { renderOffloadedResults, RESULTS_PAGE } from './offloadedResults';
import { canConfirmPreview, renderPreview, showPreviewFigures } from './preview';
import { keepingRemovedScroll } from './removedItems';
import { renderRequestUsage } from './requestUsage';
import { renderLegend, renderStackedBar } from './stackedBar';
import { renderSubagentBanner, renderSubagents, subagentItemLinks } from './subagents';
import { renderTimeline, TIMELINE_PAGE } from './timeline';
import { renderToolTokens } from './toolTokens';
import { blobPages, contextBasis, host, openBlobs, openCompactions, persist, removedMore, ui, view } from './viewState';

const FOCUS_MAX = 2048;
/** The selected request's heading, kept while it stays selected (so its list is not moved). */
let requestHeading: HTMLElement | undefined;

registerControls();

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
  return subagentItemLinks(view.state, openSubagent);
}

function focusValue(): string | undefined {
  const text = focusField.value.trim().slice(0, FOCUS_MAX);
  return text.length ? text : undefined;
}

function requestPreview(): void {
  const focus = focusValue();
  host.post(focus === undefined ? { type: 'previewCompaction' } : { type: 'previewCompaction', focus });
}

function selectRequest(requestIndex: number): void {
  ui.selectedRequest = requestIndex;
  persist();
  host.post({ type: 'selectRequest', requestIndex });
  renderRequests();
}

function loadBlob(refId: string, offset: number): void {
  // A new object, not a changed one: the list redraws a result when its view object changes.
  blobPages.set(refId, { ...(blobPages.get(refId) ?? { text: '', totalBytes: 0 }), loading: true });
  host.post({ type: 'loadBlob', refId, offset });
}

// ---- renderers ----
export function renderAll(): void {
  if (!view.state) return;
  // The small sections are drawn again only when what they show changed.
  const { requests: _requests, current: _current, blobs: _blobs, blobTitles: _titles, compactions: _compactions, historySent: _historySent, ...small } = view.state;
  replaceIfChanged(headerSlot, JSON.stringify(small), () => [renderHeader(view.state!)]);
  replaceIfChanged(bannerSlot, JSON.stringify(view.state.subagentOf ?? null), () => (view.state!.subagentOf ? [renderSubagentBanner(view.state!.subagentOf, () => host.post({ type: 'closeSubagent' }))] : []));
  subagentsSection.hidden = !view.state.subagents;
  replaceIfChanged(subagentSlot, JSON.stringify(view.state.subagents ?? null), () => (view.state!.subagents ? [renderSubagents(view.state!.subagents, openSubagent)] : []));
  // A subagent's window is read-only: no compaction of it, and its next request is where it ended.
  previewSection.hidden = Boolean(view.state.subagentOf);
  nextTitle.textContent = view.state.subagentOf ? 'Its context when it ended' : 'Next request';
  toolsTitle.textContent = view.state.subagentOf ? 'Tokens by tool (its context when it ended)' : 'Tokens by tool (next request)';
  replaceIfChanged(barSlot, JSON.stringify(view.state.figures ?? null), () => (view.state!.figures ? [renderStackedBar(view.state!.figures), renderLegend(view.state!.figures)] : [h('p', { class: 'empty', text: 'No budget yet: open a session.' })]));
  renderRequests();
  renderCurrent();
  replace(toolSlot, [renderToolTokens(view.state.current, view.state.figures?.components.tools ?? 0)]);
  renderHistory();
  renderBlobs();
  renderPreviewSlot();
}

export function renderRequests(): void {
  if (!view.state) return;
  // A selected request (restored with the view) is always among those drawn.
  const selectedAt = ui.selectedRequest === undefined ? -1 : view.state.requests.filter((t) => t.requestIndex > ui.selectedRequest!).length;
  if (selectedAt >= view.timelineShown) view.timelineShown = (Math.floor(selectedAt / TIMELINE_PAGE) + 1) * TIMELINE_PAGE;
  replace(timelineSlot, [
    renderTimeline(view.state.requests, {
      effectiveWindow: view.state.figures?.effectiveWindow ?? 0,
      selected: ui.selectedRequest,
      onSelect: selectRequest,
      shown: view.timelineShown,
      notSent: view.state.earlierRequests,
      onShowOlder: () => {
        view.timelineShown += TIMELINE_PAGE;
        // Past what this webview holds: the host sends a page more of the older requests.
        if (view.timelineShown > (view.state?.requests.length ?? 0) && view.state?.earlierRequests) host.post({ type: 'showEarlier', list: 'requests' });
        renderRequests();
      },
    }),
  ]);
  if (ui.selectedRequest === undefined) {
    replace(requestSlot, [h('p', { class: 'hint', text: 'Select a request to see exactly what it carried.' })]);
  } else if (!view.requestItems || view.requestItems.requestIndex !== ui.selectedRequest) {
    replace(requestSlot, [h('div', { class: 'loading' }, [progressRing('Loading'), `Loading request #${ui.selectedRequest}…`])]);
  } else {
    if (requestHeading?.dataset.request !== String(view.requestItems.requestIndex)) requestHeading = h('h3', { text: `Request #${view.requestItems.requestIndex}`, attrs: { 'data-request': view.requestItems.requestIndex } });
    replace(requestSlot, [
      requestHeading,
      renderRequestUsage(view.state.requests.find((t) => t.requestIndex === view.requestItems!.requestIndex), view.state.requests.find((t) => t.requestIndex === view.requestItems!.requestIndex - 1), view.requestItems.cacheMiss),
      forkAction(view.requestItems),
      renderItemList(view.requestItems.items, {
        label: 'turn',
        requestIndex: view.requestItems.requestIndex,
        shownTotal: view.state.requests.find((t) => t.requestIndex === view.requestItems!.requestIndex)?.reportedInputTokens,
        onRequestText: (itemId) => host.post({ type: 'requestItemText', requestIndex: view.requestItems!.requestIndex, itemId }),
        onOpenInEditor: view.state.subagentOf ? undefined : (position) => host.post({ type: 'openRequestItem', requestIndex: view.requestItems!.requestIndex, position }),
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
  const sessionId = view.state?.session?.id;
  const messages = turn.items.filter(isMessageItem).length;
  if (!sessionId || view.state?.replayLabel || messages === 0) return null;
  return renderForkAction(turn.requestIndex, messages, () => host.post({ type: 'forkFromRequest', sessionId, requestIndex: turn.requestIndex }));
}

export function renderCurrent(): void {
  if (!view.state) return;
  const omitted = view.state.currentOmitted;
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
    renderItemList(view.state.current, {
      label: 'current',
      shownTotal: view.state.figures?.used,
      sort: ui.currentSort,
      onSort: (sort) => {
        ui.currentSort = sort;
        persist();
        renderCurrent();
      },
      onPin: view.state.subagentOf ? undefined : (messageId, pinned) => host.post({ type: 'pin', messageId, pinned }),
      onRequestText: (itemId) => host.post({ type: 'requestItemText', itemId }),
      onOpenInEditor: view.state.subagentOf ? undefined : (position) => host.post({ type: 'openRequestItem', position: wirePosition(position) }),
      links: itemLinks(),
    }),
  ]);
}

export function renderHistory(): void {
  if (!view.state) return;
  // A compaction's record does not change once written: its id, outcome and size stand for it, with the removed items asked for.
  const history = view.state.compactions.map((c) => [c.id, c.status, c.tokensAfter, c.removedCount, removedMore.get(c.id)?.items.length, removedMore.get(c.id)?.loading]);
  keepingRemovedScroll(historySlot, () => replaceIfChanged(historySlot, JSON.stringify([history, [...openCompactions]]), historyChildren));
}

function historyChildren(): HTMLElement[] {
  return [
    renderCompactionHistory(view.state?.compactions ?? [], openCompactions, removedMore, {
      onToggle: (id, open) => {
        if (open) openCompactions.add(id);
        else openCompactions.delete(id);
        persist();
      },
      onOpenSummary: (compactionId) => host.post({ type: 'openSummary', compactionId }),
      onShowRemoved: (id, offset) => {
        showRemoved(id, offset);
        renderHistory();
      },
    }),
  ];
}

/** Asks the host for a page more of a compaction's (or the preview's) removed items; the page arrives as `removedItems`. */
function showRemoved(compactionId: string, offset: number): void {
  const held = removedMore.get(compactionId);
  removedMore.set(compactionId, held && held.from + held.items.length === offset ? { ...held, loading: true } : { from: offset, items: [], loading: true });
  host.post({ type: 'showRemoved', compactionId, offset });
}

export function renderBlobs(): void {
  if (!view.state) return;
  replace(blobSlot, [
    renderOffloadedResults(view.state.blobs, view.state.blobTitles ?? {}, {
      shown: view.resultsShown,
      notSent: view.state.earlierResults,
      onShowEarlier: () => {
        view.resultsShown += RESULTS_PAGE;
        if (view.resultsShown > (view.state?.blobs.length ?? 0) && view.state?.earlierResults) host.post({ type: 'showEarlier', list: 'results' });
        renderBlobs();
      },
      open: openBlobs,
      pages: blobPages,
      onToggle: (refId, open) => {
        if (open) {
          openBlobs.add(refId);
          const page = blobPages.get(refId);
          if (!page || (!page.loading && page.text.length === 0 && page.totalBytes === 0)) {
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
      onOpenInEditor: view.state.subagentOf ? undefined : (refId) => host.post({ type: 'openBlobInEditor', refId }),
    }),
  ]);
}

export function renderPreviewSlot(): void {
  setDisabled(previewButton, view.busy);
  if (!view.preview) {
    replace(previewSlot, []);
    return;
  }
  const shown = view.preview;
  const stale = view.previewBasis !== contextBasis(view.state);
  keepingRemovedScroll(previewSlot, () => replace(previewSlot, [
    renderPreview(shown, view.busy, stale, view.previewSummary, removedMore.get(shown.id), {
      onConfirm: () => {
        const confirm: Extract<InspectorToHost, { type: 'confirmCompaction' }> = { type: 'confirmCompaction' };
        if (shown.focus !== undefined) confirm.focus = shown.focus;
        if (view.previewSummary) confirm.summary = view.previewSummary.value;
        stopCounting();
        host.post(confirm);
        view.preview = undefined;
        view.previewSummary = undefined;
        renderPreviewSlot();
      },
      onCancel: () => {
        stopCounting();
        view.preview = undefined;
        view.previewSummary = undefined;
        renderPreviewSlot();
      },
      onRestoreSummary: () => {
        if (view.previewSummary && shown.summary !== undefined) view.previewSummary.value = shown.summary;
        countPreviewSummary(0);
        renderPreviewSlot();
      },
      onRefresh: () => host.post(shown.focus === undefined ? { type: 'previewCompaction' } : { type: 'previewCompaction', focus: shown.focus }),
      onShowRemoved: (offset) => {
        showRemoved(shown.id, offset);
        renderPreviewSlot();
      },
    }),
  ]));
}

/** How long the summary stays unchanged before the host is asked to count it (not on every key). */
const COUNT_AFTER_MS = 300;
let countTimer: ReturnType<typeof setTimeout> | undefined;

function stopCounting(): void {
  if (countTimer !== undefined) clearTimeout(countTimer);
  countTimer = undefined;
}

/** Asks the host, after `delayMs`, what the preview would leave with the summary as it is now written. */
export function countPreviewSummary(delayMs = COUNT_AFTER_MS): void {
  stopCounting();
  countTimer = setTimeout(() => {
    countTimer = undefined;
    if (view.preview && view.previewSummary) host.post({ type: 'countPreviewSummary', previewId: view.preview.id, summary: view.previewSummary.value });
  }, delayMs);
}

/** The host's count of the summary being edited: the preview's figures follow it, unless the text changed since it was asked. */
export function takePreviewFigures(figures: { previewId: string; summary: string; tokensAfter: number; estimatedTokensAfter: number }): void {
  if (!view.preview || view.preview.id !== figures.previewId || view.previewSummary?.value !== figures.summary) return;
  view.preview = { ...view.preview, tokensAfter: figures.tokensAfter, estimatedTokensAfter: figures.estimatedTokensAfter };
  showPreviewFigures(previewSlot, view.preview);
  updateConfirm(view.previewSummary);
}

function updateConfirm(editor: TextInput): void {
  const confirm = previewSlot.querySelector<HTMLElement>('[data-action="confirm"]');
  if (confirm && view.preview) setDisabled(confirm, view.busy || !canConfirmPreview(view.preview, view.previewBasis !== contextBasis(view.state), editor));
}

/** An editable copy of a preview's summary; Confirm and the figures follow what it holds (a blank summary cannot be confirmed). */
export function summaryEditor(text: string): TextInput {
  const editor = textArea({ label: 'Summary that would replace the summarized messages', rows: 10, class: 'summary-editor' });
  editor.value = text;
  editor.element.addEventListener('input', () => {
    updateConfirm(editor);
    previewSlot.querySelector('[data-preview="summary-edited"]')?.toggleAttribute('hidden', editor.value === view.preview?.summary);
    countPreviewSummary();
  });
  return editor;
}

export function renderBusy(label: string | undefined): void {
  replace(statusLine, view.busy ? [progressRing(label), h('span', { text: label ?? 'Working…' })] : []);
  statusLine.classList.toggle('active', view.busy);
  renderPreviewSlot();
}

/** Shows the host's error until the next state arrives. */
export function showError(message: string | undefined): void {
  replace(errorLine, message === undefined ? [] : [h('span', { text: message })]);
}
