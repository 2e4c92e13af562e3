import { existsSync } from 'fs';
import { join } from 'path';
import type { SqlJsStatic } from 'sql.js';

let runtime: Promise<SqlJsStatic> | undefined;

function defaultWasmPath(): string {
  const beside = join(__dirname, 'sql-wasm.wasm');
  return existsSync(beside) ? beside : require.resolve('sql.js/dist/sql-wasm.wasm');
}

/** sql.js, initialised once per process. */
export function sqlRuntime(wasmPath?: string): Promise<SqlJsStatic> {
  runtime ??= (async () => {
    const initSqlJs = require('sql.js') as (config: { locateFile: () => string }) => Promise<SqlJsStatic>;
    const path = wasmPath ?? defaultWasmPath();
    return initSqlJs({ locateFile: () => path });
  })();
  return runtime;
}
