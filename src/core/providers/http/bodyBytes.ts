/**
 * Request bodies sent as bytes assembled from chunks, most of them cached per message: a long
 * session sends the same messages with every request, so each message is serialized and encoded
 * once instead of the whole body being stringified, scanned and encoded again each time.
 */
import type { Message } from '../../model/message';
import { listWork, markOf, unchangedBefore, type ListMark } from '../../model/listLineage';
import { isSettled } from '../../model/settledMessages';
import { nextTurn } from '../../nextTurn';

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Chunks of a body in order: sent as they are (sameOriginFetch.ts streams them), or joined into one
 * byte array. A chunk is never changed once pushed.
 */
export class ByteChunks {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  get parts(): readonly Uint8Array[] {
    return this.chunks;
  }

  get byteLength(): number {
    return this.size;
  }

  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  text(text: string): void {
    this.push(utf8(text));
  }

  join(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }
}

/** About the size of the pieces a body goes to fetch in (see `sendBlocks`). */
export const SEND_BLOCK_BYTES = 64 * 1024;

/**
 * The bytes of `parts` in order, as pieces of about `size` bytes: a run of smaller parts is copied
 * into one piece, a part at least that large goes as it is (never copied), empty parts are left out.
 * A body of a long session is two parts a message (100,000 at 50,000 messages), and a stream
 * handed that many chunks costs Node time growing with their square (each taken from the front of
 * one array, each written on its own): 13 MB took seconds in 100,000 chunks, milliseconds in 200.
 */
export function* sendBlocks(parts: readonly Uint8Array[], size = SEND_BLOCK_BYTES): Generator<Uint8Array> {
  let i = 0;
  while (i < parts.length) {
    const part = parts[i];
    if (part.length === 0 || part.length >= size) {
      if (part.length) yield part;
      i++;
      continue;
    }
    let total = 0;
    let end = i;
    while (end < parts.length && parts[end].length < size && total + parts[end].length <= size) total += parts[end++].length;
    if (end === i + 1) {
      yield part;
      i = end;
      continue;
    }
    const block = new Uint8Array(total);
    let at = 0;
    for (; i < end; i++) {
      block.set(parts[i], at);
      at += parts[i].length;
    }
    yield block;
  }
}

interface Entry<T> {
  role: Message['role'];
  kind: Message['kind'];
  content: string;
  toolCallId: Message['toolCallId'];
  toolCalls: Message['toolCalls'];
  meta: Message['meta'];
  value: T;
}

/**
 * What one wire format makes of a message, built once per message object. Messages are not changed
 * in place, but should a field a wire format reads be replaced on the same object, the entry no
 * longer matches it and is built again.
 */
export class MessageWireCache<T> {
  private readonly entries = new WeakMap<Message, Entry<T>>();

  constructor(private readonly build: (message: Message) => T) {}

  get(message: Message): T {
    const entry = this.entries.get(message);
    if (
      entry &&
      entry.content === message.content &&
      entry.role === message.role &&
      entry.kind === message.kind &&
      entry.toolCallId === message.toolCallId &&
      entry.toolCalls === message.toolCalls &&
      entry.meta === message.meta
    ) {
      return entry.value;
    }
    const value = this.build(message);
    this.entries.set(message, { role: message.role, kind: message.kind, content: message.content, toolCallId: message.toolCallId, toolCalls: message.toolCalls, meta: message.meta, value });
    return value;
  }

  /**
   * Builds the entries of `messages` in slices of about `sliceChars` characters of content, with a
   * turn of the event loop between slices. A conversation's first body (the first request after a
   * session was opened, forked or rewound) has every message to build: at 10,000 messages that is
   * 2.6 MB of JSON, which built in one go held the extension host for a fifth of a second.
   */
  async warm(messages: readonly Message[], sliceChars = WARM_SLICE_CHARS): Promise<void> {
    let chars = 0;
    for (const message of messages) {
      this.get(message);
      chars += message.content.length + MESSAGE_OVERHEAD_CHARS;
      if (chars >= sliceChars) {
        chars = 0;
        await nextTurn();
      }
    }
  }
}

