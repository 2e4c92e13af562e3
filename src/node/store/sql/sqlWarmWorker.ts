/** The worker thread of startSqlWarmUp (sqlWarmUp.ts): loads sql.js, runs the warm-up once, says so, and ends. */
import { parentPort, workerData } from 'worker_threads';
import { WARMED, warmUp } from './sqlWarmUp';
import { sqlRuntime } from './sqlRuntime';

void sqlRuntime((workerData as { wasmPath?: string }).wasmPath).then((SQL) => {
  warmUp(SQL);
  parentPort?.postMessage(WARMED);
}, () => undefined);
