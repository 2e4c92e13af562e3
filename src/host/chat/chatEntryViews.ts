import type { ShownCompaction } from '../../core/model/compactionHead';
import { MESSAGE_OVERHEAD_TOKENS } from '../../core/accounting/messageTokens';
import type { Message } from '../../core/model/message';
import { chatCompactionRecord, type ChatEntry, type ChatThinking, type ChatToolCallView } from '../../protocol/chat';
import { countOf } from '../../protocol/wording';
import { readStoredResult } from '../../core/toolOutput/storedResultHeader';
import { hookName } from '../../core/hooks/hooks';

// What one stored message or record looks like in the chat: its tokens, thinking, tool cards, compaction notice.

const PREVIEW_CHARS = 2_000;

/** A tool call's card: its status from its result, and what the model saw of that result. */
export function toolView(call: { id: string; name: string; arguments: string }, result: Message | undefined): ChatToolCallView {
  const status: ChatToolCallView['status'] = !result
    ? 'running'
    : result.kind === 'aborted'
      ? 'aborted'
      : result.meta?.denied
        ? 'denied'
        : result.meta?.isError
          ? 'error'
          : 'done';
  const stored = result?.meta?.offloadRef ? readStoredResult(result.content) : undefined;
  const byHook = result?.meta?.deniedByHook;
  return {
    callId: call.id,
    name: call.name,
    arguments: call.arguments,
    status,
    resultPreview: result ? (stored?.preview ?? result.content).slice(0, PREVIEW_CHARS) : undefined,
    truncated: Boolean(result?.meta?.truncated),
    offloadRef: result?.meta?.offloadRef,
    ...(stored ? { stored: { lines: stored.facts.lineCount, bytes: stored.facts.byteSize } } : {}),
    ...(byHook ? { deniedBy: { hook: hookName(byHook.hook), reason: byHook.reason } } : {}),
  };
}

/** The inspector lists a message's framing apart from the message: the chat shows the same figure. */
export function tokensOf(m: Message): number | undefined {
  return m.tokens === undefined ? undefined : m.tokens - MESSAGE_OVERHEAD_TOKENS;
}

/** An assistant message's thinking as the chat shows it: readable text, its tokens, and how many blocks came redacted. */
export function thinkingView(m: Message): ChatThinking | undefined {
  const blocks = m.reasoning ?? [];
  if (!blocks.length) return undefined;
  const text = blocks.map((b) => b.text).filter(Boolean).join('\n\n');
  const redacted = blocks.filter((b) => !b.text && (b.redactedData !== undefined || b.encryptedContent !== undefined)).length;
  // The thinking's own size (older records kept only what is sent back, which is 0 for thinking that is not).
  const tokens = m.meta?.thinkingTokens ?? (m.meta?.reasoningTokens || undefined);
  const notKeptChars = blocks.reduce((n, b) => n + (b.cutChars ?? 0), 0);
  return { text, redacted, ...(tokens === undefined ? {} : { tokens }), ...(notKeptChars ? { notKeptChars } : {}) };
}

/** A `/compact` that found nothing to remove is recorded as skipped: the chat says so. */
export function compactionEntry(record: ShownCompaction, headline?: string): ChatEntry {
  if (record.status !== 'skipped') return { kind: 'compaction', id: record.id, record: chatCompactionRecord(record), ...(headline ? { headline } : {}) };
  return { kind: 'notice', id: record.id, level: 'info', text: `Nothing to compact: the context (${countOf(record.tokensBefore, 'token')}) has nothing the strategies can remove yet.` };
}

/** Automatic checks that found nothing are not compactions; a user's `/compact` is shown either way. */
export function shownCompaction(record: ShownCompaction): boolean {
  return record.status !== 'skipped' || record.trigger === 'manual';
}
