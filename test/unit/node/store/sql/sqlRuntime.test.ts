import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { brotliCompressSync } from 'zlib';

const ROOT = join(__dirname, '..', '..', '..', '..', '..');
const WASM = require.resolve('sql.js/dist/sql-wasm.wasm');

/** Starts sql.js in a process of its own (it is started once per process) from `wasmPath`, runs a query, prints the answer or the error. */
function startIn(wasmPath: string): string {
  const script = `
    const { sqlRuntime } = require(${JSON.stringify(join(ROOT, 'src/node/store/sql/sqlRuntime.ts'))});
    sqlRuntime(${JSON.stringify(wasmPath)}).then(
      (SQL) => { const db = new SQL.Database(); console.log('answer ' + db.exec('SELECT 6 * 7')[0].values[0][0]); },
      (error) => sqlRuntime(${JSON.stringify(wasmPath)}).then(() => console.log('second try worked'), (again) => console.log(error.message + ' | tried again: ' + (again === error ? 'same' : 'new'))),
    );`;
  return execFileSync(process.execPath, ['-r', join(ROOT, 'test/register.cjs'), '-e', script], { encoding: 'utf8' }).trim();
}

describe("sql.js's WebAssembly as the package ships it", function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tally-sql-wasm-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts from the plain file or, when only the compressed one is there, from that', () => {
    copyFileSync(WASM, join(dir, 'sql-wasm.wasm'));
    assert.equal(startIn(join(dir, 'sql-wasm.wasm')), 'answer 42');
    const packed = mkdtempSync(join(dir, 'packed-'));
    writeFileSync(join(packed, 'sql-wasm.wasm.br'), brotliCompressSync(readFileSync(WASM)));
    assert.equal(startIn(join(packed, 'sql-wasm.wasm')), 'answer 42');
  });

  it('says the database engine is damaged when the compressed file is cut short, and tries again on the next open', () => {
    writeFileSync(join(dir, 'sql-wasm.wasm.br'), brotliCompressSync(readFileSync(WASM)).subarray(0, 5000));
    assert.match(startIn(join(dir, 'sql-wasm.wasm')), /^Tally's database engine is missing or damaged \(.*sql-wasm\.wasm\.br: .*\); reinstall the extension \| tried again: new$/);
  });
});
