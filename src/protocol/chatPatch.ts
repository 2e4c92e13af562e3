import { chatEntryKey, type ChatEntriesPatch, type ChatEntry } from './chat';
import { applyListPatch, type HeldList } from './listPatch';

/** The chat's entry list as the webview holds it: keys in order, and each key's entry. */
export type HeldChatEntries = HeldList<ChatEntry>;

/** Applies a change of the chat's entries (see applyListPatch). */
export function applyChatEntriesPatch(held: HeldChatEntries, patch: ChatEntriesPatch): { entries: ChatEntry[]; missing: string[] } {
  const { list, missing } = applyListPatch(held, patch, chatEntryKey);
  return { entries: list, missing };
}

/**
 * The entry `entryId` once `text` streamed onto it (`thinking`: onto its thinking), as a new
 * object; `before` undefined makes the streaming entry. The answer's first text ends its thinking.
 */
export function streamedEntry(before: ChatEntry | undefined, entryId: string, text: string, thinking: boolean): Extract<ChatEntry, { kind: 'assistant' }> {
  const entry: Extract<ChatEntry, { kind: 'assistant' }> = before?.kind === 'assistant' ? before : { kind: 'assistant', id: entryId, text: '', streaming: true, toolCalls: [] };
  if (thinking) return { ...entry, thinking: { text: (entry.thinking?.text ?? '') + text, redacted: 0, streaming: true } };
  return { ...entry, text: entry.text + text, ...(entry.thinking?.streaming ? { thinking: { ...entry.thinking, streaming: false } } : {}) };
}
