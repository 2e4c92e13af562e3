// The worker thread that makes HTML readable (bundled as dist/readableWorker.js): parsing and
// converting a page of a few megabytes takes seconds, which the extension host's thread must not spend.
import { parentPort } from 'worker_threads';
import { readablePage } from './readablePage';

parentPort?.on('message', (job: { id: number; html: string; url: string }) => {
  try {
    parentPort!.postMessage({ id: job.id, page: readablePage(job.html, job.url) });
  } catch (error) {
    parentPort!.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) });
  }
});
