import * as vscode from 'vscode';
import type { AgentEvent } from '../core/agent/events';
import type { Message } from '../core/model/message';
import type { CompactionResult } from '../core/compaction/compactor';
import type { UserSummary } from '../core/compaction/userSummary';
import type { ContextSession } from '../core/context/contextSession';
import { forkSession, type ForkPoint } from '../core/context/forkSession';
import type { SessionStore } from '../core/ports/sessionStore';
import type { TallyConfiguration } from '../config/readSettings';
import type { ApiKeys } from '../secrets/apiKeys';
import { readSessionToOpen } from './sessionReading';
import { OpenQueue } from './openQueue';
import { memoryOfThisWindowOnly, ShownSessionMemory, type WindowMemory } from './shownSessionMemory';
import { UnsentMessages } from './unsentMessages';
import { MessageNotSent, type ActiveSession, type SessionActions, type ShownSession, type ViewChange } from '../host/session/sessionPorts';
import { subagentUsage } from '../host/session/subagentUsage';
import type { AgentFactory } from './agentFactory';
import { TurnTracker, type LiveTurn, type TurnNotice } from '../host/session/turnTracker';
import { nextCompactionActivity, type CompactionActivity } from '../host/session/compactionActivity';


/**
 * Owns the active session: opens, creates and resumes sessions, wires the agent loop, and tells
 * the views when anything changed. The views never touch the store or the manager directly.
 */
export class SessionController implements vscode.Disposable, SessionActions {
  private readonly changed = new vscode.EventEmitter<ViewChange>();
  private readonly agentEvents = new vscode.EventEmitter<AgentEvent>();
  readonly onDidChange = this.changed.event;
  readonly onAgentEvent = this.agentEvents.event;
  private activeSession?: ActiveSession;
  /** The active session while its agent and changes are wired (an open detaches it before the next is active). */
  private attached?: ActiveSession;
  /** The session the views show: the active one, or one whose working context is still resuming. */
  private shownSession?: ShownSession;
  /** The shown session's resume, while it runs (or after it failed): `go` lets its whole-transcript read start. */
  private resuming?: { session: ShownSession; resumed: Promise<ActiveSession>; go(): void };
  /** Calls waiting for a resumed session: an open they wait for reads its transcript at once. */
  private resumedWanted = 0;
  private readonly shownWaiters: Array<(session: ShownSession) => void> = [];
  /** True when a chat will post the first state of a session shown now (and then call `firstStateShown`). */
  private chatWillShow: () => boolean = () => false;
  private opening?: Promise<ActiveSession>;
  private subscriptions: Array<() => void> = [];
  private readonly turns = new TurnTracker();
  private readonly unsent = new UnsentMessages(() => this.changed.fire({ type: 'status' }));
  private readonly opens = new OpenQueue();
  private compactionActivity?: CompactionActivity;

  constructor(
    private readonly storeHost: { get(): Promise<SessionStore>; readonly folder: string },
    private readonly keys: ApiKeys,
    private readonly agents: AgentFactory,
    private readonly log: vscode.LogOutputChannel,
    /** The window's memory (workspaceState): a reload reopens the session the chat showed. */
    windowMemory?: WindowMemory,
  ) {
    this.shownMemory = new ShownSessionMemory(windowMemory ?? memoryOfThisWindowOnly());
  }

  private readonly shownMemory: ShownSessionMemory;

  /** The session open, once its working context resumed. */
  get active(): ActiveSession | undefined {
    return this.activeSession;
  }

  /** The session the views show: the active one, or one still resuming (its figures are not counted yet). */
  get shown(): ShownSession | undefined {
    return this.shownSession;
  }

  /** The turn running now, for the chat panel. */
  get live(): LiveTurn | undefined {
    return this.turns.live;
  }

  /** What the last finished turn left for the user (its error), until the next turn starts. */
  get endedTurnNotices(): readonly TurnNotice[] {
    return this.turns.ended;
  }

  /** A message typed while no model was configured; sent once a model is chosen. */
  get pendingMessage(): string | undefined {
    return this.unsent.pending;
  }

  /** The compaction running now, for the chat's live notice. */
  get compacting(): CompactionActivity | undefined {
    return this.compactionActivity;
  }

  /** True when the last turn failed and Retry can send its message again. */
  get canRetry(): boolean {
    return this.turns.failedUserId !== undefined && Boolean(this.activeSession?.agent) && !this.activeSession?.agent?.busy;
  }

  get storageFolder(): string {
    return this.storeHost.folder;
  }

