import { newId } from '../model/ids';
import type { CheckpointFile, CheckpointStore, FileState, FolderListing, ListedFile, TurnCheckpoint } from '../ports/checkpointStore';
import type { ResolvedPath } from '../ports/workspace';

/** How long recording the workspace before a command may take; files not reached by then cannot be restored. */
export const COMMAND_CAPTURE_BUDGET_MS = 500;
/** How far before a command's start a file's modification time may read and still count as the command's (coarse file-system clocks). */
const MTIME_SLACK_MS = 100;
/** Files read at once while recording before a command. */
const CAPTURE_BATCH = 16;

export interface TurnRecorderOptions {
  now?: () => number;
  /** How long recording the workspace before a command may take (COMMAND_CAPTURE_BUDGET_MS unless said). */
  captureBudgetMs?: number;
  /** A recording or saving problem, said once per turn (the turn goes on). */
  onProblem?: (message: string) => void;
}

const unstored = (reason: string, size = 0): FileState => ({ kind: 'unstored', size, reason });

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Records, during one turn, what the agent's writes need to be undone: before the first write to a
 * file, its bytes (or its absence); before a command, the workspace's files (bounded), and after it
 * the files it changed, created or deleted. A failure to record is noted on the turn's checkpoint
 * and the turn goes on; a checkpoint that could not be saved is kept in memory for this window.
 */
export class TurnCheckpointRecorder {
  private turn?: { checkpoint: TurnCheckpoint; byPath: Map<string, CheckpointFile>; warned: boolean };
  private readonly unsaved = new Map<string, TurnCheckpoint>();
  private saving: Promise<void> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly store: CheckpointStore, private readonly options: TurnRecorderOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /**
   * A turn started: its writes are recorded against its user message. `notBefore`: the message's
   * own time (the session's clock, which can run a little ahead of this one): the checkpoint is
   * never dated before its message, so it is never taken for older than a restore recorded before it.
   */
  begin(sessionId: string, userMessageId: string, notBefore = 0): void {
    const checkpoint: TurnCheckpoint = { id: newId('k'), sessionId, userMessageId, createdAt: Math.max(this.now(), notBefore), files: [], problems: [] };
    this.turn = { checkpoint, byPath: new Map(), warned: false };
  }

  /** The turn ended: waits for its last save. */
  async end(): Promise<TurnCheckpoint | undefined> {
    const turn = this.turn;
    this.turn = undefined;
    await this.saving;
    return turn?.checkpoint.files.length || turn?.checkpoint.problems.length ? turn.checkpoint : undefined;
  }

