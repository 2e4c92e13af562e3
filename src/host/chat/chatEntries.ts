import { MESSAGE_OVERHEAD_TOKENS } from '../../core/accounting/messageTokens';
import type { ContextMark } from '../../core/context/contextMarks';
import type { Message } from '../../core/model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../../core/model/records';
import type { ModelPrices } from '../../core/providers/models/modelRegistry';
import { chatCompactionRecord, chatEntryKey, type ChatEntry, type ChatSentAttachment, type ChatThinking, type ChatTurnUsage } from '../../protocol/chat';
import { turnUsage } from '../session/turnFigures';
import { toolView } from './chatToolView';
import { sentAttachmentOf } from './sentAttachments';
import { countOf } from '../../protocol/wording';
import { historyStepHeadline } from './historyStepHeadline';

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
  /** Its entry's key, when the message is shown. */
  key?: string;
}

/** A `/compact` that found nothing to remove is recorded as skipped: the chat says so. */
function compactionEntry(record: CompactionEventRecord, headline?: string): ChatEntry {
  if (record.status !== 'skipped') return { kind: 'compaction', id: record.id, record: chatCompactionRecord(record), ...(headline ? { headline } : {}) };
  return { kind: 'notice', id: record.id, level: 'info', text: `Nothing to compact: the context (${countOf(record.tokensBefore, 'token')}) has nothing the strategies can remove yet.` };
}

/** Automatic checks that found nothing are not compactions; a user's `/compact` is shown either way. */
function shownCompaction(record: CompactionEventRecord): boolean {
  return record.status !== 'skipped' || record.trigger === 'manual';
}

/** What changed in the stored entries since the last `takeChanges`. */
export interface StoredChanges {
  /** The first place whose key changed (the entries before it are where they were). */
  from: number;
  /** Keys whose entry is new or changed. */
  changed: Set<string>;
}

/**
 * The chat's entries for the stored records, folded from them as they are written: the user's
 * and the assistant's messages (each tool call's card completed by its result), compactions in
 * place, and each user turn's figures right before the next user message. The figures of the
 * last turn are not stored here (they change while it runs). A write that does not fit the end
 * (a message rewritten, a record older than what is shown) is answered `false`: the caller folds
 * the records again with `reset`.
 *
 * A tool result belongs to the assistant message it follows (before the next assistant message)
 * and, within it, to the first call with its id that has no result yet: an id an earlier message
 * also used never picks up a result that is not its own.
 */
export class ChatEntries {
  private order: string[] = [];
  private byKey = new Map<string, ChatEntry>();
  private open?: OpenAssistant;
  /** The user messages shown, in order: each starts a turn. */
  private users: Array<{ id: string; createdAt: number }> = [];
  /** Attachments recorded since the last user message: they go on the next one as chips. */
  private attached: ChatSentAttachment[] = [];
  private turnRecords = new Map<string, RequestUsageRecord[]>();
  /** The subagents' requests (theirs and their own subagents'), by the turn they ran in; kept across a reset. */
  private subagentUsage = new Map<string, RequestUsageRecord>();
  private subagentRecords = new Map<string, RequestUsageRecord[]>();
  /** The newest shown message's time, and the newest compaction placed. */
  private lastShownAt = -Infinity;
  private lastCompactionAt = -Infinity;
  private changes: StoredChanges = { from: 0, changed: new Set() };
  /** The key of the latest shown assistant entry with each call id. */
  private callOwners = new Map<string, string>();
  /** The messages the working context no longer holds in any form, as last marked (kept across a reset). */
  private setAsideIds = new Set<string>();

  constructor(private prices: Record<string, ModelPrices> = {}) {}

  /** Folds the records again from the start (`messages` in transcript order). */
  reset(messages: readonly Message[], compactions: readonly CompactionEventRecord[], usage: readonly RequestUsageRecord[]): void {
    this.order = [];
    this.byKey = new Map();
    this.open = undefined;
    this.users = [];
    this.attached = [];
    this.turnRecords = new Map();
    this.subagentRecords = new Map();
    this.callOwners = new Map();
    this.lastShownAt = -Infinity;
    this.lastCompactionAt = -Infinity;
    this.changes = { from: 0, changed: new Set() };
    const shown = compactions.filter(shownCompaction).sort((a, b) => a.startedAt - b.startedAt);
    const records = [...usage].sort((a, b) => a.createdAt - b.createdAt || a.requestIndex - b.requestIndex);
    let nextCompaction = 0;
    let nextRecord = 0;
    const recordsUpTo = (time: number) => {
      while (nextRecord < records.length && records[nextRecord].createdAt < time) this.countUsage(records[nextRecord++]);
    };
    for (const m of messages) {
      if (this.wouldShow(m)) {
        while (nextCompaction < shown.length && shown[nextCompaction].startedAt < m.createdAt) this.placeCompaction(shown[nextCompaction++]);
        // A turn's records are those made before the next user message.
        if (m.role === 'user') recordsUpTo(m.createdAt);
      }
      this.take(m);
    }
    while (nextCompaction < shown.length) this.placeCompaction(shown[nextCompaction++]);
    recordsUpTo(Infinity);
    for (const record of this.subagentUsage.values()) this.countSubagentUsage(record);
    for (const [userId] of this.subagentRecords) if (userId !== this.lastUser()?.id) this.showFigures(userId);
  }

