import { countOf } from '../../src/protocol/wording';
import { button } from '../ui/controls';
import { h } from '../ui/dom';

/**
 * The selected request's "Fork from request #N": a new session that starts with exactly what the
 * request carried (its messages, in order, with their pins), opened in the chat.
 */
export function renderForkAction(requestIndex: number, messages: number, onFork: () => void): HTMLElement {
  return h('div', { class: 'fork-action' }, [
    button(`Fork from request #${requestIndex}`, onFork, {
      appearance: 'secondary',
      title: `Start a new session with the ${countOf(messages, 'message')} request #${requestIndex} carried; this session stays as it is`,
      attrs: { 'data-action': 'fork', 'data-request': String(requestIndex) },
    }),
    h('span', { class: 'muted', text: `new session with its ${countOf(messages, 'message')}` }),
  ]);
}
