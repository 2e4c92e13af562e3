import type { Message } from '../../model/message';
import { ByteChunks, utf8 } from '../http/bodyBytes';
import { responsesFieldsAfterInput, responsesInstructions, responsesItemsOf } from './openaiResponsesRequest';
import type { ProviderRequest } from '../types';

interface Entry {
  content: string;
  role: Message['role'];
  toolCallId: Message['toolCallId'];
  toolCalls: Message['toolCalls'];
  reasoning: Message['reasoning'];
  /** The message's input items as JSON, comma-separated, or null when it sends none. */
  bytes: Uint8Array | null;
}

/**
 * Each message's Responses input items as UTF-8, built once per message object (again only if a field
 * they are made from was replaced on the same object, reasoning included).
 */
class ResponsesItemCache {
  private readonly entries = new WeakMap<Message, Entry>();

  get(message: Message): Uint8Array | null {
    const entry = this.entries.get(message);
    if (entry && entry.content === message.content && entry.role === message.role && entry.toolCallId === message.toolCallId && entry.toolCalls === message.toolCalls && entry.reasoning === message.reasoning) {
      return entry.bytes;
    }
    const items = responsesItemsOf(message);
    const bytes = items.length ? utf8(items.map((item) => JSON.stringify(item)).join(',')) : null;
    this.entries.set(message, { content: message.content, role: message.role, toolCallId: message.toolCallId, toolCalls: message.toolCalls, reasoning: message.reasoning, bytes });
    return bytes;
  }
}

const itemBytes = new ResponsesItemCache();
const COMMA = utf8(',');

/**
 * Builds JSON.stringify(toResponsesBody(request)) as chunks: each message's items are serialized and
 * encoded once, and a request sends the cached bytes of its messages as they are (no copy of the
 * conversation, nothing serialized again but the new messages and the few fields around them).
 */
export function responsesBodyChunks(request: ProviderRequest): ByteChunks {
  const body = new ByteChunks();
  const instructions = responsesInstructions(request);
  body.text(`{"model":${JSON.stringify(request.model)},${instructions ? `"instructions":${JSON.stringify(instructions)},` : ''}"input":[`);
  let first = true;
  for (const message of request.messages) {
    const bytes = itemBytes.get(message);
    if (!bytes) continue;
    if (!first) body.push(COMMA);
    body.push(bytes);
    first = false;
  }
  body.text(`],${JSON.stringify(responsesFieldsAfterInput(request)).slice(1)}`);
  return body;
}
