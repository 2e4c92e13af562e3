import { promises as fsp } from 'fs';
import { join } from 'path';
import type { StoreMode } from './files/flusher';
import { SqlJsStore, type StoreOptions } from './sqlJsStore';
import { sqlRuntime } from './sql/sqlRuntime';
import { errorCode, errorText, NOT_WRITABLE } from './files/storeErrors';
import type { StoreProblem } from '../../core/ports/sessionStore';

/**
 * Whether the store folder can be written, read only, or not used at all. A full disk is not a
 * reason to give up on writing: saves are retried, and reported once, as the disk fills and frees.
 */
async function folderMode(folder: string, options: StoreOptions): Promise<{ mode: StoreMode; problem?: Omit<StoreProblem, 'at'> }> {
  let failure: unknown;
  try {
    for (const sub of ['sessions', 'blobs', 'index', 'writers']) await fsp.mkdir(join(folder, sub), { recursive: true });
    const probe = join(folder, 'writers', `.probe-${process.pid}-${Date.now()}`);
    await (options.probeWrite ?? ((path: string) => fsp.writeFile(path, '')))(probe);
    await fsp.rm(probe, { force: true });
    return { mode: 'disk' };
  } catch (error) {
    if (!NOT_WRITABLE.has(errorCode(error) ?? '')) return { mode: 'disk' };
    failure = error;
  }
  const readable = await fsp.readdir(folder).then(() => true, () => false);
  if (readable) {
    return {
      mode: 'read-only',
      problem: { file: folder, kind: 'read-only', message: `the store folder ${folder} cannot be written (${errorText(failure)}): sessions are read from it, but changes are kept in memory only and lost when this window closes` },
    };
  }
  return {
    mode: 'in-memory',
    problem: { file: folder, kind: 'in-memory', message: `the store folder ${folder} cannot be used (${errorText(failure)}): sessions are kept in memory only and lost when this window closes` },
  };
}

/**
 * Opens (creating if needed) the store in `folder`. A folder that cannot be written gives a
 * read-only store, one that cannot be read either an in-memory store; both say so once.
 */
export async function openStore(folder: string, options: StoreOptions = {}): Promise<SqlJsStore> {
  const SQL = await sqlRuntime(options.wasmPath);
  if (options.inMemory) return new SqlJsStore(folder, SQL, { ...options, mode: 'in-memory' });
  const { mode, problem } = await folderMode(folder, options);
  const store = new SqlJsStore(folder, SQL, { ...options, mode });
  if (problem) store.reportProblem(problem);
  if (mode !== 'disk') return store;
  await store.cleanTempFiles();
  await store.startHeartbeat().catch((error) => store.reportProblem({ file: join(folder, 'writers'), kind: 'write-failed', message: errorText(error) }));
  store.absorbClosedIndexes();
  return store;
}
