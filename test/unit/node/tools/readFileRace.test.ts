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
 * read_file reads them. Not one read may return the secret.
 */
const RACER = `
const fs = require('fs');
const [ws, outside, ms] = process.argv.slice(1);
const end = Date.now() + Number(ms);
let n = 0;
while (Date.now() < end) {
  const i = n++ % 2;
  try {
    if (i === 0) { fs.symlinkSync(outside + '/secret.txt', ws + '/tmp-link'); fs.renameSync(ws + '/tmp-link', ws + '/file.txt'); }
    else { fs.writeFileSync(ws + '/tmp-file', 'INSIDE\\n'); fs.renameSync(ws + '/tmp-file', ws + '/file.txt'); }
    if (i === 0) { fs.symlinkSync(outside, ws + '/tmp-dirlink'); fs.renameSync(ws + '/tmp-dirlink', ws + '/dir'); }
    else { fs.rmSync(ws + '/dir', { recursive: true, force: true }); fs.mkdirSync(ws + '/tmp-dir'); fs.writeFileSync(ws + '/tmp-dir/secret.txt', 'INSIDE\\n'); fs.renameSync(ws + '/tmp-dir', ws + '/dir'); }
  } catch {}
}
`;

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

    const racer = spawn(process.execPath, ['-e', RACER, ws, outside, '4000'], { stdio: 'ignore' });
    const done = new Promise((resolve) => racer.on('exit', resolve));
    let reads = 0;
    let leaked = 0;
    let inside = 0;
    const deadline = Date.now() + 3500;
    try {
      while (Date.now() < deadline) {
        await Promise.all(['file.txt', 'dir/secret.txt'].map(async (path) => {
          reads++;
          const result = await readFileTool.execute({ path }, ctx).catch((error: Error) => ({ output: error.message }));
          if (String(result.output).includes('OUTSIDE SECRET')) leaked++;
          else if (String(result.output).includes('INSIDE')) inside++;
        }));
      }
    } finally {
      await done;
    }
    assert.equal(leaked, 0, `${leaked} of ${reads} reads returned the file outside`);
    assert.ok(inside > 0, 'some reads still succeed while the file is inside');
  });
});
