import type { CompactionPreviewView } from '../../src/protocol/inspector';
import { badge, button } from '../ui/controls';
import { h } from '../ui/dom';
import { percent, tokens } from '../ui/format';
import { renderRemoved } from './removedItems';
import { countOf } from '../../src/protocol/wording';

/** What a compaction would do, before it is confirmed. */
export function renderPreview(preview: CompactionPreviewView, busy: boolean, onConfirm: () => void, onCancel: () => void): HTMLElement {
  const saved = preview.tokensBefore - preview.tokensAfter;
  const canConfirm = preview.status === 'complete' && saved > 0;
  return h('div', { class: 'preview-result', attrs: { 'data-status': preview.status } }, [
    h('div', { class: 'preview-numbers' }, [
      badge(preview.status, `status-${preview.status}`),
      h('span', { class: 'delta', attrs: { 'data-preview': 'tokens' }, text: `${tokens(preview.tokensBefore)} → ${countOf(preview.tokensAfter, 'token')}` }),
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
      button('Confirm', onConfirm, { disabled: busy || !canConfirm, attrs: { 'data-action': 'confirm' }, title: canConfirm ? 'Compact now with this focus' : 'Nothing to compact' }),
      button('Cancel', onCancel, { appearance: 'secondary', attrs: { 'data-action': 'cancel' } }),
    ]),
  ]);
}
