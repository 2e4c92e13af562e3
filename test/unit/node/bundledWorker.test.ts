import { strict as assert } from 'assert';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { brotliCompressSync } from 'zlib';
import { bundledWorker } from '../../../src/node/bundledWorker';

function answer(path: string, data?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = bundledWorker(path, { workerData: data });
    worker.once('message', (m) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe('worker bundles run from their brotli-compressed copy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tally-bundled-worker-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const source = `"use strict";
const { parentPort, workerData } = require('worker_threads');
const { existsSync } = require('fs');
parentPort.postMessage({ dirname: __dirname, filename: __filename, beside: existsSync(require('path').join(__dirname, 'beside.txt')), data: workerData });`;

  it('runs with the folder and name of the file it stands for, finds what lies beside it, and gets its data', async () => {
    writeFileSync(join(dir, 'beside.txt'), 'x');
    const path = join(dir, 'packed.js');
    writeFileSync(`${path}.br`, brotliCompressSync(Buffer.from(source)));
    assert.deepEqual(await answer(path, { n: 1 }), { dirname: dir, filename: path, beside: true, data: { n: 1 } });
    // Started again (from the decompressed source kept): the same.
    assert.deepEqual(await answer(path, { n: 2 }), { dirname: dir, filename: path, beside: true, data: { n: 2 } });
  });

  it('runs a plain bundle when there is one (a development build)', async () => {
    const path = join(dir, 'plain.js');
    writeFileSync(path, source);
    assert.deepEqual(await answer(path, { n: 3 }), { dirname: dir, filename: path, beside: true, data: { n: 3 } });
  });
});
