import type { Message } from '../model/message';
import { ByteChunks, MessageWireCache, utf8 } from './bodyBytes';
import { chatMessageOf, openAIFieldsAfterMessages, systemChatMessage, type OpenAIRequestOptions } from './openaiRequest';
import type { ProviderRequest } from './types';

/** Each message's Chat Completions JSON as UTF-8, or null when the message is left out. */
const messageBytes = new MessageWireCache((message) => {
  const mapped = chatMessageOf(message);
  return mapped ? utf8(JSON.stringify(mapped)) : null;
});

const COMMA = utf8(',');

/**
 * The conversation part of the last body: every sent message preceded by a comma. `bytes` lies in
 * that body, without its first comma when the body had no system message (`firstCommaDropped`).
 * `ends[i]` is where message i's bytes end, counted with the first comma; the fields a message is
 * sent from are kept to notice one replaced on the same object.
 */
interface LastConversation {
  messages: Message[];
  contents: string[];
  calls: Array<Message['toolCalls']>;
  ends: number[];
  bytes: Uint8Array;
  firstCommaDropped: boolean;
}

/**
 * Builds the bytes of JSON.stringify(toOpenAIBody(request, options)). A session sends the messages
 * of its last request again plus a few new ones: those the last body ended with are copied from it
 * in one piece, and the others come from each message's cached bytes.
 */
export class OpenAIBodyBuilder {
  private last?: LastConversation;

  bytes(request: ProviderRequest, options: OpenAIRequestOptions): Uint8Array {
    const { messages } = request;
    const system = systemChatMessage(request);
    const head = utf8(`{${request.model === undefined ? '' : `"model":${JSON.stringify(request.model)},`}"messages":[${system ? JSON.stringify(system) : ''}`);
    const dropFirstComma = !system;
    const body = new ByteChunks();
    body.push(head);

    const reused = this.reusablePrefix(messages);
    const last = this.last;
    // Until this body is done, nothing is reused from a record being changed.
    this.last = undefined;
    // The last body's record is cut back to what is reused and extended: a request costs what changed.
    const kept = last ?? { messages: [], contents: [], calls: [], ends: [], bytes: new Uint8Array(0), firstCommaDropped: false };
    kept.messages.length = kept.contents.length = kept.calls.length = kept.ends.length = reused;
    let size = reused > 0 ? kept.ends[reused - 1] : 0;
    if (size > 0) {
      const shift = kept.firstCommaDropped ? 1 : 0;
      if (dropFirstComma || !kept.firstCommaDropped) body.push(kept.bytes.subarray((dropFirstComma ? 1 : 0) - shift, size - shift));
      else {
        body.push(COMMA);
        body.push(kept.bytes.subarray(0, size - 1));
      }
    }
    for (let i = reused; i < messages.length; i++) {
      const message = messages[i];
      const bytes = messageBytes.get(message);
      if (bytes) {
        body.push(dropFirstComma && size === 0 ? COMMA.subarray(1) : COMMA);
        body.push(bytes);
        size += 1 + bytes.length;
      }
      kept.messages.push(message);
      kept.contents.push(message.content);
      kept.calls.push(message.toolCalls);
      kept.ends.push(size);
    }
    // The fields after the messages always hold `stream`, so their object is never empty.
    body.text(`],${JSON.stringify(openAIFieldsAfterMessages(request, options)).slice(1)}`);
    const joined = body.join();
    const dropped = dropFirstComma && size > 0;
    kept.bytes = joined.subarray(head.length, head.length + size - (dropped ? 1 : 0));
    kept.firstCommaDropped = dropped;
    this.last = kept;
    return joined;
  }

  /** How many of `messages` open the same way as the last body's, unchanged since. */
  private reusablePrefix(messages: readonly Message[]): number {
    const last = this.last;
    if (!last) return 0;
    // The buffer sent last must still hold what it held (nothing detached or reused it).
    if (last.bytes.byteLength !== (last.ends[last.ends.length - 1] ?? 0) - (last.firstCommaDropped ? 1 : 0)) return 0;
    const max = Math.min(last.messages.length, messages.length);
    let k = 0;
    while (k < max && last.messages[k] === messages[k] && last.contents[k] === messages[k].content && last.calls[k] === messages[k].toolCalls) k++;
    return k;
  }
}
