import { strict as assert } from 'assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { CheckpointingWorkspace } from '../../../../src/core/checkpoints/checkpointingWorkspace';
import { agentsChangesOnly, applyRestore, checkpointsSince, planRestore } from '../../../../src/core/checkpoints/restore';
import { TurnCheckpointRecorder } from '../../../../src/core/checkpoints/turnRecorder';
import type { CheckpointStore, TurnCheckpoint } from '../../../../src/core/ports/checkpointStore';
import { FileCheckpointStore } from '../../../../src/node/checkpoints/fileCheckpointStore';
import { nodeRestoreTarget } from '../../../../src/node/checkpoints/nodeRestoreTarget';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';

/** A workspace folder and a checkpoint storage folder, both real and fresh. */
function folders() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-checkpoints-')));
  const workspace = join(root, 'workspace');
  const storage = join(root, 'storage');
  mkdirSync(workspace);
  return { root, workspace, storage, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

function setUp(storage: string, workspace: string, store: CheckpointStore = new FileCheckpointStore(storage)) {
  const problems: string[] = [];
  const recorder = new TurnCheckpointRecorder(store, { onProblem: (m) => problems.push(m) });
  const ws = new CheckpointingWorkspace(new NodeWorkspace({ folders: [workspace], trusted: true }), recorder);
  return { store, recorder, ws, problems };
}

const exec = (ws: CheckpointingWorkspace, command: string) => ws.exec(command, { cwd: ws.folders[0], timeoutMs: 20_000, maxOutputBytes: 64 * 1024, signal: new AbortController().signal });

async function write(ws: CheckpointingWorkspace, relative: string, text: string): Promise<void> {
  const path = await ws.resolve(relative, { mustExist: false });
  const current = existsSync(path.absolute) ? readFileSync(path.absolute, 'utf8') : undefined;
  await ws.writeFile(relative, path, text, current);
}

async function restoreAll(store: CheckpointStore, checkpoints: readonly TurnCheckpoint[]) {
  const plan = await planRestore(checkpoints, store);
  return { plan, outcome: await applyRestore(plan, store, nodeRestoreTarget) };
}

describe('checkpoints: recording a turn\'s file changes and restoring them', function () {
  this.timeout(60_000);

  it('records an edited file once per turn (before its first write) and a created one, and restore puts the bytes back and removes the created file', async () => {
    const f = folders();
    try {
      writeFileSync(join(f.workspace, 'app.ts'), 'const port = 8080;\n');
      const { store, recorder, ws } = setUp(f.storage, f.workspace);
      recorder.begin('s1', 'u1');
      await write(ws, 'app.ts', 'const port = 9090;\n');
      await write(ws, 'app.ts', 'const port = 7070;\n');
      await write(ws, 'src/new.ts', 'export {};\n');
      const checkpoint = await recorder.end();
      assert.ok(checkpoint);
      assert.deepEqual(checkpoint.files.map((x) => [x.relative, x.before.kind, x.after?.kind]), [['app.ts', 'stored', 'seen'], ['src/new.ts', 'absent', 'seen']]);

      const stored = await new FileCheckpointStore(f.storage).load('s1');
      assert.deepEqual(stored.map((c) => c.id), [checkpoint.id], 'the checkpoint is in the storage, not only in memory');
      const { plan, outcome } = await restoreAll(store, stored);
      assert.deepEqual(plan.items.map((i) => [i.relative, i.action, i.changedSince]), [['app.ts', 'write', false], ['src/new.ts', 'delete', false]]);
      assert.deepEqual(outcome.failed, []);
      assert.equal(readFileSync(join(f.workspace, 'app.ts'), 'utf8'), 'const port = 8080;\n', 'the bytes before the turn, not after its first write');
      assert.equal(existsSync(join(f.workspace, 'src/new.ts')), false, 'the file the turn created is gone');
      assert.deepEqual(readFileSyncList(f.workspace), ['app.ts', 'src'], 'nothing was written into the workspace by the checkpoint');
    } finally {
      f.dispose();
    }
  });

  it('records what a command wrote, created and deleted, and restore undoes it', async () => {
    const f = folders();
    try {
      writeFileSync(join(f.workspace, 'keep.txt'), 'unchanged\n');
      writeFileSync(join(f.workspace, 'notes.txt'), 'first draft\n');
      writeFileSync(join(f.workspace, 'old.log'), 'old log\n');
      const { store, recorder, ws } = setUp(f.storage, f.workspace);
      recorder.begin('s1', 'u1');
      const result = await exec(ws, 'printf "rewritten\\n" > notes.txt && printf "made\\n" > made.txt && rm old.log');
      assert.equal(result.failed, false, new TextDecoder().decode(result.output));
      const checkpoint = await recorder.end();
      assert.deepEqual(checkpoint?.files.map((x) => x.relative).sort(), ['made.txt', 'notes.txt', 'old.log'], 'only the files the command changed');

      const { outcome } = await restoreAll(store, [checkpoint!]);
      assert.deepEqual(outcome.restored.sort(), ['made.txt', 'notes.txt', 'old.log']);
      assert.equal(readFileSync(join(f.workspace, 'notes.txt'), 'utf8'), 'first draft\n');
      assert.equal(readFileSync(join(f.workspace, 'old.log'), 'utf8'), 'old log\n');
      assert.equal(existsSync(join(f.workspace, 'made.txt')), false);
      assert.equal(readFileSync(join(f.workspace, 'keep.txt'), 'utf8'), 'unchanged\n');
    } finally {
      f.dispose();
    }
  });

  it('restoring to before an earlier turn undoes the later turns too, and warns about a file the user changed since', async () => {
    const f = folders();
    try {
      writeFileSync(join(f.workspace, 'a.txt'), 'v0\n');
      const { store, recorder, ws } = setUp(f.storage, f.workspace);
      recorder.begin('s1', 'u1');
      await write(ws, 'a.txt', 'v1\n');
      const first = (await recorder.end())!;
      recorder.begin('s1', 'u2');
      await write(ws, 'a.txt', 'v2\n');
      await write(ws, 'b.txt', 'b\n');
      await recorder.end();
      writeFileSync(join(f.workspace, 'b.txt'), 'the user typed this\n');

      const all = await recorder.checkpoints('s1');
      const since = checkpointsSince(all, { id: 'u1', createdAt: first.createdAt });
      assert.equal(since.length, 2);
      const { plan } = await restoreAll(store, since);
      assert.deepEqual(plan.items.map((i) => [i.relative, i.changedSince]), [['a.txt', false], ['b.txt', true]], 'b.txt changed after the agent wrote it');
      assert.equal(readFileSync(join(f.workspace, 'a.txt'), 'utf8'), 'v0\n');
      assert.equal(existsSync(join(f.workspace, 'b.txt')), false);
    } finally {
      f.dispose();
    }
  });

  it("what the user saves while a command runs is not the command's: a restore names it and leaves it as it is unless asked", async () => {
    const f = folders();
    try {
      writeFileSync(join(f.workspace, 'config.json'), '{"port": 1}\n');
      writeFileSync(join(f.workspace, 'notes.md'), 'my notes\n');
      const { store, recorder } = setUp(f.storage, f.workspace);
      recorder.begin('s1', 'u1');
      await recorder.aroundCommand([f.workspace], async () => {
        writeFileSync(join(f.workspace, 'config.json'), '{"port": 2}\n');
        // Meanwhile the user saves a new file and an edit in the editor; VS Code reports each save.
        writeFileSync(join(f.workspace, 'todo.md'), 'a new file of mine\n');
        recorder.noteOthersChange(join(f.workspace, 'todo.md'), 'saved in the editor while the turn ran');
        writeFileSync(join(f.workspace, 'notes.md'), 'my notes, edited\n');
        recorder.noteOthersChange(join(f.workspace, 'notes.md'), 'saved in the editor while the turn ran');
      });
      const checkpoint = (await recorder.end())!;
      const plan = await planRestore([checkpoint], store);
      assert.deepEqual(
        plan.items.map((i) => [i.relative, i.action, i.notTheAgents]),
        [['config.json', 'write', undefined], ['notes.md', 'write', 'saved in the editor while the turn ran'], ['todo.md', 'delete', 'saved in the editor while the turn ran']],
      );
      const outcome = await applyRestore(agentsChangesOnly(plan), store, nodeRestoreTarget);
      assert.deepEqual(outcome.restored, ['config.json']);
      assert.equal(readFileSync(join(f.workspace, 'config.json'), 'utf8'), '{"port": 1}\n');
      assert.equal(readFileSync(join(f.workspace, 'todo.md'), 'utf8'), 'a new file of mine\n', "the user's new file is not deleted");
      assert.equal(readFileSync(join(f.workspace, 'notes.md'), 'utf8'), 'my notes, edited\n', "the user's edit is not rolled back");
      // The same save reported a moment late, after the command was recorded, marks it too.
      recorder.begin('s1', 'u2');
      await recorder.aroundCommand([f.workspace], async () => writeFileSync(join(f.workspace, 'notes.md'), 'my notes, edited again\n'));
      recorder.noteOthersChange(join(f.workspace, 'notes.md'), 'saved in the editor while the turn ran');
      const late = (await recorder.end())!;
      assert.equal(late.files[0].othersChanged, 'saved in the editor while the turn ran');
    } finally {
      f.dispose();
    }
  });

  it("the agent's own save, reported by the editor after the write returned, is not taken for the user's", async () => {
    const f = folders();
    try {
      writeFileSync(join(f.workspace, 'app.ts'), 'const port = 8080;\n');
      const { store, recorder, ws } = setUp(f.storage, f.workspace);
      recorder.begin('s1', 'u1');
      await write(ws, 'app.ts', 'const port = 9090;\n');
      recorder.noteOthersChange(join(f.workspace, 'app.ts'), 'saved in the editor while the turn ran');
      const checkpoint = (await recorder.end())!;
      const plan = await planRestore([checkpoint], store);
      assert.deepEqual(plan.items.map((i) => [i.relative, i.notTheAgents]), [['app.ts', undefined]]);
    } finally {
      f.dispose();
    }
  });

  it('a file someone changed between two turns is not the agent\'s alone: restoring to before both leaves it unless asked', async () => {
    const f = folders();
    try {
      writeFileSync(join(f.workspace, 'a.txt'), 'v0\n');
      const { store, recorder, ws } = setUp(f.storage, f.workspace);
      recorder.begin('s1', 'u1');
      await write(ws, 'a.txt', 'v1\n');
      const first = (await recorder.end())!;
      writeFileSync(join(f.workspace, 'a.txt'), 'v1 and the user\'s line\n');
      recorder.begin('s1', 'u2');
      await write(ws, 'a.txt', 'v2\n');
      await recorder.end();
      const plan = await planRestore(checkpointsSince(await recorder.checkpoints('s1'), { id: 'u1', createdAt: first.createdAt }), store);
      assert.deepEqual(plan.items.map((i) => [i.relative, i.changedSince, i.notTheAgents]), [['a.txt', false, 'changed between the turns']]);
      assert.deepEqual(agentsChangesOnly(plan).items, []);
    } finally {
      f.dispose();
    }
  });

  it('a file that cannot be written back is reported and the others are still restored', async () => {
    const f = folders();
    try {
      writeFileSync(join(f.workspace, 'a.txt'), 'a0\n');
      writeFileSync(join(f.workspace, 'b.txt'), 'b0\n');
      const { store, recorder, ws } = setUp(f.storage, f.workspace);
      recorder.begin('s1', 'u1');
      await write(ws, 'a.txt', 'a1\n');
      await write(ws, 'b.txt', 'b1\n');
      const checkpoint = (await recorder.end())!;
      // b.txt is now a folder holding a file: it cannot be written (whatever the user's rights, root included).
      rmSync(join(f.workspace, 'b.txt'));
      mkdirSync(join(f.workspace, 'b.txt'));
      writeFileSync(join(f.workspace, 'b.txt', 'inside'), 'x');
      const { plan, outcome } = await restoreAll(store, [checkpoint]);
      assert.equal(plan.items.find((i) => i.relative === 'b.txt')?.changedSince, true, 'changed since the turn: warned');
      assert.deepEqual(outcome.restored, ['a.txt']);
      assert.deepEqual(outcome.failed.map((x) => x.relative), ['b.txt']);
      assert.match(outcome.failed[0].error, /EISDIR|directory/i);
      assert.equal(readFileSync(join(f.workspace, 'a.txt'), 'utf8'), 'a0\n');
    } finally {
      f.dispose();
    }
  });

  it('when checkpoint storage fails the write still happens, and the checkpoint says its files cannot be restored', async () => {
    const f = folders();
    try {
      writeFileSync(join(f.workspace, 'a.txt'), 'a0\n');
      writeFileSync(f.storage, 'a file where the storage folder should be');
      const { recorder, ws, problems } = setUp(f.storage, f.workspace);
      recorder.begin('s1', 'u1');
      await write(ws, 'a.txt', 'a1\n');
      const checkpoint = (await recorder.end())!;
      assert.equal(readFileSync(join(f.workspace, 'a.txt'), 'utf8'), 'a1\n', 'the turn went on');
      assert.equal(checkpoint.files[0].before.kind, 'unstored');
      assert.match(checkpoint.problems[0], /a\.txt could not be recorded, so it cannot be restored/);
      assert.equal(problems.length, 1, 'said once');
      const plan = await planRestore([checkpoint], new FileCheckpointStore(join(f.root, 'other')));
      assert.deepEqual(plan.items.map((i) => i.action), ['unrestorable']);
    } finally {
      f.dispose();
    }
  });

  it('a file over the size cap is recorded as changed but not restorable', async () => {
    const f = folders();
    try {
      writeFileSync(join(f.workspace, 'big.bin'), Buffer.alloc(2048, 1));
      writeFileSync(join(f.workspace, 'small.txt'), 'small\n');
      const store = new FileCheckpointStore(f.storage, { maxFileBytes: 1024, maxFiles: 100, listBudgetMs: 5000 });
      const { recorder, ws } = setUp(f.storage, f.workspace, store);
      recorder.begin('s1', 'u1');
      await exec(ws, 'printf "x" >> big.bin && printf "more\\n" >> small.txt');
      const checkpoint = (await recorder.end())!;
      const plan = await planRestore([checkpoint], store);
      assert.deepEqual(plan.items.map((i) => [i.relative, i.action]), [['big.bin', 'unrestorable'], ['small.txt', 'write']]);
      assert.match(plan.items[0].reason ?? '', /larger than 1 KB/);
    } finally {
      f.dispose();
    }
  });

  it('a workspace past the listing bound is listed up to it, and the checkpoint says its changes may not all be restorable', async () => {
    const f = folders();
    try {
      // Files last changed long before the command (a fixed date, not the clock).
      const longAgo = new Date('2020-01-01T00:00:00Z');
      for (const sub of ['a', 'b']) {
        mkdirSync(join(f.workspace, sub));
        for (let i = 0; i < 3; i++) {
          writeFileSync(join(f.workspace, sub, `f${i}.txt`), `${i}\n`);
          utimesSync(join(f.workspace, sub, `f${i}.txt`), longAgo, longAgo);
        }
      }
      // Folders are listed last first: b, then a. Past 2 files the listing stops, so a is not listed before the command.
      const store = new FileCheckpointStore(f.storage, { maxFileBytes: 1024, maxFiles: 2, listBudgetMs: 5000, useWatcher: false });
      const { recorder, ws, problems } = setUp(f.storage, f.workspace, store);
      recorder.begin('s1', 'u1');
      // The command leaves b with one file, so the listing after it reaches a.
      await exec(ws, 'rm b/f0.txt b/f1.txt && printf "new\\n" > a/zz-made.txt');
      const checkpoint = await recorder.end();
      assert.match(checkpoint?.problems.join('\n') ?? '', /more than 2 files/);
      assert.deepEqual(problems, [], 'a bound reached is said on the turn, not in a pop-up');
      assert.deepEqual(
        checkpoint?.files.map((x) => [x.relative, x.before.kind]).sort(),
        [['a/zz-made.txt', 'unstored'], ['b/f0.txt', 'stored'], ['b/f1.txt', 'stored']],
        "a's files the first listing did not reach do not count, only the one the command made (its prior state is unknown)",
      );
    } finally {
      f.dispose();
    }
  });

  it('never records node_modules, version control or what git ignores, and says on the turn when a command changed such files', async () => {
    const f = folders();
    try {
      mkdirSync(join(f.workspace, 'node_modules'));
      writeFileSync(join(f.workspace, '.gitignore'), 'dist/\n');
      const { recorder, ws } = setUp(f.storage, f.workspace);
      recorder.begin('s1', 'u1');
      await exec(ws, 'printf x > node_modules/skipped.js && mkdir dist && printf y > dist/out.js && mkdir .git && printf z > .git/HEAD && printf w > kept.txt');
      const checkpoint = await recorder.end();
      assert.deepEqual(checkpoint?.files.map((x) => x.relative), ['kept.txt']);
      assert.match(checkpoint?.problems.join('\n') ?? '', /^Not recorded, so not restorable: changes to (dist\/, node_modules\/|node_modules\/, dist\/) /m, 'named on the turn (version control is not: every git command changes it)');
    } finally {
      f.dispose();
    }
  });
});

function readFileSyncList(folder: string): string[] {
  return require('fs').readdirSync(folder).sort();
}
