import type { CompactionResult } from '../../core/compaction/compactor';
import type { UserSummary } from '../../core/compaction/userSummary';
import type { ForkPoint } from '../../core/context/forkPoint';
import { forkSession } from '../../core/context/forkSession';
import type { Message } from '../../core/model/message';
import type { SessionStore } from '../../core/ports/sessionStore';
import { MessageNotSent, type ActiveSession, type SessionLifecycle, type ShownSession, type Subscription } from './sessionPorts';
import { UnsentMessages } from './unsentMessages';
import { countOf } from '../../protocol/wording';
import { planDecisionMessage, planMessage } from '../../core/model/factories';
import type { ChatPlanView } from '../../protocol/chat';
import { approvedPlanMessage } from '../../core/plan/planMode';

/** What the actions report: what was done (a fork), and what went wrong without a caller to tell (a waiting message). */
export interface ActionLog {
  info(message: string): void;
  error(message: string): void;
}

/**
 * What the user does to the open session, from the chat, the inspector and the commands: send a
 * message (or `/compact`), retry a failed turn, cancel, compact, preview, pin, answer an
 * approval, fork, open or start a session. Messages that cannot go out yet (no model configured;
 * the session still resuming) are kept here and shown through the session's state. No `vscode`:
 * the lifecycle, the approvals and the log are passed in.
 */
export class SessionActions {
  private readonly unsent = new UnsentMessages(() => this.showUnsent(this.lifecycle.shown));
  private readonly subscriptions: Subscription[];

  constructor(
    private readonly lifecycle: SessionLifecycle,
    private readonly approvals: { resolveApproval(callId: string, approved: boolean, forSession: boolean): void },
    private readonly log: ActionLog,
  ) {
    this.subscriptions = [
      // A new state shows the messages still unsent; a session that can take them sends the one kept.
      lifecycle.onDidShow((shown) => this.showUnsent(shown)),
      lifecycle.onDidResume((session) => {
        if (session.agent && this.unsent.pending !== undefined) this.sendPending();
      }),
    ];
  }

  /** The session open, once its working context resumed. */
  get active(): ActiveSession | undefined {
    return this.lifecycle.active;
  }

  /** The session the views show (resumed or not). */
  get shown(): ShownSession | undefined {
    return this.lifecycle.shown;
  }

  /** The active session's agent events. */
  get onAgentEvent(): SessionLifecycle['onAgentEvent'] {
    return this.lifecycle.onAgentEvent;
  }

  /** A session shown or resumed: which sessions this window holds open changed. */
  onDidChangeOpen(listener: () => void): Subscription {
    const shown = this.lifecycle.onDidShow(() => listener());
    const resumed = this.lifecycle.onDidResume(() => listener());
    return { dispose: () => { shown.dispose(); resumed.dispose(); } };
  }

  store(): Promise<SessionStore> {
    return this.lifecycle.store();
  }

  current(): Promise<ActiveSession> {
    return this.lifecycle.current();
  }

  create(title?: string): Promise<ActiveSession> {
    return this.lifecycle.create(title);
  }

  open(sessionId: string, replayLabel?: string): Promise<ActiveSession> {
    return this.lifecycle.open(sessionId, replayLabel);
  }

  private showUnsent(shown: ShownSession | undefined): void {
    shown?.state.apply({ kind: 'unsent', pending: this.unsent.pending, waiting: this.unsent.waiting });
  }

