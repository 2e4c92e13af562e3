import { join } from 'path';
import * as vscode from 'vscode';
import { CheckpointingWorkspace } from '../core/checkpoints/checkpointingWorkspace';
import type { RestoreItem } from '../core/checkpoints/restore';
import { TurnCheckpointRecorder } from '../core/checkpoints/turnRecorder';
import type { Workspace } from '../core/ports/workspace';
import { readTurnFiles, type RewindPorts } from '../host/chat/rewindFlow';
import { FileCheckpointStore } from '../node/checkpoints/fileCheckpointStore';
import { SessionLeases } from '../node/checkpoints/sessionLeases';
import { insideFolders } from '../node/checkpoints/restoreConfinement';
import type { ChatTurnFiles } from '../protocol/chat';
import { CHECKPOINT_SCHEME, checkpointDiffUri, CheckpointDocuments } from './checkpointDocuments';
import { vscodeRestoreTarget } from './vscodeRestoreTarget';
import type { SessionActions } from '../host/sessionState/sessionActions';

/** Diffs opened at most for one restore: the confirmation lists every file. */
const MAX_DIFFS = 8;

/**
 * Checkpoints for the chat's turns in VS Code: records each turn's file changes (in the extension's
 * global storage, `checkpoints/`), tells the chat which turns changed files, and gives the restore
 * and rewind flows their editors, diffs and modals.
 */
export class SessionRewind implements vscode.Disposable {
  readonly store: FileCheckpointStore;
  readonly recorder: TurnCheckpointRecorder;
  /** The sessions this window has open, said in the storage so no window prunes their checkpoints. */
  private readonly leases: SessionLeases;
  private readonly documents: CheckpointDocuments;
  private readonly changedEmitter = new vscode.EventEmitter<void>();
  /** The chat asks for the turns' files on each refresh: read from storage once per change. */
  private turnFiles = new Map<string, Promise<ChatTurnFiles[]>>();
  private readonly disposables: vscode.Disposable[] = [];
  readonly onDidChange = this.changedEmitter.event;

  constructor(globalStorage: string, private readonly sessions: SessionActions, private readonly log: vscode.LogOutputChannel) {
    this.store = new FileCheckpointStore(join(globalStorage, 'checkpoints'));
    this.leases = new SessionLeases(join(globalStorage, 'checkpoints'), `w${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`);
    this.recorder = new TurnCheckpointRecorder(this.store, {
      onProblem: (message) => {
        log.warn(`checkpoints: ${message}`);
        void vscode.window.showWarningMessage(`Tally: ${message}`);
      },
    });
    this.documents = new CheckpointDocuments(this.store);
    this.disposables.push(
      this.documents,
      this.changedEmitter,
      sessions.onAgentEvent((event) => {
        const sessionId = sessions.active?.info.id;
        if (event.type === 'turn_start' && sessionId) {
          const messages = sessions.active?.contextSession.messages ?? [];
          let at = messages.length - 1;
          while (at >= 0 && messages[at].id !== event.userMessageId) at--;
          this.recorder.begin(sessionId, event.userMessageId, messages[at]?.createdAt);
          // While the model answers, the workspace's record is brought up to date: the turn's first command waits less.
          if (vscode.workspace.isTrusted) this.recorder.prepare((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath));
        }
        if (event.type === 'turn_end') void this.recorder.end().then(() => {
          this.changed();
          this.pruneOnce();
        });
      }),
      sessions.onDidChangeOpen(() => this.holdOpenSessions()),
      // What the user does in VS Code while a turn runs is not the agent's: a restore leaves it alone unless asked.
      vscode.workspace.onDidSaveTextDocument((doc) => this.noteUsers(doc.uri, 'saved in the editor while the turn ran')),
      vscode.workspace.onDidCreateFiles((e) => e.files.forEach((uri) => this.noteUsers(uri, 'created in VS Code while the turn ran'))),
      vscode.workspace.onDidDeleteFiles((e) => e.files.forEach((uri) => this.noteUsers(uri, 'deleted in VS Code while the turn ran'))),
      vscode.workspace.onDidRenameFiles((e) =>
        e.files.forEach(({ oldUri, newUri }) => {
          this.noteUsers(oldUri, 'renamed in VS Code while the turn ran');
          this.noteUsers(newUri, 'renamed in VS Code while the turn ran');
        }),
      ),
    );
    this.holdOpenSessions();
  }

  private noteUsers(uri: vscode.Uri, what: string): void {
    if (uri.scheme === 'file') this.recorder.noteOthersChange(uri.fsPath, what);
  }

