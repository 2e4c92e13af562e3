import type { SessionInfo } from '../../core/ports/sessionStore';
import type { ChatHeaderUpdate, ChatTurnFiles, HostToChat } from '../../protocol/chat';
import type { ShownSession } from '../sessionState/sessionPorts';
import type { SessionPatch } from '../sessionState/sessionPatch';
import { headerSessions } from './sessionListing';

/** What the chat's feed reads besides the session's state: the window's lists, and where it posts. */
export interface ChatFeedDeps {
  post(message: HostToChat): void;
  /** The session shown (resuming or resumed), opening the latest on first use. */
  showing(): Promise<ShownSession>;
  /** The sessions the header offers; `fresh`: read them again (another window may have changed them). */
  sessions(fresh: boolean): Promise<readonly SessionInfo[]>;
  /** The turns of a session that changed files (what "Restore files" offers). */
  turnFiles(sessionId: string): Promise<ChatTurnFiles[]>;
  /** The chat posted the shown session's first state. */
  firstStateShown(session: ShownSession): void;
  /** The chat showed a state or a new meter: the composer's cost line follows it. */
  shown?(session: ShownSession): void;
  log(message: string): void;
}


/**
 * What the chat webview is sent: the whole state of the session shown when the webview (re)loads
 * or another session is shown, then each patch of that session's state as it is made (text
 * streamed as deltas, entries and header as updates), and the window's lists when they change.
 * Nothing is rebuilt or compared: the state says what changed. A patch made before the webview
 * got its whole state is in that state.
 */
export class ChatFeed {
  private session?: ShownSession;
  private stopPatches?: () => void;
  /** The webview holds the state of `session` (its whole state was posted, and every patch since). */
  private holds = false;

  constructor(private readonly deps: ChatFeedDeps) {}

  /** Another session is shown: its whole state goes to the webview, then its patches. */
  show(session: ShownSession): Promise<void> {
    this.shows++;
    this.follow(session);
    return this.whole();
  }

  /** Sessions shown so far: a whole state made for an earlier one is not posted. */
  private shows = 0;

  private follow(session: ShownSession): void {
    if (this.session?.state !== session.state) {
      this.stopPatches?.();
      this.holds = false;
      this.stopPatches = session.state.onPatch((patch) => this.onPatch(patch));
    }
    this.session = session;
  }

  /** The webview (re)loaded, or holds nothing it can trust: it gets the whole state. */
  async whole(fresh = false): Promise<void> {
    let session: ShownSession | undefined;
    const shows = this.shows;
    this.holds = false;
    try {
      session = await this.deps.showing();
      if (shows !== this.shows) return; // another session was shown meanwhile: its own whole state goes
      this.follow(session);
      const [sessions, turnFiles] = await Promise.all([this.deps.sessions(fresh), this.deps.turnFiles(session.info.id)]);
      // Made when posted: every patch made meanwhile is in it.
      if (shows !== this.shows || this.session?.state !== session.state) return;
      this.deps.post({ type: 'state', state: { ...session.state.chatState(), sessions: headerSessions(sessions, session.info.id), ...(turnFiles.length ? { turnFiles } : {}) } });
      this.holds = true;
      this.deps.shown?.(session);
    } catch (error) {
      this.deps.log(`chat: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      // A state that could not be posted does not hold the session's resume.
      if (session) this.deps.firstStateShown(session);
    }
  }

  private onPatch(patch: SessionPatch): void {
    if (!this.holds || !this.session) return;
    const { streamed, entries, header } = patch.chat;
    if (streamed) this.deps.post({ type: 'delta', entryId: streamed.entryId, text: streamed.text, ...(streamed.thinking ? { thinking: true } : {}) });
    if (entries || header) this.deps.post({ type: 'update', ...(header ? { state: header } : {}), ...(entries ? { patch: entries } : {}) });
    if (header) this.deps.shown?.(this.session);
  }

  /** The window's sessions changed (one created, renamed, touched): the header's list follows. */
  async sessionsChanged(): Promise<void> {
    await this.headerWith(async () => ({ sessions: headerSessions(await this.deps.sessions(false), this.session?.info.id) }));
  }

  /** The turns' files changed (a checkpoint, a restore): "Restore files" follows. */
  async turnFilesChanged(): Promise<void> {
    const session = this.session;
    if (session) await this.headerWith(async () => ({ turnFiles: await this.deps.turnFiles(session.info.id) }));
  }

  private async headerWith(read: () => Promise<Partial<ChatHeaderUpdate>>): Promise<void> {
    try {
      const part = await read();
      if (!this.holds || !this.session) return;
      this.deps.post({ type: 'update', state: { ...this.session.state.header(), ...part } });
    } catch (error) {
      this.deps.log(`chat: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  dispose(): void {
    this.stopPatches?.();
  }
}
