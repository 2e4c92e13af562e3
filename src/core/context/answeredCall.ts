import type { Message, ToolCall } from '../model/message';
import type { SessionStore } from '../ports/sessionStore';

/** How many messages before a tool result are searched for its call: a step's calls and results are adjacent. */
const CALL_LOOKBACK = 32;

/**
 * The tool call that `result` answers, for naming it: looked up in `known` messages first (a
 * planned request holds its calls), then in the messages stored just before the result (a page
 * read from the files that hold it), and only when that misses in the session's index of calls.
 * None of these decodes the transcript's tool outputs.
 */
export async function answeredCall(store: SessionStore, sessionId: string, result: Message, known: readonly Message[] = []): Promise<ToolCall | undefined> {
  const id = result.toolCallId;
  if (!id) return undefined;
  const inKnown = callIn(known, id);
  if (inKnown) return inKnown;
  const before = await store.loadRecentTranscript(sessionId, CALL_LOOKBACK, { createdUpTo: result.createdAt });
  const nearby = callIn(before.messages, id);
  if (nearby) return nearby;
  const indexed = (await store.loadToolCallIndex(sessionId)).calls.get(id);
  return indexed ? { id, name: indexed.name, arguments: indexed.arguments } : undefined;
}

function callIn(messages: readonly Message[], id: string): ToolCall | undefined {
  for (const m of messages) for (const call of m.toolCalls ?? []) if (call.id === id) return call;
  return undefined;
}
