/** Reads command files from disk: the workspace's folders and the user's own (`~/.tally/commands`, injectable for tests). */
import type { BigIntStats } from 'fs';
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

/** The file system calls the reader makes (tests count them). */
export interface CommandFileSystem {
  readdir(folder: string): Promise<string[]>;
  lstat(file: string): Promise<BigIntStats>;
  readFile(file: string): Promise<string>;
}

const NODE_FILES: CommandFileSystem = {
  readdir: (folder) => readdir(folder),
  lstat: (file) => lstat(file, { bigint: true }),
  readFile: (file) => readFile(file, 'utf8'),
};

/** What a file was when its text was read: a file whose identity, size and times are unchanged is not read again. */
function versionOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/**
 * Reads every command file each time it is asked (an edit shows at once), all files at once rather
 * one after another, and the text of a file only when it changed since the last read: the `/` list
 * and every message that runs a command read the folders again, and with hundreds of prompt files
 * reading them one by one made the user wait.
 */
export class NodeCommandFileReader implements CommandFileReader {
  private texts = new Map<string, { version: string; text: string }>();

  constructor(
    private readonly options: () => CommandFolderOptions,
    private readonly files: CommandFileSystem = NODE_FILES,
  ) {}

  async read(trusted: boolean): Promise<CommandFileText[]> {
    const { workspace, userFolder = join(homedir(), '.tally', 'commands') } = this.options();
    const kept = new Map<string, { version: string; text: string }>();
    const folders = await Promise.all(
      commandFolders(trusted).map(async (f) => {
        const folder = f.scope === 'user' ? userFolder : workspace ? join(workspace, f.folder) : undefined;
        if (!folder) return [];
        let names: string[];
        try {
          names = (await this.files.readdir(folder)).filter((n) => n.endsWith(f.suffix)).sort();
        } catch {
          return []; // No such folder: no commands there.
        }
        return Promise.all(names.map((fileName) => this.readOne(join(folder, fileName), { scope: f.scope, path: `${f.folder}/${fileName}`, fileName }, kept)));
      }),
    );
    this.texts = kept;
    return folders.flat();
  }

  private async readOne(file: string, entry: Omit<CommandFileText, 'text' | 'readError'>, kept: Map<string, { version: string; text: string }>): Promise<CommandFileText> {
    try {
      // A link could point anywhere (a key in the home folder): only a file itself is read.
      const info = await this.files.lstat(file);
      if (info.isSymbolicLink()) return { ...entry, readError: 'it is a symbolic link; only a regular file is read' };
      if (!info.isFile()) return { ...entry, readError: 'it is not a file' };
      if (info.size > BigInt(MAX_COMMAND_FILE_BYTES)) return { ...entry, readError: `it is larger than ${MAX_COMMAND_FILE_BYTES / 1024} KB` };
      const version = versionOf(info);
      const known = this.texts.get(file);
      const text = known?.version === version ? known.text : await this.files.readFile(file);
      kept.set(file, { version, text });
      return { ...entry, text };
    } catch (error) {
      return { ...entry, readError: error instanceof Error ? error.message : String(error) };
    }
  }
}
