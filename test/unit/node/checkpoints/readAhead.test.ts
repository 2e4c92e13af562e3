import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { applyRestore, planRestore } from '../../../../src/core/checkpoints/restore';
import { TurnCheckpointRecorder } from '../../../../src/core/checkpoints/turnRecorder';
import { FileCheckpointStore } from '../../../../src/node/checkpoints/fileCheckpointStore';
import { nodeRestoreTarget } from '../../../../src/node/checkpoints/nodeRestoreTarget';

const LONG_AGO = new Date('2020-01-01T00:00:00Z');
const FILES = 1000;

/**
 * A clock that moves 1 ms each time it is read: reading a file before a command reads it once, so
 * a budget of 100 ms runs out after about 100 files, whatever the machine's load.
 */
function steppingClock(start = Date.UTC(2100, 0, 1)) {
  let now = start;
  return () => now++;
}

function thousandFiles(workspace: string): void {
  for (let d = 0; d < FILES / 100; d++) {
    mkdirSync(join(workspace, `dir${d}`), { recursive: true });
    for (let i = 0; i < 100; i++) {
      const file = join(workspace, `dir${d}`, `file${i}.txt`);
      writeFileSync(file, `file ${d}/${i} as the user left it\n`);
      utimesSync(file, LONG_AGO, LONG_AGO);
    }
  }
}

/** A workspace of FILES files and a store that has time to read only some of them before a command (its clock steps 1 ms a read). */
async function withShortReadBudget(test: (it: { workspace: string; store: FileCheckpointStore; recorder: TurnCheckpointRecorder }) => Promise<void>): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-read-ahead-')));
  const workspace = join(root, 'workspace');
  const store = new FileCheckpointStore(join(root, 'storage'), { maxFiles: 20_000, listBudgetMs: 600_000, watchedListBudgetMs: 600_000, captureBudgetMs: 100, useWatcher: false }, steppingClock());
  try {
    thousandFiles(workspace);
    await test({ workspace, store, recorder: new TurnCheckpointRecorder(store) });
  } finally {
    store.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

describe('checkpoints: what a command had no time to read is read before the next one', function () {
  this.timeout(60_000);

  it('a command that ran out of time says so; between commands the rest is read, and the next command records a file the first could not', async () => {
    await withShortReadBudget(async ({ workspace, store, recorder }) => {
      recorder.begin('s1', 'u1');
      await recorder.aroundCommand([workspace], async () => undefined);
      const afterFirst = (await recorder.end())!;
      assert.match(afterFirst.problems.join('\n'), /the time to record them before it ran out \(\d[\d,]* files not recorded\)/, 'the turn says what was not recorded');
      const readByTheFirst = store.work.filesRead;
      assert.ok(readByTheFirst < FILES, `the first command had time for ${readByTheFirst} files`);

      // The model's reply to the first command: the recorder reads the rest meanwhile.
      await store.whenIdle();
      assert.equal(store.work.filesRead, FILES, 'every file was read once, none twice');

      recorder.begin('s1', 'u2');
      const changed = Array.from({ length: FILES / 100 }, (_, d) => join(workspace, `dir${d}`, 'file99.txt'));
      await recorder.aroundCommand([workspace], async () => {
        for (const file of changed) writeFileSync(file, 'rewritten by the command\n');
      });
      const checkpoint = (await recorder.end())!;
      assert.deepEqual(checkpoint.problems, [], 'nothing was left unrecorded');
      assert.deepEqual(
        checkpoint.files.map((f) => f.before.kind),
        changed.map(() => 'stored'),
      );
      assert.equal(store.work.filesRead, FILES + changed.length, 'the second command read only what it changed (after it ran)');
      const outcome = await applyRestore(await planRestore([checkpoint], store), store, nodeRestoreTarget);
      assert.deepEqual(outcome.failed, []);
      changed.forEach((file, d) => assert.equal(readFileSync(file, 'utf8'), `file ${d}/99 as the user left it\n`));
    });
  });

  it('a command that comes while the rest is being read is never recorded with its own bytes as the bytes before it', async () => {
    await withShortReadBudget(async ({ workspace, store, recorder }) => {
      recorder.begin('s1', 'u1');
      await recorder.aroundCommand([workspace], async () => undefined);
      // The next command at once, while the files the first had no time for are being read.
      const changed = Array.from({ length: FILES / 100 }, (_, d) => join(workspace, `dir${d}`, 'file50.txt'));
      await recorder.aroundCommand([workspace], async () => {
        for (const file of changed) writeFileSync(file, 'rewritten by the command\n');
        // Whatever the record would do while the command runs has run before the command ends.
        await store.whenIdle();
      });
      await store.whenIdle();
      const checkpoint = (await recorder.end())!;
      const byPath = new Map(checkpoint.files.map((f) => [f.absolute, f]));
      for (const [d, file] of changed.entries()) {
        const before = byPath.get(file)?.before;
        assert.ok(before, `${file} is recorded`);
        if (before.kind === 'unstored') assert.match(checkpoint.problems.join('\n'), /files not recorded/, 'what was not recorded is said');
        else assert.equal(before.kind, 'stored');
        if (before.kind === 'stored') assert.equal(Buffer.from(await store.read(before.hash)).toString(), `file ${d}/50 as the user left it\n`);
      }
    });
  });
});
