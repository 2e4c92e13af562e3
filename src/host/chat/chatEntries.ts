import type { ShownCompaction } from '../../core/model/compactionHead';
import type { ContextMark } from '../../core/context/contextMarks';
import type { Message } from '../../core/model/message';
import type { RequestUsageRecord } from '../../core/model/records';
import type { ModelPrices } from '../../core/providers/models/modelRegistry';
import { chatEntryKey, type ChatEntry, type ChatSentAttachment } from '../../protocol/chat';
import { compactionEntry, shownCompaction, thinkingView, tokensOf, toolView } from './chatEntryViews';
import { sentAttachmentOf } from './sentAttachments';
import { historyStepHeadline } from './historyStepHeadline';
import { TurnUsageLedger } from './turnUsageLedger';

/** An assistant message and the results its calls got, as far as they were recorded. */
interface OpenAssistant {
  message: Message;
  results: Array<Message | undefined>;
  /** Its entry's key, when the message is shown. */
  key?: string;
}

/** Counts the entries the fold made, so tests can tell a write's work from a fold of everything. */
export const foldWork = { entriesMade: 0 };

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
 * is folded where it belongs: a message written again (a pin) changes its own entry, a record
 * older than what is shown goes in at its time; only a change of what is shown at all (a message
 * hidden or shown again) is answered `false`, and the caller folds the records again with `reset`.
 *
 * A tool result belongs to the assistant message it follows (before the next assistant message)
 * and, within it, to the first call with its id that has no result yet: an id an earlier message
 * also used never picks up a result that is not its own.
 */
export class ChatEntries {
  private order: string[] = [];
  private byKey = new Map<string, ChatEntry>();
  private open?: OpenAssistant;
  /** The user messages shown, each starting a turn, and the requests each turn made. */
  private readonly turns: TurnUsageLedger;
  /** Attachments recorded since the last user message: they go on the next one as chips. */
  private attached: ChatSentAttachment[] = [];
  /** The newest shown message's time, and the newest compaction placed. */
  private lastShownAt = -Infinity;
  private lastCompactionAt = -Infinity;
  private changes: StoredChanges = { from: 0, changed: new Set() };
  /** The key of the latest shown assistant entry with each call id. */
  private callOwners = new Map<string, string>();
  /** When each entry in `order` stands in time (a turn's figures: its next user message's), for records that go in before the end. */
  private times: number[] = [];
  /** Each assistant message folded, by id, and where each tool result went (its message and call): a message written again is found at once. */
  private assistants = new Map<string, OpenAssistant>();
  private resultSlots = new Map<string, { owner: OpenAssistant; slot: number }>();
  /** Each attachment shown as a chip: the user entry it is on and its place there (or the next user message's, while it waits). */
  private chips = new Map<string, { userKey?: string; index: number }>();
  /**
   * The messages the working context no longer holds in any form, as last marked from it
   * (markContext); undefined until then, when a rewind's record marks what it set aside.
   */
  private setAsideIds?: Set<string>;

  constructor(prices: Record<string, ModelPrices> = {}) {
    this.turns = new TurnUsageLedger(prices);
  }

