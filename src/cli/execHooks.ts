import { join, resolve } from 'path';
import type { HookEntry } from '../core/hooks/hookConfig';
import { Hooks } from '../core/hooks/hooks';
import { readHooksFile } from '../node/hooks/hooksFile';
import { NodeHookProcess } from '../node/hooks/nodeHookProcess';
import type { CommandSandbox } from '../node/sandbox/commandSandbox';

/**
 * The hooks of one `tally exec` run: the user's ~/.tally/hooks.json and each `--hooks FILE`, all
 * the user's own (a repository's `.tally/hooks.json` is not read: nothing in it chooses what exec
 * runs). Problems are printed and the rest still runs; a `--hooks` file that is missing throws.
 */
export async function execHooks(options: { files: readonly string[]; home: string; folder: string; sessionId: () => string; sandbox: CommandSandbox; stderr(text: string): void }): Promise<Hooks | undefined> {
  const entries: HookEntry[] = [];
  const userFile = await readHooksFile(join(options.home, '.tally', 'hooks.json'), 'user');
  const named = await Promise.all(options.files.map(async (file) => ({ file, read: await readHooksFile(resolve(file), 'user') })));
  for (const { file, read } of named) if (!read.found) throw new Error(`--hooks ${file}: no such file`);
  for (const read of [userFile, ...named.map((n) => n.read)]) {
    for (const problem of read.problems) options.stderr(`tally: hooks: ${problem}\n`);
    entries.push(...read.hooks);
  }
  if (!entries.length) return undefined;
  return new Hooks({
    hooks: () => entries,
    trusted: () => true,
    process: new NodeHookProcess({ sandbox: { sandbox: options.sandbox, folders: () => [options.folder] } }),
    sessionId: options.sessionId,
    cwd: () => options.folder,
  });
}
