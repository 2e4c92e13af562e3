import type { CompactionEventRecord } from '../core/model/records';
import { tokensWithEstimate } from '../core/accounting/windowFigures';
import { countOf } from './wording';

export { isMessageItem } from '../core/session/messageItems';

/** Whether a history entry records that the session was forked from another session's request. */
export function isForkEntry(record: Pick<CompactionEventRecord, 'step'>): boolean {
  return record.step?.kind === 'fork';
}

/**
 * A fork entry in words, the same in the chat and the inspector: "Forked from request #12 with 18
 * messages, 9,000 tokens (Tally's estimate 8,940)" — the figure the original session's request shows.
 */
export function forkEntryText(record: Pick<CompactionEventRecord, 'step' | 'messagesAfter' | 'tokensAfter' | 'estimatedTokensAfter'>): string {
  const at = record.step?.fromRequestIndex;
  return `Forked from request #${at ?? '?'} with ${countOf(record.messagesAfter, 'message')}, ${tokensWithEstimate(record.tokensAfter, record.estimatedTokensAfter)}`;
}