  /**
   * Sends a chat message, after what the user attached to it; `/compact [focus]` compacts instead.
   * `source`: the command the text came from, recorded on the message.
   */
  async send(text: string, attachments: readonly Message[] = [], source?: string): Promise<void> {
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
      session.state.apply({ kind: 'retitled', title });
    } else {
      await store.updateSession(session.info.id, { updatedAt: Date.now() });
    }
    // Another session opened while this one was being written to: the message is not sent to a session the chat no longer shows.
    if (!this.lifecycle.isAttached(session)) throw new MessageNotSent('The message was not sent: the session was opened again meanwhile (another session, or new settings). It is back in the message box.', text);
    const mode = session.state.plans.planMode ? { mode: 'plan' as const } : {};
    await session.agent.send(text, undefined, attachments, { ...(source === undefined ? {} : { source }), ...mode });
  }

  /** Switches plan mode for the next message of the session shown (opening one first when none is). */
  async setPlanMode(on: boolean): Promise<void> {
    const shown = this.lifecycle.shown ?? (await this.lifecycle.showing());
    shown.state.apply({ kind: 'planMode', on });
  }

  /** Plan mode on when it is off, off when it is on; returns whether it is on now. */
  async togglePlanMode(): Promise<boolean> {
    const shown = this.lifecycle.shown ?? (await this.lifecycle.showing());
    const on = !shown.state.plans.planMode;
    shown.state.apply({ kind: 'planMode', on });
    return on;
  }

  /** Records the user's edit of a proposed plan (the card shows it; Approve sends it). */
  async editPlan(messageId: string, text: string): Promise<void> {
    const { session, plan } = await this.openPlan(messageId, 'edited');
    if (text !== plan.text) await session.contextSession.append(planDecisionMessage(messageId, 'edited', text));
  }

  /** Records that the user discarded a proposed plan; plan mode stays as it is. */
  async discardPlan(messageId: string): Promise<void> {
    const { session, plan } = await this.openPlan(messageId, 'discarded');
    await session.contextSession.append(planDecisionMessage(messageId, 'discarded', plan.text));
  }

  /**
   * Approves a proposed plan (`text`: as the user edited it in the card) and carries it out: the turn
   * runs in act mode, its message preceded by the plan as an item of its own (pinned), so the model
   * reads the approved text and edits and commands ask for approval as usual.
   */
  async approvePlan(messageId: string, text?: string): Promise<void> {
    const { session, plan } = await this.openPlan(messageId, 'approved');
    if (!session.agent) throw new Error('Choose a model first.');
    if (!this.lifecycle.isAttached(session)) throw new Error('The session was opened again meanwhile.');
    const approved = text ?? plan.text;
    const item = planMessage(approved, 'approved', { planOf: messageId });
    await session.agent.send(approvedPlanMessage(approved !== plan.text || plan.edited === true), undefined, [item]);
  }

  /** The session and the plan a message proposed, when the user may still act on it. */
  private async openPlan(messageId: string, doing: string): Promise<{ session: ActiveSession; plan: ChatPlanView }> {
    const session = await this.current();
    if (session.agent?.busy) throw new Error(`Wait for the current request to finish, or cancel it, before the plan can be ${doing}.`);
    const plan = session.state.plans.open(messageId);
    if (!plan) throw new Error(`This plan cannot be ${doing}: it was approved or discarded already, or a later message passed it over.`);
    return { session, plan };
  }

  /**
   * The resumed session for a message: one sent while the session resumes shows as not sent yet
   * until then; when the resume fails, the message is not sent and its text goes back.
   */
  private resumedFor(text: string): Promise<ActiveSession> {
    if (this.lifecycle.active || !this.lifecycle.resuming) return this.current();
    return this.unsent.whileResuming(text, () => this.current());
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

  /** Drops the message kept while no model was configured (the user chose Discard in the chat). */
  discardPendingMessage(): void {
    this.unsent.discard();
  }

  /**
   * Sends the failed turn's user message again. The failed attempt (its user message and whatever
   * the turn recorded after it) is hidden from the model and the chat but stays in the transcript,
   * so the message is in the history once.
   */
  async retry(): Promise<void> {
    const session = await this.current();
    const userId = session.state.failedUserId;
    if (!userId || !session.agent || session.agent.busy) throw new Error('There is no failed request to retry.');
    const store = await this.store();
    // What the failed turn recorded, read from its user message on rather than the whole transcript.
    const failed = session.contextSession.messages.find((m) => m.id === userId);
    const transcript = await store.loadTranscript(session.info.id, failed ? { createdAfter: failed.createdAt - 1 } : {});
    const at = transcript.findIndex((m) => m.id === userId);
    if (at < 0) throw new Error('The failed message is no longer in this session.');
    const text = transcript[at].content;
    await store.putMessages(session.info.id, transcript.slice(at).map((m) => ({ ...m, agentVisible: false, userVisible: false })));
    await this.open(session.info.id);
    await this.send(text);
  }

  cancel(): void {
    this.lifecycle.active?.agent?.cancel();
  }

  /** The conversation went back (a rewind): what the last turn left (its error, Retry) no longer applies. */
  forgetEndedTurn(): void {
    this.lifecycle.shown?.state.apply({ kind: 'turnForgotten' });
  }

  async compact(focus?: string, userSummary?: UserSummary): Promise<CompactionResult> {
    const session = await this.current();
    if (session.agent?.busy) throw new Error('Wait for the current request to finish, or cancel it, before compacting.');
    return session.contextSession.compact({ trigger: 'manual', focus, userSummary });
  }

  /** The turn held at the hard block: compacts by hand, then goes on with it. */
  async compactAndContinue(): Promise<void> {
    const result = await this.compact();
    if (result.status === 'error') throw new Error(`The compaction failed: ${result.error ?? 'unknown error'}`);
    const session = await this.current();
    await session.agent?.continueTurn();
  }

  /** The turn held at the hard block: its request goes out uncompacted, and the provider may refuse it. */
  async sendAnyway(): Promise<void> {
    const session = await this.current();
    if (!session.agent || session.agent.busy) throw new Error('There is no held request to send.');
    await session.agent.continueTurn({ overBlock: true });
  }

  async preview(focus?: string): Promise<CompactionResult> {
    const session = await this.current();
    return session.contextSession.compact({ trigger: 'manual', focus, dryRun: true });
  }

  async setPinned(messageId: string, pinned: boolean): Promise<boolean> {
    const session = await this.current();
    const ok = await session.contextSession.setPinned(messageId, pinned);
    session.state.apply({ kind: 'contextEdited' });
    return ok;
  }

  /** The approval the chat answered, forwarded to the waiting tool. */
  resolveApproval(callId: string, approved: boolean, forSession = false): void {
    this.approvals.resolveApproval(callId, approved, forSession);
  }

  /**
   * Starts a session from what request `fromRequestIndex` of a stored session carried (see
   * core/context/forkSession.ts) and opens it.
   */
  async fork(point: ForkPoint): Promise<ActiveSession> {
    const active = this.lifecycle.active;
    if (active?.agent?.busy) throw new Error('Wait for the current request to finish, or cancel it, before forking.');
    const store = await this.store();
    const working = active?.info.id === point.fromSessionId ? active.contextSession.messages : undefined;
    const forked = await forkSession(store, point, { working });
    this.log.info(`fork: session ${forked.info.id} started from request #${point.fromRequestIndex} of ${point.fromSessionId} (${countOf(forked.messages.length, 'message')})`);
    return this.open(forked.info.id);
  }

  /** The message kept while no model was configured (tests read it). */
  get pendingMessage(): string | undefined {
    return this.unsent.pending;
  }

  /** True when the last turn failed and Retry can send its message again. */
  get canRetry(): boolean {
    const active = this.lifecycle.active;
    return Boolean(active?.state.canRetry && active.agent && !active.agent.busy);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
