import type { ChatEntry } from '../../src/protocol/chat';
import { h } from '../ui/dom';
import { renderCompactionNotice } from './compactionNotice';
import { renderText } from './text';
import { renderToolCard, type ToolCardActions } from './toolCard';

export interface EntryActions extends ToolCardActions {
  openNotices: ReadonlySet<string>;
  onToggleNotice: (id: string, open: boolean) => void;
}

export function renderEntry(entry: ChatEntry, actions: EntryActions): HTMLElement {
  switch (entry.kind) {
    case 'user':
      return h('div', { class: 'entry user', attrs: { 'data-entry-id': entry.id, 'data-kind': 'user' } }, [
        h('div', { class: 'entry-role', text: 'You' }),
        h('div', { class: 'text', text: entry.text }),
      ]);
    case 'assistant':
      return h('div', { class: `entry assistant${entry.streaming ? ' streaming' : ''}`, attrs: { 'data-entry-id': entry.id, 'data-kind': 'assistant' } }, [
        h('div', { class: 'entry-role', text: 'Tally' }),
        h('div', { class: 'entry-body' }, renderText(entry.text)),
        ...entry.toolCalls.map((call) => renderToolCard(call, actions)),
      ]);
    case 'compaction':
      return renderCompactionNotice(entry.record, actions.openNotices.has(entry.id), (open) => actions.onToggleNotice(entry.id, open));
    case 'notice':
      return h('div', { class: `entry notice notice-${entry.level}`, attrs: { 'data-entry-id': entry.id, 'data-kind': 'notice', role: entry.level === 'error' ? 'alert' : 'status' } }, [
        h('span', { class: 'notice-level', text: entry.level === 'error' ? 'Error: ' : entry.level === 'warning' ? 'Warning: ' : '' }),
        h('span', { text: entry.text }),
      ]);
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
