/**
 * Writes and deletes inside a folder hold each folder on the way open, so confinement is decided at
 * the moment of writing, never by a path checked before: a folder swapped for a link to elsewhere
 * at any moment cannot lead a write (or a delete, or a restore) outside. A swapper process races
 * the writes on a real disk; other tests swap at a chosen moment (inside the last check).
 */
import { strict as assert } from 'assert';
import { execFileSync, spawn, type ChildProcess } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, renameSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { promises as fsp } from 'fs';
import { ConfinedPathError, deleteWithin, writeWithin } from '../../../src/node/confinedFiles';
import { confinedRestoreTarget } from '../../../src/node/checkpoints/nodeRestoreTarget';

const describeOnPosix = process.platform === 'win32' ? describe.skip : describe;

/** A process that swaps `folder` for a link to `outside` and back, as fast as it can, until killed. */
function startSwapper(folder: string, outside: string): ChildProcess {
  const script = `
    const fs = require('fs');
    const [folder, outside] = process.argv.slice(1);
    const aside = folder + '.real';
    process.stdout.write('ready\\n');
    for (;;) {
      try { fs.renameSync(folder, aside); fs.symlinkSync(outside, folder); } catch {}
      try { fs.unlinkSync(folder); fs.renameSync(aside, folder); } catch {}
    }`;
  return spawn(process.execPath, ['-e', script, folder, outside], { stdio: ['ignore', 'pipe', 'ignore'] });
}

async function started(child: ChildProcess): Promise<void> {
  await new Promise((resolve) => child.stdout!.once('data', resolve));
}

async function stopped(child: ChildProcess): Promise<void> {
  const exit = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exit;
}

