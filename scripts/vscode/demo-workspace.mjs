// The demo workspace `npm start` opens: a copy of media/demo-workspace kept outside the clone (by
// default in the user's cache folder), with a git repository of its own, so VS Code never finds
// Tally's own repository in its parent folders and asks about it. An existing copy is reused as
// it is: what the agent changed in it stays. Prints the folder when run as a script.
import { spawnSync } from 'child_process';
import { cpSync, existsSync } from 'fs';
import { homedir, tmpdir } from 'os';
import { join, relative, resolve, isAbsolute } from 'path';
import { fileURLToPath, pathToFileURL } from 'url';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

const inside = (folder, path) => {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** Where the demo workspace goes: TALLY_DEMO_WORKSPACE, else the user's cache folder; never inside the clone. */
export function demoWorkspaceFolder(env = process.env, repo = REPO) {
  const cache = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const chosen = resolve(env.TALLY_DEMO_WORKSPACE || join(cache, 'tally', 'demo-workspace'));
  return inside(repo, chosen) ? join(tmpdir(), 'tally-demo-workspace') : chosen;
}

/** Copies the demo files to `target` (unless already there) and gives it its own git repository with a first commit. */
export function prepareDemoWorkspace(target = demoWorkspaceFolder(), repo = REPO) {
  if (!existsSync(target)) cpSync(join(repo, 'media', 'demo-workspace'), target, { recursive: true });
  if (!existsSync(join(target, '.git'))) {
    const git = (...args) => spawnSync('git', args, { cwd: target, stdio: 'ignore' });
    if (git('init', '-q').status === 0) {
      git('add', '-A');
      git('-c', 'user.name=Tally demo', '-c', 'user.email=demo@tally.invalid', 'commit', '-q', '-m', 'Tally demo workspace');
    }
  }
  return target;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(prepareDemoWorkspace());
