import type { CompactionEventRecord } from '../core/model/records';
import { countOf } from './wording';

export { isMessageItem } from '../core/context/messageItems';

/** Whether a history entry records that the session was forked from another session's request. */
export function isForkEntry(record: Pick<CompactionEventRecord, 'step'>): boolean {
  return record.step?.kind === 'fork';
}

/**
 * A fork entry in words, the same in the chat and the inspector: "Forked from request #12 with 18
 * messages, 8,940 tokens (request #12: 9,000 as the provider counted)" — first the figure the fork's
 * meter shows until its own first request, then the one the original session shows for the request.
 */
export function forkEntryText(record: Pick<CompactionEventRecord, 'step' | 'messagesAfter' | 'tokensBefore' | 'tokensAfter'>): string {
  const at = record.step?.fromRequestIndex ?? '?';
  const original = record.tokensBefore !== record.tokensAfter ? ` (request #${at}: ${record.tokensBefore.toLocaleString('en-US')} as the provider counted)` : '';
  return `Forked from request #${at} with ${countOf(record.messagesAfter, 'message')}, ${record.tokensAfter.toLocaleString('en-US')} tokens${original}`;
}
