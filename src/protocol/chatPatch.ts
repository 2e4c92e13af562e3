import { chatEntryKey, type ChatEntriesPatch, type ChatEntry } from './chat';
import { applyListPatch, type HeldList } from './listPatch';

/** The chat's entry list as the webview holds it: keys in order, and each key's entry. */
export type HeldChatEntries = HeldList<ChatEntry>;

/** Applies a change of the chat's entries (see applyListPatch). */
export function applyChatEntriesPatch(held: HeldChatEntries, patch: ChatEntriesPatch): { entries: ChatEntry[]; missing: string[] } {
  const { list, missing } = applyListPatch(held, patch, chatEntryKey);
  return { entries: list, missing };
}
