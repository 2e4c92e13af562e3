/**
 * Reliability under faults: a real AgentSession — real ContextSession on a real sql.js
 * store in a temp folder, real workspace tools — against the local fake servers speaking the real
 * OpenAI and Anthropic wire formats. For every fault the suite checks what a user cares about:
 *  (a) how the turn ends, and that the error shown is clear;
 *  (b) the history stored on disk is valid (reopened from disk in a new store instance);
 *  (c) the session resumes: a new ContextSession/AgentSession on the reopened store sends a valid
 *      request to a server that answers normally, and the turn completes.
 * Every wait (retry backoff, retry-after) goes through injected sleeps; only the stall tests wait
 * for a real (short) idle timeout.
 */
import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { AgentSession } from '../../../../src/core/agent/agentSession';
import type { AgentEvent } from '../../../../src/core/agent/events';
import { sessionTools } from '../../../../src/core/tools/sessionTools';
import { testRegistry } from '../../../support/toolRegistry';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { validateHistory } from '../../../../src/core/history/normalize';
import type { Message } from '../../../../src/core/model/message';
import { openStore } from '../../../../src/node/store';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import type { RetryOptions } from '../../../../src/core/providers/http/retry';
import type { ChatProvider } from '../../../../src/core/providers/types';
import { withSettings } from '../../../../src/core/settings';
import { builtinTools } from '../../../../src/core/tools/builtin';
import { FakeAnthropicServer, anthropicRequestProblem } from '../../../fakes/anthropicServer';
import { FakeOpenAIServer, openaiRequestProblem } from '../../../fakes/openaiServer';
import type { ScriptedServer } from '../../../fakes/scriptedServer';
import { tempStore } from '../../../support/tempStore';
import { deepIncludes, waitFor } from '../providers/harness';

const SETTINGS = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 });

interface ProviderSetup {
  retry?: RetryOptions;
  idleTimeoutMs?: number;
  timeoutMs?: number;
}

/** The tool calls and tool results a request carried, in order, as the server saw them. */
interface WirePairs {
  calls: string[];
  results: string[];
}

interface Wire {
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

const WIRES: Wire[] = [
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

/** A sleep that records what it was asked to wait and returns at once. */
function recordingSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

/** Every tool call has exactly one result, every result has its call, and the project's validator agrees. */
function assertPaired(messages: readonly Message[], where: string): void {
  assert.deepEqual(validateHistory(messages), [], `${where}: validateHistory`);
  const visible = messages.filter((m) => m.agentVisible);
  const calls = visible.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
  const results = visible.filter((m) => m.role === 'tool').map((m) => m.toolCallId ?? '');
  for (const id of calls) assert.equal(results.filter((r) => r === id).length, 1, `${where}: call ${id} has exactly one result`);
  for (const id of results) assert.ok(calls.includes(id), `${where}: result ${id} has its call`);
}

/** The request as the server received it is one the real API accepts, with every call answered. */
function assertValidRequest(wire: Wire, body: unknown): WirePairs {
  assert.equal(wire.problem(body), undefined, 'the real API would accept the request');
  const pairs = wire.pairs(body);
  assert.deepEqual([...pairs.results].sort(), [...pairs.calls].sort(), 'every tool call in the request has its result');
  assert.equal(new Set(pairs.calls).size, pairs.calls.length, 'no call is sent twice');
  return pairs;
}

interface Session {
  contextSession: ContextSession;
  agent: AgentSession;
  events: AgentEvent[];
  /** What the agent loop's own retry waits asked for. */
  agentDelays: number[];
}

/** A workspace with one file, for the real read_file tool. */
function tempWorkspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'tally-faults-ws-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.ts'), 'export const answer = 42;\n');
  return root;
}

/** A real AgentSession on `store`: real prompt, real workspace tools chained to the session tools. */
async function openSession(store: SessionStore, sessionId: string, provider: ChatProvider, workspace: string): Promise<Session> {
  const counter = getTokenCounter();
  const contextSession = await ContextSession.open({ store, sessionId, settings: SETTINGS, counter });
  let fixed = { system: 0, skills: 0, tools: 0 };
  const session = sessionTools(store, () => contextSession);
  const prompt: SessionPrompt = new SessionPrompt({ counter, settings: SETTINGS, tools: () => runner.definitions(), instructions: async () => undefined, skills: async () => [] });
  const runner = testRegistry({
    tools: () => [...prompt.tools(), ...builtinTools(), ...session],
    folders: [workspace],
    policy: { commands: 'always', edits: 'always' },
    ask: async () => ({ approved: true }),
    limits: { commandTimeoutMs: 5_000 },
    onCall: (name) => prompt.noteToolUse(name),
  });
  const { delays, sleep } = recordingSleep();
  const agent = new AgentSession({
    contextSession,
    provider,
    model: 'test-model',
    maxOutputTokens: 2_000,
    maxSteps: 10,
    prompt: {
      prepare: async (a) => {
        const p = await prompt.prepare(a);
        fixed = p.fixed;
        return p;
      },
    },
    tools: runner,
    sleep,
    retry: { random: () => 0 },
  });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { contextSession, agent, events, agentDelays: delays };
}

