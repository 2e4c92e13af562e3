import { promises as fsp } from 'fs';
import { basename, join } from 'path';
import { nextTurn } from '../../../core/nextTurn';
import { absorbRows, Slicer } from './absorbRows';
import { WRITER_FILE } from '../files/storeLayout';
import type { OwnFile } from '../files/ownFiles';
import { sealedSegments, type StoreParts } from '../storeParts';
import { errorText } from '../files/storeErrors';
import { liveWriters } from '../files/writerLiveness';

/** Files of closed windows a session must hold before they are merged (three windows' worth). */
export const ABSORB_MIN_FILES = 9;
/** At most this many files, or this many bytes, are merged (and saved) per step. */
export const MERGE_STEP_FILES = 16;
export const MERGE_STEP_BYTES = 4 * 1024 * 1024;
/** A merge yields to the event loop after running this long. */
const MERGE_SLICE_MS = 10;

/**
 * Every window start is a new writer with files of its own, so a session opened across many
 * restarts gathers files. When a session holds at least ABSORB_MIN_FILES files of writers that
 * are gone (no fresh heartbeat), their rows move into this writer's files and, once those are
 * saved, the old files are removed. A crash in between leaves duplicates, which reads merge.
 */
export class ClosedWriterMerge {
  /** Each session's merge of closed windows' files (or the check that there is none), run once. */
  private readonly merges = new Map<string, Promise<void>>();
  /** Reads of each session's files running now, and who waits for them to end. */
  private readonly readers = new Map<string, number>();
  private readonly drained = new Map<string, Array<() => void>>();
  /** A merge removing old files: reads wait for it (a read never sees a file vanish mid-way). */
  private readonly removing = new Map<string, Promise<void>>();

  constructor(private readonly parts: StoreParts) {}

  /** Starts the session's merge in the background, once; reads go on meanwhile (duplicates read as one). */
  start(sessionId: string): void {
    if (this.merges.has(sessionId)) return;
    this.merges.set(sessionId, this.merge(sessionId).catch((error) => this.parts.problems.info(`store: merging closed windows' files of session ${sessionId} failed: ${errorText(error)}`)));
  }

  /** Every merge started so far, done. */
  async settled(): Promise<void> {
    await Promise.all([...this.merges.values()]);
  }

  /**
   * Runs a read of a session's files. It never waits for a merge, only for the removal of merged
   * files, and a removal waits for the reads running: so a read sees each row in the old files,
   * in this window's files, or in both, never in neither.
   */
  async reading<T>(sessionId: string, read: () => Promise<T>): Promise<T> {
    for (let removal = this.removing.get(sessionId); removal; removal = this.removing.get(sessionId)) await removal;
    this.readers.set(sessionId, (this.readers.get(sessionId) ?? 0) + 1);
    try {
      return await read();
    } finally {
      const left = (this.readers.get(sessionId) ?? 1) - 1;
      if (left > 0) this.readers.set(sessionId, left);
      else {
        this.readers.delete(sessionId);
        const waiting = this.drained.get(sessionId) ?? [];
        this.drained.delete(sessionId);
        for (const wake of waiting) wake();
      }
    }
  }

  /** Removes merged files once no read of the session runs; reads arriving meanwhile wait. */
  private async removeWhenNoReads(sessionId: string, paths: string[]): Promise<void> {
    while ((this.readers.get(sessionId) ?? 0) > 0) {
      await new Promise<void>((wake) => this.drained.set(sessionId, [...(this.drained.get(sessionId) ?? []), wake]));
    }
    // Set in the same turn as the check above: no read starts until the files are gone.
    let done!: () => void;
    this.removing.set(sessionId, new Promise<void>((resolve) => (done = resolve)));
    try {
      for (const path of paths) {
        this.parts.reads.forget(path);
        await fsp.rm(path, { force: true });
        this.parts.folders.forgetFolderOf(path);
      }
    } finally {
      this.removing.delete(sessionId);
      done();
    }
  }

