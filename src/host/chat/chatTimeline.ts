import { MESSAGE_OVERHEAD_TOKENS } from '../../core/accounting/messageTokens';
import type { Message } from '../../core/model/message';
import type { ChatEntry, ChatThinking } from '../../protocol/chat';
import { toolView } from './chatToolView';

/** An assistant message's thinking as the chat shows it: readable text, its tokens, and how many blocks came redacted. */
function thinkingView(m: Message): ChatThinking | undefined {
  const blocks = m.reasoning ?? [];
  if (!blocks.length) return undefined;
  const text = blocks.map((b) => b.text).filter(Boolean).join('\n\n');
  const redacted = blocks.filter((b) => !b.text && (b.redactedData !== undefined || b.encryptedContent !== undefined)).length;
  return m.meta?.reasoningTokens === undefined ? { text, redacted } : { text, redacted, tokens: m.meta.reasoningTokens };
}

interface OpenAssistant {
  message: Message;
  results: Array<Message | undefined>;
  /** Its entry's position, or -1 when the message is not shown. */
  at: number;
}

/**
 * The entries of the stored messages the chat shows (the user's messages and the assistant's,
 * with their tool calls' results), kept between refreshes. A transcript only grows during a
 * session, so each refresh handles just the messages appended since the last one: a refresh of
 * a 10,000-message chat builds a few entries, not 10,000. A transcript that changed before its
 * end (a message rewritten in place) is built again from the start.
 *
 * A tool result belongs to the assistant message it follows (before the next assistant message)
 * and, within it, to the first call with its id that has no result yet: an id an earlier message
 * also used never picks up a result that is not its own.
 */
export class ChatTimeline {
  private seen: readonly Message[] = [];
  private tokenSource?: ReadonlyMap<string, number>;
  private open?: OpenAssistant;
  /** Shown entries in transcript order, and the message each one shows. */
  readonly entries: ChatEntry[] = [];
  readonly messages: Message[] = [];

  /**
   * Brings the entries up to `transcript`. `tokens`: counts that override the ones stored with
   * the messages (from usage records that list their items).
   */
  update(transcript: readonly Message[], tokens: ReadonlyMap<string, number>): void {
    const known = this.seen.length;
    // Counts from item lists can change any entry: then everything is built again.
    const overridden = tokens.size > 0 || (this.tokenSource?.size ?? 0) > 0;
    let same = !overridden && known <= transcript.length;
    for (let i = 0; same && i < known; i++) same = transcript[i] === this.seen[i];
    if (!same) this.reset();
    this.tokenSource = tokens;
    for (let i = this.seen.length; i < transcript.length; i++) this.take(transcript[i], tokens);
    this.seen = transcript.slice();
  }

  private reset(): void {
    this.seen = [];
    this.open = undefined;
    this.entries.length = 0;
    this.messages.length = 0;
  }

  private take(m: Message, tokens: ReadonlyMap<string, number>): void {
    // The inspector lists a message's framing apart from the message: the chat shows the same figure.
    const count = tokens.get(m.id) ?? (m.tokens === undefined ? undefined : m.tokens - MESSAGE_OVERHEAD_TOKENS);
    if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      this.open = { message: m, results: calls.map(() => undefined), at: m.userVisible ? this.entries.length : -1 };
      const thinking = thinkingView(m);
      if (m.userVisible) this.show(m, { kind: 'assistant', id: m.id, text: m.content, tokens: count, toolCalls: calls.map((c) => toolView(c, undefined)), ...(thinking ? { thinking } : {}) });
    } else if (m.role === 'tool' && this.open) {
      const open = this.open;
      const calls = open.message.toolCalls ?? [];
      const slot = calls.findIndex((c, i) => c.id === (m.toolCallId ?? '') && !open.results[i]);
      if (slot < 0) return;
      open.results[slot] = m;
      if (open.at < 0) return;
      // A new object for the changed entry, so the host can tell the webview what changed by identity.
      const before = this.entries[open.at] as Extract<ChatEntry, { kind: 'assistant' }>;
      this.entries[open.at] = { ...before, toolCalls: before.toolCalls.map((view, i) => (i === slot ? toolView(calls[i], m) : view)) };
    } else if (m.role === 'user' && m.kind === 'user' && m.userVisible) {
      this.show(m, { kind: 'user', id: m.id, text: m.content, tokens: count });
    }
  }

  private show(m: Message, entry: ChatEntry): void {
    this.entries.push(entry);
    this.messages.push(m);
  }
}
