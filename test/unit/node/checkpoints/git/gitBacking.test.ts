import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { agentsChangesOnly, applyRestore, planRestore } from '../../../../../src/core/checkpoints/restore';
import { TurnCheckpointRecorder } from '../../../../../src/core/checkpoints/turnRecorder';
import { FileCheckpointStore } from '../../../../../src/node/checkpoints/fileCheckpointStore';
import { indexVouchesFor, readGitIndex } from '../../../../../src/node/checkpoints/git/gitIndex';
import { GitObjects } from '../../../../../src/node/checkpoints/git/gitObjects';
import { GitRepository } from '../../../../../src/node/checkpoints/git/gitRepository';
import { nodeRestoreTarget } from '../../../../../src/node/checkpoints/nodeRestoreTarget';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'core.autocrlf=false', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });

const SECRET = 'API_KEY=sk-the-users-secret-0123456789';

/** Every file under the checkpoint storage, with its bytes. */
function storedFiles(storage: string): Array<{ path: string; text: string }> {
  if (!existsSync(storage)) return [];
  const out: Array<{ path: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push({ path, text: readFileSync(path, 'latin1') });
    }
  };
  walk(storage);
  return out;
}
const contentFiles = (storage: string) => storedFiles(join(storage, 'content'));

function setUp(options: { git: boolean; maxHeldBytes?: number }) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-git-backing-')));
  const workspace = join(root, 'workspace');
  const storage = join(root, 'storage');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  for (let i = 0; i < 200; i++) writeFileSync(join(workspace, 'src', `f${i}.ts`), `export const f${i} = ${i};\n${'// padding\n'.repeat(i % 7)}`);
  if (options.git) {
    git(workspace, 'init', '-q');
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-q', '-m', 'files');
  }
  // Not tracked and not ignored: the worst case for a secret.
  writeFileSync(join(workspace, '.env'), `${SECRET}\n`);
  const store = new FileCheckpointStore(storage, {}, Date.now, options.maxHeldBytes === undefined ? undefined : { maxHeldBytes: options.maxHeldBytes });
  const recorder = new TurnCheckpointRecorder(store);
  return {
    root, workspace, storage, store, recorder,
    dispose: () => {
      store.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

describe('checkpoints in a git repository: tracked files come from git, only named bytes are stored', function () {
  this.timeout(120_000);

  for (const maxHeldBytes of [undefined, 0]) {
    it(`a command that changes nothing stores no file's bytes, a .env secret included (memory bound ${maxHeldBytes ?? 'default'})`, async () => {
      const t = setUp({ git: false, maxHeldBytes });
      try {
        t.recorder.begin('s1', 'u1');
        await t.recorder.aroundCommand([t.workspace], async () => 'hello');
        assert.deepEqual((await t.recorder.end())?.files ?? [], [], 'no file changed');
        t.store.dispose();
        assert.deepEqual(contentFiles(t.storage), [], 'no content file');
        assert.deepEqual(storedFiles(t.storage).filter((f) => f.text.includes(SECRET)).map((f) => f.path), [], 'the secret is nowhere in the storage');
      } finally {
        t.dispose();
      }
    });
  }

  for (const packed of [false, true]) {
    it(`reads no tracked file before a command, and restores the tracked files it changed from git's ${packed ? 'packs (deltas)' : 'loose objects'}`, async () => {
      const t = setUp({ git: true });
      try {
        if (packed) {
          // Versions of one file, so the packs hold deltas.
          for (let v = 0; v < 5; v++) {
            writeFileSync(join(t.workspace, 'src', 'f7.ts'), `export const f7 = ${v};\n${'// a long shared line of the file\n'.repeat(50)}`);
            git(t.workspace, 'commit', '-q', '-am', `v${v}`);
          }
          git(t.workspace, 'gc', '-q', '--aggressive');
          assert.equal(existsSync(join(t.workspace, '.git', 'objects', 'pack')), true);
        }
        const f7 = readFileSync(join(t.workspace, 'src', 'f7.ts'));
        const f8 = readFileSync(join(t.workspace, 'src', 'f8.ts'));
        t.recorder.begin('s1', 'u1');
        await t.recorder.aroundCommand([t.workspace], async () => {
          writeFileSync(join(t.workspace, 'src', 'f7.ts'), 'rewritten by the command\n');
          rmSync(join(t.workspace, 'src', 'f8.ts'));
        });
        assert.equal(t.store.work.filesRead, 1 + 1, 'before the command: .env (not tracked) alone; after it: f7 hashed');
        assert.equal(t.store.work.blobsRead, 2, "f7's and f8's bytes before, from git's objects");
        const checkpoint = (await t.recorder.end())!;
        assert.deepEqual(checkpoint.files.map((f) => [f.relative, f.before.kind]).sort(), [['src/f7.ts', 'stored'], ['src/f8.ts', 'stored']]);
        assert.deepEqual(contentFiles(t.storage).map((f) => f.text).sort(), [f7.toString('latin1'), f8.toString('latin1')].sort(), 'exactly the bytes the checkpoint names');
        assert.deepEqual(storedFiles(t.storage).filter((f) => f.text.includes(SECRET)), []);
        const outcome = await applyRestore(agentsChangesOnly(await planRestore([checkpoint], t.store)), t.store, nodeRestoreTarget);
        assert.deepEqual(outcome.restored.sort(), ['src/f7.ts', 'src/f8.ts']);
        assert.deepEqual(readFileSync(join(t.workspace, 'src', 'f7.ts')), f7);
        assert.deepEqual(readFileSync(join(t.workspace, 'src', 'f8.ts')), f8);
      } finally {
        t.dispose();
      }
    });
  }

  it('a file git converts on checkout (eol=crlf) is read before a command, not taken from git, and restored with its own bytes', async () => {
    const t = setUp({ git: true });
    try {
      writeFileSync(join(t.workspace, '.gitattributes'), '*.bat eol=crlf\n');
      writeFileSync(join(t.workspace, 'run.bat'), 'echo one\necho two\n');
      git(t.workspace, 'add', '-A');
      git(t.workspace, 'commit', '-q', '-m', 'bat');
      rmSync(join(t.workspace, 'run.bat'));
      git(t.workspace, 'checkout', '--', 'run.bat');
      const checkedOut = readFileSync(join(t.workspace, 'run.bat'), 'utf8');
      assert.equal(checkedOut, 'echo one\r\necho two\r\n', 'git wrote CRLF');
      const repository = GitRepository.find(t.workspace)!;
      repository.refresh();
      const stat = statSync(join(t.workspace, 'run.bat'));
      assert.equal(repository.blobFor(join(t.workspace, 'run.bat'), stat), undefined, 'its blob is not its bytes');
      assert.ok(repository.blobFor(join(t.workspace, 'src', 'f1.ts'), statSync(join(t.workspace, 'src', 'f1.ts'))), 'a plain tracked file is vouched for');
      t.recorder.begin('s1', 'u1');
      await t.recorder.aroundCommand([t.workspace], async () => writeFileSync(join(t.workspace, 'run.bat'), 'echo changed\r\n'));
      const checkpoint = (await t.recorder.end())!;
      await applyRestore(await planRestore([checkpoint], t.store), t.store, nodeRestoreTarget);
      assert.equal(readFileSync(join(t.workspace, 'run.bat'), 'utf8'), checkedOut);
    } finally {
      t.dispose();
    }
  });

  it('the index vouches for a file only while its stat is what git recorded and it is older than the index (git\'s racy case)', () => {
    const t = setUp({ git: true });
    try {
      const index = readGitIndex(join(t.workspace, '.git', 'index'));
      const path = join(t.workspace, 'src', 'f3.ts');
      const entry = index.entries.get('src/f3.ts')!;
      const stat = statSync(path);
      assert.equal(indexVouchesFor(entry, index, stat), stat.mtimeMs < index.writtenAtMs);
      const old = { size: stat.size, mtimeMs: index.writtenAtMs - 5000, ctimeMs: index.writtenAtMs - 5000, ino: stat.ino };
      const recorded = { ...entry, mtimeSec: Math.floor(old.mtimeMs / 1000), mtimeNsec: Math.round((old.mtimeMs % 1000) * 1e6), ctimeSec: Math.floor(old.ctimeMs / 1000), ctimeNsec: Math.round((old.ctimeMs % 1000) * 1e6) };
      assert.equal(indexVouchesFor(recorded, index, old), true);
      assert.equal(indexVouchesFor(recorded, index, { ...old, size: old.size + 1 }), false, 'size moved');
      assert.equal(indexVouchesFor(recorded, index, { ...old, mtimeMs: old.mtimeMs + 1 }), false, 'time moved');
      assert.equal(indexVouchesFor(recorded, index, { ...old, ino: old.ino + 1 }), false, 'another file');
      const racy = { ...old, mtimeMs: index.writtenAtMs, ctimeMs: index.writtenAtMs };
      const racyEntry = { ...recorded, mtimeSec: Math.floor(racy.mtimeMs / 1000), mtimeNsec: Math.round((racy.mtimeMs % 1000) * 1e6), ctimeSec: Math.floor(racy.ctimeMs / 1000), ctimeNsec: Math.round((racy.ctimeMs % 1000) * 1e6) };
      assert.equal(indexVouchesFor(racyEntry, index, racy), false, 'changed in the index\'s own clock step');
    } finally {
      t.dispose();
    }
  });

  it('reads every version of a file back from packs with deltas, each checked against its id, as `git cat-file` gives it', () => {
    const t = setUp({ git: true });
    try {
      const ids: string[] = [];
      for (let v = 0; v < 12; v++) {
        writeFileSync(join(t.workspace, 'src', 'f1.ts'), `${'shared line\n'.repeat(40 + v)}version ${v}\n${'tail\n'.repeat(v * 3)}`);
        git(t.workspace, 'commit', '-q', '-am', `v${v}`);
        ids.push(git(t.workspace, 'rev-parse', 'HEAD:src/f1.ts').trim());
      }
      git(t.workspace, 'gc', '-q', '--aggressive');
      const objects = new GitObjects([join(t.workspace, '.git', 'objects')]);
      for (const id of ids) assert.equal(objects.readBlob(id).toString('latin1'), git(t.workspace, 'cat-file', 'blob', id), id);
      assert.throws(() => objects.readBlob('0'.repeat(40)), /not in the repository's objects/);
      assert.throws(() => objects.readBlob(git(t.workspace, 'rev-parse', 'HEAD').trim()), /is a commit, not a file's bytes/);
    } finally {
      t.dispose();
    }
  });
});
