import type { Message } from '../model/message';
import type { RemovalReason, RemovedItem } from '../model/records';

const PREVIEW_CHARS = 160;

/** The start of a message on one line: only as much text is read as the preview needs (messages can be megabytes). */
export function previewOf(message: Message): string {
  const text = message.content || (message.toolCalls ?? []).map((c) => `${c.name}(${c.arguments})`).join(' ');
  let read = PREVIEW_CHARS * 4;
  let flat = text.slice(0, read).replace(/\s+/g, ' ').trimStart();
  while (flat.length <= PREVIEW_CHARS && read < text.length) {
    read *= 4;
    flat = text.slice(0, read).replace(/\s+/g, ' ').trimStart();
  }
  flat = flat.trimEnd();
  return flat.length > PREVIEW_CHARS || read < text.length ? flat.slice(0, PREVIEW_CHARS - 1) + '…' : flat;
}

export function removedItem(message: Message, reason: RemovalReason, strategy: string, tokens: number): RemovedItem {
  return {
    messageId: message.meta?.replaces?.length === 1 ? message.meta.replaces[0] : message.id,
    reason,
    strategy,
    kind: message.kind,
    role: message.role,
    tokens,
    toolName: message.toolName,
    offloadRef: message.meta?.offloadRef,
    preview: previewOf(message),
  };
}

/** The transcript ids a working-context message stands for (itself, or what it replaced). */
export function transcriptIdsOf(message: Message): string[] {
  return message.meta?.replaces?.length ? message.meta.replaces : [message.id];
}
