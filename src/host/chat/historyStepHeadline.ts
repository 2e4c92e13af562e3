import type { ShownCompaction } from '../../core/model/compactionHead';
import { countOf } from '../../protocol/wording';

/** A user message as a short quote for a headline or a confirmation: one line, at most 48 characters. */
export function quoteOf(text: string | undefined): string {
  if (text === undefined) return 'an earlier message';
  const line = text.replace(/\s+/g, ' ').trim();
  return `“${line.length > 48 ? `${line.slice(0, 47)}…` : line}”`;
}

/**
 * What a user's step on the history did, as the chat says it: "Rewound to before “fix the test” ·
 * 4 messages set aside", "Restored 3 files to before “fix the test”". Undefined for a compaction.
 * `messageText`: the text of the step's user message, when the chat holds it.
 */
export function historyStepHeadline(record: ShownCompaction, messageText: string | undefined): string | undefined {
  const step = record.step;
  if (!step || step.kind === 'fork') return undefined;
  const files = step.files?.length ?? 0;
  if (step.kind === 'restore') return `Restored ${countOf(files, 'file')} to before ${quoteOf(messageText)}`;
  const setAside = step.setAside ?? Math.max(0, record.messagesBefore - record.messagesAfter);
  return `Rewound to before ${quoteOf(messageText)} · ${countOf(setAside, 'message')} set aside${files ? ` · ${countOf(files, 'file')} restored` : ''}`;
}