describeOnPosix('writing inside a folder while a folder on the way is swapped for a link', function () {
  this.timeout(60_000);
  let root: string;
  let ws: string;
  let outside: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-confined-'));
    ws = join(root, 'ws');
    outside = join(root, 'outside');
    mkdirSync(join(ws, 'sub', 'deep'), { recursive: true });
    mkdirSync(outside);
    mkdirSync(join(outside, 'deep'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a swapper racing 400 writes: none lands outside; each lands inside or is refused naming the link', async () => {
    // The swapper is real: a plain write by path in the same race does land outside.
    const swapper = startSwapper(join(ws, 'sub'), outside);
    await started(swapper);
    let written = 0;
    const refusals = new Set<string>();
    try {
      let byPath = 0;
      for (let i = 0; i < 400 && byPath === 0; i++) {
        await fsp.writeFile(join(ws, 'sub', 'deep', `plain-${i}.txt`), 'by path\n').catch(() => undefined);
        byPath = readdirSync(join(outside, 'deep')).length;
      }
      assert.ok(byPath > 0, 'the race is real: a write by path landed outside');
      rmSync(join(outside, 'deep'), { recursive: true });
      mkdirSync(join(outside, 'deep'));

      for (let i = 0; i < 400; i++) {
        try {
          await writeWithin(ws, `sub/deep/held-${i}.txt`, `write ${i}\n`);
          written++;
        } catch (error) {
          assert.ok(error instanceof ConfinedPathError, String(error));
          refusals.add(error.message.replace(/\d+/g, 'N'));
        }
      }
    } finally {
      await stopped(swapper);
    }
    assert.deepEqual(readdirSync(join(outside, 'deep')), [], 'nothing was written outside');
    const inside = [join(ws, 'sub', 'deep'), join(ws, 'sub.real', 'deep')].filter(existsSync).flatMap((d) => readdirSync(d).filter((n) => n.startsWith('held-')));
    assert.equal(inside.length, written, 'every write that succeeded is inside');
    for (const refusal of refusals) assert.match(refusal, /^sub (is a symbolic link, so writing sub\/deep\/held-N\.txt could land outside the workspace|is not a folder|does not exist); nothing was written|^the folder of .* moved out/);
  });

  it('a folder swapped for a link after it was held: the write lands in the folder held, never in the link\'s target', async () => {
    await writeWithin(ws, 'sub/deep/file.txt', 'first\n', {
      check: () => {
        renameSync(join(ws, 'sub'), join(ws, 'sub.aside'));
        symlinkSync(outside, join(ws, 'sub'));
        return undefined;
      },
    });
    assert.equal(readFileSync(join(ws, 'sub.aside', 'deep', 'file.txt'), 'utf8'), 'first\n');
    assert.deepEqual(readdirSync(join(outside, 'deep')), []);
    // And the next write meets the link where the folder was: refused.
    await assert.rejects(writeWithin(ws, 'sub/deep/file.txt', 'second\n'), /^Error: sub is a symbolic link, so writing sub\/deep\/file\.txt could land outside the workspace; nothing was written$/);
    assert.deepEqual(readdirSync(join(outside, 'deep')), []);
  });

  it('a held folder moved out of the workspace before the bytes are written: refused, nothing written', async () => {
    const moved = join(outside, 'moved');
    await assert.rejects(
      writeWithin(ws, 'sub/deep/file.txt', 'data\n', { check: () => void renameSync(join(ws, 'sub', 'deep'), moved) }),
      /the folder of sub\/deep\/file\.txt moved out of the workspace while it was written; nothing was written/,
    );
    assert.equal(readFileSync(join(moved, 'file.txt'), 'utf8'), '', 'the file opened was left empty, untouched');
  });

  it('the file itself a link, a named pipe or a folder: refused without following or waiting', async () => {
    symlinkSync(join(outside, 'target.txt'), join(ws, 'sub', 'link.txt'));
    await assert.rejects(writeWithin(ws, 'sub/link.txt', 'x'), /sub\/link\.txt is a symbolic link, not a regular file; nothing was written/);
    assert.equal(existsSync(join(outside, 'target.txt')), false);
    execFileSync('mkfifo', [join(ws, 'sub', 'pipe')]);
    await assert.rejects(writeWithin(ws, 'sub/pipe', 'x'), /sub\/pipe is a named pipe \(FIFO\), not a regular file/);
    await assert.rejects(writeWithin(ws, 'sub/deep', 'x'), /sub\/deep is a folder, not a regular file/);
    await assert.rejects(writeWithin(ws, '../outside/escape.txt', 'x'), /is not a path inside the folder/);
  });

  it('missing folders are made one by one inside the ones held; a missing file with mustExist is not created', async () => {
    await writeWithin(ws, 'new/a/b/file.txt', 'made\n', { createFolders: true });
    assert.equal(readFileSync(join(ws, 'new', 'a', 'b', 'file.txt'), 'utf8'), 'made\n');
    await assert.rejects(writeWithin(ws, 'sub/absent.txt', 'x', { mustExist: true }), /sub\/absent\.txt was deleted; nothing was written/);
    assert.equal(existsSync(join(ws, 'sub', 'absent.txt')), false);
    await assert.rejects(writeWithin(ws, 'nope/file.txt', 'x'), /nope does not exist; nothing was written to nope\/file\.txt/);
  });

  it('a delete never goes through a link on the way, and says false for what is not there', async () => {
    writeFileSync(join(outside, 'deep', 'keep.txt'), 'keep\n');
    renameSync(join(ws, 'sub'), join(ws, 'sub.aside'));
    symlinkSync(outside, join(ws, 'sub'));
    await assert.rejects(deleteWithin(ws, 'sub/deep/keep.txt'), /sub is a symbolic link/);
    assert.equal(readFileSync(join(outside, 'deep', 'keep.txt'), 'utf8'), 'keep\n');
    assert.equal(await deleteWithin(ws, 'sub.aside/deep/none.txt'), false);
    writeFileSync(join(ws, 'sub.aside', 'deep', 'gone.txt'), 'x');
    assert.equal(await deleteWithin(ws, 'sub.aside/deep/gone.txt'), true);
    assert.equal(existsSync(join(ws, 'sub.aside', 'deep', 'gone.txt')), false);
  });

  it('a restore whose folder became a link since it was planned (the Restore dialog open) writes and deletes nothing outside', async () => {
    const target = confinedRestoreTarget(() => [ws]);
    const file = join(ws, 'sub', 'deep', 'restored.txt');
    writeFileSync(join(outside, 'deep', 'victim.txt'), 'victim\n');
    renameSync(join(ws, 'sub'), join(ws, 'sub.aside'));
    symlinkSync(outside, join(ws, 'sub'));
    await assert.rejects(target.writeFile(file, new TextEncoder().encode('restored\n')), /sub is a symbolic link/);
    await assert.rejects(target.deleteFile(join(ws, 'sub', 'deep', 'victim.txt')), /sub is a symbolic link/);
    assert.deepEqual(readdirSync(join(outside, 'deep')), ['victim.txt']);
    assert.equal(readFileSync(join(outside, 'deep', 'victim.txt'), 'utf8'), 'victim\n');
    await assert.rejects(target.writeFile(join(outside, 'deep', 'victim.txt'), new Uint8Array()), /outside the workspace folders open now/);
  });

  it('a restore racing a swapper: nothing lands outside', async () => {
    const target = confinedRestoreTarget(() => [ws]);
    const swapper = startSwapper(join(ws, 'sub'), outside);
    await started(swapper);
    try {
      for (let i = 0; i < 300; i++) await target.writeFile(join(ws, 'sub', 'deep', `restored-${i}.txt`), new TextEncoder().encode('restored\n')).catch(() => undefined);
    } finally {
      await stopped(swapper);
    }
    assert.deepEqual(readdirSync(join(outside, 'deep')), []);
  });
});