  store(): Promise<SessionStore> {
    return this.storeHost.get();
  }

  /** The active session, its working context resumed, opening the latest (or a new one) on first use. */
  async current(): Promise<ActiveSession> {
    this.resumedWanted++;
    this.resuming?.go();
    try {
      // A change of settings or keys applies before the next message is sent.
      if (this.opens.reopening) await this.opens.reopening;
      if (this.activeSession) return this.activeSession;
      if (this.resuming) return await this.resuming.resumed;
      return await this.openLatest();
    } finally {
      this.resumedWanted--;
    }
  }

  /**
   * What the chat shows: the shown session, which may still be resuming, opening the latest on
   * first use. The chat calls `firstStateShown` once it posted it: a session that must read its
   * whole transcript to resume starts that read then, so the chat shows its newest page first.
   */
  async showing(): Promise<ShownSession> {
    if (this.shownSession) return this.shownSession;
    const shown = new Promise<ShownSession>((resolve) => this.shownWaiters.push(resolve));
    return Promise.race([shown, this.openLatest()]);
  }

  /** The chat posted the shown session's first state: its resume may read the whole transcript now. */
  firstStateShown(session: ShownSession): void {
    if (this.resuming?.session === session) this.resuming.go();
  }

  /** How the controller tells whether a chat will post a shown session's state (and call `firstStateShown`). */
  setChatWillShow(willShow: () => boolean): void {
    this.chatWillShow = willShow;
  }

  private openLatest(): Promise<ActiveSession> {
    this.opening ??= (async () => {
      const store = await this.store();
      const toOpen = this.shownMemory.toOpen(await store.listSessions());
      return toOpen ? this.open(toOpen.id) : this.create();
    })().finally(() => (this.opening = undefined));
    return this.opening;
  }

  async create(title = 'New session'): Promise<ActiveSession> {
    const store = await this.store();
    const info = await store.createSession({ title, origin: 'chat' });
    return this.open(info.id);
  }

  /**
   * Starts a session from what request `fromRequestIndex` of a stored session carried (see
   * core/context/forkSession.ts) and opens it.
   */
  async fork(point: ForkPoint): Promise<ActiveSession> {
    const active = this.activeSession;
    if (active?.agent?.busy) throw new Error('Wait for the current request to finish, or cancel it, before forking.');
    const store = await this.store();
    const working = active?.info.id === point.fromSessionId ? active.contextSession.messages : undefined;
    const forked = await forkSession(store, point, { working });
    this.log.info(`fork: session ${forked.info.id} started from request #${point.fromRequestIndex} of ${point.fromSessionId} (${forked.messages.length} messages)`);
    return this.open(forked.info.id);
  }

  /**
   * Settings or keys changed: the active session is opened again with them, unless a turn is
   * running. A burst of changes reopens once: a reopen already queued reads the settings when it
   * starts, and changes made inside `whileChangingSettings` reopen once at its end.
   */
  reopenActive(reason: 'settings' | 'key'): void {
    // A session still resuming counts as open: it opens again once its resume is over.
    const active = this.activeSession ?? this.resuming?.session;
    if (!active || this.activeSession?.agent?.busy || (reason === 'key' && active.replayLabel)) return;
    const queued = this.opens.reopen(async () => {
      // The session shown when the reopen starts, not when it was asked for.
      const now = this.activeSession ?? this.resuming?.session;
      if (now && !this.activeSession?.agent?.busy) await this.openNow(now.info.id, now.replayLabel);
    });
    // The open running now does not hold its resume for the chat: the reopen waits for it.
    if (queued) this.resuming?.go();
  }

  /** Runs `change` (which writes several settings) and reopens the session once, after it. */
  whileChangingSettings<T>(change: () => Promise<T>): Promise<T> {
    return this.opens.holdingReopens(change, () => this.reopenActive('settings'));
  }

  /**
   * Opens a session. Opens run one after another: settings changes fire several in a row, and an
   * older one finishing last must not replace (or detach) the session a newer one set up.
   */
  open(sessionId: string, replayLabel?: string): Promise<ActiveSession> {
    // The open running now does not hold its resume for the chat: this one waits for it.
    const next = this.opens.enqueue(() => this.openNow(sessionId, replayLabel));
    this.resuming?.go();
    return next;
  }

