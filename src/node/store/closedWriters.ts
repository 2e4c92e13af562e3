import { promises as fsp } from 'fs';
import { basename, join } from 'path';
import type { Database } from 'sql.js';
import { nextTurn } from '../../core/nextTurn';
import { absorbRows } from './absorbRows';
import { WRITER_FILE } from './layout';
import type { OwnFile } from './ownFiles';
import type { StoreParts } from './storeParts';
import { liveWriters } from './writerLiveness';

/** Files of closed windows a session must hold before they are merged (three windows' worth). */
export const ABSORB_MIN_FILES = 9;

/**
 * Every window start is a new writer with files of its own, so a session opened across many
 * restarts gathers files. When a session holds at least ABSORB_MIN_FILES files of writers that
 * are gone (no fresh heartbeat), their rows move into this writer's files and, once those are
 * saved, the old files are removed. A crash in between leaves duplicates, which reads merge.
 */
export class ClosedWriterMerge {
  /** Sessions whose closed windows' files this store has already merged (or checked). */
  private readonly done = new Set<string>();

  constructor(private readonly parts: StoreParts) {}

  async absorb(sessionId: string): Promise<void> {
    if (this.done.has(sessionId)) return;
    this.done.add(sessionId);
    const { layout, own } = this.parts;
    const dir = layout.sessionDir(sessionId);
    const live = await liveWriters(layout.root, this.parts.now());
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
    const closed = names.filter((name) => {
      const writer = WRITER_FILE.exec(name)?.[1];
      return writer !== undefined && writer !== layout.writer && !live.has(writer);
    });
    if (closed.length < ABSORB_MIN_FILES) return;
    // absorbRows fills its targets synchronously: they are opened first and marked as changed
    // only when a row goes into them.
    const files = {
      info: await own.get(layout.infoPath(sessionId)),
      segment: await own.get(own.segmentPath(sessionId)),
      snapshot: await own.get(layout.snapshotPath(sessionId)),
    };
    const target = (file: OwnFile) => () => {
      this.parts.flusher.touch(file);
      return file.db;
    };
    for (const file of Object.values(files)) file.pinned = true;
    try {
      await this.absorbFiles(dir, closed, files, target);
    } finally {
      for (const file of Object.values(files)) file.pinned = false;
    }
  }

  private async absorbFiles(dir: string, closed: string[], files: Record<'info' | 'segment' | 'snapshot', OwnFile>, target: (file: OwnFile) => () => Database): Promise<void> {
    const { layout, reads } = this.parts;
    const absorbed: string[] = [];
    for (const name of closed.sort()) {
      const path = join(dir, name);
      const copied = await reads.once(path, (db) => absorbRows(db, { info: target(files.info), segment: target(files.segment), snapshot: target(files.snapshot) }));
      if (copied === undefined) continue; // damaged (set aside), newer schema or unreadable: left alone
      absorbed.push(path);
      await nextTurn();
    }
    if (absorbed.length === 0) return;
    try {
      await this.parts.flusher.flush();
    } catch {
      return; // reported by the flush; the old files stay, so nothing is lost
    }
    for (const path of absorbed) await fsp.rm(path, { force: true });
    this.parts.problems.info(`store: merged ${absorbed.length} files of closed windows into ${layout.writer} for session ${basename(dir)}`);
  }
}