  /** Folds the records again from the start (`messages` in transcript order). */
  reset(messages: readonly Message[], compactions: readonly ShownCompaction[], usage: readonly RequestUsageRecord[]): void {
    this.order = [];
    this.byKey = new Map();
    this.open = undefined;
    this.turns.reset();
    this.attached = [];
    this.callOwners = new Map();
    this.times = [];
    this.assistants = new Map();
    this.resultSlots = new Map();
    this.chips = new Map();
    this.lastShownAt = -Infinity;
    this.lastCompactionAt = -Infinity;
    this.changes = { from: 0, changed: new Set() };
    const shown = compactions.filter(shownCompaction).sort((a, b) => a.startedAt - b.startedAt);
    const records = [...usage].sort((a, b) => a.createdAt - b.createdAt || a.requestIndex - b.requestIndex);
    let nextCompaction = 0;
    let nextRecord = 0;
    const recordsUpTo = (time: number) => {
      while (nextRecord < records.length && records[nextRecord].createdAt < time) this.turns.count(records[nextRecord++]);
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
    for (const userId of this.turns.recountSubagents()) if (userId !== this.turns.lastUser?.id) this.showFigures(userId);
  }

  /** A subagent's request (read from the store, or reported live): its turn's figures include it. */
  addSubagentUsage(record: RequestUsageRecord): void {
    const owner = this.turns.countSubagent(record);
    if (owner && owner.id !== this.turns.lastUser?.id) this.showFigures(owner.id);
  }

  /** Prices changed (a setting): every turn's figures are made again. */
  setPrices(prices: Record<string, ModelPrices>): void {
    for (const userId of this.turns.setPrices(prices)) if (userId !== this.turns.lastUser?.id) this.showFigures(userId);
  }

  /** Messages appended to the transcript, in order. */
  append(messages: readonly Message[]): void {
    for (const m of messages) this.take(m);
  }

  /** A usage record written: its turn's figures, the last turn's aside, change (a past turn's first figures go in before its next user message). */
  addUsage(record: RequestUsageRecord): void {
    const owner = this.turns.count(record);
    if (!owner || owner.id === this.turns.lastUser?.id) return; // before the first message shown, or the turn running
    if (this.byKey.has(`usage:usage-${owner.id}`)) {
      this.showFigures(owner.id);
      return;
    }
    const next = this.turns.nextAfter(owner);
    const figures = this.turns.figuresOf(owner.id);
    const at = next ? this.order.lastIndexOf(`user:${next.id}`) : -1;
    if (figures && next && at >= 0) this.insert(at, { kind: 'usage', id: `usage-${owner.id}`, usage: figures }, next.createdAt);
  }

  /** A compaction event written: shown where it happened, before the messages shown after it. */
  addCompaction(record: ShownCompaction): void {
    if (!shownCompaction(record)) return;
    const key = chatEntryKey(this.compactionOf(record));
    if (this.byKey.has(key)) {
      this.set(key, this.compactionOf(record));
      return;
    }
    if (record.startedAt >= this.lastShownAt && record.startedAt >= this.lastCompactionAt) {
      this.placeCompaction(record);
      return;
    }
    // Older than what is shown: it goes in before the first entry that came after it.
    let at = this.order.length;
    while (at > 0 && this.times[at - 1] > record.startedAt) at--;
    this.setAsideBy(record, at);
    this.insert(at, this.compactionOf(record), record.startedAt);
  }

  /**
   * Messages written again with the same id (a pin): each shown one's entry is made again where it
   * stands. False when one would now be shown or hidden where it was not (the caller folds again).
   */
  replace(messages: readonly Message[]): boolean {
    for (const m of messages) {
      if (m.role === 'assistant') {
        const folded = this.assistants.get(m.id);
        if (!folded) continue;
        if (m.userVisible !== (folded.key !== undefined)) return false;
        folded.message = m;
        if (folded.key) this.set(folded.key, this.assistantEntry(folded, this.byKey.get(folded.key)));
      } else if (m.role === 'tool') {
        const slot = this.resultSlots.get(m.id);
        if (!slot) continue;
        slot.owner.results[slot.slot] = m;
        if (slot.owner.key) this.set(slot.owner.key, this.assistantEntry(slot.owner, this.byKey.get(slot.owner.key)));
      } else if (m.kind === 'attachment') {
        const chip = this.chips.get(m.id);
        if (!m.userVisible) {
          if (chip) return false;
          continue;
        }
        if (!chip) continue;
        const entry = chip.userKey ? this.byKey.get(chip.userKey) : undefined;
        if (entry?.kind === 'user' && entry.attachments) this.set(chip.userKey!, { ...entry, attachments: entry.attachments.map((a, i) => (i === chip.index ? sentAttachmentOf(m, tokensOf(m)) : a)) });
        else if (!chip.userKey) this.attached[chip.index] = sentAttachmentOf(m, tokensOf(m));
      } else {
        const key = `user:${m.id}`;
        const before = this.byKey.get(key);
        if (this.wouldShow(m) !== (before !== undefined)) return false;
        if (before?.kind === 'user') this.set(key, { ...before, ...this.userFields(m) });
      }
    }
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
    const last = this.turns.lastUser;
    const figures = last && this.turns.figuresOf(last.id);
    return figures && last ? { kind: 'usage', id: `usage-${last.id}`, usage: figures } : undefined;
  }

  /** What changed since the last call (everything, after a reset). */
  takeChanges(): StoredChanges {
    const taken = this.changes;
    this.changes = { from: this.order.length, changed: new Set() };
    return taken;
  }

  private wouldShow(m: Message): boolean {
    return m.userVisible && (m.role === 'assistant' || (m.role === 'user' && m.kind === 'user'));
  }

  private take(m: Message): void {
    if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      this.open = { message: m, results: calls.map(() => undefined) };
      this.assistants.set(m.id, this.open);
      if (m.userVisible) {
        const key = this.push(this.assistantEntry(this.open), m.createdAt);
        this.open.key = key;
        for (const call of calls) this.callOwners.set(call.id, key);
      }
    } else if (m.role === 'tool' && this.open) {
      const open = this.open;
      const calls = open.message.toolCalls ?? [];
      const slot = calls.findIndex((c, i) => c.id === (m.toolCallId ?? '') && !open.results[i]);
      if (slot < 0) return;
      open.results[slot] = m;
      this.resultSlots.set(m.id, { owner: open, slot });
      if (open.key === undefined) return;
      const before = this.byKey.get(open.key) as Extract<ChatEntry, { kind: 'assistant' }>;
      this.set(open.key, { ...before, toolCalls: before.toolCalls.map((view, i) => (i === slot ? toolView(calls[i], m) : view)) });
    } else if (m.kind === 'attachment' && m.userVisible) {
      this.chips.set(m.id, { index: this.attached.length });
      this.attached.push(sentAttachmentOf(m, tokensOf(m)));
    } else if (this.wouldShow(m)) {
      // The turn before closes with its figures, right before this message.
      const previous = this.turns.lastUser;
      const figures = previous && this.turns.figuresOf(previous.id);
      if (previous && figures) this.push({ kind: 'usage', id: `usage-${previous.id}`, usage: figures }, m.createdAt);
      this.turns.startTurn({ id: m.id, createdAt: m.createdAt });
      const attachments = this.attached;
      this.attached = [];
      const key = `user:${m.id}`;
      for (const chip of this.chips.values()) if (chip.userKey === undefined) chip.userKey = key;
      this.push({ kind: 'user', id: m.id, ...this.userFields(m), ...(attachments.length ? { attachments } : {}) }, m.createdAt);
    }
  }

