/**
 * The one worker-thread bundle for store work (dist/storeWorker.js): a transcript's import and
 * replay, and sql.js's warm-up at activation. One bundle for both, since both carry sql.js and
 * the store: 17 KB less in the package than a bundle each.
 */
import { parentPort, workerData } from 'worker_threads';
import { replayJob } from './transcripts/replayWorker';
import type { StoreWorkerTask } from './transcripts/replayInWorker';
import { warmUpInThisThread } from './store/sql/sqlWarmWorker';

const task = workerData as StoreWorkerTask;
const post = (message: unknown) => parentPort?.postMessage(message);
if (task.task === 'sql-warm-up') void warmUpInThisThread(task.wasmPath, post);
else void replayJob(task.job).then(post);
