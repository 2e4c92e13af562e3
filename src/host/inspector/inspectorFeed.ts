import type { SessionStore } from '../../core/ports/sessionStore';
import type { HostToInspector } from '../../protocol/inspector';
import type { ActiveSession } from '../sessionState/sessionPorts';
import type { InspectorChange } from '../sessionState/sessionPatch';
import { inspectorParts, type InspectorExtras } from './inspectorState';
import { InspectorUpdates } from './inspectorUpdates';
import type { InspectorSubject } from './subagentSubject';
import { SubagentSummaryCache } from './subagentSummaries';

/** What the inspector's feed reads: the chat's session (resumed), the store, and where it posts. */
export interface InspectorFeedDeps {
  /** Resolves once the webview took the message (VS Code's postMessage does): changes made meanwhile go in the next post. */
  post(message: HostToInspector): unknown;
  current(): Promise<ActiveSession>;
  store(): Promise<SessionStore>;
}

/** Merges what two changes touched. */
function merged(a: InspectorChange | undefined, b: InspectorChange): InspectorChange {
  if (!a) return { ...b };
  const out: InspectorChange = {};
  for (const key of ['requests', 'blobs', 'compactions', 'messages', 'delegated', 'context'] as const) if (a[key] || b[key]) out[key] = true;
  if (a.titles || b.titles) out.titles = { ...a.titles, ...b.titles };
  return out;
}

/**
 * What the inspector webview is sent: the whole state of the session it shows (the chat's, or a
 * subagent's window opened from it) when the webview (re)loads or the subject changes, then each
 * patch of that session's state as the parts it touched. Posts go out one after another: while
 * one waits for the subagents' figures (a store read) or for the webview to take it, the patches
 * made meanwhile are merged into the next, so none overtakes another and none is made twice.
 */
export class InspectorFeed {
  private readonly updates = new InspectorUpdates();
  private readonly summaries = new SubagentSummaryCache();
  /** The chat's session, whose patches the webview follows once its whole state was posted. */
  private followed?: { session: ActiveSession; stop(): void };
  private wholeWanted = false;
  private pending?: InspectorChange;
  private draining?: Promise<void>;
  private lastSubagents?: InspectorExtras['subagents'];
  /** The session shown delegated since it was shown whole: its subagents' figures follow its requests. */
  private delegated = false;

  constructor(
    private readonly deps: InspectorFeedDeps,
    readonly subject: InspectorSubject,
  ) {}

  /** The whole state of the session shown goes next: the webview (re)loaded, or the subject changed. */
  whole(): Promise<void> {
    this.wholeWanted = true;
    return this.drain();
  }

  /** The webview asked for older requests or results, or every item: they go with the next post. */
  showEarlier(list: 'requests' | 'results' | 'current'): Promise<void> {
    this.updates.showEarlier(list);
    return this.changed({}, true);
  }

  /** Resolves once no post is under way (tests wait on it, never on time). */
  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Whether the webview follows `session`'s patches (another session resumed in the chat: a whole state is due). */
  follows(session: ActiveSession): boolean {
    return this.followed?.session.state === session.state;
  }

  private changed(change: InspectorChange, asked = false): Promise<void> {
    // Text streamed, a card marked: nothing the inspector shows.
    if (!asked && !change.requests && !change.blobs && !change.titles && !change.compactions && !change.context && !change.delegated) return this.draining ?? Promise.resolve();
    this.pending = merged(this.pending, change);
    return this.drain();
  }

  private drain(): Promise<void> {
    this.draining ??= (async () => {
      try {
        while (this.wholeWanted || this.pending) {
          try {
            if (this.wholeWanted) {
              this.wholeWanted = false;
              this.pending = undefined;
              await this.postWhole();
            } else {
              const next = this.pending!;
              this.pending = undefined;
              await this.postUpdate(next);
            }
          } catch (error) {
            this.deps.post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
          }
        }
      } finally {
        this.draining = undefined;
      }
    })();
    return this.draining;
  }

  private async postWhole(): Promise<void> {
    this.delegated = false;
    const main = await this.deps.current();
    const session = this.subject.shown(main);
    this.follow(session === main ? main : undefined);
    const extras = await this.extras(main, session);
    await this.deps.post(this.updates.whole(inspectorParts(session, extras)));
  }

  private async postUpdate(change: InspectorChange): Promise<void> {
    const followed = this.followed;
    if (!followed) return; // a subagent's window shows: it is read again and posted whole
    const session = followed.session;
    // The subagents' figures change when a delegate call is recorded, and with the requests of a session that delegated.
    if (change.delegated) this.delegated = true;
    const extras = change.delegated || (change.requests && (this.lastSubagents || this.delegated)) ? await this.extras(session, session) : this.lastSubagents ? { subagents: this.lastSubagents } : {};
    if (this.followed !== followed || this.wholeWanted) return;
    // What was written meanwhile is in the state now: this post carries it; only a later read of the subagents stays due.
    const meanwhile = this.pending;
    this.pending = meanwhile && (meanwhile.delegated || (meanwhile.requests && this.delegated)) ? { requests: true } : undefined;
    const message = this.updates.update(inspectorParts(session, extras), meanwhile ? merged(change, meanwhile) : change);
    if (message) await this.deps.post(message);
  }

  /** Follows the chat's session's patches; a subagent's window follows none (it is read again instead). */
  private follow(session: ActiveSession | undefined): void {
    if (this.followed?.session.state === session?.state) {
      if (this.followed && session) this.followed.session = session;
      return;
    }
    this.followed?.stop();
    this.followed = session && { session, stop: session.state.onPatch((patch) => void this.changed(patch.inspector)) };
  }

  private async extras(main: ActiveSession, session: ActiveSession): Promise<InspectorExtras> {
    const subagents = await this.summaries.of(await this.deps.store(), session);
    if (session === main && this.followed?.session === main) this.lastSubagents = subagents;
    const subagentOf = this.subject.header(main);
    return { ...(subagents ? { subagents } : {}), ...(subagentOf ? { subagentOf } : {}) };
  }

  dispose(): void {
    this.followed?.stop();
  }
}
