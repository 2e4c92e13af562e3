import { bundledWorker } from '../bundledWorker';
import { Worker } from 'worker_threads';
import type { ReadablePage } from '../../core/ports/webAccess';

type Pending = { resolve(page: ReadablePage): void; reject(error: Error): void; timer: ReturnType<typeof setTimeout> };

/**
 * Makes pages readable in one worker thread (`workerPath`: the bundled dist/readableWorker.js),
 * started at the first page, so the libraries load only when a page is fetched and the host's
 * thread never parses one. A page that takes longer than `timeLimitMs` ends the worker (the next
 * page starts another) and fails with that reason.
 */
export function readableInWorker(workerPath: string, timeLimitMs = 20_000): (html: string, url: string) => Promise<ReadablePage> {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, Pending>();
  const failAll = (error: Error, from: Worker | undefined) => {
    if (from !== worker) return;
    for (const job of pending.values()) {
      clearTimeout(job.timer);
      job.reject(error);
    }
    pending.clear();
    worker = undefined;
  };
  const started = (): Worker => {
    if (worker) return worker;
    const w = bundledWorker(workerPath);
    w.unref();
    w.on('message', (message: { id: number; page?: ReadablePage; error?: string }) => {
      const job = pending.get(message.id);
      if (!job) return;
      pending.delete(message.id);
      clearTimeout(job.timer);
      if (message.page) job.resolve(message.page);
      else job.reject(new Error(`the page could not be made readable: ${message.error}`));
    });
    w.on('error', (error) => failAll(new Error(`the page reader failed: ${error.message}`), w));
    w.on('exit', () => failAll(new Error('the page reader stopped'), w));
    return (worker = w);
  };
  return (html, url) =>
    new Promise<ReadablePage>((resolve, reject) => {
      const id = nextId++;
      const w = started();
      const timer = setTimeout(() => {
        failAll(new Error(`the page was not made readable within ${timeLimitMs / 1000} s`), w);
        void w.terminate();
      }, timeLimitMs);
      pending.set(id, { resolve, reject, timer });
      w.postMessage({ id, html, url });
    });
}
