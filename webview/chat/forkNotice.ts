import type { ChatCompactionRecord } from '../../src/protocol/chat';
import { forkEntryText } from '../../src/protocol/forkEntry';
import { badge } from '../ui/controls';
import { details, h } from '../ui/dom';

/** Where a forked session starts: the request it was forked from and what that request carried. */
export function renderForkNotice(record: ChatCompactionRecord, open: boolean, onToggle: (open: boolean) => void): HTMLElement {
  return details(
    [h('span', { attrs: { 'data-field': 'fork' }, text: forkEntryText(record) }), badge('fork', 'trigger-fork')],
    [
      h('p', {
        class: 'muted',
        text: 'This session started as a copy of what that request sent: the same messages in the same order, with their pins. The session it came from is unchanged; stored results it refers to open here too.',
      }),
    ],
    { open, class: 'entry compaction-notice fork-notice', attrs: { 'data-entry-id': record.id, 'data-kind': 'compaction', 'data-step': 'fork' }, onToggle },
  );
}
