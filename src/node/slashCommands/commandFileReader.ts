/** Reads command files from disk: the workspace's folders and the user's own (`~/.tally/commands`, injectable for tests). */
import { lstat, readdir, readFile } from 'fs/promises';
import { homedir } from 'os';
import { join } from 'path';
import type { CommandFileText } from '../../core/commands/commandFiles';
import { commandFolders } from '../../core/commands/commandFiles';
import type { CommandFileReader } from '../../core/commands/commandCatalog';

/** A command file larger than this is listed with an error, not read. */
export const MAX_COMMAND_FILE_BYTES = 256 * 1024;

export interface CommandFolderOptions {
  /** The workspace's root folder; absent when no folder is open. */
  workspace?: string;
  /** The user's commands folder; default `~/.tally/commands`. */
  userFolder?: string;
}

export class NodeCommandFileReader implements CommandFileReader {
  constructor(private readonly options: () => CommandFolderOptions) {}

  async read(trusted: boolean): Promise<CommandFileText[]> {
    const { workspace, userFolder = join(homedir(), '.tally', 'commands') } = this.options();
    const out: CommandFileText[] = [];
    for (const f of commandFolders(trusted)) {
      const folder = f.scope === 'user' ? userFolder : workspace ? join(workspace, f.folder) : undefined;
      if (!folder) continue;
      let names: string[];
      try {
        names = (await readdir(folder)).filter((n) => n.endsWith(f.suffix)).sort();
      } catch {
        continue; // No such folder: no commands there.
      }
      for (const fileName of names) out.push(await readOne(join(folder, fileName), { scope: f.scope, path: `${f.folder}/${fileName}`, fileName }));
    }
    return out;
  }
}

async function readOne(file: string, entry: Omit<CommandFileText, 'text' | 'readError'>): Promise<CommandFileText> {
  try {
    // A link could point anywhere (a key in the home folder): only a file itself is read.
    const info = await lstat(file);
    if (info.isSymbolicLink()) return { ...entry, readError: 'it is a symbolic link; only a regular file is read' };
    if (!info.isFile()) return { ...entry, readError: 'it is not a file' };
    if (info.size > MAX_COMMAND_FILE_BYTES) return { ...entry, readError: `it is larger than ${MAX_COMMAND_FILE_BYTES / 1024} KB` };
    return { ...entry, text: await readFile(file, 'utf8') };
  } catch (error) {
    return { ...entry, readError: error instanceof Error ? error.message : String(error) };
  }
}
