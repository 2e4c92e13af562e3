import { promises as fsp } from 'fs';
import type { Message } from '../../../core/model/message';
import { nextTurn } from '../../../core/nextTurn';
import { encodeUtf8 } from '../../../core/toolOutput/scan';
import { sha256InParts, type BlobFiles } from '../blobs/blobFiles';
import type { StoreMode } from '../files/flusher';
import { errorCode, errorText } from '../files/storeErrors';
import type { StoreParts } from '../storeParts';

/**
 * A message whose stored body is longer than this (a reply with megabytes of thinking, a long
 * answer) is kept in a file of its own, and its row in the segment holds a stub naming that file.
 * Inserting megabytes into sql.js and exporting the segment that holds them are synchronous: 4 MB
 * held the extension host about half a second.
 */
export const BODY_FILE_CHARS = 256 * 1024;

/** Bytes decoded between two turns of the event loop when a body file is read. */
const DECODE_SLICE_BYTES = 1024 * 1024;

/** The stub's key naming the file that holds the whole message. */
const BODY_KEY = 'storedBody';

interface BodyFileRef {
  sha256: string;
  bytes: number;
}

type Stub = Message & { [BODY_KEY]?: BodyFileRef };

/**
 * Message bodies too long for a segment row: the message's JSON as UTF-8 in `blobs/<sha256>.blob`
 * (the stored results' files: the same content is written once, and the next save fsyncs it before
 * any segment that names it), the row a stub with the message's fields but its text and thinking,
 * so the segment's own searches (tool calls, pins) still find it. Encoding, hashing and writing go
 * in parts with turns of the event loop between them.
 */
export class MessageBodyFiles {
  constructor(private readonly parts: StoreParts, private readonly files: BlobFiles, private readonly mode: StoreMode) {}

  /** What the message's row holds: its JSON, or a stub once its whole JSON is in a file. */
  async rowBody(message: Message): Promise<string> {
    const json = JSON.stringify(message);
    if (json.length <= BODY_FILE_CHARS || this.mode !== 'disk') return json;
    const bytes = await encodeUtf8(json);
    const ref: BodyFileRef = { sha256: await sha256InParts(bytes), bytes: bytes.length };
    await this.files.writeContent(ref.sha256, bytes);
    const stub: Stub = { ...message, content: '', [BODY_KEY]: ref };
    delete stub.reasoning;
    return JSON.stringify(stub);
  }

  /**
   * `messages` with each stub replaced by the message its file holds. A file that is missing or
   * does not match what the stub says is reported, and the message keeps its place with a text
   * that says what was lost: the rest of the session loads.
   */
  async resolve(messages: Message[]): Promise<Message[]> {
    const out: Message[] = [];
    for (const message of messages) {
      const ref = (message as Stub)[BODY_KEY];
      out.push(ref ? await this.whole(message as Stub, ref) : message);
    }
    return out;
  }

  private async whole(stub: Stub, ref: BodyFileRef): Promise<Message> {
    let path: string;
    try {
      path = this.parts.layout.contentPath(ref.sha256);
    } catch (error) {
      return lost(stub, ref, errorText(error));
    }
    let bytes: Buffer;
    try {
      bytes = await fsp.readFile(path);
    } catch (error) {
      const why = errorCode(error) === 'ENOENT' ? 'its file is missing' : errorText(error);
      this.parts.problems.report({ file: path, kind: 'read-failed', message: `message ${stub.id}: ${why}` });
      return lost(stub, ref, why);
    }
    const damage = bytes.length !== ref.bytes ? `its file holds ${bytes.length} bytes, ${ref.bytes} were stored` : (await sha256InParts(bytes)) !== ref.sha256 ? 'its file does not match its SHA-256' : undefined;
    const message = damage ? undefined : await parsedMessage(bytes);
    if (message?.id === stub.id) return message;
    const why = damage ?? 'its file does not hold this message';
    this.parts.problems.report({ file: path, kind: 'corrupt', message: `message ${stub.id}: ${why}` });
    return lost(stub, ref, why);
  }
}

async function parsedMessage(bytes: Uint8Array): Promise<Message | undefined> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const pieces: string[] = [];
  try {
    for (let start = 0; start < bytes.length; start += DECODE_SLICE_BYTES) {
      const end = Math.min(bytes.length, start + DECODE_SLICE_BYTES);
      pieces.push(decoder.decode(bytes.subarray(start, end), { stream: end < bytes.length }));
      if (end < bytes.length) await nextTurn();
    }
    return JSON.parse(pieces.join('')) as Message;
  } catch {
    return undefined;
  }
}

/** The stub as a message that says its text and thinking could not be read, and why. */
function lost(stub: Stub, ref: BodyFileRef, why: string): Message {
  const { [BODY_KEY]: _ref, tokens: _tokens, tokenEncoding: _encoding, ...message } = stub;
  return { ...message, content: `[The text of this message (${ref.bytes.toLocaleString('en-US')} bytes, with its thinking) could not be read: ${why}.]` };
}
