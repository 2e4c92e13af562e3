import type { ChatEntry } from '../../src/protocol/chat';
import { button, progressRing } from '../ui/controls';
import { h } from '../ui/dom';
import { tokens } from '../ui/format';
import { renderCompactionNotice } from './compactionNotice';
import { renderMarkdown, type MarkdownActions } from './markdown';
import { renderToolCard, type ToolCardActions } from './toolCard';
import { renderTurnUsage } from './turnUsage';

export interface EntryActions extends ToolCardActions, MarkdownActions {
  openNotices: ReadonlySet<string>;
  onToggleNotice: (id: string, open: boolean) => void;
  onRetry: () => void;
  onSelectModel: () => void;
}

function tokenBadge(count: number | undefined): HTMLElement | null {
  return count === undefined ? null : h('span', { class: 'entry-tokens', title: 'Tokens this message takes in the context', attrs: { 'data-tokens': count }, text: `${tokens(count)} tokens` });
}

function noticeAction(entry: Extract<ChatEntry, { kind: 'notice' }>, actions: EntryActions): HTMLElement | null {
  if (entry.action === 'retry') return button('Retry', () => actions.onRetry(), { appearance: 'secondary', attrs: { 'data-action': 'retry' } });
  if (entry.action === 'selectModel') return button('Choose a model', () => actions.onSelectModel(), { attrs: { 'data-action': 'choose-model' } });
  return null;
}

export function renderEntry(entry: ChatEntry, actions: EntryActions): HTMLElement {
  switch (entry.kind) {
    case 'user':
      return h('div', { class: `entry user${entry.pending ? ' pending' : ''}`, attrs: { 'data-entry-id': entry.id, 'data-kind': 'user', 'data-pending': entry.pending } }, [
        h('div', { class: 'entry-head' }, [h('span', { class: 'entry-role', text: 'You' }), entry.pending ? h('span', { class: 'entry-state', text: 'not sent yet' }) : null, tokenBadge(entry.tokens)]),
        h('div', { class: 'text', text: entry.text }),
      ]);
    case 'assistant':
      return h('div', { class: `entry assistant${entry.streaming ? ' streaming' : ''}`, attrs: { 'data-entry-id': entry.id, 'data-kind': 'assistant' } }, [
        h('div', { class: 'entry-head' }, [h('span', { class: 'entry-role', text: 'Tally' }), tokenBadge(entry.tokens)]),
        entry.text ? h('div', { class: 'entry-body' }, [renderMarkdown(entry.text, actions)]) : null,
        ...entry.toolCalls.map((call) => renderToolCard(call, actions)),
      ]);
    case 'compaction':
      return renderCompactionNotice(entry.record, actions.openNotices.has(entry.id), (open) => actions.onToggleNotice(entry.id, open));
    case 'notice':
      return h('div', { class: `entry notice notice-${entry.level}${entry.busy ? ' busy' : ''}`, attrs: { 'data-entry-id': entry.id, 'data-kind': 'notice', 'data-busy': entry.busy, role: entry.level === 'error' ? 'alert' : 'status' } }, [
        entry.busy ? progressRing('Working') : null,
        h('span', { class: 'notice-level', text: entry.level === 'error' ? 'Error: ' : entry.level === 'warning' ? 'Warning: ' : '' }),
        h('span', { class: 'notice-text', text: entry.text }),
        noticeAction(entry, actions),
      ]);
    case 'usage':
      return renderTurnUsage(entry.id, entry.usage);
  }
}

/** Re-renders only entries whose content changed, so streaming and long chats stay cheap. */
export class EntryList {
  readonly element = h('div', { class: 'entries', attrs: { role: 'log', 'aria-live': 'polite' } });
  private rendered = new Map<string, { signature: string; element: HTMLElement }>();

  constructor(private readonly actions: EntryActions) {}

  render(entries: ChatEntry[]): void {
    const next = new Map<string, { signature: string; element: HTMLElement }>();
    const elements: HTMLElement[] = [];
    for (const entry of entries) {
      const signature = JSON.stringify(entry);
      const key = `${entry.kind}:${entry.id}`;
      const old = this.rendered.get(key);
      const element = old && old.signature === signature ? old.element : renderEntry(entry, this.actions);
      next.set(key, { signature, element });
      elements.push(element);
    }
    // Reorder/replace in place; unchanged nodes are moved, not rebuilt.
    elements.forEach((el, i) => {
      const at = this.element.children[i];
      if (at !== el) this.element.insertBefore(el, at ?? null);
    });
    while (this.element.children.length > elements.length) this.element.lastElementChild?.remove();
    this.rendered = next;
  }
}
