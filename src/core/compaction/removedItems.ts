import type { Message } from '../model/message';
import type { RemovalReason, RemovedItem } from '../model/records';

const PREVIEW_CHARS = 160;

export function previewOf(message: Message): string {
  const text = message.content || (message.toolCalls ?? []).map((c) => `${c.name}(${c.arguments})`).join(' ');
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > PREVIEW_CHARS ? flat.slice(0, PREVIEW_CHARS - 1) + '…' : flat;
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
