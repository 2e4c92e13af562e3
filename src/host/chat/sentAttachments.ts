import type { Message } from '../../core/model/message';
import type { ChatSentAttachment } from '../../protocol/chat';

/** An attachment message as a chip on the user message it was sent with; `tokens`: its item's tokens. */
export function sentAttachmentOf(m: Message, tokens: number | undefined): ChatSentAttachment {
  const info = m.meta?.attachment;
  const chip: ChatSentAttachment = { id: m.id, kind: info?.kind ?? 'file', label: info?.label ?? 'attachment' };
  if (tokens !== undefined) chip.tokens = tokens;
  const cut = m.meta?.truncated;
  if (m.meta?.offloadRef && cut) chip.stored = { lines: cut.originalLines, sentLines: cut.originalLines - cut.omittedLines };
  return chip;
}
