import type { RemovedItem } from '../../src/protocol/records';
import { badge } from '../ui/controls';
import { h } from '../ui/dom';
import { tokens } from '../ui/format';

const REASONS: Record<RemovedItem['reason'], string> = {
  archived: 'archived',
  tool_summarized: 'tool call summarized',
  summarized: 'summarized',
  episodic: 'episodic memory',
  dropped: 'dropped',
};

/** "user", "tool result · run_command", "system note": the role once, the kind only when it adds something. */
export function itemLabel(item: { role: string; kind: string; toolName?: string }): string {
  const kind = item.kind.replace(/_/g, ' ');
  const base = item.kind === item.role || kind.startsWith(item.role) ? kind : `${item.role} ${kind}`;
  return item.toolName ? `${base} · ${item.toolName}` : base;
}

/** What left the working context, and why. */
export function renderRemoved(removed: RemovedItem[]): HTMLElement {
  if (removed.length === 0) return h('p', { class: 'empty', text: 'No items removed.' });
  return h('ol', { class: 'removed' }, removed.map((r) =>
    h('li', { class: 'removed-item', attrs: { 'data-message-id': r.messageId, 'data-reason': r.reason } }, [
      h('div', { class: 'item-head' }, [
        badge(REASONS[r.reason] ?? r.reason, r.reason),
        h('span', { class: 'item-kind', text: itemLabel(r) }),
        h('span', { class: 'item-tokens', text: `${tokens(r.tokens)} tok` }),
        h('span', { class: 'item-strategy', text: `by ${r.strategy}` }),
        r.offloadRef ? h('span', { class: 'item-ref', text: `full output: ${r.offloadRef}` }) : null,
      ]),
      r.preview ? h('div', { class: 'item-preview', text: r.preview }) : null,
    ]),
  ));
}
