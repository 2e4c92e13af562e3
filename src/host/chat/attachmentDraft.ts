/**
 * The attachments waiting above the chat's input: each read when it is added, made into the exact
 * message it will send (offloaded when large), counted by the session's own tokenizer the way a
 * request counts its items, and read again when the message is sent. No `vscode` import: the
 * view passes the real sources, tests pass their own.
 */
import { MESSAGE_OVERHEAD_TOKENS } from '../../core/accounting/messageTokens';
import { messageCost } from '../../core/accounting/messageCost';
import type { WindowFigures } from '../../core/accounting/windowFigures';
import { attachmentMessage, userMessage } from '../../core/model/factories';
import { newId } from '../../core/model/ids';
import { nextTurn } from '../../core/nextTurn';
import type { AttachmentInfo, Message } from '../../core/model/message';
import type { BlobInfo, BlobStore } from '../../core/ports/blobStore';
import type { ContextSettings } from '../../core/settings';
import { filesInContext, normalizeRelativePath } from '../../core/context/filesInContext';
import { alreadyInContextText, AttachmentError, prepareAttachment, type PreparedAttachment } from '../../core/toolOutput/attachmentContent';
import type { AttachCompletion, AttachTarget, ChatAttachmentView, ComposerCost, ImageToDownscale } from '../../protocol/attachments';
import { fromBase64 } from '../../core/images/base64';
import { hasImageSignature, imageTypeOfName } from '../../core/images/imageHeader';
import { imageAttachment, imagePartOf } from '../../core/images/imageMessages';
import { formatName, type ImageMediaType, type ImagePart } from '../../core/images/imagePart';
import { cheaperSize } from '../../core/images/imageCost';
import { imageDataOf } from '../../core/images/imageData';
import { checkDownscaled, DownscaleError } from './downscaledImage';
import type { ImageBilling } from '../../core/images/imageSize';

/** Where attachments come from: the VS Code layer reads the workspace, editors, problems, git and terminals. */
export interface AttachmentSources {
  /** What a target attaches now. Throws an Error whose message the chip shows (outside the workspace, gone, not readable…). */
  read(target: AttachTarget): Promise<{ info: AttachmentInfo; content: string | Uint8Array }>;
  /** The lines to offer for what the user typed after `#` or `@`. */
  complete(query: string): Promise<AttachCompletion[]>;
  /** A dropped URI as a target; throws when it is not a file or folder inside the workspace. */
  dropped(uri: string): Promise<AttachTarget>;
}

/** What the draft needs of the open session. */
export interface DraftSession {
  sessionId: string;
  settings: ContextSettings;
  /** The working context now. */
  messages: readonly Message[];
  /** How a request counts a message (its item is this minus the per-message framing). */
  count(message: Message): number;
  store: BlobStore;
  /** The meter's figures now; absent when there is no window to measure. */
  figures(): WindowFigures | undefined;
  /** An attachment was stored whole: the session tells its views (the inspector lists it at once). */
  resultStored?(blob: BlobInfo, toolName: string, args?: string): void;
  /** Whose formula an image's cost follows (the session's provider and model); default OpenAI's. */
  imageBilling?: ImageBilling;
}

interface Staged {
  id: string;
  target: AttachTarget;
  /** What was read, to tell at send whether it changed since. */
  content?: string | Uint8Array;
  info?: AttachmentInfo;
  prepared?: PreparedAttachment;
  error?: string;
  inContext?: boolean;
  /** The smaller copy of an image the user chose to send instead, and what the original was. */
  downscaled?: { bytes: Uint8Array; original: NonNullable<ImagePart['original']> };
}

/** Re-read at send: what lives in the workspace. Selections, problems, diffs and terminal output are sent as captured. */
const READ_AGAIN: ReadonlySet<AttachTarget['kind']> = new Set(['file', 'folder']);

/**
 * A chip's tab title: the file's own name first and its folders after it (a tab name cannot hold
 * a `/`, which would show percent-encoded): "app.ts (src › lib, sent with your message)".
 */
