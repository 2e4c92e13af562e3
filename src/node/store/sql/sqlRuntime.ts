import { existsSync } from 'fs';
import { readFile } from 'fs/promises';
import { join } from 'path';
import type { SqlJsStatic } from 'sql.js';
import { promisify } from 'util';
import { brotliDecompress } from 'zlib';

let runtime: Promise<SqlJsStatic> | undefined;

type InitSqlJs = (config: { locateFile?: () => string; wasmBinary?: Uint8Array }) => Promise<SqlJsStatic>;

/** The package's copy (beside the bundle, compressed or not), else sql.js's own (running from source). */
function defaultWasmPath(): string {
  const beside = join(__dirname, 'sql-wasm.wasm');
  return existsSync(beside) || existsSync(`${beside}.br`) ? beside : require.resolve('sql.js/dist/sql-wasm.wasm');
}

/**
 * sql.js's WebAssembly as the package ships it: `<path>.br` (decompressed on libuv's thread pool,
 * the same bytes in every thread, so V8 still shares the compiled module between them).
 */
async function compressedWasm(path: string): Promise<Uint8Array> {
  const packed = `${path}.br`;
  try {
    return await promisify(brotliDecompress)(await readFile(packed));
  } catch (error) {
    throw new Error(`Tally's database engine is missing or damaged (${packed}: ${(error as Error).message}); reinstall the extension`);
  }
}

/** sql.js, initialised once per process (a failed start is tried again by the next caller). */
export function sqlRuntime(wasmPath?: string): Promise<SqlJsStatic> {
  if (runtime) return runtime;
  const starting = (async () => {
    const initSqlJs = require('sql.js') as InitSqlJs;
    const path = wasmPath ?? defaultWasmPath();
    if (existsSync(path)) return initSqlJs({ locateFile: () => path });
    return initSqlJs({ wasmBinary: await compressedWasm(path) });
  })();
  runtime = starting;
  starting.catch(() => {
    if (runtime === starting) runtime = undefined;
  });
  return starting;
}
