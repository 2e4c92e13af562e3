import type { WindowFigures } from '../../core/accounting/windowFigures';
import type { RequestPlan } from '../../core/context/requestLedger';
import type { ModelPrices } from '../../core/providers/models/modelRegistry';
import { chatEntryKey, type ChatEntry, type ChatHeader, type ChatState } from '../../protocol/chat';
import { ChatEntries } from '../chat/chatEntries';
import { contextMarks } from '../../core/context/contextMarks';
import { chatMeter, countingMeter } from '../figures/turnFigures';
import { STREAMING_KEY, tailEntries, withLiveMarks } from './chatTail';
import { nextCompactionActivity, type CompactionActivity } from './compactionActivity';
import { LiveTurnFold, type LiveTurn, type TurnNotice } from './liveTurn';
import type { SessionInput, WorkingContext } from './sessionInputs';
import { SessionRecords } from './sessionRecords';
import { HeldResults } from './heldResults';
import { ChatPatchMarks, type SessionPatch, type SessionPatchListener } from './sessionPatch';
import { TODOS_KEY, todoCardOf, touchesTodos } from './todoCard';
import { SessionPlans, touchesPlans } from './planCards';
import { NextRequestPlan } from './nextRequestPlan';

/** What a session is shown as, fixed for the state's life: a new model or new settings open the session again. */
export interface SessionIdentity {
  info: { id: string; title: string; origin?: string };
  /** The chat model the session runs with; absent without one (none chosen, a replay). */
  model?: { id: string; label: string };
  /** Why there is no agent, for the chat's banner. */
  unavailable?: string;
  /** Prices overriding the model registry's (the user's settings). */
  prices?: Record<string, ModelPrices>;
}

/**
 * One open session as the views show it, and the only place that state lives: the stored records
 * (the newest page of the transcript, the requests, compactions and offloaded results) and the live
 * state around them (the running turn's streamed text and thinking, approvals, subagents, retries
 * and notices; what the last turn left; messages not sent yet; a compaction running; whether the
 * working context is counted yet). `apply` folds one input (sessionInputs.ts) and hands every
 * listener the patch it made (sessionPatch.ts): the chat's entries and header that changed, text
 * streamed, and what the inspector must send again. The same fold serves a stored session being
 * opened (its first input) and the live turn. No `vscode`, no store: plain inputs in, patches out.
 */
export class SessionState {
  /** The stored entries of the chat, folded from the records. */
  readonly entries: ChatEntries;
  readonly records = new SessionRecords();
  private readonly turn = new LiveTurnFold();
  private unsent: { pending?: string; waiting: readonly string[] } = { waiting: [] };
  private compacting?: CompactionActivity;
  /** Results a running compaction stored, told to the inspector once (see heldResults.ts). */
  private readonly heldResults = new HeldResults();
  private context?: WorkingContext;
  private readError?: string;
  private title: string;
  private meter?: WindowFigures;
  /** The agent's todo list as the chat's one card shows it. */
  private todos?: ChatEntry;
  private todosChanged = false;
  /** The plans the agent proposed (their cards) and whether the next message runs in plan mode. */
  readonly plans = new SessionPlans();
  /** Messages whose plan card changed since the last patch. */
  private plansChanged: string[] = [];
  /** What the views hold of the entries after the last patch: the stored entries' count and the tail's keys. */
  private heldStored = 0;
  private heldTail: string[] = [];
  private readonly listeners = new Set<SessionPatchListener>();
  private readonly nextRequest = new NextRequestPlan();

  constructor(readonly identity: SessionIdentity) {
    this.entries = new ChatEntries(identity.prices);
    this.title = identity.info.title;
  }

  get sessionId(): string {
    return this.identity.info.id;
  }

