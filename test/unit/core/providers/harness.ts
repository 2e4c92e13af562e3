/** What the conformance suite needs to run the same scenarios against each HTTP provider. */
import type { Message, ToolCall } from '../../../../src/core/model/message';
import type { ToolDefinition } from '../../../../src/core/model/tool';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { ProviderError } from '../../../../src/core/providers/errors';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import type { RetryOptions } from '../../../../src/core/providers/http/retry';
import type { ChatProvider, ProviderEvent, ProviderRequest, ReportedUsage } from '../../../../src/core/providers/types';
import { FakeAnthropicServer } from '../../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import type { FakeUsage, ScriptedServer } from '../../../fakes/scriptedServer';

export interface ProviderSetup {
  retry?: RetryOptions;
  idleTimeoutMs?: number;
  timeoutMs?: number;
}

export interface Harness {
  name: string;
  apiKey: string;
  startServer(): Promise<ScriptedServer>;
  provider(server: ScriptedServer, setup?: ProviderSetup, apiKey?: string): ChatProvider;
  /** What the provider should report for a fake usage. */
  expectedUsage(usage: FakeUsage): ReportedUsage;
}

const ANTHROPIC_KEY = 'sk-ant-api03-TESTKEY0123456789abcdef';
const OPENAI_KEY = 'sk-proj-TESTKEY0123456789abcdef';

export const anthropicHarness: Harness = {
  name: 'Anthropic Messages',
  apiKey: ANTHROPIC_KEY,
  startServer() {
    return new FakeAnthropicServer({ apiKey: ANTHROPIC_KEY }).start();
  },
  provider(server, setup = {}, apiKey = ANTHROPIC_KEY) {
    return createAnthropicProvider({ apiKey, baseUrl: server.url, ...setup });
  },
  expectedUsage(u) {
    return {
      inputTokens: u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0),
      outputTokens: u.output,
      cacheReadTokens: u.cacheRead ?? 0,
      cacheWriteTokens: u.cacheWrite ?? 0,
    };
  },
};

export const openaiHarness: Harness = {
  name: 'OpenAI Chat Completions',
  apiKey: OPENAI_KEY,
  startServer() {
    return new FakeOpenAIServer({ apiKey: OPENAI_KEY }).start();
  },
  provider(server, setup = {}, apiKey = OPENAI_KEY) {
    return createOpenAIProvider({ apiKey, baseUrl: server.url, ...setup });
  },
  expectedUsage(u) {
    return {
      inputTokens: u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0),
      outputTokens: u.output,
      cacheReadTokens: u.cacheRead ?? 0,
      reasoningTokens: 0,
    };
  },
};

export const HARNESSES = [anthropicHarness, openaiHarness];

let seq = 0;
export function message(partial: Partial<Message> & Pick<Message, 'role' | 'content'>): Message {
  seq++;
  return {
    id: `m${seq}`,
    kind: partial.role === 'tool' ? 'tool_result' : partial.role === 'system' ? 'instructions' : partial.role,
    agentVisible: true,
    userVisible: true,
    createdAt: seq,
    ...partial,
  } as Message;
}

export function toolCall(id: string, name: string, args: Record<string, unknown> | string): ToolCall {
  return { id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

export const READ_FILE: ToolDefinition = {
  name: 'read_file',
  description: 'Read a file of the workspace.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  source: 'builtin',
};

export function request(messages: Message[] = [message({ role: 'user', content: 'Hello there' })], extra: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    model: 'test-model',
    system: [{ text: 'You are Tally, a coding agent.', cacheBreakpoint: true }],
    messages,
    tools: [READ_FILE],
    maxOutputTokens: 1024,
    ...extra,
  };
}

export interface Outcome {
  events: ProviderEvent[];
  error?: ProviderError;
}

/** Runs a stream to its end and keeps every event and the error it ended with. */
export async function run(provider: ChatProvider, req: ProviderRequest, signal?: AbortSignal, onEvent?: (event: ProviderEvent) => void): Promise<Outcome> {
  const events: ProviderEvent[] = [];
  try {
    for await (const event of provider.stream(req, signal)) {
      events.push(event);
      onEvent?.(event);
    }
    return { events };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { events, error };
  }
}

export function textOf(events: ProviderEvent[]): string {
  return events.map((e) => (e.type === 'text' ? e.text : '')).join('');
}

export function ofType<T extends ProviderEvent['type']>(events: ProviderEvent[], type: T): Array<Extract<ProviderEvent, { type: T }>> {
  return events.filter((e): e is Extract<ProviderEvent, { type: T }> => e.type === type);
}

/** A sleep that records the delays asked for and returns at once. */
export function recordingSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

/** True when `text` occurs in any string of `value`, including strings that hold JSON themselves. */
export function deepIncludes(value: unknown, text: string): boolean {
  if (typeof value === 'string') {
    if (value.includes(text)) return true;
    try {
      const inner: unknown = JSON.parse(value);
      return typeof inner === 'object' && inner !== null && deepIncludes(inner, text);
    } catch {
      return false;
    }
  }
  if (Array.isArray(value)) return value.some((v) => deepIncludes(v, text));
  if (value && typeof value === 'object') return Object.values(value).some((v) => deepIncludes(v, text));
  return false;
}
