/** What the chat's attachment messages do: completions, chips, the cost line, and taking the chips at send. */
import type { Message } from '../../core/model/message';
import type { AttachCompletion, ImageToDownscale } from '../../protocol/attachments';
import { fromBase64 } from '../../core/images/base64';
import type { ChatToHost } from '../../protocol/chat';
import type { Handlers } from '../../protocol/receive';
import type { AttachmentDraft, DraftSession } from './attachmentDraft';

export interface AttachmentIntentDeps {
  draft: AttachmentDraft;
  /** The open session as the draft reads it; `canSend`: it has a model to send to. */
  session(): Promise<DraftSession & { canSend: boolean }>;
  /** Posts the chips and the cost line; `restore`: text the composer gets back (a send that failed). */
  postComposer(session: DraftSession | undefined, restore?: string): void;
  postCompletions(queryId: number, items: AttachCompletion[]): void;
  /** Opens the exact text a chip sends as a read-only document. */
  openText(id: string, title: string, text: string): PromiseLike<unknown>;
  /** Sends an image chip's bytes to the webview to scale down. */
  postImageToDownscale(request: ImageToDownscale): void;
  /** Tells the user why dropped files were refused. */
  showRefused(reasons: string[]): void;
}

type AttachmentMessages = 'attachQuery' | 'attach' | 'removeAttachment' | 'openAttachment' | 'draft' | 'dropUris' | 'downscaleImage' | 'downscaledImage';

export function attachmentHandlers(deps: () => AttachmentIntentDeps): Pick<Handlers<ChatToHost>, AttachmentMessages> {
  return {
    attachQuery: async (m) => {
      const d = deps();
      d.postCompletions(m.queryId, await d.draft.complete(m.query));
    },
    attach: async (m) => {
      const d = deps();
      const session = await d.session();
      await d.draft.add(session, m.target);
      d.postComposer(session);
    },
    removeAttachment: async (m) => {
      const d = deps();
      d.draft.remove(m.id);
      d.postComposer(await d.session());
    },
    openAttachment: async (m) => {
      const d = deps();
      const doc = d.draft.textOf(m.id);
      if (!doc) throw new Error('This attachment could not be read; its chip says why.');
      await d.openText(m.id, doc.title, doc.text);
    },
    downscaleImage: async (m) => {
      const d = deps();
      const request = d.draft.imageToDownscale(await d.session(), m.id);
      if (!request) throw new Error('This image has no smaller size to send.');
      d.postImageToDownscale(request);
    },
    downscaledImage: async (m) => {
      const d = deps();
      const session = await d.session();
      try {
        await d.draft.downscale(session, m.id, m.mediaType, fromBase64(m.data));
      } finally {
        d.postComposer(session);
      }
    },
    draft: async (m) => {
      const d = deps();
      d.draft.setDraftText(m.text);
      d.postComposer(await d.session());
    },
    dropUris: async (m) => {
      const d = deps();
      const session = await d.session();
      const refused = await d.draft.addDropped(session, m.uris);
      d.postComposer(session);
      if (refused.length) d.showRefused(refused);
    },
  };
}

/**
 * The attachment messages to send with `text`: none for a command (`/compact`) or when nothing is
 * attached. When one cannot be sent the composer gets `restore` (the text as typed) back and the error says why.
 */
export async function attachmentsForSend(d: AttachmentIntentDeps, text: string, restore = text): Promise<Message[]> {
  if (d.draft.count === 0 || /^\s*\/compact\b/.test(text)) return [];
  let session: (DraftSession & { canSend: boolean }) | undefined;
  try {
    // The session may still be resuming, and its resume may fail: the text goes back either way.
    session = await d.session();
    if (!session.canSend) throw new Error('Choose a model first: attachments are sent with a message to a model. They stay above the input.');
    const messages = await d.draft.takeForSend(session);
    d.postComposer(session);
    return messages;
  } catch (error) {
    d.postComposer(session, restore);
    throw error;
  }
}