  /** Tells `listener` every patch from now on; returns how to stop. */
  onPatch(listener: SessionPatchListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Folds one input and hands the patch it made to every listener (then returns it). */
  apply(input: SessionInput): SessionPatch {
    if (input.kind === 'agent' && (input.event.type === 'text_delta' || input.event.type === 'reasoning_delta')) {
      const live = this.turn.live;
      // More text onto a response already streaming changes only that text (a reply streams many times a second).
      if (live && (live.streamingText || live.streamingThinking)) {
        const { streamed } = this.turn.apply(input.event);
        return this.emit({ chat: streamed ? { streamed: { entryId: 'streaming', ...streamed } } : {}, inspector: {} });
      }
    }
    const marks = new ChatPatchMarks();
    const patch: SessionPatch = { chat: {}, inspector: {} };
    const inspector = patch.inspector;
    switch (input.kind) {
      case 'stored':
        this.records.load(input.stored);
        this.refold();
        marks.meter = true;
        Object.assign(inspector, { requests: true, blobs: true, compactions: true, messages: true, context: true });
        break;
      case 'change': {
        const change = input.change;
        const touched = this.records.apply(change);
        if (change.type === 'result' && this.compacting) this.heldResults.hold(touched);
        else this.heldResults.releaseInto(Object.assign(inspector, touched));
        if (change.type !== 'result') {
          // A request's figures move the inspector's figures (its small parts), not the next request's items.
          if (change.type !== 'usage') inspector.context = true;
          // The meter moves with the working context once it is counted; until then it shows the last request's figure.
          if (this.context || change.type === 'usage') marks.meter = true;
        }
        if (change.type === 'messages') {
          this.entries.append(change.appended);
          if (touchesTodos(change.appended) || touchesTodos(change.replaced)) this.foldTodos();
          if (change.appended.some((m) => m.role === 'user' && m.kind === 'user')) this.plans.sent();
          if (touchesPlans(change.appended) || touchesPlans(change.replaced)) this.foldPlans(marks);
          // The stored reply is what was streaming: its streamed text goes in the same patch.
          if (change.appended.some((m) => m.role === 'assistant')) this.turn.endStream();
          if (change.replaced.length && !this.entries.replace(change.replaced)) this.refold();
          // A retried turn's messages are hidden from the model; a pin changes no mark, and among 50,000 messages is not a walk of them all.
          else if (change.replaced.some((m) => !m.agentVisible || this.entries.isSetAside(m.id))) this.markContext();
        } else if (change.type === 'usage') {
          this.entries.addUsage(change.record);
          marks.figures = true;
        } else if (change.type === 'compaction') {
          const from = this.records.heldFrom;
          if (from === undefined || change.record.startedAt > from) this.entries.addCompaction(change.record);
          this.markContext();
        }
        break;
      }
      case 'agent':
        this.applyAgent(input.event, marks, patch);
        break;
      case 'compaction': {
        const next = nextCompactionActivity(this.compacting, input.event);
        if (next !== this.compacting) {
          this.compacting = next;
          if (next) marks.tail.add(`notice:compacting-${next.id}`);
          else this.heldResults.releaseInto(inspector);
        }
        break;
      }
      case 'resumed':
        this.context = input.context;
        this.markContext();
        marks.meter = true;
        inspector.context = true;
        break;
      case 'readFailed':
        this.readError = `This session could not be read: ${input.reason}`;
        marks.header = true;
        break;
      case 'earlier':
        this.records.prepend(input.page);
        this.refold();
        marks.header = true;
        inspector.messages = true;
        break;
      case 'unsent':
        this.unsent = { pending: input.pending, waiting: [...input.waiting] };
        marks.tailChanged = true;
        marks.header = true;
        break;
      case 'titles': {
        const taken = this.records.addTitles(input.titles);
        if (Object.keys(taken).length) inspector.titles = taken;
        break;
      }
      case 'subagentUsage':
        for (const record of input.records) this.entries.addSubagentUsage(record);
        marks.figures = true;
        break;
      case 'prices':
        this.entries.setPrices(input.prices);
        marks.figures = true;
        break;
      case 'retitled':
        this.title = input.title;
        marks.header = true;
        break;
      case 'contextEdited':
        marks.meter = true;
        inspector.context = true;
        break;
      case 'planMode':
        if (this.plans.switchTo(input.on)) marks.header = true;
        break;
      case 'turnForgotten':
        if (this.turn.live) break;
        this.turn.forgetEnded();
        marks.tailChanged = true;
        break;
    }
    if (marks.meter) this.measure();
    patch.chat = this.chatPatch(marks, patch.chat);
    return this.emit(patch);
  }

  /** Hands a patch to every listener; one view's failure reaches neither the session nor the other views (each reports its own). */
  private emit(patch: SessionPatch): SessionPatch {
    for (const listener of this.listeners) {
      try {
        listener(patch);
      } catch {
        // reported by the view
      }
    }
    return patch;
  }

  private applyAgent(event: Extract<SessionInput, { kind: 'agent' }>['event'], marks: ChatPatchMarks, patch: SessionPatch): void {
    // Usage records and compactions arrive as the session's own writes and events.
    if (event.type === 'usage' || event.type === 'compaction') return;
    if (event.type === 'subagent' && event.progress.kind === 'usage') this.entries.addSubagentUsage(event.progress.record);
    const before = this.turn.live;
    // The cards a turn marked go back to their stored look when it ends.
    if (event.type === 'turn_end' && before) {
      for (const [answerId, approval] of before.approvals) marks.cards.add(approval.card ?? answerId);
      for (const callId of before.subagents.keys()) marks.cards.add(callId);
    }
    const change = this.turn.apply(event);
    if (change.streamed) patch.chat.streamed = { entryId: 'streaming', ...change.streamed };
    for (const id of change.cards ?? []) marks.cards.add(id);
    if (change.notice) marks.tail.add(`notice:${change.notice}`);
    if (change.boundary || change.ended) {
      marks.header = true;
      marks.tailChanged = true;
    }
    // The turn's last answer is its plan once it ended.
    if (change.boundary === 'end') this.foldPlans(marks);
  }

  /** The chat's entries folded again from the records held (a write that does not fit where the entries are). */
  private refold(): void {
    const from = this.records.heldFrom;
    const compactions = this.records.compactions;
    this.entries.reset(this.records.heldMessages, from === undefined ? compactions : compactions.filter((c) => c.startedAt > from), this.records.usageFigures);
    this.markContext();
    this.foldTodos();
    this.foldPlans();
  }

  /** The plans' cards from the messages held; the next patch sends the entries whose card changed (and the mode, which the last turn sets). */
  private foldPlans(marks?: ChatPatchMarks): void {
    const before = this.plans.planMode;
    this.plansChanged.push(...this.plans.fold(this.records.heldMessages, this.turn.live !== undefined));
    if (marks && before !== this.plans.planMode) marks.header = true;
  }

  /** The todo card from the messages held; the next patch sends it when it changed. */
  private foldTodos(): void {
    const next = todoCardOf(this.records.heldMessages);
    if (JSON.stringify(next) === JSON.stringify(this.todos)) return;
    this.todos = next;
    this.todosChanged = true;
  }

  /** Once the working context is known, the chat marks set aside what it no longer holds in any form (contextMarks). */
  private markContext(): void {
    if (this.context) this.entries.markContext(contextMarks(this.context.messages));
  }

  private measure(): void {
    const usage = this.records.usageFigures;
    this.meter = this.context && chatMeter(this.context, this.identity.model !== undefined, usage[usage.length - 1]);
  }

  /** The chat's header (all but its entries and the window's lists). */
  header(): ChatHeader {
    const resumed = this.context !== undefined;
    return {
      sessionId: this.sessionId,
      sessionTitle: this.title,
      busy: this.turn.live !== undefined,
      meter: this.meter,
      ...(!resumed && !this.readError ? { counting: countingMeter(this.records.usageFigures) } : {}),
      model: this.identity.model,
      banner: this.readError ?? (this.unsent.pending !== undefined ? undefined : this.identity.unavailable),
      ...(this.records.heldFrom !== undefined ? { earlierUnloaded: true } : {}),
      ...(this.identity.info.origin?.startsWith('replay:') ? { replay: true } : {}),
      ...(this.plans.planMode ? { planMode: true } : {}),
    };
  }

  /** Every entry the chat shows now: what a whole state carries. */
  chatEntries(): ChatEntry[] {
    return [...this.entries.keys.map((key) => this.shown(key)!), ...this.tail()];
  }

  /** The chat's whole state but the window's lists (sessions, the turns' files). */
  chatState(): Omit<ChatState, 'sessions' | 'turnFiles'> {
    return { ...this.header(), entries: this.chatEntries() };
  }

  /** A stored entry as the running turn shows it (approvals and subagents on their cards). */
  private shown(key: string): ChatEntry | undefined {
    const entry = this.entries.entry(key);
    const plan = entry?.kind === 'assistant' && this.plans.card(entry.id);
    return entry && withLiveMarks(plan && entry.kind === 'assistant' ? { ...entry, plan } : entry, this.turn.live, (callId) => this.entries.cardOf(callId) === key);
  }

  private tail(): ChatEntry[] {
    return tailEntries({ figures: this.entries.lastTurnFigures(), live: this.turn.live, ended: this.turn.ended, canRetry: this.canRetry, unsent: this.unsent, compacting: this.compacting, todos: this.todos });
  }

  /** The change of the chat's entries and header one input made. */
  private chatPatch(marks: ChatPatchMarks, chat: SessionPatch['chat']): SessionPatch['chat'] {
    const { from, changed } = this.entries.takeChanges();
    if (this.todosChanged) marks.tail.add(TODOS_KEY);
    this.todosChanged = false;
    const stored = this.entries.keys;
    const tail = this.tail();
    const tailKeys = tail.map(chatEntryKey);
    const upserts = new Map<string, ChatEntry>();
    for (const key of changed) {
      const entry = this.shown(key);
      if (entry) upserts.set(key, entry);
    }
    for (const key of this.plansChanged.splice(0).map((id) => `assistant:${id}`)) {
      const entry = this.shown(key);
      if (entry) upserts.set(key, entry);
    }
    for (const callId of marks.cards) {
      const key = this.entries.cardOf(callId);
      const entry = key === undefined ? undefined : this.shown(key);
      if (entry) upserts.set(key!, entry);
    }
    for (const entry of tail) {
      const key = chatEntryKey(entry);
      // The streaming entry grows by the text streamed (the views add it), never sent whole.
      if (key === STREAMING_KEY) continue;
      if (marks.tailChanged || marks.tail.has(key) || (marks.figures && entry.kind === 'usage')) upserts.set(key, entry);
    }
    const keep = Math.min(from, this.heldStored);
    const sameOrder = keep === this.heldStored && stored.length === this.heldStored && tailKeys.length === this.heldTail.length && tailKeys.every((key, i) => key === this.heldTail[i]);
    if (!sameOrder || upserts.size > 0) {
      chat.entries = sameOrder
        ? { keep: stored.length + tailKeys.length, tail: [], upserts: [...upserts.values()] }
        : { keep, tail: [...stored.slice(keep), ...tailKeys], upserts: [...upserts.values()] };
    }
    this.heldStored = stored.length;
    this.heldTail = tailKeys;
    if (marks.header || marks.meter) chat.header = this.header();
    return chat;
  }

  /** What the next request would carry now (planned again only when what it is made from changed); undefined until the session resumed. */
  nextRequestPlan(): RequestPlan | undefined {
    return this.context && this.nextRequest.of(this.context);
  }

  /** The working context, once the session resumed. */
  get working(): WorkingContext | undefined {
    return this.context;
  }

  /** The chat's meter now: the window figures once the working context is counted. */
  get meterFigures(): WindowFigures | undefined {
    return this.meter;
  }

  /** Why the working context could not be read, when it could not. */
  get readFailure(): string | undefined {
    return this.readError;
  }

  /** The turn running now. */
  get live(): LiveTurn | undefined {
    return this.turn.live;
  }

  /** What the last finished turn left for the user (its error), until the next turn starts. */
  get endedTurnNotices(): readonly TurnNotice[] {
    return this.turn.ended;
  }

  /** The user message of the last turn, when it ended in an error: what Retry sends again. */
  get failedUserId(): string | undefined {
    return this.turn.failedUserId;
  }

  /** True when the last turn failed and Retry can send its message again (the session has a model, no turn runs). */
  get canRetry(): boolean {
    return this.turn.failedUserId !== undefined && this.identity.model !== undefined && !this.turn.live;
  }

  /** The message kept while no model is configured, and those sent while the session resumes. */
  get unsentMessages(): { readonly pending?: string; readonly waiting: readonly string[] } {
    return this.unsent;
  }

  /** The compaction running now. */
  get compactingNow(): CompactionActivity | undefined {
    return this.compacting;
  }
}
