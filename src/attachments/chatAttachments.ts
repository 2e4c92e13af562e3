import * as vscode from 'vscode';
import { AttachmentDraft, type DraftSession } from '../host/chat/attachmentDraft';
import type { AttachmentIntentDeps } from '../host/chat/attachmentIntents';
import { chatMeter } from '../host/figures/turnFigures';
import type { AttachTarget, ChatAttachmentView } from '../protocol/attachments';
import type { HostToChat } from '../protocol/chat';
import type { SessionActions } from '../host/sessionState/sessionActions';
import { TerminalOutputs } from './terminalOutputs';
import type { ResourceAttachments } from '../core/mcp/resourceSource';
import type { WebAccess } from '../core/ports/webAccess';
import { WorkspaceAttachments } from './workspaceAttachments';

/**
 * The chat's attachments in this window: one draft (the chips above the input) that the composer,
 * the commands and drops all add to, read from the workspace, editors, problems, git and terminals.
 */
/** Where an attachment's text opens: a read-only document (the views' ReadOnlyDocuments). */
export interface AttachmentViewer {
  open(key: readonly string[], title: string, content: string): Promise<unknown>;
}

export class ChatAttachments implements vscode.Disposable {
  readonly terminals = new TerminalOutputs();
  readonly draft: AttachmentDraft;
  /** The chat view's way to the webview, once it is open. */
  post?: (message: HostToChat) => void;

  constructor(
    private readonly sessions: SessionActions,
    private readonly docs: AttachmentViewer,
    resources?: ResourceAttachments,
    web?: WebAccess,
  ) {
    this.draft = new AttachmentDraft(new WorkspaceAttachments(this.terminals, resources, web));
  }

  /** The open session as the draft reads it. */
  async session(): Promise<DraftSession & { canSend: boolean }> {
    const session = await this.sessions.current();
    const store = await this.sessions.store();
    const { contextSession, state } = session;
    return {
      sessionId: contextSession.sessionId,
      settings: contextSession.settings,
      messages: contextSession.messages,
      count: contextSession.count,
      store,
      figures: () => chatMeter(contextSession, Boolean(session.chat), state.records.usageFigures.at(-1)),
      resultStored: (blob, toolName, args) => contextSession.resultStored(blob, toolName, args),
      canSend: Boolean(session.agent),
      ...(session.agent?.images ? { imageBilling: session.agent.images.billing } : {}),
    };
  }

  /** Posts the chips and the cost line (and text to put back in the input after a failed send). */
  postComposer(session: DraftSession | undefined, restore?: string): void {
    this.post?.({ type: 'composer', attachments: this.draft.views(session), cost: this.draft.cost(session), ...(restore !== undefined ? { restore } : {}) });
    this.postedEmpty = this.draft.empty && restore === undefined;
  }

  /** The composer as it was last posted had no chip and no cost line. */
  private postedEmpty = false;

  /** The meter or the session changed: the cost line follows (an empty composer, posted empty already, has none to change). */
  async refreshComposer(): Promise<void> {
    if (this.draft.empty && this.postedEmpty) return;
    this.postComposer(await this.session());
  }

  /** What the chat's attachment intents use. */
  deps(): AttachmentIntentDeps {
    return {
      draft: this.draft,
      session: () => this.session(),
      postComposer: (session, restore) => this.postComposer(session, restore),
      postCompletions: (queryId, items) => this.post?.({ type: 'completions', queryId, items }),
      postImageToDownscale: (request) => this.post?.({ type: 'imageToDownscale', ...request }),
      openText: (id, title, text) => this.docs.open(['attachment', id], title, text),
      showRefused: (reasons) => void vscode.window.showWarningMessage(`Tally: not attached: ${reasons.join('; ')}`),
    };
  }

  /** Adds targets from a command, then shows the chat with their chips. */
  async add(targets: readonly AttachTarget[]): Promise<ChatAttachmentView[]> {
    const session = await this.session();
    const views: ChatAttachmentView[] = [];
    for (const target of targets) views.push(await this.draft.add(session, target));
    this.postComposer(session);
    return views;
  }

  dispose(): void {
    this.terminals.dispose();
  }
}
