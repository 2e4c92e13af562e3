import { strict as assert } from 'assert';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { CheckpointingWorkspace } from '../../../../src/core/checkpoints/checkpointingWorkspace';
import { applyRestore, planRestore } from '../../../../src/core/checkpoints/restore';
import { TurnCheckpointRecorder } from '../../../../src/core/checkpoints/turnRecorder';
import { UNREFERENCED_CONTENT_GRACE_MS } from '../../../../src/node/checkpoints/checkpointPruning';
import { DEFAULT_CHECKPOINT_LIMITS, FileCheckpointStore } from '../../../../src/node/checkpoints/fileCheckpointStore';
import { nodeRestoreTarget } from '../../../../src/node/checkpoints/nodeRestoreTarget';
import { LEASE_TTL_MS, SessionLeases } from '../../../../src/node/checkpoints/sessionLeases';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';

const DAY = UNREFERENCED_CONTENT_GRACE_MS;

/** A real workspace and checkpoint storage, and a clock the test moves. */
function setUp() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-prune-')));
  const workspace = join(root, 'workspace');
  const storage = join(root, 'storage');
  mkdirSync(workspace);
  // Pruning compares the clock with the times of the files it keeps: it starts at the file system's time, which the test then moves.
  const clock = { now: statSync(workspace).mtimeMs };
  const store = new FileCheckpointStore(storage, DEFAULT_CHECKPOINT_LIMITS, () => clock.now);
  const recorder = new TurnCheckpointRecorder(store, { now: () => clock.now });
  const ws = new CheckpointingWorkspace(new NodeWorkspace({ folders: [workspace], trusted: true }), recorder);
  const contentFiles = () => (existsSync(join(storage, 'content')) ? readdirSync(join(storage, 'content')).flatMap((p) => readdirSync(join(storage, 'content', p))) : []);
  /** One turn of `sessionId` that overwrites `file` with `text`. */
  const turn = async (sessionId: string, file: string, text: string) => {
    recorder.begin(sessionId, `u-${sessionId}-${clock.now}`);
    const path = await ws.resolve(file, { mustExist: false });
    await ws.writeFile(file, path, text, existsSync(path.absolute) ? readFileSync(path.absolute, 'utf8') : undefined);
    return recorder.end();
  };
  return { workspace, storage, clock, store, recorder, turn, contentFiles, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

describe('checkpoint storage stays bounded: deleted sessions and the oldest go, what a turn names stays', function () {
  this.timeout(60_000);

  it('removes a deleted session\'s checkpoints and the file bytes only it kept; a live session still restores', async () => {
    const t = setUp();
    try {
      writeFileSync(join(t.workspace, 'gone.txt'), 'only the deleted session kept this\n');
      writeFileSync(join(t.workspace, 'kept.txt'), 'the live session keeps this\n');
      await t.turn('deleted', 'gone.txt', 'changed by the deleted session\n');
      await t.turn('live', 'kept.txt', 'changed by the live session\n');
      assert.equal(t.contentFiles().length, 2, 'each file\'s bytes before the turn (those after it are only hashed)');

      t.clock.now += DAY + 60_000;
      const outcome = await t.store.prune({ liveSessions: new Set(['live']) });
      assert.deepEqual(outcome.removedSessions, ['deleted']);
      assert.deepEqual(await t.store.load('deleted'), []);
      assert.equal(existsSync(join(t.storage, 'turns', 'deleted')), false);
      assert.equal(outcome.removedContentFiles, 1, 'the bytes of gone.txt are removed');
      assert.equal(t.contentFiles().length, 1);

      const plan = await planRestore(await t.store.load('live'), t.store);
      const restored = await applyRestore(plan, t.store, nodeRestoreTarget);
      assert.equal(restored.failed.length, 0);
      assert.equal(readFileSync(join(t.workspace, 'kept.txt'), 'utf8'), 'the live session keeps this\n');
    } finally {
      t.dispose();
    }
  });

  it('past the cap, drops the checkpoints of the sessions used longest ago first, never the one kept open', async () => {
    const t = setUp();
    try {
      const big = (c: string) => c.repeat(10_000) + '\n';
      for (const [session, letter] of [['oldest', 'a'], ['middle', 'b'], ['newest', 'c']] as const) {
        writeFileSync(join(t.workspace, `${session}.txt`), big(letter));
        await t.turn(session, `${session}.txt`, big(letter.toUpperCase()));
        t.clock.now += 1000;
      }
      // Each session keeps about 10 KB; a 25 KB cap holds two of them.
      const outcome = await t.store.prune({ maxBytes: 25_000, keepSessions: new Set(['oldest']), now: t.clock.now + DAY + 60_000 });
      assert.deepEqual(outcome.removedSessions, ['middle'], 'the oldest is kept open, so the next oldest goes');
      assert.ok(outcome.keptBytes <= 25_000, `${outcome.keptBytes} bytes kept`);
      assert.equal((await t.store.load('oldest')).length, 1);
      assert.equal((await t.store.load('newest')).length, 1);
      assert.deepEqual(await t.store.load('middle'), []);

      const again = await t.store.prune({ maxBytes: 15_000, now: t.clock.now + DAY + 60_000 });
      assert.deepEqual(again.removedSessions, ['oldest']);
    } finally {
      t.dispose();
    }
  });

  it('keeps bytes no turn names yet while they are recent, and a file this window remembered is stored again after its bytes were pruned', async () => {
    const t = setUp();
    try {
      writeFileSync(join(t.workspace, 'app.ts'), 'const port = 8080;\n');
      await t.turn('old', 'app.ts', 'const port = 9090;\n');
      // Bytes stored for a write no turn names yet (the turn's record is not written yet).
      writeFileSync(join(t.workspace, 'listed.ts'), 'export const listed = 1;\n');
      await t.store.capture(join(t.workspace, 'listed.ts'));
      const before = t.contentFiles().length;
      assert.equal((await t.store.prune({ liveSessions: new Set(['old']) })).removedContentFiles, 0, 'recent bytes stay');
      assert.equal(t.contentFiles().length, before);

      t.clock.now += DAY + 60_000;
      await t.store.prune({ liveSessions: new Set() });
      assert.equal(t.contentFiles().length, 0, 'the deleted session and the old listed bytes are gone');

      // The same unchanged files kept again: their bytes must be stored again, or restore fails.
      for (const name of ['app.ts', 'listed.ts']) {
        const state = await t.store.capture(join(t.workspace, name));
        assert.equal(state.kind, 'stored');
        if (state.kind === 'stored') assert.deepEqual(Buffer.from(await t.store.read(state.hash)), readFileSync(join(t.workspace, name)), name);
      }
      const checkpoint = await t.turn('new', 'listed.ts', 'export const listed = 2;\n');
      assert.ok(checkpoint);
      const plan = await planRestore([checkpoint], t.store);
      const restored = await applyRestore(plan, t.store, nodeRestoreTarget);
      assert.equal(restored.failed.length, 0);
      assert.equal(readFileSync(join(t.workspace, 'listed.ts'), 'utf8'), 'export const listed = 1;\n');
    } finally {
      t.dispose();
    }
  });

  it("a second window's pruning never removes the checkpoints of a session open in the first, until the first lets go of it or is gone", async () => {
    const t = setUp();
    try {
      writeFileSync(join(t.workspace, 'app.ts'), 'const port = 8080;\n');
      await t.turn('open-in-a', 'app.ts', 'const port = 9090;\n');
      const windowA = new SessionLeases(t.storage, 'windowA', () => t.clock.now);
      await windowA.hold('open-in-a');
      // Two days on, window A still open (its lease renewed as its timer does); window B's session list
      // does not have A's session yet, and B prunes with a cap A's session alone passes.
      t.clock.now += 2 * DAY;
      await windowA.renew();
      const windowB = new FileCheckpointStore(t.storage, DEFAULT_CHECKPOINT_LIMITS, () => t.clock.now);
      const pruneInB = () => windowB.prune({ liveSessions: new Set(['open-in-b']), keepSessions: new Set(['open-in-b']), maxBytes: 1 });
      assert.deepEqual((await pruneInB()).removedSessions, []);
      const plan = await planRestore(await windowB.load('open-in-a'), windowB);
      assert.deepEqual((await applyRestore(plan, windowB, nodeRestoreTarget)).restored, ['app.ts'], 'its checkpoint and bytes are all there');

      await windowA.release('open-in-a');
      assert.deepEqual((await pruneInB()).removedSessions, ['open-in-a'], 'once A closed it, it goes as any other');

      // A window killed without letting go: its lease expires.
      await t.turn('open-in-killed', 'app.ts', 'const port = 7070;\n');
      const killed = new SessionLeases(t.storage, 'windowK', () => t.clock.now);
      await killed.hold('open-in-killed');
      assert.deepEqual((await pruneInB()).removedSessions, [], 'kept while its lease is fresh');
      t.clock.now += LEASE_TTL_MS + 1000;
      assert.deepEqual((await pruneInB()).removedSessions, ['open-in-killed']);
      await windowA.dispose();
      await killed.dispose();
    } finally {
      t.dispose();
    }
  });
});
