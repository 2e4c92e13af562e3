import type { ChatToHost } from '../../protocol/chat';
import type { Handlers } from '../../protocol/receive';
import { codeToInsert } from './insertWarning';
import { MessageNotSent } from '../sessionState/sessionPorts';
import type { SessionActions } from '../sessionState/sessionActions';
import { attachmentHandlers, attachmentsForSend, type AttachmentIntentDeps } from './attachmentIntents';
import { commandForSend, commandHandlers, type CommandIntentDeps } from './commandIntents';

/** What the chat's intents may touch. No `vscode` import: the views pass the real things, tests pass fakes. */
export interface ChatIntentDeps {
  sessions: Pick<SessionActions, 'send' | 'cancel' | 'resolveApproval' | 'create' | 'open' | 'retry' | 'discardPendingMessage' | 'compactAndContinue' | 'sendAnyway' | 'setPlanMode' | 'editPlan' | 'approvePlan' | 'discardPlan'>;
  /** What code blocks and links in replies reach (the view passes VS Code's editor, clipboard and opener). */
  workbench?: ChatWorkbench;
  executeCommand(command: string, ...args: unknown[]): PromiseLike<unknown>;
  /** Posts the whole chat state to the webview (it loaded; its changes follow as they happen). */
  sendState(): Promise<void>;
  /** The chat shows the session's whole history from now on (it opens with the recent part). */
  showEarlier(): Promise<void>;
  /** The composer's attachments (the view passes the workspace's sources). */
  attachments?: AttachmentIntentDeps;
  /** Restore and rewind (rewindFlow.ts), with the views' diffs and modals. */
  rewind?: ChatRewind;
  /** Slash commands: the `/` list and running one (the view passes the workspace's and the user's files). */
  commands?: CommandIntentDeps;
}

export interface ChatRewind {
  restoreFiles(messageId: string): Promise<unknown>;
  rewind(messageId: string): Promise<unknown>;
}

function rewind(d: ChatIntentDeps): ChatRewind {
  if (!d.rewind) throw new Error('Restore and rewind are not available here.');
  return d.rewind;
}

export interface ChatWorkbench {
  /** Inserts at the active editor's cursors, replacing selections; fails when no editor is open. */
  insertAtCursor(text: string): PromiseLike<void>;
  copyToClipboard(text: string): PromiseLike<void>;
  /** A modal warning with `choices` (Cancel is always offered): the choice, or undefined. */
  askModal(message: string, detail: string, choices: string[]): PromiseLike<string | undefined>;
  /** Only called with http, https or mailto URLs (the validator refuses anything else). */
  openExternal(url: string): PromiseLike<void>;
}

function workbench(d: ChatIntentDeps): ChatWorkbench {
  if (!d.workbench) throw new Error('Code and links cannot be used here.');
  return d.workbench;
}

/** What each validated message from the chat webview does. */
export function chatHandlers(d: ChatIntentDeps): Handlers<ChatToHost> {
  return {
    ready: () => d.sendState(),
    send: async (m) => {
      const run = d.commands ? await commandForSend(d.commands, d.attachments, m.text) : { text: m.text };
      const attachments = d.attachments ? await attachmentsForSend(d.attachments, run.text, m.text) : [];
      try {
        await d.sessions.send(run.text, attachments, run.source);
      } catch (error) {
        // Sent while the session resumed, and the resume failed: the text as typed goes back to the composer.
        if (error instanceof MessageNotSent) d.attachments?.postComposer(undefined, m.text);
        throw error;
      }
    },
    cancel: () => d.sessions.cancel(),
    approval: (m) => d.sessions.resolveApproval(m.callId, m.approved, m.forSession === true),
    newSession: async () => {
      await d.sessions.create();
    },
    resumeSession: async (m) => {
      await d.sessions.open(m.sessionId);
    },
    searchSessions: async () => {
      await d.executeCommand('tally.searchSessions');
    },
    selectModel: async () => {
      await d.executeCommand('tally.selectModel');
    },
    openDemo: async () => {
      await d.executeCommand('tally.openDemoReplay');
    },
    discardPending: () => d.sessions.discardPendingMessage(),
    openResult: async (m) => {
      await d.executeCommand('tally.openResult', m.refId);
    },
    showEarlier: () => d.showEarlier(),
    openInspector: async () => {
      await d.executeCommand('tally.openInspector');
    },
    retry: async () => {
      await d.sessions.retry();
    },
    compactAndContinue: async () => {
      await d.sessions.compactAndContinue();
    },
    sendAnyway: async () => {
      await d.sessions.sendAnyway();
    },
    copyCode: async (m) => {
      await workbench(d).copyToClipboard(m.code);
    },
    insertCode: async (m) => {
      const bench = workbench(d);
      const text = await codeToInsert(m.code, (message, detail, choices) => bench.askModal(message, detail, choices));
      if (text !== undefined) await bench.insertAtCursor(text);
    },
    openLink: async (m) => {
      await workbench(d).openExternal(m.url);
    },
    ...attachmentHandlers(() => {
      if (!d.attachments) throw new Error('Attachments are not available here.');
      return d.attachments;
    }),
    restoreFiles: async (m) => {
      await rewind(d).restoreFiles(m.messageId);
    },
    rewind: async (m) => {
      await rewind(d).rewind(m.messageId);
    },
    setPlanMode: (m) => d.sessions.setPlanMode(m.on),
    editPlan: (m) => d.sessions.editPlan(m.messageId, m.text),
    approvePlan: (m) => d.sessions.approvePlan(m.messageId, m.text),
    discardPlan: (m) => d.sessions.discardPlan(m.messageId),
    commandQuery: async () => {
      throw new Error('Slash commands are not available here.');
    },
    ...(d.commands ? commandHandlers(d.commands, d.attachments) : {}),
  };
}
