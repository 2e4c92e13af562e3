import type { CommandSandboxState, DirectoryEntry, EntryKind, ExecOptions, ExecResult, ResolvedPath, SearchHit, Workspace } from '../ports/workspace';
import type { TurnCheckpointRecorder } from './turnRecorder';

/**
 * A workspace whose writes and commands are recorded by the turn's checkpoint recorder first, so
 * the turn's changes can be undone. Everything else is the wrapped workspace's.
 */
export class CheckpointingWorkspace implements Workspace {
  constructor(private readonly inner: Workspace, private readonly recorder: TurnCheckpointRecorder) {}

  get folders(): readonly string[] {
    return this.inner.folders;
  }

  get trusted(): boolean {
    return this.inner.trusted;
  }

  resolve(input: string, options: { mustExist: boolean }): Promise<ResolvedPath> {
    return this.inner.resolve(input, options);
  }

  kind(path: ResolvedPath): Promise<EntryKind | undefined> {
    return this.inner.kind(path);
  }

  readFile(path: ResolvedPath, maxBytes: number, options?: { savedOnly?: boolean }): Promise<{ bytes: Uint8Array; size: number; links: number }> {
    return this.inner.readFile(path, maxBytes, options);
  }

  list(absolute: string): Promise<DirectoryEntry[]> {
    return this.inner.list(absolute);
  }

  search(root: ResolvedPath, pattern: RegExp, options: { maxResults: number; untrusted: boolean; signal: AbortSignal }): Promise<SearchHit[]> {
    return this.inner.search(root, pattern, options);
  }

  async writeFile(input: string, path: ResolvedPath, text: string, basis: string | undefined): Promise<string | undefined> {
    await this.recorder.beforeWrite(path);
    try {
      return await this.inner.writeFile(input, path, text, basis);
    } finally {
      await this.recorder.afterWrite(path);
    }
  }

  exec(command: string, options: ExecOptions): Promise<ExecResult> {
    return this.recorder.aroundCommand(this.inner.folders, () => this.inner.exec(command, options));
  }

  commandSandbox(): Promise<CommandSandboxState> {
    return this.inner.commandSandbox();
  }

  allowSandboxNetwork(): void {
    this.inner.allowSandboxNetwork();
  }

  protectedReason(absolute: string): Promise<string | undefined> {
    return this.inner.protectedReason(absolute);
  }
}