  /** Leases the sessions this window shows (and the one its agent runs in), releasing the others. */
  private holdOpenSessions(): void {
    const ids = [...new Set([this.sessions.shown?.info.id, this.sessions.active?.info.id].filter((id): id is string => Boolean(id)))];
    void this.leases.holdOnly(ids).catch((error) => this.log.warn(`checkpoints: the open session's lease could not be written: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** The workspace the agent's tools use, its writes and commands recorded first. */
  wrap(workspace: Workspace): Workspace {
    return new CheckpointingWorkspace(workspace, this.recorder);
  }

  /** The turns of a session that changed files. */
  turnFilesOf(sessionId: string): Promise<ChatTurnFiles[]> {
    let files = this.turnFiles.get(sessionId);
    if (!files) {
      files = readTurnFiles(this.recorder.checkpoints(sessionId), async () => (await this.sessions.store()).listCompactionEvents(sessionId).catch(() => [])).catch(() => []);
      this.turnFiles.set(sessionId, files);
    }
    return files;
  }

  private pruned = false;

  /**
   * Keeps the checkpoint storage bounded, once per window, after its first turn (never on the way
   * to opening a session): deleted sessions' checkpoints go, then the oldest sessions' past the cap.
   */
  private pruneOnce(): void {
    if (this.pruned) return;
    this.pruned = true;
    void (async () => {
      const live = new Set((await (await this.sessions.store()).listSessions()).map((s) => s.id));
      const active = this.sessions.active?.info.id;
      const outcome = await this.store.prune({ liveSessions: live, keepSessions: new Set(active ? [active] : []) });
      if (outcome.removedSessions.length || outcome.removedContentFiles) {
        this.log.info(`checkpoints: removed ${outcome.removedSessions.length} session(s)' checkpoints and ${outcome.removedContentFiles} stored file(s); ${Math.round(outcome.keptBytes / 1024)} KB kept`);
        this.changed();
      }
    })().catch((error) => this.log.warn(`checkpoints: pruning the storage failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  private changed(): void {
    this.turnFiles = new Map();
    this.changedEmitter.fire();
  }

  /** What the restore and rewind flows reach; `ui`: the modal and the composer (the chat's, or a test's). */
  ports(ui: Pick<RewindPorts, 'askModal' | 'editText'>): RewindPorts {
    return {
      ...ui,
      blocked: () => (this.sessions.active?.agent?.busy ? 'Wait for the current turn to finish, or stop it, before rewinding or restoring files.' : undefined),
      session: async () => (await this.sessions.current()).contextSession,
      checkpoints: (sessionId) => this.recorder.checkpoints(sessionId),
      files: this.store,
      target: vscodeRestoreTarget(() => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath)),
      insideWorkspace: (absolute) => insideFolders((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath), absolute),
      unsaved: (absolute) => vscode.workspace.textDocuments.some((d) => d.uri.scheme === 'file' && d.uri.fsPath === absolute && d.isDirty),
      showDiffs: (items) => this.showDiffs(items),
      closeDiffs: async () => {
        const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === CHECKPOINT_SCHEME);
        if (tabs.length) await vscode.window.tabGroups.close(tabs);
      },
      inform: (message) => void vscode.window.showInformationMessage(`Tally: ${message}`),
      warn: (message) => {
        this.log.warn(`restore: ${message}`);
        void vscode.window.showWarningMessage(`Tally: ${message}`);
      },
      changed: () => this.changed(),
      rewound: () => this.sessions.forgetEndedTurn(),
    };
  }

  /** A diff per file: the file now on the left, what the restore would make it on the right. */
  private async showDiffs(items: readonly RestoreItem[]): Promise<void> {
    for (const item of items.slice(0, MAX_DIFFS)) {
      const now = vscode.Uri.file(item.absolute);
      const exists = await vscode.workspace.fs.stat(now).then(() => true, () => false);
      const left = exists ? now : checkpointDiffUri(undefined, item.relative);
      const right = checkpointDiffUri(item.target.kind === 'stored' ? item.target.hash : undefined, item.relative);
      const what = item.action === 'delete' ? 'deleted by the restore' : exists ? 'now ↔ restored' : 'restored (gone now)';
      await vscode.commands.executeCommand('vscode.diff', left, right, `${item.relative} (${what})`, { preview: false, preserveFocus: true });
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.store.dispose();
    void this.leases.dispose();
  }
}
