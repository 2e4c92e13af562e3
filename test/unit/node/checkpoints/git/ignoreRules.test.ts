import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { GitRepository } from '../../../../../src/node/checkpoints/git/gitRepository';
import { TrackedFolder } from '../../../../../src/node/checkpoints/listing/trackedFolder';
import { seededRandom } from '../../../../support/seededRandom';

const LIMITS = { maxFiles: 100_000, listBudgetMs: 60_000, watchedListBudgetMs: 60_000, maxWatchedFolders: 10_000 };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });

async function listed(folder: string): Promise<string[]> {
  const tracked = new TrackedFolder(folder, LIMITS, GitRepository.find(folder), undefined, Date.now, false);
  await tracked.refresh();
  tracked.close();
  return [...tracked.files.values()].map((f) => f.relative).sort();
}

/** What git itself lists: every file it neither tracks nor ignores (nothing is tracked here). */
const gitListed = (folder: string) => git(folder, 'ls-files', '--others', '--exclude-standard').split('\n').filter(Boolean).sort();

const FOLDERS = ['src', 'data', 'build', 'lib', 'a', 'b', 'sub', 'logs'];
const FILES = ['x.txt', 'y.log', 'data', 'z.ts', 'README.md', '.env', 'a.o', 'keep.log', 'b', 'build'];
const PATTERNS = [
  'data', '/data', 'data/', '*.log', '!keep.log', 'build/', '/src/data', 'src/**/x.txt', '**/b', 'a/*.ts', '*.o', '!*.ts', '[ab]', '?.txt',
  '.env', 'lib/**', '# a comment', 'x.txt   ', 'sub/', '/*.md', 'logs/*', '!logs/y.log', '**/sub/**', '[!a]*.ts', 'src/', '*', '!src/', '!*/', 'b/**/z.ts',
];

describe('checkpoint listing: ignore rules apply as git applies them', function () {
  this.timeout(120_000);

  it('an anchored pattern of the root .gitignore (/data) skips only the root folder, not src/data', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-ignore-')));
    try {
      mkdirSync(join(root, 'data'));
      mkdirSync(join(root, 'src', 'data'), { recursive: true });
      writeFileSync(join(root, 'data', 'cache.bin'), 'x');
      writeFileSync(join(root, 'src', 'data', 'table.json'), '{}');
      writeFileSync(join(root, '.gitignore'), '/data\n');
      assert.deepEqual(await listed(root), ['.gitignore', 'src/data/table.json']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('lists what `git ls-files --others --exclude-standard` lists, on generated trees and ignore files (nested ones and info/exclude)', async () => {
    const base = Number(process.env.TALLY_SEED ?? Date.now() % 100_000);
    for (let run = 0; run < 25; run++) {
      const seed = base + run;
      const random = seededRandom(seed);
      const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-ignore-')));
      try {
        git(root, 'init', '-q');
        const folders = [''];
        for (let i = 0; i < 8; i++) {
          const parent = random.pick(folders);
          if (parent.split('/').length >= 3) continue;
          const folder = parent ? `${parent}/${random.pick(FOLDERS)}` : random.pick(FOLDERS);
          if (folders.includes(folder)) continue;
          mkdirSync(join(root, folder), { recursive: true });
          folders.push(folder);
        }
        for (let i = 0; i < 20; i++) {
          const folder = random.pick(folders);
          const path = join(root, folder, random.pick(FILES));
          try {
            writeFileSync(path, `${i}\n`);
          } catch {
            // a folder of that name is there
          }
        }
        const rules = (n: number) => Array.from({ length: n }, () => random.pick(PATTERNS)).join('\n') + '\n';
        writeFileSync(join(root, '.gitignore'), rules(1 + random.int(4)));
        for (const folder of folders.slice(1)) if (random.int(3) === 0) writeFileSync(join(root, folder, '.gitignore'), rules(1 + random.int(3)));
        if (random.int(2)) writeFileSync(join(root, '.git', 'info', 'exclude'), rules(1 + random.int(2)));
        assert.deepEqual(await listed(root), gitListed(root), `seed ${seed} (TALLY_SEED=${base} reruns this test's cases)`);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }
  });
});