  /** The session's checkpoints, oldest first: the stored ones and those only this window holds. */
  async checkpoints(sessionId: string): Promise<TurnCheckpoint[]> {
    await this.saving;
    const stored = await this.store.load(sessionId).catch(() => [] as TurnCheckpoint[]);
    const byId = new Map(stored.map((c) => [c.id, c]));
    for (const c of this.unsaved.values()) if (c.sessionId === sessionId) byId.set(c.id, c);
    const running = this.turn?.checkpoint;
    if (running?.sessionId === sessionId && (running.files.length || running.problems.length)) byId.set(running.id, running);
    return [...byId.values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Before a write: the file's prior state, once per file per turn. */
  async beforeWrite(path: ResolvedPath): Promise<void> {
    const turn = this.turn;
    if (!turn || turn.byPath.has(path.absolute)) return;
    const before = await this.capture(path.absolute, path.relative);
    this.add(turn, { absolute: path.absolute, relative: path.relative, before });
  }

  /** After a write (or a failed one): the file's state now, to tell later whether the user changed it. */
  async afterWrite(path: ResolvedPath): Promise<void> {
    const turn = this.turn;
    const file = turn?.byPath.get(path.absolute);
    if (!turn || !file) return;
    file.after = await this.capture(path.absolute, path.relative);
    this.save(turn);
  }

  /**
   * Runs a command with the workspace recorded around it: the files listed and their bytes kept
   * before (within COMMAND_CAPTURE_BUDGET_MS), then the files whose size or time changed, and those
   * created or deleted, recorded with their prior state.
   */
  async aroundCommand<T>(folders: readonly string[], run: () => Promise<T>): Promise<T> {
    const turn = this.turn;
    if (!turn) return run();
    let listed: FolderListing | undefined;
    const states = new Map<string, FileState>();
    try {
      listed = await this.store.list(folders);
      // A bound reached is said on the turn, not in a pop-up: large workspaces reach it on every command.
      if (!listed.complete && listed.note) this.problem(turn, `Files this command changes may not all be restorable: ${listed.note}.`, false);
      await this.captureListing(listed.files, states);
    } catch (error) {
      this.problem(turn, `The workspace could not be recorded before a command, so its changes cannot be restored: ${messageOf(error)}`);
    }
    const started = this.now();
    try {
      return await run();
    } finally {
      if (listed) await this.recordChanges(turn, folders, listed, states, started).catch((error) => this.problem(turn, `The files a command changed could not be recorded: ${messageOf(error)}`));
    }
  }

  private async captureListing(files: readonly ListedFile[], states: Map<string, FileState>): Promise<void> {
    const deadline = this.now() + (this.options.captureBudgetMs ?? COMMAND_CAPTURE_BUDGET_MS);
    for (let i = 0; i < files.length; i += CAPTURE_BATCH) {
      if (this.now() > deadline) {
        for (const f of files.slice(i)) states.set(f.absolute, unstored('the time to record files before the command ran out', f.size));
        return;
      }
      await Promise.all(files.slice(i, i + CAPTURE_BATCH).map(async (f) => states.set(f.absolute, await this.store.capture(f.absolute, f).catch((e) => unstored(messageOf(e), f.size)))));
    }
  }

  /**
   * The files the command changed: listed after it with another size or time, or with the same
   * ones when its time was too recent before to tell (then by its bytes), new since (when the
   * listing before was cut short, only those modified once the command started: the others were
   * just not reached), or gone (when both listings are whole).
   */
  private async recordChanges(turn: NonNullable<typeof this.turn>, folders: readonly string[], before: FolderListing, states: Map<string, FileState>, started: number): Promise<void> {
    const after = await this.store.list(folders);
    if (!after.complete && after.note) this.problem(turn, `Files this command changed may not all be restorable: ${after.note}.`, false);
    const was = new Map(before.files.map((f) => [f.absolute, f]));
    const now = new Map(after.files.map((f) => [f.absolute, f]));
    const changed: Array<{ file: ListedFile; before: FileState; after?: FileState }> = [];
    for (const f of after.files) {
      const old = was.get(f.absolute);
      if (!old) {
        if (before.complete) changed.push({ file: f, before: { kind: 'absent' } });
        else if (f.mtimeMs >= started - MTIME_SLACK_MS) changed.push({ file: f, before: unstored('it was not listed before the command (the listing stopped early)') });
      } else if (old.size !== f.size || old.mtimeMs !== f.mtimeMs) changed.push({ file: f, before: states.get(f.absolute) ?? unstored('it was not recorded before the command', old.size) });
      else if (old.timeUnsure) {
        const prior = states.get(f.absolute);
        if (prior?.kind !== 'stored') continue;
        const current = await this.capture(f.absolute, f.relative);
        if (current.kind !== 'stored' || current.hash !== prior.hash) changed.push({ file: f, before: prior, after: current });
      }
    }
    if (after.complete && before.complete) for (const old of before.files) if (!now.has(old.absolute)) changed.push({ file: old, before: states.get(old.absolute) ?? unstored('it was not recorded before the command', old.size) });
    for (const { file, before: prior, after: known } of changed) {
      let entry = turn.byPath.get(file.absolute);
      if (!entry) {
        entry = { absolute: file.absolute, relative: file.relative, before: prior };
        this.add(turn, entry);
      }
      entry.after = known ?? (now.has(file.absolute) ? await this.capture(file.absolute, file.relative) : { kind: 'absent' });
    }
    if (changed.length) this.save(turn);
  }

  private async capture(absolute: string, relative: string): Promise<FileState> {
    try {
      return await this.store.capture(absolute);
    } catch (error) {
      if (this.turn) this.problem(this.turn, `${relative} could not be recorded, so it cannot be restored: ${messageOf(error)}`);
      return unstored(messageOf(error));
    }
  }

  private add(turn: NonNullable<typeof this.turn>, file: CheckpointFile): void {
    turn.byPath.set(file.absolute, file);
    turn.checkpoint.files.push(file);
    this.save(turn);
  }

  private problem(turn: NonNullable<typeof this.turn>, message: string, notify = true): void {
    if (!turn.checkpoint.problems.includes(message)) turn.checkpoint.problems.push(message);
    if (notify && !turn.warned) {
      turn.warned = true;
      this.options.onProblem?.(message);
    }
  }

  /** Saves the turn's checkpoint after the saves before it; a failed save keeps it in memory and says so once. */
  private save(turn: NonNullable<typeof this.turn>): void {
    const checkpoint = turn.checkpoint;
    this.saving = this.saving.then(async () => {
      try {
        await this.store.save(checkpoint);
        this.unsaved.delete(checkpoint.id);
      } catch (error) {
        this.unsaved.set(checkpoint.id, checkpoint);
        const message = `Checkpoint storage failed (${messageOf(error)}): files of this turn can be restored only while this window stays open.`;
        if (!checkpoint.problems.includes(message)) this.problem(turn, message);
      }
    });
  }
}
