/**
 * What an attachment sends: the text the user attached, framed with what it is, kept whole up to
 * the tool-output truncation limit and, past it, stored whole in the blob store like a large tool
 * output, with a head+tail preview sent in its place (read_result reads the rest). Binary content
 * is refused.
 */
import { attachmentMessage } from '../model/factories';
import type { AttachmentInfo, Message } from '../model/message';
import type { BlobInfo, BlobStore } from '../ports/blobStore';
import type { ContextSettings } from '../settings';
import { scanOutput } from './scan';
import { readResultHint } from './storedResultHeader';
import { truncateMeasured } from './truncate';

const fmt = (n: number) => n.toLocaleString('en-US');

/** The attachment cannot be sent, with the reason the chip shows. */
export class AttachmentError extends Error {}

export interface PreparedAttachment {
  message: Message;
  /** Set when the content was stored whole and only a preview is sent. */
  stored?: { refId: string; lines: number; bytes: number; sentLines: number };
}

/** The line the model reads above an attachment's text. */
export function attachmentHeading(info: AttachmentInfo): string {
  switch (info.kind) {
    case 'file':
      return `[Attached file ${info.path ?? info.label}]`;
    case 'folder':
      return `[Attached folder listing ${info.path ?? info.label}]`;
    case 'selection':
      return `[Attached selection ${info.label}]`;
    case 'problems':
      return `[Attached ${info.label}]`;
    case 'diff':
      return `[Attached ${info.label}]`;
    case 'terminal':
      return `[Attached ${info.label}]`;
    case 'resource':
      return `[Attached resource ${info.uri ?? info.label} from the MCP server ${info.server ?? 'unknown'}]`;
    case 'image':
      return `[Attached image ${info.path ?? info.label}]`;
    case 'url':
      return `[Attached web page ${info.uri ?? info.label}]`;
  }
}

function storedHeading(info: AttachmentInfo, bytes: number, lines: number, refId: string): string {
  return `[Attachment stored — ${fmt(bytes)} bytes, ${fmt(lines)} lines of ${info.path ?? info.label}; ref_id="${refId}"; head and tail below]`;
}

/** The text an attachment of a file already in the working context sends instead of the file again. */
export function alreadyInContextText(info: AttachmentInfo): string {
  return `[Attached file ${info.path ?? info.label}: already in this conversation (read earlier and still in context), not sent again. It may have changed since; read it again if that matters.]`;
}

export interface AttachmentArgs {
  store: BlobStore;
  sessionId: string;
  settings: ContextSettings;
  info: AttachmentInfo;
  content: string | Uint8Array;
  /** Called once the content is stored whole (the views list it with the session's stored results). */
  onStored?: (blob: BlobInfo) => void;
}

/** The attachment's message as it will be sent (and stored), offloading large content. */
export async function prepareAttachment(args: AttachmentArgs): Promise<PreparedAttachment> {
  const { info, settings } = args;
  const scan = await scanOutput(args.content);
  if (scan.binary) throw new AttachmentError(`${info.path ?? info.label} is a binary file (${fmt(scan.byteSize)} bytes); only text can be attached.`);
  const heading = attachmentHeading(info);
  // What the user attached is sent whole up to what a tool result keeps inline (the truncation
  // limit), not only up to the offload threshold: they chose it for the model to read.
  const inlineBytes = Math.max(settings.offloadThresholdBytes, settings.truncation.maxBytes);
  if (scan.byteSize > inlineBytes && settings.offloadThresholdBytes === 0) {
    // Offloading turned off: head and tail inline, as a tool result is then.
    const cut = truncateMeasured(scan, settings.truncation);
    return { message: attachmentMessage(info, `${heading}\n${cut.text}`, { meta: { truncated: cut.info } }) };
  }
  if (scan.byteSize > inlineBytes) {
    const blob = await args.store.putBlob(args.sessionId, { toolName: 'attachment', content: scan.bytes, measured: scan });
    args.onStored?.(blob);
    const preview = truncateMeasured(scan, { maxLines: Math.min(settings.truncation.maxLines, 60), maxBytes: settings.offloadPreviewBytes });
    const sentLines = preview.info ? preview.info.originalLines - preview.info.omittedLines : blob.lineCount;
    const content = `${storedHeading(info, blob.byteSize, blob.lineCount, blob.id)}\n${preview.text}\n${readResultHint(blob.id)}`;
    return {
      message: attachmentMessage(info, content, { meta: { offloadRef: blob.id, truncated: preview.info } }),
      stored: { refId: blob.id, lines: blob.lineCount, bytes: blob.byteSize, sentLines },
    };
  }
  const text = typeof args.content === 'string' ? args.content : new TextDecoder().decode(scan.bytes);
  return { message: attachmentMessage(info, `${heading}\n${text}`) };
}