/** About 5–10 ms of serializing and encoding on a busy machine. */
const WARM_SLICE_CHARS = 256 * 1024;
/** A message's fields besides its content (role, call ids, arguments) in a slice's count. */
const MESSAGE_OVERHEAD_CHARS = 128;

/**
 * The messages a body was built from, to find how many of the next body's open the same way: the
 * same objects, unchanged since. A message its session settled (model/settledMessages.ts) or a
 * frozen one is never changed in place, so only its reference is compared (reading 50,000 messages,
 * scattered in the heap, cost a long session ~14 ms a request); the others are compared by the
 * fields they are sent from, so one replaced on the same object is noticed. When the list's lineage
 * tells how far it still holds the same objects (model/listLineage.ts), those references are not
 * compared again either: only the messages that are not settled among them are read.
 */
export class SentMessages {
  private readonly messages: Message[] = [];
  /** Per message: settled or frozen when kept, so it is not read again. */
  private readonly frozen: boolean[] = [];
  private readonly contents: string[] = [];
  private readonly calls: Array<Message['toolCalls']> = [];
  /** The other fields a wire format reads, for the messages neither settled nor frozen. */
  private readonly rest: Array<Pick<Message, 'role' | 'kind' | 'toolCallId' | 'meta' | 'reasoning'> | undefined> = [];
  /** Positions of the messages neither settled nor frozen, ascending. */
  private readonly loose: number[] = [];
  /** The list these messages are, once the body built from them is complete. */
  private mark?: ListMark;

  get length(): number {
    return this.messages.length;
  }

  push(message: Message): void {
    const frozen = isSettled(message) || Object.isFrozen(message);
    if (!frozen) this.loose.push(this.messages.length);
    this.messages.push(message);
    this.frozen.push(frozen);
    this.contents.push(message.content);
    this.calls.push(message.toolCalls);
    this.rest.push(frozen ? undefined : { role: message.role, kind: message.kind, toolCallId: message.toolCallId, meta: message.meta, reasoning: message.reasoning });
  }

  /** Keeps the first `count` messages. */
  truncate(count: number): void {
    this.messages.length = this.frozen.length = this.contents.length = this.calls.length = this.rest.length = Math.min(count, this.messages.length);
    while (this.loose.length && this.loose[this.loose.length - 1] >= count) this.loose.pop();
    this.mark = undefined;
  }

  /** These messages are now `list`, all of it: its lineage can tell the next list's change. */
  follow(list: readonly Message[]): void {
    this.mark = this.messages.length === list.length ? markOf(list) : undefined;
  }

  /** How many of `messages` open with these messages, unchanged since they were kept. */
  unchangedPrefix(messages: readonly Message[]): number {
    const { messages: kept, frozen } = this;
    const max = Math.min(kept.length, messages.length);
    let known = Math.min(max, unchangedBefore(this.mark, messages));
    for (const i of this.loose) {
      if (i >= known) break;
      if (!this.sameFields(i, messages[i])) known = i;
    }
    let k = known;
    while (k < max && kept[k] === messages[k] && (frozen[k] || this.sameFields(k, messages[k]))) k++;
    listWork.positionsRead += k - known + 1;
    return k;
  }

  /** Whether the message kept at `i` still has the fields it was sent from. */
  private sameFields(i: number, message: Message): boolean {
    const rest = this.rest[i];
    return (
      this.contents[i] === message.content &&
      this.calls[i] === message.toolCalls &&
      (!rest || (rest.role === message.role && rest.kind === message.kind && rest.toolCallId === message.toolCallId && rest.meta === message.meta && rest.reasoning === message.reasoning))
    );
  }
}
