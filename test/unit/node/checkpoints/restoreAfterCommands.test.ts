import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { applyRestore, planRestore } from '../../../../src/core/checkpoints/restore';
import { TurnCheckpointRecorder } from '../../../../src/core/checkpoints/turnRecorder';
import { FileCheckpointStore } from '../../../../src/node/checkpoints/fileCheckpointStore';
import { nodeRestoreTarget } from '../../../../src/node/checkpoints/nodeRestoreTarget';
import { seededRandom } from '../../../support/seededRandom';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });

/** Every file under `root` but .git, with its bytes. */
function snapshot(root: string, at = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(join(root, at), { withFileTypes: true })) {
    const path = at ? `${at}/${entry.name}` : entry.name;
    if (entry.name === '.git') continue;
    if (entry.isDirectory()) Object.assign(out, snapshot(root, path));
    else out[path] = readFileSync(join(root, path), 'latin1');
  }
  return out;
}

/** Files and folders are named apart: a file replaced by a folder of its name is not restored (folders are not removed). */
const FILE_NAMES = ['a', 'b', 'x.txt', 'y.md', 'z.ts'];
const FOLDER_NAMES = ['src', 'lib', 'docs'];

/** Random changes as a command makes them: writes, removals, renames, new nested folders, from this process and from a shell. */
function randomChanges(root: string, random: ReturnType<typeof seededRandom>, count: number): void {
  for (let i = 0; i < count; i++) {
    const all = Object.keys(snapshot(root));
    const folders = ['', ...new Set(all.map((p) => p.split('/').slice(0, -1).join('/')).filter(Boolean))];
    const folder = random.pick(folders);
    const target = join(root, folder, random.pick(FILE_NAMES));
    try {
      const what = random.int(6);
      if (what <= 1) writeFileSync(target, `${random.int(1000)} `.repeat(random.int(30)));
      else if (what === 2 && all.length) rmSync(join(root, random.pick(all)));
      else if (what === 3 && all.length) renameSync(join(root, random.pick(all)), target);
      else if (what === 4) {
        const made = join(root, folder, random.pick(FOLDER_NAMES));
        execFileSync('sh', ['-c', `mkdir -p "${made}/docs" && echo one > "${made}/docs/a" && echo two > "${made}/b"`], { stdio: 'ignore' });
      }
      else if (what === 5 && folders.length > 1) rmSync(join(root, random.pick(folders.slice(1))), { recursive: true });
    } catch {
      // the path is taken: another change
    }
  }
}

describe('checkpoints: restoring after commands gives back exactly the files as they were', function () {
  this.timeout(300_000);

  for (const mode of [...(process.platform === 'linux' ? ['watcher' as const] : []), 'walk' as const]) {
    for (const inGit of [false, true]) {
      it(`generated turns of commands, ${mode === 'watcher' ? 'told by a watcher' : 'found by walking'}, ${inGit ? 'in a git repository' : 'in a plain folder'}`, async () => {
        const base = Number(process.env.TALLY_SEED ?? Date.now() % 100_000);
        for (let run = 0; run < 6; run++) {
          const seed = base + run;
          const random = seededRandom(seed);
          const root = realpathSync(mkdtempSync(join(tmpdir(), 'tally-restore-commands-')));
          const workspace = join(root, 'workspace');
          mkdirSync(workspace);
          const store = new FileCheckpointStore(join(root, 'storage'), { useWatcher: mode === 'watcher' });
          try {
            randomChanges(workspace, random, 12);
            if (inGit) {
              git(workspace, 'init', '-q');
              git(workspace, 'add', '-A');
              git(workspace, 'commit', '-q', '--allow-empty', '-m', 'start');
              randomChanges(workspace, random, 3); // some files changed since the commit, some not tracked
            }
            const recorder = new TurnCheckpointRecorder(store);
            const states: Array<Record<string, string>> = [];
            for (let turn = 0; turn < 3; turn++) {
              states.push(snapshot(workspace));
              recorder.begin('s1', `u${turn}`);
              for (let command = 0; command < 1 + random.int(3); command++) await recorder.aroundCommand([workspace], async () => randomChanges(workspace, random, 1 + random.int(5)));
              await recorder.end();
            }
            // Back to before a turn, in one restore (that turn's changes and every later one's undone).
            const turn = random.int(3);
            const since = (await recorder.checkpoints('s1')).filter((c) => Number(c.userMessageId.slice(1)) >= turn);
            const plan = await planRestore(since, store);
            assert.deepEqual(plan.items.filter((i) => i.action === 'unrestorable' || i.notTheAgents).map((i) => [i.relative, i.reason ?? i.notTheAgents]), [], `seed ${seed}: everything is the agent's and restorable`);
            const outcome = await applyRestore(plan, store, nodeRestoreTarget);
            assert.deepEqual(outcome.failed, [], `seed ${seed}`);
            // Folders a restore emptied stay; compare files only.
            assert.deepEqual(snapshot(workspace), states[turn], `seed ${seed}: the files as they were before turn ${turn} (TALLY_SEED=${base} reruns this test's cases)`);
          } finally {
            store.dispose();
            if (existsSync(root)) rmSync(root, { recursive: true, force: true });
          }
        }
      });
    }
  }
});
