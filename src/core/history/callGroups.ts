import type { CallGroup, Message } from '../model/message';

/**
 * Call groups: an assistant message with tool calls plus the tool messages directly after it that
 * answer those calls. A cut must never fall inside one, or a provider would reject the request.
 */
export function findCallGroups(messages: readonly Message[]): CallGroup[] {
  const groups: CallGroup[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue;
    const ids = new Set(m.toolCalls.map((c) => c.id));
    let end = i + 1;
    while (end < messages.length && messages[end].role === 'tool' && ids.has(messages[end].toolCallId ?? '')) end++;
    groups.push({ start: i, end });
    i = end - 1;
  }
  return groups;
}

/** The nearest cut at or before `index` that keeps every call group whole. */
export function safeCutBefore(messages: readonly Message[], index: number): number {
  const group = findCallGroups(messages).find((g) => index > g.start && index < g.end);
  return group ? group.start : index;
}