export function attachmentTitle(label: string): string {
  const parts = label.split(/[/\\]+/).filter(Boolean);
  const name = parts.pop() ?? label;
  return parts.length ? `${name} (${parts.join(' › ')}, sent with your message)` : `${name} (sent with your message)`;
}

export class AttachmentDraft {
  private staged: Staged[] = [];
  private draftText = '';
  private sessionId?: string;
  /** The draft's count, kept while its text and the session's count are the same (the cost line is asked for on every refresh). */
  private textCount?: { text: string; count: DraftSession['count']; tokens: number };

  constructor(private readonly sources: AttachmentSources) {}

  get count(): number {
    return this.staged.length;
  }

  complete(query: string): Promise<AttachCompletion[]> {
    return this.sources.complete(query);
  }

  /** Adds what `target` attaches; a target already waiting is not added twice. Never throws: a failure is the chip's error. */
  async add(session: DraftSession, target: AttachTarget): Promise<ChatAttachmentView> {
    this.follow(session);
    const same = this.staged.find((s) => sameTarget(s.target, target) && target.kind !== 'selection');
    if (same) {
      // Asked for again after it failed (a file created or fixed since): read it again.
      if (same.error) await this.prepare(session, same);
      return this.viewOf(session, same);
    }
    const staged: Staged = { id: newId('att'), target };
    this.staged.push(staged);
    await this.prepare(session, staged);
    return this.viewOf(session, staged);
  }

  /** A file or folder address as a target; throws when it is not inside the workspace. */
  targetOf(uri: string): Promise<AttachTarget> {
    return this.sources.dropped(uri);
  }

  async addDropped(session: DraftSession, uris: readonly string[]): Promise<string[]> {
    const refused: string[] = [];
    for (const uri of uris) {
      try {
        await this.add(session, await this.sources.dropped(uri));
      } catch (error) {
        refused.push(error instanceof Error ? error.message : String(error));
      }
    }
    return refused;
  }

  remove(id: string): boolean {
    const before = this.staged.length;
    this.staged = this.staged.filter((s) => s.id !== id);
    return this.staged.length !== before;
  }

  clear(): void {
    this.staged = [];
    this.draftText = '';
  }

  setDraftText(text: string): void {
    this.draftText = text;
  }

  /** The exact text a chip will send, and what to call it. */
  textOf(id: string): { title: string; text: string } | undefined {
    const staged = this.staged.find((s) => s.id === id);
    if (!staged?.prepared) return undefined;
    return { title: attachmentTitle(staged.info?.label ?? 'attachment'), text: staged.prepared.message.content };
  }

  /** No chip and no text: the composer has nothing to cost. */
  get empty(): boolean {
    return this.staged.length === 0 && !this.draftText.trim();
  }

  views(session: DraftSession | undefined): ChatAttachmentView[] {
    if (session) this.follow(session);
    return this.staged.map((s) => this.viewOf(session, s));
  }

  /** The cost line: the draft's text and every attachment that will be sent, on the meter's figures. */
  cost(session: DraftSession | undefined): ComposerCost | undefined {
    const figures = session?.figures();
    if (!session || !figures) return undefined;
    if (!this.draftText.trim() && this.staged.length === 0) return undefined;
    if (/^\s*\/compact\b/.test(this.draftText)) return { text: '/compact: compacts the context now; no message is sent', tokens: 0, shareAfter: figures.usedShare };
    const items = this.staged.filter((s) => s.prepared && !s.error).map((s) => this.tokensOf(session, s.prepared!.message));
    if (this.draftText.trim()) items.push(this.draftTokens(session));
    const cost = messageCost(figures, items);
    return { text: cost.text, note: cost.note, tokens: cost.tokens, requestTokens: cost.usedAfter, shareAfter: cost.shareAfter };
  }

