/**
 * Reliability under faults, the parts both fault suites share: the two wires (OpenAI and Anthropic
 * fakes with their real APIs' checks), a real agent as the builder makes it on a real sql.js store,
 * and the checks of what a user cares about: (b) the history stored on disk is valid, reopened in a
 * new store instance; (c) the session resumes against a server that answers normally.
 * Every wait (retry backoff, retry-after) goes through injected sleeps.
 */
import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { AgentSession } from '../../../../src/core/agent/agentSession';
import { buildAgent } from '../../../../src/core/agent/build/buildAgent';
import { BUILTIN_TOOLS, SESSION_TOOLS } from '../../../../src/core/agent/build/toolSources';
import type { AgentEvent } from '../../../../src/core/agent/events';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { validateHistory } from '../../../../src/core/history/normalize';
import type { Message } from '../../../../src/core/model/message';
import { openStore } from '../../../../src/node/store';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import type { RetryOptions } from '../../../../src/core/providers/http/retry';
import type { ChatProvider } from '../../../../src/core/providers/types';
import { withSettings } from '../../../../src/core/settings';
import { FakeAnthropicServer, anthropicRequestProblem } from '../../../fakes/anthropicServer';
import { FakeOpenAIServer, openaiRequestProblem } from '../../../fakes/openaiServer';
import type { ScriptedServer } from '../../../fakes/scriptedServer';
import { tempStore } from '../../../support/tempStore';
import { testEnvironment } from '../../../support/toolRegistry';
import { recordingSleep } from '../providers/harness';

export const SETTINGS = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 });

export interface ProviderSetup {
  retry?: RetryOptions;
  idleTimeoutMs?: number;
  timeoutMs?: number;
}

/** The tool calls and tool results a request carried, in order, as the server saw them. */
export interface WirePairs {
  calls: string[];
  results: string[];
}

export interface Wire {
  name: string;
  apiKey: string;
  /** How the provider names itself in error messages. */
  label: RegExp;
  start(): Promise<ScriptedServer>;
  provider(server: ScriptedServer, setup?: ProviderSetup): ChatProvider;
  /** The real API's own checks (pairing included); undefined when the request is valid. */
  problem(body: unknown): string | undefined;
  pairs(body: any): WirePairs;
  /** The text of every tool result the request carried, by call id. */
  results(body: any): Map<string, string>;
}