  private async openNow(sessionId: string, replayLabel?: string): Promise<ActiveSession> {
    const store = await this.store();
    const info = await store.getSession(sessionId);
    if (!info) throw new Error(`Session ${sessionId} was not found.`);
    this.detach();
    const { shown, resuming, shownFirst, go, config } = await readSessionToOpen(store, info, this.keys, replayLabel);
    const resumed = this.resume(shown, resuming, store, config, shownFirst);
    if (shownFirst) {
      this.resuming = { session: shown, resumed, go };
      resumed.catch(() => undefined); // the open's caller and `current` get the failure
      this.show(shown);
      this.activeSession = undefined;
      this.changed.fire({ type: 'opened' });
      // Nobody will post it first, or someone needs it resumed: the resume reads on at once.
      if (this.resumedWanted > 0 || this.opens.waiting > 0 || !this.chatWillShow()) go();
    } else go();
    return resumed;
  }

  private show(session: ShownSession): void {
    this.shownSession = session;
    this.shownMemory.remember(session.info);
    for (const resolve of this.shownWaiters.splice(0)) resolve(session);
  }

  /** Waits for the shown session's working context, then makes it the active session (its agent, its changes). */
  private async resume(shown: ShownSession, resuming: Promise<ContextSession>, store: SessionStore, config: TallyConfiguration, shownFirst: boolean): Promise<ActiveSession> {
    const sessionId = shown.info.id;
    const { view, chat } = shown;
    let contextSession: ContextSession;
    try {
      contextSession = await resuming;
    } catch (error) {
      // The chat shows the session's messages and says why it cannot continue it.
      const reason = error instanceof Error ? error.message : String(error);
      this.log.error(`session ${sessionId}: its context could not be read: ${reason}`);
      shown.readError = `This session could not be read: ${reason}`;
      if (this.resuming?.session !== shown) {
        this.show(shown);
        this.activeSession = undefined;
        this.resuming = { session: shown, resumed: Promise.reject(error as Error), go: () => undefined };
        this.resuming.resumed.catch(() => undefined);
        this.changed.fire({ type: 'opened' });
      } else this.changed.fire({ type: 'status' });
      throw error;
    }
    const session: ActiveSession = { ...shown, contextSession };
    view.markContext(contextSession.messages);
    if (chat) {
      const agent = await this.agents.create({ contextSession, chat, config, store });
      session.agent = agent;
      this.subscriptions.push(agent.on((event) => this.onAgent(event)));
    }
    this.subscriptions.push(
      contextSession.onCompaction((event) => {
        this.compactionActivity = nextCompactionActivity(this.compactionActivity, event);
        this.changed.fire({ type: 'status' });
      }),
      contextSession.onChange((change) => {
        view.apply(change);
        this.changed.fire(change);
      }),
    );
    this.activeSession = session;
    this.attached = session;
    this.resuming = undefined;
    this.show(session);
    // A session shown before it resumed gets its figures now (the chat has shown it: the ranks load for the next message).
    if (shownFirst) contextSession.loadEncoder();
    this.changed.fire(shownFirst ? { type: 'status' } : { type: 'opened' });
    // The subagents' requests join their turns' figures once read; the open does not wait for them.
    void subagentUsage(store, sessionId).then(
      (records) => {
        if (this.activeSession !== session || records.length === 0) return;
        view.addSubagentUsage(records);
        this.changed.fire({ type: 'status' });
      },
      (error: Error) => this.log.warn(`session ${sessionId}: its subagents' requests could not be read: ${error.message}`),
    );
    if (session.agent && this.unsent.pending !== undefined) this.sendPending();
    return session;
  }

  /** Messages sent while the shown session resumes, not sent yet. */
  get waitingMessages(): readonly string[] {
    return this.unsent.waiting;
  }

  /** Drops the message kept while no model was configured (the user chose Discard in the chat). */
  discardPendingMessage(): void {
    this.unsent.discard();
  }

  /** The message kept while no model was configured goes out now that there is one. */
  private sendPending(): void {
    const text = this.unsent.take();
    if (text === undefined) return;
    this.send(text).catch((error: Error) => {
      this.log.error(`chat: the waiting message could not be sent: ${error.message}`);
      this.unsent.putBack(text);
    });
  }

  private onAgent(event: AgentEvent): void {
    this.turns.apply(event);
    if (event.type === 'subagent' && event.progress.kind === 'usage') this.activeSession?.view.addSubagentUsage([event.progress.record]);
    this.agentEvents.fire(event);
    if (event.type !== 'text_delta') this.changed.fire({ type: 'status' });
    if (event.type === 'error') this.log.error(`agent: ${event.kind}: ${event.message}`);
  }

