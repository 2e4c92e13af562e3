import * as assert from 'assert';
import { ContextBudget } from '../../../src/core/accounting/budget';
import { DEFAULT_SETTINGS } from '../../../src/core/settings';
import { chatHandlers } from '../../../src/host/chat/chatIntents';
import { inspectorHandlers } from '../../../src/host/inspector/inspectorIntents';
import type { ChatToHost } from '../../../src/protocol/chat';
import type { InspectorToHost } from '../../../src/protocol/inspector';
import { MAX_LOG_LINE, receiveWebviewMessage, type Handlers } from '../../../src/protocol/receive';
import { parseChatMessage, parseInspectorMessage } from '../../../src/protocol/validate';

/**
 * Hostile messages pushed through the same path the views use (`receiveWebviewMessage` with the
 * real validators and the real intent handlers), against fakes that record every call: a rejected
 * message must write one warning, touch nothing and never throw.
 */

const MB = 1024 * 1024;

interface Recorder {
  calls: string[];
  warnings: string[];
  errors: unknown[];
}

function recorder(): Recorder {
  return { calls: [], warnings: [], errors: [] };
}

/** Every method records its name and arguments; state-changing or not, nothing may be reached on rejection. */
function fakeSessions(r: Recorder) {
  const record = (name: string) => (...args: unknown[]) => {
    r.calls.push(`${name}(${args.map((a) => JSON.stringify(a)).join(', ')})`);
  };
  const store = {
    listRequestUsage: async (id: string) => (record('store.listTurnUsage')(id), [{ requestIndex: 3, items: [{ id: 'i1' }] }]),
    requestUsageAt: async (id: string, index: number) => (record('store.turnUsageAt')(id, index), { requestIndex: 3, items: [{ id: 'i1' }] }),
    readBlob: async (sessionId: string, refId: string, offset: number, length: number) => (record('store.readBlob')(sessionId, refId, offset, length), { offset, bytes: new TextEncoder().encode('hello'), totalBytes: 5 }),
  };
  const result = { status: 'done', tokensBefore: 100, tokensAfter: 40, strategies: ['masking'], removed: [] };
  // The window figures the messages report: 100 tokens in a 900-token effective window, 40 after a compaction.
  let usedNow = 100;
  const session = { measure: () => new ContextBudget({ contextWindow: 1_000, maxOutputTokens: 100, settings: DEFAULT_SETTINGS }).setComponents({ system: 0, skills: 0, tools: 0, messages: usedNow, toolResults: 0, summaries: 0 }) };
  return {
    send: async (text: string) => record('send')(text),
    cancel: () => record('cancel')(),
    discardPendingMessage: () => record('discardPendingMessage')(),
    resolveApproval: (callId: string, approved: boolean, forSession?: boolean) => (forSession ? record('resolveApproval')(callId, approved, forSession) : record('resolveApproval')(callId, approved)),
    create: async () => (record('create')(), {}),
    open: async (id: string) => (record('open')(id), {}),
    current: async () => (record('current')(), { info: { id: 's1' }, contextSession: session, fixed: { system: 0, skills: 0, tools: 0 } }),
    store: async () => (record('store')(), store),
    setPinned: async (id: string, pinned: boolean) => (record('setPinned')(id, pinned), true),
    preview: async (focus?: string) => (record('preview')(focus), result),
    compact: async (focus?: string) => (record('compact')(focus), (usedNow = 40), result),
  } as any;
}

function chatInbox(r: Recorder, handlers?: Handlers<ChatToHost>) {
  return {
    source: 'chat',
    parse: parseChatMessage,
    log: { warn: (line: string) => r.warnings.push(line) },
    handlers:
      handlers ??
      chatHandlers({
        sessions: fakeSessions(r),
        executeCommand: async (command: string, ...args: unknown[]) => void r.calls.push(`command ${command} ${JSON.stringify(args)}`),
        sendState: async () => void r.calls.push('sendState'),
        showEarlier: async () => void r.calls.push('showEarlier'),
      }),
    onError: (error: unknown) => void r.errors.push(error),
  };
}

