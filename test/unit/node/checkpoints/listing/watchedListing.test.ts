import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { TrackedFolder } from '../../../../../src/node/checkpoints/listing/trackedFolder';
import { seededRandom } from '../../../../support/seededRandom';

const LIMITS = { maxFiles: 100_000, listBudgetMs: 60_000, watchedListBudgetMs: 60_000, maxWatchedFolders: 10_000 };

/** The files a fresh walk lists now, with what tells a change. */
async function walked(folder: string): Promise<string[]> {
  const fresh = new TrackedFolder(folder, LIMITS, undefined, undefined, Date.now, false);
  await fresh.refresh();
  return describe_(fresh);
}
const describe_ = (tracked: TrackedFolder) => [...tracked.files.values()].map((f) => `${f.relative} ${f.size} ${f.mtimeMs} ${f.ino}`).sort();

const NAMES = ['a', 'b', 'c', 'data', 'src', 'x.txt', 'y.log', 'z.ts'];

/** Every folder and file under `root` (relative), for picking what to change. */
function entries(root: string, at = ''): { folders: string[]; files: string[] } {
  const out = { folders: [at], files: [] as string[] };
  for (const entry of readdirSync(join(root, at), { withFileTypes: true })) {
    const path = at ? `${at}/${entry.name}` : entry.name;
    if (entry.name === '.gitignore' && !at) continue;
    if (entry.isDirectory()) {
      const inner = entries(root, path);
      out.folders.push(...inner.folders);
      out.files.push(...inner.files);
    } else out.files.push(path);
  }
  return out;
}

describe('checkpoint listing with a watcher: after every refresh it lists what a fresh walk lists', function () {
  this.timeout(180_000);
  before(function () {
    if (process.platform !== 'linux') this.skip();
  });

  it('through generated sequences of creates, edits, deletes, renames of files and folders, bursts from a child process and .gitignore changes', async () => {
    const base = Number(process.env.TALLY_SEED ?? Date.now() % 100_000);
    for (let run = 0; run < 12; run++) {
      const seed = base + run;
      const random = seededRandom(seed);
      const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-watched-')));
      const tracked = new TrackedFolder(root, LIMITS, undefined, undefined, Date.now, true);
      try {
        mkdirSync(join(root, 'src'));
        writeFileSync(join(root, 'src', 'x.txt'), 'x');
        await tracked.refresh();
        assert.equal(tracked.walkReason, undefined, 'the watcher is in use');
        for (let step = 0; step < 25; step++) {
          const ops = 1 + random.int(6);
          for (let i = 0; i < ops; i++) {
            const { folders, files } = entries(root);
            const folder = random.pick(folders);
            const target = join(root, folder, random.pick(NAMES));
            const what = random.int(9);
            try {
              if (what === 0) mkdirSync(target);
              else if (what <= 2) writeFileSync(target, 'v'.repeat(random.int(40)));
              else if (what === 3 && files.length) rmSync(join(root, random.pick(files)));
              else if (what === 4 && folders.length > 1) rmSync(join(root, random.pick(folders.slice(1))), { recursive: true });
              else if (what === 5 && files.length) renameSync(join(root, random.pick(files)), target);
              else if (what === 6 && folders.length > 1) {
                const moved = random.pick(folders.slice(1));
                if (!target.startsWith(join(root, moved) + '/')) renameSync(join(root, moved), target);
              } else if (what === 7) {
                // A command's burst: new nested folders filled at once, before any watch can be added on them.
                execFileSync('sh', ['-c', `mkdir -p "${target}/d1/d2" && for n in 1 2 3; do echo $n > "${target}/d1/d2/f$n"; echo $n > "${target}/d1/g$n"; done`], { stdio: 'ignore' });
              } else if (what === 8) writeFileSync(join(root, '.gitignore'), random.pick(['', 'y.log\n', 'data/\n', '/src\n', '*.ts\n!z.ts\n']));
            } catch {
              // the path is taken by a folder or a file: another step
            }
          }
          await tracked.refresh();
          assert.equal(tracked.walkReason, undefined, `the watcher stays in use (seed ${seed})`);
          assert.deepEqual(describe_(tracked), await walked(root), `seed ${seed}, step ${step} (TALLY_SEED=${base} reruns this test's cases)`);
        }
      } finally {
        tracked.close();
        if (existsSync(root)) rmSync(root, { recursive: true, force: true });
      }
    }
  });
});