  /** A user message's own fields (its chips and marks are kept apart). */
  private userFields(m: Message): { text: string; tokens?: number } {
    return { text: m.content, tokens: tokensOf(m) };
  }

  /** An assistant message's entry: its text, thinking and a card per call with the result it got; `before`: the entry it replaces (its marks are kept). */
  private assistantEntry(folded: OpenAssistant, before?: ChatEntry): ChatEntry {
    foldWork.entriesMade++;
    const m = folded.message;
    const thinking = thinkingView(m);
    const calls = m.toolCalls ?? [];
    const setAside = before?.kind === 'assistant' && before.setAside ? { setAside: true } : {};
    return { kind: 'assistant', id: m.id, text: m.content, tokens: tokensOf(m), toolCalls: calls.map((c, i) => toolView(c, folded.results[i])), ...(thinking ? { thinking } : {}), ...setAside };
  }

  private showFigures(userId: string): void {
    const figures = this.turns.figuresOf(userId);
    const key = `usage:usage-${userId}`;
    if (figures && this.byKey.has(key)) this.set(key, { kind: 'usage', id: `usage-${userId}`, usage: figures });
  }

  /** A history entry's chat entry; a user's step (rewind, restore) says what it did, quoting its message when shown. */
  private compactionOf(record: ShownCompaction): ChatEntry {
    const message = record.step?.messageId === undefined ? undefined : this.byKey.get(`user:${record.step.messageId}`);
    return compactionEntry(record, historyStepHeadline(record, message?.kind === 'user' ? message.text : undefined));
  }

  private placeCompaction(record: ShownCompaction): void {
    this.setAsideBy(record, this.order.length);
    this.push(this.compactionOf(record), record.startedAt, false);
    this.lastCompactionAt = Math.max(this.lastCompactionAt, record.startedAt);
  }

  /**
   * Marks each message shown as the working context holds it (`mark`: contextMarks of the session's
   * messages now): set aside exactly when the model no longer sees it in any form. From then on the
   * marks follow the context only: messages recorded later are in it until the next mark.
   */
  markContext(mark: (messageId: string) => ContextMark): void {
    const setAside = new Set<string>();
    this.setAsideIds = setAside;
    for (const key of this.order) {
      const entry = this.byKey.get(key);
      if (entry?.kind !== 'user' && entry?.kind !== 'assistant') continue;
      if (mark(entry.id) === 'set-aside') setAside.add(entry.id);
      if (Boolean(entry.setAside) === setAside.has(entry.id)) continue;
      const { setAside: _was, ...rest } = entry;
      this.set(key, setAside.has(entry.id) ? { ...rest, setAside: true } : rest);
    }
  }

  /** Whether the message's entry is marked set aside now. */
  isSetAside(messageId: string): boolean {
    return this.setAsideIds?.has(messageId) ?? false;
  }

  /**
   * Until the working context marks them (markContext): a rewind's messages shown from its user
   * message up to the rewind (`until`, where its entry goes) are marked set aside.
   */
  private setAsideBy(record: ShownCompaction, until: number): void {
    if (this.setAsideIds || record.step?.kind !== 'rewind' || record.step.messageId === undefined) return;
    const from = this.order.lastIndexOf(`user:${record.step.messageId}`, until - 1);
    if (from < 0) return;
    for (let i = from; i < until; i++) {
      const key = this.order[i];
      const entry = this.byKey.get(key);
      if ((entry?.kind === 'user' || entry?.kind === 'assistant') && !entry.setAside) this.set(key, { ...entry, setAside: true });
    }
  }

  /** Appends an entry; `at`: when it stands in time; `shown`: it is a message (the newest shown moves on). */
  private push(entry: ChatEntry, at: number, shown = true): string {
    if ((entry.kind === 'user' || entry.kind === 'assistant') && this.setAsideIds?.has(entry.id)) entry = { ...entry, setAside: true };
    const key = chatEntryKey(entry);
    this.changes.from = Math.min(this.changes.from, this.order.length);
    this.order.push(key);
    this.times.push(at);
    this.set(key, entry);
    if (shown) this.lastShownAt = Math.max(this.lastShownAt, at);
    return key;
  }

  /** Puts an entry in at `index`, before entries already shown. */
  private insert(index: number, entry: ChatEntry, at: number): void {
    const key = chatEntryKey(entry);
    this.changes.from = Math.min(this.changes.from, index);
    this.order.splice(index, 0, key);
    this.times.splice(index, 0, at);
    this.set(key, entry);
  }

  private set(key: string, entry: ChatEntry): void {
    this.byKey.set(key, entry);
    this.changes.changed.add(key);
  }
}