  /**
   * The attachment messages to record with the message being sent, read again where they live in
   * the workspace. Throws (and keeps every chip) when one cannot be sent; the chip says why.
   */
  async takeForSend(session: DraftSession): Promise<Message[]> {
    this.follow(session);
    for (const staged of this.staged) if (READ_AGAIN.has(staged.target.kind) || !staged.prepared) await this.prepare(session, staged);
    const failed = this.staged.filter((s) => s.error || !s.prepared);
    if (failed.length) {
      throw new AttachmentError(`Not sent: ${failed.map((s) => `${s.info?.label ?? labelOf(s.target)}: ${s.error ?? 'not read'}`).join('; ')}. Remove it or attach it again; your message is kept.`);
    }
    const messages = this.staged.map((s) => s.prepared!.message);
    this.clear();
    return messages;
  }

  private draftTokens(session: DraftSession): number {
    const known = this.textCount;
    if (known && known.text === this.draftText && known.count === session.count) return known.tokens;
    const tokens = this.tokensOf(session, userMessage(this.draftText));
    this.textCount = { text: this.draftText, count: session.count, tokens };
    return tokens;
  }

  private tokensOf(session: DraftSession, message: Message): number {
    return session.count(message) - MESSAGE_OVERHEAD_TOKENS;
  }

  /** Chips belong to one session: another session starts with none. */
  private follow(session: DraftSession): void {
    if (this.sessionId !== session.sessionId) {
      this.staged = [];
      this.sessionId = session.sessionId;
    }
  }

  /**
   * Reads the target and makes its message. Read again at send: unchanged content with the same
   * standing in the context keeps the message the chip counted (a large one is not stored twice).
   */
  private async prepare(session: DraftSession, staged: Staged): Promise<void> {
    try {
      const read = staged.target.kind === 'image' ? pastedImage(staged.target) : await this.sources.read(staged.target);
      const { info } = read;
      const content = staged.downscaled?.bytes ?? read.content;
      const image = imageOf(info, content, billingOf(session));
      if (image) {
        if (staged.downscaled) image.original = staged.downscaled.original;
        Object.assign(staged, { info: { ...info, kind: 'image', label: `${image.label} · ${formatName(image.mediaType)} ${image.width}×${image.height}` }, content, error: undefined, inContext: false, prepared: { message: imageAttachment(image) } });
        return;
      }
      const inContext = info.kind === 'file' && info.path !== undefined && filesInContext(session.messages).has(normalizeRelativePath(info.path));
      if (staged.prepared && !staged.error && inContext === Boolean(staged.inContext) && (await sameContent(staged.content, content))) return;
      staged.info = info;
      staged.content = content;
      staged.error = undefined;
      staged.inContext = inContext;
      staged.prepared = staged.inContext
        ? { message: attachmentMessage(info, alreadyInContextText(info)) }
        : await prepareAttachment({
            store: session.store, sessionId: session.sessionId, settings: session.settings, info, content,
            onStored: (blob) => session.resultStored?.(blob, 'attachment', JSON.stringify({ path: info.path ?? info.label })),
          });
    } catch (error) {
      staged.prepared = undefined;
      staged.content = undefined;
      staged.error = error instanceof Error ? error.message : String(error);
    }
  }

  private viewOf(session: DraftSession | undefined, s: Staged): ChatAttachmentView {
    const view: ChatAttachmentView = { id: s.id, kind: s.info?.kind ?? s.target.kind, label: s.info?.label ?? labelOf(s.target) };
    if (s.error) view.error = s.error;
    else if (s.prepared && session) view.tokens = this.tokensOf(session, s.prepared.message);
    const stored = s.prepared?.stored;
    if (stored) view.stored = { lines: stored.lines, sentLines: stored.sentLines };
    if (s.inContext) view.inContext = true;
    const image = this.imageOf(s);
    const smaller = image && session && cheaperSize(billingOf(session), image);
    if (smaller && session) {
      const tokens = this.tokensOf(session, imageAttachment({ ...image, width: smaller.width, height: smaller.height, tokens: smaller.tokens }));
      view.smaller = { width: smaller.width, height: smaller.height, tokens };
    }
    return view;
  }

  private imageOf(s: Staged): ImagePart | undefined {
    return s.error ? undefined : s.prepared?.message.images?.[0];
  }