function inspectorInbox(r: Recorder) {
  return {
    source: 'inspector',
    parse: parseInspectorMessage,
    log: { warn: (line: string) => r.warnings.push(line) },
    handlers: inspectorHandlers({
      sessions: fakeSessions(r),
      post: (message) => void r.calls.push(`post ${message.type}`),
      sendState: async () => void r.calls.push('sendState'),
      showEarlier: async (list) => void r.calls.push(`showEarlier ${list}`),
      executeCommand: async (command: string, ...args: unknown[]) => void r.calls.push(`command ${command} ${JSON.stringify(args)}`),
      showInformation: (text) => void r.calls.push(`info ${text}`),
    }),
    onError: (error: unknown) => void r.errors.push(error),
  };
}

const hostile: Array<[string, unknown, RegExp]> = [
  // [name, message, what the one log line must say]
  ['an unknown type', { type: 'runShell', command: 'rm -rf /' }, /type "runShell".*unknown message type "runShell"/],
  ['the other view\'s type', { type: 'selectRequest', requestIndex: 1 }, /type "selectRequest".*unknown message type/],
  ['an inherited type name', { type: 'hasOwnProperty' }, /unknown message type "hasOwnProperty"/],
  ['a missing field', { type: 'resumeSession' }, /type "resumeSession".*"sessionId" must be a string/],
  ['a wrong field type', { type: 'approval', callId: 'c1', approved: 'yes' }, /type "approval".*"approved" must be a boolean/],
  ['a nested object where a string belongs', { type: 'send', text: { nested: { deeper: ['junk'] } } }, /type "send".*"text" must be a string/],
  ['extra nested junk', { type: 'cancel', junk: { a: [1, { b: new Array(1000).fill('x') }] } }, /type "cancel".*unexpected key "junk"/],
  ['a __proto__ key from JSON', JSON.parse('{"type":"newSession","__proto__":{"isAdmin":true}}'), /forbidden key "__proto__"/],
  ['a 5 MB text', { type: 'send', text: 'a'.repeat(5 * MB) }, /type "send".*"text" is longer than 102400 bytes/],
  ['a 5 MB type name', { type: 't'.repeat(5 * MB) }, /unknown message type "t{40}"/],
  ['a 5 MB key', { type: 'cancel', ['k'.repeat(5 * MB)]: 1 }, /unexpected key "k{40}"/],
  ['null', null, /\(null\): message is not an object/],
  ['undefined', undefined, /\(undefined\): message is not an object/],
  ['a number', 42, /\(a number\): message is not an object/],
  ['a string', 'send', /\(a string of 4 characters\): message is not an object/],
  ['a 5 MB string', 'x'.repeat(5 * MB), /\(a string of 5242880 characters\): message is not an object/],
  ['an array', [{ type: 'send', text: 'hi' }], /\(an array\): message is not an object/],
  ['a boolean', true, /\(a boolean\): message is not an object/],
  ['an object without a type', { text: 'hi' }, /\(an object without a string type\): message has no string "type"/],
];

