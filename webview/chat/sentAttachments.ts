import type { ChatSentAttachment } from '../../src/protocol/chat';
import { countOf } from '../../src/protocol/wording';
import { h } from '../ui/dom';

const fmt = (n: number) => n.toLocaleString('en-US');

/** What was attached to a sent message: one chip each, with the tokens its item carried. */
export function renderSentAttachments(attachments: readonly ChatSentAttachment[] | undefined): HTMLElement | null {
  if (!attachments?.length) return null;
  return h('div', { class: 'attach-chips sent', attrs: { role: 'list', 'aria-label': 'Attached' } }, attachments.map((a) => {
    const detail = [a.tokens !== undefined ? countOf(a.tokens, 'token') : '', a.stored ? `stored, ${fmt(a.stored.sentLines)} of ${countOf(a.stored.lines, 'line')} sent` : ''].filter(Boolean).join(' · ');
    return h('div', { class: 'attach-chip', attrs: { role: 'listitem', 'data-id': a.id, 'data-tokens': a.tokens } }, [
      h('span', { class: 'attach-chip-label', text: a.label }),
      h('span', { class: 'attach-chip-detail', text: detail }),
    ]);
  }));
}
