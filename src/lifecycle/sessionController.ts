import * as vscode from 'vscode';
import type { AgentEvent } from '../core/agent/events';
import type { ContextSession } from '../core/context/contextSession';
import type { SessionStore } from '../core/ports/sessionStore';
import type { TallyConfiguration } from '../config/readSettings';
import type { ApiKeys } from '../secrets/apiKeys';
import { readSessionToOpen } from './sessionReading';
import { OpenQueue } from './openQueue';
import { memoryOfThisWindowOnly, ShownSessionMemory, type WindowMemory } from './shownSessionMemory';
import type { ActiveSession, SessionLifecycle, ShownSession } from '../host/sessionState/sessionPorts';
import { activateSession } from './activateSession';
import type { AgentFactory } from '../agents/agentFactory';

/**
 * Opens, resumes and reopens sessions: which session the views show, when its working context is
 * read, and its agent. What the views show of a session is its state (host/sessionState), which
 * the session's writes and its agent's events feed as they happen.
 */
export class SessionController implements vscode.Disposable, SessionLifecycle {
  private readonly showEmitter = new vscode.EventEmitter<ShownSession>();
  private readonly resumeEmitter = new vscode.EventEmitter<ActiveSession>();
  private readonly agentEvents = new vscode.EventEmitter<AgentEvent>();
  readonly onDidShow = this.showEmitter.event;
  readonly onDidResume = this.resumeEmitter.event;
  readonly onAgentEvent = this.agentEvents.event;
  private activeSession?: ActiveSession;
  /** The active session while its agent and changes are wired (an open detaches it before the next is active). */
  private attached?: ActiveSession;
  /** The session the views show: the active one, or one whose working context is still resuming. */
  private shownSession?: ShownSession;
  /** The shown session's resume, while it runs (or after it failed): `go` lets its whole-transcript read start. */
  private resumingNow?: { session: ShownSession; resumed: Promise<ActiveSession>; go(): void };
  /** Calls waiting for a resumed session: an open they wait for reads its transcript at once. */
  private resumedWanted = 0;
  private readonly shownWaiters: Array<(session: ShownSession) => void> = [];
  /** True when a chat will post the first state of a session shown now (and then call `firstStateShown`). */
  private chatWillShow: () => boolean = () => false;
  private opening?: Promise<ActiveSession>;
  private stopFollowing?: () => void;
  private readonly opens = new OpenQueue();

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

  get active(): ActiveSession | undefined {
    return this.activeSession;
  }

  get shown(): ShownSession | undefined {
    return this.shownSession;
  }

  get resuming(): boolean {
    return this.resumingNow !== undefined;
  }

  get storageFolder(): string {
    return this.storeHost.folder;
  }

  store(): Promise<SessionStore> {
    return this.storeHost.get();
  }

  isAttached(session: ActiveSession): boolean {
    return this.attached === session;
  }

  async current(): Promise<ActiveSession> {
    this.resumedWanted++;
    this.resumingNow?.go();
    try {
      // A change of settings or keys applies before the next message is sent.
      if (this.opens.reopening) await this.opens.reopening;
      if (this.activeSession) return this.activeSession;
      if (this.resumingNow) return await this.resumingNow.resumed;
      return await this.openLatest();
    } finally {
      this.resumedWanted--;
    }
  }

  /**
   * The chat calls `firstStateShown` once it posted the session's first state: a session that must
   * read its whole transcript to resume starts that read then, so the chat shows its newest page first.
   */
  async showing(): Promise<ShownSession> {
    if (this.shownSession) return this.shownSession;
    const shown = new Promise<ShownSession>((resolve) => this.shownWaiters.push(resolve));
    return Promise.race([shown, this.openLatest()]);
  }

