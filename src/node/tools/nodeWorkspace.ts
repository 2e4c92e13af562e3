import { promises as fsp } from 'fs';
import type { CommandSandboxState, DirectoryEntry, EntryKind, ExecOptions, ExecResult, ResolvedPath, SearchHit, Workspace } from '../../core/ports/workspace';
import type { WorkspaceInfo } from '../../core/tools/types';
import type { CommandSandbox } from '../sandbox/commandSandbox';
import { readOpened } from '../regularFile';
import { execShell } from './nodeExec';
import { readSmallFile, searchFiles } from './nodeSearch';
import { protectedPathReason } from './protectedPaths';
import { openResolvedForRead, resolveInWorkspace, writeResolved } from './workspacePaths';

const NO_SANDBOX: CommandSandboxState = { sandboxed: false, reason: 'this workspace runs commands without a sandbox', turnedOff: false };

/**
 * The workspace on disk: paths confined to the folders (links and `..` resolved, files swapped
 * in after the check refused), reads and writes through the file system, commands through /bin/sh
 * in the session's sandbox when it has one. Used by the command line, the replay and the tests;
 * VS Code's version reads and writes editors.
 */
export class NodeWorkspace implements Workspace {
  constructor(
    protected readonly info: WorkspaceInfo,
    private readonly sandbox?: CommandSandbox,
  ) {}

  get folders(): readonly string[] {
    return this.info.folders;
  }

  get trusted(): boolean {
    return this.info.trusted;
  }

  resolve(input: string, options: { mustExist: boolean }): Promise<ResolvedPath> {
    return resolveInWorkspace(input, this.info, options);
  }

  async kind(path: ResolvedPath): Promise<EntryKind | undefined> {
    const stat = await fsp.lstat(path.absolute).catch(() => undefined);
    if (!stat) return undefined;
    return stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : stat.isSymbolicLink() ? 'symlink' : 'other';
  }

  async readFile(path: ResolvedPath, maxBytes: number): Promise<{ bytes: Uint8Array; size: number; links: number }> {
    const { handle, stat } = await openResolvedForRead(path);
    try {
      // The link count of the very file read (from the open handle), so no swap can slip between.
      const { bytes, total } = await readOpened(handle, stat.size, maxBytes);
      return { bytes, size: total, links: stat.nlink };
    } finally {
      await handle.close();
    }
  }

  /** A file the search walk found; VS Code's version reads an unsaved editor's text instead. */
  protected readListed(absolute: string, maxBytes: number): Promise<Uint8Array | undefined> {
    return readSmallFile(absolute, maxBytes);
  }

  search(root: ResolvedPath, pattern: RegExp, options: { maxResults: number; untrusted: boolean; signal: AbortSignal }): Promise<SearchHit[]> {
    return searchFiles(root, pattern, { ...options, read: (path, maxBytes) => this.readListed(path, maxBytes) });
  }

  async list(absolute: string): Promise<DirectoryEntry[]> {
    const entries = await fsp.readdir(absolute, { withFileTypes: true }).catch(() => []);
    return entries
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((e) => ({ name: e.name, kind: e.isDirectory() ? 'directory' : e.isSymbolicLink() ? 'symlink' : e.isFile() ? 'file' : 'other' }));
  }

  async writeFile(input: string, path: ResolvedPath, text: string, _basis?: string): Promise<string | undefined> {
    await writeResolved(input, this.info, path, text);
    return undefined;
  }

  async exec(command: string, options: ExecOptions): Promise<ExecResult> {
    const sandboxed = options.outsideSandbox ? undefined : await this.sandbox?.spawn(command, options.cwd, this.info.folders);
    return execShell(command, options, sandboxed);
  }

  commandSandbox(): Promise<CommandSandboxState> {
    return this.sandbox ? this.sandbox.state(this.info.folders) : Promise.resolve(NO_SANDBOX);
  }

  allowSandboxNetwork(): void {
    this.sandbox?.allowNetwork();
  }

  protectedReason(absolute: string): Promise<string | undefined> {
    return protectedPathReason(absolute, this.info.folders);
  }
}
