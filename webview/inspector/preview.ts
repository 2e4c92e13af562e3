import { compactionDelta, type CompactionPreviewView } from '../../src/protocol/inspector';
import { badge, button } from '../ui/controls';
import { h } from '../ui/dom';
import { percent, tokens } from '../ui/format';
import { renderRemoved } from './removedItems';
import { countOf } from '../../src/protocol/wording';

export interface PreviewActions {
  onConfirm: () => void;
  onCancel: () => void;
  onRefresh: () => void;
}

/**
 * What a compaction would do, before it is confirmed. `stale`: the context changed since it was
 * computed (a new request, a compaction), so its numbers no longer hold: it says so, offers Refresh,
 * and Confirm waits for a fresh preview.
 */
export function renderPreview(preview: CompactionPreviewView, busy: boolean, stale: boolean, actions: PreviewActions): HTMLElement {
  const saved = preview.tokensBefore - preview.tokensAfter;
  const canConfirm = preview.status === 'complete' && saved > 0 && !stale;
  return h('div', { class: `preview-result${stale ? ' stale' : ''}`, attrs: { 'data-status': preview.status, 'data-stale': stale ? 'true' : 'false' } }, [
    stale
      ? h('div', { class: 'stale-line', attrs: { role: 'status', 'data-preview': 'stale' } }, [
          h('span', { text: 'Out of date: the context changed after this preview was made, so these numbers no longer hold. ' }),
          button('Refresh preview', actions.onRefresh, { disabled: busy, attrs: { 'data-action': 'refresh-preview' } }),
        ])
      : null,
    h('div', { class: 'preview-numbers' }, [
      badge(preview.status, `status-${preview.status}`),
      h('span', { class: 'delta', attrs: { 'data-preview': 'tokens' }, text: compactionDelta(preview) }),
      h('span', { class: 'saved', attrs: { 'data-preview': 'saved' }, text: `saves ${tokens(saved)} (${percent(preview.tokensBefore ? saved / preview.tokensBefore : 0)})` }),
    ]),
    h('dl', { class: 'props' }, [
      h('dt', { text: 'Strategies' }), h('dd', { text: preview.strategies.length ? preview.strategies.join(' → ') : 'none would run' }),
      preview.focus ? h('dt', { text: 'Focus' }) : null, preview.focus ? h('dd', { text: preview.focus }) : null,
      preview.error ? h('dt', { text: 'Error' }) : null, preview.error ? h('dd', { class: 'error-text', text: preview.error }) : null,
    ]),
    h('h4', { text: `Would remove ${countOf(preview.removed.length, 'item')}` }),
    renderRemoved(preview.removed),
    h('div', { class: 'actions' }, [
      button('Confirm', actions.onConfirm, { disabled: busy || !canConfirm, attrs: { 'data-action': 'confirm' }, title: stale ? 'Refresh the preview first' : canConfirm ? 'Compact now with this focus' : 'Nothing to compact' }),
      button('Cancel', actions.onCancel, { appearance: 'secondary', attrs: { 'data-action': 'cancel' } }),
    ]),
  ]);
}
