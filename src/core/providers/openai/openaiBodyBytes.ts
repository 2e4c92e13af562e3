import type { Message } from '../../model/message';
import { ByteChunks, MessageWireCache, SentMessages, utf8 } from '../http/bodyBytes';
import { chatMessageOf, openAIFieldsAfterMessages, systemChatMessage, type OpenAIRequestOptions } from './openaiRequest';
import type { ProviderRequest } from '../types';

/** Each message's Chat Completions JSON as UTF-8, or null when the message is left out. */
const messageBytes = new MessageWireCache((message) => {
  const mapped = chatMessageOf(message);
  return mapped ? utf8(JSON.stringify(mapped)) : null;
});

const COMMA = utf8(',');

/**
 * The messages of the last body, each preceded by a comma. `ends[i]` is where message i's bytes end
 * in that sequence; `messages` tells which of the next body's messages are these, unchanged. The
 * first `blockCount` messages are also kept as one block of bytes (`block`, filled up to
 * `ends[blockCount - 1]`): messages go into it once a later body sends them again, so the block
 * grows at its end and a body sends it as one chunk. Bytes of the block that were sent are never
 * written again (a body may still be on its way): a block cut back is copied into a new one.
 */
interface LastConversation {
  messages: SentMessages;
  ends: number[];
  block: Uint8Array;
  blockCount: number;
}

function emptyConversation(): LastConversation {
  return { messages: new SentMessages(), ends: [], block: new Uint8Array(0), blockCount: 0 };
}

/** Room for `needed` bytes and the growth of many more requests, so the block is rarely moved. */
function capacityFor(needed: number): number {
  return needed + Math.max(64 * 1024, needed >> 2);
}

/**
 * Builds JSON.stringify(toOpenAIBody(request, options)) as chunks. A session sends the messages of
 * its last request again plus a few new ones: those it sent before go as one chunk of the block,
 * the others as each message's cached bytes. No request copies the whole conversation.
 */
export class OpenAIBodyBuilder {
  private last?: LastConversation;

  /**
   * Readies the messages' bytes before `chunks` when this conversation has no body yet, so building
   * its first body (every message) does not hold the event loop in one stretch.
   */
  async prepare(messages: readonly Message[]): Promise<void> {
    if (!this.last) await messageBytes.warm(messages);
  }

  /** The body as one byte array (joined from `chunks`). */
  bytes(request: ProviderRequest, options: OpenAIRequestOptions): Uint8Array {
    return this.chunks(request, options).join();
  }

  chunks(request: ProviderRequest, options: OpenAIRequestOptions): ByteChunks {
    const { messages } = request;
    const system = systemChatMessage(request);
    const body = new ByteChunks();
    body.text(`{${request.model === undefined ? '' : `"model":${JSON.stringify(request.model)},`}"messages":[${system ? JSON.stringify(system) : ''}`);
    // Without a system message the first message opens the array: no comma before it.
    let commaToDrop = !system;
    const emit = (chunk: Uint8Array) => {
      if (chunk.length === 0) return;
      body.push(commaToDrop ? chunk.subarray(1) : chunk);
      commaToDrop = false;
    };

    const reused = this.reusablePrefix(messages);
    const kept = this.last ?? emptyConversation();
    // Until this body is done, nothing is reused from a record being changed.
    this.last = undefined;
    kept.messages.truncate(reused);
    kept.ends.length = reused;
    if (kept.blockCount > reused) this.cutBlock(kept, reused);
    else this.extendBlock(kept, messages, reused);
    emit(kept.block.subarray(0, kept.blockCount > 0 ? kept.ends[kept.blockCount - 1] : 0));

    // The block now holds the reused messages; the others follow as their cached bytes.
    let size = reused > 0 ? kept.ends[reused - 1] : 0;
    for (let i = reused; i < messages.length; i++) {
      const message = messages[i];
      const bytes = messageBytes.get(message);
      if (bytes) {
        emit(COMMA);
        body.push(bytes);
        size += 1 + bytes.length;
      }
      kept.messages.push(message);
      kept.ends.push(size);
    }
    // The fields after the messages always hold `stream`, so their object is never empty.
    body.text(`],${JSON.stringify(openAIFieldsAfterMessages(request, options)).slice(1)}`);
    kept.messages.follow(messages);
    this.last = kept;
    return body;
  }

  /** The block holds only the first `count` messages now; what was sent of it stays as it was. */
  private cutBlock(kept: LastConversation, count: number): void {
    const end = count > 0 ? kept.ends[count - 1] : 0;
    const block = new Uint8Array(end > 0 ? capacityFor(end) : 0);
    if (end > 0) block.set(kept.block.subarray(0, end));
    kept.block = block;
    kept.blockCount = count;
  }

  /**
   * Adds to the block, after its end, the messages up to `count`: sent before and sent again now.
   * Their ends are taken from the bytes written, so the block and `ends` always agree.
   */
  private extendBlock(kept: LastConversation, messages: readonly Message[], count: number): void {
    if (kept.blockCount === count) return;
    const from = kept.blockCount > 0 ? kept.ends[kept.blockCount - 1] : 0;
    const added: Uint8Array[] = [];
    let end = from;
    for (let i = kept.blockCount; i < count; i++) {
      const bytes = messageBytes.get(messages[i]);
      if (bytes) {
        added.push(bytes);
        end += 1 + bytes.length;
      }
      kept.ends[i] = end;
    }
    let block = kept.block;
    if (end > block.length) {
      block = new Uint8Array(capacityFor(end));
      block.set(kept.block.subarray(0, from));
    }
    let at = from;
    for (const bytes of added) {
      block[at] = COMMA[0];
      block.set(bytes, at + 1);
      at += 1 + bytes.length;
    }
    kept.block = block;
    kept.blockCount = count;
  }

  /** How many of `messages` open the same way as the last body's, unchanged since. */
  private reusablePrefix(messages: readonly Message[]): number {
    const last = this.last;
    if (!last) return 0;
    // The block must still hold what it held (nothing detached it).
    if (last.block.byteLength < (last.blockCount > 0 ? last.ends[last.blockCount - 1] : 0)) return 0;
    return last.messages.unchangedPrefix(messages);
  }
}