  /** A subagent's request (read from the store, or reported live): its turn's figures include it. */
  addSubagentUsage(record: RequestUsageRecord): void {
    const key = `${record.sessionId}\u0000${record.requestIndex}`;
    if (this.subagentUsage.has(key)) return;
    this.subagentUsage.set(key, record);
    const owner = this.countSubagentUsage(record);
    if (owner && owner.id !== this.lastUser()?.id) this.showFigures(owner.id);
  }

  private countSubagentUsage(record: RequestUsageRecord): { id: string } | undefined {
    const owner = this.turnOf(record.createdAt);
    if (!owner) return undefined;
    const list = this.subagentRecords.get(owner.id) ?? [];
    list.push(record);
    this.subagentRecords.set(owner.id, list);
    return owner;
  }

  /** A turn's figures: its own requests and its subagents'. */
  private figuresOf(userId: string): ChatTurnUsage | undefined {
    return turnUsage(this.turnRecords.get(userId) ?? [], this.prices, this.subagentRecords.get(userId));
  }

  /** Prices changed (a setting): every turn's figures are made again. */
  setPrices(prices: Record<string, ModelPrices>): void {
    this.prices = prices;
    for (const [userId] of this.turnRecords) if (userId !== this.lastUser()?.id) this.showFigures(userId);
  }

  /** Messages appended to the transcript, in order. */
  append(messages: readonly Message[]): void {
    for (const m of messages) this.take(m);
  }

  /** A usage record written; false when it belongs to a turn whose figures are not at the end. */
  addUsage(record: RequestUsageRecord): boolean {
    const owner = this.turnOf(record.createdAt);
    if (!owner) return true; // before the first message shown
    this.countUsage(record);
    if (owner.id === this.lastUser()?.id) return true;
    if (!this.byKey.has(`usage:usage-${owner.id}`)) return false;
    this.showFigures(owner.id);
    return true;
  }

  /** A compaction event written; false when it goes before messages already shown. */
  addCompaction(record: CompactionEventRecord): boolean {
    if (!shownCompaction(record)) return true;
    const key = chatEntryKey(this.compactionOf(record));
    if (this.byKey.has(key)) {
      this.set(key, this.compactionOf(record));
      return true;
    }
    if (record.startedAt < this.lastShownAt || record.startedAt < this.lastCompactionAt) return false;
    this.placeCompaction(record);
    return true;
  }

  /** The stored entries in order. */
  entries(): ChatEntry[] {
    return this.order.map((key) => this.byKey.get(key)!);
  }

  /** Keys of the stored entries in order. */
  get keys(): readonly string[] {
    return this.order;
  }

  entry(key: string): ChatEntry | undefined {
    return this.byKey.get(key);
  }

  /** The key of the latest shown card with this call id: the call running now, when one is. */
  cardOf(callId: string): string | undefined {
    return this.callOwners.get(callId);
  }

  /** The last turn's figures (shown after the stored entries while that turn is not running). */
  lastTurnFigures(): ChatEntry | undefined {
    const last = this.lastUser();
    const figures = last && this.figuresOf(last.id);
    return figures && last ? { kind: 'usage', id: `usage-${last.id}`, usage: figures } : undefined;
  }

  /** What changed since the last call (everything, after a reset). */
  takeChanges(): StoredChanges {
    const taken = this.changes;
    this.changes = { from: this.order.length, changed: new Set() };
    return taken;
  }

  private lastUser(): { id: string; createdAt: number } | undefined {
    return this.users[this.users.length - 1];
  }

