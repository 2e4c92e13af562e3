import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { applyRestore, planRestore } from '../../../../src/core/checkpoints/restore';
import { TurnCheckpointRecorder } from '../../../../src/core/checkpoints/turnRecorder';
import { FileCheckpointStore } from '../../../../src/node/checkpoints/fileCheckpointStore';
import { readRegularFile } from '../../../../src/node/regularFile';
import { nodeRestoreTarget } from '../../../../src/node/checkpoints/nodeRestoreTarget';

/** A fixed date long before any test runs: files and folders last changed then. */
const LONG_AGO = new Date('2020-01-01T00:00:00Z');
/** Generous bounds: these tests count work, so no bound may cut a listing short on a busy machine. */
const LIMITS = { maxFileBytes: 1024 * 1024, maxFiles: 20_000, listBudgetMs: 60_000, captureBudgetMs: 60_000 };

/** How changes are found: a watcher where the platform has one to trust (Linux), a walk of the folder anywhere. */
const MODES = [...(process.platform === 'linux' ? ['watcher' as const] : []), 'walk' as const];

function setUp(mode: 'watcher' | 'walk' = 'walk') {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-command-checkpoints-')));
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  const store = new FileCheckpointStore(join(root, 'storage'), { ...LIMITS, useWatcher: mode === 'watcher' }, () => CLOCK_MS);
  const recorder = new TurnCheckpointRecorder(store);
  return {
    root,
    workspace,
    store,
    recorder,
    dispose: () => {
      store.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Runs `change` as a command's effect would, with the recorder around it. */
const command = (recorder: TurnCheckpointRecorder, workspace: string, change: () => void) => recorder.aroundCommand([workspace], async () => change());

async function restoreTurn(store: FileCheckpointStore, recorder: TurnCheckpointRecorder) {
  const checkpoint = (await recorder.end())!;
  assert.ok(checkpoint, 'the turn recorded changes');
  const outcome = await applyRestore(await planRestore([checkpoint], store), store, nodeRestoreTarget);
  assert.deepEqual(outcome.failed, []);
  return checkpoint;
}

/**
 * The second the same-step tests give their files (a time the file system could give two changes
 * in a row), later than any file a test writes without a time of its own; and the checkpoints'
 * clock 1.55 s after it: within a whole-second step of it, and 50 ms after a time half a second
 * past the next second.
 */
const THIS_SECOND = Date.UTC(2100, 0, 1) / 1000;
const CLOCK_MS = (THIS_SECOND + 1.55) * 1000;
const thisSecond = () => THIS_SECOND;

/** A workspace of 50 folders of 100 files each, last changed long ago. */
function fiveThousandFiles(workspace: string): void {
  for (let d = 0; d < 50; d++) {
    const dir = join(workspace, `dir${d}`);
    mkdirSync(dir);
    for (let i = 0; i < 100; i++) {
      writeFileSync(join(dir, `file${i}.ts`), `// ${d}/${i}\n${'x'.repeat(2000)}\n`);
      utimesSync(join(dir, `file${i}.ts`), LONG_AGO, LONG_AGO);
    }
    utimesSync(dir, LONG_AGO, LONG_AGO);
  }
  utimesSync(workspace, LONG_AGO, LONG_AGO);
}

describe('checkpoints: a command after a command costs what changed, not the workspace', function () {
  this.timeout(120_000);

  it('the second command of a turn at 5,000 files, with a watcher, states only what changed and reads only the file it changed', async function () {
    if (!MODES.includes('watcher')) this.skip();
    const t = setUp('watcher');
    try {
      fiveThousandFiles(t.workspace);
      t.recorder.begin('s1', 'u1');
      await command(t.recorder, t.workspace, () => undefined);
      const first = t.store.work;
      assert.equal(first.filesRead, 5000, 'the first command keeps every file (no git here)');
      assert.equal(first.contentFilesWritten, 0, 'none is written: the command changed none');

      const target = join(t.workspace, 'dir7', 'file3.ts');
      await command(t.recorder, t.workspace, () => writeFileSync(target, 'rewritten by the command\n'));
      const second = t.store.work;
      assert.deepEqual(
        { foldersRead: second.foldersRead - first.foldersRead, entriesStated: second.entriesStated - first.entriesStated, filesRead: second.filesRead - first.filesRead, walks: second.walks - first.walks },
        // Before the command: nothing (no event since). After it: the file the watcher reported, stated and read.
        { foldersRead: 0, entriesStated: 1, filesRead: 1, walks: 0 },
      );
      const checkpoint = (await t.recorder.end())!;
      assert.equal(t.store.work.contentFilesWritten, 1, "only the changed file's bytes before the command are written (its bytes after are only hashed)");
      // Another window restores it, from the storage alone.
      const other = new FileCheckpointStore(join(t.root, 'storage'));
      const outcome = await applyRestore(await planRestore(await other.load(checkpoint.sessionId), other), other, nodeRestoreTarget);
      assert.deepEqual(outcome.restored, ['dir7/file3.ts']);
      assert.equal(readFileSync(target, 'utf8'), `// 7/3\n${'x'.repeat(2000)}\n`);
    } finally {
      t.dispose();
    }
  });

  it('the second command of a turn at 5,000 files, walking the folder, reads no folder and no file again', async () => {
    const t = setUp('walk');
    try {
      fiveThousandFiles(t.workspace);
      t.recorder.begin('s1', 'u1');
      await command(t.recorder, t.workspace, () => undefined);
      const first = t.store.work;
      assert.equal(first.filesRead, 5000);
      const target = join(t.workspace, 'dir7', 'file3.ts');
      await command(t.recorder, t.workspace, () => writeFileSync(target, 'rewritten by the command\n'));
      const second = t.store.work;
      assert.deepEqual(
        { foldersRead: second.foldersRead - first.foldersRead, entriesStated: second.entriesStated - first.entriesStated, filesRead: second.filesRead - first.filesRead },
        // Before the command and after it: every folder and file stated, and the one file the command changed read.
        { foldersRead: 0, entriesStated: 2 * (5000 + 50 + 1), filesRead: 1 },
      );
      await restoreTurn(t.store, t.recorder);
      assert.equal(readFileSync(target, 'utf8'), `// 7/3\n${'x'.repeat(2000)}\n`);
    } finally {
      t.dispose();
    }
  });
});

for (const mode of MODES) {
describe(`checkpoints (${mode === 'watcher' ? 'changes told by a watcher' : 'changes found by walking'}): what changed between and during commands`, function () {
  this.timeout(120_000);

  it('files the user changed, made and removed between two commands are recorded as they were before the second', async () => {
    const t = setUp(mode);
    try {
      mkdirSync(join(t.workspace, 'src'));
      writeFileSync(join(t.workspace, 'src', 'edited.ts'), 'export const a = 1;\n');
      writeFileSync(join(t.workspace, 'src', 'removed.ts'), 'export const gone = 1;\n');
      for (const path of ['src/edited.ts', 'src/removed.ts', 'src', '.']) utimesSync(join(t.workspace, path), LONG_AGO, LONG_AGO);
      t.recorder.begin('s1', 'u1');
      await command(t.recorder, t.workspace, () => undefined);

      // The user, between the commands: an edit, a new file in a folder whose names were kept, a removal.
      writeFileSync(join(t.workspace, 'src', 'edited.ts'), 'export const a = 2; // the user\n');
      writeFileSync(join(t.workspace, 'src', 'made.ts'), 'export const made = true;\n');
      unlinkSync(join(t.workspace, 'src', 'removed.ts'));

      await command(t.recorder, t.workspace, () => {
        writeFileSync(join(t.workspace, 'src', 'edited.ts'), 'export const a = 3; // the command\n');
        unlinkSync(join(t.workspace, 'src', 'made.ts'));
        writeFileSync(join(t.workspace, 'src', 'removed.ts'), 'made again by the command\n');
      });
      const checkpoint = await restoreTurn(t.store, t.recorder);
      assert.deepEqual(checkpoint.files.map((f) => [f.relative, f.before.kind]).sort(), [['src/edited.ts', 'stored'], ['src/made.ts', 'stored'], ['src/removed.ts', 'absent']]);
      assert.equal(readFileSync(join(t.workspace, 'src', 'edited.ts'), 'utf8'), 'export const a = 2; // the user\n', "the user's edit, not the text before it");
      assert.equal(readFileSync(join(t.workspace, 'src', 'made.ts'), 'utf8'), 'export const made = true;\n', "the user's new file is back");
      assert.equal(existsSync(join(t.workspace, 'src', 'removed.ts')), false, 'the file the user removed stays removed');
    } finally {
      t.dispose();
    }
  });

  it('a file changed again in the same second as its time, between two commands, is recorded with its new bytes', async () => {
    const t = setUp(mode);
    try {
      const file = join(t.workspace, 'config.json');
      const second = thisSecond();
      writeFileSync(file, '{"port":8080}\n');
      utimesSync(file, second, second);
      t.recorder.begin('s1', 'u1');
      await command(t.recorder, t.workspace, () => undefined);
      // The user saves it again within the same second: same size, same time.
      writeFileSync(file, '{"port":9090}\n');
      utimesSync(file, second, second);
      await command(t.recorder, t.workspace, () => writeFileSync(file, '{"port":7070,"host":"x"}\n'));
      await restoreTurn(t.store, t.recorder);
      assert.equal(readFileSync(file, 'utf8'), '{"port":9090}\n', 'the bytes just before the command, not those the first command saw');
    } finally {
      t.dispose();
    }
  });

  for (const [what, time] of [
    ['a whole second (a file system that keeps seconds)', thisSecond],
    // Half a second past the next whole second: never a whole second.
    ['a time with its milliseconds (a file system that keeps them)', () => thisSecond() + 1.5],
  ] as const) {
    it(`a command that rewrites a file in the same clock step as its time, ${what}, same size, is recorded and restored`, async () => {
      const t = setUp(mode);
      try {
        const file = join(t.workspace, 'version.txt');
        const at = time();
        writeFileSync(file, '1.0.0\n');
        utimesSync(file, at, at);
        t.recorder.begin('s1', 'u1');
        await command(t.recorder, t.workspace, () => {
          writeFileSync(file, '2.0.0\n');
          utimesSync(file, at, at);
        });
        const checkpoint = await restoreTurn(t.store, t.recorder);
        assert.deepEqual(checkpoint.files.map((f) => f.relative), ['version.txt']);
        assert.equal(readFileSync(file, 'utf8'), '1.0.0\n');
      } finally {
        t.dispose();
      }
    });
  }

  it('a file made in a folder in the same second as the folder\'s time is listed, though the folder\'s time did not move', async () => {
    const t = setUp(mode);
    try {
      const dir = join(t.workspace, 'out');
      mkdirSync(dir);
      writeFileSync(join(dir, 'a.txt'), 'a\n');
      const second = thisSecond();
      utimesSync(dir, second, second);
      t.recorder.begin('s1', 'u1');
      await command(t.recorder, t.workspace, () => undefined);
      writeFileSync(join(dir, 'b.txt'), 'made by the user\n');
      utimesSync(dir, second, second);
      await command(t.recorder, t.workspace, () => unlinkSync(join(dir, 'b.txt')));
      await restoreTurn(t.store, t.recorder);
      assert.equal(readFileSync(join(dir, 'b.txt'), 'utf8'), 'made by the user\n');
    } finally {
      t.dispose();
    }
  });
  it('when the storage cannot be written, a command\'s files are still restorable while the window is open, and the turn says so', async () => {
    const t = setUp(mode);
    try {
      const file = join(t.workspace, 'notes.txt');
      writeFileSync(file, 'first draft\n');
      utimesSync(file, LONG_AGO, LONG_AGO);
      // A file where the storage folder should be: nothing can be written there.
      writeFileSync(join(t.root, 'storage'), 'not a folder');
      t.recorder.begin('s1', 'u1');
      await command(t.recorder, t.workspace, () => writeFileSync(file, 'rewritten by the command\n'));
      const checkpoint = (await t.recorder.end())!;
      assert.equal(checkpoint.files[0].before.kind, 'stored', 'its bytes before the command were kept (in memory)');
      assert.match(checkpoint.problems.join('\n'), /can be restored only while this window stays open/);
      const [held] = await t.recorder.checkpoints('s1');
      const outcome = await applyRestore(await planRestore([held], t.store), t.store, nodeRestoreTarget);
      assert.deepEqual(outcome.failed, []);
      assert.equal(readFileSync(file, 'utf8'), 'first draft\n');
    } finally {
      t.dispose();
    }
  });
});
}

describe('checkpoints: the workspace is the user\'s path, what is in it is read as it is', function () {
  this.timeout(60_000);

  it('records what a command changed in a workspace folder opened through a link', async () => {
    const t = setUp();
    try {
      const linked = join(t.root, 'linked-workspace');
      symlinkSync(t.workspace, linked, 'dir');
      writeFileSync(join(t.workspace, 'config.json'), '{"port": 1}\n');
      t.recorder.begin('s1', 'u1');
      await t.recorder.aroundCommand([linked], async () => writeFileSync(join(linked, 'config.json'), '{"port": 2}\n'));
      const checkpoint = await restoreTurn(t.store, t.recorder);
      assert.deepEqual(checkpoint.files.map((f) => f.relative), ['config.json']);
      assert.equal(readFileSync(join(t.workspace, 'config.json'), 'utf8'), '{"port": 1}\n');
    } finally {
      t.dispose();
    }
  });

  it('never copies a link\'s target or waits on a pipe: a listed file swapped for either is not read', async function () {
    if (process.platform === 'win32') this.skip();
    const t = setUp();
    try {
      const read = (path: string) => readRegularFile(path, { maxBytes: 1024, noFollow: true });
      const secret = join(t.root, 'outside.txt');
      writeFileSync(secret, 'outside the workspace\n');
      const link = join(t.workspace, 'notes.txt');
      symlinkSync(secret, link);
      assert.equal(read(link).kind, 'not regular');
      assert.deepEqual(await t.store.capture(link), { kind: 'unstored', size: 49, reason: 'it is not a regular file' });
      const pipe = join(t.workspace, 'build.log');
      execFileSync('mkfifo', [pipe]);
      assert.equal(read(pipe).kind, 'not regular');
      assert.deepEqual(await t.store.capture(pipe), { kind: 'unstored', size: 0, reason: 'it is not a regular file' });
      assert.equal(read(join(t.workspace, 'gone.txt')).kind, 'absent');
      writeFileSync(join(t.workspace, 'big.bin'), Buffer.alloc(4096));
      assert.deepEqual(read(join(t.workspace, 'big.bin')), { kind: 'too large', size: 4096 });
      writeFileSync(join(t.workspace, 'plain.txt'), 'plain\n');
      const plain = read(join(t.workspace, 'plain.txt'));
      assert.equal(plain.kind === 'bytes' && String(plain.bytes), 'plain\n');
    } finally {
      t.dispose();
    }
  });
});