describe('webview boundary: chat messages through receiveWebviewMessage and the chat handlers', () => {
  for (const [name, message, logged] of hostile) {
    it(`rejects ${name}: one log line, no handler reached, no throw`, async () => {
      const r = recorder();
      const receipt = await receiveWebviewMessage(message, chatInbox(r));
      assert.strictEqual(receipt.accepted, false);
      assert.deepStrictEqual(r.calls, [], 'nothing was called: no session change, no command, no state push');
      assert.deepStrictEqual(r.errors, []);
      assert.strictEqual(r.warnings.length, 1, `exactly one log line, got ${JSON.stringify(r.warnings.map((w) => w.slice(0, 120)))}`);
      assert.match(r.warnings[0], /^chat: rejected a message from the webview /);
      assert.match(r.warnings[0], logged);
      assert.ok(r.warnings[0].length <= MAX_LOG_LINE, `the log line is bounded (${r.warnings[0].length} chars)`);
    });
  }

  it('rejects a throwing proxy with one log line and no throw', async () => {
    const r = recorder();
    const boom = () => {
      throw new Error('boom');
    };
    const proxy = new Proxy({}, { ownKeys: boom, getOwnPropertyDescriptor: boom, get: boom, has: boom, getPrototypeOf: boom });
    const receipt = await receiveWebviewMessage(proxy, chatInbox(r));
    assert.strictEqual(receipt.accepted, false);
    assert.deepStrictEqual(r.calls, []);
    assert.strictEqual(r.warnings.length, 1);
    assert.match(r.warnings[0], /an unreadable object/);
  });

  it('rejects when the validator itself throws, without calling a handler', async () => {
    const r = recorder();
    const inbox = { ...chatInbox(r), parse: () => { throw new Error('validator bug'); } };
    const receipt = await receiveWebviewMessage({ type: 'cancel' }, inbox);
    assert.deepStrictEqual(receipt, { accepted: false, reason: 'message could not be read: validator bug' });
    assert.deepStrictEqual(r.calls, []);
    assert.strictEqual(r.warnings.length, 1);
  });

  it('rejects a valid type that has no handler instead of throwing', async () => {
    const r = recorder();
    const handlers = { ...chatHandlers({ sessions: fakeSessions(r), executeCommand: async () => undefined, sendState: async () => undefined, showEarlier: async () => undefined }) } as Partial<Handlers<ChatToHost>>;
    delete handlers.cancel;
    const receipt = await receiveWebviewMessage({ type: 'cancel' }, chatInbox(r, handlers as Handlers<ChatToHost>));
    assert.strictEqual(receipt.accepted, false);
    assert.match(r.warnings[0], /no handler for message type "cancel"/);
    assert.deepStrictEqual(r.calls, []);
  });

  const valid: Array<[ChatToHost, string[]]> = [
    [{ type: 'ready' }, ['sendState']],
    [{ type: 'send', text: 'Fix the failing test' }, ['send("Fix the failing test")']],
    [{ type: 'cancel' }, ['cancel()']],
    [{ type: 'approval', callId: 'call_1', approved: true }, ['resolveApproval("call_1", true)']],
    [{ type: 'approval', callId: 'call_1', approved: true, forSession: true }, ['resolveApproval("call_1", true, true)']],
    [{ type: 'newSession' }, ['create()']],
    [{ type: 'resumeSession', sessionId: 's-1' }, ['open("s-1")']],
    [{ type: 'selectModel' }, ['command tally.selectModel []']],
    [{ type: 'discardPending' }, ['discardPendingMessage()']],
    [{ type: 'openResult', refId: 'res_1' }, ['command tally.openResult ["res_1"]']],
    [{ type: 'openInspector' }, ['command tally.openInspector []']],
    [{ type: 'showEarlier' }, ['showEarlier']],
  ];
  for (const [message, calls] of valid) {
    it(`passes a valid ${message.type} to its handler, silently`, async () => {
      const r = recorder();
      const receipt = await receiveWebviewMessage(message, chatInbox(r));
      assert.deepStrictEqual(receipt, { accepted: true, message });
      assert.deepStrictEqual(r.calls, calls);
      assert.deepStrictEqual(r.warnings, []);
    });
  }

  it('a handler that fails reaches onError, not the caller, and is not logged as a rejection', async () => {
    const r = recorder();
    const sessions = { ...fakeSessions(r), send: async () => { throw new Error('No model is configured.'); } };
    const inbox = { ...chatInbox(r), handlers: chatHandlers({ sessions, executeCommand: async () => undefined, sendState: async () => undefined, showEarlier: async () => undefined }) };
    const receipt = await receiveWebviewMessage({ type: 'send', text: 'hi' }, inbox);
    assert.strictEqual(receipt.accepted, true);
    assert.deepStrictEqual(r.errors.map((e) => (e as Error).message), ['No model is configured.']);
    assert.deepStrictEqual(r.warnings, []);
  });

  it('survives an onError that throws as well', async () => {
    const r = recorder();
    const inbox = {
      ...chatInbox(r),
      handlers: chatHandlers({ sessions: { ...fakeSessions(r), cancel: () => { throw new Error('a'); } }, executeCommand: async () => undefined, sendState: async () => undefined, showEarlier: async () => undefined }),
      onError: () => { throw new Error('b'); },
    };
    await assert.doesNotReject(receiveWebviewMessage({ type: 'cancel' }, inbox));
  });
});