  /** The user message whose turn a record made at `time` belongs to: the last one shown before it. */
  private turnOf(time: number): { id: string; createdAt: number } | undefined {
    let lo = 0;
    let hi = this.users.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.users[mid].createdAt <= time) lo = mid + 1;
      else hi = mid;
    }
    return this.users[lo - 1];
  }

  private countUsage(record: RequestUsageRecord): void {
    const owner = this.turnOf(record.createdAt);
    if (!owner) return;
    const list = this.turnRecords.get(owner.id) ?? [];
    list.push(record);
    this.turnRecords.set(owner.id, list);
  }

  private wouldShow(m: Message): boolean {
    return m.userVisible && (m.role === 'assistant' || (m.role === 'user' && m.kind === 'user'));
  }

  private take(m: Message): void {
    // The inspector lists a message's framing apart from the message: the chat shows the same figure.
    const tokens = m.tokens === undefined ? undefined : m.tokens - MESSAGE_OVERHEAD_TOKENS;
    if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      this.open = { message: m, results: calls.map(() => undefined) };
      if (m.userVisible) {
        const thinking = thinkingView(m);
        const key = this.push({ kind: 'assistant', id: m.id, text: m.content, tokens, toolCalls: calls.map((c) => toolView(c, undefined)), ...(thinking ? { thinking } : {}) }, m.createdAt);
        this.open.key = key;
        for (const call of calls) this.callOwners.set(call.id, key);
      }
    } else if (m.role === 'tool' && this.open) {
      const open = this.open;
      const calls = open.message.toolCalls ?? [];
      const slot = calls.findIndex((c, i) => c.id === (m.toolCallId ?? '') && !open.results[i]);
      if (slot < 0) return;
      open.results[slot] = m;
      if (open.key === undefined) return;
      const before = this.byKey.get(open.key) as Extract<ChatEntry, { kind: 'assistant' }>;
      this.set(open.key, { ...before, toolCalls: before.toolCalls.map((view, i) => (i === slot ? toolView(calls[i], m) : view)) });
    } else if (m.kind === 'attachment' && m.userVisible) {
      this.attached.push(sentAttachmentOf(m, tokens));
    } else if (this.wouldShow(m)) {
      // The turn before closes with its figures, right before this message.
      const previous = this.lastUser();
      const figures = previous && this.figuresOf(previous.id);
      if (previous && figures) this.push({ kind: 'usage', id: `usage-${previous.id}`, usage: figures });
      this.users.push({ id: m.id, createdAt: m.createdAt });
      const attachments = this.attached;
      this.attached = [];
      this.push({ kind: 'user', id: m.id, text: m.content, tokens, ...(attachments.length ? { attachments } : {}) }, m.createdAt);
    }
  }

  private showFigures(userId: string): void {
    const figures = this.figuresOf(userId);
    const key = `usage:usage-${userId}`;
    if (figures && this.byKey.has(key)) this.set(key, { kind: 'usage', id: `usage-${userId}`, usage: figures });
  }

  /** A history entry's chat entry; a user's step (rewind, restore) says what it did, quoting its message when shown. */
  private compactionOf(record: CompactionEventRecord): ChatEntry {
    const message = record.step?.messageId === undefined ? undefined : this.byKey.get(`user:${record.step.messageId}`);
    return compactionEntry(record, historyStepHeadline(record, message?.kind === 'user' ? message.text : undefined));
  }

  private placeCompaction(record: CompactionEventRecord): void {
    this.push(this.compactionOf(record));
    this.lastCompactionAt = record.startedAt;
  }

  /**
   * Marks each message shown as the working context holds it (`mark`: contextMarks of the session's
   * messages now): set aside when the model no longer sees it in any form. Messages recorded later
   * are in the context until the next mark.
   */
  markContext(mark: (messageId: string) => ContextMark): void {
    this.setAsideIds = new Set();
    for (const key of this.order) {
      const entry = this.byKey.get(key);
      if (entry?.kind !== 'user' && entry?.kind !== 'assistant') continue;
      if (mark(entry.id) === 'set-aside') this.setAsideIds.add(entry.id);
      this.markEntry(key, entry);
    }
  }

  private markEntry(key: string, entry: Extract<ChatEntry, { kind: 'user' | 'assistant' }>): void {
    const setAside = this.setAsideIds.has(entry.id);
    if (Boolean(entry.setAside) === setAside) return;
    const { setAside: _was, ...rest } = entry;
    this.set(key, setAside ? { ...rest, setAside } : rest);
  }

  private push(entry: ChatEntry, shownAt?: number): string {
    if ((entry.kind === 'user' || entry.kind === 'assistant') && this.setAsideIds.has(entry.id)) entry = { ...entry, setAside: true };
    const key = chatEntryKey(entry);
    this.changes.from = Math.min(this.changes.from, this.order.length);
    this.order.push(key);
    this.set(key, entry);
    if (shownAt !== undefined) this.lastShownAt = Math.max(this.lastShownAt, shownAt);
    return key;
  }

  private set(key: string, entry: ChatEntry): void {
    this.byKey.set(key, entry);
    this.changes.changed.add(key);
  }
}
