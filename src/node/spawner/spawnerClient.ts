import { spawn, type ChildProcess } from 'child_process';
import { closeSync, openSync } from 'fs';
import { openDescriptors, stdioCovering } from '../sandbox/inheritedDescriptors';
import { frame, FrameKind, FrameReader } from './frames';
import type { Launch, LaunchEvents, ProcessEnd, RunningProcess } from './launch';
import { launchHere } from './launchHere';

/** How to start the spawner: a Node program (dist/spawner.js) and its arguments. */
export interface SpawnerCommand {
  file: string;
  args: string[];
}

interface Run {
  events: LaunchEvents;
  pid?: number;
  killed: boolean;
}

/** After this many starts that never became ready, processes start from the host for good. */
const MAX_FAILED_STARTS = 3;
const READY_LIMIT_MS = 10_000;

/**
 * The host's side of the spawner (spawnerMain.ts): starts it when asked (in the background at
 * activation, or at the first process), sends it each launch, and hands each process's output and
 * end to its caller. When the spawner cannot start, a launch starts its process from this process
 * instead; when it stops while processes run, each of them is killed (its whole group) and ends
 * with an error that says so, and the next launch starts a new spawner.
 */
export class SpawnerClient {
  private child?: ChildProcess;
  private ready?: Promise<ChildProcess | undefined>;
  private readonly runs = new Map<number, Run>();
  private nextId = 1;
  private failedStarts = 0;
  private isReady = false;
  private stderrTail = '';
  private disposed = false;

  constructor(private readonly command: SpawnerCommand) {}

  /** The running spawner's pid (tests kill it). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the spawner if it is not running; resolves with it once it is ready, or undefined when it could not start. */
  warmUp(): Promise<ChildProcess | undefined> {
    if (this.disposed || this.failedStarts >= MAX_FAILED_STARTS) return Promise.resolve(undefined);
    return (this.ready ??= this.start());
  }

  launch(launch: Launch, events: LaunchEvents): RunningProcess {
    const id = this.nextId++;
    const run: Run = { events, killed: false };
    let direct: RunningProcess | undefined;
    let sentTo: ChildProcess | undefined;
    const send = (spawner: ChildProcess | undefined) => {
      if (!spawner || spawner !== this.child) {
        direct = launchHere(launch, events);
        if (run.killed) direct.kill();
        return;
      }
      sentTo = spawner;
      this.runs.set(id, run);
      this.holdOpen(true);
      spawner.stdin!.write(frame(FrameKind.Start, id, JSON.stringify(launch)));
      if (run.killed) spawner.stdin!.write(frame(FrameKind.Kill, id));
    };
    if (this.child && this.isReady) send(this.child);
    else void this.warmUp().then(send);
    return {
      kill: () => {
        run.killed = true;
        if (direct) direct.kill();
        else if (sentTo && sentTo === this.child && this.runs.has(id)) sentTo.stdin!.write(frame(FrameKind.Kill, id));
      },
    };
  }

  /** Stops the spawner (which kills what it still runs). */
  dispose(): void {
    this.disposed = true;
    this.child?.stdin?.end();
  }

  private start(): Promise<ChildProcess | undefined> {
    return new Promise((resolve) => {
      let child: ChildProcess;
      const nullFd = openSync('/dev/null', 'r');
      try {
        // Nothing the host holds open reaches the spawner (nor, through it, a command).
        const stdio = stdioCovering(openDescriptors(), nullFd);
        stdio[0] = 'pipe';
        child = spawn(this.command.file, this.command.args, { stdio, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, windowsHide: true });
      } catch {
        this.failed();
        return resolve(undefined);
      } finally {
        closeSync(nullFd);
      }
      this.child = child;
      this.stderrTail = '';
      const limit = setTimeout(() => child.kill('SIGKILL'), READY_LIMIT_MS);
      const reader = new FrameReader((kind, id, payload) => {
        if (kind === FrameKind.Ready) {
          clearTimeout(limit);
          this.isReady = true;
          this.failedStarts = 0;
          this.holdOpen(this.runs.size > 0);
          return resolve(child);
        }
        const run = this.runs.get(id);
        if (!run) return;
        if (kind === FrameKind.Stdout) run.events.stdout(Buffer.from(payload));
        else if (kind === FrameKind.Stderr) run.events.stderr(Buffer.from(payload));
        else if (kind === FrameKind.Started) run.pid = (JSON.parse(payload.toString('utf8')) as { pid: number }).pid;
        else if (kind === FrameKind.End) {
          this.runs.delete(id);
          this.holdOpen(this.runs.size > 0);
          run.events.end(JSON.parse(payload.toString('utf8')) as ProcessEnd);
        }
      });
      child.stdout!.on('data', (chunk: Buffer) => reader.push(chunk));
      child.stderr!.setEncoding('utf8').on('data', (text: string) => (this.stderrTail = (this.stderrTail + text).slice(-2000)));
      child.stdin!.on('error', () => undefined);
      child.on('error', () => undefined);
      child.on('close', (code, signal) => {
        clearTimeout(limit);
        if (!this.isReady) this.failed();
        this.lost(child, code, signal);
        resolve(undefined);
      });
    });
  }

  private failed(): void {
    this.failedStarts++;
  }

  /** The spawner ended: each process it ran is killed and ends with an error; the next launch starts another spawner. */
  private lost(child: ChildProcess, code: number | null, signal: string | null): void {
    if (child !== this.child) return;
    this.child = undefined;
    this.ready = undefined;
    this.isReady = false;
    const how = signal ? `was killed (${signal})` : `exited (code ${code})`;
    const why = this.stderrTail.trim() ? `: ${this.stderrTail.trim().split('\n').slice(-3).join(' ')}` : '';
    const runs = [...this.runs.values()];
    this.runs.clear();
    for (const run of runs) {
      if (run.pid !== undefined && process.platform !== 'win32') {
        try {
          process.kill(-run.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      run.events.end({ code: null, signal: null, error: `Tally's process starter ${how} while this process ran, so it was stopped${why}` });
    }
  }

  /** Keeps the host's event loop alive only while processes run (a CLI or a test ends when its work does). */
  private holdOpen(busy: boolean): void {
    const child = this.child;
    if (!child) return;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as Array<{ ref(): void; unref(): void } | null>) {
      if (busy) handle?.ref();
      else handle?.unref();
    }
  }
}
