import { strict as assert } from 'assert';
import { spawn } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { readFileTool } from '../../../../src/core/tools/builtin/readFile';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';
import type { ToolContext } from '../../../../src/core/tools/types';

/**
 * A separate process swaps, as fast as it can, a workspace file for a link to a secret outside,
 * and a workspace folder for a link to a folder outside (each swap an atomic rename), while
 * read_file reads them. Not one read may return the secret. The racer runs until its stdin ends
 * and then prints how many swaps it made: the test reads a fixed number of times, not for a time.
 */
const RACER = `
const fs = require('fs');
const [ws, outside] = process.argv.slice(1);
let n = 0;
let stop = false;
process.stdin.on('end', () => (stop = true));
process.stdin.resume();
function swap(i) {
  try {
    if (i === 0) { fs.symlinkSync(outside + '/secret.txt', ws + '/tmp-link'); fs.renameSync(ws + '/tmp-link', ws + '/file.txt'); }
    else { fs.writeFileSync(ws + '/tmp-file', 'INSIDE\\n'); fs.renameSync(ws + '/tmp-file', ws + '/file.txt'); }
    if (i === 0) { fs.symlinkSync(outside, ws + '/tmp-dirlink'); fs.renameSync(ws + '/tmp-dirlink', ws + '/dir'); }
    else { fs.rmSync(ws + '/dir', { recursive: true, force: true }); fs.mkdirSync(ws + '/tmp-dir'); fs.writeFileSync(ws + '/tmp-dir/secret.txt', 'INSIDE\\n'); fs.renameSync(ws + '/tmp-dir', ws + '/dir'); }
  } catch {}
}
function batch() {
  for (let k = 0; k < 50; k++) swap(n++ % 2);
  if (n === 50) process.stdout.write('racing\\n');
  if (stop) return void process.stdout.write('swaps ' + n + '\\n');
  setImmediate(batch);
}
batch();
`;

/** Reads of each path while the racer swaps. */
const ROUNDS = 1_500;

describe('read_file against a racing symlink swapper', function () {
  this.timeout(60_000);
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('never returns a file outside the workspace, whatever the racer swaps in', async function () {
    if (process.platform === 'win32') this.skip();
    root = mkdtempSync(join(tmpdir(), 'tally-read-race-'));
    const ws = join(root, 'ws');
    const outside = join(root, 'outside');
    mkdirSync(join(ws, 'dir'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE SECRET\n');
    writeFileSync(join(ws, 'file.txt'), 'INSIDE\n');
    writeFileSync(join(ws, 'dir', 'secret.txt'), 'INSIDE\n');
    const ctx = { workspace: new NodeWorkspace({ folders: [ws], trusted: true }), limits: { maxReadBytes: 1 << 20 } } as unknown as ToolContext;

    const racer = spawn(process.execPath, ['-e', RACER, ws, outside], { stdio: ['pipe', 'pipe', 'ignore'] });
    let said = '';
    const racing = new Promise<void>((resolve) => racer.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()).includes('racing') && resolve()));
    const done = new Promise((resolve) => racer.on('exit', resolve));
    let reads = 0;
    let leaked = 0;
    let inside = 0;
    try {
      await racing;
      for (let round = 0; round < ROUNDS; round++) {
        await Promise.all(['file.txt', 'dir/secret.txt'].map(async (path) => {
          reads++;
          const result = await readFileTool.execute({ path }, ctx).catch((error: Error) => ({ output: error.message }));
          if (String(result.output).includes('OUTSIDE SECRET')) leaked++;
          else if (String(result.output).includes('INSIDE')) inside++;
        }));
      }
    } finally {
      racer.stdin.end();
      await done;
    }
    const swaps = Number(/swaps (\d+)/.exec(said)?.[1] ?? 0);
    assert.ok(swaps > 50, `the racer kept swapping while the reads ran (${swaps} swaps)`);
    assert.equal(leaked, 0, `${leaked} of ${reads} reads returned the file outside`);
    assert.ok(inside > 0, 'some reads still succeed while the file is inside');
  });
});
