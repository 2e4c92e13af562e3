import { getTokenCounter } from '../../core/accounting/tokenizer';
import { subagentLinkOf, type SubagentLink } from '../../core/agent/subagents/sessionLink';
import type { SubagentProgress } from '../../core/agent/events';
import type { SessionInfo, SessionStore } from '../../core/ports/sessionStore';
import { ContextSession } from '../../core/context/contextSession';
import { lastRequestUsage } from '../../core/context/lastRequestUsage';
import type { ContextSettings } from '../../core/settings';
import type { InspectorSubagentSubject } from '../../protocol/inspectorSubagents';
import type { ActiveSession } from '../sessionState/sessionPorts';
import type { SessionActions } from '../sessionState/sessionActions';
import { CHAT_PAGE_MESSAGES, readSessionState, SessionReads } from '../sessionState/sessionReads';

/** A subagent's window the inspector shows: its session read from the store, as a resumed session is. */
interface ShownSubagent {
  session: ActiveSession;
  link: SubagentLink;
  parentTitle: string;
}

/** Time as following a subagent reads it: now, and a call later (tests pass their own). */
export interface FollowClock {
  now(): number;
  /** Runs `run` in `ms`; the function returned cancels it. */
  later(run: () => void, ms: number): () => void;
}

const SYSTEM_CLOCK: FollowClock = {
  now: () => Date.now(),
  later: (run, ms) => {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};

/** While a subagent runs, its window shown is read again at most once in this long (each read reads its whole session). */
export const FOLLOW_INTERVAL_MS = 1000;

/** What the inspector's subject needs: the store, and the settings a session is opened with. */
export interface SubjectDeps {
  store(): Promise<SessionStore>;
  settings(): ContextSettings;
  clock?: FollowClock;
}

/** The progress after which a subagent's window has something new: a request made or reported, a compaction, the end. */
const FOLLOWED: ReadonlySet<SubagentProgress['kind']> = new Set(['request', 'usage', 'compaction', 'ended']);

/** Why the inspector refuses a change while it shows a subagent's window. */
export const SUBAGENT_READ_ONLY = "The inspector shows a subagent's window, which is read-only: go back to the session to pin, preview, compact or open its parts in an editor.";

/**
 * What the inspector shows: the session open in the chat, or a subagent's window opened from it
 * (and, with nested subagents, one of that subagent's). The same panel switches its subject, as a
 * link in a page does, with a back link; a subagent's session is read from the store like a
 * resumed session's view, and read again as a running subagent reports progress (`follow`, at most once a second). Only a subagent of the session
 * shown now can be opened: the webview names a session, the store's link decides.
 */
export class InspectorSubject {
  private stack: ShownSubagent[] = [];

  constructor(private readonly deps: SubjectDeps) {}

  /** The session shown, given the one open in the chat; another session opened there ends the subagent view. */
  shown(main: ActiveSession): ActiveSession {
    if (this.stack.length && this.stack[0].link.parentSessionId !== main.info.id) this.stack = [];
    return this.stack[this.stack.length - 1]?.session ?? main;
  }

  /** Who the subagent shown is, for the header; undefined when the chat's session is shown. */
  header(main: ActiveSession): InspectorSubagentSubject | undefined {
    this.shown(main);
    const top = this.stack[this.stack.length - 1];
    if (!top) return undefined;
    const task = top.session.info.title.startsWith(`${top.link.agent}: `) ? top.session.info.title.slice(top.link.agent.length + 2) : top.session.info.title;
    return { agent: top.link.agent, task, parentSessionId: top.link.parentSessionId, parentTitle: top.parentTitle, depth: this.stack.length };
  }

  /** Opens the window of `sessionId`, which must be a subagent of the session shown now. */
  async open(main: ActiveSession, sessionId: string): Promise<void> {
    const parent = this.shown(main);
    const store = await this.deps.store();
    const info = await store.getSession(sessionId);
    const link = info && subagentLinkOf(info);
    if (!info || !link || link.parentSessionId !== parent.info.id) throw new Error('That session is not a subagent of the session shown; nothing was opened.');
    const session = await this.read(store, parent, info);
    // Opened while another open ran: the subject moved on, this one is not shown.
    if (this.shown(main) !== parent) return;
    this.stack.push({ session, link, parentTitle: parent.info.title });
  }

  /**
   * A subagent reported progress (the parent's events carry it): when its window is shown, it is
   * read again once the subagent's writes are in the store, so the window follows the run. A read
   * reads the subagent's whole session, so while it runs it is read at most once per
   * FOLLOW_INTERVAL_MS: a report within that time of the last read is folded into one read at its
   * end; its end is read at once. Resolves true when a window shown was read again with the
   * report in it (the panel then sends its state).
   */
  follow(main: ActiveSession, progress: Pick<SubagentProgress, 'sessionId' | 'kind'>): Promise<boolean> {
    if (!FOLLOWED.has(progress.kind) || !this.stack.some((s) => s.session.info.id === progress.sessionId)) return Promise.resolve(false);
    const clock = this.deps.clock ?? SYSTEM_CLOCK;
    let following = this.following.get(progress.sessionId);
    if (!following) {
      following = { readAt: -Infinity, reading: Promise.resolve(false) };
      this.following.set(progress.sessionId, following);
    }
    const f = following;
    const readNow = (): Promise<boolean> => {
      f.readAt = clock.now();
      const read = f.reading.catch(() => false).then(() => this.reread(main, progress.sessionId));
      f.reading = read;
      return read;
    };
    if (progress.kind === 'ended') {
      const waiting = f.waiting;
      f.waiting = undefined;
      waiting?.cancel();
      const read = readNow();
      waiting?.settle(read);
      // Its run is over: nothing more to follow once this read is in (a report after starts afresh).
      void read.finally(() => {
        if (this.following.get(progress.sessionId) === f && !f.waiting && f.reading === read) this.following.delete(progress.sessionId);
      }).catch(() => undefined);
      return read;
    }
    if (f.waiting) return f.waiting.done;
    const due = f.readAt + FOLLOW_INTERVAL_MS;
    if (clock.now() >= due) return readNow();
    let settle!: (read: Promise<boolean>) => void;
    const done = new Promise<boolean>((resolve, reject) => (settle = (read) => void read.then(resolve, reject)));
    const cancel = clock.later(() => {
      if (f.waiting?.done !== done) return;
      f.waiting = undefined;
      settle(readNow());
    }, due - clock.now());
    f.waiting = { done, settle, cancel };
    return done;
  }

  /** Resolves once no read of a followed window is under way (one waiting for its interval's end is not under way). */
  async idle(): Promise<void> {
    for (const f of this.following.values()) await f.reading.catch(() => false);
  }

  /** Per subagent followed: when its window was last read, the read under way, and the read waiting for the interval's end. */
  private readonly following = new Map<string, { readAt: number; reading: Promise<boolean>; waiting?: { done: Promise<boolean>; settle(read: Promise<boolean>): void; cancel(): void } }>();

  private async reread(main: ActiveSession, sessionId: string): Promise<boolean> {
    this.shown(main);
    const at = this.stack.findIndex((s) => s.session.info.id === sessionId);
    if (at < 0) return false;
    const shown = this.stack[at];
    const parent = at === 0 ? main : this.stack[at - 1].session;
    const store = await this.deps.store();
    const info = (await store.getSession(sessionId)) ?? shown.session.info;
    const session = await this.read(store, parent, info);
    // Closed or replaced while it was read: nothing to update.
    if (this.stack[at] !== shown) return false;
    this.stack[at] = { ...shown, session };
    return true;
  }

  /** A subagent's session and its state, read from the store as a resumed session is. */
  private async read(store: SessionStore, parent: ActiveSession, info: SessionInfo): Promise<ActiveSession> {
    const sessionId = info.id;
    const last = await lastRequestUsage(store, sessionId);
    const settings = this.deps.settings();
    const resuming = ContextSession.open({
      store,
      sessionId,
      settings,
      counter: getTokenCounter(parent.chat?.model.encoding ?? 'o200k_base'),
      contextWindow: last?.contextWindow ?? settings.contextWindow,
      maxOutputTokens: last?.maxOutputTokens ?? settings.maxOutputTokens,
      fixed: last ? { system: last.components.system, skills: last.components.skills, tools: last.components.tools, ...(last.components.hooks ? { hooks: last.components.hooks } : {}) } : undefined,
    });
    const reading = readSessionState(store, { info }, CHAT_PAGE_MESSAGES, resuming.then((r) => r.takeResumedTranscript(), () => undefined));
    const [session, state] = await Promise.all([resuming, reading]);
    state.apply({ kind: 'resumed', context: session });
    return { info, contextSession: session, state, reads: new SessionReads(store, state) };
  }

  /** Whether a subagent's window is shown (rather than the chat's session). */
  showsSubagent(main: ActiveSession): boolean {
    return this.shown(main) !== main;
  }

  /** Back to the session that started the subagent shown. */
  back(): void {
    this.stack.pop();
  }

  /**
   * The controller as the inspector's intents reach it: requests, texts and results read from the
   * session shown; pinning, previews and compactions only on the chat's session.
   */
  actions(sessions: Pick<SessionActions, 'current' | 'store' | 'setPinned' | 'preview' | 'compact'>): Pick<SessionActions, 'current' | 'store' | 'setPinned' | 'preview' | 'compact'> {
    const readOnly = async (): Promise<void> => {
      if (this.showsSubagent(await sessions.current())) throw new Error(SUBAGENT_READ_ONLY);
    };
    return {
      current: async () => this.shown(await sessions.current()),
      store: () => sessions.store(),
      setPinned: async (messageId, pinned) => (await readOnly(), sessions.setPinned(messageId, pinned)),
      preview: async (focus) => (await readOnly(), sessions.preview(focus)),
      compact: async (focus, summary) => (await readOnly(), sessions.compact(focus, summary)),
    };
  }
}
