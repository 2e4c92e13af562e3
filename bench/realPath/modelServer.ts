/** Starts instantModel.ts in a child process and collects what it reports about each request it answered. */
import { fork, type ChildProcess } from 'child_process';
import { join } from 'path';
import type { Answer, ScriptedAnswer, ToChild, ToParent } from './instantModel';

/** The folder whose files the server answers GET /pages/<name> with, as text/html (the web pages fetch_url reads). */
export const PAGES_FOLDER_ENV = 'TALLY_BENCH_PAGES';

export interface HandledRequest {
  answer: Answer;
  handlerMs: number;
  bodyBytes: number;
}

export class InstantModelServer {
  private readonly handled: HandledRequest[] = [];
  private unexpected?: string;
  private constructor(private readonly child: ChildProcess, readonly url: string) {
    child.on('message', (message: ToParent) => {
      if (message.type === 'handled') this.handled.push(message);
      if (message.type === 'unexpected') this.unexpected = `the extension sent ${message.method} ${message.url} (${message.bodyBytes} bytes) with no answer scripted`;
    });
  }

  /** Forks the server (serving the pages of `pagesFolder` under /pages/, when given); rejects if it has not listened within `timeoutMs`. */
  static start(timeoutMs = 30_000, pagesFolder?: string): Promise<InstantModelServer> {
    const env = pagesFolder ? { ...process.env, [PAGES_FOLDER_ENV]: pagesFolder } : process.env;
    const child = fork(join(__dirname, 'instantModel.ts'), [], { env, execArgv: ['-r', join(__dirname, '..', '..', 'test', 'register.cjs')], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill();
        reject(new Error(`the bench model server did not start within ${timeoutMs} ms`));
      }, timeoutMs);
      child.once('exit', (code) => reject(new Error(`the bench model server exited (code ${code}) before listening`)));
      child.on('message', (message: ToParent) => {
        if (message.type !== 'listening') return;
        clearTimeout(timer);
        resolve(new InstantModelServer(child, `http://127.0.0.1:${message.port}/v1`));
      });
    });
  }

  /** The answers for the next requests, in order. */
  script(...answers: ScriptedAnswer[]): void {
    this.child.send({ type: 'script', answers } satisfies ToChild);
  }

  /** Takes the reports of the requests answered since the last call; throws if a request had no scripted answer. */
  takeHandled(): HandledRequest[] {
    if (this.unexpected) throw new Error(this.unexpected);
    return this.handled.splice(0);
  }

  /** Waits, bounded, until `count` scripted requests (summary requests not counted) have been reported since the last take; returns them all. */
  waitForHandled(count: number, timeoutMs = 30_000): Promise<HandledRequest[]> {
    return this.waitUntil(() => this.handled.filter((h) => h.answer !== 'summary').length >= count, `${count} requests`, timeoutMs);
  }

  /** Waits, bounded, until a compaction's summary request has been reported since the last take; returns all reported. */
  waitForSummary(timeoutMs = 30_000): Promise<HandledRequest[]> {
    return this.waitUntil(() => this.handled.some((h) => h.answer === 'summary'), 'a summary request', timeoutMs);
  }

  private async waitUntil(reported: () => boolean, what: string, timeoutMs: number): Promise<HandledRequest[]> {
    const done = () => reported() || this.unexpected !== undefined;
    if (!done()) {
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!done()) return;
          clearTimeout(timer);
          this.child.off('message', check);
          resolve();
        };
        const timer = setTimeout(() => {
          this.child.off('message', check);
          reject(new Error(`the bench model server reported ${this.handled.length} requests, not ${what}, within ${timeoutMs} ms`));
        }, timeoutMs);
        this.child.on('message', check);
      });
    }
    return this.takeHandled();
  }

  close(): void {
    this.child.removeAllListeners('exit');
    this.child.send({ type: 'close' } satisfies ToChild);
  }
}
