import { newId } from '../model/ids';
import type { CheckpointFile, CheckpointStore, CommandBaseline, FileState, TurnCheckpoint } from '../ports/checkpointStore';
import type { ResolvedPath } from '../ports/workspace';

export interface TurnRecorderOptions {
  now?: () => number;
  /** A recording or saving problem, said once per turn (the turn goes on). */
  onProblem?: (message: string) => void;
}

const unstored = (reason: string, size = 0): FileState => ({ kind: 'unstored', size, reason });

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function sameState(a: FileState | undefined, b: FileState | undefined): boolean {
  if (!a || !b) return false;
  if (a.kind === 'absent' || b.kind === 'absent') return a.kind === b.kind;
  return a.kind !== 'unstored' && b.kind !== 'unstored' && a.hash === b.hash;
}

interface RunningTurn {
  checkpoint: TurnCheckpoint;
  byPath: Map<string, CheckpointFile>;
  warned: boolean;
  /** What made each file's last recorded change: the agent's write, or a command. */
  lastChange: Map<string, 'write' | 'command'>;
  /** Commands running now, and what others changed while they ran (their changes cannot be told from a command's). */
  commandsRunning: number;
  othersDuringCommands: Map<string, string>;
}

/**
 * Records, during one turn, what the agent's writes need to be undone: before the first write to a
 * file, its bytes (or its absence); around a command, the files it changed, created or deleted
 * with their states before. What someone else changed meanwhile (the user saving in the editor)
 * is marked, so a restore can leave it alone. A failure to record is noted on the turn's
 * checkpoint and the turn goes on; a checkpoint that could not be saved is kept in memory for
 * this window.
 */
export class TurnCheckpointRecorder {
  private turn?: RunningTurn;
  private readonly unsaved = new Map<string, TurnCheckpoint>();
  private saving: Promise<void> = Promise.resolve();
  /** Files the agent is writing now: a save reported meanwhile is its own. */
  private readonly writing = new Map<string, number>();
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
    this.turn = { checkpoint, byPath: new Map(), warned: false, lastChange: new Map(), commandsRunning: 0, othersDuringCommands: new Map() };
  }

  /**
   * The folders the turn's commands will run in, known ahead (the turn just began): their record
   * is brought up to date meanwhile, so the first command waits less. A failure here shows at the
   * command.
   */
  prepare(folders: readonly string[]): void {
    void this.store.prepare(folders).catch(() => undefined);
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

  /**
   * Someone other than the agent changed `absolute` during the turn (`what`: how, in words, such
   * as "saved in the editor while the turn ran"). A file the turn changed is marked; while a
   * command runs, the file is marked if the command's changes include it. A report of the agent's
   * own write (an editor save that VS Code reports a moment late) is told by the file being as the
   * agent left it.
   */
  noteOthersChange(absolute: string, what: string): void {
    const turn = this.turn;
    if (!turn || this.writing.has(absolute)) return;
    if (turn.commandsRunning > 0) turn.othersDuringCommands.set(absolute, what);
    const entry = turn.byPath.get(absolute);
    if (!entry || entry.othersChanged) return;
    if (turn.lastChange.get(absolute) !== 'write') return this.markOthers(turn, entry, what);
    void this.store.inspect(absolute).then(
      (now) => {
        if (!sameState(now, entry.after)) this.markOthers(turn, entry, what);
      },
      () => this.markOthers(turn, entry, what),
    );
  }

  private markOthers(turn: RunningTurn, entry: CheckpointFile, what: string): void {
    if (entry.othersChanged) return;
    entry.othersChanged = what;
    this.save(turn);
  }

  /** Before a write: the file's prior state, once per file per turn. */
  async beforeWrite(path: ResolvedPath): Promise<void> {
    this.writing.set(path.absolute, (this.writing.get(path.absolute) ?? 0) + 1);
    const turn = this.turn;
    if (!turn || turn.byPath.has(path.absolute)) return;
    const before = await this.capture(path.absolute, path.relative);
    this.add(turn, { absolute: path.absolute, relative: path.relative, before });
  }

  /** After a write (or a failed one): the file's state now, to tell later whether the user changed it. */
  async afterWrite(path: ResolvedPath): Promise<void> {
    const turn = this.turn;
    const file = turn?.byPath.get(path.absolute);
    try {
      if (!turn || !file) return;
      file.after = await this.store.inspect(path.absolute).catch((error: unknown) => unstored(messageOf(error)));
      turn.lastChange.set(path.absolute, 'write');
      this.save(turn);
    } finally {
      const count = (this.writing.get(path.absolute) ?? 1) - 1;
      if (count > 0) this.writing.set(path.absolute, count);
      else this.writing.delete(path.absolute);
    }
  }

  /**
   * Runs a command with the workspace recorded around it: the files' states made sure of before
   * (bounded in time), then the files it changed, created or deleted recorded with those states.
   * What could not be recorded is said on the turn.
   */
  async aroundCommand<T>(folders: readonly string[], run: () => Promise<T>): Promise<T> {
    const turn = this.turn;
    if (!turn) return run();
    turn.commandsRunning++;
    try {
      let baseline: CommandBaseline | undefined;
      try {
        baseline = await this.store.beforeCommand(folders);
        // A bound reached is said on the turn, not in a pop-up: large workspaces reach it on every command.
        for (const note of baseline.notes) this.problem(turn, note, false);
      } catch (error) {
        this.problem(turn, `The workspace could not be recorded before a command, so its changes cannot be restored: ${messageOf(error)}`);
      }
      try {
        return await run();
      } finally {
        if (baseline) await this.recordCommand(turn, baseline).catch((error) => this.problem(turn, `The files a command changed could not be recorded: ${messageOf(error)}`));
      }
    } finally {
      if (--turn.commandsRunning === 0) turn.othersDuringCommands.clear();
    }
  }

  private async recordCommand(turn: RunningTurn, baseline: CommandBaseline): Promise<void> {
    const changes = await this.store.afterCommand(baseline);
    for (const note of changes.notes) this.problem(turn, note, false);
    for (const change of changes.files) {
      let entry = turn.byPath.get(change.absolute);
      if (!entry) {
        entry = { absolute: change.absolute, relative: change.relative, before: change.before };
        this.add(turn, entry);
      }
      entry.after = change.after;
      turn.lastChange.set(change.absolute, 'command');
      const others = turn.othersDuringCommands.get(change.absolute);
      if (others) entry.othersChanged ??= others;
    }
    if (changes.files.length) this.save(turn);
  }

  private async capture(absolute: string, relative: string): Promise<FileState> {
    try {
      return await this.store.capture(absolute);
    } catch (error) {
      if (this.turn) this.problem(this.turn, `${relative} could not be recorded, so it cannot be restored: ${messageOf(error)}`);
      return unstored(messageOf(error));
    }
  }

  private add(turn: RunningTurn, file: CheckpointFile): void {
    turn.byPath.set(file.absolute, file);
    turn.checkpoint.files.push(file);
    this.save(turn);
  }

  private problem(turn: RunningTurn, message: string, notify = true): void {
    if (!turn.checkpoint.problems.includes(message)) turn.checkpoint.problems.push(message);
    if (notify && !turn.warned) {
      turn.warned = true;
      this.options.onProblem?.(message);
    }
  }

  /** Saves the turn's checkpoint after the saves before it; a failed save keeps it in memory and says so once. */
  private save(turn: RunningTurn): void {
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
