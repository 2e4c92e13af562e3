import type { Message, ToolCall } from '../model/message';

/** Tool calls of the latest assistant message that have no output yet. */
export function openCallIds(working: readonly Message[]): Set<string> {
  const open = new Set<string>();
  for (let i = working.length - 1; i >= 0; i--) {
    const m = working[i];
    if (m.role === 'tool' && m.toolCallId) {
      open.delete(m.toolCallId);
      continue;
    }
    if (m.role === 'assistant' && m.toolCalls?.length) {
      const answered = new Set(working.slice(i + 1).map((x) => x.toolCallId));
      for (const call of m.toolCalls) if (!answered.has(call.id)) open.add(call.id);
    }
    break;
  }
  return open;
}

/** The open calls themselves, in the order the model made them. */
export function openCalls(working: readonly Message[]): ToolCall[] {
  const open = openCallIds(working);
  if (open.size === 0) return [];
  for (let i = working.length - 1; i >= 0; i--) {
    const m = working[i];
    if (m.role === 'assistant' && m.toolCalls?.length) return m.toolCalls.filter((call) => open.has(call.id));
  }
  return [];
}
