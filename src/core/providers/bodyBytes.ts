/**
 * Request bodies sent as bytes assembled from chunks, most of them cached per message: a long
 * session sends the same messages with every request, so each message is serialized and encoded
 * once instead of the whole body being stringified, scanned and encoded again each time.
 */
import type { Message } from '../model/message';

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
}
