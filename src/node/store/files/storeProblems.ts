import { errorCode, errorText } from './storeErrors';
import type { StoreProblem } from '../../../core/ports/sessionStore';

/** How many problems a store keeps (the oldest are dropped). */
export const MAX_PROBLEMS = 200;

/** The problems a store reports: kept (bounded), logged with their message, and sent to listeners. */
export class StoreProblems {
  readonly list: StoreProblem[] = [];
  private readonly listeners = new Set<(p: StoreProblem) => void>();
  /** The write failures reported since the last save that wrote everything (reported once each). */
  private readonly failingWrites = new Set<string>();
  private suppressedFailures = 0;

  constructor(private readonly now: () => number, private readonly log?: (line: string) => void) {}

  onProblem(listener: (problem: StoreProblem) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  report(problem: Omit<StoreProblem, 'at'>): void {
    const full = { ...problem, at: this.now() };
    this.list.push(full);
    if (this.list.length > MAX_PROBLEMS) this.list.splice(0, this.list.length - MAX_PROBLEMS);
    this.log?.(`store ${problem.kind}: ${problem.file}: ${problem.message}`);
    for (const listener of this.listeners) listener(full);
  }

  info(line: string): void {
    this.log?.(line);
  }

  /**
   * A failed write is reported once per streak: while saves keep failing the same way (a full disk
   * makes every retry fail), the user hears about it once, not on every retry. A save that writes
   * everything ends the streak, so a later failure is reported again.
   */
  writeFailed(file: string, error: unknown): void {
    const key = errorCode(error) ?? errorText(error);
    if (this.failingWrites.has(key)) {
      this.suppressedFailures++;
      return;
    }
    this.failingWrites.add(key);
    this.report({ file, kind: 'write-failed', message: errorText(error) });
  }

  writesSucceeded(): void {
    if (this.failingWrites.size === 0) return;
    this.log?.(`store: saving works again (${this.suppressedFailures} repeated failures were not reported again)`);
    this.failingWrites.clear();
    this.suppressedFailures = 0;
  }
}
