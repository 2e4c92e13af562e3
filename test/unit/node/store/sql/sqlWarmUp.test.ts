import { strict as assert } from 'assert';
import { buildSync } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync } from 'fs';
import { join } from 'path';
import type { SqlJsStatic } from 'sql.js';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';
import { startSqlWarmUp, warmUp } from '../../../../../src/node/store/sql/sqlWarmUp';

const ROOT = join(__dirname, '..', '..', '..', '..', '..');
const WASM = require.resolve('sql.js/dist/sql-wasm.wasm');

/** Counts the databases opened on this thread while `run` runs. */
async function databasesOpenedDuring(SQL: SqlJsStatic, run: () => Promise<void>): Promise<number> {
  const original = SQL.Database;
  let opened = 0;
  (SQL as { Database: unknown }).Database = class extends original {
    constructor(...args: ConstructorParameters<typeof original>) {
      super(...args);
      opened++;
    }
  };
  try {
    await run();
  } finally {
    (SQL as { Database: unknown }).Database = original;
  }
  return opened;
}

describe('sql.js made ready at activation, off the extension host thread', function () {
  this.timeout(60_000);
  let workerPath: string;
  before(() => {
    mkdirSync(join(ROOT, 'out'), { recursive: true });
    workerPath = join(mkdtempSync(join(ROOT, 'out', 'sql-warm-')), 'storeWorker.js');
    buildSync({ entryPoints: [join(ROOT, 'src', 'node', 'storeWorker.ts')], outfile: workerPath, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  });
  after(() => rmSync(join(workerPath, '..'), { recursive: true, force: true }));

  it('runs the work of a first open in a worker thread: this thread opens no database for it', async () => {
    const SQL = await sqlRuntime(WASM);
    let warmed = false;
    const opened = await databasesOpenedDuring(SQL, async () => {
      warmed = await startSqlWarmUp(WASM, workerPath).done;
    });
    assert.equal(warmed, true, 'the worker ran the warm-up to the end');
    assert.equal(opened, 0);
  });

  it('the warm-up is work the store does (its schema, writes, checks and reads), and runs to the end', async () => {
    const SQL = await sqlRuntime(WASM);
    // The worker swallows failures, so a schema change that broke the warm-up would go unseen there.
    const opened = await databasesOpenedDuring(SQL, async () => warmUp(SQL));
    assert.equal(opened, 2, 'a new database, then its saved image opened again');
  });

  it('never fails: a missing worker leaves the store to open as it would have', async () => {
    assert.equal(await startSqlWarmUp(WASM, join(ROOT, 'out', 'no-such-worker.js')).done, false);
  });

  it('stops where it is when the store opens: its work would then only compete with the store’s', async () => {
    const warming = startSqlWarmUp(WASM, workerPath);
    warming.stop();
    assert.equal(await warming.done, false);
  });
});
