import { promises as fsp } from 'fs';
import { dirname, join, relative, resolve, sep } from 'path';
import { settingsPaths } from '../../core/tools/settingsPaths';
import { isInside } from '../insideFolder';

/** Package manager settings that can name a file to run: yarn's `yarnPath` and plugins, `--require` in Node options, a script shell. */
const SETTINGS_FILES = ['.npmrc', 'pnpm-workspace.yaml', '.yarnrc', '.yarnrc.yml', '.env.yarn'];
const MAX_SETTINGS_BYTES = 1024 * 1024;
/** What node loads for `--require PATH` besides PATH itself: PATH with an extension, or a folder's entry points. */
const NODE_COMPLETIONS = ['.js', '.cjs', '.mjs', '.json', '.node', ...['package.json', 'index.js', 'index.cjs', 'index.mjs', 'index.json', 'index.node'].map((entry) => `/${entry}`)];

async function smallText(path: string): Promise<string | undefined> {
  const stat = await fsp.stat(path).catch(() => undefined);
  if (!stat?.isFile() || stat.size > MAX_SETTINGS_BYTES) return undefined;
  return fsp.readFile(path, 'utf8').catch(() => undefined);
}

/**
 * Why writing `absolute` changes code a package manager runs although its name says nothing: a
 * settings file in its folder or a folder above it (up to the workspace folder) names it, as a
 * path from that settings file's folder or from a package folder between them (where node's
 * `--require ./setup.cjs` is read when a script runs there), or names what node completes it to
 * (`./setup` is `./setup.js`, a folder its `index.js`). Undefined when none does.
 */
export async function namedByPackageSettings(absolute: string, folder: string): Promise<string | undefined> {
  const target = resolve(absolute);
  const dirs: string[] = [];
  for (let dir = dirname(target); isInside(folder, dir); dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === folder || dirname(dir) === dir) break;
  }
  for (const [i, dir] of dirs.entries()) {
    for (const name of SETTINGS_FILES) {
      const text = await smallText(join(dir, name));
      if (text === undefined) continue;
      const named = settingsPaths(text);
      if ('reason' in named) continue;
      // The settings file's folder and every folder between it and the target can be where the path is read from.
      for (const base of dirs.slice(0, i + 1)) {
        if (named.relative.some((path) => [path, ...NODE_COMPLETIONS.map((more) => `${path}${more}`)].some((candidate) => resolve(base, candidate) === target))) {
          return `${relative(folder, target).split(sep).join('/')} is named in ${relative(folder, join(dir, name)).split(sep).join('/')}, whose package manager runs or loads it`;
        }
      }
    }
  }
  return undefined;
}
