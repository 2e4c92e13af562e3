import { chatEntryKey, type ChatEntry } from '../../protocol/chat';
import { SentList } from '../inspector/sentList';

/** Entries rebuilt on every refresh (turn figures, notices, streaming text): small, compared by value. */
function comparedByValue(entry: ChatEntry): boolean {
  return entry.kind === 'usage' || entry.kind === 'notice' || (entry.kind === 'assistant' && Boolean(entry.streaming));
}

/** What the chat webview holds of its entries (stored messages' entries are memoized by the host). */
export class SentChatEntries extends SentList<ChatEntry> {
  constructor() {
    super(chatEntryKey, comparedByValue);
  }
}