export const WIRES: Wire[] = [
  {
    name: 'OpenAI Chat Completions',
    apiKey: 'sk-test-faults-openai-000',
    label: /^OpenAI-compatible server \(127\.0\.0\.1:\d+\): /,
    start() {
      return new FakeOpenAIServer({ apiKey: this.apiKey }).start();
    },
    provider(server, setup = {}) {
      return createOpenAIProvider({ apiKey: this.apiKey, baseUrl: server.url, ...setup });
    },
    problem: openaiRequestProblem,
    pairs(body) {
      const calls: string[] = [];
      const results: string[] = [];
      for (const m of body.messages as any[]) {
        if (m.role === 'assistant') for (const c of m.tool_calls ?? []) calls.push(c.id);
        if (m.role === 'tool') results.push(m.tool_call_id);
      }
      return { calls, results };
    },
    results(body) {
      const out = new Map<string, string>();
      for (const m of body.messages as any[]) if (m.role === 'tool') out.set(m.tool_call_id, typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
      return out;
    },
  },
  {
    name: 'Anthropic Messages',
    apiKey: 'sk-ant-test-faults-000',
    label: /^Anthropic: /,
    start() {
      return new FakeAnthropicServer({ apiKey: this.apiKey }).start();
    },
    provider(server, setup = {}) {
      return createAnthropicProvider({ apiKey: this.apiKey, baseUrl: server.url, ...setup });
    },
    problem: anthropicRequestProblem,
    pairs(body) {
      const calls: string[] = [];
      const results: string[] = [];
      for (const m of body.messages as any[]) {
        if (!Array.isArray(m.content)) continue;
        for (const b of m.content) {
          if (b.type === 'tool_use') calls.push(b.id);
          if (b.type === 'tool_result') results.push(b.tool_use_id);
        }
      }
      return { calls, results };
    },
    results(body) {
      const out = new Map<string, string>();
      for (const m of body.messages as any[]) {
        if (!Array.isArray(m.content)) continue;
        for (const b of m.content) {
          if (b.type !== 'tool_result') continue;
          const text = typeof b.content === 'string' ? b.content : (b.content as any[]).map((p) => p.text ?? '').join('');
          out.set(b.tool_use_id, text);
        }
      }
      return out;
    },
  },
];

/** Every tool call has exactly one result, every result has its call, and the project's validator agrees. */
export function assertPaired(messages: readonly Message[], where: string): void {
  assert.deepEqual(validateHistory(messages), [], `${where}: validateHistory`);
  const visible = messages.filter((m) => m.agentVisible);
  const calls = visible.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
  const results = visible.filter((m) => m.role === 'tool').map((m) => m.toolCallId ?? '');
  for (const id of calls) assert.equal(results.filter((r) => r === id).length, 1, `${where}: call ${id} has exactly one result`);
  for (const id of results) assert.ok(calls.includes(id), `${where}: result ${id} has its call`);
}

/** The request as the server received it is one the real API accepts, with every call answered. */
export function assertValidRequest(wire: Wire, body: unknown): WirePairs {
  assert.equal(wire.problem(body), undefined, 'the real API would accept the request');
  const pairs = wire.pairs(body);
  assert.deepEqual([...pairs.results].sort(), [...pairs.calls].sort(), 'every tool call in the request has its result');
  assert.equal(new Set(pairs.calls).size, pairs.calls.length, 'no call is sent twice');
  return pairs;
}

export interface Session {
  contextSession: ContextSession;
  agent: AgentSession;
  events: AgentEvent[];
  /** What the agent loop's own retry waits asked for. */
  agentDelays: number[];
}

/** A workspace with one file, for the real read_file tool. */
export function tempWorkspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'tally-faults-ws-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.ts'), 'export const answer = 42;\n');
  return root;
}

/** A real agent on `store`, as the builder makes it: real prompt, real workspace tools, the session tools. */
export async function openSession(store: SessionStore, sessionId: string, provider: ChatProvider, workspace: string): Promise<Session> {
  const counter = getTokenCounter();
  const contextSession = await ContextSession.open({ store, sessionId, settings: SETTINGS, counter });
  const { delays, sleep } = recordingSleep();
  const events: AgentEvent[] = [];
  const agent = buildAgent({
    contextSession,
    store,
    model: { provider, id: 'test-model', maxOutputTokens: 2_000, counter },
    settings: SETTINGS,
    tools: [BUILTIN_TOOLS, SESSION_TOOLS],
    environment: testEnvironment({ folders: [workspace], policy: { commands: 'always', edits: 'always' }, ask: async () => ({ approved: true }), limits: { commandTimeoutMs: 5_000 } }),
    observers: [(e) => events.push(e)],
    maxSteps: 10,
    loop: { sleep, retry: { random: () => 0 } },
  });
  return { contextSession, agent, events, agentDelays: delays };
}

export function errorsOf(events: AgentEvent[]): Array<Extract<AgentEvent, { type: 'error' }>> {
  return events.filter((e): e is Extract<AgentEvent, { type: 'error' }> => e.type === 'error');
}

export function textShown(events: AgentEvent[]): string {
  return events.map((e) => (e.type === 'text_delta' ? e.text : '')).join('');
}

/** A kept fragment: a non-empty start of what the model was saying, then the marker with the reason. */
export function assertCutOff(content: string, reply: string, reason: RegExp): void {
  const match = /^([\s\S]+)\n\[The response was cut off: ([^\]]+)\]$/.exec(content);
  assert.ok(match, `marked as cut off: ${JSON.stringify(content)}`);
  assert.ok(reply.startsWith(match[1]), `the kept text is what was streamed: ${JSON.stringify(match[1])}`);
  assert.match(match[2], reason);
}

