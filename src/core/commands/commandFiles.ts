/**
 * Which command files exist and which one a name runs. Three folders hold them, in this order of
 * precedence: the workspace's `.tally/commands/*.md`, the workspace's VS Code prompt files
 * `.github/prompts/*.prompt.md`, and the user's own `~/.tally/commands/*.md`. The workspace's two
 * are read only in a trusted workspace. A name the built-ins or MCP use is refused, and a name
 * two files claim runs the first by that order; the list says which one it overrides.
 */
import { parsePromptFile, PromptFileError, type PromptFile } from './promptFile';

export type CommandScope = 'workspace' | 'prompts' | 'user';

/** The folders to read, in order of precedence; `trusted`: the workspace is trusted. */
export function commandFolders(trusted: boolean): Array<{ scope: CommandScope; folder: string; suffix: string }> {
  const user = { scope: 'user' as const, folder: '~/.tally/commands', suffix: '.md' };
  if (!trusted) return [user];
  return [{ scope: 'workspace', folder: '.tally/commands', suffix: '.md' }, { scope: 'prompts', folder: '.github/prompts', suffix: '.prompt.md' }, user];
}

/** One file as the reader found it: its text, or why it could not be read. */
export interface CommandFileText {
  scope: CommandScope;
  /** Where it is, as the user knows it (`.tally/commands/review.md`, `~/.tally/commands/fix.md`). */
  path: string;
  /** The file's name without its folder. */
  fileName: string;
  text?: string;
  readError?: string;
}

export interface FileCommand {
  name: string;
  scope: CommandScope;
  path: string;
  /** The parsed file; absent when it could not be read or parsed (`error` says why). */
  file?: PromptFile;
  error?: string;
  /** The commands of the same name this one takes the place of, by path. */
  overrides: string[];
}

/** Names Tally's own commands use; a file cannot take them. */
export const BUILT_IN_COMMANDS: readonly string[] = ['compact'];

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A file's command name: its front matter `name`, else its file name without the folder's suffix. */
function nameOf(entry: CommandFileText, file: PromptFile | undefined, suffix: string): string {
  if (file?.name) return file.name.replace(/^\//, '');
  return entry.fileName.endsWith(suffix) ? entry.fileName.slice(0, -suffix.length) : entry.fileName;
}

/**
 * The commands `files` define, one per name. `files` come in any order; precedence is by scope
 * (workspace, prompt files, user), then by path. Files whose scope is not read here (the
 * workspace's, in an untrusted workspace) are ignored.
 */
export function commandsFromFiles(files: readonly CommandFileText[], trusted: boolean): FileCommand[] {
  const folders = commandFolders(trusted);
  const rank = (scope: CommandScope) => folders.findIndex((f) => f.scope === scope);
  const ordered = files.filter((f) => rank(f.scope) >= 0).sort((a, b) => rank(a.scope) - rank(b.scope) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const byName = new Map<string, FileCommand>();
  for (const entry of ordered) {
    const suffix = folders[rank(entry.scope)].suffix;
    if (!entry.fileName.endsWith(suffix)) continue;
    let file: PromptFile | undefined;
    let error = entry.readError ? `could not be read: ${entry.readError}` : undefined;
    if (!error && entry.text !== undefined) {
      try {
        file = parsePromptFile(entry.text);
      } catch (e) {
        if (!(e instanceof PromptFileError)) throw e;
        error = e.message;
      }
    }
    const name = nameOf(entry, file, suffix);
    if (!NAME.test(name)) error ??= `"${name}" is not a command name (letters, digits, - and _, up to 64)`;
    if (BUILT_IN_COMMANDS.includes(name)) error ??= `/${name} is built in; rename the file`;
    const known = byName.get(name);
    if (known) {
      known.overrides.push(entry.path);
      continue;
    }
    byName.set(name, { name, scope: entry.scope, path: entry.path, ...(file ? { file } : {}), ...(error ? { error } : {}), overrides: [] });
  }
  return [...byName.values()];
}