function errorsOf(events: AgentEvent[]): Array<Extract<AgentEvent, { type: 'error' }>> {
  return events.filter((e): e is Extract<AgentEvent, { type: 'error' }> => e.type === 'error');
}

function textShown(events: AgentEvent[]): string {
  return events.map((e) => (e.type === 'text_delta' ? e.text : '')).join('');
}

/** A kept fragment: a non-empty start of what the model was saying, then the marker with the reason. */
function assertCutOff(content: string, reply: string, reason: RegExp): void {
  const match = /^([\s\S]+)\n\[The response was cut off: ([^\]]+)\]$/.exec(content);
  assert.ok(match, `marked as cut off: ${JSON.stringify(content)}`);
  assert.ok(reply.startsWith(match[1]), `the kept text is what was streamed: ${JSON.stringify(match[1])}`);
  assert.match(match[2], reason);
}

const FIRST_PROMPT = 'Look at src/a.ts and tell me the answer.';
const RESUME_PROMPT = 'Please continue where you left off.';

for (const wire of WIRES) {
  describe(`provider faults through the agent loop: ${wire.name}`, function () {
    this.timeout(15_000);
    let server: ScriptedServer;
    let healthy: ScriptedServer | undefined;
    let folder: string;
    let workspace: string;
    let store: SessionStore;
    let sessionId: string;
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

    it('connection reset after some text, on every attempt: error "connection dropped", the text already shown kept and marked cut off, resumes', async () => {
      const { agent, events, agentDelays } = await begin();
      for (let i = 0; i < 3; i++) server.enqueue({ type: 'reply', parts: [{ text: 'Let me look at the file first.' }], fault: { afterFirst: 'text', action: 'reset' } });
      assert.equal(await agent.send(FIRST_PROMPT), 'error');
      assert.equal(server.requests.length, 3, 'the first attempt and two re-sends');
      assert.deepEqual(agentDelays, [500, 1000], 'the loop backs off between re-sends with the providers\' backoff (jitter 0, injected sleep)');
      assert.equal(events.filter((e) => e.type === 'retry').length, 2);
      const errors = errorsOf(events);
      assert.equal(errors.length, 1);
      assert.equal(errors[0].kind, 'stream_dropped');
      assert.match(errors[0].message, wire.label);
      assert.match(errors[0].message, /the connection dropped mid-answer/);
      assert.ok(textShown(events).length > 0, 'text had been streamed before the reset');
      const { store: again, transcript } = await reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant'], 'what the user saw is kept');
      assertCutOff(transcript[1].content, 'Let me look at the file first.', /the connection dropped mid-answer/);
      await resume(again, 0);
    });

    it('connection reset in the middle of a tool call: the earlier call stays paired, the cut call is never stored, resumes', async () => {
      const { agent, events } = await begin();
      server.enqueue({ type: 'reply', parts: [{ text: 'Reading.' }, { toolCall: { id: 'call_read_1', name: 'read_file', arguments: '{"path":"src/a.ts"}' } }] });
      for (let i = 0; i < 3; i++) {
        server.enqueue({ type: 'reply', parts: [{ toolCall: { id: `call_cut_${i}`, name: 'read_file', arguments: '{"path":"src/some/very/long/path/b.ts"}' } }], fault: { afterFirst: 'tool_args', action: 'reset' } });
      }
      assert.equal(await agent.send(FIRST_PROMPT), 'error');
      assert.equal(server.requests.length, 4);
      assert.ok(events.some((e) => e.type === 'tool_result' && e.callId === 'call_read_1'));
      assert.ok(!events.some((e) => e.type === 'tool_call' && e.call.id.startsWith('call_cut')), 'a cut call is never run');
      const [error] = errorsOf(events);
      assert.equal(error?.kind, 'stream_dropped');
      assert.match(error.message, /the connection dropped mid-answer/);
      const { store: again, transcript } = await reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant', 'tool']);
      assert.match(transcript[2].content, /answer = 42/);
      assert.ok(!JSON.stringify(transcript).includes('call_cut'), 'no trace of the cut call');
      await resume(again, 1);
    });

    it('a stream that stalls past the idle timeout: error "timed out … stalled", connection closed, resumes', async () => {
      const { agent, events, agentDelays } = await begin({ idleTimeoutMs: 150 });
      for (let i = 0; i < 3; i++) server.enqueue({ type: 'reply', parts: [{ text: 'Thinking very hard about it.' }], fault: { afterFirst: 'text', action: 'stall' } });
      assert.equal(await agent.send(FIRST_PROMPT), 'error');
      assert.equal(server.requests.length, 3);
      assert.deepEqual(agentDelays, [500, 1000]);
      const [error] = errorsOf(events);
      assert.equal(error?.kind, 'timeout');
      assert.match(error.message, wire.label);
      assert.match(error.message, /timed out: the answer stalled for more than/);
      await waitFor(() => server.requests.every((r) => r.clientClosedEarly));
      const { store: again, transcript } = await reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant']);
      assertCutOff(transcript[1].content, 'Thinking very hard about it.', /timed out/);
      await resume(again, 0);
    });

    it('invalid JSON in a data: line: error "unexpected response", not retried, resumes', async () => {
      const { agent, events, agentDelays } = await begin();
      server.enqueue({ type: 'reply', parts: [{ text: 'Here is a partial answer' }], fault: { afterFirst: 'text', action: 'malformed' } });
      assert.equal(await agent.send(FIRST_PROMPT), 'error');
      assert.equal(server.requests.length, 1, 'a malformed stream is not re-sent');
      assert.deepEqual(agentDelays, []);
      assert.deepEqual(providerDelays, []);
      const errors = errorsOf(events);
      assert.equal(errors.length, 1);
      assert.equal(errors[0].kind, 'malformed');
      assert.match(errors[0].message, wire.label);
      assert.match(errors[0].message, /unexpected response: an event's data is not a JSON object/);
      const { store: again, transcript } = await reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant']);
      assertCutOff(transcript[1].content, 'Here is a partial answer', /unexpected response/);
      await resume(again, 0);
    });

    it('garbage lines that are no SSE field are ignored: the turn completes with the right text', async () => {
      const { agent, events } = await begin();
      server.enqueue(
        { type: 'reply', parts: [{ text: 'Reading.' }, { toolCall: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } }], garbage: true },
        { type: 'reply', parts: [{ text: 'The answer is 42.' }], garbage: true, splitBytes: 5 },
      );
      assert.equal(await agent.send(FIRST_PROMPT), 'end_turn');
      assert.deepEqual(errorsOf(events), []);
      assert.match(server.requests[0].rawBody, /read_file/);
      assert.equal(textShown(events), 'Reading.The answer is 42.');
      assertValidRequest(wire, server.requests[1].body);
      const { store: again, transcript } = await reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
      await resume(again, 1);
    });

    it('a 500 storm: every attempt fails until retries run out, error names HTTP 500, resumes', async () => {
      const { agent, events, agentDelays } = await begin();
      for (let i = 0; i < 4; i++) server.enqueue({ type: 'server_error' });
      assert.equal(await agent.send(FIRST_PROMPT), 'error');
      assert.equal(server.requests.length, 4, 'the default 4 attempts');
      assert.deepEqual(providerDelays, [500, 1000, 2000], 'exponential backoff (jitter 0), via the injected sleep: no real waiting');
      assert.deepEqual(agentDelays, [], 'the loop does not multiply the provider’s retries');
      const retries = events.filter((e): e is Extract<AgentEvent, { type: 'retry' }> => e.type === 'retry');
      assert.deepEqual(retries.map((e) => [e.attempt, e.delayMs]), [[1, 500], [2, 1000], [3, 2000]], 'each wait is announced to the UI');
      assert.match(retries[0].reason, /server error \(HTTP 500\)/);
      const errors = errorsOf(events);
      assert.equal(errors.length, 1);
      assert.equal(errors[0].kind, 'server');
      assert.match(errors[0].message, wire.label);
      assert.match(errors[0].message, /server error \(HTTP 500\)/);
      const { store: again, transcript } = await reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user']);
      await resume(again, 0);
    });

    it('429 with retry-after: waits exactly what the server asked (injected sleep), then completes', async () => {
      const { agent, events, contextSession: session } = await begin();
      server.enqueue({ type: 'rate_limited', retryAfterSeconds: 7 }, { type: 'reply', parts: [{ text: 'The answer is 42.' }], usage: { input: 1500, output: 9 } });
      assert.equal(await agent.send(FIRST_PROMPT), 'end_turn');
      assert.deepEqual(providerDelays, [7_000], 'retry-after: 7 honoured, not the computed backoff, through the injected sleep (not waited in wall time)');
      const [retry] = events.filter((e): e is Extract<AgentEvent, { type: 'retry' }> => e.type === 'retry');
      assert.equal(retry?.delayMs, 7_000, 'the chat is told how long the wait is');
      assert.match(retry.reason, /rate.?limit|429/i);
      assert.equal(server.requests.length, 2);
      assert.equal(server.requests[1].rawBody, server.requests[0].rawBody, 'the same request is re-sent');
      assert.deepEqual(errorsOf(events), []);
      const usage = await store.listRequestUsage(session.sessionId);
      assert.equal(usage.length, 1, 'one request recorded, not two');
      const { store: again, transcript } = await reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant']);
      await resume(again, 0);
    });

    it('a tool call with invalid JSON arguments gets a tool result saying so, and the loop reaches a final answer', async () => {
      const { agent, events } = await begin();
      const raw = '{"path": "src/a.ts", "limit": ';
      server.enqueue(
        { type: 'reply', parts: [{ text: 'Reading.' }, { toolCall: { id: 'call_bad_args', name: 'read_file', arguments: raw } }] },
        (req) => {
          const result = wire.results(req.body).get('call_bad_args') ?? '';
          return /not valid JSON/.test(result)
            ? { type: 'reply', parts: [{ text: 'Retrying with valid JSON.' }, { toolCall: { id: 'call_good_args', name: 'read_file', arguments: '{"path":"src/a.ts"}' } }] }
            : { type: 'reply', parts: [{ text: `unexpected tool result: ${result}` }] };
        },
        { type: 'reply', parts: [{ text: 'The answer is 42.' }] },
      );
      assert.equal(await agent.send(FIRST_PROMPT), 'end_turn');
      assert.deepEqual(errorsOf(events), []);
      assert.equal(server.requests.length, 3, 'bad call, good call, answer: no error loop');
      const second = server.requests[1].body;
      assertValidRequest(wire, second);
      assert.match(wire.results(second).get('call_bad_args') ?? '', /^Invalid arguments for read_file: the arguments are not valid JSON/);
      assert.ok(deepIncludes(second, raw), 'the model’s raw arguments are sent back as it wrote them');
      assert.match(wire.results(server.requests[2].body).get('call_good_args') ?? '', /answer = 42/);
      const { store: again, transcript } = await reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
      assert.equal(transcript[2].meta?.isError, true, 'the invalid-arguments result is marked as an error');
      assert.equal(transcript[1].toolCalls?.[0].arguments, raw, 'the stored call keeps the raw arguments');
      assert.equal(transcript[5].content, 'The answer is 42.');
      await resume(again, 2);
    });

    for (const [label, usage] of [
      ['missing (no usage field at all)', 'absent'],
      ['null', null],
    ] as const) {
      it(`usage ${label}: the turn completes and the ledger falls back to the estimate`, async () => {
        const { agent, events, contextSession: session } = await begin();
        server.enqueue(
          { type: 'reply', parts: [{ text: 'Reading.' }, { toolCall: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } }], usage },
          { type: 'reply', parts: [{ text: 'The answer is 42.' }], usage },
        );
        assert.equal(await agent.send(FIRST_PROMPT), 'end_turn');
        assert.deepEqual(errorsOf(events), []);
        const recorded = events.flatMap((e) => (e.type === 'usage' ? [e.record] : []));
        assert.equal(recorded.length, 2);
        for (const r of recorded) {
          assert.equal(r.reportedInputTokens, undefined, 'nothing reported');
          assert.equal(r.reportedOutputTokens, undefined);
          assert.ok(r.estimatedInputTokens > 0, 'the estimate is recorded instead');
        }
        assert.equal(session.measure().basis, 'estimate', 'the budget is based on the estimate');
        assert.equal(session.calibration.view().samples, 0, 'calibration learned nothing from a missing report');
        const { store: again } = await reopenAndCheck();
        const stored = await again.listRequestUsage(sessionId);
        assert.deepEqual(
          stored.map((u) => [u.requestIndex, u.reportedInputTokens, u.estimatedInputTokens > 0]),
          [
            [0, undefined, true],
            [1, undefined, true],
          ],
          'the ledger on disk says the estimate was all there was',
        );
        await resume(again, 1);
      });
    }
  });
}