  private detach(): void {
    this.attached = undefined;
    this.activeSession?.agent?.dispose();
    for (const unsubscribe of this.subscriptions) unsubscribe();
    this.subscriptions = [];
    this.turns.reset();
    this.compactionActivity = undefined;
  }

  /** Sends a chat message, after what the user attached to it; `/compact [focus]` compacts instead. */
  async send(text: string, attachments: readonly Message[] = []): Promise<void> {
    const session = await this.resumedFor(text);
    const compact = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
    if (compact) {
      await this.compact(compact[1]?.trim() || undefined);
      return;
    }
    if (!session.agent) {
      if (attachments.length) throw new Error('Choose a model first: attachments are sent with a message to a model.');
      if (session.replayLabel) throw new Error(session.unavailable ?? 'This session is a replay.');
      // Kept in the chat with a "Choose a model" action; sent when a model is configured.
      this.unsent.keep(text);
      return;
    }
    const store = await this.store();
    if (session.info.title === 'New session') {
      const title = text.replace(/\s+/g, ' ').trim().slice(0, 60) || 'New session';
      await store.updateSession(session.info.id, { title, updatedAt: Date.now() });
      session.info = { ...session.info, title };
    } else {
      await store.updateSession(session.info.id, { updatedAt: Date.now() });
    }
    // Another session opened while this one was being written to: the message is not sent to a session the chat no longer shows.
    if (this.attached !== session) throw new MessageNotSent('The message was not sent: the session was opened again meanwhile (another session, or new settings). It is back in the message box.', text);
    await session.agent.send(text, undefined, attachments);
  }

  /**
   * The resumed session for a message: one sent while the session resumes shows as not sent yet
   * until then; when the resume fails, the message is not sent and its text goes back.
   */
  private resumedFor(text: string): Promise<ActiveSession> {
    if (this.activeSession || !this.resuming) return this.current();
    return this.unsent.whileResuming(text, () => this.current());
  }

  /**
   * Sends the failed turn's user message again. The failed attempt (its user message and whatever
   * the turn recorded after it) is hidden from the model and the chat but stays in the transcript,
   * so the message is in the history once.
   */
  async retry(): Promise<void> {
    const session = await this.current();
    const userId = this.turns.failedUserId;
    if (!userId || !session.agent || session.agent.busy) throw new Error('There is no failed request to retry.');
    const store = await this.store();
    // What the failed turn recorded, read from its user message on rather than the whole transcript.
    const failed = session.contextSession.messages.find((m) => m.id === userId);
    const transcript = await store.loadTranscript(session.info.id, failed ? { createdAfter: failed.createdAt - 1 } : {});
    const at = transcript.findIndex((m) => m.id === userId);
    if (at < 0) throw new Error('The failed message is no longer in this session.');
    const text = transcript[at].content;
    await store.putMessages(session.info.id, transcript.slice(at).map((m) => ({ ...m, agentVisible: false, userVisible: false })));
    this.turns.failedUserId = undefined;
    await this.open(session.info.id);
    await this.send(text);
  }

  cancel(): void {
    this.activeSession?.agent?.cancel();
  }

  /** The conversation went back (a rewind): what the last turn left (its error, Retry) no longer applies. */
  forgetEndedTurn(): void {
    if (this.activeSession?.agent?.busy) return;
    this.turns.reset();
    this.changed.fire({ type: 'status' });
  }

  async compact(focus?: string, userSummary?: UserSummary): Promise<CompactionResult> {
    const session = await this.current();
    if (session.agent?.busy) throw new Error('Wait for the current request to finish, or cancel it, before compacting.');
    const result = await session.contextSession.compact({ trigger: 'manual', focus, userSummary });
    this.changed.fire({ type: 'status' });
    return result;
  }

  async preview(focus?: string): Promise<CompactionResult> {
    const session = await this.current();
    return session.contextSession.compact({ trigger: 'manual', focus, dryRun: true });
  }

  async setPinned(messageId: string, pinned: boolean): Promise<boolean> {
    const session = await this.current();
    const ok = await session.contextSession.setPinned(messageId, pinned);
    this.changed.fire({ type: 'status' });
    return ok;
  }

  /** The approval the chat panel answered, forwarded to the waiting tool. */
  resolveApproval(callId: string, approved: boolean, forSession = false): void {
    this.agents.resolveApproval(callId, approved, forSession);
  }

  dispose(): void {
    this.detach();
    this.changed.dispose();
    this.agentEvents.dispose();
  }
}
