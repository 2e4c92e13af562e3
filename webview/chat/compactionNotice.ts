import type { ChatCompactionRecord } from '../../src/protocol/chat';
import type { CompactionEventRecord } from '../../src/protocol/records';
import { badge } from '../ui/controls';
import { details, h } from '../ui/dom';
import { compactionDelta, compactionSaved } from '../../src/protocol/inspector';
import { countOf, strategiesInWords } from '../../src/protocol/wording';
import { isForkEntry } from '../../src/protocol/forkEntry';
import { renderForkNotice } from './forkNotice';

const TRIGGERS: Record<CompactionEventRecord['trigger'], string> = {
  auto: 'Automatic',
  blocked: 'Blocked request',
  manual: 'Manual',
  overflow: 'Overflow recovery',
  tool: 'Model-requested',
  rewind: 'Rewind',
  fork: 'Fork',
  restore: 'Files restored',
};

/**
 * An inline notice where a compaction happened; expands to what it did. `headline`: a user's step
 * on the history (rewind, restore) in the host's words, shown instead of the compaction's line.
 */
export function renderCompactionNotice(record: ChatCompactionRecord, open: boolean, onToggle: (open: boolean) => void, headline?: string): HTMLElement {
  if (isForkEntry(record)) return renderForkNotice(record, open, onToggle);
  const failed = record.status === 'error';
  const files = record.step?.files ?? [];
  return details(
    [
      failed ? h('span', { class: 'notice-icon', attrs: { 'aria-hidden': 'true' }, text: '⚠' }) : null,
      h('span', {
        class: 'notice-headline',
        text: failed
          ? `Compaction failed (${TRIGGERS[record.trigger] ?? record.trigger}): nothing was changed`
          : headline ?? `Context compacted: ${compactionDelta(record)}`,
      }),
      badge((TRIGGERS[record.trigger] ?? record.trigger).toLowerCase(), `trigger-${record.trigger}`),
    ],
    [
      h('dl', { class: 'props' }, [
        h('dt', { text: 'Trigger' }), h('dd', { text: TRIGGERS[record.trigger] ?? record.trigger }),
        // A restore of files leaves the context as it was: no tokens to speak of.
        record.step?.kind === 'restore' ? null : h('dt', { text: 'Tokens' }),
        record.step?.kind === 'restore' ? null : h('dd', { text: `${compactionDelta(record)}, saved ${compactionSaved(record)}` }),
        record.step ? null : h('dt', { text: 'Strategies' }), record.step ? null : h('dd', { text: strategiesInWords(record.strategies) || 'none' }),
        record.step?.kind === 'rewind' ? h('dt', { text: 'Messages' }) : null,
        record.step?.kind === 'rewind' ? h('dd', { attrs: { 'data-set-aside': record.messagesBefore - record.messagesAfter }, text: `${countOf(record.messagesBefore - record.messagesAfter, 'message')} set aside (still in the transcript and the inspector)` }) : null,
        files.length ? h('dt', { text: 'Files restored' }) : null, files.length ? h('dd', { attrs: { 'data-files-restored': files.length }, text: files.join(', ') }) : null,
        record.step ? null : h('dt', { text: 'Removed' }), record.step ? null : h('dd', { attrs: { 'data-removed-count': record.removedCount }, text: `${countOf(record.removedCount, 'item')} (still in the transcript and the inspector)` }),
        record.focus ? h('dt', { text: 'Focus' }) : null, record.focus ? h('dd', { text: record.focus }) : null,
        record.error ? h('dt', { text: 'Error' }) : null, record.error ? h('dd', { class: 'error-text', text: record.error }) : null,
        // What checking the summary did: for the user, never in the summary the model reads.
        record.summaryNotes?.length ? h('dt', { text: 'Summary check' }) : null,
        record.summaryNotes?.length ? h('dd', { attrs: { 'data-field': 'summary-check' }, text: record.summaryNotes.join('; ') }) : null,
      ]),
      record.summary ? h('pre', { class: 'summary-text', text: record.summary }) : null,
    ],
    { open, class: `entry compaction-notice${failed ? ' failed' : ''}`, attrs: { 'data-entry-id': record.id, 'data-kind': 'compaction' }, onToggle },
  );
}
