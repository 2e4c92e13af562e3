import { promises as fsp } from 'fs';
import { join } from 'path';
import { nextTurn } from '../../../core/nextTurn';
import type { Message } from '../../../core/model/message';
import type { SessionInfo } from '../../../core/ports/sessionStore';
import { writeAtomically, type WriteFs } from '../files/atomicFile';
import { errorText } from '../files/storeErrors';
import type { StoreParts } from '../storeParts';
import type { SessionSearch } from './sessionSearch';

/** Present once every session of the folder is indexed for search (sessions written since are indexed as they are written). */
export const BACKFILLED_FILE = 'search-backfilled';

export interface BackfillSource {
  load(sessionId: string): Promise<Message[]>;
}

/**
 * Indexes for search the sessions written before search existed, found by title only until then:
 * from each one's stored messages, one session at a time with a turn of the event loop between
 * them, in the background, started once the window's first search is answered. Done once per
 * store folder: the marker is written only after the rows it covers are saved, so a window closed
 * midway leaves the rest to the next one, which skips the sessions already indexed.
 */
export class SearchBackfill {
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly parts: StoreParts,
    private readonly search: SessionSearch,
    private readonly source: BackfillSource,
    private readonly fs: WriteFs,
  ) {}

  private get marker(): string {
    return join(this.parts.layout.indexDir, BACKFILLED_FILE);
  }

  /** Starts the backfill over `sessions` (the list the search just read) unless it ran (in this window or before); never throws (failures are reported). */
  start(sessions: readonly SessionInfo[]): void {
    this.running ??= this.run(sessions).catch((error: unknown) => this.parts.problems.info(`store: indexing older sessions for search stopped: ${errorText(error)}`));
  }

  /** Resolves once the backfill, if running, has stopped after the session it is at. */
  stop(): Promise<void> {
    this.stopped = true;
    return this.running ?? Promise.resolve();
  }

  /** Resolves once the backfill started so far is done (or stopped). */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async run(sessions: readonly SessionInfo[]): Promise<void> {
    if (await fsp.stat(this.marker).then(() => true, () => false)) return;
    const indexed = await this.search.indexedSessions();
    for (const session of sessions) {
      if (this.stopped) return;
      if (indexed.has(session.id)) continue;
      await nextTurn();
      try {
        await this.search.index(session.id, await this.source.load(session.id));
      } catch (error) {
        // A session that cannot be read stays found by title (its damage is reported by the read); the others go on.
        this.parts.problems.info(`store: session ${session.id} not indexed for search: ${errorText(error)}`);
      }
    }
    if (this.stopped) return;
    await this.parts.flusher.flush();
    await writeAtomically(this.fs, this.marker, new Uint8Array(), this.parts.layout.writer);
  }
}