export const FIRST_PROMPT = 'Look at src/a.ts and tell me the answer.';
export const RESUME_PROMPT = 'Please continue where you left off.';

/**
 * Mocha hooks and steps for one wire's fault suite: `begin` starts the faulty server and a session
 * on a fresh store, `reopenAndCheck` (b) and `resume` (c) check what the user would find after;
 * after each test every server, store and folder is closed and removed.
 */
export function faultSuite(wire: Wire) {
  let server!: ScriptedServer;
  let healthy: ScriptedServer | undefined;
  let folder: string;
  let workspace: string;
  let store!: SessionStore;
  let sessionId = '';
  let session: Session;
  const providerDelays: number[] = [];
  const reopened: SessionStore[] = [];

  /** Starts the faulty server and a session on a fresh store whose provider uses `setup`. */
  async function begin(setup: ProviderSetup = {}): Promise<Session> {
    server = await wire.start();
    const env = await tempStore('tally-faults-');
    folder = env.folder;
    store = env.store;
    workspace = tempWorkspace();
    sessionId = (await store.createSession({ title: 'faults' })).id;
    const sleep = async (ms: number) => void providerDelays.push(ms);
    const provider = wire.provider(server, { ...setup, retry: { sleep, random: () => 0, ...setup.retry } });
    session = await openSession(store, sessionId, provider, workspace);
    return session;
  }

  /** (b) Flushes and closes the store, reopens the folder in a new store instance and checks the transcript. */
  async function reopenAndCheck(): Promise<{ store: SessionStore; transcript: Message[] }> {
    session.agent.dispose();
    await store.flush();
    await store.close();
    const again = await openStore(folder, { debounceMs: 5 });
    reopened.push(again);
    assert.deepEqual(again.problems, [], 'the store files open cleanly');
    const transcript = await again.loadTranscript(sessionId);
    assert.equal(transcript[0]?.role, 'user');
    assert.equal(transcript[0]?.content, FIRST_PROMPT);
    assertPaired(transcript, 'stored transcript');
    return { store: again, transcript };
  }

  /** (c) A new ContextSession/AgentSession on the reopened store, against a server that answers normally. */
  async function resume(again: SessionStore, expectCalls: number): Promise<void> {
    healthy = await wire.start();
    healthy.enqueue({ type: 'reply', parts: [{ text: 'Back on track: the answer is 42.' }] });
    const resumed = await openSession(again, sessionId, wire.provider(healthy, { retry: { maxAttempts: 1 } }), workspace);
    assertPaired(resumed.contextSession.planRequest().messages, 'resumed working context');
    assert.equal(await resumed.agent.send(RESUME_PROMPT), 'end_turn', JSON.stringify(errorsOf(resumed.events)));
    assert.deepEqual(errorsOf(resumed.events), []);
    assert.equal(healthy.requests.length, 1);
    const body = healthy.requests[0].body;
    const pairs = assertValidRequest(wire, body);
    assert.equal(pairs.calls.length, expectCalls, 'the earlier tool calls are sent again, answered');
    const raw = healthy.requests[0].rawBody;
    assert.ok(raw.includes(FIRST_PROMPT) && raw.includes(RESUME_PROMPT), 'the resumed request carries the old and the new message');
    const transcript = await again.loadTranscript(sessionId);
    assert.equal(transcript[transcript.length - 1].content, 'Back on track: the answer is 42.');
    assertPaired(transcript, 'transcript after the resumed turn');
    resumed.agent.dispose();
  }

  afterEach(async () => {
    await server?.close();
    await healthy?.close();
    healthy = undefined;
    for (const s of reopened.splice(0)) await s.close();
    await store?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
    if (workspace) rmSync(workspace, { recursive: true, force: true });
    providerDelays.length = 0;
  });

  return {
    begin,
    reopenAndCheck,
    resume,
    /** What the provider's own retry waits asked for. */
    providerDelays,
    get server(): ScriptedServer {
      return server;
    },
    get store(): SessionStore {
      return store;
    },
    get sessionId(): string {
      return sessionId;
    },
  };
}