  firstStateShown(session: ShownSession): void {
    if (this.resumingNow?.session === session) this.resumingNow.go();
    // Now that the session shows, the ranks load for the next message to count.
    if (this.activeSession === session) this.activeSession.contextSession.loadEncoder();
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
   * Settings or keys changed: the active session is opened again with them, unless a turn is
   * running. A burst of changes reopens once: a reopen already queued reads the settings when it
   * starts, and changes made inside `whileChangingSettings` reopen once at its end.
   */
  reopenActive(reason: 'settings' | 'key'): void {
    // A session still resuming counts as open: it opens again once its resume is over.
    const active = this.activeSession ?? this.resumingNow?.session;
    if (!active || this.activeSession?.agent?.busy || (reason === 'key' && active.replayLabel)) return;
    const queued = this.opens.reopen(async () => {
      // The session shown when the reopen starts, not when it was asked for.
      const now = this.activeSession ?? this.resumingNow?.session;
      if (now && !this.activeSession?.agent?.busy) await this.openNow(now.info.id, now.replayLabel);
    });
    // The open running now does not hold its resume for the chat: the reopen waits for it.
    if (queued) this.resumingNow?.go();
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
    this.resumingNow?.go();
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
      this.resumingNow = { session: shown, resumed, go };
      resumed.catch(() => undefined); // the open's caller and `current` get the failure
      this.activeSession = undefined;
      this.show(shown);
      // Nobody will post it first, or someone needs it resumed: the resume reads on at once.
      if (this.resumedWanted > 0 || this.opens.waiting > 0 || !this.chatWillShow()) go();
    } else go();
    return resumed;
  }

  private show(session: ShownSession): void {
    const changed = this.shownSession?.state !== session.state;
    this.shownSession = session;
    this.shownMemory.remember(session.info);
    for (const resolve of this.shownWaiters.splice(0)) resolve(session);
    if (changed) this.showEmitter.fire(session);
  }

  /** Waits for the shown session's working context, then makes it the active session (its agent, its changes). */
  private async resume(shown: ShownSession, resuming: Promise<ContextSession>, store: SessionStore, config: TallyConfiguration, shownFirst: boolean): Promise<ActiveSession> {
    const contextSession = await resuming.catch((error: unknown) => this.resumeFailed(shown, error));
    const relay = (event: AgentEvent) => {
      this.agentEvents.fire(event);
      if (event.type === 'error') this.log.error(`agent: ${event.kind}: ${event.message}`);
    };
    const { session, stop } = await activateSession(shown, contextSession, { agents: this.agents, config, store, relay });
    this.stopFollowing = stop;
    // A session shown before it resumed: the chat has shown it, so the ranks load for the next message.
    if (shownFirst) contextSession.loadEncoder();
    this.activeSession = this.attached = session;
    this.resumingNow = undefined;
    this.show(session);
    // The subagents' requests join their turns' figures once read; the open does not wait for them.
    void shown.reads.subagentUsage().catch((error: Error) => this.log.warn(`session ${shown.info.id}: its subagents' requests could not be read: ${error.message}`));
    this.resumeEmitter.fire(session);
    return session;
  }

  /** The chat shows the session's messages and says why it cannot continue it; whatever needs it gets the error. */
  private resumeFailed(shown: ShownSession, error: unknown): never {
    const reason = error instanceof Error ? error.message : String(error);
    this.log.error(`session ${shown.info.id}: its context could not be read: ${reason}`);
    shown.state.apply({ kind: 'readFailed', reason });
    if (this.resumingNow?.session !== shown) {
      this.activeSession = undefined;
      this.resumingNow = { session: shown, resumed: Promise.reject(error as Error), go: () => undefined };
      this.resumingNow.resumed.catch(() => undefined);
      this.show(shown);
    }
    throw error;
  }

  private detach(): void {
    this.attached = undefined;
    this.activeSession?.agent?.dispose();
    this.stopFollowing?.();
    this.stopFollowing = undefined;
  }

  dispose(): void {
    this.detach();
    this.showEmitter.dispose();
    this.resumeEmitter.dispose();
    this.agentEvents.dispose();
  }
}
