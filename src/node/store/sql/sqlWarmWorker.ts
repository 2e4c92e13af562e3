/** The warm-up task of the store worker (src/node/storeWorker.ts): loads sql.js, runs the warm-up once, says so. */
import { WARMED, warmUp } from './sqlWarmUp';
import { sqlRuntime } from './sqlRuntime';

export function warmUpInThisThread(wasmPath: string | undefined, post: (message: string) => void): Promise<void> {
  return sqlRuntime(wasmPath).then((SQL) => {
    warmUp(SQL);
    post(WARMED);
  }, () => undefined);
}
