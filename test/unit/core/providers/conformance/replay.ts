/**
 * Replays responses that public projects recorded against the real APIs: a local server on
 * 127.0.0.1 sends a recording's bytes, a Tally provider decodes them, and the test checks what it
 * made of them (and, for recordings with a next turn, what Tally would send back).
 *
 * A recording is a file under recordings/<wire folder>/:
 *   <name>.<n>.sse           the response body of the n-th request, verbatim (text/event-stream)
 *   <name>.<n>.request.json  the body the recording client sent for the n-th request
 *   <name>.chunks.txt        vercel/ai's format: one JSON event per line, sent as one `data:` event each
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import type { Message, ReasoningBlock, ToolCall } from '../../../../../src/core/model/message';
import { createAnthropicProvider } from '../../../../../src/core/providers/anthropic/anthropic';
import { ProviderError } from '../../../../../src/core/providers/errors';
import { createOpenAIProvider } from '../../../../../src/core/providers/openai/openai';
import type { ChatProvider, ProviderEvent, ProviderRequest, ReportedUsage, StopReason } from '../../../../../src/core/providers/types';
import { FakeAnthropicServer } from '../../../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../../../fakes/openaiServer';
import type { ScriptedServer } from '../../../../fakes/scriptedServer';

/** One wire format: where its recordings are, the local server that plays them, the provider that reads them. */
export interface Wire {
  /** The folder under recordings/. */
  folder: string;
  startServer(): Promise<ScriptedServer>;
  provider(server: ScriptedServer): ChatProvider;
}

const KEY = 'sk-conformance-0123456789';

export const ANTHROPIC_MESSAGES: Wire = {
  folder: 'anthropic-messages',
  startServer: () => new FakeAnthropicServer({ apiKey: KEY }).start(),
  provider: (server) => createAnthropicProvider({ apiKey: KEY, baseUrl: server.url, retry: { maxAttempts: 1 } }),
};

export const OPENAI_CHAT: Wire = {
  folder: 'openai-chat',
  startServer: () => new FakeOpenAIServer({ apiKey: KEY }).start(),
  provider: (server) => createOpenAIProvider({ apiKey: KEY, baseUrl: server.url, retry: { maxAttempts: 1 } }),
};

const RECORDINGS = join(__dirname, 'recordings');

export function recordingText(wire: Wire, file: string): string {
  return readFileSync(join(RECORDINGS, wire.folder, file), 'utf8');
}

/** The JSON body the recording client sent (`<name>.<n>.request.json`). */
export function recordedRequest(wire: Wire, file: string): any {
  return JSON.parse(recordingText(wire, file));
}

/** The recording as the events a server writes, one chunk per event, bytes unchanged. */
export function sseChunks(wire: Wire, file: string): string[] {
  const text = recordingText(wire, file);
  if (file.endsWith('.chunks.txt')) {
    return text.split('\n').filter((line) => line.trim()).map((line) => `data: ${line}\n\n`);
  }
  const chunks = text.split(/(?<=\n\n)/);
  return chunks.filter((chunk) => chunk.length > 0);
}

/** What a provider made of one recording, and the body Tally sent to get it. */
export interface Replayed {
  events: ProviderEvent[];
  text: string;
  /** The readable thinking as it streamed (reasoning_delta events, joined). */
  streamedReasoning: string;
  reasoning: ReasoningBlock[];
  calls: ToolCall[];
  usage?: ReportedUsage;
  stopReason?: StopReason;
  error?: ProviderError;
  /** The JSON body the provider sent to the local server. */
  sent: any;
}

/** Sends `request` through the wire's provider; the local server answers with the recording. */
export async function replay(wire: Wire, file: string, request: ProviderRequest): Promise<Replayed> {
  const server = await wire.startServer();
  try {
    server.enqueue({ type: 'raw', chunks: sseChunks(wire, file), headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
    const events: ProviderEvent[] = [];
    let error: ProviderError | undefined;
    try {
      for await (const event of wire.provider(server).stream(request)) events.push(event);
    } catch (caught) {
      if (!(caught instanceof ProviderError)) throw caught;
      error = caught;
    }
    const done = events.find((e): e is Extract<ProviderEvent, { type: 'done' }> => e.type === 'done');
    return {
      events,
      text: events.map((e) => (e.type === 'text' ? e.text : '')).join(''),
      streamedReasoning: events.map((e) => (e.type === 'reasoning_delta' ? e.text : '')).join(''),
      reasoning: events.flatMap((e) => (e.type === 'reasoning' ? [e.block] : [])),
      calls: events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : [])),
      usage: events.find((e): e is Extract<ProviderEvent, { type: 'usage' }> => e.type === 'usage')?.usage,
      stopReason: done?.stopReason,
      error,
      sent: server.requests[0]?.body,
    };
  } finally {
    await server.close();
  }
}

let seq = 0;
function message(partial: Partial<Message> & Pick<Message, 'role' | 'content'>): Message {
  seq++;
  return { id: `conf${seq}`, kind: partial.role === 'tool' ? 'tool_result' : partial.role, agentVisible: true, userVisible: true, createdAt: seq, ...partial } as Message;
}

export function userMessage(content: string): Message {
  return message({ role: 'user', content });
}

/** The assistant message the agent loop records for a replayed response. */
export function assistantMessage(replayed: Replayed): Message {
  return message({
    role: 'assistant',
    content: replayed.text,
    ...(replayed.calls.length ? { toolCalls: replayed.calls } : {}),
    ...(replayed.reasoning.length ? { reasoning: replayed.reasoning } : {}),
  });
}

export function toolResult(call: ToolCall, content: string): Message {
  return message({ role: 'tool', content, toolCallId: call.id, toolName: call.name });
}

/** A request with the recording's model and limits and no system prompt or tools unless given. */
export function requestFor(model: string, messages: Message[], extra: Partial<ProviderRequest> = {}): ProviderRequest {
  return { model, system: [], messages, tools: [], maxOutputTokens: 4096, ...extra };
}