  private async merge(sessionId: string): Promise<void> {
    const { layout } = this.parts;
    const dir = layout.sessionDir(sessionId);
    const live = await liveWriters(layout.root, this.parts.now());
    // The listing the session's reads share while they run (the merge starts with the first of them).
    const { names } = await this.parts.folders.listing(dir);
    // A sealed segment is already full-sized and never changes: moving its rows gains nothing,
    // so only the small files every window leaves (info, snapshot, last segment) are merged.
    const sealed = sealedSegments(names);
    const closed = names.filter((name) => {
      const writer = WRITER_FILE.exec(name)?.[1];
      return writer !== undefined && writer !== layout.writer && !live.has(writer) && !sealed.has(name);
    });
    if (closed.length < ABSORB_MIN_FILES) return;
    await this.absorbFiles(sessionId, dir, closed);
  }

  private async absorbFiles(sessionId: string, dir: string, closed: string[]): Promise<void> {
    const slice = new Slicer(MERGE_SLICE_MS);
    const paths = closed.sort().map((name) => join(dir, name));
    let merged = 0;
    for (let at = 0; at < paths.length; ) {
      // One step: at most MERGE_STEP_FILES files or MERGE_STEP_BYTES, then saved and removed, so
      // what a merge holds in memory stays bounded however many files closed windows left.
      const step: string[] = [];
      let bytes = 0;
      while (at < paths.length && step.length < MERGE_STEP_FILES && (step.length === 0 || bytes < MERGE_STEP_BYTES)) {
        const size = (await fsp.stat(paths[at]).catch(() => undefined))?.size ?? 0;
        if (step.length > 0 && bytes + size > MERGE_STEP_BYTES) break;
        step.push(paths[at++]);
        bytes += size;
      }
      const absorbed = await this.absorbStep(sessionId, step, slice);
      if (absorbed === undefined) return; // the save failed (reported): the old files stay, nothing is lost
      merged += absorbed;
    }
    if (merged > 0) this.parts.problems.info(`store: merged ${merged} files of closed windows into ${this.parts.layout.writer} for session ${basename(dir)} (${slice.yields} pauses for the event loop)`);
  }

  /** Copies the rows of `paths` into this writer's files, saves them, then removes the old files. */
  private async absorbStep(sessionId: string, paths: string[], slice: Slicer): Promise<number | undefined> {
    const { layout, own } = this.parts;
    // absorbRows fills its targets between event-loop turns: they are opened first, held (not
    // closed to make room) for the step, and marked as changed only when a row goes into them.
    // Each step takes the current segment anew: the previous step's save may have sealed it.
    const files = {
      info: await own.get(layout.infoPath(sessionId)),
      segment: await own.get(own.segmentPath(sessionId)),
      snapshot: await own.get(layout.snapshotPath(sessionId)),
    };
    for (const file of Object.values(files)) file.pinned = true;
    try {
      return await this.copyAndSave(sessionId, paths, files, slice);
    } finally {
      for (const file of Object.values(files)) file.pinned = false;
    }
  }

  private async copyAndSave(sessionId: string, paths: string[], files: Record<'info' | 'segment' | 'snapshot', OwnFile>, slice: Slicer): Promise<number | undefined> {
    const { reads } = this.parts;
    const target = (file: OwnFile) => () => {
      this.parts.flusher.touch(file);
      return file.db;
    };
    const absorbed: string[] = [];
    for (const path of paths) {
      // Opened for this copy only (never cached), so no other read can close it between slices.
      const opened = await reads.open(path);
      if (!('db' in opened)) continue; // damaged (set aside), newer schema or unreadable: left alone
      try {
        await absorbRows(opened.db, { info: target(files.info), segment: target(files.segment), snapshot: target(files.snapshot) }, slice);
      } finally {
        reads.close(opened.db);
      }
      absorbed.push(path);
      await nextTurn();
    }
    if (absorbed.length === 0) return 0;
    try {
      await this.parts.flusher.flush();
    } catch {
      return undefined;
    }
    await this.removeWhenNoReads(sessionId, absorbed);
    return absorbed.length;
  }
}