  /** An image chip's bytes and the smaller size it would cost less at; undefined when it has none. */
  imageToDownscale(session: DraftSession, id: string): ImageToDownscale | undefined {
    const staged = this.staged.find((s) => s.id === id);
    const image = staged && this.imageOf(staged);
    const data = image && imageDataOf(image);
    const smaller = image && cheaperSize(billingOf(session), image);
    if (!image || data === undefined || !smaller) return undefined;
    return { id, mediaType: image.mediaType, data, width: smaller.width, height: smaller.height };
  }

  /**
   * Sends the image chip `id` as `bytes`, its smaller copy, from now on. Throws DownscaleError,
   * saying why, when the copy is not the image asked for; the original stays attached then.
   */
  async downscale(session: DraftSession, id: string, mediaType: ImageMediaType, bytes: Uint8Array): Promise<void> {
    this.follow(session);
    const staged = this.staged.find((s) => s.id === id);
    const image = staged && this.imageOf(staged);
    const target = image && cheaperSize(billingOf(session), image);
    if (!staged || !image || !target) throw new DownscaleError('This image is no longer attached, or has no smaller size to send; nothing changed.');
    checkDownscaled(image, target, mediaType, bytes);
    staged.downscaled = { bytes, original: { width: image.width, height: image.height, byteSize: image.byteSize, ...(image.tokens !== undefined ? { tokens: image.tokens } : {}) } };
    await this.prepare(session, staged);
  }
}

function billingOf(session: DraftSession): ImageBilling {
  return session.imageBilling ?? { providerId: 'openai' };
}

/** A pasted image's bytes and what to call it. */
function pastedImage(target: Extract<AttachTarget, { kind: 'image' }>): { info: AttachmentInfo; content: Uint8Array } {
  return { info: { kind: 'image', label: target.name ?? 'pasted image' }, content: fromBase64(target.data) };
}

/** An image part for a pasted image or an image file, costed on `provider`'s formula; undefined for anything else. Throws, saying why, for a damaged image. */
function imageOf(info: AttachmentInfo, content: string | Uint8Array, billing: ImageBilling): ImagePart | undefined {
  // A file named like an image that is not one is refused as any binary file is.
  const file = info.kind === 'file' && imageTypeOfName(info.path ?? info.label) !== undefined && typeof content !== 'string' && hasImageSignature(content);
  if ((info.kind !== 'image' && !file) || typeof content === 'string') return undefined;
  const name = info.label.slice(info.label.lastIndexOf('/') + 1);
  return imagePartOf({ bytes: content, origin: file ? 'file' : 'pasted', label: file ? name : info.label, ...(info.path ? { path: info.path } : {}) }, billing);
}

/** Bytes compared between turns of the event loop (a 20 MB file compared in one go held the host ~30 ms). */
export const COMPARE_SLICE_BYTES = 1024 * 1024;

async function sameContent(a: string | Uint8Array | undefined, b: string | Uint8Array): Promise<boolean> {
  if (a === undefined || typeof a !== typeof b) return false;
  if (typeof a === 'string') return a === b;
  const other = b as Uint8Array;
  if (a.length !== other.length) return false;
  for (let start = 0; start < a.length; start += COMPARE_SLICE_BYTES) {
    if (start > 0) await nextTurn();
    const end = Math.min(a.length, start + COMPARE_SLICE_BYTES);
    for (let i = start; i < end; i++) if (a[i] !== other[i]) return false;
  }
  return true;
}

function sameTarget(a: AttachTarget, b: AttachTarget): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A target's name before it was read. */
export function labelOf(target: AttachTarget): string {
  switch (target.kind) {
    case 'file':
    case 'folder':
      return target.path;
    case 'selection':
      return 'Selection';
    case 'problems':
      return target.path ? `Problems in ${target.path}` : 'Problems in the workspace';
    case 'diff':
      return 'Working tree changes';
    case 'terminal':
      return 'Terminal output';
    case 'resource':
      return `${target.server}: ${target.uri}`;
    case 'image':
      return target.name ?? 'pasted image';
    case 'url':
      return target.url;
  }
}
