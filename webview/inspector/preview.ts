import { compactionDelta, type CompactionPreviewView } from '../../src/protocol/inspector';
import { LIMITS } from '../../src/protocol/validateFields';
import { badge, button, type TextInput } from '../ui/controls';
import { h } from '../ui/dom';
import { percent, tokens } from '../ui/format';
import { renderRemovedPage, type MoreRemoved } from './removedItems';
import { countOf } from '../../src/protocol/wording';

export interface PreviewActions {
  onConfirm: () => void;
  onCancel: () => void;
  onRefresh: () => void;
  /** Puts the proposed summary back in the editor. */
  onRestoreSummary: () => void;
  /** Asks for a page more of the items it would remove, from `offset`. */
  onShowRemoved: (offset: number) => void;
}

/** Why the summary as written cannot be confirmed, or undefined when it can. */
export function summaryProblem(text: string): string | undefined {
  if (text.trim().length === 0) return 'Write a summary first: it is what replaces the summarized messages';
  if (new TextEncoder().encode(text).length > LIMITS.summaryBytes) return `The summary is longer than ${LIMITS.summaryBytes / 1024} KiB`;
  return undefined;
}

/** Whether Confirm may be pressed for this preview with the summary as the user left it. */
export function canConfirmPreview(preview: CompactionPreviewView, stale: boolean, summary: TextInput | undefined): boolean {
  const saved = preview.tokensBefore - preview.tokensAfter;
  return preview.status === 'complete' && saved > 0 && !stale && !(summary && summaryProblem(summary.value));
}

/** The preview's figures in words: its tokens before and after, and what it saves. */
function figureTexts(preview: CompactionPreviewView): { tokens: string; saved: string } {
  const saved = preview.tokensBefore - preview.tokensAfter;
  return { tokens: compactionDelta(preview), saved: `saves ${tokens(saved)} (${percent(preview.tokensBefore ? saved / preview.tokensBefore : 0)})` };
}

/** Puts the preview's figures (counted again by the host for an edited summary) in place, leaving the editor as it is. */
export function showPreviewFigures(slot: HTMLElement, preview: CompactionPreviewView): void {
  const texts = figureTexts(preview);
  const tokensLine = slot.querySelector('[data-preview="tokens"]');
  const savedLine = slot.querySelector('[data-preview="saved"]');
  if (tokensLine) tokensLine.textContent = texts.tokens;
  if (savedLine) savedLine.textContent = texts.saved;
}

/**
 * What a compaction would do, before it is confirmed. `stale`: the context changed since it was
 * computed (a new request, a compaction), so its numbers no longer hold: it says so, offers Refresh,
 * and Confirm waits for a fresh preview. `summary`: the editable summary (kept by the caller across
 * renders so an edit survives them); what it holds when Confirm is pressed is what is stored and sent.
 */
export function renderPreview(preview: CompactionPreviewView, busy: boolean, stale: boolean, summary: TextInput | undefined, more: MoreRemoved | undefined, actions: PreviewActions): HTMLElement {
  const canConfirm = canConfirmPreview(preview, stale, summary);
  const texts = figureTexts(preview);
  const problem = summary ? summaryProblem(summary.value) : undefined;
  return h('div', { class: `preview-result${stale ? ' stale' : ''}`, attrs: { 'data-status': preview.status, 'data-stale': stale ? 'true' : 'false' } }, [
    stale
      ? h('div', { class: 'stale-line', attrs: { role: 'status', 'data-preview': 'stale' } }, [
          h('span', { text: 'Out of date: the context changed after this preview was made, so these numbers no longer hold. ' }),
          button('Refresh preview', actions.onRefresh, { disabled: busy, attrs: { 'data-action': 'refresh-preview' } }),
        ])
      : null,
    h('div', { class: 'preview-numbers' }, [
      badge(preview.status, `status-${preview.status}`),
      h('span', { class: 'delta', attrs: { 'data-preview': 'tokens' }, text: texts.tokens }),
      h('span', { class: 'saved', attrs: { 'data-preview': 'saved' }, text: texts.saved }),
    ]),
    h('dl', { class: 'props' }, [
      h('dt', { text: 'Strategies' }), h('dd', { text: preview.strategies.length ? preview.strategies.join(' → ') : 'none would run' }),
      preview.focus ? h('dt', { text: 'Focus' }) : null, preview.focus ? h('dd', { text: preview.focus }) : null,
      preview.error ? h('dt', { text: 'Error' }) : null, preview.error ? h('dd', { class: 'error-text', text: preview.error }) : null,
      preview.summaryNotes?.length ? h('dt', { text: 'Summary check' }) : null,
      preview.summaryNotes?.length ? h('dd', { attrs: { 'data-field': 'summary-check' }, text: preview.summaryNotes.join('; ') }) : null,
    ]),
    summary
      ? h('div', { class: 'preview-summary' }, [
          summary.element,
          h('div', { class: 'summary-edited', attrs: { 'data-preview': 'summary-edited', hidden: summary.value === preview.summary } }, [
            h('span', { text: 'You changed this summary: Confirm uses your text. ' }),
            button('Restore the proposed summary', actions.onRestoreSummary, { appearance: 'secondary', attrs: { 'data-action': 'restore-summary' } }),
          ]),
          h('p', { class: 'muted', text: 'Edit it if it misses something: what you write here is exactly what the model will see from now on.' }),
        ])
      : null,
    h('h4', { attrs: { 'data-removed-count': preview.removedCount }, text: `Would remove ${countOf(preview.removedCount, 'item')} · ${countOf(preview.removedTokens, 'token')}` }),
    renderRemovedPage(preview.id, preview, more, actions.onShowRemoved),
    h('div', { class: 'actions' }, [
      button('Confirm', actions.onConfirm, { disabled: busy || !canConfirm, attrs: { 'data-action': 'confirm' }, title: stale ? 'Refresh the preview first' : problem ?? (canConfirm ? 'Compact now with this summary and focus' : 'Nothing to compact') }),
      button('Cancel', actions.onCancel, { appearance: 'secondary', attrs: { 'data-action': 'cancel' } }),
    ]),
  ]);
}
