import type { Message, MessageKind, Role, ToolCall } from '../model/message';
import { TranscriptError } from './types';

const BASE_TIME = Date.UTC(2024, 0, 1);

/** Builds messages with ids and times that depend only on the file and position (replays are repeatable). */
export class TranscriptBuilder {
  readonly messages: Message[] = [];
  readonly warnings: string[] = [];
  private readonly openCalls = new Map<string, ToolCall>();
  private readonly seenCalls = new Set<string>();
  /** Source call id → the unique id it was given (some recorded runs reuse ids across turns). */
  private readonly renamed = new Map<string, string>();

  constructor(readonly file: string) {}

  fail(problem: string, path?: string): never {
    throw new TranscriptError(this.file, problem, path);
  }

  add(role: Role, content: string, extra: Partial<Message> = {}): Message {
    const index = this.messages.length;
    const kind: MessageKind = role === 'system' ? 'instructions' : role === 'tool' ? 'tool_result' : role;
    const message: Message = { id: `i${index.toString().padStart(5, '0')}`, role, kind, content, agentVisible: true, userVisible: true, createdAt: BASE_TIME + index * 1000, ...extra };
    if (message.toolCalls) {
      message.toolCalls = message.toolCalls.map((call) => {
        let id = call.id;
        for (let n = 2; this.seenCalls.has(id); n++) id = `${call.id}#${n}`;
        this.seenCalls.add(id);
        this.renamed.set(call.id, id);
        return id === call.id ? call : { ...call, id };
      });
      for (const call of message.toolCalls) this.openCalls.set(call.id, call);
    }
    if (role === 'tool' && message.toolCallId) {
      message.toolCallId = this.renamed.get(message.toolCallId) ?? message.toolCallId;
      const call = this.openCalls.get(message.toolCallId);
      if (!call) this.warnings.push(`message ${index}: a tool result answers "${message.toolCallId}", which no earlier call made`);
      else message.toolName ??= call.name;
      this.openCalls.delete(message.toolCallId);
    }
    this.messages.push(message);
    return message;
  }

  finish(): void {
    for (const id of this.openCalls.keys()) this.warnings.push(`tool call "${id}" has no result in the transcript`);
  }
}

export function textOf(content: unknown, path: string, builder: TranscriptBuilder): { text: string; images: number } {
  if (content === null || content === undefined) return { text: '', images: 0 };
  if (typeof content === 'string') return { text: content, images: 0 };
  if (!Array.isArray(content)) return builder.fail(`content must be a string or a list of parts, not ${typeof content}`, path);
  let text = '';
  let images = 0;
  content.forEach((part, k) => {
    if (typeof part === 'string') text += part;
    else if (part && typeof part === 'object') {
      const p = part as Record<string, unknown>;
      if (typeof p.text === 'string') text += (text ? '\n' : '') + p.text;
      else if (p.type === 'image' || p.type === 'image_url' || p.type === 'input_image') images++;
      else if (typeof p.content === 'string') text += (text ? '\n' : '') + p.content;
    } else builder.fail(`part ${k} is ${part === null ? 'null' : typeof part}`, path);
  });
  return { text, images };
}