describe('webview boundary: inspector messages through receiveWebviewMessage and the inspector handlers', () => {
  const inspectorHostile: Array<[string, unknown, RegExp]> = [
    ['an unknown type', { type: 'deleteEverything' }, /type "deleteEverything".*unknown message type/],
    ['the chat\'s send', { type: 'send', text: 'hi' }, /type "send".*unknown message type "send"/],
    ['a missing field', { type: 'pin', messageId: 'm1' }, /type "pin".*"pinned" must be a boolean/],
    ['a wrong field type', { type: 'loadBlob', refId: 'r', offset: '0' }, /type "loadBlob".*"offset" must be a non-negative integer/],
    ['extra nested junk', { type: 'refresh', junk: { deep: [[[{}]]] } }, /unexpected key "junk"/],
    ['a 5 MB focus', { type: 'confirmCompaction', focus: 'f'.repeat(5 * MB) }, /type "confirmCompaction".*"focus" is longer than 2048 bytes/],
    ['a 5 MB ref id', { type: 'openBlobInEditor', refId: 'r'.repeat(5 * MB) }, /"refId" is longer than 200 characters/],
    ['a fork from a made-up request number', { type: 'forkFromRequest', sessionId: 's1', requestIndex: -3 }, /type "forkFromRequest".*"requestIndex" must be a non-negative integer/],
    ['null', null, /\(null\)/],
    ['a number', 7, /\(a number\)/],
    ['a string', 'refresh', /\(a string of 7 characters\)/],
    ['an array', [], /\(an array\)/],
  ];
  for (const [name, message, logged] of inspectorHostile) {
    it(`rejects ${name}: one log line, no handler reached, no throw`, async () => {
      const r = recorder();
      const receipt = await receiveWebviewMessage(message, inspectorInbox(r));
      assert.strictEqual(receipt.accepted, false);
      assert.deepStrictEqual(r.calls, [], 'nothing was called: no store read, no pin, no compaction, no post');
      assert.strictEqual(r.warnings.length, 1);
      assert.match(r.warnings[0], /^inspector: rejected a message from the webview /);
      assert.match(r.warnings[0], logged);
      assert.ok(r.warnings[0].length <= MAX_LOG_LINE);
    });
  }

  const valid: Array<[InspectorToHost, string[]]> = [
    [{ type: 'ready' }, ['sendState']],
    [{ type: 'refresh' }, ['sendState']],
    [{ type: 'pin', messageId: 'm1', pinned: true }, ['setPinned("m1", true)']],
    [{ type: 'openBlobInEditor', refId: 'res_1' }, ['command tally.openResult ["res_1"]']],
    [{ type: 'selectRequest', requestIndex: 3 }, ['current()', 'store()', 'store.turnUsageAt("s1", 3)', 'store.turnUsageAt("s1", 2)', 'post requestItems']],
    [{ type: 'loadBlob', refId: 'res_1', offset: 0 }, ['current()', 'store()', 'store.readBlob("s1", "res_1", 0, 16384)', 'post blobPage']],
    [{ type: 'previewCompaction', focus: 'tests' }, ['post busy', 'preview("tests")', 'post busy', 'post preview']],
    [{ type: 'openRequestItem', requestIndex: 3, position: 2 }, ['command tally.openRequestItem [3,2]']],
    [{ type: 'openSummary', compactionId: 'c1' }, ['command tally.openSummary ["c1"]']],
    [{ type: 'forkFromRequest', sessionId: 's1', requestIndex: 4 }, ['current()', 'command tally.forkFromRequest ["s1",4]']],
    [
      { type: 'confirmCompaction' },
      [
        'post busy',
        'current()',
        'store()',
        'store.listTurnUsage("s1")',
        'compact()',
        'post busy',
        'store()',
        'store.listTurnUsage("s1")',
        'info Compacted context: 100 → 40 tokens (masking). The context holds 40 of 900 tokens (4.4% of the effective window).',
      ],
    ],
  ];
  for (const [message, calls] of valid) {
    it(`passes a valid ${message.type} to its handler, silently`, async () => {
      const r = recorder();
      const receipt = await receiveWebviewMessage(message, inspectorInbox(r));
      assert.strictEqual(receipt.accepted, true);
      assert.deepStrictEqual(r.calls, calls);
      assert.deepStrictEqual(r.warnings, []);
    });
  }
});

describe('webview boundary: a fork asked for another session than the inspector shows', () => {
  it('is refused with a clear error and no fork is made', async () => {
    const r = recorder();
    const errors: string[] = [];
    const inbox = { ...inspectorInbox(r), onError: (e: unknown) => void errors.push(e instanceof Error ? e.message : String(e)) };
    await receiveWebviewMessage({ type: 'forkFromRequest', sessionId: 'some-other-session', requestIndex: 0 }, inbox);
    assert.deepStrictEqual(r.calls, ['current()'], 'no command ran');
    assert.strictEqual(errors.length, 1);
    assert.match(errors[0], /The inspector now shows .*select the request to fork from again/);
  });
});
